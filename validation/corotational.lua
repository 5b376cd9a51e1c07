-- Validation of the corotational solver (issues 3 and 16; docs/solvers/corotational.md) against
-- references nobody here wrote: the patch test of linear elements, rigid-body invariance,
-- Euler-Bernoulli beam theory with Timoshenko's shear correction, the cantilever's first natural
-- frequency, the known numerical damping of backward Euler, conservation of linear momentum, and
-- statics with supports, surface loads and contact: Lame's thick sphere under internal pressure,
-- Hertz's sphere pressed into a half-space, and a three-point bend, each by the static solve on a
-- sequence of meshes and by the damped dynamics to rest.
--
--   cleave run validation/corotational.lua                   every check, full meshes (80 s CPU)
--   cleave run validation/corotational.lua --set quick=true  coarse meshes (5 s; run by `make test`)
--   cleave run validation/corotational.lua --set only=cantilever   (or lame, hertz, bend, ...)
--   cleave run validation/corotational.lua --set solver=graph_fem  the statics checks (Lame, Hertz,
--                                                     three-point bend) with the graph-based FEM,
--                                                     which shares the supports, contact and static
--                                                     solve (src/fem/); the other checks are the
--                                                     corotational solver's own and are skipped
--
-- Prints one PASS/FAIL line per check with the measured value, the reference and the tolerance, and
-- exits 0 only if all passed. In quick mode the cantilever and frequency checks run on meshes too
-- coarse for the 2 % / 3 % tolerances of the full run: they check that the error shrinks under
-- refinement and stays within the tolerances stated on their lines.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local cl = require "cleave"
local check = dofile(here .. "/lib/check.lua")
local meshes = dofile(here .. "/lib/meshes.lua")

local opt = cl.options {
  { name = "quick", type = "boolean", default = false, help = "coarse meshes and short runs (the `make test` subset)" },
  { name = "only", type = "string", default = "", help = "run only the checks whose name contains this" },
  { name = "linear_solver", type = "enum", values = { "pcg", "cholmod" }, index_from = 0, default = "cholmod",
    help = "the solver's linear solver" },
  { name = "solver", type = "enum", values = { "corotational", "graph_fem" }, default = "corotational",
    help = "the solver of the statics checks (lame, hertz, bend); graph_fem runs only those" },
  { name = "threads", type = "integer", default = 1, range = { 0, 256 },
    help = "threads of the statics checks' worlds (0 = all cores)" },
}
local quick = opt.quick
local R = check.reporter(opt.solver .. (quick and " (quick)" or ""))

local STATICS = { lame = true, hertz = true, bend = true }
local function wanted(name)
  if opt.solver ~= "corotational" and not STATICS[name] then return false end
  return opt.only == "" or name:find(opt.only, 1, true)
end
if opt.solver ~= "corotational" then
  R:info("solver " .. opt.solver, "the statics checks only (lame, hertz, bend); the others are the corotational solver's")
end

local function max_abs(t)
  local m = 0
  for i = 1, #t do m = math.max(m, math.abs(t[i])) end
  return m
end

