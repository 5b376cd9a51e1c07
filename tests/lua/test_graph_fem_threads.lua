-- graph_fem's step gives the same positions to the bit on one and two threads (issue 13, "Speed"):
-- the Charpy impact's scene on its coarse mesh (1,849 nodes: the assembly's row ranges are split
-- between the threads), with its contact rounds (the multigrid's set-up for a new mask), the kept
-- coarse factor and fracture. A thread count that changed a sum's order would show as a last-bit
-- difference in some node. (The multicolour Gauss-Seidel's own check is in
-- tests/c/test_multigrid_cycle.c.)
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")
local scenes = dofile(src .. "/experiments/scenes/init.lua")

T.test("the Charpy impact's first 60 steps are the same on one and two threads", function()
  local function run(threads)
    local built = scenes.get("graph_fem/charpy"):build { max_volume = 2e-8, dt = 5e-6, threads = threads }
    built.world:step(60)
    return built.body:positions(), built.body:stats()
  end
  local p1, s1 = run(1)
  local p2, s2 = run(2)
  T.eq(#p1, #p2)
  local differ = 0
  for i = 1, #p1 do
    for c = 1, 3 do
      if p1[i][c] ~= p2[i][c] then differ = differ + 1 end
    end
  end
  print(string.format("  %d nodes, %d of %d coordinates differ; broken edges %d and %d", #p1, differ, 3 * #p1,
                      s1.broken_edges, s2.broken_edges))
  T.eq(differ, 0)
  T.eq(s1.broken_edges, s2.broken_edges)
end)

T.done()
