-- Running a validation script of validation/ (issue 13) as a child process and finding what it
-- wrote, for the papers' items that come from it (Mandal et al. Fig. 13 from validation/charpy.lua,
-- Table 2 from validation/volume_gain.lua). Nothing about the validation's outputs is assumed
-- beyond what a reader can see: the files it names on its standard output (any token ending in
-- .csv, .md or .png that exists) and the files under out/ it created or changed while it ran whose
-- path holds `tag`; CSV files are read by their header (output.read_csv) and their columns found by
-- name patterns. A validation that is not there, fails or writes nothing readable is reported as
-- such; the caller then writes no figure.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/report.lua")

local V = {}

local q = cl.output.shell_quote

-- Run validation/<name>.lua. Returns { ok, status, log (path), stdout (text), files = {paths} } or
-- nil and why (the script does not exist, or no cleave executable to run it with).
function V.run(name, tag, o, timeout)
  local script = R.root .. "/validation/" .. name .. ".lua"
  if not R.file_exists(script) then return nil, "validation/" .. name .. ".lua does not exist in this tree" end
  local exe = R.exe()
  if not exe then return nil, "no cleave executable to run validation/" .. name .. ".lua with (run under `cleave run`)" end
  cl.output.mkdir(o.out)
  local log = o.out .. "/" .. name .. "_validation.log"
  local marker = o.out .. "/." .. name .. "_started"
  cl.output.write_atomic(marker, os.date("!%c") .. "\n")
  os.execute("sleep 1") -- file times have a resolution of a second on some file systems: newer means after this
  local cmd = string.format("timeout %d %s run %s%s > %s 2>&1", timeout or 1800, q(exe), q(script),
                            o.quick and " --set quick=true" or "", q(log))
  local t0 = cl.progress.now()
  local ok, code = cl.output.execute_ok(cmd)
  local res = { ok = ok, status = code or 0, log = log, seconds = cl.progress.now() - t0, files = {} }
  local f = io.open(log)
  res.stdout = f and f:read("*a") or ""
  if f then f:close() end
  local seen = {}
  local function add(p)
    p = p:gsub("^%./", "")
    if not seen[p] and R.file_exists(p) then
      seen[p] = true
      res.files[#res.files + 1] = p
    end
  end
  for tok in res.stdout:gmatch("[%w_%./%-]+%.[cmp][sdn][vg]?") do
    if tok:match("%.csv$") or tok:match("%.md$") or tok:match("%.png$") then add(tok) end
  end
  local find = io.popen(string.format("find out -newer %s -type f \\( -name '*.csv' -o -name '*.md' -o -name '*.png' \\) " ..
                                      "2>/dev/null | sort", q(marker)))
  if find then
    for p in find:lines() do
      if p:lower():find(tag, 1, true) and not p:find("^out/papers/") then add(p) end
    end
    find:close()
  end
  os.remove(marker)
  return res
end

-- The PASS / FAIL lines a validation printed.
function V.verdicts(stdout)
  local t = {}
  for line in stdout:gmatch("[^\n]+") do
    if line:match("^%s*PASS") or line:match("^%s*FAIL") then t[#t + 1] = line end
  end
  return t
end

-- The first column of `names` whose lower-case name matches one of `patterns`, skipping `except`.
function V.column(names, patterns, except)
  for _, pat in ipairs(patterns) do
    for _, n in ipairs(names) do
      if n ~= except and n:lower():find(pat) then return n end
    end
  end
end

-- The CSV files among `files`, each read: { path, rows, names }.
function V.csvs(files)
  local out = {}
  for _, p in ipairs(files) do
    if p:match("%.csv$") then
      local rows, names = R.read_rows(p)
      if rows then out[#out + 1] = { path = p, rows = rows, names = names } end
    end
  end
  return out
end

return V
