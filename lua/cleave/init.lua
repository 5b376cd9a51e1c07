-- cleave: the Lua layer over libcleave (the C core), through LuaJIT's FFI.
--
--   local cl = require "cleave"
--   local world = cl.world { dt = 1/600, gravity = {0, -9.81, 0} }
--   local bar = world:body { shape = cl.shape.box { size = {0.4, 0.1, 0.1} },
--                            solver = "corotational", material = { young = 1e6 } }
--
-- Rules this file keeps (docs/LUA_API.md documents every function):
--  * every argument is checked in Lua against a schema (cleave/schema.lua) BEFORE any FFI call, so
--    no misuse from Lua (a string for a number, a table for a mesh, a negative size, a destroyed
--    handle) reaches C: misuse is a Lua error, never a crash;
--  * every C status < 0 becomes error(<cl_last_error()>) raised at the user's script line; statuses
--    > 0 are warnings, collected (world:warnings(), cl.warnings()) and printed once per kind;
--  * C objects are wrapped: meshes in a metatype'd struct whose __gc frees them, worlds with ffi.gc;
--    both have an explicit :destroy(), after which any use is a Lua error;
--  * the FFI declarations come from cleave/cdef.lua, generated from the public header at build time.
local ffi = require "ffi"
local schema = require "cleave.schema"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of

local cl = {}
cl.schema = schema
cl.ffi = ffi
cl.error = raise

-- ---- declarations and the library -----------------------------------------------------------------
if not pcall(ffi.typeof, "cl_world_def") then ffi.cdef(require "cleave.cdef") end
if not pcall(ffi.typeof, "cl_lua_mesh") then
  -- The Lua-side mesh handle: a struct so it can carry a metatype and a __gc, and so destroy() can
  -- clear the pointer every copy of the handle sees.
  ffi.cdef [[ typedef struct cl_lua_mesh { cl_mesh *handle; } cl_lua_mesh; ]]
end

local config_ok, config = pcall(require, "cleave.config")
if not config_ok or type(config) ~= "table" then config = {} end
cl.config = config

