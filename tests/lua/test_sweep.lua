-- Sweeps (issue 14): points of a grid, a list, a seeded random and a Latin hypercube sample;
-- the results file (header, fingerprint, one row per point, check field); isolation of each point
-- (error, blow-up of a real world, time limit, a signal, a worker killed from outside: recorded,
-- the others go on); resume after the runner is killed with SIGKILL several times mid-run (nothing
-- lost, nothing duplicated, no orphan left computing); two runners at once; --point rows; the bad
-- input of the issue; the progress line; the Pareto front and the plots. GNU parallel and Slurm:
-- test_sweep_cluster.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local sweep = require "cleave.sweep"
local sfile = require "cleave.sweep_file"

local tmp_name = "sweep"
local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- Run a shell command in `dir`; returns stdout, stderr, exit code.
local function sh(dir, cmd)
  local errfile = dir .. "/.stderr"
  local p = assert(io.popen("cd " .. q(dir) .. " && " .. cmd .. " 2>" .. q(errfile) .. "; echo \"__exit=$?\""))
  local out = p:read("*a")
  p:close()
  local code = tonumber(out:match("__exit=(%d+)%s*$"))
  return out:gsub("__exit=%d+%s*$", ""), T.read_file(errfile) or "", code
end
local function sweep_cmd(dir, script, args) return sh(dir, q(exe) .. " sweep " .. q(script) .. " " .. (args or "")) end
local function sleep(s) os.execute("sleep " .. s) end

local function fresh(name) return T.fresh_tmpdir(tmp_name .. "/" .. name) end

-- A sweep script: `body` is the table given to cl.sweep (text), with a poll-based sleep helper.
local function script(dir, name, body)
  return T.write_file(dir .. "/" .. name .. ".lua", [[
local cl = require "cleave"
local ffi = require "ffi"
pcall(ffi.cdef, "struct cl_pollfd { int fd; short events; short revents; };")
pcall(ffi.cdef, "int poll(struct cl_pollfd *fds, unsigned long nfds, int timeout);")
pcall(ffi.cdef, "int getpid(void);")
local function nap(ms) ffi.C.poll(nil, 0, ms) end
local sw = cl.sweep ]] .. body .. "\n")
end

-- The rows of a results file and how many rows each key has.
local function rows_of(path)
  local r = sweep.read(path)
  local count = {}
  for _, row in ipairs(r.rows) do count[row.key] = (count[row.key] or 0) + 1 end
  return r, count
end

-- ---- points ------------------------------------------------------------------------------------

