-- Figure 4 of O'Malley's thesis (DigiPen 2015, sec 7.2): fracture calculation time against nodes +
-- elements for the two criteria, separation tensor and plasticity-based, on a series of mesh sizes.
-- cleave's corotational solver on the ductile notched bar (experiments/papers/lib/omalley.lua says
-- what is timed), one thread, the mean over the frames of each run.
--
--   cleave run experiments/papers/omalley_fig4.lua [--set quick=true] [--set frames=N]
--
-- Writes out/papers/omalley_fig4.png (log-log, as the thesis's log fit suggests), .md and .csv, and
-- rewrites out/papers/report.md.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/lib/report.lua")
local M = dofile(here .. "/lib/omalley.lua")

local o = R.options {
  frames = { type = "integer", default = 60, range = { 1, 1e6 }, help = "frames per run (steps of 1/60 s)" },
}
local volumes = o.quick and { 2e-4, 8e-5 } or { 2e-4, 8e-5, 4e-5, 2e-5, 1e-5, 5e-6, 2.5e-6, 1.25e-6 }
local frames = o.quick and 3 or o.frames

local sec = R.section("omalley_fig4", o)
sec:text("Paper: Figure 4, \"Comparison of fracture calculation time by technique\", from a custom profiler on " ..
         "\"objects with varying number of elements and nodes\"; the figure is a chart whose values are not printed. " ..
         "What the text says of it: \"the blue, bottom line is for plasticity-based fracture and the red, top line is " ..
         "for separation tensor-based fracture\" (a log fit). Its FLOP estimate (sec 7.1, printed): separation tensor " ..
         "531 FLOPS per element and 303 per node per fracture calculation, plasticity-based 48 per element and 51 per " ..
         "node, so about 7-11x fewer.",
         string.format("Ours: the corotational solver on the ductile notched bar (experiments/scenes/corotational/" ..
         "notched_bar.lua, plastic with a capped flow so both criteria apply, a sharp V notch; separation_tensor toughness 1.5 N, " ..
         "plastic_excess 0.5), TetGen meshes of largest tet volume %s m^3, %d frames of 1/60 s each, one thread. " ..
         "Fracture calculation = the world's measure phase (F, stress, plastic strain per element) + the criterion's " ..
         "pass, ms per frame: the median over the frames (the mean is in the CSV; the first frame's one-time allocations and the frames where a node breaks are the outliers); topology (node replication) is apart, since it depends on whether a node broke.",
         table.concat((function() local t = {} for i, v in ipairs(volumes) do t[i] = string.format("%g", v) end return t end)(), ", "),
         frames))
local rows, series = {}, {}
for ci, c in ipairs(M.criteria) do
  series[ci] = { x = {}, y = {}, title = c.label, style = "linespoints", point = 7 }
end
local by_size = {}
for _, v in ipairs(volumes) do
  for ci, c in ipairs(M.criteria) do
    local a = M.run(c, v, frames)
    local size = a.nodes + a.tets
    sec:row { item = string.format("%s@%g", c.name, v), criterion = c.name, max_volume = v, nodes = a.nodes, tets = a.tets,
              nodes_plus_elements = size, fracture_calc_ms = a.fracture_calc, fracture_calc_mean_ms = a.fracture_calc_mean,
              measure_ms = a.measure,
              criteria_ms = a.criteria, topology_ms = a.topology, total_ms = a.total, pieces = a.pieces }
    rows[#rows + 1] = { c.label, string.format("%g", v), a.nodes, a.tets, size, a.fracture_calc, a.measure, a.criteria,
                        a.topology, a.total, a.pieces }
    local s = series[ci]
    s.x[#s.x + 1], s.y[#s.y + 1] = size, math.max(a.fracture_calc, 1e-6)
    by_size[v] = by_size[v] or {}
    by_size[v][c.name] = a
    print(string.format("%s, max_volume %g: %d nodes + %d tets, fracture calculation %.4f ms/frame", c.name, v, a.nodes,
                        a.tets, a.fracture_calc))
  end
end
sec:table({ "criterion", "max tet volume (m^3)", "nodes", "tets", "nodes + elements", "fracture calc. (ms)", "measure",
            "criterion", "topology", "frame total", "pieces" }, rows)

-- the shape: the ratio of the two criteria per size, and how each grows with the size (log-log slope)
local ratio = {}
for _, v in ipairs(volumes) do
  local st, pe = by_size[v].separation_tensor, by_size[v].plastic_excess
  ratio[#ratio + 1] = { st.nodes + st.tets, st.fracture_calc, pe.fracture_calc, st.fracture_calc / pe.fracture_calc,
                        st.criteria / math.max(pe.criteria, 1e-9) }
end
local function slope(s)
  local n, sx, sy, sxx, sxy = #s.x, 0, 0, 0, 0
  for i = 1, n do
    local x, y = math.log(s.x[i]), math.log(s.y[i])
    sx, sy, sxx, sxy = sx + x, sy + y, sxx + x * x, sxy + x * y
  end
  return (n * sxy - sx * sy) / (n * sxx - sx * sx)
end
sec:text("Separation tensor against plasticity-based, per mesh (the thesis's claim: the plasticity-based calculation is " ..
         "the cheaper one):")
sec:table({ "nodes + elements (separation-tensor run)", "separation tensor (ms)", "plasticity-based (ms)", "ratio",
            "ratio of the criterion passes alone" }, ratio)
sec:text(string.format("Growth with the size (least-squares slope of log time against log(nodes + elements)): separation " ..
                       "tensor %.2f, plasticity-based %.2f (1 = linear).", slope(series[1]), slope(series[2])))
if cl.plot.available() then
  local png = cl.plot.lines { series = series, logx = true, logy = true, key = "top left", size = { 900, 600 },
                              xlabel = "nodes + elements", ylabel = "fracture calculation, ms per frame",
                              title = "Fracture calculation time by criterion (corotational, ductile notched bar)",
                              output = o.out .. "/omalley_fig4.png" }
  sec:figure(png, "fracture calculation time against nodes + elements, both criteria")
end
sec:finish()
