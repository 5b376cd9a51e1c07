-- What the scripts of experiments/papers/ share: their options, the machine they ran on, one
-- report section per script (out/papers/<name>.md beside out/papers/<name>.csv) and the report that
-- puts the sections together (out/papers/report.md), in the order of R.scripts.
--
--   local R = dofile(here .. "/lib/report.lua")
--   local o = R.options { frames = {...} }          -- --set quick=true, out=..., plus the script's own
--   local sec = R.section("jones_table1", o)         -- collects the section
--   sec:text(...); sec:table(headers, rows); sec:row{item = "armadillo", total_ms = 12.3}
--   sec:finish()                                     -- writes the section, checks its rows, rewrites report.md
--
-- A section's rows are the numbers the script measured, one per item of its table or figure; every
-- number must be finite (sec:finish raises otherwise: the test suite runs each script with
-- --set quick=true and so asserts it). A part that needs something cleave does not have yet says so
-- (sec:unavailable) and has no row.
local cl = require "cleave"

local R = {}

R.dir = debug.getinfo(1, "S").source:match("^@(.*)/lib/[^/]*$") or "."
R.root = R.dir .. "/../.."

-- Every script, in the report's order, with the paper and the item of the paper it reproduces.
-- `rows`: the measured rows the script writes, one per item (quick and full runs differ where the
-- quick run has fewer meshes); nil where it depends on another script (the validations).
R.scripts = {
  { name = "jones_table1", paper = "jones", what = "Table 1: ms per frame (dynamics, plasticity, fracture, total)",
    rows = { 9, 9 } },
  { name = "jones_fig1", paper = "jones", what = "Figure 1: armadillo, broken heart, Swiss cheese", rows = { 4, 4 } },
  { name = "jones_fig4", paper = "jones", what = "Figure 4: twisted bar, plastic and fracturing", rows = { 4, 4 } },
  { name = "jones_fig5", paper = "jones", what = "Figure 5: projectile through plates of three materials", rows = { 3, 3 } },
  { name = "jones_fig6", paper = "jones", what = "Figure 6: hollow ball dropped on the ground", rows = { 6, 6 } },
  { name = "omalley_fig4", paper = "omalley", what = "Figure 4: fracture calculation time against nodes + elements",
    rows = { 4, 16 } },
  { name = "omalley_fig5", paper = "omalley", what = "Figure 5: time per sub-step", rows = { 2, 2 } },
  { name = "mandal_table1", paper = "mandal", what = "Table 1: fps per scene and grid set-up", rows = { 9, 9 } },
  { name = "mandal_fig13", paper = "mandal", what = "Figure 13: load-CMOD of the Charpy test against experiment" },
  { name = "mandal_table2", paper = "mandal", what = "Table 2: volume gain per model" },
}

R.papers = {
  jones = "Jones, Martin, Levine, Shinar, Bargteil: *Ductile Fracture for Clustered Shape Matching*, I3D 2016 "
          .. "(papers/000_633ecc7e34cf7b86.txt)",
  omalley = "O'Malley: *Real-time, plasticity-based fracture using the finite element method and rigid body "
            .. "proxies*, MS thesis, DigiPen 2015 (papers/002_0cf6a6c93f600053.txt)",
  mandal = "Mandal, Chaudhuri, Chaudhuri: *Galerkin Enhanced Graph-Based FEM for Interactive Fracture and "
           .. "Sculpting Applications*, GRAPP 2025 (papers/004_76e7200afa9364f6.txt)",
}

-- The options every script takes (quick, out) and the script's own entries (a map name -> entry).
function R.options(own)
  local spec = {
    quick = { type = "boolean", default = false, help = "the smoke test: smallest meshes, a few frames" },
    out = { type = "string", default = "out/papers", help = "output folder of the figures and the report" },
  }
  for k, e in pairs(own or {}) do spec[k] = e end
  return cl.options(spec)
end

local function read_command(cmd)
  local f = io.popen(cmd .. " 2>/dev/null")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

