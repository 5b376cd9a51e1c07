-- The graph-FEM accuracy-against-speed sweep behind the volume-gain study (issue 13, Table 2 of
-- Mandal et al. GRAPP 2025; validation/volume_gain.lua runs it and checks it): the hanging sphere
-- (experiments/scenes/graph_fem/hanging_sphere.lua: radius 0.1 m, 36k tets, nu = 0.48, density
-- 1000 kg/m^3, held within 1 cm of its top, one step of 1/60 s per frame, no damping) at two
-- stiffnesses, E = 1e5 Pa (the independent corotational implementation's setting: a sag strain of
-- about 1 %) and E = 5e3 Pa (soft: strains of tens of per cent, where the models part), run by
--   graph_fem with the paper's Galerkin multigrid in fixed-cycle mode (Algorithm 2): grid specs
--     50/all, 200/all, 50/1000/all with 1 and 3 V-cycles per step, 50/all with 10; the paper's own
--     smoothing (3 + 3 Gauss-Seidel sweeps, 20 CG iterations at the coarsest level); the warped
--     tangent (tangent = warped) alone, with the paper's smoothing and with 1 + 1 sweeps and the CG
--     coarse solve; the lagged tangent (tangent_every = 30: the step matrix and the multigrid's set-up
--     kept up to 30 steps, the forces exact every step) with the default smoothing and with the
--     cheapest (warped, 1 + 1 sweeps, CG coarse); all stable Neo-Hookean;
--   graph_fem converged (the multigrid as CG preconditioner to 1e-6) for each material model:
--     corotated (corotational linear), stvk (St. Venant-Kirchhoff), stable_neohookean, and each
--     model with one fixed V-cycle of 50/all;
--   the corotational solver (stiffness warping, CHOLMOD-preconditioned CG to 1e-6).
-- Each point runs 90 frames (1.5 s) and measures the volume gain (V - V_rest) / V_rest every frame:
-- its largest value, its smallest, the largest |change| (the "volume error" of the Pareto plot, the
-- paper's "vol. gain") and the mean over the last 15 frames (the steady state; the sphere has
-- settled by then: backward Euler damps its sag oscillation within a few periods), the CPU ms per
-- frame (one OpenMP thread per worker with --jobs 2: the process CPU time, which a loaded machine
-- does not inflate as it does the wall clock) and the wall-clock ms per frame.
--
--   cleave sweep experiments/sweeps/graph_fem_volume.lua --jobs 2    (kill it, run it again: it resumes)
--   cleave sweep experiments/sweeps/graph_fem_volume.lua --quick     (the smoke test: 4 points, 5 frames)
--
-- Afterwards it writes, beside the results file (out/sweeps/graph_fem_volume.csv):
--   graph_fem_volume_table.md      the Table 2 analog (markdown), one row per setting and E
--   graph_fem_volume_pareto.png    largest |volume change| against CPU ms per frame at E = 1e5 and
--                                  5e3 Pa, the Pareto front of each in red, the paper's two sphere
--                                  points (GPU, 19 % at 8.4 ms and 11 % at 42 ms per frame) for scale
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/../scenes/init.lua")
local G = dofile(here .. "/../scenes/graph_fem/common_volume.lua")

local FRAMES, TAIL = 90, 15

