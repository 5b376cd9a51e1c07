-- cleave.shape: procedural meshes (cl.shape.box, plate, cylinder, icosphere, hollow_sphere, charpy,
-- notched_beam, heart), built in C from a cl_shape_def filled from a checked Lua table.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs_mod = require "cleave.specs"

local raise = schema.raise
local show = schema.show
local C = core.C
local vec3_into, vec3_from = convert.vec3_into, convert.vec3_from
local specs, prepare = specs_mod.all, specs_mod.prepare
local POSITIVE = convert.POSITIVE

local new_mesh_out = require("cleave.mesh").new_out

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
  notched_beam = "a beam (length x height x depth) with a notch in the middle of its upper face (y = +height/2), cut down to y = height/2 - notch_depth",
  heart = "a heart inside the size bounding box",
}

local shape = {} -- the cl.shape namespace
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
  shape[name] = function(opts)
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
setmetatable(shape, { __index = function(_, k)
  local names = {}
  for n in pairs(shape_kinds) do names[#names + 1] = n end
  table.sort(names)
  raise(schema.unknown_name("shape", k, names))
end })

return shape
