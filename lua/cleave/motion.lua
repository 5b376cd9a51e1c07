-- cleave.motion: prescribed motions of driven regions (cl.motion.translate, rotate, twist, and the
-- internal "fixed") and their translation into a cl_motion_def.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require("cleave.specs").all

local show = schema.show
local C = core.C
local vec3_into = convert.vec3_into

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
local motion = {} -- the cl.motion namespace
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
  motion[kind] = function(opts)
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

-- The motion of world:fix: hold the nodes where they rest.
local function fixed() return setmetatable({ kind = "fixed", opts = {} }, Motion) end

return { api = motion, is_motion = is_motion, def = motion_def, fixed = fixed }
