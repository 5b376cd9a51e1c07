-- What O'Malley's two profiling figures (thesis sec 7.2, Figs 4 and 5) share: the notched bar of
-- experiments/scenes/corotational/notched_bar.lua in its ductile variant (plastic with a capped
-- flow, so that both criteria have what they read), on the corotational solver, with either
-- fracture criterion: separation_tensor (O'Brien & Hodgins, thesis ch. 4) or plastic_excess (the
-- thesis's plasticity-based fracture, ch. 5.6). One run steps the bar and returns the mean ms per
-- frame of each part: the solver's element pass (rotations, strain, plasticity, element stiffness:
-- the thesis's "stiffness assembly"), its assembly of A and b ("dynamics assembly"), its linear
-- solve ("conjugate gradient solver"), and the world's fracture phases: measure (F, stress and
-- plastic strain per element, which the criteria read), criteria (the criterion's own pass) and
-- topology (node replication when a node breaks). "Fracture calculation" = measure + criteria.
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
  local built = sc:build { criterion = criterion.name, toughness = criterion.toughness, max_volume = max_volume,
                           frames = frames, threads = 1 }
  local w, body = built.world, built.body
  local st0 = body:stats()
  local acc = { element = 0, assembly = 0, solve = 0, update = 0, measure = 0, criteria = 0, topology = 0, total = 0 }
  for _ = 1, frames do
    w:step(1)
    local ws, bs = w:stats(), body:stats()
    acc.element = acc.element + bs.element_ms
    acc.assembly = acc.assembly + bs.assembly_ms
    acc.solve = acc.solve + bs.solve_ms
    acc.update = acc.update + bs.update_ms
    acc.measure = acc.measure + ws.phase_ms.measure
    acc.criteria = acc.criteria + ws.phase_ms.criteria
    acc.topology = acc.topology + ws.phase_ms.topology
    acc.total = acc.total + ws.step_ms
  end
  for k, v in pairs(acc) do acc[k] = v / frames end
  local info = body:info()
  acc.tets, acc.nodes = st0.tets, st0.nodes
  acc.nodes_end, acc.pieces = info.nodes, info.pieces
  acc.fracture_calc = acc.measure + acc.criteria
  w:destroy()
  collectgarbage()
  return acc
end

return M