-- The settings of the study: each is a named set of scene parameters; the points are every
-- setting at each E.
local settings = {}
local function setting(label, p) settings[#settings + 1] = { label = label, p = p } end
for _, grid in ipairs { "50/all", "200/all", "50/1000/all" } do
  for _, cycles in ipairs { 1, 3 } do
    setting(string.format("mg %s, %d V-cycle%s", grid, cycles, cycles > 1 and "s" or ""),
            { grid = grid, mg_cycles = cycles })
  end
end
setting("mg 50/all, 10 V-cycles", { grid = "50/all", mg_cycles = 10 })
setting("mg 50/all, 1 V-cycle, paper's smoothing (GS 3+3, coarse CG)",
        { grid = "50/all", mg_cycles = 1, mg_sweeps = 3, mg_coarse = "cg" })
setting("mg 50/all, 1 V-cycle, warped tangent", { grid = "50/all", mg_cycles = 1, tangent = "warped" })
setting("mg 50/all, 1 V-cycle, warped, the paper's smoothing",
        { grid = "50/all", mg_cycles = 1, tangent = "warped", mg_sweeps = 3, mg_coarse = "cg" })
setting("mg 50/all, 1 V-cycle, warped, GS 1+1, coarse CG",
        { grid = "50/all", mg_cycles = 1, tangent = "warped", mg_sweeps = 1, mg_coarse = "cg" })
-- the lagged tangent (docs/solvers/graph_fem.md): a fresh step matrix every 30 steps at most (and
-- whenever an element's F moved 0.1 from the matrix's), the forces exact every step
setting("mg 50/all, 1 V-cycle, tangent every 30 steps", { grid = "50/all", mg_cycles = 1, tangent_every = 30 })
setting("mg 50/all, 1 V-cycle, warped, GS 1+1, coarse CG, tangent every 30 steps",
        { grid = "50/all", mg_cycles = 1, tangent = "warped", mg_sweeps = 1, mg_coarse = "cg", tangent_every = 30 })
local lagged = #settings
for _, model in ipairs { "corotated", "stvk", "stable_neohookean" } do
  if model ~= "stable_neohookean" then
    setting(string.format("%s, mg 50/all, 1 V-cycle", model), { model = model, grid = "50/all", mg_cycles = 1 })
  end
  setting(string.format("%s, converged", model), { model = model, mg_mode = "pcg" })
end
setting("corotational solver, converged", { solver = "corotational", linear_solver = "cholmod" })

local DEFAULTS = { model = "stable_neohookean", tangent = "model", mg_mode = "fixed", grid = "50/all", mg_cycles = 1,
                   mg_sweeps = 2, mg_coarse = "cholmod", solver = "graph_fem", linear_solver = "galerkin_mg",
                   tangent_every = 1 }
local function point(s, young)
  local pt = { young = young }
  for k, v in pairs(DEFAULTS) do pt[k] = v end
  for k, v in pairs(s.p) do pt[k] = v end
  return pt
end
local points = {}
for _, young in ipairs { 1e5, 5e3 } do
  for _, s in ipairs(settings) do points[#points + 1] = point(s, young) end
end
local quick_points = { point(settings[1], 1e5), point(settings[lagged], 1e5), point(settings[#settings - 1], 1e5),
                       point(settings[#settings], 1e5) }

-- The label of a row: the setting whose parameters it has.
local function label_of(r)
  for _, s in ipairs(settings) do
    local p, same = point(s, r.young), true
    for k, v in pairs(p) do same = same and r[k] == v end
    if same then return s.label end
  end
  return "?"
end

local sw = cl.sweep {
  name = "graph_fem_volume",
  what = "volume gain and cost of the hanging sphere (nu = 0.48) across multigrid settings, models and solvers",
  scene = scenes.get("graph_fem/hanging_sphere"),
  points = points,
  fixed = { frames = FRAMES },
  outputs = { "gain_max", "gain_min", "gain_abs", "gain_steady", "cpu_ms_per_frame", "ms_per_frame", "iterations",
              "tets", "cap_y" },
  measure = function(built, p)
    local body = built.body
    local vol = built.world:probe(cl.probe.volume(body))
    local v0 = vol:read()
    local series = {}
    local c0 = os.clock()
    local wall0 = require("cleave.process").now()
    for f = 1, p.frames do
      built.world:step(1)
      series[f] = vol:read()
    end
    local wall = 1000 * (require("cleave.process").now() - wall0)
    local cpu = 1000 * (os.clock() - c0) / p.frames
    local g = G.volume_gain(series, v0, math.min(TAIL, p.frames))
    -- the mean rest height of the held nodes: where the reaction acts (the linear estimate's lever)
    local sum, n = 0, 0
    for _, x in ipairs(body:rest_positions()) do
      if x[2] > p.radius - p.hold then sum, n = sum + x[2], n + 1 end
    end
    local st = body:stats()
    return { gain_max = g.max, gain_min = g.min, gain_abs = g.abs, gain_steady = g.steady, cpu_ms_per_frame = cpu,
             ms_per_frame = wall / p.frames, iterations = st.iterations or st.cg_iterations or 0,
             tets = body:info().units, cap_y = sum / n }
  end,
  quick = { points = quick_points, fixed = { frames = 5, subdivisions = 2, max_volume = 2e-5 } },
  timeout = 3600,
}

-- ---- the table and the figure ----------------------------------------------------------------------
local rows, ok = sw:rows(), {}
for _, r in ipairs(rows) do
  r.label = label_of(r)
  if r.status == "ok" then ok[#ok + 1] = r end
end
local function pct(x) return x and string.format("%+.3f %%", 100 * x) or "-" end
local base = sw.results:gsub("%.csv$", "")

-- The linear estimate of the steady volume change (the virial theorem: the integral of tr(sigma)
-- over the body is the reaction M g times the height it acts at, y_cap, since the centre of mass is
-- at y = 0; tr(eps) = (1 - 2 nu) tr(sigma) / E): dV / V = (1 - 2 nu) rho g y_cap / E. First order in
-- the strain; the models' second-order terms are of the size of strain^2.
local defaults = {}
for _, e in ipairs(scenes.get("graph_fem/hanging_sphere").params) do defaults[e.name] = e.default end
local function linear_estimate(r)
  local nu, rho, g = defaults.poisson, defaults.density, defaults.gravity
  return (1 - 2 * nu) * rho * g * r.cap_y / r.young
end

local lines = {
  "# Volume gain of the hanging sphere (Table 2 analog)", "",
  string.format("cleave %s (git %s), `cleave sweep experiments/sweeps/graph_fem_volume.lua`%s; results %s.",
                cl.version, cl.git_revision, sw.quick and " --quick" or "", sw.results),
  string.format("Sphere radius 0.1 m, %s tets, nu = 0.48, density 1000 kg/m^3, held within 1 cm of the top, dt = 1/60 s, "
                .. "%d frames, no damping. Volume gain = (V - V_rest) / V_rest; largest |change| over the run; steady = "
                .. "mean over the last %d frames. CPU ms per frame with one thread (process CPU time).",
                ok[1] and tostring(ok[1].tets) or "?", sw.quick and 5 or FRAMES, TAIL), "",
  "| E (Pa) | setting | largest gain | smallest | largest abs change | steady | linear estimate | CPU ms/frame | wall ms/frame | iterations (last step) |",
  "|---|---|---|---|---|---|---|---|---|---|",
}
for _, r in ipairs(rows) do
  if r.status == "ok" then
    lines[#lines + 1] = string.format("| %g | %s | %s | %s | %.3f %% | %s | %s | %.1f | %.1f | %d |", r.young, r.label,
                                      pct(r.gain_max), pct(r.gain_min), 100 * r.gain_abs, pct(r.gain_steady),
                                      pct(linear_estimate(r)), r.cpu_ms_per_frame, r.ms_per_frame, r.iterations)
  else
    lines[#lines + 1] = string.format("| %g | %s | %s: %s | | | | | | | |", r.young, r.label, r.status,
                                      tostring(r.message or ""):gsub("|", "/"):sub(1, 120))
  end
end
lines[#lines + 1] = ""
lines[#lines + 1] = "Paper (Mandal et al. 2025, Table 2; mesh, E and time step not given): co-rotational FEM 85 %, "
  .. "invertible Neo-Hookean 3.2 %, invertible StVK 10.7 %, stable Neo-Hookean 4.3 %, its multigrid 19 % "
  .. "(118.7 fps on an RTX 2060; 11 % at 23.8 fps with more iterations)."
local md = base .. "_table.md"
local f = assert(io.open(md, "w"))
f:write(table.concat(lines, "\n"), "\n")
f:close()
print(table.concat(lines, "\n"))
print("  " .. md)

local fronts = {}
if cl.plot.available() and #ok > 0 then
  local series = {}
  local colors = { [1e5] = "#2c7fb8", [5e3] = "#41ab5d" }
  for _, young in ipairs { 1e5, 5e3 } do
    local pts = {}
    for _, r in ipairs(ok) do
      if r.young == young and r.gain_abs > 0 then
        pts[#pts + 1] = { x = r.cpu_ms_per_frame, y = 100 * r.gain_abs, label = r.label, row = r }
      end
    end
    if #pts > 0 then
      local ax, ay, fx, fy = {}, {}, {}, {}
      for i, p in ipairs(pts) do ax[i], ay[i] = p.x, p.y end
      local front = cl.sweep.front(pts)
      fronts[young] = front
      for i, p in ipairs(front) do fx[i], fy[i] = p.x, p.y end
      local fl = {}
      for i, p in ipairs(front) do fl[i] = p.label end
      series[#series + 1] = { x = ax, y = ay, style = "points", point = 7, color = colors[young],
                              title = string.format("E = %g Pa (%d settings; the table names them)", young, #pts) }
      series[#series + 1] = { x = fx, y = fy, labels = fl, style = "linespoints", point = 7, width = 2, color = "#c0392b",
                              title = string.format("Pareto front, E = %g Pa", young) }
    end
  end
  series[#series + 1] = { x = { 1000 / 118.7, 1000 / 23.8 }, y = { 19, 11 }, style = "points", point = 5,
                          color = "#000000", labels = { "paper 19 % (GPU)", "paper 11 % (GPU)" },
                          title = "the paper's sphere points (RTX 2060, its own mesh and E)" }
  local png = cl.plot.lines { series = series, output = base .. "_pareto.png", logx = true, logy = true,
                              xlabel = "CPU ms per frame (one thread)", ylabel = "largest |volume change| (%)",
                              title = "hanging sphere, nu = 0.48: volume error against cost", size = { 1100, 750 } }
  print("  " .. png)
else
  print("graph_fem_volume: no figure (gnuplot missing or no finished point)")
end

return { sweep = sw, rows = rows, ok = ok, fronts = fronts, linear_estimate = linear_estimate, table = md }
