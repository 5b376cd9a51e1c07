-- cleave: the Lua layer over libcleave (the C core), through LuaJIT's FFI.
--
--   local cl = require "cleave"
--   local world = cl.world { dt = 1/600, gravity = {0, -9.81, 0} }
--   local bar = world:body { shape = cl.shape.box { size = {0.4, 0.1, 0.1} },
--                            solver = "corotational", material = { young = 1e6 } }
--
-- This file is the facade: it gathers the modules below into the one `cl` table scripts use.
--   cleave.ffi         declarations (cleave/cdef.lua), finding libcleave, statuses -> errors/warnings
--   cleave.convert     vectors, output formats, matrices between Lua and C
--   cleave.specs       the named Lua-side parameter tables (cl.specs, cl.help)
--   cleave.mesh        cl.mesh.* and the mesh:* methods
--   cleave.shape       cl.shape.* procedural meshes
--   cleave.registry    cl.solvers, cl.criteria, cl.params, cl.help
--   cleave.region      cl.region.*          cleave.motion      cl.motion.*
--   cleave.support     cl.support.* (supports), cl.load.* (surface loads)
--   cleave.handles     the world, body, condition, collider and probe handle types and their checks
--   cleave.world       cl.world, world:step, world:stats, ...
--   cleave.body        world:body and the body:* methods
--   cleave.conditions  world:fix, world:drive, world:force, world:support, world:load
--   cleave.colliders   world:collider and the collider:* methods
--   cleave.tools       world:knife, world:brush, world:anchor (sculpting tools) and condition:info
--   cleave.probes      cl.probe.*, world:probe and the probe:* methods
--   cleave.run         world:run
--   cleave.options     cl.args, cl.options
--   cleave.scene       cl.scene: a scene as a schema of parameters and a build function
-- and, loaded on first use, cl.output, cl.plot, cl.progress, cl.runinfo, and cl.sweep (parameter
-- sweeps; with cleave.sweep_file, their results files, and cleave.process, worker processes).
--
-- Rules every module keeps (docs/LUA_API.md documents every function):
--  * every argument is checked in Lua against a schema (cleave/schema.lua) BEFORE any FFI call, so
--    no misuse from Lua (a string for a number, a table for a mesh, a negative size, a destroyed
--    handle) reaches C: misuse is a Lua error, never a crash;
--  * every C status < 0 becomes error(<cl_last_error()>) raised at the user's script line (any
--    frame in the cleave/ folder counts as internal); statuses > 0 are warnings, collected
--    (world:warnings(), cl.warnings()) and printed once per kind;
--  * C objects are wrapped: meshes in a metatype'd struct whose __gc frees them, worlds with ffi.gc;
--    both have an explicit :destroy(), after which any use is a Lua error.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require "cleave.specs"
local mesh = require "cleave.mesh"
local registry = require "cleave.registry"
local region = require "cleave.region"
local motion = require "cleave.motion"
local handles = require "cleave.handles"
local probes = require "cleave.probes"
local world = require "cleave.world"
local options = require "cleave.options"
local scene = require "cleave.scene"
-- These add methods to the handle types of cleave.handles.
require "cleave.body"
require "cleave.conditions"
require "cleave.colliders"
require "cleave.tools"
require "cleave.run"

local raise = schema.raise

local cl = {}
handles.facade = cl

cl.schema = schema
cl.ffi = ffi
cl.error = raise

-- the library
cl.config = core.config
cl.lib = core.lib
cl.library_path = core.library_path
cl.C = core.C
cl.version = core.version
cl.git_revision = core.git_revision

-- statuses, errors, warnings
cl.status_name = core.status_name
cl.check = core.check
cl.warnings = core.warnings

-- scene building
cl.specs = specs.all
cl.is_mesh = mesh.is_mesh
cl.mesh = mesh.api
cl.shape = require "cleave.shape"
cl.rotation_matrix = convert.rotation_matrix
cl.solvers = registry.solvers
cl.criteria = registry.criteria
cl.params = registry.params
cl.help = registry.help
cl.region = region.api
cl.motion = motion.api
cl.support = require("cleave.support").support
cl.load = require("cleave.support").load
cl.probe = probes.api
cl.phases = probes.phases
cl.is_world = handles.is_world
cl.world = world.new
cl.scene = scene.new
cl.is_scene = scene.is_scene

-- ---- command-line parameters -------------------------------------------------------------------------------
-- `cleave run script.lua --set frames=100 --set young=2e6` gives cl.args = {frames = 100, young = 2e6}.
cl.args = options.args()
-- The parameters the script ran with: the raw --set values until cl.options fills them from a
-- schema (then the filled table). cleave.runinfo records this beside a run's outputs.
cl.used_options = cl.args

-- Check cl.args against a script's own schema and return the filled parameters:
--   local p = cl.options { { name = "frames", type = "integer", default = 600, range = {1, 1e6}, help = "frames" } }
-- A --set key the schema does not know is an error naming it (and the closest valid key).
-- The spec may also be a map { frames = { type = ..., default = ... }, ... }.
function cl.options(spec, args)
  local filled = options.fill(spec, args or cl.args)
  cl.used_options = filled
  return filled
end

-- ---- sibling modules, loaded on first use --------------------------------------------------------------------
local lazy = { output = true, plot = true, progress = true, runinfo = true, sweep = true }
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
