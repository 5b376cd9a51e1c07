-- The sweep runner's own cost (issue 14, docs/BENCHMARKS.md "Sweeps"):
--   * 64 trivial points (a 200-tet corotational cantilever, 30 frames, ~50 ms each): the share of
--     the wall time not spent inside the points, 1 - sum(point wall_s) / (jobs x sweep wall time),
--     where the sweep's wall time is that of the whole `cleave sweep` command (start-up, script,
--     forks, each child's set-up and exit, result pipes, locked appends, scheduling gaps: all of it
--     counts); and the share of the run loop in which a worker slot had no point process (the
--     runner's own work between points: 1 - "workers busy" of the summary line);
--   * 8 points of a few seconds (a 4,900-tet twisted bar, 100 frames, one thread each): the wall time
--     of `cleave sweep --jobs 2` over that of `--jobs 1`.
-- Each measurement runs `runs` times, the --jobs 1 and --jobs 2 runs alternating; medians are printed
-- with the load average around each run and the machine (lscpu).
--   build/cleave run bench/sweep_runner.lua [--set runs=5] [--set quick=true]
local cl = require "cleave"
local o = cl.options {
  { name = "runs", type = "integer", default = 3, range = { 1, 100 }, help = "repetitions of each measurement" },
  { name = "quick", type = "boolean", default = false, help = "one short run of each (the ctest smoke test)" },
  { name = "dir", type = "string", default = "out/bench_sweep", help = "scratch folder" },
}
local output = cl.output
local q = output.shell_quote
local exe = arg[-1]
local now = require("cleave.progress").now
local runs = o.quick and 1 or o.runs
io.stdout:setvbuf("line")
output.mkdir(o.dir)

local function write(name, text) local p = o.dir .. "/" .. name output.write_atomic(p, text) return p end
local function loadavg()
  local f = io.open("/proc/loadavg")
  local s = f and f:read("*l") or "?"
  if f then f:close() end
  return s:match("^(%S+ %S+ %S+)") or s
end

local trivial = write("trivial.lua", string.format([[
local cl = require "cleave"
local mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { max_volume = 5e-5 }
local pts = {}
for i = 1, %d do pts[i] = i end
cl.sweep { name = "trivial", grid = { i = pts }, outputs = { "tip" },
  run = function(p)
    local w = cl.world { dt = 1 / 60, threads = 1 }
    local b = w:body { mesh = mesh, solver = "corotational", material = { young = 1e5 * (1 + p.i / 100) } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
    w:step(%d)
    local x = b:positions()
    return { tip = x[#x][2] }
  end }
]], o.quick and 8 or 64, o.quick and 3 or 30))

local seconds = write("seconds.lua", string.format([[
local cl = require "cleave"
cl.sweep { name = "seconds", grid = { young = { 1e5, 1.2e5, 1.4e5, 1.6e5, 1.8e5, 2e5, 2.2e5, 2.4e5 } }, outputs = { "tip" },
  run = function(p)
    local w = cl.world { dt = 1 / 60, threads = 1 }
    local b = w:body { mesh = cl.shape.box { size = { 0.8, 0.1, 0.1 } }:tetrahedralize { max_volume = %g },
                       solver = "corotational", material = { young = p.young } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.38 })
    w:step(%d)
    local x = b:positions()
    return { tip = x[#x][2] }
  end }
]], o.quick and 1e-4 or 4e-6, o.quick and 3 or 100))

-- One `cleave sweep` from scratch: its wall time (s), the points' summed wall_s, the load before/after.
local function run(script, jobs)
  local results = o.dir .. "/" .. output.basename(script):gsub("%.lua$", "") .. "-j" .. jobs .. ".csv"
  os.remove(results)
  local before = loadavg()
  local t0 = now()
  local ok = output.execute_ok(q(exe) .. " sweep " .. q(script) .. " --jobs " .. jobs .. " --threads 1 --results "
                               .. q(results) .. " > " .. q(o.dir .. "/last.out") .. " 2>&1")
  local wall = now() - t0
  if not ok then error("cleave sweep failed: see " .. o.dir .. "/last.out") end
  local f = io.open(o.dir .. "/last.out")
  local text = f:read("*a")
  f:close()
  local busy = tonumber(text:match("workers busy ([%d%.]+) %%"))
  local r = cl.sweep.read(results)
  local inside = 0
  for _, row in ipairs(r.rows) do
    if row.status ~= "ok" then error("a point failed: " .. tostring(row.message)) end
    inside = inside + row.wall_s
  end
  return { wall = wall, inside = inside, points = #r.rows, load = before .. " -> " .. loadavg(), busy = busy }
end

local median = require("cleave.summary").median

local p = io.popen("lscpu 2>/dev/null | grep -E '^(Model name|CPU\\(s\\)|Thread|Core)'")
local machine = p and p:read("*a") or ""
if p then p:close() end
print("machine:\n" .. machine:gsub("%s+$", ""):gsub("\n", "\n  "):gsub("^", "  "))
print(string.format("cleave %s (git %s), %d run(s) of each", cl.version, cl.git_revision, runs))

local share, own = { [1] = {}, [2] = {} }, { [1] = {}, [2] = {} }
for r = 1, runs do
  for _, jobs in ipairs(r % 2 == 1 and { 1, 2 } or { 2, 1 }) do
    local m = run(trivial, jobs)
    local s = 1 - m.inside / (jobs * m.wall)
    share[jobs][#share[jobs] + 1] = s
    own[jobs][#own[jobs] + 1] = 1 - m.busy / 100
    print(string.format("trivial  run %d  --jobs %d: %d points, %.2f s wall, %.2f s inside points: outside the points %.1f %%, "
                        .. "workers idle %.1f %% of the run loop  (load %s)", r, jobs, m.points, m.wall, m.inside, 100 * s,
                        100 - m.busy, m.load))
  end
end
local t = { [1] = {}, [2] = {} }
for r = 1, runs do
  for _, jobs in ipairs(r % 2 == 1 and { 1, 2 } or { 2, 1 }) do
    local m = run(seconds, jobs)
    t[jobs][#t[jobs] + 1] = m.wall
    print(string.format("seconds  run %d  --jobs %d: %d points, %.2f s wall, %.2f s inside points (load %s)", r, jobs,
                        m.points, m.wall, m.inside, m.load))
  end
end
print(string.format("median share of the wall time outside the points, 64 trivial points: %.1f %% (--jobs 1), %.1f %% (--jobs 2)",
                    100 * median(share[1]), 100 * median(share[2])))
print(string.format("median share of the run loop with a worker slot idle (runner's own work): %.1f %% (--jobs 1), %.1f %% (--jobs 2)",
                    100 * median(own[1]), 100 * median(own[2])))
print(string.format("median wall of 8 points of seconds: %.2f s (--jobs 1), %.2f s (--jobs 2): ratio %.2f",
                    median(t[1]), median(t[2]), median(t[2]) / median(t[1])))
