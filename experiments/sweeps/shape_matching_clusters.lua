-- How clustered shape matching's two main knobs trade stiffness and volume against cost, on the
-- tearing bar of Jones et al. (experiments/scenes/shape_matching/twisted_bar.lua,
-- twisted_bar_fracture): a Latin hypercube sample (seeded: the same points on every machine) of
-- the goal stiffness alpha and the cluster count k. Each point twists the bar for 4 s (240
-- frames) and measures the pieces it tore into, the volume change (particle volume probe) and the
-- wall-clock ms per frame.
--
--   cleave sweep experiments/sweeps/shape_matching_clusters.lua --jobs 2
--   cleave sweep experiments/sweeps/shape_matching_clusters.lua --quick   (2 points, a few frames)
--
-- Afterwards it writes, beside the results file (out/sweeps/shape_matching_clusters.csv):
--   shape_matching_clusters_pareto.png  |volume change| against ms per frame, points labelled by
--                                       alpha and k, the Pareto front in red
--   shape_matching_clusters_pieces.png  the pieces against k (the sample's points, one line)
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/../scenes/init.lua")

local sw = cl.sweep {
  name = "shape_matching_clusters",
  what = "pieces, volume change and cost of the tearing bar against alpha and the cluster count",
  scene = scenes.get("shape_matching/twisted_bar_fracture"),
  sample = { method = "lhs", n = 10, seed = 14,
             ranges = { alpha = { 0.3, 1 }, cluster_count = { 20, 120, integer = true } } },
  fixed = { frames = 240, particles = 3000 },
  outputs = { "pieces", "volume_change", "ms_per_frame", "steps" },
  quick = { sample = { method = "lhs", n = 2, seed = 14, ranges = { alpha = { 0.3, 1 }, cluster_count = { 20, 40, integer = true } } },
            fixed = { frames = 3, particles = 400 } },
  timeout = 1800,
}

local rows = sw:rows()
for _, r in ipairs(rows) do
  if r.status == "ok" then r.volume_error = math.abs(r.volume_change) end
end
if not cl.plot.available() then
  print("shape_matching_clusters: gnuplot is not installed: no figures")
  return
end
local base = sw.results:gsub("%.csv$", "")
local png, front = cl.sweep.pareto { rows = rows, params = sw.params, x = "ms_per_frame", y = "volume_error",
                                     output = base .. "_pareto.png", xlabel = "ms per frame",
                                     ylabel = "|volume change|", title = "shape matching, tearing bar: volume against cost" }
print(string.format("  %s (%d points on the front)", png, #front))
print("  " .. cl.sweep.lines { rows = rows, params = { "cluster_count" }, x = "cluster_count", y = "pieces",
                               output = base .. "_pieces.png", xlabel = "clusters k", ylabel = "pieces after 4 s",
                               title = "shape matching, tearing bar: pieces against the cluster count (alpha varies too)" })
