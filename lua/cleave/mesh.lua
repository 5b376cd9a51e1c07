-- cleave.mesh: meshes as Lua objects (cl.mesh.read, cl.mesh.from_arrays and the mesh:* methods).
--
-- A mesh handle is a metatype'd `cl_lua_mesh` struct whose __gc frees the C mesh; :destroy() frees
-- it at once and clears the pointer every copy of the handle sees, so later use is a Lua error.
-- Other modules take meshes through `ptr` (checks the argument) and build new ones with `new_out`.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs_mod = require "cleave.specs"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local C, check = core.C, core.check
local vec3_into, vec3_from = convert.vec3_into, convert.vec3_from
local check_string_arg, check_format, reshape = convert.check_string_arg, convert.check_format, convert.reshape
local matmul3, rotation_matrix, det3, check_matrix =
  convert.matmul3, convert.rotation_matrix, convert.det3, convert.check_matrix
local specs, prepare = specs_mod.all, specs_mod.prepare
local INT32_MAX = convert.INT32_MAX

local Mesh = {}
local mesh_kinds = { [0] = "points", "triangles", "tets" }
local mesh_kind_ids = { points = 0, triangles = 1, tets = 2 }
local cell_sizes = { [0] = 0, 3, 4 }

local mesh_ct
local function mesh_gc(m)
  if m.handle ~= nil then
    local p = m.handle
    m.handle = nil
    pcall(function() C.cl_mesh_destroy(p) end)
  end
end

local function mesh_tostring(m)
  if m.handle == nil then return "cl.mesh(destroyed)" end
  local info = ffi.new("cl_mesh_info")
  local ok, s = pcall(function() return tonumber(C.cl_mesh_get_info(m.handle, info)) end)
  if not ok or s < 0 then return "cl.mesh" end
  return string.format("cl.mesh(%s: %d points, %d cells)", mesh_kinds[tonumber(info.kind)] or "?",
    info.points, info.cells)
end

