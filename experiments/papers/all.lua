-- Every figure and table of the papers cleave implements, regenerated: runs each script of
-- experiments/papers/ (the list in lib/report.lua, R.scripts) as its own `cleave run` process, one
-- after the other, then checks the report they built, out/papers/report.md: a section per script,
-- each with a row of finite numbers per item it reproduces, or a "Not reproduced" line saying what
-- it needs. `make papers` runs this (CMake target `papers`; docs/PAPERS.md).
--
--   cleave run experiments/papers/all.lua [--set quick=true] [--set out=DIR]
--
-- A script that fails is reported and the others still run; then this script fails too.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/lib/report.lua")

local o = R.options {}
local exe = R.exe()
if not exe then error("experiments/papers/all.lua runs its scripts with the cleave executable: run it with `cleave run`", 0) end
local q = cl.output.shell_quote
local t0 = cl.progress.now()
local failed, summary = {}, {}
for _, s in ipairs(R.scripts) do
  local cmd = string.format("%s run %s%s --set out=%s", q(exe), q(here .. "/" .. s.name .. ".lua"),
                            o.quick and " --set quick=true" or "", q(o.out))
  print(string.format("== %s (%s)", s.name, s.what))
  io.stdout:flush()
  local t = cl.progress.now()
  local ok, code = cl.output.execute_ok(cmd)
  summary[#summary + 1] = string.format("%-14s %6.1f s  %s", s.name, cl.progress.now() - t, ok and "ok" or ("FAILED (" .. tostring(code) .. ")"))
  if not ok then failed[#failed + 1] = s.name end
end
R.assemble(o)

-- the report's check: every script wrote its section; every section has rows with numbers (the
-- scripts refuse non-finite ones) or says what it could not reproduce
local problems = {}
for _, s in ipairs(R.scripts) do
  local f = io.open(o.out .. "/" .. s.name .. ".md")
  local md = f and f:read("*a") or ""
  if f then f:close() end
  local rows = R.read_rows(o.out .. "/" .. s.name .. ".csv")
  if md == "" then problems[#problems + 1] = s.name .. ": no section"
  elseif (not rows or #rows == 0) and not md:find("Not reproduced", 1, true) then
    problems[#problems + 1] = s.name .. ": no measured row and no 'Not reproduced' line"
  end
  local want = s.rows and s.rows[o.quick and 1 or 2]
  if md ~= "" and want and #(rows or {}) ~= want then
    problems[#problems + 1] = string.format("%s: %d rows, one per item means %d", s.name, #(rows or {}), want)
  end
  for i, r in ipairs(rows or {}) do
    for k, v in pairs(r) do
      if type(v) == "number" and not (v == v and v > -math.huge and v < math.huge) then
        problems[#problems + 1] = string.format("%s: row %d: %s = %s", s.name, i, k, tostring(v))
      end
    end
  end
end
print("\n" .. table.concat(summary, "\n"))
print(string.format("all: %.1f s; report %s/report.md", cl.progress.now() - t0, o.out))
if #failed > 0 or #problems > 0 then
  error("experiments/papers/all.lua: " .. (#failed > 0 and ("failed: " .. table.concat(failed, ", ") .. "; ") or "") ..
        table.concat(problems, "; "), 0)
end
