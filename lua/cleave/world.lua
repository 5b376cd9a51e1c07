-- cleave.world: creating a world (cl.world), stepping it and reading its statistics; the other
-- world methods live with their subject (cleave.body, cleave.conditions, cleave.colliders,
-- cleave.probes, cleave.run). The C world is tied to the Lua table with ffi.gc, and
-- world:destroy() frees it at once.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs_mod = require "cleave.specs"
local handles = require "cleave.handles"
local phases = require("cleave.probes").phases

local raise = schema.raise
local kind_of = schema.kind_of
local C, check = core.C, core.check
local vec3_into, vec3_from = convert.vec3_into, convert.vec3_from
local specs, prepare = specs_mod.all, specs_mod.prepare
local INT32_MAX = convert.INT32_MAX
local World, is_world, world_ptr = handles.World, handles.is_world, handles.world_ptr


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
local function new_world(opts)
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

-- Advance by n steps (default 1). A C error stops the script at this line; warnings are collected.
function World:step(n)
  local p = world_ptr(self, "world:step")
  if n == nil then n = 1 end
  schema.check_value({ name = "n", type = "integer", range = { 1, INT32_MAX }, help = "number of steps" }, n, "world:step")
  return check(C.cl_world_step(p, n), self)
end

local static_spec = {
  { name = "load_steps", type = "integer", default = 1, range = { 1, 100000 },
    help = "loads and prescribed displacements grow to full in this many increments (large deformation)" },
  { name = "max_iterations", type = "integer", default = 50, range = { 1, 100000 },
    help = "Newton iterations per increment" },
  { name = "tolerance", type = "number", default = 1e-6, range = { 0, 1, "()" },
    help = "unbalanced force on the free dofs, relative to the load (or to the reactions when only supports, "
      .. "constraints or contacts drive the body), at which it stops" },
}
specs["world.solve_static"] = static_spec

-- Static equilibrium under the current loads, supports and colliders (Newton iterations): every body
-- ends at rest where its forces balance; time does not advance. Returns {increments, iterations,
-- residual}; not reaching the tolerance is a warning (world:warnings()), a free rigid mode an error.
function World:solve_static(opts)
  local where = "world:solve_static"
  local p = world_ptr(self, where)
  local o = schema.check(static_spec, opts or {}, where)
  local def = ffi.new("cl_static_def")
  C.cl_static_def_default(def)
  def.load_steps, def.max_iterations, def.tolerance = o.load_steps, o.max_iterations, o.tolerance
  local rep = ffi.new("cl_static_report")
  check(C.cl_world_solve_static(p, def, rep), self)
  return { increments = rep.increments, iterations = rep.iterations, residual = rep.residual }
end

-- { steps, time (s), step_ms, phase_ms = {forces=, solve=, ...}, iterations, residual, fracture_events }
function World:stats()
  local p = world_ptr(self, "world:stats")
  local s = ffi.new("cl_world_stats")
  check(C.cl_world_get_stats(p, s), self)
  local phase = {}
  for i, name in ipairs(phases) do phase[name] = s.phase_ms[i - 1] end
  return { steps = tonumber(s.steps), time = s.time, step_ms = s.step_ms, phase_ms = phase,
           iterations = s.iterations, residual = s.residual, fracture_events = s.fracture_events }
end

function World:time() return self:stats().time end

return { new = new_world }
