-- cleave.schema: filled copies, type and range errors naming the key, unknown keys with the
-- closest valid name, NaN/inf rejection, nested tables, help text, errors at the caller's line.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local schema = require "cleave.schema"

local spec = {
  { name = "dt", type = "number", default = 0.01, unit = "s", range = { 0, 1, "(]" }, help = "time step" },
  { name = "steps", type = "integer", default = 10, range = { 1, 1000 }, help = "how many steps" },
  { name = "gravity", type = "vec3", default = { 0, -9.81, 0 }, unit = "m/s^2", help = "gravity" },
  { name = "method", type = "enum", values = { "poisson", "grid" }, default = "grid", help = "sampling" },
  { name = "label", type = "string", help = "a name" },
  { name = "verbose", type = "boolean", default = false, help = "talk" },
  { name = "duration", type = "number", default = math.huge, range = { 0, math.huge, "[]" }, help = "inf = never" },
  { name = "axis", type = "axis", help = "an axis" },
  { name = "nested", type = "table", help = "nested",
    schema = { { name = "yield", type = "number", required = true, range = { 0, math.huge, "[)" }, help = "yield" },
               { name = "flow", type = "number", default = 0.5, help = "flow" } } },
}

T.test("defaults fill a copy and leave the input alone", function()
  local input = { dt = 0.5 }
  local o = schema.check(spec, input, "t")
  T.eq(o.dt, 0.5)
  T.eq(o.steps, 10)
  T.eq(o.method, "grid")
  T.eq(o.gravity[2], -9.81)
  T.eq(o.verbose, false)
  T.eq(o.duration, math.huge)
  T.eq(o.label, nil)
  T.eq(input.steps, nil, "input untouched")
  -- the default table is copied, not shared
  o.gravity[1] = 5
  T.eq(schema.check(spec, {}, "t").gravity[1], 0)
end)

T.test("nil table means all defaults", function()
  T.eq(schema.check(spec, nil, "t").steps, 10)
end)

T.test("range errors name the key, value, range, unit and help", function()
  T.error(function() schema.check(spec, { dt = -1 }, "cl.world") end,
    { "cl.world: dt = -1", "outside the allowed range (0, 1]", "time step", " s" })
  T.error(function() schema.check(spec, { dt = 0 }, "w") end, "(0, 1]")
  T.eq(schema.check(spec, { dt = 1 }, "w").dt, 1, "closed upper bound admits 1")
  T.error(function() schema.check(spec, { steps = 0 }, "w") end, { "steps = 0", "[1, 1000]" })
end)

T.test("NaN and inf are rejected for ranged and plain numbers", function()
  T.error(function() schema.check(spec, { dt = 0 / 0 }, "w") end, { "dt = nan", "NaN" })
  T.error(function() schema.check(spec, { dt = math.huge }, "w") end, "dt = inf")
  T.error(function() schema.check({ { name = "x", type = "number" } }, { x = math.huge }, "w") end, "not finite")
  T.error(function() schema.check({ { name = "x", type = "number" } }, { x = 0 / 0 }, "w") end, "x = nan")
  T.error(function() schema.check(spec, { gravity = { 0, 0 / 0, 0 } }, "w") end, "component 2")
  -- a closed bound at inf admits inf
  T.eq(schema.check(spec, { duration = math.huge }, "w").duration, math.huge)
  T.error(function() schema.check(spec, { duration = -math.huge }, "w") end, "duration = -inf")
end)

T.test("type errors say what was given and what is allowed", function()
  T.error(function() schema.check(spec, { dt = "fast" }, "w") end, { 'dt = "fast" is not a number', "allowed: a number" })
  T.error(function() schema.check(spec, { steps = 2.5 }, "w") end, { "steps = 2.5 is not an integer" })
  T.error(function() schema.check(spec, { gravity = { 1, 2 } }, "w") end, "not a vector of three numbers")
  T.error(function() schema.check(spec, { gravity = { 1, 2, "x" } }, "w") end, "non-number component 3")
  T.error(function() schema.check(spec, { verbose = 1 }, "w") end, "not true or false")
  T.error(function() schema.check(spec, { label = {} }, "w") end, "not a string")
  T.error(function() schema.check(spec, { method = "poison" }, "w") end, { "not one of poisson, grid", "did you mean 'poisson'" })
  T.error(function() schema.check(spec, 42, "w") end, "expected a table of named parameters, got number")
end)

