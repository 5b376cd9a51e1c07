-- Side by side: the authors' implementation of Jones et al., "Ductile Fracture for Clustered Shape
-- Matching" (I3D 2016), and cleave's shape_matching, on the paper's scenes, in one sitting on one
-- machine, with the same particle counts, clusters, strain-limiting iterations and frames (issue 17).
-- Prints, per scene, both outcomes (pieces, particles and memberships at the end) and both frame
-- times (median and mean), and the ratios measured in this run.
--
--   cleave run scripts/sm_side_by_side.lua --set authors=PATH --set checkout=DIR
--       [--set frames=240] [--set only=plate_brittle_weak] [--set out=FILE] [--set threads=1]
--       [--set params=proxy_whole=true,seed=2]   (scene parameters for cleave's side)
--
-- authors  = an executable YOU built from the authors' code (it is not fetched, built or shipped
--            here, and this script is not run in CI). It is run from `checkout` (their source tree,
--            so the relative particle-file paths of their scene files resolve) as
--              PATH <scene.json> <frames>
--            on one thread, and must print, on stdout or stderr, one line
--              RESULT ... particles N clusters N memberships N pieces N ... median_ms X mean_ms Y
--            (the key-value pairs in any order; pieces = clusters joined by shared particles after
--            the last frame, the count their code implies since it deletes particles left in no
--            cluster; median_ms / mean_ms over the frames' World::timestep calls, wall clock).
--            Optional: pieces1pct N (the pieces holding at least 1 % of the particles) and
--            cpu_median_ms X cpu_mean_ms Y (the calling thread's CPU time per timestep call); with
--            them the table has those columns too. On a machine other jobs share, the CPU times are
--            the fairer comparison: a frame's wall time includes the waits for a core.
-- checkout = their source tree at commit e53fde1 (the I3D 2016 state); the scene files are read
--            from checkout/inputFiles. The 5k plates run their plate files with the 5,325-particle
--            sheet (a copy of the scene file in a temporary folder names inputFiles/blue_noise/
--            sheet-bn.txt instead of sheetDense-bn.txt); the 20k ductile plate runs it as it is.
--
-- threads  = cleave's threads (default 1). The authors' code has one thread (no OpenMP or TBB at
--            e53fde1), so threads=1 gives the ratio per thread, the CPU columns being the fair ones on
--            a shared machine; threads=2 on a 2-core machine gives what a user of either program gets
--            there: read the wall-clock columns (measured on a quiet machine), since the CPU time
--            then sums both threads.
--
-- cleave's side builds the same scene (experiments/scenes/shape_matching/) with `threads` threads
-- and times every frame's cl_world_step (world:stats().step_ms; CPU: os.clock() around
-- world:step, the process's CPU time, all its threads).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/../experiments/scenes/init.lua")

local list = {
  { "plate_ductile", "projectilePlateDuctileStrong.json", true },
  { "plate_ductile_20k", "projectilePlateDuctileStrong.json", false },
  { "plate_brittle_strong", "projectilePlateBrittleStrong.json", true },
  { "plate_brittle_weak", "projectilePlateBrittleWeak.json", true },
  { "armadillo", "armadilloTorture.json", false },
  { "broken_heart", "brokenHeart.json", false },
  { "swiss_cheese", "swissCheese.json", false },
  { "twisted_bar", "cubeTwistPlastic2.json", false },
  { "twisted_bar_fracture", "cubeTwistPlasticFracture.json", false },
}
local names = {}
for i, e in ipairs(list) do names[i] = e[1] end
local set = cl.options {
  { name = "authors", type = "string", required = true, help = "the executable you built from the authors' code (see the head of this file)" },
  { name = "checkout", type = "string", required = true, help = "their source tree (commit e53fde1)" },
  { name = "frames", type = "integer", default = 240, range = { 1, 1e6 }, help = "frames of 1/60 s" },
  { name = "threads", type = "integer", default = 1, range = { 1, 256 }, help = "cleave's threads" },
  { name = "only", type = "enum", values = names, help = "run only this scene" },
  { name = "out", type = "string", help = "also write the table to this file" },
  { name = "params", type = "string", help = "scene parameters for cleave's side: k=v,k=v" },
}
local authors, checkout, frames, threads = set.authors, set.checkout, set.frames, set.threads

local function shell_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local tmp = os.tmpname()
os.remove(tmp)
os.execute("mkdir -p " .. shell_quote(tmp))

-- The scene file to give their program: as it is, or a copy naming the 5k sheet.
local function scene_file(json, sheet5k)
  local path = checkout .. "/inputFiles/" .. json
  if not sheet5k then return path end
  local f = assert(io.open(path, "r"), "cannot read " .. path)
  local text = f:read("*a")
  f:close()
  local copy = tmp .. "/" .. json
  local g = assert(io.open(copy, "w"))
  g:write((text:gsub("sheetDense%-bn%.txt", "sheet-bn.txt")))
  g:close()
  return copy
end

local function run_authors(json, sheet5k)
  local cmd = string.format("cd %s && %s %s %d 2>&1", shell_quote(checkout), shell_quote(authors),
                            shell_quote(scene_file(json, sheet5k)), frames)
  local p = assert(io.popen(cmd, "r"))
  local res
  for line in p:lines() do
    if line:match("^RESULT") then res = line end
  end
  p:close()
  if not res then return nil end
  local r = {}
  for k, v in res:gmatch("(%S+) (%-?[%d%.eE%+%-]+)") do r[k] = tonumber(v) end
  return r
end

local median = require("cleave.summary").median

-- --set params=k=v,k=v: scene parameters for cleave's side (numbers and true/false converted)
local overrides = {}
for k, v in tostring(set.params or ""):gmatch("([%w_]+)=([^,]+)") do
  if v == "true" then overrides[k] = true elseif v == "false" then overrides[k] = false
  else overrides[k] = tonumber(v) or v end
end

local function run_cleave(name)
  local p = { threads = threads }
  for k, v in pairs(overrides) do p[k] = v end
  local built = scenes.get("shape_matching/" .. name):build(p)
  local w, b = built.world, built.body
  local ms, cpu, sum, csum = {}, {}, 0, 0
  for f = 1, frames do
    local c0 = os.clock()
    w:step(1)
    cpu[f] = 1e3 * (os.clock() - c0)
    ms[f] = w:stats().step_ms
    sum, csum = sum + ms[f], csum + cpu[f]
  end
  local st, info = b:stats(), b:info()
  -- pieces of at least 1 % of the particles in clusters (debris excluded), as the authors' driver counts them
  local labels, n = b:piece_labels("cdata")
  local size = {}
  for i = 0, n - 1 do size[labels[i]] = (size[labels[i]] or 0) + 1 end
  local big = 0
  for _, c in pairs(size) do if c >= 0.01 * (info.nodes - st.debris) then big = big + 1 end end
  local r = { particles = info.nodes - st.debris, clusters = st.clusters, memberships = st.memberships,
              pieces = st.cluster_pieces, pieces1pct = big, median_ms = median(ms), mean_ms = sum / frames,
              cpu_median_ms = median(cpu), cpu_mean_ms = csum / frames }
  built.world:destroy()
  return r
end

local lines = {}
local function out(s)
  print(s)
  lines[#lines + 1] = s
end

local load = io.open("/proc/loadavg")
out(string.format("# %d frames of 1/60 s; threads: the authors' program 1, cleave %d%s; cleave's scene parameters: %s; " ..
                  "load average at the start: %s", frames, threads,
                  threads > 1 and " (its CPU times sum all its threads: compare wall times)" or "",
                  set.params or "defaults", load and load:read("*l") or "?"))
if load then load:close() end
out("| scene | pieces (authors / cleave) | pieces >= 1 % | particles at the end | memberships at the end | " ..
    string.format("authors ms median / mean (1 thread) | cleave ms median / mean (%d thread%s) | speed-up median / mean | " ..
    "authors CPU ms median / mean | cleave CPU ms median / mean | CPU speed-up median / mean |", threads,
    threads > 1 and "s" or ""))
out("|---|---|---|---|---|---|---|---|---|---|---|")
local function num(v) return v or 0 / 0 end
for _, e in ipairs(list) do
  local name, json, sheet5k = e[1], e[2], e[3]
  if not set.only or set.only == name then
    local a = run_authors(json, sheet5k)
    local c = run_cleave(name)
    if not a then
      out(string.format("| %s | (the authors' program printed no RESULT line) | | | | | %.2f / %.2f | | | %.2f / %.2f | |",
                        name, c.median_ms, c.mean_ms, c.cpu_median_ms, c.cpu_mean_ms))
    else
      out(string.format("| %s | %d / %d | %s / %d | %d / %d | %d / %d | %.2f / %.2f | %.2f / %.2f | %.1fx / %.1fx | " ..
        "%.2f / %.2f | %.2f / %.2f | %.1fx / %.1fx |", name,
        a.pieces or -1, c.pieces, a.pieces1pct and string.format("%d", a.pieces1pct) or "?", c.pieces1pct,
        a.particles or -1, c.particles, a.memberships or -1, c.memberships,
        num(a.median_ms), num(a.mean_ms), c.median_ms, c.mean_ms, num(a.median_ms) / c.median_ms,
        num(a.mean_ms) / c.mean_ms, num(a.cpu_median_ms), num(a.cpu_mean_ms), c.cpu_median_ms, c.cpu_mean_ms,
        num(a.cpu_median_ms) / c.cpu_median_ms, num(a.cpu_mean_ms) / c.cpu_mean_ms))
    end
    io.stdout:flush()
  end
end
os.execute("rm -rf " .. shell_quote(tmp))
if set.out then
  local f = assert(io.open(set.out, "w"))
  f:write(table.concat(lines, "\n"), "\n")
  f:close()
end
