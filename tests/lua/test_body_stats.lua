-- body:stats(): the solver statistics of a body (cl_body_copy_stats) as a Lua table, for both solvers
-- that report them, and its errors.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local world = cl.world { gravity = { 0, -9.81, 0 }, threads = 1 }

T.test("shape matching reports the cluster count and radius it used", function()
  local b = world:body { shape = cl.shape.box { size = { 0.2, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 600, cluster_count = 8 } }
  local s = b:stats()
  T.eq(s.clusters, 8, "clusters")
  T.eq(s.clusters_at_bind, 8, "clusters_at_bind")
  -- automatic radius: (V / k)^(1/3), sm_cluster.c
  T.near(s.cluster_radius, (0.2 * 0.1 * 0.1 / 8) ^ (1 / 3), 1e-9, "cluster_radius")
  T.eq(s.particles, b:info().nodes, "particles")
  T.truthy(s.clusters_per_particle > 1, "clusters overlap")
  T.near(s.clusters_per_particle, s.memberships / (s.particles - s.debris), 1e-12, "clusters_per_particle")
end)

T.test("the list form keeps the solver's order, units and help", function()
  local b = world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 300, cluster_radius = 0.05 } }
  local list = b:stats("list")
  T.eq(list[1].name, "particles", "first name")
  local byname = {}
  for _, e in ipairs(list) do byname[e.name] = e end
  T.eq(byname.cluster_radius.value, 0.05, "given radius")
  T.eq(byname.cluster_radius.unit, "m", "unit")
  T.truthy(#byname.clusters.help > 0, "help text")
end)

T.test("corotational reports tets, islands and CG iterations", function()
  local m = cl.shape.box { size = { 0.2, 0.05, 0.05 } }:tetrahedralize { max_volume = 2e-5 }
  local b = world:body { shape = m, solver = "corotational" }
  local s0 = b:stats()
  T.eq(s0.tets, b:info().units, "tets")
  T.eq(s0.nodes, b:info().nodes, "nodes")
  T.eq(s0.islands, 1, "islands")
  world:step(1)
  local s1 = b:stats()
  T.eq(s1.steps, 1, "steps")
  T.truthy(s1.cg_iterations > 0, "CG ran")
  -- the last step's phase times (experiments/papers/omalley_fig5.lua): finite, not negative
  for _, k in ipairs { "element_ms", "assembly_ms", "solve_ms", "update_ms" } do
    T.truthy(s1[k] >= 0 and s1[k] < math.huge, k)
  end
end)

T.test("shape matching reports the last step's dynamics, plasticity and collision times", function()
  local b = world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 300 }, material = { plastic = { yield = 0, flow = 60 } } }
  local s0 = b:stats()
  T.eq(s0.plasticity_ms, 0, "nothing timed before a step")
  world:step(1)
  local s = b:stats()
  -- experiments/papers/jones_table1.lua splits the frame with these: finite, not negative, and the
  -- proxies' time is part of the dynamics
  for _, k in ipairs { "dynamics_ms", "plasticity_ms", "collision_ms" } do
    T.truthy(s[k] >= 0 and s[k] < math.huge, k)
  end
  T.truthy(s.collision_ms <= s.dynamics_ms, "collisions are part of the dynamics")
end)

T.test("bad calls are clear errors", function()
  local b = world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 200 } }
  T.error(function() b:stats("table") end, { "body:stats", "list" })
  T.error(function() b.stats(world) end, { "body:stats", "expected a body" })
  b:remove()
  T.error(function() b:stats() end, { "body:stats", "was removed" })
end)

T.done()