T.test("unknown keys list the valid keys and suggest the closest", function()
  local msg = T.error(function() schema.check(spec, { stpes = 3 }, "cl.world") end,
    { "unknown key 'stpes'", "did you mean 'steps'?", "Valid keys: dt, steps, gravity" })
  T.error(function() schema.check(spec, { zzzzzzzz = 3 }, "w") end, "; valid keys: dt")
  T.truthy(not T.error(function() schema.check(spec, { zzzzzzzz = 3 }, "w") end, "x"):find("did you mean"),
    "no far-fetched suggestion")
  T.error(function() schema.check(spec, { 1, 2 }, "w") end, "unexpected positional value [1]")
end)

T.test("strings from --set convert to vectors", function()
  local o = schema.check(spec, { gravity = "0, -1, 0.5" }, "--set")
  T.eq(o.gravity[2], -1)
  T.eq(o.gravity[3], 0.5)
  T.error(function() schema.check(spec, { gravity = "1,2" }, "--set") end, "three numbers")
end)

T.test("lists of integers: \"1,2\" from --set, one integer as a list of one; fractions, out of range and words refused", function()
  local ints = { { name = "threads", type = "integers", default = { 1, 2 }, range = { 1, 256 }, help = "threads" } }
  T.eq(table.concat(schema.check(ints, {}, "--set").threads, ","), "1,2")
  T.eq(table.concat(schema.check(ints, { threads = "1, 2,4" }, "--set").threads, ","), "1,2,4")
  T.eq(table.concat(schema.check(ints, { threads = 2 }, "--set").threads, ","), "2")
  T.error(function() schema.check(ints, { threads = "1,1.5" }, "--set") end, "has [2] = 1.5, not an integer")
  T.error(function() schema.check(ints, { threads = "0,2" }, "--set") end, "has [1] = 0 outside [1, 256]")
  T.error(function() schema.check(ints, { threads = "two" }, "--set") end, "is not a list of integers")
  T.error(function() schema.check(ints, { threads = 0 / 0 }, "--set") end, "threads")
end)

T.test("axes accept names and non-zero vectors", function()
  T.eq(schema.check(spec, { axis = "y" }, "w").axis[2], 1)
  T.eq(schema.check(spec, { axis = "-z" }, "w").axis[3], -1)
  T.eq(schema.check(spec, { axis = { 1, 1, 0 } }, "w").axis[1], 1)
  T.error(function() schema.check(spec, { axis = { 0, 0, 0 } }, "w") end, "zero vector")
  T.error(function() schema.check(spec, { axis = "w" }, "w") end, "axis")
end)

T.test("nested tables are checked with their path", function()
  local o = schema.check(spec, { nested = { yield = 0.1 } }, "body")
  T.eq(o.nested.flow, 0.5)
  T.error(function() schema.check(spec, { nested = { yeild = 0.1 } }, "body") end,
    { "unknown key 'nested.yeild'", "did you mean 'nested.yield'" })
  T.error(function() schema.check(spec, { nested = { flow = 1 } }, "body") end, "missing required key 'nested.yield'")
  T.error(function() schema.check(spec, { nested = { yield = -1 } }, "body") end, "nested.yield = -1")
end)

T.test("entry and spec checks add cross-field rules", function()
  local s = {
    { name = "radius", type = "number", default = 1, help = "r" },
    { name = "inner", type = "number", default = 0.5, help = "inner radius",
      check = function(v, o) if v >= o.radius then return "must be smaller than radius" end end },
    check = function(o) if o.radius > 10 then return "radius too large for this test" end end,
  }
  T.error(function() schema.check(s, { inner = 2 }, "sphere") end, "inner = 2 must be smaller than radius")
  T.error(function() schema.check(s, { radius = 11 }, "sphere") end, "sphere: radius too large")
end)

T.test("errors point at the caller's line through nested helpers", function()
  local function helper(tbl) return schema.check(spec, tbl, "helper") end
  -- the test file is user code: the message starts with this file (T.error checks it)
  T.error(function() helper({ dt = 5 }) end, "helper: dt = 5")
end)

T.test("edit distance and closest name", function()
  T.eq(schema.distance("kitten", "sitting"), 3)
  T.eq(schema.distance("", "abc"), 3)
  T.eq(schema.closest("yung", { "density", "young", "poisson" }), "young")
  T.eq(schema.closest("qqqqqq", { "density", "young" }), nil)
end)

T.test("describe prints one line per entry with default, unit, range and help", function()
  local text = schema.describe(spec)
  T.contains(text, "dt")
  T.contains(text, "(0, 1]")
  T.contains(text, "time step")
  T.contains(text, "poisson|grid")
  local lines = 0
  for _ in text:gmatch("[^\n]+") do lines = lines + 1 end
  T.eq(lines, #spec)
end)

T.done()