-- The machine now: CPU model (lscpu), cores, the load averages, the OS, the date.
function R.machine()
  local m = {}
  local ls = read_command("lscpu") or ""
  m.model = ls:match("Model name:%s*([^\n]+)") or "unknown CPU"
  m.cores = require("cleave.process").cores()
  local f = io.open("/proc/loadavg")
  local la = f and f:read("*l") or ""
  if f then f:close() end
  m.load = la:match("^(%S+ %S+ %S+)") or "unknown"
  m.os = (read_command("uname -sr") or ""):gsub("%s+$", "")
  m.date = os.date("!%Y-%m-%d %H:%M UTC")
  return m
end

function R.machine_line(m)
  return string.format("%s, %d cores, load average %s (1, 5, 15 min), %s, %s", m.model, m.cores, m.load, m.os, m.date)
end

-- The cleave executable running this script (for child processes), or nil under plain luajit.
function R.exe()
  local a = rawget(_G, "arg") or {}
  return type(a[-1]) == "string" and a[-1] ~= "" and a[-1] or nil
end

function R.file_exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

function R.fmt(v, f)
  if v == nil then return "-" end
  if type(v) ~= "number" then return tostring(v) end
  if not f and v == math.floor(v) and math.abs(v) < 1e9 then return string.format("%d", v) end
  return string.format(f or "%.3g", v)
end

local function finite(v) return type(v) ~= "number" or (v == v and v > -math.huge and v < math.huge) end

local Section = {}
Section.__index = Section

-- A section of the report for the script `name` (an entry of R.scripts) with the options o.
function R.section(name, o)
  local entry
  for _, s in ipairs(R.scripts) do if s.name == name then entry = s end end
  if not entry then error("experiments/papers: no script named " .. tostring(name) .. " in lib/report.lua", 2) end
  local sec = setmetatable({ name = name, entry = entry, o = o, lines = {}, rows = {}, columns = {}, missing = {},
                             machine = R.machine(), t0 = cl.progress.now() }, Section)
  cl.output.mkdir(o.out)
  return sec
end