-- ---------------------------------------------------------------------------------------------
-- 1. Patch test: every boundary node of an irregular (TetGen) unit cube is driven to the affine
-- field x = (I + G) X of a uniform stretch; the interior is free. Linear tets reproduce a linear
-- displacement field exactly (the patch test), so every tet must end with F = I + G, strain G and
-- stress lambda tr(G) I + 2 mu G, to 1e-8.
if wanted("patch") then
  local E, nu = 1e5, 0.3
  local mesh = cl.shape.box { size = { 1, 1, 1 } }:tetrahedralize { quality = 1.5, max_volume = quick and 0.01 or 0.002 }
  local w = cl.world { dt = 0.25, gravity = { 0, 0, 0 }, threads = 1 }
  local body = w:body { name = "patch", shape = mesh, solver = "corotational",
                        material = { density = 1000, young = E, poisson = nu },
                        params = { tolerance = 1e-13, damping = 20, linear_solver = opt.linear_solver } }
  local G = { 0.01, -0.004, 0.002 }
  local X = body:rest_positions("flat")
  local T = 1.0
  local nb, interior = 0, 0
  for i = 1, #X / 3 do
    local on = false
    for k = 1, 3 do
      local c = X[3 * (i - 1) + k]
      if math.abs(c - 0.5) < 1e-12 or math.abs(c + 0.5) < 1e-12 then on = true end
    end
    if on then
      nb = nb + 1
      local v = {}
      for k = 1, 3 do v[k] = G[k] * X[3 * (i - 1) + k] / T end
      w:drive(body, cl.region.indices { i }, cl.motion.translate { velocity = v, duration = T })
    else
      interior = interior + 1
    end
  end
  w:step(40)
  local F = body:unit_field("deformation_gradient", "flat")
  local S = body:unit_field("stress", "flat")
  local mu, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
  local tr = G[1] + G[2] + G[3]
  local ferr, serr = 0, 0
  for u = 0, #F / 9 - 1 do
    for i = 1, 3 do
      for j = 1, 3 do
        local fe = i == j and 1 + G[i] or 0
        local se = i == j and lam * tr + 2 * mu * G[i] or 0
        ferr = math.max(ferr, math.abs(F[9 * u + 3 * (i - 1) + j] - fe))
        serr = math.max(serr, math.abs(S[9 * u + 3 * (i - 1) + j] - se))
      end
    end
  end
  R:info("patch test mesh", string.format("%d tets, %d boundary nodes driven, %d interior nodes free", #F / 9, nb, interior))
  R:abs("patch test: max |F - (I + G)| over all tets", ferr, 0, 1e-8)
  R:abs("patch test: max |sigma - sigma_exact| / E over all tets", serr / E, 0, 1e-8)
  w:destroy()
end

-- ---------------------------------------------------------------------------------------------
-- 2. Rigid rotation by 90 degrees: every node driven through a quarter turn about (1, 1, 1), then
-- let go. Stiffness warping must see no strain: F = R, no stress, no elastic energy, and once free
-- the body stays still.
if wanted("rotation") then
  local E = 1e5
  local mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { quality = 1.5, max_volume = quick and 2e-4 or 2e-5 }
  local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
  local body = w:body { name = "spun", shape = mesh, solver = "corotational",
                        material = { density = 1000, young = E, poisson = 0.3 },
                        params = { linear_solver = opt.linear_solver } }
  local T = 0.5
  -- the turn stops at T (the nodes are then held at rest) and the body is let go two steps later
  w:drive(body, cl.region.all {}, cl.motion.rotate { axis = { 1, 1, 1 }, center = { 0, 0, 0 }, rate = math.pi / 2 / T,
                                                    duration = T, release = T + 0.02 })
  local energy = w:probe(cl.probe.elastic(body))
  w:step(math.floor(T / 0.01 + 0.5))
  local Rm = cl.rotation_matrix({ 1, 1, 1 }, math.pi / 2)
  local F = body:unit_field("deformation_gradient", "flat")
  local S = body:unit_field("stress", "flat")
  local ferr = 0
  for u = 0, #F / 9 - 1 do
    for k = 1, 9 do ferr = math.max(ferr, math.abs(F[9 * u + k] - Rm[k])) end
  end
  R:abs("rotation 90 deg: max |F - R|", ferr, 0, 1e-10)
  R:abs("rotation 90 deg: max |sigma| / E", max_abs(S) / E, 0, 1e-10)
  R:abs("rotation 90 deg: elastic energy", energy:read(), 0, 1e-16, "J")
  w:step(22)
  local v = body:velocities("flat")
  R:abs("rotation 90 deg: max speed 20 steps after release", max_abs(v), 0, 1e-10, "m/s")
  R:abs("rotation 90 deg: elastic energy 20 steps after release", energy:read(), 0, 1e-16, "J")
  w:destroy()
end

-- ---------------------------------------------------------------------------------------------
-- Cantilever L x h x h (L = 1 m, h = 0.1 m) clamped at x = 0 (every node of that face held), on
-- structured meshes of 10k x k x k cells (6 tets each). Static solutions by backward Euler with a
-- time step of 1 s, 30 times the period of the first mode: the mass term is then ~1e-3 of the
-- stiffness and each step is close to a Newton step of the static problem with the rotations of the
-- last one; 8 steps converge far below the tolerance.
-- References (Timoshenko & Gere, "Mechanics of Materials"; Cowper 1966 for the shear coefficient of
-- a rectangle, kappa = 10(1+nu)/(12+11nu)):
--   end load P:   delta = P L^3 / (3 E I) + P L / (kappa G A)
--   self-weight:  delta = q L^4 / (8 E I) + q L^2 / (2 kappa G A),  q = rho g A
-- nu = 0: the fully held end face then matches the beam's clamp (no Poisson contraction to
-- restrain); with nu = 0.3 the same meshes are stiffer by a further ~2 % on the finest mesh.
-- Loads are small (deflection ~1e-3 L) so geometric nonlinearity stays far below the tolerance.
local L, h = 1.0, 0.1
local function cantilever(k, load, E, nu, rho)
  local g = meshes.grid(cl, { 10 * k, k, k }, { 0, -h / 2, -h / 2 }, { L, h / 2, h / 2 })
  local w = cl.world { dt = 1, gravity = load == "weight" and { 0, -9.81, 0 } or { 0, 0, 0 }, threads = 0 }
  local body = w:body { name = "cantilever", mesh = g.mesh, solver = "corotational",
                        material = { density = rho, young = E, poisson = nu },
                        params = { linear_solver = opt.linear_solver, tolerance = 1e-12, damping = 1,
                                   max_iterations = 100000 } }
  w:fix(body, cl.region.slab { axis = "x", below = 0 })
  return w, body, g
end

-- Mean displacement of the tip face along -dir (default -y), m.
local function tip_deflection(body, g, dir)
  dir = dir or { 0, 1, 0 }
  local x = body:positions("flat")
  local sum, n = 0, 0
  for j = 0, g.n[2] do
    for k = 0, g.n[3] do
      local i = g.node(g.n[1], j, k)
      for c = 1, 3 do sum = sum + dir[c] * (x[3 * i - 3 + c] - g.points[3 * i - 3 + c]) end
      n = n + 1
    end
  end
  return -sum / n
end

local function beam_reference(load, E, nu, rho, P)
  local G, I, A = E / (2 * (1 + nu)), h ^ 4 / 12, h * h
  local kap = 10 * (1 + nu) / (12 + 11 * nu)
  if load == "weight" then
    local q = rho * 9.81 * A
    return q * L ^ 4 / (8 * E * I) + q * L ^ 2 / (2 * kap * G * A), q * L ^ 4 / (8 * E * I)
  end
  return P * L ^ 3 / (3 * E * I) + P * L / (kap * G * A), P * L ^ 3 / (3 * E * I)
end

if wanted("cantilever") then
  local levels = quick and { 1, 2, 3 } or { 4, 8, 12, 16 }
  local E, nu, rho, P = 1e8, 0.0, 1000, 2.5
  for _, load in ipairs { "end load", "weight" } do
    local errs, text = {}, {}
    local ref, eb = beam_reference(load, E, nu, rho, P)
    for _, k in ipairs(levels) do
      local w, body, g = cantilever(k, load, E, nu, rho)
      if load == "end load" then w:force(body, cl.region.slab { axis = "x", above = L }, { 0, -P, 0 }) end
      w:step(8)
      local d = tip_deflection(body, g)
      errs[#errs + 1] = math.abs(d - ref) / ref
      text[#text + 1] = string.format("%dx%dx%d: %.3f %%", 10 * k, k, k, 100 * errs[#errs])
      R:info(string.format("cantilever (%s), %d tets", load, #g.cells / 4),
             string.format("tip deflection %.6e m, Timoshenko %.6e m (Euler-Bernoulli %.6e m), error %.3f %%", d, ref, eb,
                           100 * errs[#errs]))
      w:destroy()
    end
    local shrinking = true
    for i = 2, #errs do shrinking = shrinking and errs[i] < errs[i - 1] end
    R:ok(string.format("cantilever (%s): error shrinks under refinement", load), shrinking, table.concat(text, " > "))
    if quick then
      R:le(string.format("cantilever (%s): relative error on the %dx%dx%d mesh (quick: coarse)", load, 10 * levels[#levels],
                         levels[#levels], levels[#levels]), errs[#errs], 0.35)
    else
      R:le(string.format("cantilever (%s): relative error on the finest mesh %dx%dx%d", load, 10 * levels[#levels],
                         levels[#levels], levels[#levels]), errs[#errs], 0.02)
    end
  end
end

-- ---------------------------------------------------------------------------------------------
-- First natural frequency. The cantilever is pushed at its tip for half a period, then left to
-- vibrate freely (no damping, no gravity); the period is measured from the upward zero crossings
-- of the tip deflection. The push is along the diagonal (0, 1, -1) of the square section: the
-- 6-tet cells are symmetric under swapping y and z but not under y -> -y, so the two bending modes
-- of the mesh vibrate along the diagonals, with frequencies that differ on coarse meshes (by 13 % on
-- 20x2x2, converging together under refinement); a push along y would excite both and beat. Along
-- (0, 1, -1) the lower one vibrates alone. Reference: Euler-Bernoulli omega_1 = 1.8751^2 sqrt(E I / (rho A L^4)),
-- lowered by shear flexibility: omega = omega_EB / sqrt(1 + 4 E I / (kappa G A L^2)) (the ratio of
-- the shear to the bending deflection under a distributed load). Backward Euler shifts the
-- frequency by -(omega dt)^2 / 3 (~0.1 % with 100 steps a period).
local function free_vibration(k, steps_per_period, periods, E, nu, rho)
  local I, A, G = h ^ 4 / 12, h * h, E / (2 * (1 + nu))
  local kap = 10 * (1 + nu) / (12 + 11 * nu)
  local w_eb = 1.8751 ^ 2 * math.sqrt(E * I / (rho * A * L ^ 4))
  local omega_ref = w_eb / math.sqrt(1 + 4 * E * I / (kap * G * A * L ^ 2))
  local T = 2 * math.pi / omega_ref
  local dt = T / steps_per_period
  local g = meshes.grid(cl, { 10 * k, k, k }, { 0, -h / 2, -h / 2 }, { L, h / 2, h / 2 })
  local w = cl.world { dt = dt, gravity = { 0, 0, 0 }, threads = 0 }
  local body = w:body { name = "vibrating", mesh = g.mesh, solver = "corotational",
                        material = { density = rho, young = E, poisson = nu },
                        params = { linear_solver = opt.linear_solver, tolerance = 1e-10 } }
  w:fix(body, cl.region.slab { axis = "x", below = 0 })
  -- a small push (static tip deflection ~4e-4 L) keeps the motion linear, as the references assume
  local dir = { 0, math.sqrt(0.5), -math.sqrt(0.5) }
  local push = w:force(body, cl.region.slab { axis = "x", above = L }, { 0, -0.01 * dir[2], -0.01 * dir[3] })
  local kin, ela = w:probe(cl.probe.kinetic(body)), w:probe(cl.probe.elastic(body))
  local half = math.floor(steps_per_period / 2 + 0.5)
  w:step(half)
  push:remove()
  local t, y, e = {}, {}, {}
  for s = 1, math.floor(periods * steps_per_period + 0.5) do
    w:step(1)
    t[s] = s * dt
    y[s] = tip_deflection(body, g, dir)
    e[s] = kin:read() + ela:read()
  end
  w:destroy()
  -- upward zero crossings of the tip deflection, linearly interpolated
  local cross = {}
  for s = 2, #y do
    if y[s - 1] < 0 and y[s] >= 0 then cross[#cross + 1] = t[s - 1] + dt * (-y[s - 1]) / (y[s] - y[s - 1]) end
  end
  local period = #cross >= 2 and (cross[#cross] - cross[1]) / (#cross - 1) or 0 / 0
  return { omega = 2 * math.pi / period, omega_ref = omega_ref, omega_eb = w_eb, dt = dt, energy = e, times = t,
           crossings = #cross, tets = #g.cells / 4 }
end

if wanted("frequency") then
  local E, nu, rho = 1e6, 0.0, 1000
  local k = quick and 2 or 8
  local r = free_vibration(k, 100, quick and 2.2 or 2.2, E, nu, rho)
  R:info(string.format("free vibration, %d tets, dt = %.4g s", r.tets, r.dt),
         string.format("%d upward zero crossings; omega %.5f rad/s, reference %.5f (Euler-Bernoulli %.5f)", r.crossings,
                       r.omega, r.omega_ref, r.omega_eb))
  R:rel(string.format("first natural frequency (%dx%dx%d mesh%s)", 10 * k, k, k, quick and ", quick: coarse" or ""),
        r.omega / (2 * math.pi), r.omega_ref / (2 * math.pi), quick and 0.35 or 0.03, "Hz")
end

-- ---------------------------------------------------------------------------------------------
-- Energy of a free vibration with zero damping. Backward Euler multiplies the energy of a mode of
-- frequency omega by 1 / (1 + (omega dt)^2) per step, and nothing else may change it. After the
-- higher modes the tip push excites have died out (one period), the energy over the next periods
-- must follow that factor for the measured omega_1 (one mode alone: the diagonal push above);
-- halving dt must halve the loss per unit time.
if wanted("energy") then
  local E, nu, rho = 1e6, 0.0, 1000
  local k = quick and 2 or 3
  local results = {}
  for _, spp in ipairs { 60, 120 } do
    local r = free_vibration(k, spp, 3.0, E, nu, rho)
    local i0, i1 = spp, #r.energy
    local measured = math.log(r.energy[i1] / r.energy[i0])
    -- the zero crossings give backward Euler's frequency atan(omega dt) / dt; the mode's own is
    -- tan(omega_measured dt) / dt
    local wdt = math.tan(r.omega * r.dt)
    local predicted = -(i1 - i0) * math.log(1 + wdt ^ 2)
    results[#results + 1] = measured / (r.times[i1] - r.times[i0])
    R:rel(string.format("energy drift over 2 periods, %d steps/period: ln(E_end/E_start) against -n ln(1 + (omega dt)^2)",
                        spp), measured, predicted, 0.005)
  end
  R:rel("energy drift: loss per unit time, dt halved (ratio)", results[1] / results[2], 2.0, 0.02)
end

-- ---------------------------------------------------------------------------------------------
-- Momentum in free flight: one end of a bar is swung about an off-centre axis and let go, so the
-- bar flies off spinning and vibrating (elastic forces at work). No gravity, no damping. Linear
-- momentum sum m_i v_i (lumped masses rho V / 4 per tet corner, computed here from the mesh) must
-- stay constant to 1e-12. Angular momentum is reported: backward Euler with the stiffness of the
-- step's start damps it slightly (docs/solvers/corotational.md).
if wanted("momentum") then
  local rho = 1000
  local g = meshes.grid(cl, { 8, 2, 2 }, { -0.2, -0.025, -0.025 }, { 0.2, 0.025, 0.025 })
  local masses = meshes.lumped_masses(g.points, g.cells, rho)
  local w = cl.world { dt = 1e-3, gravity = { 0, 0, 0 }, threads = 1 }
  local body = w:body { name = "flyer", mesh = g.mesh, solver = "corotational",
                        material = { density = rho, young = 1e5, poisson = 0.3 }, params = { linear_solver = "pcg" } }
  w:drive(body, cl.region.slab { axis = "x", below = -0.15 },
          cl.motion.rotate { axis = { 0.3, 0.2, 1 }, center = { 0.1, -0.3, 0.05 }, rate = 3.0, release = 0.02 })
  w:step(21)
  local function momenta()
    local x, v = body:positions("flat"), body:velocities("flat")
    local P, Lm = { 0, 0, 0 }, { 0, 0, 0 }
    for i = 1, #masses do
      local m = masses[i]
      local xi = { x[3 * i - 2], x[3 * i - 1], x[3 * i] }
      local vi = { v[3 * i - 2], v[3 * i - 1], v[3 * i] }
      for c = 1, 3 do P[c] = P[c] + m * vi[c] end
      Lm[1] = Lm[1] + m * (xi[2] * vi[3] - xi[3] * vi[2])
      Lm[2] = Lm[2] + m * (xi[3] * vi[1] - xi[1] * vi[3])
      Lm[3] = Lm[3] + m * (xi[1] * vi[2] - xi[2] * vi[1])
    end
    return P, Lm
  end
  local function norm(a) return math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2) end
  local P0, L0 = momenta()
  local e = w:probe(cl.probe.elastic(body))
  local dp, dl = 0, 0
  for _ = 1, quick and 4 or 20 do
    w:step(10)
    local P, Lm = momenta()
    dp = math.max(dp, norm { P[1] - P0[1], P[2] - P0[2], P[3] - P0[3] } / norm(P0))
    dl = math.max(dl, norm { Lm[1] - L0[1], Lm[2] - L0[2], Lm[3] - L0[3] } / norm(L0))
  end
  R:info("free flight", string.format("|P| = %.6g kg m/s, elastic energy %.3g J at the end", norm(P0), e:read()))
  R:le("momentum in free flight: max |P(t) - P(0)| / |P(0)|", dp, 1e-12)
  R:info("angular momentum in free flight: max |L(t) - L(0)| / |L(0)| (backward Euler damps spin)", dl)
  w:destroy()
end

-- ---------------------------------------------------------------------------------------------
-- Momentum exchange with a dynamic rigid body (docs/RIGID_BODIES.md): a 0.5 kg sphere at 2 m/s hits
-- a free 0.1 m block (1 kg, E = 2e5 Pa) slightly off-centre, no gravity. The sphere is charged the
-- reaction of the contact rows after the constrained re-solve (src/solvers/corotational/step.c), so
-- sphere + block momentum (block: lumped masses computed here) stays constant to 1e-12 through the
-- impact; it drifted 1.2e-2 when the impulse was taken from the projection before the re-solve.
if wanted("momentum") then
  local rho = 1000
  local g = meshes.grid(cl, { 4, 4, 4 }, { 0, 0, 0 }, { 0.1, 0.1, 0.1 })
  local masses = meshes.lumped_masses(g.points, g.cells, rho)
  local w = cl.world { dt = 1e-4, gravity = { 0, 0, 0 }, threads = 1 }
  local body = w:body { name = "block", mesh = g.mesh, solver = "corotational",
                        material = { density = rho, young = 2e5, poisson = 0.3 }, params = { linear_solver = "pcg" } }
  local M = 0.5
  local ball = w:collider { kind = "sphere", radius = 0.05, center = { -0.06, 0.06, 0.05 }, velocity = { 2, 0, 0 },
                            dynamic = true, mass = M, friction = 0.5 }
  local function total()
    local v, vb = body:velocities("flat"), ball:velocity()
    local P = { M * vb[1], M * vb[2], M * vb[3] }
    for i = 1, #masses do
      for c = 1, 3 do P[c] = P[c] + masses[i] * v[3 * i - 3 + c] end
    end
    return P
  end
  local P0, dp = total(), 0
  for _ = 1, quick and 40 or 60 do
    w:step(10)
    local P = total()
    dp = math.max(dp, math.sqrt((P[1] - P0[1]) ^ 2 + (P[2] - P0[2]) ^ 2 + (P[3] - P0[3]) ^ 2) / math.abs(P0[1]))
  end
  local vb = ball:velocity()
  R:info("sphere on a free block", string.format("sphere v_x 2 -> %.4f m/s after %d steps", vb[1], quick and 400 or 600))
  R:le("momentum exchange with a dynamic sphere: max |P(t) - P(0)| / |P(0)|", dp, 1e-12)
  w:destroy()
end

-- ---------------------------------------------------------------------------------------------
-- Statics (issue 16): three textbook problems with supports, surface loads and contact, solved by
-- world:solve_static (Newton on the warped stiffness with pseudo-transient continuation,
-- src/solvers/corotational/static.c) on a sequence of meshes, and on one mesh each by the dynamic
-- solver with Rayleigh mass damping, stepped until it rests: both must find the same state.
local function section_clock() return os.clock() end

-- Solve a world to equilibrium, report its Newton iterations and time; returns the report. The
-- unbalanced force is driven to 1e-8 of the load (CG solves each iteration to 1e-10 of its
-- right-hand side, which leaves a floor near 1e-9: the Hertz block stalls at 1.3e-9 to 2.3e-9).
local function solve_static(w, what)
  local t0 = os.clock()
  local rep = w:solve_static { tolerance = 1e-8, max_iterations = 60 }
  R:info(what .. ": static solve", string.format("%d Newton iterations, unbalanced force %.2g of the load, %.1f s CPU",
                                                 rep.iterations, rep.residual, os.clock() - t0))
  return rep
end

-- Check that the relative errors of a refinement study shrink, printing them as "label: x %".
local function check_shrinking(name, errs, labels)
  local ok, text = true, {}
  for i = 1, #errs do
    text[i] = string.format("%s: %.2f %%", labels[i], 100 * errs[i])
    if i > 1 and not (math.abs(errs[i]) < math.abs(errs[i - 1])) then ok = false end
  end
  R:ok(name .. " shrinks under refinement", ok, table.concat(text, " > "))
end

-- The static solve must reach at most this many Newton iterations on these problems (measured 3 to
-- 8): more would mean the continuation or the contact active set lost its way.
local STATIC_ITERATIONS = 15
-- The damped dynamics against the static solve, relative (measured 1e-7 to 1e-14 at the step
-- counts used).
local DYNAMIC_TOL = 1e-5

-- 1. Lame's thick sphere under internal pressure (Timoshenko & Goodier, "Theory of Elasticity",
-- 3rd ed., sec. 137): inner radius a, outer b, pressure p, radial displacement
--     u(r) = p a^3 / (E (b^3 - a^3)) [ (1 - 2 nu) r + (1 + nu) b^3 / (2 r^2) ].
-- The octant x, y, z >= 0 with three symmetry planes (cl.support.axis on each coordinate face),
-- the pressure on the inner surface (nodes at r <= a), as a follower load. Meshes: the octant's
-- surface cut into n x n triangles per spherical patch and n/2 geometric radial steps
-- (meshes.shell_octant), TetGen with edges graded as r pi / (2 n) (a size zone at the centre), so
-- the element size follows the 1/r^3 decay of the stress gradient. u is the mean radial displacement
-- of the nodes on each sphere (they lie on it at rest; the facets inscribe it).
local function lame_mesh(n)
  local a, b = 0.1, 0.2
  local surf = meshes.shell_octant(cl, a, b, n, math.max(2, math.floor(n / 2)))
  return surf:tetrahedralize { quality = 1.5, zones = { { center = { 0, 0, 0 }, size = 1e-4, growth = math.pi / (2 * n) } } }
end

local function lame_world(mesh, dt, damping, ramp)
  local a, p, E, nu = 0.1, 10e6, 210e9, 0.3
  local w = cl.world { dt = dt, gravity = { 0, 0, 0 }, threads = opt.threads }
  local body = w:body { name = "shell", mesh = mesh, solver = opt.solver, material = { density = 7850, young = E, poisson = nu },
                        params = { linear_solver = opt.linear_solver, tolerance = 1e-10, max_iterations = 5000, damping = damping } }
  for _, axis in ipairs { "x", "y", "z" } do
    w:support(body, cl.region.slab { axis = axis, below = 1e-9 }, cl.support.axis(axis))
  end
  w:load(body, cl.region.sphere { center = { 0, 0, 0 }, radius = a * (1 + 1e-9) }, cl.load.pressure { pressure = p, ramp = ramp })
  return w, body
end

-- mean radial displacement of the nodes at rest radius r0
local function radial_displacement(body, r0)
  local x, X = body:positions("flat"), body:rest_positions("flat")
  local sum, count = 0, 0
  for i = 1, #X / 3 do
    local r = math.sqrt(X[3 * i - 2] ^ 2 + X[3 * i - 1] ^ 2 + X[3 * i] ^ 2)
    if math.abs(r - r0) < 1e-9 then
      sum = sum + ((x[3 * i - 2] - X[3 * i - 2]) * X[3 * i - 2] + (x[3 * i - 1] - X[3 * i - 1]) * X[3 * i - 1] +
                   (x[3 * i] - X[3 * i]) * X[3 * i]) / r
      count = count + 1
    end
  end
  return sum / count
end

if wanted("lame") then
  local t0 = section_clock()
  local a, b, p, E, nu = 0.1, 0.2, 10e6, 210e9, 0.3
  local c = p * a ^ 3 / (E * (b ^ 3 - a ^ 3))
  local function u_ref(r) return c * ((1 - 2 * nu) * r + (1 + nu) * b ^ 3 / (2 * r ^ 2)) end
  local levels = quick and { 4, 8 } or { 4, 8, 16 }
  local ea, eb, labels, last = {}, {}, {}, nil
  for _, n in ipairs(levels) do
    local mesh = lame_mesh(n)
    local w, body = lame_world(mesh, 1, 0, 0)
    local rep = solve_static(w, string.format("Lame sphere, n = %d (%d tets)", n, mesh:info().cells))
    R:le(string.format("Lame sphere, n = %d: static Newton iterations", n), rep.iterations, STATIC_ITERATIONS)
    local ua, ub = radial_displacement(body, a), radial_displacement(body, b)
    ea[#ea + 1], eb[#eb + 1] = ua / u_ref(a) - 1, ub / u_ref(b) - 1
    labels[#labels + 1] = string.format("%d tets", mesh:info().cells)
    R:info(string.format("Lame sphere, n = %d, %d nodes, %d tets", n, mesh:info().points, mesh:info().cells),
           string.format("u(a) = %.5e m (Lame %.5e, %.2f %%), u(b) = %.5e m (Lame %.5e, %.2f %%)", ua, u_ref(a),
                         100 * ea[#ea], ub, u_ref(b), 100 * eb[#eb]))
    last = { n = n, mesh = mesh, ua = ua, ub = ub, tets = mesh:info().cells }
    w:destroy()
  end
  check_shrinking("Lame sphere: error of u(a)", ea, labels)
  check_shrinking("Lame sphere: error of u(b)", eb, labels)
  local tol = quick and 0.05 or 0.02
  local finest = string.format("(n = %d, %d tets%s)", last.n, last.tets, quick and ", quick: coarse" or "")
  R:rel("Lame sphere: u(a) " .. finest, last.ua, u_ref(a), tol, "m")
  R:rel("Lame sphere: u(b) " .. finest, last.ub, u_ref(b), tol, "m")
  -- The same sphere by the dynamics: the pressure ramped up over 0.2 ms (about two periods of the
  -- breathing mode), mass damping 2e4 1/s, 40 steps of 20 us to rest; against the static solve on
  -- the same mesh.
  local n = quick and 4 or 8
  local mesh = lame_mesh(n)
  local ws, bs = lame_world(mesh, 1, 0, 0)
  solve_static(ws, string.format("Lame sphere, n = %d, for the dynamics", n))
  local wd, bd = lame_world(mesh, 2e-5, 2e4, 2e-4)
  wd:step(40)
  R:rel(string.format("Lame sphere, n = %d: u(a) of the damped dynamics at rest (40 steps) against the static solve", n),
        radial_displacement(bd, a), radial_displacement(bs, a), DYNAMIC_TOL, "m")
  R:rel(string.format("Lame sphere, n = %d: u(b) of the damped dynamics at rest against the static solve", n),
        radial_displacement(bd, b), radial_displacement(bs, b), DYNAMIC_TOL, "m")
  ws:destroy()
  wd:destroy()
  R:info("Lame sphere: section time", string.format("%.1f s CPU", os.clock() - t0))
end

-- 2. Hertz: a rigid sphere of radius Rs pressed a depth d into an elastic half-space (K. L. Johnson,
-- "Contact Mechanics", 1985, sec. 4.2): contact radius a = sqrt(Rs d), force
--     F = 4/3 E* sqrt(Rs) d^(3/2),   E* = E / (1 - nu^2)   (the sphere rigid).
-- Rs = 10 mm, E = 1 MPa, nu = 0.45, d = 0.071 mm: a = 0.843 mm, F = 0.1000 N. The half-space is a
-- quarter block x, z in [0, W], y in [-W, 0] (W = 100 mm = 119 a; quick: 30 mm) with symmetry
-- planes x = 0 and z = 0 and its bottom fixed; the sphere a frictionless kinematic collider centred
-- at (0, Rs - d, 0). The mesh is graded (a TetGen size zone over the contact, 1.5 a square, edges h
-- there growing by 0.25 per unit distance). The force is 4 x the contact probe's (equal to the
-- bottom's reaction); the contact radius from the contact area: a third of each top triangle's rest
-- area for each of its nodes that sits on the sphere, A = pi a^2 / 4 (smoother under refinement
-- than the radius of the outermost node in contact, which jumps by h). A finite block is stiffer
-- than the half-space: the fixed bottom at depth W removes roughly the Boussinesq displacement
-- under the load there, F (1 + nu)(3 - 2 nu) / (2 pi E W), about 0.7 % of d at W = 100 mm (x 1.5
-- in F).
local HERTZ = { Rs = 0.01, E = 1e6, nu = 0.45, d = 0.071e-3 }
HERTZ.a = math.sqrt(HERTZ.Rs * HERTZ.d)
HERTZ.F = 4 / 3 * HERTZ.E / (1 - HERTZ.nu ^ 2) * math.sqrt(HERTZ.Rs) * HERTZ.d ^ 1.5

local function hertz_mesh(W, h)
  local zone = 1.5 * HERTZ.a
  return cl.shape.box { size = { W, W, W }, center = { W / 2, -W / 2, W / 2 } }:tetrahedralize {
    quality = 1.5, zones = { { lo = { 0, 0, 0 }, hi = { zone, 0, zone }, size = h, growth = 0.25 } } }
end

-- A world with the block and the sphere: at its final depth (static), or moving down to it over
-- tmove (dynamic: it starts touching and stops at the depth).
local function hertz_world(mesh, W, dt, damping, tmove)
  local w = cl.world { dt = dt, gravity = { 0, 0, 0 }, threads = opt.threads }
  local body = w:body { name = "block", mesh = mesh, solver = opt.solver,
                        material = { density = 1000, young = HERTZ.E, poisson = HERTZ.nu },
                        params = { linear_solver = opt.linear_solver, tolerance = 1e-10, max_iterations = 5000, damping = damping } }
  local eps = 1e-9
  w:support(body, cl.region.slab { axis = "x", below = eps }, cl.support.axis "x")
  w:support(body, cl.region.slab { axis = "z", below = eps }, cl.support.axis "z")
  local bottom = w:fix(body, cl.region.slab { axis = "y", below = -W + eps })
  local ball
  if tmove then
    ball = w:collider { kind = "sphere", radius = HERTZ.Rs, center = { 0, HERTZ.Rs, 0 },
                        velocity = { 0, -HERTZ.d / tmove, 0 }, duration = tmove, friction = 0 }
  else
    ball = w:collider { kind = "sphere", radius = HERTZ.Rs, center = { 0, HERTZ.Rs - HERTZ.d, 0 }, friction = 0 }
  end
  return w, body, w:probe(cl.probe.contact(body, ball)), w:probe(cl.probe.reaction(bottom))
end

-- The contact radius from the area of the top face in contact (above), m.
local function hertz_contact_radius(mesh, body)
  local x = body:positions("flat")
  local c = { 0, HERTZ.Rs - HERTZ.d, 0 }
  local bnd = mesh:boundary()
  local P, T = bnd:points("flat"), bnd:cells("flat")
  local on = {}
  local function touching(i)
    if on[i] == nil then
      local gap = math.sqrt((x[3 * i - 2] - c[1]) ^ 2 + (x[3 * i - 1] - c[2]) ^ 2 + (x[3 * i] - c[3]) ^ 2) - HERTZ.Rs
      -- a contact node slides along the sphere's tangent within the last Newton iteration, which
      -- leaves it 1e-6 to 1e-5 d off the sphere; the first free node sits 3e-2 d off (h = 0.4 mm)
      on[i] = gap < 1e-3 * HERTZ.d
    end
    return on[i]
  end
  local area = 0
  for t = 0, #T / 3 - 1 do
    local v = { T[3 * t + 1], T[3 * t + 2], T[3 * t + 3] }
    if P[3 * v[1] - 1] > -1e-12 and P[3 * v[2] - 1] > -1e-12 and P[3 * v[3] - 1] > -1e-12 then
      local ux, uz = P[3 * v[2] - 2] - P[3 * v[1] - 2], P[3 * v[2]] - P[3 * v[1]]
      local wx, wz = P[3 * v[3] - 2] - P[3 * v[1] - 2], P[3 * v[3]] - P[3 * v[1]]
      local third = math.abs(ux * wz - uz * wx) / 6
      for q = 1, 3 do
        if touching(v[q]) then area = area + third end
      end
    end
  end
  bnd:destroy()
  return math.sqrt(4 * area / math.pi)
end

if wanted("hertz") then
  local t0 = section_clock()
  local W = quick and 0.03 or 0.1
  local levels = quick and { 0.8e-3, 0.4e-3 } or { 0.4e-3, 0.2e-3, 0.1e-3 }
  R:info("Hertz", string.format("reference: a = %.4f mm, F = %.5f N (E* = %.4g Pa)", HERTZ.a * 1e3, HERTZ.F,
                                HERTZ.E / (1 - HERTZ.nu ^ 2)))
  local eF, ea, labels, last = {}, {}, {}, nil
  for _, h in ipairs(levels) do
    local mesh = hertz_mesh(W, h)
    local w, body, contact, bottom = hertz_world(mesh, W, 1, 0, nil)
    local what = string.format("Hertz, h = %.2f mm (%d tets)", h * 1e3, mesh:info().cells)
    local rep = solve_static(w, what)
    R:le(string.format("Hertz, h = %.2f mm: static Newton iterations", h * 1e3), rep.iterations, STATIC_ITERATIONS)
    local F, Fb = -4 * contact:read()[2], 4 * bottom:read()[2]
    local a = hertz_contact_radius(mesh, body)
    eF[#eF + 1], ea[#ea + 1] = F / HERTZ.F - 1, a / HERTZ.a - 1
    labels[#labels + 1] = string.format("h = %.2f mm", h * 1e3)
    R:info(string.format("Hertz, h = %.2f mm, %d nodes, %d tets", h * 1e3, mesh:info().points, mesh:info().cells),
           string.format("F = %.5f N (%.2f %%; the bottom's reaction %.5f N), a = %.4f mm (%.2f %%)", F, 100 * eF[#eF],
                         Fb, a * 1e3, 100 * ea[#ea]))
    R:rel(string.format("Hertz, h = %.2f mm: contact probe against the bottom's reaction", h * 1e3), F, Fb, 1e-6, "N")
    last = { h = h, F = F, a = a, tets = mesh:info().cells }
    w:destroy()
  end
  check_shrinking("Hertz: error of the force", eF, labels)
  check_shrinking("Hertz: error of the contact radius", ea, labels)
  local finest = string.format("(h = %.2f mm, %d tets%s)", last.h * 1e3, last.tets, quick and ", quick: coarse, small block" or "")
  R:rel("Hertz: force " .. finest, last.F, HERTZ.F, quick and 0.15 or 0.05, "N")
  R:rel("Hertz: contact radius " .. finest, last.a, HERTZ.a, 0.1, "m")
  -- The dynamics: the sphere lowered from touching to the depth d over 20 ms (10 steps of 2 ms),
  -- then held; mass damping 500 1/s (the block's lowest mode is near 80 Hz); 30 steps to rest.
  local h = levels[1]
  local mesh = hertz_mesh(W, h)
  local ws, bs, cs = hertz_world(mesh, W, 1, 0, nil)
  solve_static(ws, string.format("Hertz, h = %.2f mm, for the dynamics", h * 1e3))
  local wd, bd, cd = hertz_world(mesh, W, 2e-3, 500, 0.02)
  wd:step(30)
  R:rel(string.format("Hertz, h = %.2f mm: force of the damped dynamics at rest (30 steps) against the static solve", h * 1e3),
        cd:read()[2], cs:read()[2], DYNAMIC_TOL, "N")
  R:rel(string.format("Hertz, h = %.2f mm: contact radius of the damped dynamics at rest against the static solve", h * 1e3),
        hertz_contact_radius(mesh, bd), hertz_contact_radius(mesh, bs), DYNAMIC_TOL, "m")
  ws:destroy()
  wd:destroy()
  R:info("Hertz: section time", string.format("%.1f s CPU", os.clock() - t0))
end

-- 3. Three-point bend: a beam of span L = 0.2 m, section b x h = 20 x 20 mm, overhanging its rollers
-- by 10 mm, loaded at mid-span by a traction on a patch s = 10 mm long across the width (total P =
-- 10 N). Timoshenko beam theory with shear (Timoshenko & Gere, "Mechanics of Materials"; Roark's
-- "Formulas for Stress and Strain", table 8.1, case 1e, for a load spread over a central length s;
-- Cowper 1966 for the shear coefficient of a rectangle, kappa = 10 (1 + nu) / (12 + 11 nu)): the
-- mid-span deflection of the axis relative to the axis over the rollers is
--     delta = P (8 L^3 - 4 L s^2 + s^3) / (384 E I) + P (L / 4 - s / 8) / (kappa G A)
-- (s -> 0: P L^3 / (48 E I) + P L / (4 kappa G A)). Quarter model: symmetry planes x = 0 and z = 0,
-- the roller a cl.support.axis "y" on the bottom nodes of the line x = L/2; structured meshes of k
-- cells per h (6 tets each). delta is the mean vertical displacement of the neutral-axis nodes over
-- the roller minus that at mid-span, which leaves out the local indentation under the roller and the
-- patch (their singular parts sit at the surface, h/2 away). E = 1 GPa, nu = 0.3: delta ~ L / 1600.
-- Linear tets are stiff in bending (shear locking): the error falls as about h^1.7, so the check is
-- convergence and a bound on the finest mesh; a Richardson extrapolation of the last two meshes is
-- reported.
local BEND = { L = 0.2, h = 0.02, b = 0.02, c = 0.01, s = 0.01, E = 1e9, nu = 0.3, P = 10 }
do
  local I, A, G = BEND.b * BEND.h ^ 3 / 12, BEND.b * BEND.h, BEND.E / (2 * (1 + BEND.nu))
  local kappa = 10 * (1 + BEND.nu) / (12 + 11 * BEND.nu)
  local L, s, P = BEND.L, BEND.s, BEND.P
  BEND.bending = P * (8 * L ^ 3 - 4 * L * s ^ 2 + s ^ 3) / (384 * BEND.E * I)
  BEND.shear = P * (L / 4 - s / 8) / (kappa * G * A)
  BEND.delta = BEND.bending + BEND.shear
end

local function bend_world(k, dt, damping, ramp)
  local L, h, b, c, s = BEND.L, BEND.h, BEND.b, BEND.c, BEND.s
  local dx = h / k
  local g = meshes.grid(cl, { math.floor((L / 2 + c) / dx + 0.5), k, math.floor(k / 2) }, { 0, -h / 2, 0 }, { L / 2 + c, h / 2, b / 2 })
  local w = cl.world { dt = dt, gravity = { 0, 0, 0 }, threads = opt.threads }
  local body = w:body { name = "beam", mesh = g.mesh, solver = opt.solver, material = { density = 7850, young = BEND.E, poisson = BEND.nu },
                        params = { linear_solver = opt.linear_solver, tolerance = 1e-10, max_iterations = 5000, damping = damping } }
  local eps = 1e-9
  w:support(body, cl.region.slab { axis = "x", below = eps }, cl.support.axis "x")
  w:support(body, cl.region.slab { axis = "z", below = eps }, cl.support.axis "z")
  local roller = w:support(body, cl.region.box { lo = { L / 2 - eps, -h / 2 - eps, -eps }, hi = { L / 2 + eps, -h / 2 + eps, b / 2 + eps } },
                           cl.support.axis "y")
  local patch = w:load(body, cl.region.box { lo = { -eps, h / 2 - eps, -eps }, hi = { s / 2 + eps, h / 2 + eps, b / 2 + eps } },
                       cl.load.traction { traction = { 0, -BEND.P / (s * b), 0 }, ramp = ramp })
  return w, body, g, roller, patch
end

local function bend_deflection(body)
  local x, X = body:positions("flat"), body:rest_positions("flat")
  local function mean_uy(x0)
    local sum, n = 0, 0
    for i = 1, #X / 3 do
      if math.abs(X[3 * i - 2] - x0) < 1e-9 and math.abs(X[3 * i - 1]) < 1e-9 then sum, n = sum + x[3 * i - 1] - X[3 * i - 1], n + 1 end
    end
    return sum / n
  end
  return mean_uy(BEND.L / 2) - mean_uy(0)
end

if wanted("bend") then
  local t0 = section_clock()
  local levels = quick and { 4, 8 } or { 4, 8, 12, 16 }
  R:info("three-point bend", string.format("Timoshenko: delta = %.5e m (bending %.5e, shear %.5e)", BEND.delta, BEND.bending, BEND.shear))
  local errs, labels, deltas, last = {}, {}, {}, nil
  for _, k in ipairs(levels) do
    local w, body, g, roller = bend_world(k, 1, 0, 0)
    local tets = #g.cells / 4
    local rep = solve_static(w, string.format("three-point bend, %d cells per h (%d tets)", k, tets))
    R:le(string.format("three-point bend, k = %d: static Newton iterations", k), rep.iterations, STATIC_ITERATIONS)
    local delta = bend_deflection(body)
    deltas[#deltas + 1] = delta
    errs[#errs + 1] = delta / BEND.delta - 1
    labels[#labels + 1] = string.format("%d tets", tets)
    R:info(string.format("three-point bend, k = %d, %d tets", k, tets),
           string.format("delta = %.5e m (%.2f %%), roller reaction %.6g N (P/4 = %g N)", delta, 100 * errs[#errs],
                         w:probe(cl.probe.reaction(roller)):read()[2], BEND.P / 4))
    last = { k = k, delta = delta, tets = tets }
    w:destroy()
  end
  check_shrinking("three-point bend: error of the deflection", errs, labels)
  R:rel(string.format("three-point bend: deflection (k = %d, %d tets%s)", last.k, last.tets, quick and ", quick: coarse" or ""),
        last.delta, BEND.delta, quick and 0.1 or 0.025, "m")
  if #deltas >= 3 then
    -- delta_k = delta + C k^-p on the last three meshes: the order p solves
    -- (d2 - d1) / (d3 - d2) = (k1^-p - k2^-p) / (k2^-p - k3^-p) (Newton with a difference quotient),
    -- then the limit delta = d3 + (d3 - d2) / ((k3 / k2)^p - 1)
    local n = #deltas
    local k1, k2, k3 = levels[n - 2], levels[n - 1], levels[n]
    local d1, d2, d3 = deltas[n - 2], deltas[n - 1], deltas[n]
    local function ratio(q) return (k1 ^ -q - k2 ^ -q) / (k2 ^ -q - k3 ^ -q) - (d2 - d1) / (d3 - d2) end
    local p = 1.7
    for _ = 1, 50 do
      local f, fp = ratio(p), (ratio(p + 1e-6) - ratio(p)) / 1e-6
      if fp == 0 then break end
      p = p - f / fp
    end
    local limit = d3 + (d3 - d2) / ((k3 / k2) ^ p - 1)
    R:info("three-point bend: Richardson extrapolation of the last three meshes",
           string.format("order %.2f, limit %.5e m (%.3f %% from Timoshenko)", p, limit, 100 * (limit / BEND.delta - 1)))
  end
  -- The dynamics: the load ramped over 20 ms (the lowest bending mode is near 80 Hz), mass damping
  -- 500 1/s, 60 steps of 2 ms to rest.
  local k = quick and 4 or 8
  local ws, bs = bend_world(k, 1, 0, 0)
  solve_static(ws, string.format("three-point bend, k = %d, for the dynamics", k))
  local wd, bd = bend_world(k, 2e-3, 500, 0.02)
  wd:step(60)
  R:rel(string.format("three-point bend, k = %d: deflection of the damped dynamics at rest (60 steps) against the static solve", k),
        bend_deflection(bd), bend_deflection(bs), DYNAMIC_TOL, "m")
  ws:destroy()
  wd:destroy()
  R:info("three-point bend: section time", string.format("%.1f s CPU", os.clock() - t0))
end

R:finish()
