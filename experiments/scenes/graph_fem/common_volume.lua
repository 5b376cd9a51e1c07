-- What the graph_fem scenes of the volume study and the benchmark share (hanging_sphere,
-- torn_armadillo; validation/volume_gain.lua and `cleave bench graph_fem` build them): the body's
-- parameter entries (material, the solver and its Galerkin multigrid, the edge_stress criterion),
-- the tables world:body takes, and the volume-gain measure.
--
--   local G = dofile(here .. "/common_volume.lua")
--   params = G.entries { G.material { young = 1e5, poisson = 0.48 }, G.solver { ... }, G.fracture { ... } }
--   local body = world:body { ..., solver = p.solver, material = G.material_table(p),
--                             params = G.params_table(p), fracture = G.fracture_table(p) }
--
-- Volume gain (the paper's Table 2 measure, defined here because the paper does not): the signed
-- relative change of the body's volume against its rest volume, (V(t) - V_rest) / V_rest, V the
-- volume enclosed by the current positions of the tets (the volume probe: the sum of the tets'
-- signed volumes). Positive is a gain, negative a loss.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")
local corot = dofile(here .. "/../corotational/common.lua")

local G = { P = P, entries = corot.entries, tets = corot.tets }
local inf = P.inf
local number = P.number

G.root = here .. "/../../.."

function G.material(d)
  return {
    number("density", "material", d.density or 1000, "kg/m^3", { 0, inf, "()" }, "mass density"),
    number("young", "material", d.young, "Pa", { 0, inf, "()" }, "Young's modulus"),
    number("poisson", "material", d.poisson, "1", { 0, 0.5, "[)" }, "Poisson's ratio"),
  }
end

-- The solver (graph_fem, or the corotational solver for comparison) and graph_fem's settings: the
-- material model, the linear solver and the Galerkin multigrid's options (docs/solvers/graph_fem.md).
function G.solver(d)
  local function enum(name, values, default, help)
    return { name = name, group = "solver", type = "enum", values = values, default = default, help = help }
  end
  return {
    enum("solver", { "graph_fem", "corotational" }, "graph_fem",
         "the body's solver (corotational: the corotational solver, stiffness warping, for comparison)"),
    enum("model", { "corotated", "stvk", "stable_neohookean" }, d.model or "stable_neohookean",
         "graph_fem: the hyperelastic model"),
    enum("tangent", { "model", "warped" }, d.tangent or "model",
         "graph_fem: the step's stiffness (model = the model's projected tangent; warped = the rotated "
         .. "small-strain stiffness, cheaper)"),
    P.integer("tangent_every", "solver", d.tangent_every or 1, { 1, 1e6 },
              "graph_fem: a fresh step matrix M + dt^2 K at most every this many steps; the steps between "
              .. "keep it and make only the forces (the lagged tangent; 1 = every step, the paper's)"),
    number("tangent_drift", "solver", d.tangent_drift or 0.1, "1", { 0, inf },
           "graph_fem, tangent_every > 1: also a fresh matrix once an element's F moved this far from the "
           .. "matrix's (max ||F - F_fresh||_F)"),
    enum("linear_solver", { "pcg", "cholmod", "galerkin_mg" }, d.linear_solver or "galerkin_mg",
         "the linear solver (galerkin_mg: graph_fem only; the corotational solver takes pcg or cholmod)"),
    number("tolerance", "solver", d.tolerance or 1e-6, "1", { 1e-15, 0.5 },
           "relative residual of the linear solve (mode pcg and the other solvers)"),
    { name = "grid", group = "solver", type = "string", default = d.grid or "50/all",
      help = "galerkin_mg: the paper's grid spec, coarsest level first ('50/all', '50/1000/all')" },
    enum("mg_mode", { "pcg", "fixed" }, d.mg_mode or "fixed",
         "galerkin_mg: fixed = mg_cycles V-cycles per step (the paper's); pcg = CG to the tolerance"),
    P.integer("mg_cycles", "solver", d.mg_cycles or 1, { 1, 1e5 }, "galerkin_mg, mode fixed: V-cycles per step"),
    P.integer("mg_sweeps", "solver", d.mg_sweeps or 2, { 1, 1000 },
              "galerkin_mg: smoothing sweeps before and after the coarse correction"),
    enum("mg_smoother", { "jacobi", "gauss_seidel", "symmetric_gauss_seidel", "colored_gauss_seidel" },
         d.mg_smoother or "gauss_seidel",
         "galerkin_mg: the fine levels' smoother"),
    enum("mg_coarse", { "cg", "cholmod", "dense" }, d.mg_coarse or "cholmod", "galerkin_mg: the coarsest level's solve"),
    enum("initial_guess", { "auto", "previous", "zero" }, "auto",
         "graph_fem: the solve's starting velocity change (auto: zero for fixed V-cycles, else the last step's)"),
    number("damping", "solver", d.damping or 0, "1/s", { 0, 1e6 }, "Rayleigh mass damping"),
    P.threads(),
  }
end

-- The edge_stress criterion (graph_fem's fracture, Algorithm 1): strength 0 = no fracture.
function G.fracture(d)
  return {
    number("strength", "fracture", d.strength or 0, "Pa", { 0, inf, "[)" },
           "edge_stress: normal stress along an edge that breaks it (0 = the body never breaks)"),
    { name = "fracture_mode", group = "fracture", type = "enum", values = { "threshold", "softening" },
      default = d.fracture_mode or "threshold",
      help = "edge_stress: threshold = all or nothing (the paper); softening = a linear softening law per edge" },
    number("fracture_energy", "fracture", d.fracture_energy or 0, "J/m^2", { 0, inf, "[)" },
           "edge_stress, mode softening: energy dissipated per crack area"),
    number("diffusion_radius", "fracture", d.diffusion_radius or 0, "m", { 0, inf, "[)" },
           "edge_stress: support R_d of the crack diffusion kernel (0 = off)"),
  }
end

function G.resolution(d)
  return {
    number("max_volume", "resolution", d.max_volume, "m^3", { 0, inf, "[)" }, "largest tet volume (TetGen -a; 0 = no bound)"),
    number("quality", "resolution", d.quality or 2, "1", { 0, 10 },
           "TetGen radius-edge ratio bound (-q; 0 = off: the surface's vertices and few more)"),
  }
end

function G.world(p, gravity)
  return cl.world { dt = p.dt or 1 / 60, gravity = gravity, threads = p.threads }
end

function G.material_table(p)
  return { density = p.density, young = p.young, poisson = p.poisson }
end

-- world:body's params for the chosen solver: graph_fem takes every setting above; the corotational
-- solver its linear solver (pcg unless cholmod was asked for), tolerance and damping.
function G.params_table(p)
  if p.solver == "corotational" then
    return { linear_solver = p.linear_solver == "cholmod" and "cholmod" or "pcg", tolerance = p.tolerance,
             damping = p.damping }
  end
  return { model = p.model, tangent = p.tangent, tangent_every = p.tangent_every,
           tangent_drift = p.tangent_drift, linear_solver = p.linear_solver, tolerance = p.tolerance,
           grid = p.grid, mg_mode = p.mg_mode, mg_cycles = p.mg_cycles, mg_sweeps = p.mg_sweeps,
           mg_smoother = p.mg_smoother, mg_coarse = p.mg_coarse, initial_guess = p.initial_guess,
           damping = p.damping, max_iterations = 10000 }
end

function G.fracture_table(p)
  if p.strength <= 0 or p.solver ~= "graph_fem" then return false end
  local f = { criterion = "edge_stress", strength = p.strength, mode = p.fracture_mode,
              diffusion_radius = p.diffusion_radius }
  if p.fracture_mode == "softening" then f.fracture_energy = p.fracture_energy end
  return f
end

function G.check(p)
  if p.solver == "corotational" and p.linear_solver == "galerkin_mg" then
    return "solver = corotational takes linear_solver = pcg or cholmod (galerkin_mg is graph_fem's)"
  end
  if p.solver == "corotational" and p.strength > 0 then
    return "strength (edge_stress fracture) needs solver = graph_fem"
  end
  if p.fracture_mode == "softening" and p.strength > 0 and p.fracture_energy <= 0 then
    return "fracture_mode = softening needs fracture_energy > 0"
  end
end

-- One line on the body's solver settings, for the run's header.
function G.describe(p)
  if p.solver == "corotational" then
    return string.format("corotational solver, %s to %g", p.linear_solver == "cholmod" and "cholmod" or "pcg", p.tolerance)
  end
  local ls = p.linear_solver
  if ls == "galerkin_mg" then
    ls = string.format("galerkin_mg %s %s", p.grid,
                       p.mg_mode == "fixed" and string.format("%d V-cycle(s)", p.mg_cycles)
                       or string.format("pcg to %g", p.tolerance))
    ls = ls .. string.format(", %s %d+%d, coarse %s", p.mg_smoother, p.mg_sweeps, p.mg_sweeps, p.mg_coarse)
  else
    ls = ls .. string.format(" to %g", p.tolerance)
  end
  local every = p.tangent_every and p.tangent_every > 1 and string.format(" every %d steps", p.tangent_every) or ""
  return string.format("graph_fem %s (tangent %s%s), %s", p.model, p.tangent, every, ls)
end

-- The volume gain (V - V_rest) / V_rest of a volume series (m^3), with V_rest the body's rest
-- volume: the largest gain, the largest loss, the largest |change| and the mean over the last
-- `tail` samples (the steady state when the motion has died out).
function G.volume_gain(volumes, v_rest, tail)
  local s = { max = -inf, min = inf, abs = 0 }
  local n = #volumes
  tail = math.max(1, math.min(tail or 1, n))
  local sum = 0
  for i = 1, n do
    local g = volumes[i] / v_rest - 1
    s.max, s.min = math.max(s.max, g), math.min(s.min, g)
    s.abs = math.max(s.abs, math.abs(g))
    if i > n - tail then sum = sum + g end
  end
  s.steady = sum / tail
  s.final = volumes[n] / v_rest - 1
  return s
end

return G
