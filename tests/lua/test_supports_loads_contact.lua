-- Supports (some components held), surface loads (traction, pressure) and contact that slides and
-- lets go (issue 16), on both landed solvers where they apply: each against what statics or
-- Coulomb's law says, and the bad inputs with the message they get.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local function bar_mesh()
  return cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
end
local elastic = { density = 1000, young = 1e5, poisson = 0.3 }

-- mean of a component over a body's nodes
local function mean(b, k)
  local p, s = b:positions("flat"), 0
  for i = k, #p, 3 do s = s + p[i] end
  return s / (#p / 3)
end

T.test("a roller under a resting body carries its weight, on both solvers", function()
  for _, solver in ipairs { "corotational", "shape_matching" } do
    local w = cl.world { dt = 1 / 60, gravity = { 0, -9.81, 0 }, threads = 1 }
    local b = w:body { mesh = bar_mesh(), solver = solver, material = elastic,
                       params = { damping = 20 } }
    local roll = w:support(b, cl.region.slab { axis = "y", below = -0.049 }, cl.support.axis "y")
    local r = w:probe(cl.probe.reaction(roll))
    w:step(600)
    local f = r:read()
    local weight = b:info().mass * 9.81
    T.near(f[2], weight, 2e-3 * weight, solver .. " vertical reaction")
    T.near(f[1], 0, 1e-6 * weight, solver .. " no horizontal reaction from a roller")
    T.near(f[3], 0, 1e-6 * weight, solver .. " no horizontal reaction from a roller")
  end
end)

T.test("a roller lets its nodes slide in the plane while holding the normal component", function()
  local w = cl.world { dt = 1 / 100, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  local base = w:support(b, cl.region.slab { axis = "y", below = -0.049 }, cl.support.axis "y")
  w:force(b, cl.region.all(), { 5, 0, 0 })
  w:step(50)
  -- pushed along x: the whole bar slides (mean x grows by F t^2 / 2 m), the base stays at y = -0.05
  local m = b:info().mass
  T.near(mean(b, 1), 0.5 * 5 / m * 0.5 ^ 2, 0.02 * 0.5 * 5 / m * 0.5 ^ 2, "sliding distance")
  local p = b:positions("flat")
  local X = b:rest_positions("flat")
  for i = 2, #p, 3 do
    if X[i] < -0.049 then T.near(p[i], X[i], 1e-12, "held component") end
  end
  T.near(w:probe(cl.probe.reaction(base)):read()[1], 0, 1e-9, "no reaction along the plane")
end)

T.test("a moving plane support drives the held component exactly (displacement control)", function()
  local w = cl.world { dt = 1 / 100, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  w:fix(b, cl.region.slab { axis = "x", below = -0.199 })
  w:support(b, cl.region.slab { axis = "x", above = 0.199 }, cl.support.plane { normal = "x", velocity = 0.01, duration = 0.5 })
  w:step(100)
  local p, X = b:positions("flat"), b:rest_positions("flat")
  for i = 1, #p, 3 do
    if X[i] > 0.199 then T.near(p[i] - X[i], 0.005, 1e-12, "end moved 0.01 m/s for 0.5 s") end
  end
end)

T.test("supports add up: rollers in x and y leave only z free; a line support leaves its direction free", function()
  for _, kind in ipairs { "two planes", "line" } do
    local w = cl.world { dt = 1 / 100, gravity = { 0, 0, -1 }, threads = 1 }
    local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
    if kind == "two planes" then
      w:support(b, cl.region.all(), cl.support.axis "x")
      w:support(b, cl.region.all(), cl.support.axis "y")
    else
      w:support(b, cl.region.all(), cl.support.line { direction = "z" })
    end
    local z0 = mean(b, 3)
    w:step(20)
    local p, X = b:positions("flat"), b:rest_positions("flat")
    for i = 1, #p, 3 do
      T.near(p[i], X[i], 1e-12, kind .. ": x held")
      T.near(p[i + 1], X[i + 1], 1e-12, kind .. ": y held")
    end
    -- backward Euler in free fall: x_n = -g dt^2 n (n + 1) / 2
    T.near(mean(b, 3) - z0, -1 * 0.01 ^ 2 * 20 * 21 / 2, 1e-9, kind .. ": falls freely along z")
  end
end)

T.test("tractions and pressures integrate over the loaded boundary triangles", function()
  local w = cl.world { dt = 1 / 100, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  local end_face = cl.region.slab { axis = "x", above = 0.199 }
  local t = w:load(b, end_face, cl.load.traction { traction = { 200, 0, -50 } })
  local f = t:total_force()
  T.near(f[1], 200 * 0.01, 1e-12, "traction x area")
  T.near(f[3], -50 * 0.01, 1e-12, "traction x area")
  local p = w:load(b, end_face, cl.load.pressure { pressure = 300 })
  T.near(p:total_force()[1], -300 * 0.01, 1e-12, "pressure pushes into the body")
  local all = w:load(b, cl.region.all(), cl.load.pressure { pressure = 1e4 })
  local g = all:total_force()
  T.near(math.abs(g[1]) + math.abs(g[2]) + math.abs(g[3]), 0, 1e-9, "a pressure over a closed surface has no resultant")
  local ramp = w:load(b, end_face, cl.load.traction { traction = { 100, 0, 0 }, ramp = 1 })
  T.near(ramp:total_force()[1], 0, 1e-15, "a ramped load starts at zero")
  w:step(25)
  T.near(ramp:total_force()[1], 0.25, 1e-12, "a quarter of the way up the ramp")
end)

T.test("a follower pressure turns with the surface, a dead one does not", function()
  local w = cl.world { dt = 1 / 100, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  w:drive(b, cl.region.all(), cl.motion.rotate { axis = "z", rate = math.pi / 2 })
  local face = cl.region.slab { axis = "x", above = 0.199 }
  local follow = w:load(b, face, cl.load.pressure { pressure = 100 })
  local dead = w:load(b, face, cl.load.pressure { pressure = 100, surface = "rest" })
  w:step(100) -- a quarter turn: the end face's normal goes from +x to +y
  local ff, fd = follow:total_force(), dead:total_force()
  T.near(ff[2], -1, 1e-6, "follower along -y")
  T.near(ff[1], 0, 1e-6, "follower along -y")
  T.near(fd[1], -1, 1e-12, "dead load stays along -x")
end)

T.test("Coulomb friction on an incline: slides at g (sin - mu cos), sticks when mu > tan", function()
  local th = math.rad(30)
  for _, mu in ipairs { 0, 0.2, 0.8 } do
    local w = cl.world { dt = 1 / 200, gravity = { 0, -9.81, 0 }, threads = 1 }
    local n = { -math.sin(th), math.cos(th), 0 }
    w:collider { kind = "plane", normal = n, center = { 0, 0, 0 }, friction = mu }
    local box = cl.shape.box { size = { 0.1, 0.05, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
    local b = w:body { mesh = box:transform { rotate = { axis = "z", angle = th }, translate = { 0.0255 * n[1], 0.0255 * n[2], 0 } },
                       solver = "corotational", material = { density = 1000, young = 1e6, poisson = 0.3 }, params = { damping = 0 } }
    local function along() -- mean position along the uphill tangent (cos th, sin th)
      return mean(b, 1) * math.cos(th) + mean(b, 2) * math.sin(th)
    end
    w:step(40)
    local d0 = along()
    w:step(60)
    local d1 = along()
    local a = -2 * (d1 - d0) / (0.5 ^ 2 - 0.2 ^ 2)
    local expect = math.max(0, 9.81 * (math.sin(th) - mu * math.cos(th)))
    T.near(a, expect, 0.02 * 9.81, string.format("acceleration down the incline, mu = %g", mu))
  end
end)

T.test("Coulomb friction holds on a supported node in contact: the incline with a symmetry plane, both FEM solvers", function()
  -- The incline's block cut in half by a symmetry plane z = 0 (held along z): the contact nodes on the
  -- plane are supported, and their friction acts along the one tangent left across the support and
  -- the normal. The half block slides and sticks as the whole one does, with either solver (the
  -- contact of supported nodes is fem/system.c's, shared).
  local th = math.rad(30)
  for _, solver in ipairs { "corotational", "graph_fem" } do
  for _, mu in ipairs { 0.2, 0.8 } do
    local w = cl.world { dt = 1 / 200, gravity = { 0, -9.81, 0 }, threads = 1 }
    local n = { -math.sin(th), math.cos(th), 0 }
    w:collider { kind = "plane", normal = n, center = { 0, 0, 0 }, friction = mu }
    local box = cl.shape.box { size = { 0.1, 0.05, 0.05 }, center = { 0, 0, 0.025 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
    local b = w:body { mesh = box:transform { rotate = { axis = "z", angle = th }, translate = { 0.0255 * n[1], 0.0255 * n[2], 0 } },
                       solver = solver, material = { density = 1000, young = 1e6, poisson = 0.3 }, params = { damping = 0 } }
    w:support(b, cl.region.slab { axis = "z", below = 1e-9 }, cl.support.axis "z")
    local function along() return mean(b, 1) * math.cos(th) + mean(b, 2) * math.sin(th) end
    w:step(40)
    local d0 = along()
    w:step(60)
    local a = -2 * (along() - d0) / (0.5 ^ 2 - 0.2 ^ 2)
    T.near(a, math.max(0, 9.81 * (math.sin(th) - mu * math.cos(th))), 0.02 * 9.81,
           string.format("%s: acceleration down the incline, mu = %g, half block on a symmetry plane", solver, mu))
  end
  end
end)

T.test("frictionless contact only pushes: a body resting on the ground leaves it when gravity turns up", function()
  local w = cl.world { dt = 1 / 100, gravity = { 0, -9.81, 0 }, threads = 1 }
  w:collider { kind = "plane", normal = "y", center = { 0, -0.05, 0 }, friction = 0 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic, params = { damping = 5 } }
  w:step(100)
  T.near(mean(b, 2), 0, 0.01, "rests on the ground")
  local y0 = mean(b, 2)
  w:set_gravity { 0, 9.81, 0 }
  w:step(20)
  -- it falls upwards as a free body would (backward Euler with the mass damping alpha = 5 1/s:
  -- v' = (v + dt g) / (1 + dt alpha)): nothing holds it to the ground
  local v, x = 0, 0
  for _ = 1, 20 do
    v = (v + 0.01 * 9.81) / (1 + 0.01 * 5)
    x = x + 0.01 * v
  end
  T.near(mean(b, 2) - y0, x, 0.02 * x, "rises as a free body")
end)

T.test("the contact probe reads the force a collider exerts and where, on both solvers", function()
  for _, solver in ipairs { "corotational", "shape_matching" } do
    local w = cl.world { dt = 1 / 60, gravity = { 0, -9.81, 0 }, threads = 1 }
    local floor = w:collider { kind = "plane", normal = "y", center = { 0, -0.05, 0 }, friction = 0.5 }
    local away = w:collider { kind = "sphere", radius = 0.05, center = { 0, 1, 0 } }
    local b = w:body { mesh = bar_mesh(), solver = solver, material = elastic, params = { damping = 20 } }
    local on_floor, on_away = w:probe(cl.probe.contact(b, floor)), w:probe(cl.probe.contact(b, away))
    w:step(600)
    local f, g = on_floor:read(), on_away:read()
    local weight = b:info().mass * 9.81
    T.near(f[2], weight, 1e-3 * weight, solver .. ": the floor carries the weight")
    T.near(f[1], 0, 1e-3 * weight, solver .. ": no tangential force at rest")
    T.near(f[5], -0.05, 1e-9, solver .. ": applied on the floor")
    T.near(f[4], 0, 0.02, solver .. ": under the centre of mass (x)")
    T.near(f[6], 0, 0.03, solver .. ": under the centre of mass (z)")
    T.eq(g[1] .. " " .. g[2] .. " " .. g[3], "0 0 0", solver .. ": no force from a collider it does not touch")
    T.near(g[5], 1, 1e-12, solver .. ": the point is the collider's centre")
  end
  local w = cl.world { dt = 1 / 60 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  T.error(function() cl.probe.contact(b, 3) end, { "cl.probe.contact", "expected a collider" })
  local s = w:collider { kind = "sphere", radius = 0.1, center = { 0, 1, 0 } }
  local pr = w:probe(cl.probe.contact(b, s))
  s:remove()
  T.error(function() pr:read() end, { "stale" }, { anywhere = true })
end)

T.test("kinematic colliders wait, ramp up, stop, or follow a piecewise-linear path", function()
  local w = cl.world { dt = 0.1, gravity = { 0, 0, 0 } }
  local a = w:collider { kind = "sphere", radius = 0.1, velocity = { 1, 0, 0 }, start = 0.2, ramp = 0.4, duration = 1.0 }
  local b = w:collider { kind = "box", half_extents = { 0.1, 0.1, 0.1 }, angular_velocity = { 0, 0, 1 },
                         path = { { 0, 0, 0, 0 }, { 1, 1, 0, 0 }, { 2, 1, 2, 0 } } }
  local seen = {}
  for i = 1, 25 do
    w:step()
    seen[i] = { a = a:center()[1], va = a:velocity()[1], b = b:center(), vb = b:velocity() }
  end
  T.near(seen[2].a, 0, 1e-15, "rests until start")
  T.near(seen[4].a, 0.5 * 0.2 ^ 2 / 0.4, 1e-12, "ramp: x = u^2 / (2 ramp)")
  T.near(seen[4].va, 0.5, 1e-12, "ramp: half speed half-way")
  T.near(seen[9].a, 0.2 + 0.3, 1e-12, "full speed after the ramp")
  T.near(seen[20].a, 0.2 + 0.6, 1e-12, "stopped at start + duration")
  T.near(seen[20].va, 0, 0, "stopped")
  T.near(seen[5].b[1], 0.5, 1e-12, "first segment")
  T.near(seen[15].b[2], 1, 1e-12, "second segment")
  T.near(seen[15].vb[2], 2, 1e-12, "second segment's velocity")
  T.near(seen[25].b[2], 2, 1e-12, "held at the last point")
  T.near(seen[25].vb[2], 0, 0, "not moving after the path")
  -- it turned only while it moved (2 s), at 1 rad/s about z
  local R = b:rotation()
  T.near(R[1], math.cos(2), 1e-12, "turned for the path's 2 s")
  T.error(function() w:collider { kind = "sphere", radius = 0.1, path = { { 1, 0, 0, 0 }, { 0.5, 1, 0, 0 } } } end,
          { "row 2", "does not come after" }, { anywhere = true })
  T.error(function() w:collider { kind = "sphere", radius = 0.1, path = { { 0, 0, 0 } } } end, { "path row 1", "{t, x, y, z}" })
  T.error(function() w:collider { kind = "sphere", radius = 0.1, ramp = 2, duration = 1 } end, { "ramp" }, { anywhere = true })
end)

T.test("a static solve finds the equilibrium the damped dynamics reaches, and says what it cannot do", function()
  local function cantilever(E)
    local w = cl.world { dt = 1 / 100, gravity = { 0, -9.81, 0 }, threads = 1 }
    local b = w:body { mesh = bar_mesh(), solver = "corotational", material = { density = 1000, young = E, poisson = 0.3 },
                       params = { damping = 30, tolerance = 1e-9 } }
    local clamp = w:fix(b, cl.region.slab { axis = "x", below = -0.199 })
    w:load(b, cl.region.slab { axis = "x", above = 0.199 }, cl.load.traction { traction = { 0, -500, 0 } })
    return w, b, w:probe(cl.probe.reaction(clamp))
  end
  local function tip(b)
    local p, X, s, n = b:positions("flat"), b:rest_positions("flat"), 0, 0
    for i = 1, #p, 3 do
      if X[i] > 0.199 then s, n = s + p[i + 1] - X[i + 1], n + 1 end
    end
    return s / n
  end
  local ws, bs, rs = cantilever(2e5)
  local rep = ws:solve_static {}
  T.truthy(rep.iterations <= 20, "converged in " .. rep.iterations .. " iterations")
  T.truthy(rep.residual <= 1e-6, "residual " .. rep.residual)
  local wd, bd = cantilever(2e5)
  wd:step(1500) -- damped to rest
  T.near(tip(bs), tip(bd), 1e-3 * math.abs(tip(bd)), "static tip deflection = the dynamics at rest")
  T.truthy(math.abs(tip(bs)) > 0.01, "it did bend: " .. tip(bs))
  local load = bs:info().mass * 9.81 + 500 * 0.01
  T.near(rs:read()[2], load, 1e-5 * load, "the clamp carries weight and tip load")
  for _, v in ipairs(bs:velocities("flat")) do T.eq(v, 0, "at rest") end
  -- load steps reach the same state
  local wl, bl = cantilever(2e5)
  wl:solve_static { load_steps = 4 }
  T.near(tip(bl), tip(bs), 1e-5 * math.abs(tip(bs)), "four load steps, same equilibrium")
  -- a body held only by a roller can still slide and turn: the modes are named
  local w = cl.world { dt = 1 / 60 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  w:support(b, cl.region.slab { axis = "y", below = -0.049 }, cl.support.axis "y")
  T.error(function() w:solve_static {} end,
          { "can still move as a rigid body", "translation along x", "translation along z", "rotation about y" })
  -- shape matching has no stiffness to solve with
  local w2 = cl.world { dt = 1 / 60 }
  local b2 = w2:body { mesh = bar_mesh(), solver = "shape_matching", material = elastic }
  w2:fix(b2, cl.region.all())
  T.error(function() w2:solve_static {} end, { "solver 'shape_matching'", "has no static solve" })
  T.error(function() w2:solve_static { load_steps = 0 } end, { "world:solve_static", "load_steps" })
end)

local function cube_mesh()
  return cl.shape.box { size = { 0.1, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
end

-- A 0.1 m cube on a roller (y held) with two symmetry planes (x and z held on one face each), a
-- frictionless plane pressed delta into its top, solved to equilibrium: the world, the body, the
-- roller, the contact probe and the static solve's report.
local function pressed_cube(solver, mesh, E, delta)
  local w = cl.world { dt = 1 / 100, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { mesh = mesh, solver = solver, material = { density = 1000, young = E, poisson = 0.3 },
                     params = { tolerance = 1e-10 } }
  local base = w:support(b, cl.region.slab { axis = "y", below = -0.0499 }, cl.support.axis "y")
  w:support(b, cl.region.slab { axis = "x", below = -0.0499 }, cl.support.axis "x")
  w:support(b, cl.region.slab { axis = "z", below = -0.0499 }, cl.support.axis "z")
  local press = w:collider { kind = "plane", normal = "-y", center = { 0, 0.05 - delta, 0 }, friction = 0 }
  local probe = w:probe(cl.probe.contact(b, press))
  return w, b, base, probe, w:solve_static { tolerance = 1e-9 }
end

T.test("a static solve driven by a penetrating collider alone: uniaxial compression, force on the probe", function()
  -- A 0.1 m cube on a roller (y held) with two symmetry planes (x and z held on one face each), a
  -- frictionless plane pressed 1 mm into its top: a uniform uniaxial stress, which linear tets
  -- represent exactly, F = E A delta / L. Nothing but the contact loads it: the merit of the first
  -- iteration (the unstrained body, 1e-12 N of rounding) once served as the reference and the
  -- rejected-step test undid every iteration that pressed the body in (it cycled to max_iterations).
  local E, delta = 1e5, 1e-3
  local w, b, base, probe, rep = pressed_cube("corotational", cube_mesh(), E, delta)
  local F = E * 0.01 * delta / 0.1
  T.truthy(rep.iterations <= 6, "converged in " .. rep.iterations .. " iterations")
  T.truthy(rep.residual <= 1e-9, "residual " .. rep.residual)
  T.near(w:probe(cl.probe.reaction(base)):read()[2], F, 1e-6 * F, "the roller carries E A delta / L")
  local f = probe:read()
  T.near(f[2], -F, 1e-6 * F, "the contact probe reads the equilibrium's contact force")
  T.near(f[1], 0, 1e-9 * F, "frictionless: no tangential force")
  T.near(f[5], 0.05 - delta, 1e-12, "applied on the plane")
  local p, X = b:positions("flat"), b:rest_positions("flat")
  for i = 2, #p, 3 do
    if X[i] > 0.0499 then T.near(p[i], 0.05 - delta, 1e-12, "the top sits on the plane") end
  end
end)

T.test("a quarter model pressed by a plane across its symmetry planes carries the full 10 N, on both FEM solvers", function()
  -- The uniaxial compression above as a quarter model (symmetry planes x and z, a roller under it),
  -- E A delta / L = 10 N at 1e-4 strain: the top nodes on the symmetry planes are supported and in
  -- contact. Before supported nodes could be in contact (fem/system.c) they passed through the plane
  -- and the roller carried 9.19 N; graph_fem shares the contact code, its corotated model agrees with
  -- the linear answer to the order of the strain. The static solve is driven by the contact alone
  -- (fem/static_solve.c's force reference), and the probe reads the equilibrium's force.
  local E, delta = 1e7, 1e-5
  local F = E * 0.01 * delta / 0.1
  local box = cube_mesh()
  local got = {}
  for _, solver in ipairs { "corotational", "graph_fem" } do
    local w, b, base, probe, rep = pressed_cube(solver, box, E, delta)
    T.truthy(rep.iterations <= 6, solver .. ": converged in " .. rep.iterations .. " iterations")
    local f, R = probe:read(), w:probe(cl.probe.reaction(base)):read()[2]
    T.near(f[2], -F, 1e-3 * F, solver .. ": the plane carries the full 10 N")
    T.near(R, -f[2], 1e-7 * F, solver .. ": the roller balances the contact force")
    local p, X = b:positions("flat"), b:rest_positions("flat")
    local on_sym = 0
    for i = 2, #p, 3 do
      if X[i] > 0.0499 then
        T.near(p[i], 0.05 - delta, 1e-12, solver .. ": the top sits on the plane")
        if X[i - 1] < -0.0499 or X[i + 1] < -0.0499 then on_sym = on_sym + 1 end
      end
    end
    T.truthy(on_sym > 0, solver .. ": top nodes on the symmetry planes: " .. on_sym)
    got[solver] = -f[2]
  end
  T.near(got.corotational, F, 1e-6 * F, "corotational: E A delta / L")
  T.near(got.graph_fem, got.corotational, 1e-3 * F, "graph_fem as the corotational solver")
end)

T.test("a static solve follows a pressure on the current surface to where it settles", function()
  -- A cube on a roller with symmetry planes, pressed on its top face by a follower pressure: 10 %
  -- strain, so the face grows by about 2 nu 10 % as it spreads. The reaction must balance the pressure
  -- on the face as it ends, p times its current area (the solver holds the forces fixed, so the
  -- world rebuilds them at each equilibrium; before, the roller carried the rest face's 100 N while
  -- the face as it ended took 106.1 N; now 106.49 N both, in 16 Newton iterations over the passes).
  local w = cl.world { dt = 1 / 100, gravity = { 0, 0, 0 }, threads = 1 }
  local box = cl.shape.box { size = { 0.1, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
  local b = w:body { mesh = box, solver = "corotational", material = { density = 1000, young = 1e5, poisson = 0.3 },
                     params = { tolerance = 1e-10 } }
  local base = w:support(b, cl.region.slab { axis = "y", below = -0.0499 }, cl.support.axis "y")
  w:support(b, cl.region.slab { axis = "x", below = -0.0499 }, cl.support.axis "x")
  w:support(b, cl.region.slab { axis = "z", below = -0.0499 }, cl.support.axis "z")
  local top = w:load(b, cl.region.slab { axis = "y", above = 0.0499 }, cl.load.pressure { pressure = 1e4 })
  w:solve_static { tolerance = 1e-9 }
  local f = top:total_force()[2]
  T.truthy(-f > 1e4 * 0.01 * 1.05, "the face grew: " .. -f .. " N on it")
  T.near(w:probe(cl.probe.reaction(base)):read()[2], -f, 1e-6 * -f, "the roller balances the pressure on the face as it ends")
end)

T.test("contacts found within a step keep a reused CHOLMOD factor a good preconditioner, both FEM solvers", function()
  -- A block resting on the ground: every step the contact-free solve lets its bottom nodes sink, they
  -- become contacts, their rows are turned into the contact frames and the island is solved again
  -- with the step's factor. The factor was made in x y z; without turning it into the frames too
  -- (fem/system.h's frame wrap; corotational/linsolve.c composes it with its rotations) CG took 5910
  -- iterations over these 30 steps, 1192 with it (graph_fem: 5806, 1153).
  local box = cl.shape.box { size = { 0.2, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-6 }
  for _, c in ipairs { { "corotational", "cg_iterations" }, { "graph_fem", "iterations" } } do
    local solver, stat = c[1], c[2]
    local w = cl.world { dt = 1 / 60, gravity = { 0, -9.81, 0 }, threads = 1 }
    w:collider { kind = "plane", normal = "y", center = { 0, -0.05, 0 }, friction = 0 }
    local b = w:body { mesh = box, solver = solver, material = { density = 1000, young = 1e5, poisson = 0.3 },
                       params = { linear_solver = "cholmod", tolerance = 1e-10, damping = 5 } }
    local total = 0
    for _ = 1, 30 do
      w:step(1)
      total = total + b:stats()[stat]
    end
    T.truthy(total < 2000, solver .. ": CG iterations over 30 steps: " .. total)
    T.near(mean(b, 2), 0, 0.01, solver .. ": it rests on the ground")
  end
end)

T.test("shape matching warns once that young and poisson do not set its stiffness", function()
  local before = #cl.warnings()
  local w = cl.world { dt = 1 / 60 }
  -- the defaults (1e6 Pa, 0.3) say nothing; the corotational solver uses what it is given
  w:body { mesh = bar_mesh(), solver = "shape_matching", material = { density = 1000 } }
  w:body { mesh = bar_mesh(), solver = "corotational", material = { young = 2e5, poisson = 0.2 } }
  T.eq(#cl.warnings(), before, "no warning for the defaults or for corotational")
  w:body { mesh = bar_mesh(), solver = "shape_matching", material = { young = 2e5 } }
  w:body { mesh = bar_mesh(), solver = "shape_matching", material = { poisson = 0.45 } }
  local seen = cl.warnings()
  T.eq(#seen, before + 2, "each such body is recorded")
  T.contains(seen[#seen - 1].message, "solver 'shape_matching' does not use young (200000 Pa) and poisson (0.3)")
  T.contains(seen[#seen - 1].message, "alpha")
  T.eq(#w:warnings(), 2, "the world's list has them too")
end)

T.test("bad supports and loads are refused with the condition and the value", function()
  local w = cl.world { dt = 1 / 100 }
  local b = w:body { mesh = bar_mesh(), solver = "corotational", material = elastic }
  T.error(function() w:support(b, cl.region.all(), cl.support.plane { normal = { 0, 0, 0 } }) end,
          { "cl.support.plane", "normal" })
  T.error(function() cl.support.line { direction = "x", velocity = 1 } end, { "cl.support.line", "velocity" })
  T.error(function() w:support(b, cl.region.all(), { normal = "y" }) end, { "world:support", "expected a support" })
  T.error(function() w:load(b, cl.region.all(), 5) end, { "world:load", "expected a surface load" })
  T.error(function() cl.load.pressure { pressure = 0 / 0 } end, { "cl.load.pressure", "pressure" })
  T.error(function() cl.load.traction { traction = { 1, 0, 0 }, ramp = -1 } end, { "cl.load.traction", "ramp" })
  -- a friction coefficient that is negative or NaN names the collider and the value
  T.error(function() w:collider { kind = "sphere", radius = 0.1, friction = -0.5 } end,
          { "world:collider{kind = \"sphere\"}", "friction = -0.5" })
  T.error(function() w:collider { kind = "plane", friction = 0 / 0 } end,
          { "world:collider{kind = \"plane\"}", "friction" })
  -- a pressure or traction on a body without a surface (shape matching keeps particles only): it has
  -- no area to integrate over and no outward normal, whichever nodes the region picks
  local sm = w:body { mesh = bar_mesh(), solver = "shape_matching", material = { density = 1000 } }
  T.error(function() w:load(sm, cl.region.all(), cl.load.pressure { pressure = 100 }) end,
          { "has no boundary surface to load", "solver 'shape_matching'", "pressure", "no outward normal", "world:force" })
  T.error(function() w:load(sm, cl.region.all(), cl.load.traction { traction = { 1, 0, 0 } }) end,
          { "has no boundary surface to load", "traction has no area" })
  -- a region of interior nodes only: no boundary triangle to load
  T.error(function()
    w:load(b, cl.region.box { lo = { -0.1, -0.02, -0.02 }, hi = { 0.1, 0.02, 0.02 } }, cl.load.traction { traction = { 1, 0, 0 } })
  end, { "no boundary triangle", "body 'body1'" })
end)

T.done()
