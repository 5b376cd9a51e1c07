-- cleave.colliders: rigid obstacles. world:collider{kind = "plane"|"sphere"|"box", ...} adds a
-- kinematic collider (prescribed velocity and spin) or, for spheres and boxes with dynamic = true,
-- a two-way rigid body (docs/RIGID_BODIES.md); the handle reads back its centre, velocities and
-- orientation.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require("cleave.specs").all
local handles = require "cleave.handles"

local raise = schema.raise
local kind_of = schema.kind_of
local C, check = core.C, core.check
local vec3_into, vec3_from = convert.vec3_into, convert.vec3_from
local rotation_matrix, det3, check_matrix = convert.rotation_matrix, convert.det3, convert.check_matrix
local POSITIVE = convert.POSITIVE
local World, Collider = handles.World, handles.Collider
local world_ptr, owned_ptr = handles.world_ptr, handles.owned_ptr

local collider_kinds = { plane = 0, sphere = 1, box = 2 }
-- The schema entries of a kinematic motion (colliders, knives, brushes: world/colliders.c) of the
-- point named `what` ("collider's centre", ...): rests until start, speeds up over ramp, moves for
-- duration; or follows a path.
local function kinematic_entries(what)
  return {
    { name = "center", type = "vec3", unit = "m", default = { 0, 0, 0 }, help = "the " .. what .. " when added (without a path)" },
    { name = "velocity", type = "vec3", unit = "m/s", default = { 0, 0, 0 }, help = "kinematic linear velocity" },
    { name = "start", type = "number", unit = "s", default = 0, range = { 0, math.huge, "[)" },
      help = "kinematic: it rests until this time after it is added" },
    { name = "ramp", type = "number", unit = "s", default = 0, range = { 0, math.huge, "[)" },
      help = "kinematic: its speed grows linearly to velocity over this time" },
    { name = "duration", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "(]" },
      help = "kinematic: it moves this long (from start), then stops and holds" },
    { name = "path", type = "any",
      help = "kinematic: {{t, x, y, z}, ...}, the piecewise-linear path of the " .. what .. " (times from when it is added, increasing)" },
  }
end

-- Fill the kinematic members (center, velocity, start, ramp, duration, path) of a cl_collider_def,
-- cl_knife_def or cl_brush_def from checked options; returns the path buffer to keep alive.
local function kinematic_into(def, o, where)
  vec3_into(def.center, o.center)
  vec3_into(def.velocity, o.velocity)
  def.start, def.ramp, def.duration = o.start, o.ramp, o.duration
  if o.path == nil then return nil end
  local buf, n = convert.path_buffer(o.path, where)
  def.path, def.path_count = buf, n
  return buf
end

local collider_common = kinematic_entries("collider's centre (a point on a plane)")
for _, e in ipairs {
  { name = "angular_velocity", type = "vec3", unit = "rad/s", default = { 0, 0, 0 }, help = "kinematic angular velocity about center" },
  { name = "friction", type = "number", unit = "1", default = 0, range = { 0, math.huge, "[)" }, help = "Coulomb coefficient" },
  { name = "restitution", type = "number", unit = "1", default = 0, range = { 0, 1 }, help = "coefficient of restitution" },
  { name = "momentum_scale", type = "number", unit = "1", default = 0, range = { 0, math.huge, "[)" },
    help = "non-physical scene device (Jones et al. 2016's projectiles): a touched node gains momentum_scale x the " ..
           "collider's velocity every step it touches, instead of restitution and friction; kinematic only; 0 = off" },
} do collider_common[#collider_common + 1] = e end
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
  local o = schema.check(specs["collider." .. kind], opts, string.format("%s{kind = %q}", where, kind))
  local def = ffi.new("cl_collider_def")
  C.cl_collider_def_default(def, collider_kinds[kind])
  if o.path ~= nil and o.dynamic then raise(where .. ": a dynamic collider cannot follow a path (the world moves it)") end
  local path_buf = kinematic_into(def, o, where)
  vec3_into(def.angular_velocity, o.angular_velocity)
  def.friction = o.friction
  def.restitution = o.restitution
  def.momentum_scale = o.momentum_scale
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
  -- numbered in the order of addition, as the C library's messages name it ("box collider #2")
  self._colliders_added = (rawget(self, "_colliders_added") or 0) + 1
  return setmetatable({ world = self, id = id[0], kind = kind, opts = o, number = self._colliders_added }, Collider)
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
  self._removed = true
end

return { kinematic_entries = kinematic_entries, kinematic_into = kinematic_into }
