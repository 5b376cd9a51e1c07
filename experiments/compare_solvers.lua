-- One scene, every solver (issue 14): the scenes of experiments/scenes/every_solver/ run unchanged
-- on corotational, shape_matching and graph_fem, each at two resolutions, and are compared with a
-- converged reference; the notched bar is pulled apart with every criterion that fits each solver.
--
--   cleave run experiments/compare_solvers.lua                (a few minutes on 2 cores)
--   cleave run experiments/compare_solvers.lua --set quick=true   (the smoke test: a few frames)
--   cleave sweep experiments/compare_solvers.lua --jobs 2     (the same; kill it and run it again: it resumes)
--
-- The runs are the points of a sweep (cl.sweep: worker processes, one row per run in
-- out/compare_solvers/runs.csv, a run that fails is recorded and the others go on). Then it writes
-- to out/compare_solvers/:
--   compare_solvers.md   the table: per scene and solver and resolution, the scene's main quantity,
--                        its error against the reference, the volume change, the distance of the
--                        final shape from the reference's and the ms per frame; then the notched
--                        bar's pieces and crack position per solver and criterion
--   compare_solvers.csv  the same rows as CSV
--   compare_solvers.png  the relative error of each scene's main quantity against ms per frame,
--                        one series per solver, each point labelled by scene and resolution
--
-- The reference of each scene is the corotational solver on the finest mesh of its table (7k to 14k
-- tets), at the scene's time step: converged in the mesh as far as the table's "reference moved"
-- says (its change from the next coarser mesh). It
-- is not converged in time (the rebound of the dropped ball depends on the time step; implicit Euler
-- damps it) and it is one model: shape matching, which has no Young's modulus, is measured against
-- an elastic continuum it does not claim to be. ms per frame counts the world's steps only (wall
-- clock, one point per worker with the cores shared out; other load on the machine shows in it).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/scenes/init.lua")
local common = dofile(here .. "/scenes/every_solver/common.lua")

local OUT = "out/compare_solvers"
local reference_solver = "corotational"

