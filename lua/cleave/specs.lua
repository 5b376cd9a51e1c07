-- cleave.specs: every named Lua-side parameter table ("world", "body", "shape.box", ...), for
-- cl.help, cl.specs and the docs. Each module adds its own tables to `specs.all`.
local M = { all = {} }

-- Look up a spec's defaults from the C *_def_default function once, so help and filled tables
-- show the values C would use; if the C side is not there yet, the Lua fallbacks stay.
local function prepare(spec)
  if spec.c_defaults and not rawget(spec, "__c_done") then
    rawset(spec, "__c_done", true)
    local ok, d = pcall(spec.c_defaults)
    if ok and type(d) == "table" then
      for _, e in ipairs(spec) do
        if d[e.name] ~= nil then e.default = d[e.name] end
      end
    end
  end
  return spec
end
M.prepare = prepare

return M