T.test("a grid is every combination, the last name fastest; keys follow the values", function()
  local s = sweep.new { name = "g", grid = { b = { 1, 2, 3 }, a = { "x", "y" } }, outputs = { "v" }, run = function() end }
  T.eq(#s.points, 6)
  T.eq(table.concat(s.params, ","), "a,b")
  T.eq(s.points[1].a, "x")
  T.eq(s.points[1].b, 1)
  T.eq(s.points[2].b, 2)
  T.eq(s.points[4].a, "y")
  local again = sweep.new { name = "g", grid = { a = { "x", "y" }, b = { 1, 2, 3 } }, outputs = { "v" }, run = function() end }
  T.eq(table.concat(again.keys, ","), table.concat(s.keys, ","), "same points, same keys")
  T.eq(again.plan, s.plan)
  local other = sweep.new { name = "g", grid = { a = { "x", "y" }, b = { 1, 2, 4 } }, outputs = { "v" }, run = function() end }
  T.truthy(other.keys[3] ~= s.keys[3] and other.keys[1] == s.keys[1], "a changed value changes only its points' keys")
  T.truthy(other.plan ~= s.plan, "and the plan")
end)

T.test("an explicit list keeps its order", function()
  local s = sweep.new { name = "l", points = { { a = 3, b = true }, { a = 1, b = false } }, outputs = { "v" }, run = function() end }
  T.eq(#s.points, 2)
  T.eq(s.points[1].a, 3)
  T.eq(s.points[2].b, false)
end)

T.test("seeded random and Latin hypercube samples are reproducible; LHS uses each stratum once", function()
  local function lhs(seed, method)
    return sweep.new { name = "s", outputs = { "v" }, run = function() end,
                       sample = { method = method, n = 20, seed = seed,
                                  ranges = { x = { 0, 1 }, y = { 1e3, 1e6, log = true }, k = { 1, 4, integer = true },
                                             m = { values = { "a", "b" } } } } }
  end
  local a, b, c = lhs(7, "lhs"), lhs(7, "lhs"), lhs(8, "lhs")
  T.eq(table.concat(a.keys, ","), table.concat(b.keys, ","), "the same seed gives the same points")
  T.truthy(table.concat(a.keys, ",") ~= table.concat(c.keys, ","), "another seed other points")
  T.eq(#a.points + a.dropped, 20)
  local strata = {}
  for _, p in ipairs(a.points) do
    T.truthy(p.x >= 0 and p.x < 1 and p.y >= 1e3 and p.y <= 1e6, "in range")
    T.truthy(p.k >= 1 and p.k <= 4 and p.k == math.floor(p.k), "integer in range")
    T.truthy(p.m == "a" or p.m == "b")
    local s = math.floor(p.x * 20)
    T.truthy(not strata[s], "x stratum " .. s .. " used once")
    strata[s] = true
  end
  T.eq(a.dropped, 0, "no LHS point repeats another (x differs in each)")
  local r = lhs(7, "random")
  T.truthy(table.concat(r.keys, ",") ~= table.concat(a.keys, ","), "random is not the LHS")
end)

-- ---- the bad input of the issue -----------------------------------------------------------------

local tiny = cl.scene {
  name = "tiny", what = "a small bar under gravity",
  params = {
    { name = "young", group = "material", type = "number", default = 1e5, unit = "Pa", range = { 0, math.huge, "()" }, help = "E" },
    { name = "max_volume", group = "resolution", type = "number", default = 2e-4, unit = "m^3", range = { 0, 1, "()" }, help = "tet size" },
    { name = "frames", group = "run", type = "integer", default = 3, unit = "1", range = { 1, 1e6 }, help = "frames" },
  },
  build = function(p)
    local w = cl.world { dt = 1 / 60, threads = 1 }
    local b = w:body { mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { max_volume = p.max_volume },
                       solver = "corotational", material = { young = p.young } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
    return { world = w, body = b }
  end,
}

T.test("a parameter the scene does not have is an error naming it and the closest one", function()
  T.error(function()
    sweep.new { name = "bad", scene = tiny, grid = { yung = { 1e5 } }, outputs = { "ms_per_frame" } }
  end, { "yung", "scene 'tiny' does not have", "did you mean 'young'" })
  T.error(function()
    sweep.new { name = "bad", scene = tiny, grid = { young = { 1e5 } }, fixed = { frame = 2 }, outputs = { "ms_per_frame" } }
  end, { 'fixed names "frame"', "did you mean 'frames'" })
end)

T.test("a value the scene refuses is an error before anything runs, naming the point", function()
  T.error(function()
    sweep.new { name = "bad", scene = tiny, grid = { young = { 1e5, -1 } }, outputs = { "ms_per_frame" } }
  end, { "point 1", "young=-1", "young" })
end)

T.test("an empty grid, an empty list, no points at all, outputs that clash: errors", function()
  local function def(t)
    t.name, t.outputs, t.run = "bad", t.outputs or { "v" }, function() end
    return function() sweep.new(t) end
  end
  T.error(def { grid = {} }, "the grid is empty")
  T.error(def { grid = { a = {} } }, "grid.a has no values")
  T.error(def { grid = { a = { 1, 1 } } }, "lists 1 twice")
  T.error(def { points = {} }, "points is an empty list")
  T.error(def { points = { { a = 1 }, { b = 2 } } }, "every point sets the same parameters")
  T.error(def {}, "give exactly one of grid, points and sample (none given)")
  T.error(def { grid = { a = { 1 } }, points = { { a = 1 } } }, "several given")
  T.error(def { grid = { a = { 1 } }, outputs = {} }, "outputs is empty")
  T.error(def { grid = { a = { 1 } }, outputs = { "a" } }, "both a parameter and an output")
  T.error(def { grid = { a = { 1 } }, outputs = { "status" } }, "a column the results file keeps itself")
  T.error(def { grid = { a = { 1 } }, fixed = { a = 2 } }, "'a' is both swept and fixed")
  T.error(function() sweep.new { name = "bad", scene = tiny, grid = { young = { 1 } }, outputs = { "tip" } } end,
          { "'tip' is not one the default measure gives", "measure" })
end)

T.test("a results file from another sweep is refused, saying what differs; so is a plain CSV", function()
  local d = fresh("foreign")
  local path = d .. "/r.csv"
  local meta = { name = "a", script = "a.lua", params = { "x" }, outputs = { "v" }, fixed = "" }
  local f = sfile.open(path, meta)
  f:close()
  local ok, err = pcall(sfile.open, path, { name = "a", script = "a.lua", params = { "x" }, outputs = { "v", "w" }, fixed = "" })
  T.truthy(not ok, "refused")
  T.contains(err, "holds the results of another sweep")
  T.contains(err, "outputs v (this sweep: v,w)")
  ok, err = pcall(sfile.open, path, { name = "b", script = "b.lua", params = { "x" }, outputs = { "v" }, fixed = "" })
  T.contains(err, "sweep a (this sweep: b)")
  T.contains(err, "script a.lua (this sweep: b.lua)")
  T.write_file(d .. "/plain.csv", "x,v\n1,2\n")
  ok, err = pcall(sfile.open, d .. "/plain.csv", meta)
  T.contains(err, "is not the results file of a cleave sweep")
  T.eq(T.read_file(d .. "/plain.csv"), "x,v\n1,2\n", "the foreign file is left as it was")
  -- and through the command line: exit 1, the message at the script's line
  local s = script(d, "other", [[{ name = "a", grid = { x = { 1 } }, outputs = { "z" }, run = function() return {} end, results = "r.csv" }]])
  local _, e, code = sweep_cmd(d, s)
  T.eq(code, 1)
  T.contains(e, "other.lua:7:")
  T.contains(e, "holds the results of another sweep")
end)

T.test("--point out of range, bad flags, a script without a sweep: usage errors", function()
  local d = fresh("usage")
  local s = script(d, "u", [[{ name = "u", grid = { x = { 1, 2, 3 } }, outputs = { "v" }, run = function(p) return { v = p.x } end }]])
  local _, e, code = sweep_cmd(d, s, "--point 3")
  T.eq(code, 2)
  T.contains(e, "--point 3 is out of range: the sweep has 3 points (0-2)")
  _, e, code = sweep_cmd(d, s, "--jobs 0")
  T.eq(code, 2)
  T.contains(e, "--jobs needs an integer >= 1")
  _, e, code = sweep_cmd(d, s, "--emit pbs")
  T.eq(code, 2)
  T.contains(e, "--emit takes slurm or parallel")
  _, e, code = sweep_cmd(d, s, "--timeout -3")
  T.eq(code, 2)
  _, e, code = sweep_cmd(d, s, "--set jobz=2")
  T.eq(code, 1)
  T.contains(e, "did you mean 'jobs'")
  local plain = T.write_file(d .. "/plain.lua", "local cl = require 'cleave'\n")
  _, e, code = sweep_cmd(d, plain)
  T.eq(code, 1)
  T.contains(e, "defines no sweep")
  T.truthy(not io.open(d .. "/out/sweeps/u.csv"), "nothing was written by the refused commands")
end)

-- ---- isolation -----------------------------------------------------------------------------------

T.test("an error, a blow-up, a time limit and a signal are recorded; the other points go on", function()
  local d = fresh("isolation")
  local s = script(d, "iso", [[{
  name = "iso", grid = { case = { "ok", "error", "nan", "world", "hang", "segv", "ok2" } }, outputs = { "v" },
  timeout = 2,
  run = function(p)
    if p.case == "error" then error("this point fails") end
    if p.case == "nan" then return { v = 0 / 0 } end
    if p.case == "world" then -- a real world that blows up (one CG iteration a step): the watch stops it
      local w = cl.world { dt = 0.01, threads = 1, gravity = { 0, -9.81, 0 } }
      local b = w:body { mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { max_volume = 2e-4 },
                         solver = "corotational", params = { max_iterations = 1 },
                         material = { density = 1000, young = 1e6, poisson = 0.3 } }
      w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
      w:step(200)
    end
    if p.case == "hang" then while true do end end
    if p.case == "segv" then
      ffi.cdef "int raise(int sig);"
      ffi.C.raise(11)
    end
    return { v = #p.case }
  end }]])
  local out, err, code = sweep_cmd(d, s, "--jobs 3")
  T.eq(code, 0, "the sweep finishes: " .. err)
  local r, count = rows_of(d .. "/out/sweeps/iso.csv")
  T.eq(#r.rows, 7, "one row per point")
  local by = {}
  for _, row in ipairs(r.rows) do by[row.case] = row end
  T.eq(by.ok.status, "ok")
  T.eq(by.ok.v, 2)
  T.eq(by.ok2.v, 3)
  T.eq(by.error.status, "error")
  T.contains(by.error.message, "iso.lua:")
  T.contains(by.error.message, "this point fails")
  T.eq(by.nan.status, "blowup")
  T.contains(by.nan.message, "result 'v' is nan")
  T.eq(by.world.status, "blowup", "the world stopped on NaN: " .. tostring(by.world.message))
  T.contains(by.world.message, "blowing up")
  T.eq(by.hang.status, "timeout")
  T.truthy(by.hang.wall_s >= 2 and by.hang.wall_s < 10, "killed at its limit: " .. by.hang.wall_s)
  T.eq(by.segv.status, "signal")
  T.contains(by.segv.message, "SIGSEGV")
  T.contains(by.error.message, "[log: out/sweeps/iso.logs/")
  local log = T.read_file(d .. "/" .. by.error.message:match("%[log: (.-)%]"))
  T.contains(log, "stack traceback", "the log has the traceback")
  for _, n in pairs(count) do T.eq(n, 1) end
  T.contains(out, "error")
  T.contains(out, "timeout")
  -- resume: nothing runs again; --retry runs the failed ones again and the last row counts
  out = sweep_cmd(d, s)
  T.contains(out, "7 points (7 done before)")
  T.contains(out, "ran 0 points")
end)

T.test("a worker killed from outside is recorded with its signal; the others go on", function()
  local d = fresh("killed")
  local s = script(d, "k", [[{
  name = "k", grid = { i = { 1, 2, 3, 4 } }, outputs = { "v" },
  run = function(p)
    if p.i == 2 then
      local f = io.open("victim.pid", "w")
      f:write(tostring(ffi.C.getpid()))
      f:close()
      nap(20000)
    end
    nap(100)
    return { v = p.i }
  end }]])
  os.execute("cd " .. q(d) .. " && (" .. q(exe) .. " sweep " .. q(s) .. " --jobs 2 > run.out 2>&1 &)")
  local victim
  for _ = 1, 100 do
    sleep(0.1)
    victim = tonumber(T.read_file(d .. "/victim.pid") or "")
    if victim then break end
  end
  T.truthy(victim, "the point started")
  os.execute("kill -9 " .. victim)
  for _ = 1, 200 do -- the runner's last line
    if (T.read_file(d .. "/run.out") or ""):find("sweep k: ran", 1, true) then break end
    sleep(0.1)
  end
  local r, count = rows_of(d .. "/out/sweeps/k.csv")
  T.eq(#r.rows, 4, T.read_file(d .. "/run.out"))
  for _, row in ipairs(r.rows) do
    if row.i == 2 then
      T.eq(row.status, "signal")
      T.contains(row.message, "SIGKILL")
    else
      T.eq(row.status, "ok")
    end
  end
  for _, n in pairs(count) do T.eq(n, 1) end
end)

-- ---- resume after kills ----------------------------------------------------------------------------

local function kill_rounds(d, s, rounds, delay, signal)
  local sizes = {}
  for round = 1, rounds do
    local pidfile = d .. "/runner.pid"
    os.execute("cd " .. q(d) .. " && (" .. q(exe) .. " sweep " .. q(s) .. " --jobs 2 > round" .. round
               .. ".out 2>&1 & echo $! > " .. q(pidfile) .. ")")
    sleep(delay)
    os.execute("kill -" .. signal .. " " .. T.read_file(pidfile))
    sleep(0.3)
    local f = io.open(d .. "/out/sweeps/resume.csv", "rb")
    local a = f and f:seek("end") or 0
    if f then f:close() end
    sleep(0.6)
    f = io.open(d .. "/out/sweeps/resume.csv", "rb")
    local b = f and f:seek("end") or 0
    if f then f:close() end
    sizes[round] = { a, b }
  end
  return sizes
end

T.test("killed mid-run with SIGKILL four times, the sweep resumes: no point lost or duplicated", function()
  local d = fresh("resume")
  local s = script(d, "resume", [[{
  name = "resume", grid = { i = (function() local t = {} for i = 0, 39 do t[#t + 1] = i end return t end)() },
  outputs = { "v" },
  run = function(p) nap(200) return { v = p.i * p.i } end }]])
  local sizes = kill_rounds(d, s, 4, 0.6, 9)
  for round, ab in ipairs(sizes) do
    T.eq(ab[2], ab[1], "round " .. round .. ": nothing appended after the runner died (its workers died with it)")
  end
  local before = #rows_of(d .. "/out/sweeps/resume.csv").rows
  T.truthy(before > 0 and before < 40, "the kills left a partial file: " .. before .. " rows")
  local out = sweep_cmd(d, s, "--jobs 2")
  T.contains(out, "40 points (" .. before .. " done before)")
  local r, count = rows_of(d .. "/out/sweeps/resume.csv")
  T.eq(#r.rows, 40, "every point once")
  local n = 0
  for _, c in pairs(count) do
    n = n + 1
    T.eq(c, 1)
  end
  T.eq(n, 40)
  for _, row in ipairs(r.rows) do
    T.eq(row.status, "ok")
    T.eq(row.v, row.i * row.i)
  end
  T.eq(#r.bad, 0, "no torn line")
end)

T.test("interrupted by SIGINT and SIGTERM, the sweep resumes the same way", function()
  local d = fresh("resume")
  local s = script(d, "resume", [[{
  name = "resume", grid = { i = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 } }, outputs = { "v" },
  run = function(p) nap(150) return { v = p.i } end }]])
  kill_rounds(d, s, 1, 0.6, "INT")
  kill_rounds(d, s, 1, 0.6, "TERM")
  sweep_cmd(d, s, "--jobs 2")
  local r, count = rows_of(d .. "/out/sweeps/resume.csv")
  T.eq(#r.rows, 12)
  for _, c in pairs(count) do T.eq(c, 1) end
end)

T.test("two runners of one sweep at once run each point once", function()
  local d = fresh("twice")
  local s = script(d, "twice", [[{
  name = "twice", grid = { i = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 } }, outputs = { "v" },
  run = function(p) nap(100) return { v = p.i } end }]])
  os.execute("cd " .. q(d) .. " && (" .. q(exe) .. " sweep " .. q(s) .. " --jobs 2 > a.out 2>&1 & "
             .. q(exe) .. " sweep " .. q(s) .. " --jobs 2 > b.out 2>&1; wait)")
  local r, count = rows_of(d .. "/out/sweeps/twice.csv")
  T.eq(#r.rows, 16, T.read_file(d .. "/a.out") .. T.read_file(d .. "/b.out"))
  for _, c in pairs(count) do T.eq(c, 1) end
end)

-- ---- --point: the task of a job file -------------------------------------------------------------

T.test("--point runs one point and writes the row the local runner writes", function()
  local d = fresh("point")
  local s = script(d, "pt", [[{
  name = "pt", grid = { a = { 1, 2 }, b = { 0.5, 0.25 } }, outputs = { "prod", "sum" },
  run = function(p) return { prod = p.a * p.b, sum = p.a + p.b } end }]])
  local out, err, code
  for i = 3, 0, -1 do
    out, err, code = sweep_cmd(d, s, "--point " .. i .. " --results by_point.csv")
    T.eq(code, 0, err)
    T.contains(out, "point " .. i .. " of 0-3:")
  end
  out, err, code = sweep_cmd(d, s, "--point 1 --results by_point.csv")
  T.contains(out, "done already (ok): skipped")
  sweep_cmd(d, s, "--jobs 2 --results local.csv")
  local a, b = sweep.read(d .. "/by_point.csv"), sweep.read(d .. "/local.csv")
  T.eq(table.concat(a.columns, ","), table.concat(b.columns, ","))
  T.eq(T.read_file(d .. "/by_point.csv"):match("^[^\n]*"), T.read_file(d .. "/local.csv"):match("^[^\n]*"), "same header")
  local byk = {}
  for _, row in ipairs(b.rows) do byk[row.key] = row end
  for _, row in ipairs(a.rows) do
    local o = byk[row.key]
    for _, c in ipairs { "point", "a", "b", "prod", "sum", "status", "message", "cleave_version", "git_revision", "host" } do
      T.eq(row[c], o[c], "column " .. c)
    end
  end
  -- a failing point's task exits 3 (recorded, not ok)
  local f = script(d, "fail", [[{ name = "fail", grid = { a = { 1 } }, outputs = { "v" }, run = function() error("no") end }]])
  _, _, code = sweep_cmd(d, f, "--point 0")
  T.eq(code, 3)
end)

-- ---- a scene sweep, the progress line, plots -----------------------------------------------------

T.test("a scene sweep: the scene's parameters, the default measure, one line per point off a terminal", function()
  local d = fresh("scene")
  local s = T.write_file(d .. "/sc.lua", [[
local cl = require "cleave"
local scene = cl.scene {
  name = "bar", what = "a bar sagging",
  params = {
    { name = "young", group = "material", type = "number", default = 1e5, unit = "Pa", range = { 0, math.huge, "()" }, help = "E" },
    { name = "frames", group = "run", type = "integer", default = 4, unit = "1", range = { 1, 1e6 }, help = "frames" },
  },
  build = function(p)
    local w = cl.world { dt = 1 / 60, threads = 1 }
    local b = w:body { mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { max_volume = 2e-4 },
                       solver = "corotational", material = { young = p.young } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
    return { world = w, body = b }
  end,
}
cl.sweep { name = "sc", scene = scene, grid = { young = { 1e4, 1e5 } }, fixed = { frames = 5 },
           outputs = { "ms_per_frame", "steps", "pieces", "volume_change" } }
]])
  local out, err, code = sh(d, "CLEAVE_PROGRESS=0 " .. q(exe) .. " sweep " .. q(s) .. " --jobs 2")
  T.eq(code, 0, err)
  local lines = 0
  for l in out:gmatch("[^\n]+") do if l:match("^%[%d/2%] ok") then lines = lines + 1 end end
  T.eq(lines, 2, "one line per point: " .. out)
  local r = sweep.read(d .. "/out/sweeps/sc.csv")
  for _, row in ipairs(r.rows) do
    T.eq(row.steps, 5, "the fixed frames")
    T.eq(row.pieces, 1)
    T.truthy(row.ms_per_frame > 0)
    T.truthy(math.abs(row.volume_change) < 0.05)
  end
  T.contains(r.meta.fixed, "frames=5")
  -- on a terminal: a progress line with done, failed, running, ETA
  os.execute("rm -f " .. q(d .. "/out/sweeps/sc.csv"))
  out, err = sh(d, "CLEAVE_PROGRESS=1 " .. q(exe) .. " sweep " .. q(s) .. " --jobs 1")
  T.matches(err, "\rsweep sc: %d/2 done, 0 failed, %d running")
  T.contains(err, "ETA")
end)

T.test("the Pareto front: the points no other beats in both", function()
  local pts = { { x = 1, y = 5 }, { x = 2, y = 3 }, { x = 2, y = 4 }, { x = 3, y = 3 }, { x = 4, y = 1 }, { x = 5, y = 2 } }
  local f = sweep.front(pts)
  local got = {}
  for i, p in ipairs(f) do got[i] = p.x .. ":" .. p.y end
  T.eq(table.concat(got, " "), "1:5 2:3 4:1")
end)

T.test("plots from a results file: Pareto and lines by a third parameter", function()
  if not cl.plot.available() then return T.skip("plots", "gnuplot is not installed") end
  local d = fresh("plots")
  local s = script(d, "pl", [[{
  name = "pl", grid = { h = { 1, 0.5, 0.25 }, model = { "a", "b" } }, outputs = { "err", "ms" },
  run = function(p) return { err = p.h ^ (p.model == "a" and 1 or 2), ms = 1 / p.h * (p.model == "a" and 1 or 3) } end }
local png1, front = sw:pareto { x = "ms", y = "err", output = "pareto.png", logx = true, logy = true }
print("front " .. #front)
sw:lines { x = "h", y = "err", by = "model", output = "lines.png", logx = true }
local ok, e = pcall(sw.lines, sw, { x = "h", y = "err", output = "x.png" })
print(e)
cl.sweep.lines { results = "out/sweeps/pl.csv", x = "h", y = "ms", where = { model = "b" }, output = "lines_b.png" }]])
  local out, err, code = sweep_cmd(d, s)
  T.eq(code, 0, err)
  T.contains(out, "front 4")
  T.contains(out, "parameter 'model' also varies (2 values)")
  for _, png in ipairs { "pareto.png", "lines.png", "lines_b.png" } do
    local f = io.open(d .. "/" .. png, "rb")
    T.truthy(f and f:read(4) == "\137PNG", png .. " written")
    if f then f:close() end
  end
end)

T.test("rows kept from another build of cleave are counted and named when a sweep resumes", function()
  local d = fresh("revision")
  local s = script(d, "rev", [[{ name = "rev", grid = { i = { 1, 2, 3 } }, outputs = { "v" }, run = function(p) return { v = p.i } end }]])
  sweep_cmd(d, s)
  local path = d .. "/out/sweeps/rev.csv"
  local out = sweep_cmd(d, s)
  T.contains(out, "3 points (3 done before)")
  T.truthy(not out:find("another build", 1, true), "all rows are this build's: " .. out)
  -- the last row as an older build would have written it
  local row = require("sweep_rows").stamp_last_row(path, "0123456789ab")
  out = sweep_cmd(d, s)
  T.contains(out, "3 points (3 done before)")
  T.contains(out, "note: 1 of the 3 points done before were computed by another build of cleave (git 0123456789ab; this is git ")
  T.contains(out, "run with --fresh (or delete out/sweeps/rev.csv)")
  T.contains(out, "ran 0 points")
  -- --fresh runs that point again with this build; the new row is the one that counts
  out = sweep_cmd(d, s, "--fresh")
  T.contains(out, "3 points (2 done before)")
  T.contains(out, "ran 1 point")
  T.truthy(not out:find("another build", 1, true), "nothing of another build is kept now: " .. out)
  local r2, count = rows_of(path)
  T.eq(#r2.rows, 4, "the old row stays in the file, the new one after it")
  T.eq(count[row.key], 2)
  local mine = r2.last[#r2.last].git_revision
  for _, l in ipairs(r2.last) do T.eq(l.git_revision, mine, "the last row of every point is this build's") end
  T.truthy(mine ~= "0123456789ab")
end)

T.test("a cut line is skipped with a warning and its point runs again", function()
  local d = fresh("torn")
  local s = script(d, "torn", [[{ name = "torn", grid = { i = { 1, 2, 3 } }, outputs = { "v" }, run = function(p) return { v = p.i } end }]])
  sweep_cmd(d, s)
  local path = d .. "/out/sweeps/torn.csv"
  local text = T.read_file(path)
  local cut = text:sub(1, #text - 12) -- the last row loses its end
  T.write_file(path, cut)
  local out, err = sweep_cmd(d, s)
  T.contains(err, "skipped a row")
  T.contains(out, "3 points (2 done before)")
  local r, count = rows_of(path)
  T.eq(#r.rows, 3)
  for _, c in pairs(count) do T.eq(c, 1) end
  T.eq(#r.bad, 1, "the cut line stays, marked bad")
end)

T.done()