setmetatable(Mesh, { __index = function(_, k)
  local names = {}
  for n in pairs(Mesh) do names[#names + 1] = n end
  table.sort(names)
  raise(schema.unknown_name("mesh method", k, names))
end })
mesh_ct = ffi.metatype("cl_lua_mesh", { __index = Mesh, __gc = mesh_gc, __tostring = mesh_tostring })

local function is_mesh(v) return ffi.istype(mesh_ct, v) end


local function wrap_mesh(ptr)
  local m = mesh_ct()
  m.handle = ptr
  return m
end

-- The live C pointer of a mesh argument, or an error naming the call.
local function mesh_ptr(m, what)
  if not is_mesh(m) then
    raise(string.format("%s: expected a mesh (from cl.mesh.read, cl.shape.*, ...), got %s %s",
      what, kind_of(m), show(m)))
  end
  if m.handle == nil then raise(what .. ": this mesh was destroyed (mesh:destroy())") end
  return m.handle
end

schema.define_type("mesh", function(v)
  if not is_mesh(v) then return false, "is not a mesh (expected cl.mesh.read(...), cl.shape.*{...})" end
  if v.handle == nil then return false, "is a destroyed mesh" end
  return true, v
end, "a mesh")

local function new_mesh_out(fn, ...)
  local out = ffi.new("cl_mesh*[1]")
  local args = { ... }
  args[#args + 1] = out
  check(fn(unpack(args)))
  if out[0] == nil then raise("cleave: the C library returned no mesh and no error") end
  return wrap_mesh(out[0])
end

local api = {} -- the cl.mesh namespace

-- Read a mesh file (.off .obj .stl .node/.ele .mesh); errors name the file and line.
function api.read(path)
  check_string_arg(path, "cl.mesh.read", "path")
  return new_mesh_out(C.cl_mesh_read, path)
end

specs["mesh.from_arrays"] = {
  { name = "kind", type = "enum", values = { "points", "triangles", "tets" }, required = true,
    help = "what the cells are" },
  { name = "points", type = "any", required = true,
    help = "point coordinates: a list of {x, y, z} or a flat list x1, y1, z1, ... (m)" },
  { name = "cells", type = "any",
    help = "cells: a list of {i, j, k} or {i, j, k, l} of 1-based point indices (or a flat list)" },
}

-- Build a mesh from Lua tables: cl.mesh.from_arrays{ kind = "tets", points = {...}, cells = {...} }
function api.from_arrays(opts)
  local o = schema.check(specs["mesh.from_arrays"], opts, "cl.mesh.from_arrays")
  local where = "cl.mesh.from_arrays"
  local kind = mesh_kind_ids[o.kind]
  local pts = o.points
  if type(pts) ~= "table" then raise(where .. ": points must be a table, got " .. kind_of(pts)) end
  local flat = {}
  if type(pts[1]) == "table" then
    for i, p in ipairs(pts) do
      local v = schema.check_value({ name = "points[" .. i .. "]", type = "vec3", unit = "m" }, p, where)
      local n = #flat
      flat[n + 1], flat[n + 2], flat[n + 3] = v[1], v[2], v[3]
    end
  else
    local v = schema.check_value({ name = "points", type = "numbers", unit = "m" }, pts, where)
    if #v % 3 ~= 0 then raise(where .. ": a flat points list needs 3 numbers per point, got " .. #v) end
    flat = v
  end
  local np = #flat / 3
  if np > INT32_MAX then raise(where .. ": too many points") end
  local k = cell_sizes[kind]
  local cflat = {}
  if k > 0 then
    local cells = o.cells
    if type(cells) ~= "table" then raise(where .. ": cells must be a table for kind " .. o.kind) end
    if type(cells[1]) == "table" then
      for i, c in ipairs(cells) do
        if type(c) ~= "table" or #c ~= k then
          raise(string.format("%s: cells[%d] must list %d point indices", where, i, k))
        end
        for j = 1, k do cflat[#cflat + 1] = c[j] end
      end
    else
      for i, x in ipairs(cells) do cflat[i] = x end
      if #cflat % k ~= 0 then raise(string.format("%s: a flat cells list needs %d indices per cell", where, k)) end
    end
    for i, x in ipairs(cflat) do
      if type(x) ~= "number" or x ~= math.floor(x) or x < 1 or x > np then
        raise(string.format("%s: cell index %s (cell %d) is not a point index in [1, %d]", where, show(x),
          math.floor((i - 1) / k) + 1, np))
      end
    end
  end
  local nc = k > 0 and #cflat / k or 0
  local xyz = ffi.new("double[?]", math.max(#flat, 1))
  for i = 1, #flat do xyz[i - 1] = flat[i] end
  local idx = ffi.new("int32_t[?]", math.max(#cflat, 1))
  for i = 1, #cflat do idx[i - 1] = cflat[i] - 1 end
  return new_mesh_out(C.cl_mesh_from_arrays, kind, xyz, np, idx, nc)
end

setmetatable(api, { __call = function(_, path) return api.read(path) end })

-- Counts and bounds: { kind, points, cells, fields, lo = {x,y,z}, hi = {x,y,z}, measure }.
function Mesh:info()
  local p = mesh_ptr(self, "mesh:info")
  local info = ffi.new("cl_mesh_info")
  check(C.cl_mesh_get_info(p, info))
  return { kind = mesh_kinds[tonumber(info.kind)], points = info.points, cells = info.cells,
           fields = info.fields, lo = vec3_from(info.lo), hi = vec3_from(info.hi),
           measure = info.measure }
end

-- Point coordinates (m): format "table" (default), "flat" or "cdata" (double[3n], n*3).
function Mesh:points(fmt)
  local p = mesh_ptr(self, "mesh:points")
  fmt = check_format(fmt, "mesh:points")
  local info = self:info()
  local n = info.points
  local buf = ffi.new("double[?]", math.max(3 * n, 1))
  check(C.cl_mesh_copy_points(p, buf, 3 * n))
  return reshape(buf, n, 3, fmt, false)
end

-- Cell indices: 1-based in "table"/"flat" formats, 0-based raw int32_t[] in "cdata".
function Mesh:cells(fmt)
  local p = mesh_ptr(self, "mesh:cells")
  fmt = check_format(fmt, "mesh:cells")
  local info = self:info()
  local k = cell_sizes[mesh_kind_ids[info.kind]]
  local n = k > 0 and info.cells or 0
  local buf = ffi.new("int32_t[?]", math.max(k * n, 1))
  if n > 0 then check(C.cl_mesh_copy_cells(p, buf, k * n)) end
  return reshape(buf, n, k, fmt, true)
end

-- Write to a file; the format follows the extension (.vtu .obj .off .node .mesh).
function Mesh:write(path)
  local p = mesh_ptr(self, "mesh:write")
  check_string_arg(path, "mesh:write", "path")
  check(C.cl_mesh_write(p, path))
  return self
end

function Mesh:copy()
  return new_mesh_out(C.cl_mesh_copy, mesh_ptr(self, "mesh:copy"))
end

-- Free the C mesh now; any later use of this handle is an error.
function Mesh:destroy()
  if not is_mesh(self) then raise("mesh:destroy: expected a mesh, got " .. kind_of(self)) end
  mesh_gc(self)
end

function Mesh:alive() return is_mesh(self) and self.handle ~= nil end

local function require_kind(m, what, kinds, need)
  local info = m:info()
  if not kinds[info.kind] then
    raise(string.format("%s needs %s, but this mesh holds %s", what, need, info.kind))
  end
  return info
end

specs.tetrahedralize = {
  { name = "quality", type = "number", default = 0, unit = "1", range = { 0, math.huge, "[)" },
    help = "radius-edge ratio bound (TetGen -q); 0 = no quality refinement, else >= 1 (2 is typical)",
    check = function(v) if v ~= 0 and v < 1 then return "must be 0 (off) or >= 1" end end },
  { name = "min_dihedral", type = "number", default = 0, unit = "deg", range = { 0, 70 },
    help = "minimal dihedral angle bound (TetGen -q/angle); 0 = TetGen's default" },
  { name = "max_volume", type = "number", default = 0, unit = "m^3", range = { 0, math.huge, "[)" },
    help = "largest tet volume (TetGen -a); 0 = unbounded" },
  { name = "max_steiner", type = "integer", default = -1, range = { -1, INT32_MAX },
    help = "cap on added Steiner points (TetGen -S); -1 = unbounded" },
  { name = "verbose", type = "boolean", default = false, help = "print TetGen's statistics" },
  { name = "zones", type = "any",
    help = "graded mesh: a list of {lo =, hi =, size =, growth =} (or {center =, size =, growth =}, a point): "
      .. "edges at most size (m) in the box [lo, hi], size + growth d at a distance d from it" },
  c_defaults = function()
    local d = ffi.new("cl_tetgen_def")
    C.cl_tetgen_def_default(d)
    return { quality = d.max_radius_edge, min_dihedral = d.min_dihedral, max_volume = d.max_volume,
             max_steiner = d.max_steiner, verbose = d.verbose ~= 0 }
  end,
}

specs.size_zone = {
  { name = "lo", type = "vec3", unit = "m", help = "low corner of the box where edges are at most size" },
  { name = "hi", type = "vec3", unit = "m", help = "high corner of the box" },
  { name = "center", type = "vec3", unit = "m", help = "a point instead of a box (lo = hi = center)" },
  { name = "size", type = "number", unit = "m", range = { 0, math.huge, "()" }, required = true,
    help = "the longest edge allowed in the box" },
  { name = "growth", type = "number", unit = "1", default = 0, range = { 0, math.huge, "[)" },
    help = "the bound grows by this many metres per metre of distance from the box; 0 = inside the box only" },
  help = "a refinement zone of a graded mesh (mesh:tetrahedralize{zones = {...}})",
  check = function(o)
    if o.center ~= nil and (o.lo ~= nil or o.hi ~= nil) then return "give center, or lo and hi, not both" end
    if o.center == nil and (o.lo == nil or o.hi == nil) then return "give lo and hi (a box), or center (a point)" end
  end,
}

-- Tetrahedralize a closed triangle surface with TetGen; returns a new tet mesh.
function Mesh:tetrahedralize(opts)
  local p = mesh_ptr(self, "mesh:tetrahedralize")
  local o = schema.check(prepare(specs.tetrahedralize), opts, "mesh:tetrahedralize")
  require_kind(self, "mesh:tetrahedralize", { triangles = true }, "a closed triangle surface")
  local def = ffi.new("cl_tetgen_def")
  C.cl_tetgen_def_default(def)
  def.max_radius_edge = o.quality
  def.min_dihedral = o.min_dihedral
  def.max_volume = o.max_volume
  def.max_steiner = o.max_steiner
  def.verbose = o.verbose and 1 or 0
  local zones
  if o.zones ~= nil then
    if type(o.zones) ~= "table" or #o.zones == 0 then
      raise("mesh:tetrahedralize: zones must be a list of {lo =, hi =, size =, growth =}, got " .. show(o.zones))
    end
    zones = ffi.new("cl_mesh_size_zone[?]", #o.zones)
    for i, z in ipairs(o.zones) do
      local zo = schema.check(specs.size_zone, z, string.format("mesh:tetrahedralize zones[%d]", i))
      local lo, hi = zo.lo or zo.center, zo.hi or zo.center
      vec3_into(zones[i - 1].lo, lo)
      vec3_into(zones[i - 1].hi, hi)
      zones[i - 1].size, zones[i - 1].growth = zo.size, zo.growth
    end
    def.zones, def.zone_count = zones, #o.zones
  end
  local m = new_mesh_out(C.cl_mesh_tetrahedralize, p, def)
  zones = nil -- kept alive across the call above
  return m
end

-- Boundary triangles of a tet mesh, outward, sharing its point numbering.
function Mesh:boundary()
  local p = mesh_ptr(self, "mesh:boundary")
  require_kind(self, "mesh:boundary", { tets = true }, "a tet mesh")
  return new_mesh_out(C.cl_mesh_boundary, p)
end

-- Scale uniformly so the largest extent is `size` m and move the box centre to `center`.
function Mesh:fit(size, center)
  local p = mesh_ptr(self, "mesh:fit")
  schema.check_value({ name = "size", type = "number", range = { 0, math.huge, "()" }, unit = "m",
                       help = "largest extent after fitting" }, size, "mesh:fit")
  local c = schema.check_value({ name = "center", type = "vec3", unit = "m", help = "new centre" },
    center == nil and { 0, 0, 0 } or center, "mesh:fit")
  local cc = ffi.new("double[3]")
  vec3_into(cc, c)
  check(C.cl_mesh_fit(p, size, cc))
  return self
end

specs.transform = {
  { name = "matrix", type = "any", help = "3x3 matrix: 9 numbers row-major or {{..},{..},{..}}" },
  { name = "scale", type = "any", help = "uniform factor or {sx, sy, sz} (non-zero)" },
  { name = "rotate", type = "table", help = "{axis = \"x\"|{x,y,z}, angle = radians}",
    schema = {
      { name = "axis", type = "axis", required = true, help = "rotation axis" },
      { name = "angle", type = "number", required = true, unit = "rad", help = "angle, right-handed" },
    } },
  { name = "translate", type = "vec3", unit = "m", help = "translation applied last" },
}

-- x <- R S M x + t: matrix M first, then scale S, then rotation R, then translation t.
function Mesh:transform(opts)
  local p = mesh_ptr(self, "mesh:transform")
  local where = "mesh:transform"
  local o = schema.check(specs.transform, opts, where)
  local A = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }
  if o.matrix ~= nil then A = check_matrix(o.matrix, where, "matrix") end
  if o.scale ~= nil then
    local s = o.scale
    if type(s) == "number" then s = { s, s, s } end
    local v = schema.check_value({ name = "scale", type = "vec3", help = "scale factors" }, s, where)
    if v[1] == 0 or v[2] == 0 or v[3] == 0 then raise(where .. ": scale factors must be non-zero") end
    A = matmul3({ v[1], 0, 0, 0, v[2], 0, 0, 0, v[3] }, A)
  end
  if o.rotate ~= nil then A = matmul3(rotation_matrix(o.rotate.axis, o.rotate.angle), A) end
  -- singular on unit columns: a uniform scale by 1e-200 is not singular (its det
  -- underflows to 0), it only makes the mesh far smaller than anything cleave meshes or simulates
  local An = {}
  for j = 1, 3 do
    local big = math.max(math.abs(A[j]), math.abs(A[3 + j]), math.abs(A[6 + j]))
    local n = 0
    for i = 0, 2 do n = n + (big > 0 and (A[3 * i + j] / big) ^ 2 or 0) end
    for i = 0, 2 do An[3 * i + j] = big > 0 and A[3 * i + j] / big / math.sqrt(n) or 0 end
  end
  local d = det3(An) -- on unit columns: scale-free
  if not (math.abs(d) > 1e-12) then raise(where .. ": the transform is singular (det = " .. det3(A) .. ")") end
  local ca, ct = ffi.new("double[9]"), ffi.new("double[3]")
  for i = 1, 9 do ca[i - 1] = A[i] end
  vec3_into(ct, o.translate or { 0, 0, 0 })
  check(C.cl_mesh_transform(p, ca, ct))
  return self
end

function Mesh:translate(v) return self:transform { translate = v } end
function Mesh:scale(s) return self:transform { scale = s } end
function Mesh:rotate(axis, angle) return self:transform { rotate = { axis = axis, angle = angle } } end

specs.carve_spheres = {
  { name = "centers", type = "vec3s", unit = "m", help = "sphere centres" },
  { name = "radii", type = "numbers", unit = "m", range = { 0, math.huge, "()" }, help = "sphere radii" },
  { name = "center", type = "vec3", unit = "m", help = "one sphere's centre (instead of centers)" },
  { name = "radius", type = "number", unit = "m", range = { 0, math.huge, "()" },
    help = "one radius for every sphere, or the radius of `center`" },
}

-- Remove tets (or points) inside spheres, in place (Swiss cheese).
function Mesh:carve_spheres(opts)
  local p = mesh_ptr(self, "mesh:carve_spheres")
  local where = "mesh:carve_spheres"
  local o = schema.check(specs.carve_spheres, opts, where)
  local centers = o.centers or (o.center and { o.center }) or raise(where .. ": give centers (or center)")
  local radii = o.radii
  if not radii then
    if not o.radius then raise(where .. ": give radii (one per centre) or radius") end
    radii = {}
    for i = 1, #centers do radii[i] = o.radius end
  end
  if #radii ~= #centers then
    raise(string.format("%s: %d centres but %d radii", where, #centers, #radii))
  end
  if #centers == 0 then return self end
  local cc, rr = ffi.new("double[?]", 3 * #centers), ffi.new("double[?]", #centers)
  for i, c in ipairs(centers) do
    cc[3 * i - 3], cc[3 * i - 2], cc[3 * i - 1] = c[1], c[2], c[3]
    rr[i - 1] = radii[i]
  end
  check(C.cl_mesh_carve_spheres(p, cc, rr, #centers))
  return self
end

specs.sample = {
  { name = "method", type = "enum", values = { "poisson", "grid" }, default = "poisson",
    help = "Bridson's Poisson disk, or a regular grid" },
  { name = "spacing", type = "number", unit = "m", range = { 0, math.huge, "()" }, required = true,
    help = "grid step, or the Poisson minimum distance" },
  { name = "seed", type = "integer", default = 1, range = { 0, 2 ^ 53 },
    help = "Poisson disk: same seed, same samples" },
  { name = "attempts", type = "integer", default = 30, range = { 1, 10000 },
    help = "Bridson's k: candidates per active sample" },
  c_defaults = function()
    local d = ffi.new("cl_sample_def")
    C.cl_sample_def_default(d)
    return { method = tonumber(d.method) == 0 and "grid" or "poisson", seed = tonumber(d.seed),
             attempts = d.attempts }
  end,
}

-- Particles inside a closed surface; returns a point mesh.
function Mesh:sample(opts)
  local p = mesh_ptr(self, "mesh:sample")
  local o = schema.check(prepare(specs.sample), opts, "mesh:sample")
  require_kind(self, "mesh:sample", { triangles = true }, "a closed triangle surface")
  local def = ffi.new("cl_sample_def")
  C.cl_sample_def_default(def)
  def.method = o.method == "grid" and 0 or 1
  def.spacing = o.spacing
  def.seed = o.seed
  def.attempts = o.attempts
  return new_mesh_out(C.cl_mesh_sample, p, def)
end

-- Number of connected components.
function Mesh:components()
  local p = mesh_ptr(self, "mesh:components")
  local n = ffi.new("int32_t[1]")
  check(C.cl_mesh_components(p, n))
  return n[0]
end

-- Is the point inside this closed surface?
function Mesh:contains(pt)
  local p = mesh_ptr(self, "mesh:contains")
  local v = schema.check_value({ name = "point", type = "vec3", unit = "m", help = "query point" }, pt, "mesh:contains")
  require_kind(self, "mesh:contains", { triangles = true }, "a closed triangle surface")
  local cp, inside = ffi.new("double[3]"), ffi.new("int32_t[1]")
  vec3_into(cp, v)
  check(C.cl_mesh_contains(p, cp, inside))
  return inside[0] ~= 0
end

-- true if the surface is closed and edge-manifold, else false and the reason (no error).
function Mesh:is_closed()
  local p = mesh_ptr(self, "mesh:is_closed")
  local s = tonumber(C.cl_mesh_check_closed(p))
  if s == 0 then return true end
  if s == tonumber(C.CL_ERR_MESH) then return false, core.user_message(ffi.string(C.cl_last_error())) end
  check(s)
  return true
end

-- Attach a data field written to .vtu: mesh:set_field(name, "point"|"cell", ncomp, values).
-- values: a flat list, a list of ncomp-lists, or a double[] cdata array of the exact length.
function Mesh:set_field(name, where_, ncomp, values)
  local p = mesh_ptr(self, "mesh:set_field")
  local what = "mesh:set_field"
  check_string_arg(name, what, "name")
  schema.check_value({ name = "where", type = "enum", values = { "point", "cell" } }, where_, what)
  schema.check_value({ name = "ncomp", type = "integer", range = { 1, 64 }, help = "values per point or cell" }, ncomp, what)
  local info = self:info()
  local count = (where_ == "point" and info.points or info.cells)
  local need = count * ncomp
  local buf
  if type(values) == "cdata" then
    -- only arrays carry their length; a bare pointer could make C read past its end
    if not tostring(ffi.typeof(values)):find("^ctype<double %[%??%d*%]>$") then
      raise(what .. ": a cdata values array must be a double[] array (ffi.new(\"double[?]\", n)), got " ..
        tostring(ffi.typeof(values)))
    end
    local size = ffi.sizeof(values)
    if size ~= need * 8 then
      raise(string.format("%s: values holds %d doubles but %d %ss x %d components need %d", what,
        size / 8, count, where_, ncomp, need))
    end
    buf = values
  elseif type(values) == "table" then
    local flat = {}
    if type(values[1]) == "table" then
      for i, row in ipairs(values) do
        if type(row) ~= "table" or #row ~= ncomp then
          raise(string.format("%s: values[%d] must hold %d numbers", what, i, ncomp))
        end
        for j = 1, ncomp do flat[#flat + 1] = row[j] end
      end
    else
      flat = values
    end
    if #flat ~= need then
      raise(string.format("%s: got %d values but %d %ss x %d components need %d", what, #flat, count,
        where_, ncomp, need))
    end
    buf = ffi.new("double[?]", math.max(need, 1))
    for i = 1, need do
      local x = flat[i]
      if type(x) ~= "number" then raise(string.format("%s: value %d is %s, not a number", what, i, show(x))) end
      buf[i - 1] = x
    end
  else
    raise(string.format("%s: values must be a table or a double[] array, got %s", what, kind_of(values)))
  end
  check(C.cl_mesh_set_field(p, name, where_ == "point" and 0 or 1, ncomp, buf, need))
  return self
end

return { api = api, Mesh = Mesh, is_mesh = is_mesh, ptr = mesh_ptr, new_out = new_mesh_out,
         wrap = wrap_mesh }
