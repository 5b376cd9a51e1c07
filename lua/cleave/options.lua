-- cleave.options: a script's command-line parameters. `cleave run script.lua --set frames=100
-- --set young=2e6` passes arg.set = {frames = 100, young = 2e6}; `fill` checks such a table
-- against the script's own schema. init.lua exposes them as cl.args and cl.options.
local schema = require "cleave.schema"

local raise = schema.raise
local kind_of = schema.kind_of

local M = {}

-- The --set values the `cleave` executable left in the global `arg`, or {} under plain luajit.
function M.args()
  local a = rawget(_G, "arg")
  return (type(a) == "table" and type(a.set) == "table") and a.set or {}
end

-- Check `args` against `spec` and return the filled parameters. A --set key the schema does not
-- know is an error naming it (and the closest valid key). The spec may be a list of entries or a
-- map { frames = { type = ..., default = ... }, ... }.
function M.fill(spec, args)
  if type(spec) ~= "table" then raise("cl.options: expected a schema (a list of entries), got " .. kind_of(spec)) end
  if spec[1] == nil and next(spec) ~= nil then
    local list = {}
    for k, e in pairs(spec) do
      if type(e) ~= "table" then raise("cl.options: entry '" .. tostring(k) .. "' must be a table") end
      local copy = { name = k }
      for kk, vv in pairs(e) do copy[kk] = vv end
      list[#list + 1] = copy
    end
    table.sort(list, function(x, y) return x.name < y.name end)
    spec = list
  end
  return schema.check(spec, args, "--set")
end

return M