function Section:text(...)
  for _, s in ipairs { ... } do self.lines[#self.lines + 1] = s end
  self.lines[#self.lines + 1] = ""
end

-- A markdown table: headers and rows of cells (strings or numbers, formatted by R.fmt).
function Section:table(headers, rows)
  local t = { "| " .. table.concat(headers, " | ") .. " |", "|" .. string.rep("---|", #headers) }
  for _, r in ipairs(rows) do
    local cells = {}
    for i = 1, #headers do cells[i] = (R.fmt(r[i]):gsub("|", "/")) end
    t[#t + 1] = "| " .. table.concat(cells, " | ") .. " |"
  end
  self:text(table.concat(t, "\n"))
end

-- One measured row: `item` names it; the other fields are numbers (or strings) written to the CSV.
function Section:row(r)
  assert(r.item, "a row needs an item")
  self.rows[#self.rows + 1] = r
  for k in pairs(r) do
    if not self.columns[k] then
      self.columns[k] = true
      self.columns[#self.columns + 1] = k
    end
  end
end

-- A part that cannot run: it is said in the section and has no row.
function Section:unavailable(item, why)
  self.missing[#self.missing + 1] = { item = item, why = why }
end

function Section:figure(path, caption)
  self:text(string.format("![%s](%s)", caption, path:match("[^/]+$")), "*" .. caption .. "* (`" .. path .. "`)")
end

-- Write out/papers/<name>.md and .csv, check every row's numbers are finite, and rewrite the report.
function Section:finish()
  local o = self.o
  local head = {
    string.format("## %s, %s", R.papers[self.entry.paper]:match("^([^:]+)"), self.entry.what), "",
    string.format("`cleave run experiments/papers/%s.lua%s` (%.1f s), cleave %s (git %s).", self.name,
                  o.quick and " --set quick=true" or "", cl.progress.now() - self.t0, cl.version, cl.git_revision),
    "Machine: " .. R.machine_line(self.machine) .. ".", "" }
  if o.quick then
    head[#head + 1] = "**Quick mode** (the smoke test: smallest meshes, a few frames): the numbers below only show " ..
                      "that the script runs; they are not the reproduction."
    head[#head + 1] = ""
  end
  for _, m in ipairs(self.missing) do
    head[#head + 1] = string.format("**Not reproduced: %s.** %s", m.item, m.why)
    head[#head + 1] = ""
  end
  local md = table.concat(head, "\n") .. "\n" .. table.concat(self.lines, "\n") .. "\n"
  cl.output.write_atomic(o.out .. "/" .. self.name .. ".md", md)
  -- the rows as CSV (item first, then the columns in the order they first appeared)
  local cols = { "item" }
  for _, k in ipairs(self.columns) do if k ~= "item" then cols[#cols + 1] = k end end
  local csv = cl.output.csv(o.out .. "/" .. self.name .. ".csv", cols,
                            { comments = { string.format("cleave %s (git %s): experiments/papers/%s.lua%s", cl.version,
                                                         cl.git_revision, self.name, o.quick and " (quick)" or "") } })
  for _, r in ipairs(self.rows) do csv:row(r) end
  csv:close()
  print(md)
  local bad = {}
  for _, r in ipairs(self.rows) do
    for k, v in pairs(r) do
      if not finite(v) then bad[#bad + 1] = string.format("%s: %s = %s", r.item, k, tostring(v)) end
    end
  end
  R.assemble(o)
  if #bad > 0 then error("experiments/papers/" .. self.name .. ": non-finite numbers: " .. table.concat(bad, "; "), 0) end
  print(string.format("wrote %s/%s.md, %s/%s.csv and %s/report.md", o.out, self.name, o.out, self.name, o.out))
end

-- Rows of a CSV file as a list of {column = value} (output.read_csv), or nil and the reason.
function R.read_rows(path)
  if not R.file_exists(path) then return nil, path .. " does not exist" end
  local ok, cols, names, n = pcall(cl.output.read_csv, path)
  if not ok then return nil, tostring(cols) end
  local rows = {}
  for i = 1, n do
    local r = {}
    for _, h in ipairs(names) do r[h] = cols[h][i] end
    rows[i] = r
  end
  return rows, names
end

-- out/papers/report.md: a header and every script's section in order (a script not run yet says so).
function R.assemble(o)
  local m = R.machine()
  local md = { "# cleave against the papers", "",
               "Regenerated by `make papers` (or `cleave run experiments/papers/all.lua`); each section by its own " ..
               "script, `cleave run experiments/papers/<name>.lua` (docs/PAPERS.md). Each section names the machine " ..
               "and load it ran with. Times are this machine's and the papers' are theirs (other CPUs, a GPU for " ..
               "Mandal et al.): compare shapes and ratios (how cost grows with size, which part of a frame dominates, " ..
               "which criterion is cheaper), not the absolute values.", "",
               "Report written on " .. R.machine_line(m) .. ".", "", "Papers:", "" }
  for _, k in ipairs { "jones", "omalley", "mandal" } do md[#md + 1] = "* " .. R.papers[k] end
  md[#md + 1] = ""
  for _, s in ipairs(R.scripts) do
    local f = io.open(o.out .. "/" .. s.name .. ".md")
    if f then
      md[#md + 1] = f:read("*a")
      f:close()
    else
      md[#md + 1] = string.format("## %s\n\nNot run yet: `cleave run experiments/papers/%s.lua`.\n", s.what, s.name)
    end
  end
  cl.output.write_atomic(o.out .. "/report.md", table.concat(md, "\n"))
end

-- Median and mean of a list of numbers.
function R.median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  if n == 0 then return 0 / 0 end
  return n % 2 == 1 and s[(n + 1) / 2] or 0.5 * (s[n / 2] + s[n / 2 + 1])
end

function R.mean(t)
  local sum = 0
  for _, v in ipairs(t) do sum = sum + v end
  return #t > 0 and sum / #t or 0 / 0
end

return R
