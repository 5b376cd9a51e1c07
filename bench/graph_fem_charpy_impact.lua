-- The Charpy impact experiment's cost per step (issue 13, "Speed"; docs/BENCHMARKS.md "Graph-based
-- FEM"): the scene of experiments/graph_fem/charpy.lua (experiments/scenes/graph_fem/charpy.lua, its
-- defaults: 29k tets, corotated model with the warped tangent, galerkin_mg "50/all", 3 V-cycles per
-- step, contact with the hammer and the anvils) stepped `steps` times without output after `warmup`
-- steps. This is the run the paper's 152.5 fps (Table 1) refers to; the pulled bar of
-- `cleave bench graph_fem` is a stress test in which most elements are damaged.
--
-- Printed per step, median and mean over the timed steps: the wall and the process CPU time of the
-- step (CPU = all threads summed), the world's phases (wall) and graph_fem's split of its solve
-- phase (element pass, assembly, linear solves with their contact rounds), the linear iterations.
--   build/cleave run bench/graph_fem_charpy_impact.lua [--set threads=2] [--set steps=150]
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/../experiments/scenes/init.lua")
local sc = scenes.get("graph_fem/charpy")
-- the scene's own entry of a parameter this script passes on (one definition of its values)
local function scene_param(name)
  for _, e in ipairs(sc.params) do if e.name == name then return e end end
end
local o = cl.options {
  { name = "threads", type = "integer", default = 1, range = { 1, 1024 }, help = "OpenMP threads of the world" },
  { name = "steps", type = "integer", default = 150, range = { 1, 100000 },
    help = "timed steps (the experiment runs 250; the hammer touches at step ~50 and the crack runs to ~150)" },
  { name = "warmup", type = "integer", default = 3, range = { 0, 100000 }, help = "steps before the timed ones" },
  scene_param("mg_cycles"),
  scene_param("tangent"),
  scene_param("mg_smoother"),
  scene_param("contact_seed"),
  { name = "quick", type = "boolean", default = false, help = "the scene's coarse mesh, few steps (smoke test)" },
}
local now = require("cleave.progress").now
local summary = require "cleave.summary"

local over = { threads = o.threads, mg_cycles = o.mg_cycles, tangent = o.tangent, mg_smoother = o.mg_smoother,
               contact_seed = o.contact_seed }
local steps, warmup = o.steps, o.warmup
if o.quick then
  over.max_volume, over.dt = 2e-8, 5e-6
  steps, warmup = math.min(steps, 10), math.min(warmup, 1)
end
local built = sc:build(over)
local w, body = built.world, built.body
local info = body:info()
local f = io.open("/proc/loadavg")
local load = f and f:read("*l") or "?"
if f then f:close() end
print(string.format("Charpy impact (graph_fem): %d nodes, %d tets, %d threads; %d warm-up + %d timed steps; "
                    .. "load average at start: %s", info.nodes, info.units, o.threads, warmup, steps, load))

if warmup > 0 then w:step(warmup) end
local cols = { "wall", "cpu", "forces", "solve", "measure", "criteria", "topology", "element", "assembly", "linsolve",
               "iterations" }
local rows = {}
for _, c in ipairs(cols) do rows[c] = {} end
for k = 1, steps do
  local t0, c0 = now(), os.clock()
  w:step(1)
  local wall, cpu = (now() - t0) * 1e3, (os.clock() - c0) * 1e3
  local ph, st = w:stats().phase_ms, body:stats()
  local v = { wall = wall, cpu = cpu, forces = ph.forces, solve = ph.solve, measure = ph.measure,
              criteria = ph.criteria, topology = ph.topology, element = st.element_ms, assembly = st.assembly_ms,
              linsolve = st.solve_ms, iterations = st.iterations }
  for _, c in ipairs(cols) do rows[c][k] = v[c] end
end

print(string.format("  %-10s %9s %9s", "per step", "median", "mean"))
for _, c in ipairs(cols) do
  local unit = c == "iterations" and "" or " ms"
  print(string.format("  %-10s %9.2f %9.2f%s", c, summary.median(rows[c]), summary.mean(rows[c]), unit))
end
print(string.format("  fps (median wall): %.1f; pieces at the end: %d, broken edges %d", 1e3 / summary.median(rows.wall),
                    body:stats().pieces, body:stats().broken_edges))
