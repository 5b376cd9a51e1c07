-- Helpers for tests that edit a sweep's results file (cleave.sweep_file's format).
local sweep = require "cleave.sweep"
local sfile = require "cleave.sweep_file"

local M = {}

-- Rewrite the file's last row as another build of cleave would have written it: git revision
-- `revision`, and its own check field, so the row stays whole. Returns that row.
function M.stamp_last_row(path, revision)
  local r = sweep.read(path)
  local row = r.rows[#r.rows]
  row.git_revision = revision
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  local last = text:match("([^\n]*)\n$")
  f = assert(io.open(path, "wb"))
  f:write(text:sub(1, #text - #last - 1) .. sfile.format_row(r.columns, row))
  f:close()
  return row
end

-- The row that counts for `key` (the last one written for it), or nil.
function M.last_row(path, key)
  for _, x in ipairs(sweep.read(path).last) do if x.key == key then return x end end
end

return M