-- The scenes compared for accuracy, each with its main quantity, the two resolutions every solver
-- runs at (largest tet volume, m^3) and the reference solver's two finer ones (the last is the
-- reference; the one before says how far it still moves). TetGen's quality bound makes the tet
-- count jump between volumes (the spheres' surface is fixed by their subdivisions): the volumes
-- are chosen where the counts differ; the table gives the counts.
local accuracy = {
  { scene = "cantilever", q = "tip_deflection", what = "tip deflection", unit = "m",
    volumes = { 4e-5, 1e-5 }, reference = { 1.25e-6, 6.25e-7 } },
  { scene = "twisted_bar", q = "mid_twist", what = "mid-section twist", unit = "rad",
    volumes = { 4e-5, 1e-5 }, reference = { 2.5e-6, 1.25e-6 } },
  { scene = "hanging_sphere", q = "bottom_sag", what = "sag of the bottom", unit = "m",
    volumes = { 4e-5, 2e-5 }, reference = { 5e-6, 2.5e-6 } },
  { scene = "dropped_ball", q = "rebound", what = "rebound of the centre", unit = "m",
    volumes = { 4e-5, 2e-5 }, reference = { 5e-6, 2.5e-6 } },
}
-- the notched bar: each solver with each criterion that fits it
local fracture = {
  { solver = "corotational", criterion = "separation_tensor" },
  { solver = "corotational", criterion = "cluster_stretch" },
  { solver = "shape_matching", criterion = "cluster_stretch" },
  { solver = "graph_fem", criterion = "cluster_stretch" },
  { solver = "graph_fem", criterion = "edge_stress", mode = "threshold" },
  { solver = "graph_fem", criterion = "edge_stress", mode = "softening" },
}

-- The smoke test (--set quick=true): the scenes' quick settings (a few frames, coarse meshes), every
-- solver at the quick volume, the reference solver at half of it.
local quick_args = (cl.args or {}).quick == true
for _, a in ipairs(accuracy) do
  if quick_args then
    local v = scenes.get("every_solver/" .. a.scene).quick.max_volume
    a.volumes, a.reference = { v }, { v, v / 2 }
  end
end
local notched_volume = quick_args and scenes.get("every_solver/notched_bar").quick.max_volume
                       or scenes.get("every_solver/notched_bar"):params_of({}).max_volume

local points, seen = {}, {}
local function add(pt)
  local k = table.concat({ pt.scene, pt.solver, pt.max_volume, pt.criterion, pt.mode }, "|")
  if not seen[k] then
    seen[k] = true
    points[#points + 1] = pt
  end
end
for _, a in ipairs(accuracy) do
  for _, solver in ipairs(common.solvers) do
    for _, v in ipairs(a.volumes) do add { scene = a.scene, solver = solver, max_volume = v, criterion = "none", mode = "-" } end
  end
  for _, v in ipairs(a.reference) do
    add { scene = a.scene, solver = reference_solver, max_volume = v, criterion = "none", mode = "-" }
  end
end
for _, f in ipairs(fracture) do
  add { scene = "notched_bar", solver = f.solver, max_volume = notched_volume, criterion = f.criterion, mode = f.mode or "-" }
end

local function shape_file(p)
  return string.format("%s/shapes/%s-%s-%g%s.txt", OUT, p.scene, p.solver, p.max_volume, p.quick and "-quick" or "")
end

local outputs = { "tip_deflection", "mid_twist", "bottom_sag", "rebound", "lowest", "centre_height", "volume_change",
                  "pieces", "large_pieces", "crack_x", "crack_misfit", "first_break", "ms_per_frame", "tets", "nodes" }

-- One run: build the scene on the solver at the resolution, step it (timing the steps only), measure.
local function run(p)
  local sc = scenes.get("every_solver/" .. p.scene)
  local over = { solver = p.solver }
  if p.quick then for k, v in pairs(sc.quick) do over[k] = v end end
  over.max_volume = p.max_volume
  if p.criterion ~= "none" then over.criterion = p.criterion end
  if p.mode ~= "-" then over.mode = p.mode end
  local built = sc:build(over)
  local frames, seconds = built.params.frames, 0
  local now = cl.progress.now
  for f = 1, frames do
    local t0 = now()
    built.world:step(1)
    seconds = seconds + now() - t0
    if built.on_frame then built.on_frame(f, built.world) end
  end
  local r = {}
  for k, v in pairs(built.measure()) do
    if v == v then r[k] = v end -- NaN: the measure does not apply (no crack)
  end
  r.ms_per_frame = 1000 * seconds / frames
  r.tets, r.nodes = built.mesh:info().cells, built.mesh:info().points
  if built.material_points then
    cl.output.mkdir_for(shape_file(p))
    local lines = {}
    for _, x in ipairs(built.material_points.now().grid) do lines[#lines + 1] = string.format("%.17g %.17g %.17g", x[1], x[2], x[3]) end
    cl.output.write_atomic(shape_file(p), table.concat(lines, "\n") .. "\n")
  end
  return r
end

local sw = cl.sweep {
  name = "compare_solvers",
  what = "every_solver scenes on corotational, shape_matching and graph_fem against a fine corotational reference",
  points = points, fixed = { quick = false }, outputs = outputs, run = run,
  results = OUT .. "/runs.csv", timeout = 1200,
  quick = { fixed = { quick = true } }, -- the points above are the quick ones already
}

-- ---- the table and the plot ----------------------------------------------------------------------

local quick = sw.quick
local rows = sw:rows()
local function find(scene, solver, max_volume, criterion, mode)
  for _, r in ipairs(rows) do
    if r.scene == scene and r.solver == solver and r.max_volume == max_volume
       and (criterion == nil or r.criterion == criterion) and (mode == nil or r.mode == mode) then
      return r
    end
  end
end
local function read_shape(r)
  local f = io.open(shape_file { scene = r.scene, solver = r.solver, max_volume = r.max_volume, quick = quick })
  if not f then return nil end
  local pts = {}
  for line in f:lines() do
    local x, y, z = line:match("^(%S+) (%S+) (%S+)$")
    pts[#pts + 1] = { tonumber(x), tonumber(y), tonumber(z) }
  end
  f:close()
  return pts
end
local function fmt(v, f) return v == nil and "-" or string.format(f or "%.4g", v) end

local md = { "# One scene, every solver", "",
             string.format("cleave %s (git %s), `cleave run experiments/compare_solvers.lua%s`; results of every run: %s.",
                           cl.version, cl.git_revision, quick and " --set quick=true" or "", sw.results), "",
             string.format("Reference of each scene: the %s solver on the finest mesh of the scene's table, at the "
                           .. "scene's time step; 'reference moved' is its change from the next coarser mesh (how far it "
                           .. "is from converged in the mesh).", reference_solver), "" }
local csv_rows = {}
local series = {}
for _, s in ipairs(common.solvers) do series[s] = { x = {}, y = {}, labels = {} } end

for _, a in ipairs(accuracy) do
  local ref = find(a.scene, reference_solver, a.reference[#a.reference])
  local coarser = find(a.scene, reference_solver, a.reference[#a.reference - 1])
  md[#md + 1] = string.format("## %s: %s (%s)", a.scene, a.what, a.unit)
  md[#md + 1] = ""
  if not ref or ref.status ~= "ok" or ref[a.q] == nil then
    md[#md + 1] = "No reference: its run " .. (ref and ("ended with " .. ref.status .. ": " .. tostring(ref.message)) or "is missing") .. "."
  else
    local ref_shape = read_shape(ref)
    local moved = coarser and coarser[a.q] and math.abs(coarser[a.q] - ref[a.q]) / math.max(math.abs(ref[a.q]), 1e-300)
    md[#md + 1] = string.format("Reference %s = %.5g %s (%d tets); reference moved %s from %d tets.", a.what, ref[a.q], a.unit,
                                ref.tets, moved and string.format("%.2g %%", 100 * moved) or "-", coarser and coarser.tets or 0)
    md[#md + 1] = ""
    md[#md + 1] = "| solver | max_volume (m^3) | tets | " .. a.what .. " | error | relative | volume change | shape distance (mm) | ms/frame |"
    md[#md + 1] = "|---|---|---|---|---|---|---|---|---|"
    for _, solver in ipairs(common.solvers) do
      local lv = {}
      for _, v in ipairs(a.volumes) do lv[#lv + 1] = v end
      if solver == reference_solver and a.reference[1] ~= a.volumes[#a.volumes] then lv[#lv + 1] = a.reference[1] end
      for _, level in ipairs(lv) do
        local r = find(a.scene, solver, level)
        if r and r.status == "ok" and r[a.q] then
          local err = r[a.q] - ref[a.q]
          local rel = math.abs(err) / math.max(math.abs(ref[a.q]), 1e-300)
          local shape = read_shape(r)
          local dist = shape and ref_shape and #shape == #ref_shape and common.rms_distance(shape, ref_shape) or nil
          md[#md + 1] = string.format("| %s | %g | %d | %.5g | %+.3g | %.3g %% | %s | %s | %.2f |", solver, level, r.tets, r[a.q], err,
                                      100 * rel, fmt(r.volume_change, "%+.3g"), fmt(dist and 1000 * dist, "%.3g"), r.ms_per_frame)
          csv_rows[#csv_rows + 1] = { scene = a.scene, solver = solver, max_volume = level, tets = r.tets, quantity = a.q,
                                      value = r[a.q], reference = ref[a.q], error = err, relative_error = rel,
                                      volume_change = r.volume_change, shape_distance = dist, ms_per_frame = r.ms_per_frame }
          if rel > 0 then
            local se = series[solver]
            se.x[#se.x + 1], se.y[#se.y + 1] = r.ms_per_frame, rel
            se.labels[#se.labels + 1] = string.format("%s %d", a.scene, r.tets)
          end
        elseif r then
          md[#md + 1] = string.format("| %s | %g | %s | %s: %s | | | | | |", solver, level, fmt(r.tets, "%d"), r.status,
                                      (tostring(r.message):gsub("|", "/")))
        end
      end
    end
    if a.scene == "dropped_ball" then
      md[#md + 1] = ""
      md[#md + 1] = "The rebound is a property of the time integration as much as of the mesh (implicit Euler damps it)."
    end
  end
  md[#md + 1] = ""
end

md[#md + 1] = "## notched_bar: pieces and crack position per solver and criterion"
md[#md + 1] = ""
md[#md + 1] = "The notch is at x = 0; crack x is where, at rest, the two largest pieces are best separated (misfit: the share "
              .. "of their nodes on the wrong side, 0 for a straight cut); large pieces hold at least 1 % of the nodes."
md[#md + 1] = ""
md[#md + 1] = "| solver | criterion | tets | pieces | large pieces | crack x (mm) | misfit | first frame in 2 pieces | ms/frame |"
md[#md + 1] = "|---|---|---|---|---|---|---|---|---|"
for _, f in ipairs(fracture) do
  local r = find("notched_bar", f.solver, notched_volume, f.criterion, f.mode or "-")
  local crit = f.criterion .. (f.mode and (" (" .. f.mode .. ")") or "")
  if r and r.status == "ok" then
    md[#md + 1] = string.format("| %s | %s | %d | %d | %d | %s | %s | %s | %.2f |", f.solver, crit, r.tets, r.pieces, r.large_pieces,
                                fmt(r.crack_x and 1000 * r.crack_x, "%.1f"), fmt(r.crack_misfit and 100 * r.crack_misfit, "%.1f %%"),
                                (r.first_break or -1) >= 0 and tostring(r.first_break) or "never", r.ms_per_frame)
    csv_rows[#csv_rows + 1] = { scene = "notched_bar", solver = f.solver, criterion = crit, max_volume = r.max_volume, tets = r.tets,
                                pieces = r.pieces, large_pieces = r.large_pieces, crack_x = r.crack_x,
                                crack_misfit = r.crack_misfit, first_break = r.first_break, ms_per_frame = r.ms_per_frame }
  elseif r then
    md[#md + 1] = string.format("| %s | %s | %s | %s: %s | | | | | |", f.solver, crit, fmt(r.tets, "%d"), r.status,
                                (tostring(r.message):gsub("|", "/")))
  end
end

cl.output.mkdir(OUT)
local suffix = quick and "-quick" or ""
local md_path = OUT .. "/compare_solvers" .. suffix .. ".md"
cl.output.write_atomic(md_path, table.concat(md, "\n") .. "\n")
local csv = cl.output.csv(OUT .. "/compare_solvers" .. suffix .. ".csv",
  { "scene", "solver", "criterion", "max_volume", "tets", "quantity", "value", "reference", "error", "relative_error",
    "volume_change", "shape_distance", "pieces", "large_pieces", "crack_x", "crack_misfit", "first_break", "ms_per_frame" },
  { comments = { string.format("cleave %s (git %s): experiments/compare_solvers.lua", cl.version, cl.git_revision) } })
for _, r in ipairs(csv_rows) do csv:row(r) end
csv:close()
print(table.concat(md, "\n"))
print("wrote " .. md_path .. " and " .. csv.path)

if cl.plot.available() then
  local s = {}
  local colors = { corotational = "#0072B2", shape_matching = "#D55E00", graph_fem = "#009E73" }
  for _, solver in ipairs(common.solvers) do
    local se = series[solver]
    if #se.x > 0 then
      s[#s + 1] = { x = se.x, y = se.y, labels = se.labels, style = "points", point = 7, color = colors[solver], title = solver }
    end
  end
  if #s > 0 then
    local png = cl.plot.lines { series = s, logx = true, logy = true, key = "top right", size = { 1000, 650 },
                                xlabel = "ms per frame", ylabel = "relative error of the scene's main quantity",
                                title = "One scene, every solver: accuracy against cost (reference: fine corotational)",
                                output = OUT .. "/compare_solvers" .. suffix .. ".png" }
    print("wrote " .. png)
  end
end
