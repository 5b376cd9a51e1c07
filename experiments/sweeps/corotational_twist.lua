-- Accuracy against cost of the corotational solver on the twisted bar (experiments/scenes/
-- corotational/twisted_bar.lua): the tet size and the linear solver, swept over a grid. Each point
-- twists the plastic bar for 150 frames (the end turns half a turn in 2 s, then is held) and
-- measures the twist of its middle section (|x| < 5 cm), the volume change and the wall-clock ms per frame (one
-- OpenMP thread per worker unless --threads says otherwise).
--
--   cleave sweep experiments/sweeps/corotational_twist.lua --jobs 2     (kill it, run it again: it resumes)
--   cleave sweep experiments/sweeps/corotational_twist.lua --emit slurm  (or parallel)
--   cleave sweep experiments/sweeps/corotational_twist.lua --quick      (the smoke test: 2 points, 3 frames)
--
-- Afterwards it writes, beside the results file (out/sweeps/corotational_twist.csv):
--   corotational_twist_pareto.png  the error of the mid-section twist against ms per frame, each point
--                                  labelled by its linear solver and tet size, the Pareto front in red;
--                                  the error is against the finest point with CHOLMOD (the reference: the
--                                  finest mesh of the grid, not a solution known to be converged; the
--                                  printed table shows how far the twist still moves between sizes)
--   corotational_twist_cost.png    ms per frame against the tet size, one line per linear solver
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/../scenes/init.lua")

-- Rotation (rad) about x of the section |x| < half at rest: the mean over its nodes of the angle
-- from each node's rest offset (y, z) to its offset now, both from the section's centre.
local function section_twist(body, half)
  local X, x = body:rest_positions(), body:positions()
  local idx, cy, cz, ry, rz = {}, 0, 0, 0, 0
  for i, p in ipairs(X) do
    if math.abs(p[1]) < half then
      idx[#idx + 1] = i
      cy, cz, ry, rz = cy + x[i][2], cz + x[i][3], ry + p[2], rz + p[3]
    end
  end
  local n = #idx
  cy, cz, ry, rz = cy / n, cz / n, ry / n, rz / n
  local sum, w = 0, 0
  for _, i in ipairs(idx) do
    local Y, Z = X[i][2] - ry, X[i][3] - rz
    local y, z = x[i][2] - cy, x[i][3] - cz
    local r2 = Y * Y + Z * Z
    if r2 > 1e-8 then
      sum = sum + r2 * math.atan2(Y * z - Z * y, Y * y + Z * z)
      w = w + r2
    end
  end
  return sum / w
end

local sw = cl.sweep {
  name = "corotational_twist",
  what = "mid-section twist, volume change and cost of the corotational twisted bar against tet size and linear solver",
  scene = scenes.get("corotational/twisted_bar"),
  grid = { max_volume = { 2e-5, 1e-5, 5e-6, 2.5e-6, 1.25e-6 }, linear_solver = { "pcg", "cholmod" } },
  fixed = { frames = 150 },
  outputs = { "mid_twist", "volume_change", "ms_per_frame", "tets" },
  measure = function(built)
    local vol = built.world:probe(cl.probe.volume(built.body))
    local v0 = vol:read()
    local _, ms = cl.sweep.run_frames(built)
    return { mid_twist = section_twist(built.body, 0.05), volume_change = vol:read() / v0 - 1, ms_per_frame = ms,
             tets = built.body:info().units }
  end,
  quick = { grid = { max_volume = { 2e-5 }, linear_solver = { "pcg", "cholmod" } }, fixed = { frames = 3 } },
  timeout = 1800,
}

-- The error of each point's mid-section twist against the reference: the finest point with CHOLMOD.
local rows = sw:rows()
local ref
for _, r in ipairs(rows) do
  if r.status == "ok" and r.linear_solver == "cholmod" and (not ref or r.max_volume < ref.max_volume) then ref = r end
end
if not ref then
  print("corotational_twist: no finished CHOLMOD point to compare against yet; run the sweep again")
  return
end
local compared = {}
for _, r in ipairs(rows) do
  if r.status == "ok" and r ~= ref then
    r.twist_error = math.abs(r.mid_twist - ref.mid_twist)
    compared[#compared + 1] = r
  end
end
print(string.format("reference: max_volume %g m^3 (%d tets) with CHOLMOD: mid-section twist %.5f rad, volume change %.3g",
                    ref.max_volume, ref.tets, ref.mid_twist, ref.volume_change))
for _, r in ipairs(compared) do
  print(string.format("  max_volume %-8g %-8s %6d tets  twist %.5f rad (error %.2e)  %7.2f ms/frame", r.max_volume,
                      r.linear_solver, r.tets, r.mid_twist, r.twist_error, r.ms_per_frame))
end
if not cl.plot.available() then
  print("corotational_twist: gnuplot is not installed: no figures")
  return
end
local base = sw.results:gsub("%.csv$", "")
if #compared > 0 then
  local png, front = cl.sweep.pareto { rows = compared, params = sw.params, x = "ms_per_frame", y = "twist_error",
                                       output = base .. "_pareto.png", xlabel = "ms per frame",
                                       ylabel = "|mid-section twist - reference| (rad)",
                                       title = "corotational twisted bar: accuracy against cost" }
  print(string.format("  %s (%d points on the front)", png, #front))
end
print("  " .. sw:lines { x = "max_volume", y = "ms_per_frame", by = "linear_solver", logx = true,
                         commands = { "set format x '%.0e'" },
                         output = base .. "_cost.png", xlabel = "largest tet volume (m^3)", ylabel = "ms per frame",
                         title = "corotational twisted bar: cost per frame" })
