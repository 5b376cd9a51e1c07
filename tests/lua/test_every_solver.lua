-- One scene, every solver (issue 14): the scenes of experiments/scenes/every_solver/ build and run
-- unchanged on shape_matching, corotational and graph_fem; material points sit where they were put
-- (rest positions interpolated exactly) and follow the body; a criterion that fits several solvers
-- (cluster_stretch) is accepted on each, one that does not is refused naming those that fit; the two
-- FEM solvers agree on a small-strain sag.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")
local scenes = dofile(src .. "/experiments/scenes/init.lua")
local common = dofile(src .. "/experiments/scenes/every_solver/common.lua")

T.test("every scene runs on every solver with its own measures", function()
  for _, sc in ipairs(scenes.family("every_solver")) do
    for _, solver in ipairs(common.solvers) do
      local over = { solver = solver, threads = 1 }
      for k, v in pairs(sc.quick) do over[k] = v end
      local built = sc:build(over)
      T.eq(built.body.solver, solver)
      built.world:run { frames = over.frames, on_frame = built.on_frame }
      local m = built.measure()
      local n = 0
      for k, v in pairs(m) do
        n = n + 1
        T.truthy(type(v) == "number", sc.name .. " on " .. solver .. ": " .. k)
      end
      T.truthy(n >= 2, sc.name .. " measures something")
    end
  end
end)

T.test("material points are where they were put, and move with the body", function()
  local sc = scenes.get("every_solver/cantilever")
  for _, solver in ipairs(common.solvers) do
    local built = sc:build { solver = solver, max_volume = 1e-4, threads = 1 }
    local mp = built.material_points
    local now = mp.now()
    local worst = 0
    for i = mp.grid_from, mp.count do
      local q, x = mp.rest[i], now.grid[i - mp.grid_from + 1]
      for k = 1, 3 do worst = math.max(worst, math.abs(q[k] - x[k])) end
    end
    T.truthy(worst < 1e-12, solver .. ": at rest the interpolated points are the rest points (" .. worst .. ")")
    T.near(now.named.tip[1], 0.19, 1e-12)
    built.world:step(20)
    T.truthy(mp.now().named.tip[2] < -1e-4, solver .. ": the tip sags")
  end
end)

T.test("cluster_stretch fits every solver; a criterion that does not fit names those that do", function()
  local sc = scenes.get("every_solver/notched_bar")
  for _, solver in ipairs(common.solvers) do
    local built = sc:build { solver = solver, criterion = "cluster_stretch", max_volume = 5e-5, threads = 1 }
    T.eq(built.body.solver, solver)
  end
  T.error(function() sc:build { solver = "shape_matching", criterion = "edge_stress", max_volume = 5e-5 } end,
          { "edge_stress", "shape_matching", "cluster_stretch" }, { anywhere = true })
  T.error(function() sc:build { solver = "graph_fem", criterion = "separation_tensor", max_volume = 5e-5 } end,
          { "separation_tensor", "graph_fem", "edge_stress" }, { anywhere = true })
end)

T.test("the two FEM solvers agree on the cantilever's sag at small strain", function()
  local sc = scenes.get("every_solver/cantilever")
  local tip = {}
  for _, solver in ipairs { "corotational", "graph_fem" } do
    local built = sc:build { solver = solver, model = "corotated", gravity = 1, max_volume = 4e-5, frames = 60, threads = 1 }
    built.world:step(60)
    tip[solver] = built.measure().tip_deflection
  end
  T.truthy(tip.corotational > 1e-4, "it sags")
  T.near(tip.graph_fem, tip.corotational, 0.01 * tip.corotational, "graph_fem (corotated) against corotational")
end)

T.done()
