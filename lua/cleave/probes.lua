-- cleave.probes: measurements sampled during a run. cl.probe.* builds a probe spec (what to
-- measure: reaction, distance, volume, kinetic, elastic, pieces, phase_time); world:probe(spec)
-- registers it in C and returns a live probe whose :read() gives the current value.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local handles = require "cleave.handles"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local C, check = core.C, core.check
local vec3_into = convert.vec3_into
local World, Probe, ProbeSpec = handles.World, handles.Probe, handles.ProbeSpec
local is_condition, is_probe_spec = handles.is_condition, handles.is_probe_spec
local body_arg, world_ptr, owned_ptr, same_world = handles.body_arg, handles.world_ptr, handles.owned_ptr, handles.same_world

local probe = {} -- the cl.probe namespace
-- The phases of a step, in the order of cl_world_stats.phase_ms and of the phase_time probe.
local phases = { "forces", "solve", "measure", "criteria", "topology", "probes" }

-- Force (N, 3 values) a fix/drive condition exerts on its body.
function probe.reaction(cond)
  if not is_condition(cond) then
    raise("cl.probe.reaction: expected a condition (from world:fix or world:drive), got " .. kind_of(cond) .. " " .. show(cond))
  end
  return setmetatable({ kind = "reaction", code = 0, condition = cond, body = cond.body }, ProbeSpec)
end
-- Distance (m) between two material points given by their rest positions a, b.
function probe.distance(body, a, b)
  body_arg(body, "cl.probe.distance")
  local va = schema.check_value({ name = "a", type = "vec3", unit = "m", help = "first material point (rest position)" }, a, "cl.probe.distance")
  local vb = schema.check_value({ name = "b", type = "vec3", unit = "m", help = "second material point (rest position)" }, b, "cl.probe.distance")
  return setmetatable({ kind = "distance", code = 1, body = body, a = va, b = vb }, ProbeSpec)
end
local simple_probes = { volume = 2, kinetic = 3, elastic = 4, pieces = 5 }
local simple_help = { volume = "body volume (m^3)", kinetic = "kinetic energy (J)",
                      elastic = "elastic energy (J)", pieces = "connected components" }
for name, code in pairs(simple_probes) do
  probe[name] = function(body)
    body_arg(body, "cl.probe." .. name)
    return setmetatable({ kind = name, code = code, body = body, help = simple_help[name] }, ProbeSpec)
  end
end
-- Force (N, 3) the collider exerted on the body over the last step and its point of application
-- (m, 3): {fx, fy, fz, px, py, pz}; the point is the collider's centre when they did not touch.
function probe.contact(body, collider)
  body_arg(body, "cl.probe.contact")
  if not handles.is_collider(collider) then
    raise("cl.probe.contact: expected a collider (from world:collider) as the second argument, got " ..
      kind_of(collider) .. " " .. show(collider))
  end
  return setmetatable({ kind = "contact", code = 7, body = body, collider = collider }, ProbeSpec)
end
-- Wall time of the last step per phase (ms): forces, solve, measure, criteria, topology, probes.
function probe.phase_time()
  return setmetatable({ kind = "phase_time", code = 6 }, ProbeSpec)
end

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
  if spec.collider then
    if spec.collider.world ~= self then raise(where .. ": the collider belongs to another world") end
    def.collider = spec.collider.id
  end
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
    for i, name in ipairs(phases) do out[name] = out[i] end
  end
  return out
end

return { api = probe, phases = phases }
