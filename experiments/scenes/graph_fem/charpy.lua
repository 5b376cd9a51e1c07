-- The Charpy impact test of Mandal, Chaudhuri and Chaudhuri (GRAPP 2025) sec 4.6, Fig. 12, on the
-- specimen of ISO 148-1 (graph_fem; docs/solvers/graph_fem.md, "Fracture" and "The Charpy impact
-- test"): a 55 x 10 x 10 mm bar with a 2 mm deep 45-degree V-notch of 0.25 mm root radius lies
-- against two anvils 40 mm apart, notch away from the striker, and a pendulum hammer swinging about a
-- hinge under gravity strikes the face behind the notch. Every step records the load (the force the
-- hammer's contact exerts, cl.probe.contact) and the CMOD (the opening of the notch mouth between two
-- material points 1.5 mm either side of the notch plane on the notched face). The specimen breaks in
-- two; the report gives the peak load, the CMOD at the peak, the pieces and the energy the pendulum
-- lost.
--
-- Frame: z is vertical (gravity -z), the specimen's length along x, the hammer swings in the y-z plane
-- about a hinge line along x and moves along +y at the bottom of its swing, where it meets the
-- specimen's face y = -5 mm; the notch is cut into the face y = +5 mm, which rests against the anvils
-- (kinematic boxes whose inner edges are span / 2 from the middle). The hammer starts `gap` short of
-- the specimen with the angular velocity that brings it there at `speed`; one solver step per frame.
--
-- The material is a brittle steel (elastic up to the strength, then a softening crack band): E, nu
-- and the density of structural steel (EN 1993-1-1 sec 3.2.6, EN 1991-1-1 Table A.4), the fracture
-- energy G = K_Ic^2 (1 - nu^2) / E of K_Ic = 50 MPa m^0.5 (a ferritic steel on its lower shelf,
-- ASTM E1921's master curve 30 + 70 exp(0.019 (T - T0)) MPa m^0.5 at T = T0 - 66 C), and a strength
-- of 1.5 GPa, of the order of the cleavage stress of such steels: a modelling choice, not a measured
-- value. An elastic-brittle specimen absorbs far less than a real (ductile) Charpy specimen.
-- hinge_angle = 0.1 rad (edge_stress's hinge rule, a modelling choice): with a converged solve the
-- crack stops one row of elements short of the struck face and the halves turn about the line of
-- nodes they share, which carries no stress; the rule breaks that joint once the halves have turned
-- 0.1 rad against each other, far above the steel's elastic rotations (f_t / E = 0.007).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")
local pieces = dofile(here .. "/../pieces.lua")

local mm = 1e-3
local inf = P.inf
local number = P.number

local params = {
  number("scale", "geometry", 1, "1", { 0, 100, "(]" }, "size of the specimen, 1 = ISO 148-1 (55 x 10 x 10 mm)"),
  P.integer("segments", "geometry", 8, { 2, 64 }, "points on the notch's root radius"),
  number("span", "geometry", 40 * mm, "m", { 0, 1, "()" }, "distance between the anvils' inner edges (ISO: 40 mm)"),
  number("anvil_width", "geometry", 2 * mm, "m", { 0, 0.1, "()" }, "width of each anvil's face along the specimen"),
  number("striker_width", "geometry", 4 * mm, "m", { 0, 0.1, "()" },
         "width of the hammer's striking face along the specimen (edge: the side of its square section)"),
  { name = "striker", group = "geometry", type = "enum", values = { "edge", "flat" }, default = "edge",
    help = "the hammer's leading edge (a square box turned 45 degrees: a line contact, as ISO 148-1's 30-degree "
      .. "striker with its 2 mm edge radius) or a flat face" },
  number("young", "material", 210e9, "Pa", { 0, inf, "()" }, "Young's modulus (steel, EN 1993-1-1)"),
  number("poisson", "material", 0.3, "1", { 0, 0.5, "[)" }, "Poisson's ratio (steel, EN 1993-1-1)"),
  number("density", "material", 7850, "kg/m^3", { 0, inf, "()" }, "mass density (steel, EN 1991-1-1)"),
  number("strength", "fracture", 1.5e9, "Pa", { 0, inf, "()" },
         "tensile strength f_t: a crack starts where the largest principal stress reaches it"),
  number("fracture_energy", "fracture", 1.08e4, "J/m^2", { 0, inf, "()" },
         "G_f: energy per unit crack area (K_Ic = 50 MPa m^0.5 on the lower shelf)"),
  { name = "mode", group = "fracture", type = "enum", values = { "softening", "threshold" }, default = "softening",
    help = "edge_stress mode: softening (crack band, regularised) or threshold (the paper's edge threshold)" },
  { name = "softening_law", group = "fracture", type = "enum", values = { "linear", "bilinear" }, default = "linear",
    help = "traction against crack opening of the softening mode" },
  number("diffusion_radius", "fracture", 0, "m", { 0, 1 }, "R_d, the crack diffusion kernel's support (0 = off)"),
  number("hinge_angle", "fracture", 0.1, "rad", { 0, 3.2 },
         "edge_stress's hinge rule: parts joined only through a node or an edge line break apart once turned by "
           .. "more than this against each other (0 = off)"),
  number("speed", "loading", 5, "m/s", { 0, 100, "(]" }, "the hammer's speed at impact (ISO 148-2: 5 to 5.5 m/s)"),
  number("hammer_mass", "loading", 20, "kg", { 0, 1e4, "()" }, "mass of the pendulum hammer"),
  number("arm", "loading", 0.8, "m", { 0, 10, "()" }, "distance from the hinge to the striker"),
  number("gap", "loading", 0.1 * mm, "m", { 0, 0.01, "()" }, "distance the hammer travels before it touches"),
  { name = "model", group = "solver", type = "enum", values = { "corotated", "stvk", "stable_neohookean" },
    default = "corotated", help = "graph_fem's material model of intact elements" },
  { name = "linear_solver", group = "solver", type = "enum", values = { "galerkin_mg", "pcg", "cholmod" },
    default = "galerkin_mg",
    help = "graph_fem's linear solver: galerkin_mg = the paper's Galerkin multigrid (grid, mg_mode, mg_cycles); "
      .. "pcg and cholmod converge to the tolerance (the converged solve)" },
  { name = "grid", group = "solver", type = "string", default = "50/all",
    help = "galerkin_mg: the paper's grid spec (coarse vertex counts, coarsest first, then 'all')" },
  { name = "mg_mode", group = "solver", type = "enum", values = { "fixed", "pcg" }, default = "fixed",
    help = "galerkin_mg: fixed = mg_cycles V-cycles per step (the paper's Algorithm 2); pcg = CG preconditioned "
      .. "by a V-cycle, to the tolerance" },
  P.integer("mg_cycles", "solver", 3, { 1, 1000 },
            "galerkin_mg, mg_mode = fixed: V-cycles of a step's solve (its contact rounds' re-solves take one each: "
              .. "graph_fem's contact_cycles)"),
  P.integer("mg_sweeps", "solver", 2, { 1, 100 }, "galerkin_mg: smoothing sweeps before and after the coarse correction"),
  { name = "mg_smoother", group = "solver", type = "enum",
    values = { "jacobi", "gauss_seidel", "symmetric_gauss_seidel", "colored_gauss_seidel" }, default = "gauss_seidel",
    help = "galerkin_mg: the finer levels' smoother (colored_gauss_seidel runs in parallel)" },
  { name = "tangent", group = "solver", type = "enum", values = { "model", "warped" }, default = "warped",
    help = "graph_fem's step matrix: the warped small-strain stiffness (stiffness warping, the corotated model's "
      .. "tangent without the rotation's derivative; cheaper, the same outcome here) or the model's tangent" },
  { name = "contact_seed", group = "solver", type = "boolean", default = true,
    help = "graph_fem's contact_seed: each step starts from the last step's contacts (one solve a step while the "
      .. "contact set holds, instead of a contact-free solve first)" },
  number("tolerance", "solver", 1e-6, "1", { 1e-15, 0.5 }, "relative residual of each linear solve"),
  P.integer("max_iterations", "solver", 5000, { 1, 1e7 }, "iteration cap of each linear solve"),
  P.threads(),
  number("max_volume", "resolution", 5.5e-10, "m^3", { 0, inf, "()" },
         "largest tet volume (TetGen -a; 5.5e-10 gives about 29k tets)"),
  number("quality", "resolution", 1.8, "1", { 1, 10 }, "TetGen radius-edge ratio bound (-q)"),
  number("dt", "run", 2e-6, "s", { 0, 1e-3, "(]" }, "time step (one per frame)"),
  P.frames(250, "dt"),
}

-- graph_fem's parameters; the multigrid's only with linear_solver = "galerkin_mg"
local function solver_params(p)
  local t = { model = p.model, linear_solver = p.linear_solver, tolerance = p.tolerance,
              max_iterations = p.max_iterations, tangent = p.tangent, contact_seed = p.contact_seed }
  if p.linear_solver == "galerkin_mg" then
    t.grid, t.mg_mode, t.mg_cycles, t.mg_smoother, t.mg_sweeps = p.grid, p.mg_mode, p.mg_cycles, p.mg_smoother,
                                                                 p.mg_sweeps
  end
  return t
end

return cl.scene {
  name = "charpy",
  what = "a pendulum hammer at 5 m/s breaks an ISO 148-1 Charpy V-notch specimen of brittle steel on two anvils",
  params = params,
  quick = { max_volume = 2e-8, frames = 40, dt = 5e-6 },
  check = function(p)
    if p.span / 2 + p.anvil_width > 27.5 * mm * p.scale then
      return string.format("span / 2 + anvil_width = %g m reaches past the specimen's end (%g m from its middle)",
                           p.span / 2 + p.anvil_width, 27.5 * mm * p.scale)
    end
    if p.striker_width >= p.span then
      return string.format("striker_width = %g m must be narrower than the span (%g m)", p.striker_width, p.span)
    end
  end,
  build = function(p)
    local g = 9.81
    local s = p.scale
    local w = cl.world { dt = p.dt, gravity = { 0, 0, -g }, threads = p.threads }
    local mesh = cl.shape.charpy { scale = s, segments = p.segments }:tetrahedralize { quality = p.quality,
                                                                                       max_volume = p.max_volume }
    local fracture = { criterion = "edge_stress", strength = p.strength, mode = p.mode,
                       fracture_energy = p.fracture_energy, softening_law = p.softening_law,
                       diffusion_radius = p.diffusion_radius, hinge_angle = p.hinge_angle }
    local body = w:body { name = "specimen", mesh = mesh, solver = "graph_fem",
                          material = { young = p.young, poisson = p.poisson, density = p.density },
                          params = solver_params(p),
                          fracture = fracture }
    local half = 5 * mm * s -- half the specimen's height (y) and thickness (z)
    for _, side in ipairs { -1, 1 } do
      w:collider { kind = "box", center = { side * (p.span / 2 + p.anvil_width / 2), half + 2 * mm * s, 0 },
                   half_extents = { p.anvil_width / 2, 2 * mm * s, 2 * half } }
    end
    -- the hammer: a box whose leading face (flat: y = its centre + hy) or edge (edge: the box turned
    -- 45 degrees about z, its edge along z a distance a sqrt 2 ahead of its centre) meets the face
    -- y = -half at the bottom of the swing; hinge straight above that point, `arm` away; started
    -- `gap` before contact
    local hz = 0.6 * half * 2
    local M, L = p.hammer_mass, p.arm
    local theta = math.asin(p.gap / L)
    local c, sn = math.cos(-theta), math.sin(-theta)
    local half_extents, lead, rotation, hy
    if p.striker == "edge" then
      local a = p.striker_width / 2 -- the square cross-section's half side
      local k = math.sqrt(0.5)
      hy, lead = a, a * math.sqrt(2)
      half_extents = { a, a, hz }
      rotation = { k, -k, 0, c * k, c * k, -sn, sn * k, sn * k, c } -- R_x(-theta) R_z(45 deg), row-major
    else
      hy = 2 * mm * s
      lead = hy
      half_extents = { p.striker_width / 2, hy, hz }
      rotation = { axis = "x", angle = -theta }
    end
    local yb = -half - lead
    local I = M * (hy * hy + hz * hz) / 3 + M * L * L -- about the hinge (uniform box, default inertia)
    local om0 = p.speed / L -- at the bottom; the climb back over the gap's arc is 1e-7 of the energy
    local hammer = w:collider { kind = "box", half_extents = half_extents, dynamic = true, mass = M,
                                center = { 0, yb - L * math.sin(theta), L * (1 - math.cos(theta)) },
                                rotation = rotation, angular_velocity = { om0, 0, 0 },
                                hinge = { point = { 0, yb, L }, axis = "x" }, friction = 0 }
    local function pendulum_energy()
      local c, om = hammer:center(), hammer:angular_velocity()
      return 0.5 * I * om[1] * om[1] + M * g * c[3]
    end
    local E0 = pendulum_energy()
    local mouth = 1.5 * mm * s
    local probes = { load = cl.probe.contact(body, hammer),
                     mouth = cl.probe.distance(body, { -mouth, half, 0 }, { mouth, half, 0 }),
                     pieces = cl.probe.pieces(body), kinetic = cl.probe.kinetic(body),
                     elastic = cl.probe.elastic(body), phases = cl.probe.phase_time() }
    local out
    local built = { world = w, body = body, hammer = hammer, probes = probes, figure = "charpy.png",
                    pendulum_energy = pendulum_energy, energy0 = E0 }
    built.intro = function(frames)
      local info = body:info()
      return string.format("  %d nodes, %d tets; %d steps of %.3g us; hammer %g kg on a %g m arm at %g m/s (%.1f J)",
                           info.nodes, info.units, frames, p.dt * 1e6, M, L, p.speed, E0)
    end
    built.start = function(o) out = o end
    -- the load (N, along the hammer's motion) against the CMOD (mm), and the summary
    built.curve = function(run)
      local cmod, load, t = {}, {}, {}
      for i, time in ipairs(run.probes.time) do
        t[i] = time
        cmod[i] = (run.probes.mouth[i] - run.probes.mouth[1]) / mm
        load[i] = run.probes.load[i][2]
      end
      return { time = t, cmod = cmod, load = load }
    end
    built.report = function(run)
      local c = built.curve(run)
      local peak, at, at_t = 0, 0, 0
      for i = 1, #c.load do
        if c.load[i] > peak then peak, at, at_t = c.load[i], c.cmod[i], c.time[i] end
      end
      local lost = E0 - pendulum_energy()
      local vols = pieces.volumes(body)
      local total = 0
      for _, v in ipairs(vols) do total = total + v end
      local big = 0
      for _, v in ipairs(vols) do if v > 0.01 * total then big = big + 1 end end
      local st = body:stats()
      built.result = { peak = peak, cmod_at_peak = at, time_at_peak = at_t, energy_lost = lost, energy0 = E0,
                       pieces = big, graph_pieces = st.pieces, broken_edges = st.broken_edges,
                       damaged_tets = st.damaged_tets, curve = c }
      print(string.format("  peak load %.3g kN at CMOD %.3g mm (t = %.0f us); final CMOD %.3g mm", peak / 1e3, at,
                          at_t * 1e6, c.cmod[#c.cmod]))
      print(string.format("  the pendulum lost %.3f J of %.2f J (hammer now %.4f m/s)", lost, E0,
                          hammer:velocity()[2]))
      print(string.format("  %d pieces of more than 1%% of the volume (%s); the edge graph has %d components, %d edges "
                          .. "cut, %d damaged tets", big, pieces.summary(body, 3), st.pieces, st.broken_edges,
                          st.damaged_tets))
      if out and cl.plot.available() then
        local fig = cl.plot.lines { series = { { x = c.cmod, y = c.load, title = "load on the hammer" } },
                                    xlabel = "CMOD (mm)", ylabel = "load (N)",
                                    title = "Charpy impact: load against crack mouth opening",
                                    output = out .. "/load_cmod.png" }
        print("  load-CMOD plot " .. fig)
      end
    end
    built.snapshot = function(png)
      local vols, total, big = pieces.volumes(body), 0, 0
      for _, v in ipairs(vols) do total = total + v end
      for _, v in ipairs(vols) do big = big + (v > 0.01 * total and 1 or 0) end
      local title = string.format("Charpy specimen after %.0f us: %d pieces over 1 %% of the volume", w:time() * 1e6,
                                  big)
      return cl.plot.snapshot { surface = body, output = png, view = { 60, 30 }, title = title }
    end
    return built
  end,
}