local function load_library()
  local env = os.getenv("CLEAVE_LIB")
  local candidates = {}
  if env and env ~= "" then
    candidates[1] = env
  else
    if config.library then candidates[#candidates + 1] = config.library end
    for _, c in ipairs(config.library_fallbacks or {}) do candidates[#candidates + 1] = c end
    if #candidates == 0 then candidates[1] = "cleave" end
  end
  local problems = {}
  for _, path in ipairs(candidates) do
    local ok, lib = pcall(ffi.load, path)
    if ok then return lib, path end
    problems[#problems + 1] = "  " .. path .. ": " .. tostring(lib)
  end
  raise("cleave: cannot load the C library libcleave" ..
    (env and env ~= "" and " from CLEAVE_LIB" or "") .. ":\n" .. table.concat(problems, "\n") ..
    "\nBuild it (make build) or set CLEAVE_LIB to the path of libcleave.so")
end

local lib, lib_path = load_library()
cl.lib = lib
cl.library_path = lib_path

-- Functions are looked up on first use. A function the library lacks (a part of the C core not
-- built yet, or a library older than the header) is a clear Lua error, not a crash.
local C = setmetatable({}, { __index = function(t, name)
  local ok, v = pcall(function() return lib[name] end)
  if not ok then
    raise(string.format("cleave: the C library %s has no %s (%s); this part of libcleave is not " ..
      "implemented in this build", lib_path, name, tostring(v):gsub("^.-:%d+: ", "")))
  end
  rawset(t, name, v)
  return v
end })
cl.C = C

cl.version = ffi.string(C.cl_version())
cl.git_revision = ffi.string(C.cl_git_revision())
if config.version and config.version ~= cl.version then
  raise(string.format("cleave: the Lua module is version %s but the library %s is version %s; " ..
    "rebuild, or point CLEAVE_LIB at the matching libcleave", config.version, lib_path, cl.version))
end

-- ---- statuses, errors, warnings --------------------------------------------------------------------
local global_warnings = {}
local warned_kinds = {}

local function status_name(s)
  local ok, name = pcall(function() return ffi.string(C.cl_status_name(s)) end)
  return ok and name or ("status " .. tostring(s))
end
cl.status_name = status_name

local function record_warning(s, msg, world)
  local w = { status = status_name(s), code = s, message = msg, where = schema.user_where() }
  global_warnings[#global_warnings + 1] = w
  local seen = warned_kinds
  if world then
    world._warnings[#world._warnings + 1] = w
    seen = world._warned
  end
  if not seen[s] then
    seen[s] = true
    io.stderr:write(string.format("cleave: warning at %s: %s%s (further %s warnings are collected " ..
      "silently: see %s)\n", w.where, w.status, msg ~= "" and (": " .. msg) or "", w.status,
      world and "world:warnings()" or "cl.warnings()"))
  end
end

-- Turn a C status into an error at the user's line (< 0) or a recorded warning (> 0).
local function check(status, world)
  local s = tonumber(status)
  if s == 0 then return 0 end
  local msg = ffi.string(C.cl_last_error())
  if s < 0 then
    if msg == "" then msg = status_name(s) .. " (the C library left no message)" end
    raise(msg)
  end
  record_warning(s, msg, world)
  return s
end
cl.check = check

-- Every warning seen so far (meshes and worlds), oldest first.
function cl.warnings()
  local out = {}
  for i, w in ipairs(global_warnings) do out[i] = w end
  return out
end

-- ---- small conversions -------------------------------------------------------------------------------
local function vec3_into(dst, v)
  dst[0], dst[1], dst[2] = v[1], v[2], v[3]
end

local function vec3_from(src)
  return { tonumber(src[0]), tonumber(src[1]), tonumber(src[2]) }
end

local function check_string_arg(v, what, name)
  if type(v) ~= "string" or v == "" then
    raise(string.format("%s: %s must be a non-empty string, got %s %s", what, name, kind_of(v), show(v)))
  end
  if v:find("\0", 1, true) then raise(string.format("%s: %s contains a NUL byte", what, name)) end
  return v
end

-- Array output formats shared by meshes and bodies: "table" (list of {x, y, z}), "flat" (one list
-- of numbers) or "cdata" (the C array itself, zero-based, and its length).
local formats = { table = true, flat = true, cdata = true }
local function check_format(fmt, what)
  if fmt == nil then return "table" end
  if not formats[fmt] then
    raise(string.format("%s: format must be \"table\", \"flat\" or \"cdata\", got %s", what, show(fmt)))
  end
  return fmt
end

-- Reshape `n` groups of `k` values from a C array. Indices get +1 when `one_based`.
local function reshape(buf, n, k, fmt, one_based)
  if fmt == "cdata" then return buf, n * k end
  local off = one_based and 1 or 0
  local out = {}
  if fmt == "flat" then
    for i = 0, n * k - 1 do out[i + 1] = tonumber(buf[i]) + off end
  else
    for i = 0, n - 1 do
      local row = {}
      for j = 0, k - 1 do row[j + 1] = tonumber(buf[i * k + j]) + off end
      out[i + 1] = row
    end
  end
  return out
end

-- Look up a spec's defaults from the C *_def_default function once, so help and filled tables
-- show the values C would use; if the C side is not there yet, the Lua fallbacks stay.
local function prepare(spec)
  if spec.c_defaults and not rawget(spec, "__c_done") then
    rawset(spec, "__c_done", true)
    local ok, d = pcall(spec.c_defaults)
    if ok and type(d) == "table" then
      for _, e in ipairs(spec) do
        if d[e.name] ~= nil then e.default = d[e.name] end
      end
    end
  end
  return spec
end

local specs = {} -- every named Lua-side spec, for cl.help and docs
cl.specs = specs

local INT32_MAX = 2147483647

-- ---- meshes ------------------------------------------------------------------------------------------
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
cl.is_mesh = is_mesh

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

cl.mesh = {}

-- Read a mesh file (.off .obj .stl .node/.ele .mesh); errors name the file and line.
function cl.mesh.read(path)
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
function cl.mesh.from_arrays(opts)
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

setmetatable(cl.mesh, { __call = function(_, path) return cl.mesh.read(path) end })

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
  c_defaults = function()
    local d = ffi.new("cl_tetgen_def")
    C.cl_tetgen_def_default(d)
    return { quality = d.max_radius_edge, min_dihedral = d.min_dihedral, max_volume = d.max_volume,
             max_steiner = d.max_steiner, verbose = d.verbose ~= 0 }
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
  return new_mesh_out(C.cl_mesh_tetrahedralize, p, def)
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

local function matmul3(a, b)
  local c = {}
  for i = 0, 2 do
    for j = 0, 2 do
      local s = 0
      for k = 0, 2 do s = s + a[i * 3 + k + 1] * b[k * 3 + j + 1] end
      c[i * 3 + j + 1] = s
    end
  end
  return c
end

-- Rodrigues' rotation formula: R = I + sin(a) K + (1 - cos(a)) K^2, K the cross-product matrix.
local function rotation_matrix(axis, angle)
  local n = math.sqrt(axis[1] ^ 2 + axis[2] ^ 2 + axis[3] ^ 2)
  local x, y, z = axis[1] / n, axis[2] / n, axis[3] / n
  local c, s = math.cos(angle), math.sin(angle)
  local t = 1 - c
  return { t * x * x + c, t * x * y - s * z, t * x * z + s * y,
           t * x * y + s * z, t * y * y + c, t * y * z - s * x,
           t * x * z - s * y, t * y * z + s * x, t * z * z + c }
end
cl.rotation_matrix = rotation_matrix

local function det3(a)
  return a[1] * (a[5] * a[9] - a[6] * a[8]) - a[2] * (a[4] * a[9] - a[6] * a[7]) +
         a[3] * (a[4] * a[8] - a[5] * a[7])
end

local function check_matrix(m, where, name)
  local flat = {}
  if type(m) ~= "table" then raise(string.format("%s: %s must be a 3x3 matrix, got %s", where, name, kind_of(m))) end
  if type(m[1]) == "table" then
    for i = 1, 3 do
      if type(m[i]) ~= "table" or #m[i] ~= 3 then raise(string.format("%s: %s row %d must have 3 numbers", where, name, i)) end
      for j = 1, 3 do flat[#flat + 1] = m[i][j] end
    end
    if #m ~= 3 then raise(string.format("%s: %s must have 3 rows", where, name)) end
  else
    for i = 1, #m do flat[i] = m[i] end
    if #flat ~= 9 then raise(string.format("%s: %s must hold 9 numbers (row-major), got %d", where, name, #flat)) end
  end
  for i = 1, 9 do
    local x = flat[i]
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      raise(string.format("%s: %s entry %d = %s is not a finite number", where, name, i, show(x)))
    end
  end
  return flat
end

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
  local d = det3(A)
  if not (math.abs(d) > 1e-300) or d ~= d then raise(where .. ": the transform is singular (det = " .. d .. ")") end
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
  if s == tonumber(C.CL_ERR_MESH) then return false, ffi.string(C.cl_last_error()) end
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

-- ---- procedural shapes --------------------------------------------------------------------------------
local POSITIVE = { 0, math.huge, "()" }
local shape_kinds = { box = 0, plate = 1, cylinder = 2, icosphere = 3, hollow_sphere = 4, charpy = 5,
                      notched_beam = 6, heart = 7 }
local shape_fields = {
  size = { type = "vec3", unit = "m", range = POSITIVE, help = "extents x, y, z" },
  radius = { type = "number", unit = "m", range = POSITIVE, help = "radius" },
  inner_radius = { type = "number", unit = "m", range = POSITIVE, help = "cavity radius, < radius" },
  height = { type = "number", unit = "m", range = POSITIVE, help = "height along z" },
  notch_depth = { type = "number", unit = "m", range = POSITIVE, help = "notch depth, < height (size[2])" },
  notch_width = { type = "number", unit = "m", range = { 0, math.huge, "[)" },
                  help = "slot width; 0 = a V-notch of notch_angle" },
  notch_angle = { type = "number", unit = "deg", range = { 0, 180, "()" }, help = "V-notch opening angle" },
  notch_root_radius = { type = "number", unit = "m", range = { 0, math.huge, "[)" }, help = "V-notch root radius" },
  scale = { type = "number", unit = "1", range = POSITIVE, help = "1 = the standard 55 x 10 x 10 mm specimen" },
  segments = { type = "integer", range = { 3, 4096 }, help = "resolution of round parts" },
  subdivisions = { type = "integer", range = { 0, 7 }, help = "icosphere subdivision levels" },
}
local shape_keys = {
  box = { "size" }, plate = { "size" }, cylinder = { "radius", "height", "segments" },
  icosphere = { "radius", "subdivisions" }, hollow_sphere = { "radius", "inner_radius", "subdivisions" },
  charpy = { "scale", "segments" },
  notched_beam = { "size", "notch_depth", "notch_width", "notch_angle", "notch_root_radius", "segments" },
  heart = { "size", "segments" },
}
local shape_help = {
  box = "a box centred at the origin", plate = "a thin box: size = {x, y, thickness}",
  cylinder = "a cylinder along z", icosphere = "a subdivided icosahedron sphere",
  hollow_sphere = "a sphere with a concentric cavity (two nested shells)",
  charpy = "the ISO 148-1 Charpy V-notch specimen (55 x 10 x 10 mm at scale 1)",
  notched_beam = "a beam (length x height x depth) with a notch in the middle of its lower face",
  heart = "a heart inside the size bounding box",
}

cl.shape = {}
for name, kind in pairs(shape_kinds) do
  local spec = {}
  for _, key in ipairs(shape_keys[name]) do
    local e = { name = key }
    for k, v in pairs(shape_fields[key]) do e[k] = v end
    spec[#spec + 1] = e
  end
  spec[#spec + 1] = { name = "center", type = "vec3", unit = "m", default = { 0, 0, 0 },
                      help = "move the shape's origin here after building" }
  spec.help = shape_help[name]
  spec.c_defaults = function()
    local d = ffi.new("cl_shape_def")
    C.cl_shape_def_default(d, kind)
    local out = {}
    for _, key in ipairs(shape_keys[name]) do
      if key == "size" then out.size = vec3_from(d.size) else out[key] = tonumber(d[key]) end
    end
    return out
  end
  if name == "hollow_sphere" then
    spec.check = function(o)
      if o.inner_radius and o.radius and o.inner_radius >= o.radius then
        return string.format("inner_radius = %s must be smaller than radius = %s", show(o.inner_radius), show(o.radius))
      end
    end
  elseif name == "notched_beam" then
    spec.check = function(o)
      if o.notch_depth and o.size and o.notch_depth >= o.size[2] then
        return string.format("notch_depth = %s must be smaller than the height size[2] = %s", show(o.notch_depth), show(o.size[2]))
      end
    end
  end
  specs["shape." .. name] = spec
  cl.shape[name] = function(opts)
    local where = "cl.shape." .. name
    local o = schema.check(prepare(spec), opts, where)
    local def = ffi.new("cl_shape_def")
    C.cl_shape_def_default(def, kind)
    for _, key in ipairs(shape_keys[name]) do
      if o[key] ~= nil then
        if key == "size" then vec3_into(def.size, o.size) else def[key] = o[key] end
      end
    end
    local m = new_mesh_out(C.cl_shape_build, def)
    if o.center[1] ~= 0 or o.center[2] ~= 0 or o.center[3] ~= 0 then m:transform { translate = o.center } end
    return m
  end
end
setmetatable(cl.shape, { __index = function(_, k)
  local names = {}
  for n in pairs(shape_kinds) do names[#names + 1] = n end
  table.sort(names)
  raise(schema.unknown_name("shape", k, names))
end })

-- ---- registry: solvers, criteria and their parameter tables from C -------------------------------------
local REG = { solver = 0, criterion = 1 }

local function registry_names(which)
  local r = REG[which]
  local n = tonumber(C.cl_registry_count(r))
  local out = {}
  for i = 0, n - 1 do
    local s = C.cl_registry_name(r, i)
    if s ~= nil then out[#out + 1] = ffi.string(s) end
  end
  return out
end

-- Names of the registered solvers / fracture criteria.
function cl.solvers() return registry_names("solver") end
function cl.criteria() return registry_names("criterion") end

local param_cache = { solver = {}, criterion = {} }

local function param_spec(which, name)
  local cached = param_cache[which][name]
  if cached then return cached end
  local tbl, cnt = ffi.new("const cl_param_info*[1]"), ffi.new("int32_t[1]")
  check(C.cl_param_table(REG[which], name, tbl, cnt))
  local spec = { solver = name, which = which }
  for i = 0, cnt[0] - 1 do
    local p = tbl[0][i]
    local function str(s) return s ~= nil and ffi.string(s) or "" end
    spec[#spec + 1] = {
      name = str(p.name), unit = str(p.unit), help = str(p.help), default = tonumber(p.value),
      range = { tonumber(p.min), tonumber(p.max) }, type = p.integer ~= 0 and "integer" or "number",
    }
  end
  param_cache[which][name] = spec
  return spec
end

local function check_registered(which, name, where)
  if type(name) ~= "string" then
    raise(string.format("%s: %s must be a name (string), got %s %s", where, which, kind_of(name), show(name)))
  end
  local names = registry_names(which)
  for _, n in ipairs(names) do
    if n == name then return name end
  end
  raise(string.format("%s: %s", where, schema.unknown_name(which, name, names)))
end

-- The parameter schema of a solver or criterion, read from its C table: a list of
-- { name, default, unit, range = {min, max}, help, type = "number"|"integer" }.
-- `which` is "solver" or "criterion"; without it solvers are searched first.
function cl.params(name, which)
  if which ~= nil and not REG[which] then
    raise("cl.params: which must be \"solver\" or \"criterion\", got " .. show(which))
  end
  if which == nil then
    if type(name) == "string" then
      for _, n in ipairs(cl.criteria()) do
        if n == name then which = "criterion" end
      end
      for _, n in ipairs(cl.solvers()) do
        if n == name then which = "solver" end
      end
    end
    if which == nil then
      local all = cl.solvers()
      for _, n in ipairs(cl.criteria()) do all[#all + 1] = n end
      raise("cl.params: " .. schema.unknown_name("solver or criterion", name, all))
    end
  end
  check_registered(which, name, "cl.params")
  return param_spec(which, name)
end

-- Print parameter tables: of every solver and criterion (no argument), of one of them, or of a
-- Lua-side table such as "world", "body", "material", "shape.box", "region.slab", "tetrahedralize".
function cl.help(name, out)
  out = out or io.stdout
  local function section(title, spec)
    out:write(title, "\n", schema.describe(spec), "\n")
  end
  if name == nil then
    out:write(string.format("cleave %s (git %s)\n\nsolvers:\n", cl.version, cl.git_revision))
    local solvers = cl.solvers()
    if #solvers == 0 then out:write("  (none registered)\n") end
    for _, s in ipairs(solvers) do section("\n" .. s .. ":", param_spec("solver", s)) end
    out:write("\nfracture criteria:\n")
    local crits = cl.criteria()
    if #crits == 0 then out:write("  (none registered)\n") end
    for _, s in ipairs(crits) do section("\n" .. s .. ":", param_spec("criterion", s)) end
    local lua_specs = {}
    for k in pairs(specs) do lua_specs[#lua_specs + 1] = k end
    table.sort(lua_specs)
    out:write("\nscene tables (cl.help(name)): ", table.concat(lua_specs, ", "), "\n")
    return
  end
  if specs[name] then
    local spec = prepare(specs[name])
    section(name .. (spec.help and (": " .. spec.help) or "") .. ":", spec)
    return
  end
  local spec = cl.params(name)
  section(spec.which .. " " .. name .. ":", spec)
end

-- ---- regions ---------------------------------------------------------------------------------------------
local Region = { __name = "cl.region" }
Region.__index = Region
Region.__tostring = function(r) return "cl.region." .. r.kind .. show(r.opts) end
local function is_region(v) return getmetatable(v) == Region end
schema.define_type("region", function(v)
  if is_region(v) then return true, v end
  return false, "is not a region (cl.region.slab{...}, box, sphere, indices, all)"
end, "a region")

specs["region.slab"] = {
  { name = "axis", type = "enum", values = { "x", "y", "z" }, default = "x", help = "which coordinate" },
  { name = "below", type = "number", unit = "m", help = "select nodes with coordinate <= below" },
  { name = "above", type = "number", unit = "m", help = "select nodes with coordinate >= above" },
  help = "nodes whose rest coordinate along axis is <= below and/or >= above",
  check = function(o)
    if o.below == nil and o.above == nil then return "give below, above or both" end
    if o.below and o.above and o.above > o.below then
      return string.format("above = %s > below = %s selects nothing", show(o.above), show(o.below))
    end
  end,
}
specs["region.box"] = {
  { name = "lo", type = "vec3", unit = "m", help = "lower corner" },
  { name = "hi", type = "vec3", unit = "m", help = "upper corner" },
  { name = "center", type = "vec3", unit = "m", help = "centre (with size, instead of lo/hi)" },
  { name = "size", type = "vec3", unit = "m", range = { 0, math.huge, "[)" }, help = "extents (with center)" },
  help = "nodes inside an axis-aligned box",
  check = function(o)
    if o.center or o.size then
      if o.lo or o.hi then return "give lo and hi, or center and size, not both" end
      if not (o.center and o.size) then return "center and size go together" end
      return
    end
    if not (o.lo and o.hi) then return "give lo and hi (or center and size)" end
    for i = 1, 3 do
      if o.lo[i] > o.hi[i] then return string.format("lo[%d] = %s > hi[%d] = %s", i, show(o.lo[i]), i, show(o.hi[i])) end
    end
  end,
}
specs["region.sphere"] = {
  { name = "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, help = "centre" },
  { name = "radius", type = "number", unit = "m", range = POSITIVE, required = true, help = "radius" },
  help = "nodes within radius of center",
}
specs["region.all"] = { help = "every node" }

cl.region = {}
for _, kind in ipairs({ "slab", "box", "sphere", "all" }) do
  cl.region[kind] = function(opts)
    local o = schema.check(specs["region." .. kind], opts, "cl.region." .. kind)
    return setmetatable({ kind = kind, opts = o }, Region)
  end
end

-- Nodes by index: cl.region.indices{1, 5, 9} (1-based, like every Lua-side index).
function cl.region.indices(list)
  local where = "cl.region.indices"
  if type(list) ~= "table" or not schema.is_list(list) then
    raise(where .. ": expected a list of 1-based node indices, got " .. kind_of(list) .. " " .. show(list))
  end
  if #list == 0 then raise(where .. ": the list is empty (a region must select at least one node)") end
  local copy = {}
  for i, x in ipairs(list) do
    if type(x) ~= "number" or x ~= math.floor(x) or x < 1 or x > INT32_MAX then
      raise(string.format("%s: [%d] = %s is not a node index (an integer >= 1)", where, i, show(x)))
    end
    copy[i] = x
  end
  return setmetatable({ kind = "indices", opts = { count = #copy }, list = copy }, Region)
end

-- Fill a cl_region_def; returns the def and an anchor keeping referenced C arrays alive.
local BIG = math.huge -- an unbounded side of a slab
local function region_def(r)
  local def = ffi.new("cl_region_def")
  local kinds = { all = 0, slab = 1, box = 2, sphere = 3, indices = 4 }
  C.cl_region_def_default(def, kinds[r.kind])
  local o, anchor = r.opts, nil
  if r.kind == "slab" then
    def.axis = ({ x = 0, y = 1, z = 2 })[o.axis]
    def.lo[0] = o.above or -BIG
    def.hi[0] = o.below or BIG
  elseif r.kind == "box" then
    local lo, hi = o.lo, o.hi
    if o.center then
      lo = { o.center[1] - o.size[1] / 2, o.center[2] - o.size[2] / 2, o.center[3] - o.size[3] / 2 }
      hi = { o.center[1] + o.size[1] / 2, o.center[2] + o.size[2] / 2, o.center[3] + o.size[3] / 2 }
    end
    vec3_into(def.lo, lo)
    vec3_into(def.hi, hi)
  elseif r.kind == "sphere" then
    vec3_into(def.center, o.center)
    def.radius = o.radius
  elseif r.kind == "indices" then
    anchor = ffi.new("int32_t[?]", #r.list)
    for i, x in ipairs(r.list) do anchor[i - 1] = x - 1 end
    def.indices = anchor
    def.count = #r.list
  end
  return def, anchor
end

-- ---- motions ---------------------------------------------------------------------------------------------
local Motion = { __name = "cl.motion" }
Motion.__index = Motion
Motion.__tostring = function(m) return "cl.motion." .. m.kind .. show(m.opts) end
local function is_motion(v) return getmetatable(v) == Motion end

local timing = {
  { name = "start", type = "number", unit = "s", default = 0, range = { 0, math.huge, "[)" },
    help = "the motion begins (the region is held before)" },
  { name = "duration", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "[]" },
    help = "the motion stops after this and the region is held; inf = never" },
  { name = "release", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "[]" },
    help = "the region is let go at this time; inf = never" },
}
local motion_kinds = { fixed = 0, translate = 1, rotate = 2, twist = 3 }
local motion_own = {
  fixed = {},
  translate = { { name = "velocity", type = "vec3", unit = "m/s", required = true, help = "x(t) = x0 + velocity t" } },
  rotate = {
    { name = "axis", type = "axis", required = true, help = "rotation axis: \"x\", \"y\", \"z\" or a vector" },
    { name = "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, help = "a point on the axis" },
    { name = "rate", type = "number", unit = "rad/s", required = true, help = "angular speed, right-handed" },
  },
  twist = {
    { name = "axis", type = "axis", required = true, help = "twist axis through the region's centroid" },
    { name = "rate", type = "number", unit = "rad/s", required = true, help = "angular speed, right-handed" },
  },
}
cl.motion = {}
for kind, own in pairs(motion_own) do
  local spec = {}
  for _, e in ipairs(own) do spec[#spec + 1] = e end
  for _, e in ipairs(timing) do spec[#spec + 1] = e end
  spec.check = function(o)
    if o.release < o.start then
      return string.format("release = %s comes before start = %s", show(o.release), show(o.start))
    end
  end
  specs["motion." .. kind] = spec
  cl.motion[kind] = function(opts)
    local o = schema.check(spec, opts, "cl.motion." .. kind)
    return setmetatable({ kind = kind, opts = o }, Motion)
  end
end

local function motion_def(m)
  local def = ffi.new("cl_motion_def")
  C.cl_motion_def_default(def, motion_kinds[m.kind])
  local o = m.opts
  if o.velocity then vec3_into(def.velocity, o.velocity) end
  if o.axis then vec3_into(def.axis, o.axis) end
  if o.center then vec3_into(def.center, o.center) end
  if o.rate then def.rate = o.rate end
  if o.start then def.start = o.start end
  if o.duration then def.duration = o.duration end
  if o.release then def.release = o.release end
  return def
end

-- ---- probes (specs; world:probe turns them into live probes) ---------------------------------------------
local ProbeSpec = { __name = "cl.probe spec" }
ProbeSpec.__index = ProbeSpec
ProbeSpec.__tostring = function(p) return "cl.probe." .. p.kind end
local function is_probe_spec(v) return getmetatable(v) == ProbeSpec end

local Body, Condition -- defined below
local function is_body(v) return getmetatable(v) == Body end
local function is_condition(v) return getmetatable(v) == Condition end

local function body_arg(b, where)
  if not is_body(b) then raise(string.format("%s: expected a body (from world:body{...}), got %s %s", where, kind_of(b), show(b))) end
  return b
end

cl.probe = {}
-- Force (N, 3 values) a fix/drive condition exerts on its body.
function cl.probe.reaction(cond)
  if not is_condition(cond) then
    raise("cl.probe.reaction: expected a condition (from world:fix or world:drive), got " .. kind_of(cond) .. " " .. show(cond))
  end
  return setmetatable({ kind = "reaction", code = 0, condition = cond, body = cond.body }, ProbeSpec)
end
-- Distance (m) between two material points given by their rest positions a, b.
function cl.probe.distance(body, a, b)
  body_arg(body, "cl.probe.distance")
  local va = schema.check_value({ name = "a", type = "vec3", unit = "m", help = "first material point (rest position)" }, a, "cl.probe.distance")
  local vb = schema.check_value({ name = "b", type = "vec3", unit = "m", help = "second material point (rest position)" }, b, "cl.probe.distance")
  return setmetatable({ kind = "distance", code = 1, body = body, a = va, b = vb }, ProbeSpec)
end
local simple_probes = { volume = 2, kinetic = 3, elastic = 4, pieces = 5 }
local simple_help = { volume = "body volume (m^3)", kinetic = "kinetic energy (J)",
                      elastic = "elastic energy (J)", pieces = "connected components" }
for name, code in pairs(simple_probes) do
  cl.probe[name] = function(body)
    body_arg(body, "cl.probe." .. name)
    return setmetatable({ kind = name, code = code, body = body, help = simple_help[name] }, ProbeSpec)
  end
end
-- Wall time of the last step per phase (ms): forces, solve, measure, criteria, topology, probes.
function cl.probe.phase_time()
  return setmetatable({ kind = "phase_time", code = 6 }, ProbeSpec)
end
cl.phases = { "forces", "solve", "measure", "criteria", "topology", "probes" }

-- ---- world ------------------------------------------------------------------------------------------------
local World = { __name = "cl.world" }
World.__index = function(_, k)
  local m = rawget(World, k)
  if m ~= nil then return m end
  local names = {}
  for n, v in pairs(World) do
    if type(v) == "function" and not n:find("^__") then names[#names + 1] = n end
  end
  table.sort(names)
  raise(schema.unknown_name("world method", k, names))
end
World.__tostring = function(w)
  if rawget(w, "ptr") == nil then return "cl.world(destroyed)" end
  return string.format("cl.world(%d bodies)", #w._bodies)
end
local function is_world(v) return getmetatable(v) == World end
cl.is_world = is_world

local function world_ptr(w, what)
  if not is_world(w) then raise(string.format("%s: expected a world (from cl.world{...}), got %s %s", what, kind_of(w), show(w))) end
  local p = rawget(w, "ptr")
  if p == nil then raise(what .. ": this world was destroyed (world:destroy())") end
  return p
end

-- The world pointer behind a condition, collider or probe method call (`self` checked first).
local function owned_ptr(self, mt, what)
  if getmetatable(self) ~= mt then
    raise(string.format("%s: expected a %s, got %s %s (call it with ':')", what, mt.__name, kind_of(self), show(self)))
  end
  return world_ptr(self.world, what)
end

specs.world = {
  { name = "dt", type = "number", unit = "s", default = 1 / 600, range = { 0, 1, "(]" }, help = "time step" },
  { name = "gravity", type = "vec3", unit = "m/s^2", default = { 0, -9.81, 0 }, help = "gravitational acceleration" },
  { name = "substeps", type = "integer", default = 1, range = { 1, 100000 }, help = "solver steps per step" },
  { name = "threads", type = "integer", default = 0, range = { 0, 1024 }, help = "OpenMP threads, 0 = all cores" },
  { name = "seed", type = "integer", default = 1, range = { 0, 2 ^ 53 }, help = "seed for anything random" },
  help = "the simulation world",
  c_defaults = function()
    local d = ffi.new("cl_world_def")
    C.cl_world_def_default(d)
    return { dt = d.dt, gravity = vec3_from(d.gravity), substeps = d.substeps, threads = d.threads,
             seed = tonumber(d.seed) }
  end,
}

-- Create a world: cl.world{ dt = 1/600, gravity = {0, -9.81, 0}, substeps = 1, threads = 0, seed = 1 }
function cl.world(opts)
  local o = schema.check(prepare(specs.world), opts, "cl.world")
  local def = ffi.new("cl_world_def")
  C.cl_world_def_default(def)
  def.dt = o.dt
  vec3_into(def.gravity, o.gravity)
  def.substeps = o.substeps
  def.threads = o.threads
  def.seed = o.seed
  local out = ffi.new("cl_world*[1]")
  check(C.cl_world_create(def, out))
  if out[0] == nil then raise("cl.world: the C library returned no world and no error") end
  local ptr = ffi.gc(out[0], C.cl_world_destroy)
  return setmetatable({ ptr = ptr, def = o, _bodies = {}, _warnings = {}, _warned = {}, _probes = {} }, World)
end

function World:destroy()
  if not is_world(self) then raise("world:destroy: expected a world, got " .. kind_of(self)) end
  local p = rawget(self, "ptr")
  if p ~= nil then
    self.ptr = nil
    ffi.gc(p, nil)
    C.cl_world_destroy(p)
  end
end
function World:alive() return is_world(self) and rawget(self, "ptr") ~= nil end

function World:warnings()
  world_ptr(self, "world:warnings")
  local out = {}
  for i, w in ipairs(self._warnings) do out[i] = w end
  return out
end

function World:set_gravity(g)
  local p = world_ptr(self, "world:set_gravity")
  local v = schema.check_value({ name = "gravity", type = "vec3", unit = "m/s^2", help = "gravitational acceleration" }, g, "world:set_gravity")
  local cg = ffi.new("double[3]")
  vec3_into(cg, v)
  check(C.cl_world_set_gravity(p, cg), self)
  return self
end

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
    help = "yield threshold (strain-like; 0 yields at once)" },
  { name = "flow", type = "number", default = 0.5, range = { 0, math.huge, "[)" },
    help = "flow rate / creep (1/s or fraction per step, as the solver documents)" },
  { name = "hardening", type = "number", unit = "1", default = 0,
    help = "work hardening K (negative softens)" },
  { name = "max", type = "number", unit = "1", default = 0, range = { 0, math.huge, "[)" },
    help = "cap on plastic strain; 0 = none" },
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
  help = "a deformable body",
  check = function(o)
    if o.shape and o.mesh then return "give shape or mesh, not both" end
    if not (o.shape or o.mesh) then return "missing the body's shape (a mesh: cl.shape.*{...}, cl.mesh.read(...))" end
  end,
}

-- cl_param array from a checked table, only the keys the user gave (C keeps its own defaults).
local function param_array(given, anchor)
  local names = {}
  for k in pairs(given or {}) do names[#names + 1] = k end
  table.sort(names)
  local arr = ffi.new("cl_param[?]", math.max(#names, 1))
  for i, k in ipairs(names) do
    anchor[#anchor + 1] = k
    arr[i - 1].name = k
    arr[i - 1].value = given[k]
  end
  return arr, #names
end

-- Add a body: world:body{ shape = mesh, solver = "corotational", material = {...}, params = {...},
-- fracture = { criterion = "separation_tensor", toughness = ... }, name = "bar" }
function World:body(opts)
  local p = world_ptr(self, "world:body")
  local where = "world:body"
  local o = schema.check(specs.body, opts, where)
  local mesh = o.shape or o.mesh
  local solver = check_registered("solver", o.solver, where)
  local mat = schema.check(prepare(specs.material), o.material or {}, where .. " material")
  local plastic = nil
  if mat.plastic ~= nil and mat.plastic ~= false then
    plastic = schema.check(prepare(specs.plastic), mat.plastic, where .. " material.plastic")
  end
  local params = schema.check(param_spec("solver", solver), o.params or {}, where .. " params (" .. solver .. ")")
  local given_params = {}
  for k in pairs(o.params or {}) do given_params[k] = params[k] end
  local criterion, crit_params = nil, {}
  if o.fracture ~= nil and o.fracture ~= false then
    if type(o.fracture) ~= "table" or getmetatable(o.fracture) then
      raise(where .. ": fracture must be a table {criterion = name, ...} or false, got " .. kind_of(o.fracture))
    end
    local rest = {}
    for k, v in pairs(o.fracture) do
      if k ~= "criterion" then rest[k] = v end
    end
    if o.fracture.criterion == nil then
      raise(where .. ": fracture needs criterion = <name>; available: " .. table.concat(cl.criteria(), ", "))
    end
    criterion = check_registered("criterion", o.fracture.criterion, where .. " fracture")
    local filled = schema.check(param_spec("criterion", criterion), rest, where .. " fracture (" .. criterion .. ")")
    for k in pairs(rest) do crit_params[k] = filled[k] end
  end
  local name = o.name or string.format("body%d", #self._bodies + 1)
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
    local carr, cn = param_array(crit_params, anchor)
    def.criterion_params = carr
    def.criterion_param_count = cn
    anchor[#anchor + 1] = carr
  end
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_body(p, def, hp, id), self)
  anchor[#anchor + 1] = parr -- keep the arrays and strings alive across the call
  local body = setmetatable({ world = self, id = id[0], name = name, solver = solver,
                              criterion = criterion or false, material = mat, params = params,
                              plastic = plastic or false, fracture_params = crit_params, _anchor = anchor }, Body)
  self._bodies[#self._bodies + 1] = body
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

local function same_world(w, b, where)
  body_arg(b, where)
  if b.world ~= w then raise(where .. ": body '" .. b.name .. "' belongs to another world") end
  if rawget(b, "_removed") then raise(where .. ": body '" .. b.name .. "' was removed") end
end

local function region_arg(r, where)
  if not is_region(r) then
    raise(string.format("%s: expected a region (cl.region.slab{...}, box, sphere, indices, all), got %s %s", where, kind_of(r), show(r)))
  end
  return r
end

Condition = { __name = "cl.condition" }
Condition.__index = Condition
Condition.__tostring = function(c) return string.format("cl.condition(%s on '%s')", c.kind, c.body.name) end
schema.define_type("condition", function(v)
  if is_condition(v) then return true, v end
  return false, "is not a condition (from world:fix, world:drive or world:force)"
end, "a condition")
schema.define_type("body", function(v)
  if is_body(v) then return true, v end
  return false, "is not a body (from world:body{...})"
end, "a body")

local function constrain(w, body, region, motion, where)
  local p = world_ptr(w, where)
  same_world(w, body, where)
  region_arg(region, where)
  local rdef, anchor = region_def(region)
  local mdef = motion_def(motion)
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_constrain(p, body.id, rdef, mdef, id), w)
  return setmetatable({ world = w, id = id[0], body = body, region = region, motion = motion,
                        kind = motion.kind == "fixed" and "fix" or "drive", _anchor = anchor or false }, Condition)
end

-- Hold the region's nodes at their rest positions.
function World:fix(body, region)
  return constrain(self, body, region, setmetatable({ kind = "fixed", opts = {} }, Motion), "world:fix")
end

-- Move the region's nodes with a motion (cl.motion.translate / rotate / twist).
function World:drive(body, region, motion)
  if not is_motion(motion) then
    world_ptr(self, "world:drive")
    raise("world:drive: expected a motion (cl.motion.translate{...}, rotate, twist), got " .. kind_of(motion) .. " " .. show(motion))
  end
  return constrain(self, body, region, motion, "world:drive")
end

-- Apply a total external force (N) to the region, spread by mass.
function World:force(body, region, f)
  local where = "world:force"
  local p = world_ptr(self, where)
  same_world(self, body, where)
  region_arg(region, where)
  local v = schema.check_value({ name = "force", type = "vec3", unit = "N", help = "total force {fx, fy, fz}" }, f, where)
  local rdef, anchor = region_def(region)
  local cf = ffi.new("double[3]")
  vec3_into(cf, v)
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_apply_force(p, body.id, rdef, cf, id), self)
  return setmetatable({ world = self, id = id[0], body = body, region = region, kind = "force", force = v,
                        _anchor = anchor or false }, Condition)
end

-- Number of nodes the condition selected.
function Condition:nodes()
  local p = owned_ptr(self, Condition, "condition:nodes")
  local n = ffi.new("int32_t[1]")
  check(C.cl_condition_node_count(p, self.id, n), self.world)
  return n[0]
end

function Condition:remove()
  local p = owned_ptr(self, Condition, "condition:remove")
  check(C.cl_world_remove_condition(p, self.id), self.world)
end

-- ---- colliders ---------------------------------------------------------------------------------------------
local Collider = { __name = "cl.collider" }
Collider.__index = Collider
Collider.__tostring = function(c) return "cl.collider(" .. c.kind .. ")" end

local collider_kinds = { plane = 0, sphere = 1, box = 2 }
local collider_common = {
  { name = "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, help = "centre (a point on a plane)" },
  { name = "velocity", type = "vec3", unit = "m/s", default = { 0, 0, 0 }, help = "kinematic linear velocity" },
  { name = "angular_velocity", type = "vec3", unit = "rad/s", default = { 0, 0, 0 }, help = "kinematic angular velocity about center" },
  { name = "friction", type = "number", unit = "1", default = 0, range = { 0, math.huge, "[)" }, help = "Coulomb coefficient" },
  { name = "restitution", type = "number", unit = "1", default = 0, range = { 0, 1 }, help = "coefficient of restitution" },
}
-- Two-way rigid bodies (docs/RIGID_BODIES.md): spheres and boxes only.
local hinge_spec = {
  { name = "point", type = "vec3", unit = "m", required = true, help = "a point of the fixed hinge line" },
  { name = "axis", type = "axis", required = true, help = "hinge direction (\"x\", \"-z\", ... or a non-zero vector)" },
}
local collider_dynamic = {
  { name = "dynamic", type = "boolean", default = false, help = "a rigid body moved by gravity and pushed back by the nodes it pushes" },
  { name = "mass", type = "number", unit = "kg", range = POSITIVE, help = "mass (required when dynamic)" },
  { name = "inertia", type = "vec3", unit = "kg m^2", range = POSITIVE, help = "principal moments along the body axes (default: uniform solid)" },
  { name = "hinge", type = "table", schema = hinge_spec, help = "pendulum: {point =, axis =}, turns about this fixed line only" },
}
local collider_own = {
  plane = { { name = "normal", type = "axis", default = { 0, 1, 0 }, help = "outward normal; the solid is the half-space below" } },
  sphere = { { name = "radius", type = "number", unit = "m", range = POSITIVE, required = true, help = "radius" } },
  box = {
    { name = "half_extents", type = "vec3", unit = "m", range = POSITIVE, required = true, help = "half sizes along the box axes" },
    { name = "rotation", type = "any", help = "orientation: 3x3 rotation matrix (9 numbers row-major) or {axis =, angle =}" },
  },
}
for kind, own in pairs(collider_own) do
  local spec = { { name = "kind", type = "enum", values = { "plane", "sphere", "box" }, required = true, help = "collider shape" } }
  for _, e in ipairs(own) do spec[#spec + 1] = e end
  for _, e in ipairs(collider_common) do spec[#spec + 1] = e end
  if kind ~= "plane" then
    for _, e in ipairs(collider_dynamic) do spec[#spec + 1] = e end
    spec.check = function(o)
      if not o.dynamic and (o.mass ~= nil or o.inertia ~= nil or o.hinge ~= nil) then
        return "mass, inertia and hinge need dynamic = true"
      end
      if o.dynamic and o.mass == nil then return "a dynamic collider needs mass (kg, > 0)" end
    end
  end
  spec.help = (kind == "plane" and "a kinematic " or "a kinematic or dynamic (dynamic = true) ") .. kind .. " collider"
  specs["collider." .. kind] = spec
end

-- Add a kinematic collider: world:collider{ kind = "plane", center = {0, -0.1, 0}, normal = "y" }
function World:collider(opts)
  local where = "world:collider"
  local p = world_ptr(self, where)
  if type(opts) ~= "table" then raise(where .. ": expected a table {kind = \"plane\"|\"sphere\"|\"box\", ...}, got " .. kind_of(opts)) end
  local kind = opts.kind
  if not collider_kinds[kind] then
    raise(where .. ": " .. schema.unknown_name("collider kind", kind, { "box", "plane", "sphere" }))
  end
  if kind == "plane" and (opts.dynamic ~= nil or opts.mass ~= nil or opts.hinge ~= nil or opts.inertia ~= nil) then
    raise(where .. ": a plane cannot be dynamic (it has no finite mass); use a sphere or a box")
  end
  local o = schema.check(specs["collider." .. kind], opts, where)
  local def = ffi.new("cl_collider_def")
  C.cl_collider_def_default(def, collider_kinds[kind])
  vec3_into(def.center, o.center)
  vec3_into(def.velocity, o.velocity)
  vec3_into(def.angular_velocity, o.angular_velocity)
  def.friction = o.friction
  def.restitution = o.restitution
  if kind == "plane" then
    vec3_into(def.normal, o.normal)
  elseif kind == "sphere" then
    def.radius = o.radius
  else
    vec3_into(def.half_extents, o.half_extents)
    if o.rotation ~= nil then
      local R
      if type(o.rotation) == "table" and o.rotation.axis ~= nil then
        local r = schema.check({ { name = "axis", type = "axis", required = true }, { name = "angle", type = "number", unit = "rad", required = true } },
          o.rotation, where .. " rotation")
        R = rotation_matrix(r.axis, r.angle)
      else
        R = check_matrix(o.rotation, where, "rotation")
        -- a rotation must be orthonormal with det +1: R R^T = I
        for i = 0, 2 do
          for j = 0, 2 do
            local s = 0
            for k = 1, 3 do s = s + R[i * 3 + k] * R[j * 3 + k] end
            if math.abs(s - (i == j and 1 or 0)) > 1e-6 then raise(where .. ": rotation is not orthonormal (R R^T ~= I)") end
          end
        end
        if det3(R) < 0 then raise(where .. ": rotation has determinant -1 (a reflection)") end
      end
      for i = 1, 9 do def.rotation[i - 1] = R[i] end
    end
  end
  if o.dynamic then
    def.dynamic = 1
    def.mass = o.mass
    if o.inertia then vec3_into(def.inertia, o.inertia) end
    if o.hinge then
      def.hinged = 1
      vec3_into(def.hinge_point, o.hinge.point)
      vec3_into(def.hinge_axis, o.hinge.axis)
    end
  end
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_collider(p, def, id), self)
  return setmetatable({ world = self, id = id[0], kind = kind, opts = o }, Collider)
end

-- Current centre (m) of a (moving) collider.
function Collider:center()
  local p = owned_ptr(self, Collider, "collider:center")
  local c = ffi.new("double[3]")
  check(C.cl_collider_get_center(p, self.id, c), self.world)
  return vec3_from(c)
end

-- Current linear velocity (m/s) of the centre, angular velocity (rad/s) and orientation (9 numbers,
-- row-major) of a collider; for a dynamic one, its simulated state.
function Collider:velocity()
  local p = owned_ptr(self, Collider, "collider:velocity")
  local c = ffi.new("double[3]")
  check(C.cl_collider_get_velocity(p, self.id, c), self.world)
  return vec3_from(c)
end

function Collider:angular_velocity()
  local p = owned_ptr(self, Collider, "collider:angular_velocity")
  local c = ffi.new("double[3]")
  check(C.cl_collider_get_angular_velocity(p, self.id, c), self.world)
  return vec3_from(c)
end

function Collider:rotation()
  local p = owned_ptr(self, Collider, "collider:rotation")
  local c = ffi.new("double[9]")
  check(C.cl_collider_get_rotation(p, self.id, c), self.world)
  local R = {}
  for i = 1, 9 do R[i] = c[i - 1] end
  return R
end

function Collider:remove()
  local p = owned_ptr(self, Collider, "collider:remove")
  check(C.cl_world_remove_collider(p, self.id), self.world)
end

-- ---- live probes ---------------------------------------------------------------------------------------
local Probe = { __name = "cl.probe" }
Probe.__index = Probe
Probe.__tostring = function(pr) return "cl.probe(" .. pr.kind .. ")" end

-- Register a probe: world:probe(cl.probe.volume(body)); read it with probe:read().
function World:probe(spec)
  local where = "world:probe"
  local p = world_ptr(self, where)
  if not is_probe_spec(spec) then
    raise(where .. ": expected a probe (cl.probe.volume(body), reaction(cond), distance(body, a, b), ...), got " .. kind_of(spec) .. " " .. show(spec))
  end
  if spec.body then same_world(self, spec.body, where) end
  if spec.condition and spec.condition.world ~= self then raise(where .. ": the condition belongs to another world") end
  local def = ffi.new("cl_probe_def")
  C.cl_probe_def_default(def, spec.code)
  if spec.body then def.body = spec.body.id end
  if spec.condition then def.condition = spec.condition.id end
  if spec.a then vec3_into(def.a, spec.a) end
  if spec.b then vec3_into(def.b, spec.b) end
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_probe(p, def, id), self)
  local probe = setmetatable({ world = self, id = id[0], kind = spec.kind, spec = spec }, Probe)
  self._probes[#self._probes + 1] = probe
  return probe
end

function Probe:size()
  local p = owned_ptr(self, Probe, "probe:size")
  local n = ffi.new("int32_t[1]")
  check(C.cl_probe_size(p, self.id, n), self.world)
  return n[0]
end

-- Current value: a number for one-valued probes, else a list (phase_time: keyed by phase name too).
function Probe:read()
  local p = owned_ptr(self, Probe, "probe:read")
  local n = self:size()
  local buf = ffi.new("double[?]", math.max(n, 1))
  check(C.cl_probe_read(p, self.id, buf, n), self.world)
  if n == 1 then return buf[0] end
  local out = {}
  for i = 0, n - 1 do out[i + 1] = buf[i] end
  if self.kind == "phase_time" then
    for i, name in ipairs(cl.phases) do out[name] = out[i] end
  end
  return out
end

-- ---- stepping --------------------------------------------------------------------------------------------
-- Advance by n steps (default 1). A C error stops the script at this line; warnings are collected.
function World:step(n)
  local p = world_ptr(self, "world:step")
  if n == nil then n = 1 end
  schema.check_value({ name = "n", type = "integer", range = { 1, INT32_MAX }, help = "number of steps" }, n, "world:step")
  return check(C.cl_world_step(p, n), self)
end

-- { steps, time (s), step_ms, phase_ms = {forces=, solve=, ...}, iterations, residual, fracture_events }
function World:stats()
  local p = world_ptr(self, "world:stats")
  local s = ffi.new("cl_world_stats")
  check(C.cl_world_get_stats(p, s), self)
  local phase = {}
  for i, name in ipairs(cl.phases) do phase[name] = s.phase_ms[i - 1] end
  return { steps = tonumber(s.steps), time = s.time, step_ms = s.step_ms, phase_ms = phase,
           iterations = s.iterations, residual = s.residual, fracture_events = s.fracture_events }
end

function World:time() return self:stats().time end

-- Call a sibling module (cleave.output, ...) and re-raise its errors at the user's line.
local function sibling(fn, ...)
  local res = { pcall(fn, ...) }
  if not res[1] then raise(schema.strip_internal_position(res[2])) end
  return unpack(res, 2, table.maxn(res))
end

specs["world.run"] = {
  { name = "frames", type = "integer", required = true, range = { 0, INT32_MAX }, help = "steps to take (one step of dt per frame)" },
  { name = "every", type = "integer", default = 1, range = { 1, INT32_MAX }, help = "write the bodies every this many frames" },
  { name = "output", type = "string", help = "folder for <body>.pvd/.vtu series and probes.csv; none = no files" },
  { name = "probes", type = "table", help = "name = cl.probe.*(...) (or a live probe): sampled at every frame" },
  { name = "bodies", type = "table", help = "bodies to write (default: every body of the world)" },
  { name = "on_frame", type = "function", help = "function(frame, world) called after every frame (scripted changes)" },
  help = "world:run: step, sample probes, write outputs",
}

-- Run `frames` steps, sampling probes after every step (and once before the first) and writing
-- each body every `every` frames into `output`. Returns { frames, probes = { frame = {...},
-- time = {...}, <name> = {...} }, series = { <body name> = series }, csv = path, stats }.
function World:run(opts)
  world_ptr(self, "world:run")
  local where = "world:run"
  local o = schema.check(specs["world.run"], opts, where)
  local names, live, sizes = {}, {}, {}
  for name, spec in pairs(o.probes or {}) do
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      raise(string.format("%s: probe names must be identifiers, got %s", where, show(name)))
    end
    if name == "time" or name == "frame" then raise(where .. ": the probe name '" .. name .. "' is reserved") end
    if is_probe_spec(spec) then
      live[name] = self:probe(spec)
    elseif getmetatable(spec) == Probe then
      if spec.world ~= self then raise(where .. ": probe '" .. name .. "' belongs to another world") end
      live[name] = spec
    else
      raise(string.format("%s: probes.%s must be a probe (cl.probe.volume(body), ...), got %s %s", where, name,
        kind_of(spec), show(spec)))
    end
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do sizes[name] = live[name]:size() end

  local bodies = o.bodies or self:bodies()
  for i, b in ipairs(bodies) do
    if not is_body(b) then raise(string.format("%s: bodies[%d] is not a body", where, i)) end
    same_world(self, b, where)
  end

  local result = { frames = o.frames, probes = { frame = {}, time = {} }, series = {} }
  for _, name in ipairs(names) do result.probes[name] = {} end
  local csv
  if o.output then
    local output = cl.output
    local used = {}
    for _, b in ipairs(bodies) do
      local file = tostring(b.name):gsub("[^%w_%-%.]", "_")
      while used[file] do file = file .. "_" end
      used[file] = true
      result.series[b.name] = sibling(output.series, o.output, file)
    end
    if #names > 0 then
      local columns = { "frame", "time" }
      for _, name in ipairs(names) do
        if sizes[name] == 1 then
          columns[#columns + 1] = name
        else
          for k = 1, sizes[name] do
            columns[#columns + 1] = name .. "_" .. (live[name].kind == "phase_time" and cl.phases[k] or k)
          end
        end
      end
      result.csv = o.output .. "/probes.csv"
      csv = sibling(output.csv, result.csv, columns,
        { comments = { string.format("cleave %s (git %s)", cl.version, cl.git_revision) } })
    end
  end

  local function sample(frame, t)
    local row = { frame, t }
    local P = result.probes
    P.frame[#P.frame + 1] = frame
    P.time[#P.time + 1] = t
    for _, name in ipairs(names) do
      local v = live[name]:read()
      P[name][#P[name] + 1] = v
      if type(v) == "table" then
        for k = 1, sizes[name] do row[#row + 1] = v[k] end
      else
        row[#row + 1] = v
      end
    end
    if csv then sibling(csv.row, csv, row) end
  end
  local function write(frame, t)
    for _, b in ipairs(bodies) do sibling(result.series[b.name].write, result.series[b.name], frame, t, b) end
  end

  -- Every run records what produced it (parameters, version, git revision) beside its outputs.
  if o.output then
    sibling(cl.runinfo.write, o.output, cl.used_options,
      { version = cl.version, git_revision = cl.git_revision,
        extra = { frames = o.frames, every = o.every, probes = names } })
  end
  -- A progress line on a terminal only (quiet in pipes, logs and ctest).
  local bar = cl.progress.new { total = o.frames, label = o.output or "run" }
  local t = self:stats().time
  sample(0, t)
  if o.output then write(0, t) end
  for f = 1, o.frames do
    self:step(1)
    t = self:stats().time
    sample(f, t)
    if o.output and (f % o.every == 0 or f == o.frames) then write(f, t) end
    if o.on_frame then o.on_frame(f, self) end
    bar:update(f, t)
  end
  bar:finish()
  if csv then csv:close() end
  result.stats = self:stats()
  return result
end

-- ---- bodies -------------------------------------------------------------------------------------------------
Body = { __name = "cl.body" }
Body.__index = function(_, k)
  local m = rawget(Body, k)
  if m ~= nil then return m end
  local names = {}
  for n, v in pairs(Body) do
    if type(v) == "function" and not n:find("^__") then names[#names + 1] = n end
  end
  table.sort(names)
  raise(schema.unknown_name("body method or field", k, names))
end
Body.__tostring = function(b) return string.format("cl.body('%s', %s)", b.name, b.solver) end

local function body_ptr(b, what)
  body_arg(b, what)
  local p = world_ptr(b.world, what)
  if rawget(b, "_removed") then raise(what .. ": body '" .. b.name .. "' was removed") end
  return p
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

local unit_fields = { deformation_gradient = { 0, 9 }, stress = { 1, 9 }, plastic_strain = { 2, 9 }, center = { 3, 3 } }
-- Per-unit (tet or cluster) field: "deformation_gradient", "stress", "plastic_strain" (9 per unit,
-- row-major) or "center" (3 per unit).
function Body:unit_field(name, fmt)
  local what = "body:unit_field"
  local p = body_ptr(self, what)
  local f = unit_fields[name]
  if not f then raise(what .. ": " .. schema.unknown_name("field", name, { "center", "deformation_gradient", "plastic_strain", "stress" })) end
  fmt = check_format(fmt, what)
  local n = self:info().units
  local buf = ffi.new("double[?]", math.max(f[2] * n, 1))
  check(C.cl_body_copy_unit_field(p, self.id, f[1], buf, f[2] * n), self.world)
  return reshape(buf, n, f[2], fmt, false)
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

-- ---- command-line parameters -------------------------------------------------------------------------------
-- `cleave run script.lua --set frames=100 --set young=2e6` gives cl.args = {frames = 100, young = 2e6}.
do
  local a = rawget(_G, "arg")
  cl.args = (type(a) == "table" and type(a.set) == "table") and a.set or {}
end
-- The parameters the script ran with: the raw --set values until cl.options fills them from a
-- schema (then the filled table). cleave.runinfo records this beside a run's outputs.
cl.used_options = cl.args

-- Check cl.args against a script's own schema and return the filled parameters:
--   local p = cl.options { { name = "frames", type = "integer", default = 600, range = {1, 1e6}, help = "frames" } }
-- A --set key the schema does not know is an error naming it (and the closest valid key).
-- The spec may also be a map { frames = { type = ..., default = ... }, ... }.
function cl.options(spec, args)
  if type(spec) ~= "table" then raise("cl.options: expected a schema (a list of entries), got " .. kind_of(spec)) end
  if spec[1] == nil and next(spec) ~= nil then
    local list = {}
    for k, e in pairs(spec) do
      if type(e) ~= "table" then raise("cl.options: entry '" .. tostring(k) .. "' must be a table") end
      local copy = { name = k }
      for kk, vv in pairs(e) do copy[kk] = vv end
      list[#list + 1] = copy
    end
    table.sort(list, function(x, y) return x.name < y.name end)
    spec = list
  end
  local filled = schema.check(spec, args or cl.args, "--set")
  cl.used_options = filled
  return filled
end

-- ---- sibling modules, loaded on first use --------------------------------------------------------------------
local lazy = { output = true, plot = true, progress = true, runinfo = true }
setmetatable(cl, { __index = function(t, k)
  if lazy[k] then
    local ok, m = pcall(require, "cleave." .. k)
    if not ok then
      m = tostring(m)
      if m:find("^module '[^']+' not found") then
        m = "lua/cleave/" .. k .. ".lua is not in this module tree (" .. m:match("^[^\n]*"):gsub(":$", "") .. ")"
      end
      raise("cl." .. k .. " is not available: " .. m)
    end
    rawset(t, k, m)
    return m
  end
  local names = {}
  for n in pairs(t) do names[#names + 1] = n end
  for n in pairs(lazy) do names[#names + 1] = n end
  table.sort(names)
  local near = schema.closest(k, names)
  raise(string.format("cleave has no field cl.%s%s", tostring(k), near and ("; did you mean cl." .. near .. "?") or ""))
end })

return cl
