-- cleave.conditions: boundary conditions on a body's nodes. world:fix holds a region at rest,
-- world:drive moves it with a cl.motion, world:force pushes it with a total force; each returns a
-- condition handle (nodes(), remove()).
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local handles = require "cleave.handles"
local regions = require "cleave.region"
local motions = require "cleave.motion"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local C, check = core.C, core.check
local vec3_into = convert.vec3_into
local World, Condition = handles.World, handles.Condition
local world_ptr, owned_ptr, same_world = handles.world_ptr, handles.owned_ptr, handles.same_world
local region_def, region_arg = regions.def, regions.arg
local motion_def, is_motion = motions.def, motions.is_motion
local supports = require "cleave.support"

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
  return constrain(self, body, region, motions.fixed(), "world:fix")
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

-- Hold the region's nodes in some directions (cl.support.plane / line / axis): rollers, sliding and
-- symmetry planes, a node held in one axis.
function World:support(body, region, support)
  local where = "world:support"
  local p = world_ptr(self, where)
  if not supports.is_support(support) then
    raise(where .. ": expected a support (cl.support.plane{normal = ...}, line{direction = ...}, axis \"y\"), got " ..
      kind_of(support) .. " " .. show(support))
  end
  same_world(self, body, where)
  region_arg(region, where)
  local rdef, anchor = region_def(region)
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_support(p, body.id, rdef, supports.support_def(support), id), self)
  return setmetatable({ world = self, id = id[0], body = body, region = region, support = support, kind = "support",
                        _anchor = anchor or false }, Condition)
end

-- Load the boundary triangles the region selects (all three corners in it) with a traction or a
-- pressure (cl.load.traction / pressure), area weighted.
function World:load(body, region, load)
  local where = "world:load"
  local p = world_ptr(self, where)
  if not supports.is_load(load) then
    raise(where .. ": expected a surface load (cl.load.traction{traction = {...}}, cl.load.pressure{pressure = ...}), got " ..
      kind_of(load) .. " " .. show(load))
  end
  same_world(self, body, where)
  region_arg(region, where)
  local rdef, anchor = region_def(region)
  local id = ffi.new("cl_id[1]")
  check(C.cl_world_apply_surface_load(p, body.id, rdef, supports.load_def(load), id), self)
  return setmetatable({ world = self, id = id[0], body = body, region = region, load = load, kind = "load",
                        _anchor = anchor or false }, Condition)
end

-- The total force (N, {fx, fy, fz}) a force or surface-load condition applies now.
function Condition:total_force()
  local p = owned_ptr(self, Condition, "condition:total_force")
  local f = ffi.new("double[3]")
  check(C.cl_condition_total_force(p, self.id, f), self.world)
  return { f[0], f[1], f[2] }
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
  self._removed = true
end

return {}
