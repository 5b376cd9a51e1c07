-- cleave.region: node selections for conditions (cl.region.slab, box, sphere, all, indices) and
-- their translation into a cl_region_def.
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require("cleave.specs").all

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local C = core.C
local vec3_into = convert.vec3_into
local INT32_MAX, POSITIVE = convert.INT32_MAX, convert.POSITIVE

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

local region = {} -- the cl.region namespace
for _, kind in ipairs({ "slab", "box", "sphere", "all" }) do
  region[kind] = function(opts)
    local o = schema.check(specs["region." .. kind], opts, "cl.region." .. kind)
    return setmetatable({ kind = kind, opts = o }, Region)
  end
end

-- Nodes by index: cl.region.indices{1, 5, 9} (1-based, like every Lua-side index).
function region.indices(list)
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

-- The region argument of a world call, or an error naming the call.
local function region_arg(r, where)
  if not is_region(r) then
    raise(string.format("%s: expected a region (cl.region.slab{...}, box, sphere, indices, all), got %s %s", where, kind_of(r), show(r)))
  end
  return r
end

return { api = region, is_region = is_region, def = region_def, arg = region_arg }
