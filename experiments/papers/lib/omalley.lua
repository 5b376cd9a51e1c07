-- What O'Malley's two profiling figures (thesis sec 7.2, Figs 4 and 5) share: the notched bar of
-- experiments/scenes/corotational/notched_bar.lua in its ductile variant (plastic with a capped
-- flow, so that both criteria have what they read) with a sharp V (notch_root_radius = 0: the
-- rounded root's refinement keeps every mesh above 10k tets; with a sharp one the largest tet volume
-- sets the size, from 263 nodes + elements at 2e-4 m^3), on the corotational solver, with either
-- fracture criterion: separation_tensor (O'Brien & Hodgins, thesis ch. 4) or plastic_excess (the
-- thesis's plasticity-based fracture, ch. 5.6). One run steps the bar and returns the mean ms per
-- frame of each part: the solver's element pass (rotations, strain, plasticity, element stiffness:
-- the thesis's "stiffness assembly"), its assembly of A and b ("dynamics assembly"), its linear
-- solve ("conjugate gradient solver"), and the world's fracture phases: measure (F, stress and
-- plastic strain per element, which the criteria read), criteria (the criterion's own pass) and
-- topology (node replication when a node breaks). "Fracture calculation" = measure + criteria.
-- Each part is given as its median over the frames (and its mean, <part>_mean).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/report.lua")
local scenes = dofile(here .. "/../../scenes/init.lua")

local M = {}

M.criteria = {
  { name = "separation_tensor", label = "separation tensor", toughness = 1.5 },
  { name = "plastic_excess", label = "plasticity-based", toughness = 0.5 },
}

-- Run the ductile notched bar with `criterion` (an entry of M.criteria) at `max_volume` for `frames`.
function M.run(criterion, max_volume, frames)
  local sc = scenes.get("corotational/notched_bar_ductile")
  -- strength = 0: the criteria compare their measure with the toughness (N) as the thesis does, not
  -- per unit area as the scene's default since issue 17 (docs/solvers/corotational.md, "Clean cracks")
  local built = sc:build { criterion = criterion.name, toughness = criterion.toughness, strength = 0,
                           max_volume = max_volume, notch_root_radius = 0, frames = frames, threads = 1 }
  local w, body = built.world, built.body
  local st0 = body:stats()
  local keys = { "element", "assembly", "solve", "update", "measure", "criteria", "topology", "total", "fracture_calc" }
  local per = {}
  for _, k in ipairs(keys) do per[k] = {} end
  for f = 1, frames do
    w:step(1)
    local ws, bs = w:stats(), body:stats()
    local v = { element = bs.element_ms, assembly = bs.assembly_ms, solve = bs.solve_ms, update = bs.update_ms,
                measure = ws.phase_ms.measure, criteria = ws.phase_ms.criteria, topology = ws.phase_ms.topology,
                total = ws.step_ms }
    v.fracture_calc = v.measure + v.criteria
    for _, k in ipairs(keys) do per[k][f] = v[k] end
  end
  -- the median frame of each part (the first frame's one-time allocations and the frames with a
  -- fracture event are outliers of a few frames) and the mean (`<part>_mean`)
  local acc = {}
  for _, k in ipairs(keys) do
    acc[k] = R.median(per[k])
    acc[k .. "_mean"] = R.mean(per[k])
  end
  local info = body:info()
  acc.tets, acc.nodes = st0.tets, st0.nodes
  acc.nodes_end, acc.pieces = info.nodes, info.pieces
  w:destroy()
  collectgarbage()
  return acc
end

return M
