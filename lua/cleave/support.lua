-- cleave.support: supports that hold some components of a region's nodes (cl.support.plane, line,
-- axis) and surface loads on its boundary triangles (cl.load.traction, pressure); world:support and
-- world:load add them (cleave.conditions).
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require("cleave.specs").all

local show = schema.show
local C = core.C
local vec3_into = convert.vec3_into

local Support = { __name = "cl.support" }
Support.__index = Support
Support.__tostring = function(s) return "cl.support." .. s.kind .. show(s.opts) end
local Load = { __name = "cl.load" }
Load.__index = Load
Load.__tostring = function(l) return "cl.load." .. l.kind .. show(l.opts) end

local timing = {
  { name = "start", type = "number", unit = "s", default = 0, range = { 0, math.huge, "[)" },
    help = "a moving plane begins to move (held before)" },
  { name = "duration", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "[]" },
    help = "a moving plane stops after this and is held; inf = never" },
  { name = "release", type = "number", unit = "s", default = math.huge, range = { 0, math.huge, "[]" },
    help = "the nodes are let go at this time; inf = never" },
}
local function with_timing(own)
  local spec = {}
  for _, e in ipairs(own) do spec[#spec + 1] = e end
  for _, e in ipairs(timing) do spec[#spec + 1] = e end
  spec.check = function(o)
    if o.release < o.start then
      return string.format("release = %s comes before start = %s", show(o.release), show(o.start))
    end
  end
  return spec
end

local support_specs = {
  plane = with_timing {
    { name = "normal", type = "axis", required = true,
      help = "the held direction: each node keeps its component along it and slides in the plane (\"x\", \"y\", \"z\" or a vector)" },
    { name = "velocity", type = "number", unit = "m/s", default = 0,
      help = "the plane moves along its normal at this speed (displacement control); 0 = fixed" },
  },
  line = with_timing {
    { name = "direction", type = "axis", required = true,
      help = "the free direction: each node keeps its components across it and slides along it" },
  },
}
local support = {} -- the cl.support namespace
for kind, spec in pairs(support_specs) do
  specs["support." .. kind] = spec
  support[kind] = function(opts)
    local o = schema.check(spec, opts, "cl.support." .. kind)
    return setmetatable({ kind = kind, opts = o }, Support)
  end
end
-- cl.support.axis "y": hold one component (a plane support with that axis as normal).
function support.axis(axis) return support.plane { normal = axis } end

local function support_def(s)
  local def = ffi.new("cl_support_def")
  local o = s.opts
  C.cl_support_def_default(def, s.kind == "plane" and C.CL_SUPPORT_PLANE or C.CL_SUPPORT_LINE)
  vec3_into(def.normal, s.kind == "plane" and o.normal or o.direction)
  if o.velocity then def.velocity = o.velocity end
  def.start, def.duration, def.release = o.start, o.duration, o.release
  return def
end

local ramp = { name = "ramp", type = "number", unit = "s", default = 0, range = { 0, math.huge, "[)" },
               help = "the load grows linearly from 0 to full over this time after it is added" }
local load_specs = {
  traction = {
    { name = "traction", type = "vec3", unit = "Pa", required = true, help = "force per unit rest area {tx, ty, tz}" },
    ramp,
  },
  pressure = {
    { name = "pressure", type = "number", unit = "Pa", required = true,
      help = "normal pressure; > 0 pushes into the body" },
    { name = "surface", type = "enum", values = { "current", "rest" }, default = "current",
      help = "whose normal and area: the deformed surface (a follower load) or the rest surface (a dead load)" },
    ramp,
  },
}
local load = {} -- the cl.load namespace
for kind, spec in pairs(load_specs) do
  specs["load." .. kind] = spec
  load[kind] = function(opts)
    local o = schema.check(spec, opts, "cl.load." .. kind)
    return setmetatable({ kind = kind, opts = o }, Load)
  end
end

local function load_def(l)
  local def = ffi.new("cl_surface_load_def")
  local o = l.opts
  C.cl_surface_load_def_default(def, l.kind == "traction" and C.CL_LOAD_TRACTION or C.CL_LOAD_PRESSURE)
  if o.traction then vec3_into(def.traction, o.traction) end
  if o.pressure then
    def.pressure = o.pressure
    def.follow = o.surface == "current" and 1 or 0
  end
  def.ramp = o.ramp
  return def
end

return {
  support = support, load = load,
  is_support = function(v) return getmetatable(v) == Support end,
  is_load = function(v) return getmetatable(v) == Load end,
  support_def = support_def, load_def = load_def,
}
