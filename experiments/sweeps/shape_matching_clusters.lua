-- How clustered shape matching's two main knobs trade stiffness and volume against cost, on the
-- tearing bar of Jones et al. (experiments/scenes/shape_matching/twisted_bar.lua,
-- twisted_bar_fracture): a Latin hypercube sample (seeded: the same points on every machine) of
-- the goal stiffness alpha and the cluster count k. Each point twists the bar for 10 s (600
-- frames) and measures the cluster splits (fractures), the clusters and pieces after them (pieces
-- holding clusters, the authors' count), the volume change and the wall-clock ms per frame.
--
--   cleave sweep experiments/sweeps/shape_matching_clusters.lua --jobs 2
--   cleave sweep experiments/sweeps/shape_matching_clusters.lua --quick   (2 points, a few frames)
--
-- Afterwards it writes, beside the results file (out/sweeps/shape_matching_clusters.csv):
--   shape_matching_clusters_pareto.png  |volume change| against ms per frame, points labelled by
--                                       alpha and k, the Pareto front in red
--   shape_matching_clusters_fractures.png  the cluster splits against k (the sample's points, one line)
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/../scenes/init.lua")

local sw = cl.sweep {
  name = "shape_matching_clusters",
  what = "pieces, volume change and cost of the tearing bar against alpha and the cluster count",
  scene = scenes.get("shape_matching/twisted_bar_fracture"),
  sample = { method = "lhs", n = 10, seed = 14,
             ranges = { alpha = { 0.3, 1 }, cluster_count = { 20, 120, integer = true } } },
  fixed = { frames = 600, particles = 3000 },
  outputs = { "fractures", "clusters", "pieces", "volume_change", "ms_per_frame" },
  measure = function(built)
    local volume = built.world:probe(cl.probe.volume(built.body))
    local v0 = volume:read()
    local _, ms = cl.sweep.run_frames(built)
    local st = built.body:stats()
    return { fractures = st.fractures, clusters = st.clusters, pieces = st.cluster_pieces,
             volume_change = volume:read() / v0 - 1, ms_per_frame = ms }
  end,
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
print("  " .. cl.sweep.lines { rows = rows, params = { "cluster_count" }, x = "cluster_count", y = "fractures",
                               output = base .. "_fractures.png", xlabel = "clusters k", ylabel = "cluster splits in 10 s",
                               title = "shape matching, tearing bar: fractures against the cluster count (alpha varies too)" })
