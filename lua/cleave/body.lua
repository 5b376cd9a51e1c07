-- cleave.body: deformable bodies. world:body{...} checks the scene table (material, solver
-- parameters read from the C registry, fracture criterion) and adds the body in C; the body:*
-- methods read its state back (info, positions, surface, per-unit fields) or write it to a file.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs_mod = require "cleave.specs"
local handles = require "cleave.handles"
local mesh = require "cleave.mesh"
local registry = require "cleave.registry"

local raise = schema.raise
local kind_of = schema.kind_of
local show = schema.show
local C, check = core.C, core.check
local check_string_arg, check_format, reshape = convert.check_string_arg, convert.check_format, convert.reshape
local specs, prepare = specs_mod.all, specs_mod.prepare
local POSITIVE = convert.POSITIVE
local World, Body, world_ptr, body_ptr = handles.World, handles.Body, handles.world_ptr, handles.body_ptr
local mesh_ptr, new_mesh_out = mesh.ptr, mesh.new_out
local check_registered, param_spec, c_values = registry.check_registered, registry.param_spec, registry.c_values

specs.material = {
  { name = "density", type = "number", unit = "kg/m^3", default = 1000, range = POSITIVE, help = "mass density" },
  { name = "young", type = "number", unit = "Pa", default = 1e6, range = POSITIVE, help = "Young's modulus" },
  { name = "poisson", type = "number", unit = "1", default = 0.3, range = { 0, 0.5, "[)" }, help = "Poisson's ratio" },
  { name = "plastic", type = "any", help = "plasticity {yield, flow, hardening, max}; absent or false = elastic" },
  help = "material of a body",
  c_defaults = function()
    local d = ffi.new("cl_body_def")
    C.cl_body_def_default(d)
    return { density = d.material.density, young = d.material.young, poisson = d.material.poisson }
  end,
}
specs.plastic = {
  { name = "yield", type = "number", unit = "1", range = { 0, math.huge, "[)" }, required = true,
    help = "yield threshold on the deviatoric elastic strain ||dev eps_e||_F (0 yields at once)" },
  { name = "flow", type = "number", unit = "1/s", default = 0, range = { 0, math.huge, "[)" },
    help = "flow rate k: each step flows the fraction k dt of the strain beyond the yield (capped at k dt >= 1)" },
  { name = "hardening", type = "number", unit = "1", default = 0,
    help = "work hardening K: the yield grows by K x the solver's hardening variable (negative softens)" },
  { name = "max", type = "number", unit = "1", default = 0, range = { 0, math.huge, "[)" },
    help = "cap on the plastic strain ||eps_p||_F; 0 = none" },
  help = "plasticity of a material",
  c_defaults = function()
    local d = ffi.new("cl_body_def")
    C.cl_body_def_default(d)
    local m = d.material
    return { flow = m.plastic_flow, hardening = m.plastic_hardening,
             max = m.plastic_max > 0 and m.plastic_max or 0 }
  end,
}
specs.body = {
  { name = "shape", type = "mesh", help = "the body's mesh: tets, a point set, or a closed surface the solver samples" },
  { name = "mesh", type = "mesh", help = "same as shape" },
  { name = "solver", type = "string", required = true, help = "registered solver name (cl.solvers())" },
  { name = "name", type = "string", help = "name used in messages and outputs" },
  { name = "material", type = "table", help = "material table (cl.help \"material\")" },
  { name = "params", type = "table", help = "solver parameters by name (cl.help(solver))" },
  { name = "fracture", type = "any", help = "{criterion = name, <criterion parameters>} (cl.help(criterion)); false = none" },
  { name = "velocity", type = "vec3", unit = "m/s", help = "initial velocity of every node (a throw); default at rest" },
  { name = "angular_velocity", type = "vec3", unit = "rad/s",
    help = "initial spin about the body's centre of mass (added to velocity)" },
  help = "a deformable body",
  check = function(o)
    if o.shape and o.mesh then return "give shape or mesh, not both" end
    if not (o.shape or o.mesh) then return "missing the body's shape (a mesh: cl.shape.*{...}, cl.mesh.read(...))" end
  end,
}

