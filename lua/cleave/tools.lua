-- cleave.tools: scripted sculpting tools on one body (Mandal, Chaudhuri and Chaudhuri, GRAPP 2025,
-- sec 4: knives, deformation brushes, anchoring tools; world/tools.c). world:knife cuts with a blade
-- moving along a path (bodies whose solver applies cut_surface events: graph_fem), world:brush moves
-- the nodes under a sphere with it, world:anchor holds a region's nodes from a time on. Each returns
-- a condition handle (kind "knife", "brush", "anchor"): condition:info(), :nodes(), :remove(), and
-- cl.probe.reaction works on brushes and anchors.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require("cleave.specs").all
local handles = require "cleave.handles"
local regions = require "cleave.region"
local colliders = require "cleave.colliders"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local C, check = core.C, core.check
local vec3_from = convert.vec3_from
local POSITIVE = convert.POSITIVE
local World, Condition = handles.World, handles.Condition
local world_ptr, owned_ptr, same_world = handles.world_ptr, handles.owned_ptr, handles.same_world
local kinematic_entries, kinematic_into = colliders.kinematic_entries, colliders.kinematic_into

-- A kinematic spec: the tool's own entries, then the motion's.
local function moving(own, what, help)
  local spec = {}
  for _, e in ipairs(own) do spec[#spec + 1] = e end
  for _, e in ipairs(kinematic_entries(what)) do spec[#spec + 1] = e end
  spec.help = help
  return spec
end

-- A path and a velocity (or start, ramp, duration) are two motions: give one.
local function one_motion(o)
  if o.path == nil then return end
  local v = o.velocity
  if v[1] ~= 0 or v[2] ~= 0 or v[3] ~= 0 then return "give a velocity or a path, not both" end
  if o.start ~= 0 or o.ramp ~= 0 or o.duration ~= math.huge then
    return "start, ramp and duration time a velocity; a path carries its own times"
  end
end

specs.knife = moving({
  { name = "blade", type = "vec3s", unit = "m", required = true,
    help = "the blade's two end points {{x, y, z}, {x, y, z}}, relative to the knife's position (center or path)" },
}, "knife's position", "a knife: every step the quad its blade sweeps cuts the body (graph_fem breaks the edges crossing it)")
specs.knife.check = function(o)
  if #o.blade ~= 2 then return "blade must be two end points {{x, y, z}, {x, y, z}}, got " .. #o.blade end
  local a, b = o.blade[1], o.blade[2]
  if a[1] == b[1] and a[2] == b[2] and a[3] == b[3] then
    return "the blade's end points coincide (" .. show(a) .. "): its length must be > 0"
  end
  local why = one_motion(o)
  if why then return why end
  if o.path == nil and o.velocity[1] == 0 and o.velocity[2] == 0 and o.velocity[3] == 0 then
    return "the knife never moves, so it cuts nothing: give a non-zero velocity or a path"
  end
end

specs.brush = moving({
  { name = "radius", type = "number", unit = "m", range = POSITIVE, required = true,
    help = "it takes the nodes within this distance of its centre when it starts moving" },
  { name = "release", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "[]" },
    help = "the nodes are let go at this time after it is added; inf = held at the end pose" },
}, "brush's centre", "a grab brush: the nodes inside the sphere when it starts move with its displacement")
specs.brush.check = one_motion

specs.anchor = {
  { name = "start", type = "number", unit = "s", default = 0, range = { 0, math.huge, "[)" },
    help = "it takes the region's nodes (current positions) at this time after it is added, and holds them there" },
  { name = "release", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "[]" },
    help = "it lets them go at this time after it is added; inf = never" },
  help = "an anchor: holds the nodes of a region from its start time on",
  check = function(o)
    if o.release < o.start then return string.format("release = %s comes before start = %s", show(o.release), show(o.start)) end
  end,
}

local function options(w, body, opts, where, spec)
  local p = world_ptr(w, where)
  same_world(w, body, where)
  if type(opts) ~= "table" then raise(string.format("%s: expected a table of options, got %s %s", where, kind_of(opts), show(opts))) end
  return p, schema.check(spec, opts, where)
end

local function handle(w, id, body, kind, o, extra)
  local h = { world = w, id = id, body = body, kind = kind, tool = true, opts = o }
  for k, v in pairs(extra or {}) do h[k] = v end
  return setmetatable(h, Condition)
end

-- A knife on body: world:knife(body, {blade = {{0, 0, -0.2}, {0, 0, 0.2}}, path = {{0, 0, 0.3, 0}, {1, 0, -0.3, 0}}})
function World:knife(body, opts)
  local where = "world:knife"
  local p, o = options(self, body, opts, where, specs.knife)
  local def = ffi.new("cl_knife_def")
  C.cl_knife_def_default(def)
  for i = 1, 2 do
    for k = 1, 3 do def.blade[3 * (i - 1) + k - 1] = o.blade[i][k] end
  end
  local path = kinematic_into(def, o, where)
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_knife(p, body.id, def, id), self)
  local _ = path -- the path lives until C has copied it
  return handle(self, id[0], body, "knife", o)
end

-- A brush on body: world:brush(body, {center = {0, 0.1, 0}, radius = 0.02, velocity = {0, 0.1, 0}, duration = 0.5})
function World:brush(body, opts)
  local where = "world:brush"
  local p, o = options(self, body, opts, where, specs.brush)
  local def = ffi.new("cl_brush_def")
  C.cl_brush_def_default(def)
  def.radius = o.radius
  def.release = o.release
  local path = kinematic_into(def, o, where)
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_brush(p, body.id, def, id), self)
  local _ = path
  return handle(self, id[0], body, "brush", o)
end

-- An anchor on body: world:anchor(body, cl.region.sphere{center = {0, -0.1, 0}, radius = 0.03}, {start = 0})
function World:anchor(body, region, opts)
  local where = "world:anchor"
  regions.arg(region, where)
  local p, o = options(self, body, opts or {}, where, specs.anchor)
  local rdef, keep = regions.def(region)
  local def = ffi.new("cl_anchor_def")
  C.cl_anchor_def_default(def)
  def.start, def.release = o.start, o.release
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_add_anchor(p, body.id, rdef, def, id), self)
  return handle(self, id[0], body, "anchor", o, { region = region, _anchor = keep or false })
end

-- What a tool has done: {kind, started, finished, nodes, touched, triangles, position, blade}
-- (position: a knife's or brush's, m; blade: a knife's two end points now).
function Condition:info()
  local where = "condition:info"
  local p = owned_ptr(self, Condition, where)
  if not self.tool then
    raise(where .. ": only tools (world:knife, world:brush, world:anchor) report info; this condition is a " .. self.kind)
  end
  local info = ffi.new("cl_tool_info")
  check(C.cl_tool_get_info(p, self.id, info), self.world)
  local out = { kind = self.kind, started = info.started ~= 0, finished = info.finished ~= 0, nodes = info.nodes,
                touched = info.touched ~= 0, triangles = tonumber(info.triangles) }
  if self.kind ~= "anchor" then out.position = vec3_from(info.position) end
  if self.kind == "knife" then
    out.blade = { { info.blade[0], info.blade[1], info.blade[2] }, { info.blade[3], info.blade[4], info.blade[5] } }
  end
  return out
end

return {}
