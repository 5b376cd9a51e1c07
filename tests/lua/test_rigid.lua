-- Dynamic (two-way) rigid colliders from Lua (docs/RIGID_BODIES.md): ballistic flight, a hinged
-- pendulum keeps its hinge distance, a projectile gives its momentum to a shape-matching block, and
-- bad keys are clear errors.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

T.test("a dynamic sphere falls as g t^2 / 2", function()
  local w = cl.world { dt = 0.01, gravity = { 0, -9.81, 0 } }
  local ball = w:collider { kind = "sphere", radius = 0.1, center = { 0, 2, 0 }, dynamic = true, mass = 1 }
  w:step(100)
  T.near(ball:center()[2], 2 - 0.5 * 9.81, 1e-10, "height after 1 s")
  T.near(ball:velocity()[2], -9.81, 1e-10, "velocity after 1 s")
  T.eq(ball:angular_velocity()[1], 0)
  T.eq(#ball:rotation(), 9)
end)

T.test("a kinematic collider reports its scripted velocity", function()
  local w = cl.world { dt = 0.01 }
  local box = w:collider { kind = "box", half_extents = { 0.1, 0.1, 0.1 }, velocity = { 1, 0, 0 },
                           angular_velocity = { 0, 0, 2 } }
  w:step(3)
  T.eq(box:velocity()[1], 1)
  T.eq(box:angular_velocity()[3], 2)
end)

T.test("a pendulum (box hammer on a hinge) keeps its hinge distance", function()
  local w = cl.world { dt = 1e-3, gravity = { 0, -9.81, 0 } }
  local hammer = w:collider { kind = "box", half_extents = { 0.05, 0.1, 0.05 }, center = { -0.5, 1, 0 },
                              dynamic = true, mass = 2, hinge = { point = { 0, 1, 0 }, axis = "z" } }
  local lowest = math.huge
  for _ = 1, 30 do
    w:step(10)
    local c = hammer:center()
    T.near(math.sqrt(c[1] ^ 2 + (c[2] - 1) ^ 2 + c[3] ^ 2), 0.5, 1e-12, "hinge distance")
    lowest = math.min(lowest, c[2])
  end
  T.truthy(lowest < 0.8, "it swung down (lowest centre " .. lowest .. ")")
  local om = hammer:angular_velocity()
  T.eq(om[1], 0)
  T.eq(om[2], 0)
end)

T.test("a projectile slows in a shape-matching block and the momentum goes to the block", function()
  local solvers = {}
  for _, s in ipairs(cl.solvers()) do solvers[s] = true end
  if not solvers.shape_matching then return end
  local w = cl.world { dt = 1e-3, gravity = { 0, 0, 0 }, seed = 1 }
  local block = w:body { shape = cl.shape.box { size = { 0.2, 0.2, 0.2 } }, solver = "shape_matching",
                         params = { particles = 300, cluster_count = 4 } }
  local ball = w:collider { kind = "sphere", radius = 0.05, center = { -0.2, 0, 0 }, velocity = { 3, 0, 0 },
                            dynamic = true, mass = 0.5 }
  local function momentum()
    local info = block:info()
    local m = info.mass / info.nodes
    local v, n3 = block:velocities("cdata")
    local P = { 0, 0, 0 }
    for i = 0, n3 - 1, 3 do
      for k = 0, 2 do P[k + 1] = P[k + 1] + m * v[i + k] end
    end
    local vb = ball:velocity()
    for k = 1, 3 do P[k] = P[k] + 0.5 * vb[k] end
    return P
  end
  local P0 = momentum()
  w:step(100)
  local P1 = momentum()
  for k = 1, 3 do T.near(P1[k], P0[k], 1e-9 * 1.5, "total momentum [" .. k .. "]") end
  T.truthy(ball:velocity()[1] < 2.5, "the ball slowed: v_x = " .. ball:velocity()[1])
end)

T.test("bad dynamic keys are clear errors", function()
  local w = cl.world {}
  T.error(function() w:collider { kind = "sphere", radius = 0.1, dynamic = true } end, "needs mass")
  T.error(function() w:collider { kind = "sphere", radius = 0.1, dynamic = true, mass = 0 } end, "mass")
  T.error(function() w:collider { kind = "sphere", radius = 0.1, dynamic = true, mass = 0 / 0 } end, "mass")
  T.error(function() w:collider { kind = "sphere", radius = 0.1, mass = 1 } end, "need dynamic = true")
  T.error(function()
    w:collider { kind = "sphere", radius = 0.1, dynamic = true, mass = 1, hinge = { point = { 0, 0, 0 }, axis = { 0, 0, 0 } } }
  end, "zero vector")
  T.error(function()
    w:collider { kind = "sphere", radius = 0.1, dynamic = true, mass = 1, hinge = { point = { 0, 0, 0 } } }
  end, "axis")
  T.error(function() w:collider { kind = "plane", dynamic = true, mass = 1 } end, "plane cannot be dynamic")
  T.error(function() w:collider { kind = "box", half_extents = { 1, 1, 1 }, dynamic = true, mass = 1, inertia = { 1, 0, 1 } } end,
    "inertia")
end)

T.done()