-- cl_param array from { name = C number }, only the keys the user gave (C keeps its own defaults).
local function param_array(given, anchor)
  local names = {}
  for k in pairs(given or {}) do names[#names + 1] = k end
  table.sort(names)
  local arr = ffi.new("cl_param[?]", math.max(#names, 1))
  for i, k in ipairs(names) do
    anchor[#anchor + 1] = k
    arr[i - 1].name = k
    if type(given[k]) == "string" then -- a text parameter (registry: type "string")
      anchor[#anchor + 1] = given[k]
      arr[i - 1].value = 0
      arr[i - 1].text = given[k]
    else
      arr[i - 1].value = given[k]
    end
  end
  return arr, #names
end

-- Add a body: world:body{ shape = mesh, solver = "corotational", material = {...}, params = {...},
-- fracture = { criterion = "separation_tensor", toughness = ... }, name = "bar" }
function World:body(opts)
  local p = world_ptr(self, "world:body")
  local where = "world:body"
  local o = schema.check(specs.body, opts, where)
  -- A name labels the body's output series (<name>.pvd) and its messages: it must be unique among
  -- the world's bodies (two bodies named alike wrote into one series and the first one's frames were
  -- lost) and say something (an empty name failed only at world:run).
  local taken = {}
  for _, b in ipairs(self._bodies) do
    if not rawget(b, "_removed") then taken[b.name] = true end
  end
  if o.name ~= nil and not o.name:find("%S") then
    raise(string.format("%s: name = %s is empty; give the body a name (it names its output files), or leave "
      .. "name out for body1, body2, ...", where, show(o.name)))
  end
  if o.name ~= nil and taken[o.name] then
    raise(string.format("%s: name = '%s' is already the name of another body of this world; body names label "
      .. "the output files (%s.pvd) and messages, so each must be unique", where, o.name, o.name))
  end
  local mesh = o.shape or o.mesh
  local solver = check_registered("solver", o.solver, where)
  local mat = schema.check(prepare(specs.material), o.material or {}, where .. " material")
  local plastic = nil
  if mat.plastic ~= nil and mat.plastic ~= false then
    plastic = schema.check(prepare(specs.plastic), mat.plastic, where .. " material.plastic")
  end
  local solver_spec = param_spec("solver", solver)
  local params = schema.check(solver_spec, o.params or {}, where .. " params (" .. solver .. ")")
  local given_params = c_values(solver_spec, params, o.params)
  local criterion, crit_params, crit_values = nil, {}, {}
  if o.fracture ~= nil and o.fracture ~= false then
    if type(o.fracture) ~= "table" or getmetatable(o.fracture) then
      raise(where .. ": fracture must be a table {criterion = name, ...} or false, got " .. kind_of(o.fracture))
    end
    local rest = {}
    for k, v in pairs(o.fracture) do
      if k ~= "criterion" then rest[k] = v end
    end
    if o.fracture.criterion == nil then
      raise(where .. ": fracture needs criterion = <name>; available: " .. table.concat(registry.criteria(), ", "))
    end
    criterion = check_registered("criterion", o.fracture.criterion, where .. " fracture")
    local crit_spec = param_spec("criterion", criterion)
    local filled = schema.check(crit_spec, rest, where .. " fracture (" .. criterion .. ")")
    for k in pairs(rest) do crit_params[k] = filled[k] end
    crit_values = c_values(crit_spec, filled, rest)
  end
  local name = o.name
  for k = #self._bodies + 1, math.huge do
    if name then break end
    if not taken["body" .. k] then name = "body" .. k end
  end
  local hp = mesh_ptr(mesh, where)

  local anchor = { name, solver, criterion }
  local def = ffi.new("cl_body_def")
  C.cl_body_def_default(def)
  def.name = name
  def.solver = solver
  def.material.density = mat.density
  def.material.young = mat.young
  def.material.poisson = mat.poisson
  if plastic then
    def.material.plastic_yield = plastic.yield
    def.material.plastic_flow = plastic.flow
    def.material.plastic_hardening = plastic.hardening
    def.material.plastic_max = plastic.max
  end
  local parr, pn = param_array(given_params, anchor)
  def.params = parr
  def.param_count = pn
  if criterion then
    def.criterion = criterion
    local carr, cn = param_array(crit_values, anchor)
    def.criterion_params = carr
    def.criterion_param_count = cn
    anchor[#anchor + 1] = carr
  end
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_body(p, def, hp, id), self)
  anchor[#anchor + 1] = parr -- keep the arrays and strings alive across the call
  -- a solver whose dynamics do not use the moduli (shape matching: alpha and its iterations set the
  -- stiffness) would silently run a stiffer or softer material than asked: say so, once
  local sinfo = ffi.new("cl_solver_info")
  check(C.cl_solver_get_info(solver, sinfo), self)
  if sinfo.uses_moduli == 0 then
    local d = specs.material.c_defaults()
    if mat.young ~= d.young or mat.poisson ~= d.poisson then
      core.warn("moduli:" .. solver, string.format(
        "%s: solver '%s' does not use young (%s Pa) and poisson (%s) in its dynamics, only in its stress and energy "
          .. "read-outs: its stiffness comes from its parameters (shape_matching: alpha and the iterations; "
          .. "docs/solvers/shape_matching.md)", where, solver, schema.show(mat.young), schema.show(mat.poisson)), self)
    end
  end
  local body = setmetatable({ world = self, id = id[0], name = name, solver = solver,
                              criterion = criterion or false, material = mat, params = params,
                              plastic = plastic or false, fracture_params = crit_params, _anchor = anchor }, Body)
  self._bodies[#self._bodies + 1] = body
  if o.velocity or o.angular_velocity then body:set_velocity{ linear = o.velocity, angular = o.angular_velocity } end
  return body
end

function World:bodies()
  world_ptr(self, "world:bodies")
  local out = {}
  for _, b in ipairs(self._bodies) do
    if not rawget(b, "_removed") then out[#out + 1] = b end
  end
  return out
end

-- { nodes, units, surface_triangles, pieces, mass (kg) }
function Body:info()
  local p = body_ptr(self, "body:info")
  local info = ffi.new("cl_body_info")
  check(C.cl_body_get_info(p, self.id, info), self.world)
  return { nodes = info.nodes, units = info.units, surface_triangles = info.surface_triangles,
           pieces = info.pieces, mass = info.mass }
end

local function body_vectors(fn_name, what)
  return function(self, fmt)
    local p = body_ptr(self, what)
    fmt = check_format(fmt, what)
    local n = self:info().nodes
    local buf = ffi.new("double[?]", math.max(3 * n, 1))
    check(C[fn_name](p, self.id, buf, 3 * n), self.world)
    return reshape(buf, n, 3, fmt, false)
  end
end
-- Current positions (m), velocities (m/s), rest positions (m): format "table", "flat" or "cdata".
Body.positions = body_vectors("cl_body_copy_positions", "body:positions")
Body.velocities = body_vectors("cl_body_copy_velocities", "body:velocities")
Body.rest_positions = body_vectors("cl_body_copy_rest_positions", "body:rest_positions")

-- The piece of every node, 0-based labels in order of first appearance (nodes joined by cells or
-- bonds share one; a node in none is its own): a table, or "cdata" (int32_t[?], count).
function Body:piece_labels(fmt)
  local what = "body:piece_labels"
  local p = body_ptr(self, what)
  if fmt ~= nil and fmt ~= "cdata" and fmt ~= "table" then
    raise(what .. ": format must be \"table\" or \"cdata\", got " .. schema.show(fmt))
  end
  local n = self:info().nodes
  local buf = ffi.new("int32_t[?]", math.max(n, 1))
  check(C.cl_body_copy_piece_labels(p, self.id, buf, n), self.world)
  if fmt == "cdata" then return buf, n end
  local t = {}
  for i = 1, n do t[i] = buf[i - 1] end
  return t
end

specs.rigid_velocity = {
  { name = "linear", type = "vec3", unit = "m/s", default = { 0, 0, 0 }, help = "velocity of the centre of mass" },
  { name = "angular", type = "vec3", unit = "rad/s", default = { 0, 0, 0 }, help = "spin about the centre of mass" },
  help = "a rigid velocity field v = linear + angular x (x - c)",
}

-- Set a rigid velocity field: body:set_velocity{vx, vy, vz} (a translation) or
-- body:set_velocity{linear = {...}, angular = {...}} (about the centre of mass). Takes effect at
-- the next step; held nodes keep following their condition.
function Body:set_velocity(v)
  local where = "body:set_velocity"
  local p = body_ptr(self, where)
  if type(v) ~= "table" or getmetatable(v) then
    raise(where .. ": expected {vx, vy, vz} or {linear = {...}, angular = {...}}, got " .. kind_of(v))
  end
  if v[1] ~= nil then v = { linear = v } end
  local o = schema.check(specs.rigid_velocity, v, where)
  local lin, ang = ffi.new("double[3]"), ffi.new("double[3]")
  convert.vec3_into(lin, o.linear)
  convert.vec3_into(ang, o.angular)
  check(C.cl_body_set_rigid_velocity(p, self.id, lin, ang), self.world)
  return self
end

-- Set every node's velocity: a list of {x, y, z} (one per node), a flat list of 3 per node, or a
-- double[3 * nodes] cdata (as body:velocities returns them).
function Body:set_velocities(list)
  local where = "body:set_velocities"
  local p = body_ptr(self, where)
  local n = self:info().nodes
  local buf
  if type(list) == "cdata" then
    local size = ffi.sizeof(list)
    if not size or size < 8 * 3 * n then
      raise(string.format("%s: the cdata holds %s bytes; %d doubles (3 per node) are needed", where,
                          tostring(size), 3 * n))
    end
    buf = list
  elseif type(list) == "table" and not getmetatable(list) then
    buf = ffi.new("double[?]", math.max(3 * n, 1))
    if type(list[1]) == "table" then
      if #list ~= n then raise(string.format("%s: %d vectors given, the body has %d nodes", where, #list, n)) end
      for i = 1, n do
        local e = list[i]
        if type(e) ~= "table" or type(e[1]) ~= "number" or type(e[2]) ~= "number" or type(e[3]) ~= "number" then
          raise(string.format("%s: entry %d must be {x, y, z} numbers, got %s", where, i, kind_of(e)))
        end
        buf[3 * (i - 1)], buf[3 * (i - 1) + 1], buf[3 * (i - 1) + 2] = e[1], e[2], e[3]
      end
    else
      if #list ~= 3 * n then
        raise(string.format("%s: %d numbers given, the body has %d nodes (3 numbers each)", where, #list, n))
      end
      for i = 1, 3 * n do
        if type(list[i]) ~= "number" then raise(string.format("%s: entry %d is %s, not a number", where, i, kind_of(list[i]))) end
        buf[i - 1] = list[i]
      end
    end
  else
    raise(where .. ": expected a list of {x, y, z}, a flat list or a double cdata, got " .. kind_of(list))
  end
  check(C.cl_body_set_velocities(p, self.id, buf, 3 * n), self.world)
  return self
end

-- The current surface as a triangle mesh (the body's node numbering).
function Body:surface()
  local p = body_ptr(self, "body:surface")
  local info = self:info()
  local nt, nn = info.surface_triangles, info.nodes
  local tris = ffi.new("int32_t[?]", math.max(3 * nt, 1))
  check(C.cl_body_copy_surface(p, self.id, tris, 3 * nt), self.world)
  local xyz = ffi.new("double[?]", math.max(3 * nn, 1))
  check(C.cl_body_copy_positions(p, self.id, xyz, 3 * nn), self.world)
  return new_mesh_out(C.cl_mesh_from_arrays, 1, xyz, nn, tris, nt)
end

local unit_fields = { deformation_gradient = { 0, 9 }, stress = { 1, 9 }, plastic_strain = { 2, 9 }, center = { 3, 3 },
  damage = { 4, 1 } }
-- Per-unit (tet or cluster) field: "deformation_gradient", "stress", "plastic_strain" (9 per unit,
-- row-major), "center" (3 per unit) or "damage" (a list of one number per unit, in [0, 1]:
-- graph_fem's largest edge damage of the tet, 0 for solvers without damage).
function Body:unit_field(name, fmt)
  local what = "body:unit_field"
  local p = body_ptr(self, what)
  local f = unit_fields[name]
  if not f then raise(what .. ": " .. schema.unknown_name("field", name, { "center", "damage", "deformation_gradient", "plastic_strain", "stress" })) end
  fmt = check_format(fmt, what)
  local n = self:info().units
  local buf = ffi.new("double[?]", math.max(f[2] * n, 1))
  check(C.cl_body_copy_unit_field(p, self.id, f[1], buf, f[2] * n), self.world)
  if f[2] == 1 and fmt == "table" then fmt = "flat" end -- one number per unit: a plain list
  return reshape(buf, n, f[2], fmt, false)
end

-- The solver's statistics (cl_body_copy_stats): { <name> = value, ... }, e.g. clusters and
-- cluster_radius for shape matching, tets, islands and cg_iterations for corotational; {} for a
-- solver that reports none. With "list": the same in the solver's order as
-- { {name =, value =, unit =, help =}, ... }.
function Body:stats(fmt)
  local what = "body:stats"
  local p = body_ptr(self, what)
  if fmt ~= nil and fmt ~= "list" then
    raise(what .. ": the only option is \"list\", got " .. schema.show(fmt))
  end
  local n = ffi.new("int32_t[1]")
  check(C.cl_body_copy_stats(p, self.id, nil, 0, n), self.world)
  local count = n[0]
  local buf = ffi.new("cl_body_stat[?]", math.max(count, 1))
  if count > 0 then check(C.cl_body_copy_stats(p, self.id, buf, count, n), self.world) end
  local out = {}
  for i = 0, math.min(count, n[0]) - 1 do
    local s = buf[i]
    local name, value = ffi.string(s.name), tonumber(s.value)
    if fmt == "list" then
      out[#out + 1] = { name = name, value = value, unit = ffi.string(s.unit), help = ffi.string(s.help) }
    else
      out[name] = value
    end
  end
  return out
end

-- Write the current state (.vtu with fields, or .obj surface).
function Body:write(path)
  local p = body_ptr(self, "body:write")
  check_string_arg(path, "body:write", "path")
  check(C.cl_body_write(p, self.id, path), self.world)
  return self
end

function Body:remove()
  local p = body_ptr(self, "body:remove")
  check(C.cl_world_remove_body(p, self.id), self.world)
  self._removed = true
end

return {}
