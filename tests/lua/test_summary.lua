-- cleave.summary: the median and mean the benchmark and comparison scripts print.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/../../lua/?.lua;" .. package.path
local T = require "expect"
local summary = require "cleave.summary"

T.test("median of odd and even counts; the list is left as it was", function()
  local t = { 5, 1, 4 }
  T.eq(summary.median(t), 4)
  T.eq(t[1], 5, "the input list keeps its order")
  T.eq(summary.median { 3, 1, 4, 2 }, 2.5)
  T.eq(summary.median { 7 }, 7)
end)

T.test("mean", function()
  T.near(summary.mean { 1, 2, 3, 4 }, 2.5, 1e-15)
  T.eq(summary.mean { -2 }, -2)
end)

T.test("an empty list or a non-list is refused with the function's name", function()
  T.error(function() summary.median {} end, "cleave.summary.median: needs a non-empty list of numbers, got an empty list")
  T.error(function() summary.mean(nil) end, "cleave.summary.mean: needs a non-empty list of numbers, got nil")
end)

T.done()
