-- cleave.summary: the summary statistics that benchmark and comparison scripts print (median and
-- mean of per-step or per-frame times), written once. `require "cleave.summary"`.
local summary = {}

local function check(t, what)
  if type(t) ~= "table" or #t == 0 then
    error(string.format("cleave.summary.%s: needs a non-empty list of numbers, got %s", what,
                        type(t) == "table" and "an empty list" or type(t)), 3)
  end
end

-- The median of a list of numbers (the mean of the two middle values for an even count); the list
-- is not changed.
function summary.median(t)
  check(t, "median")
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) / 2] or 0.5 * (s[n / 2] + s[n / 2 + 1])
end

-- The arithmetic mean of a list of numbers.
function summary.mean(t)
  check(t, "mean")
  local sum = 0
  for _, v in ipairs(t) do sum = sum + v end
  return sum / #t
end

return summary
