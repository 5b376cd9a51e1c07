-- What the corotational scenes share (docs/solvers/corotational.md): the parameter entries of a
-- body (material, plasticity, fracture, solver), the tables world:body takes built from them, the
-- piece sizes after fracture and the runner's standard hooks.
--
--   local C = dofile(here .. "/common.lua")
--   params = C.entries { { name = "size", ... } , C.material { young = 1e5 }, C.fracture { ... }, ... }
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")
local pieces = dofile(here .. "/../pieces.lua")

local C = { P = P }

local inf = math.huge
local number = P.number

-- Flatten lists of entries (and single entries) into one parameter list.
function C.entries(parts)
  local out = {}
  for _, part in ipairs(parts) do
    if part.name then out[#out + 1] = part else
      for _, e in ipairs(part) do out[#out + 1] = e end
    end
  end
  return out
end

-- Elastic constants and plasticity, defaults given per scene. yield = inf: elastic (no plastic
-- table at all, as the solver's default). A ductile scene sets yield, flow, hardening, plastic_max.
function C.material(d)
  return {
    number("density", "material", d.density or 1000, "kg/m^3", { 0, inf, "()" }, "mass density"),
    number("young", "material", d.young, "Pa", { 0, inf, "()" }, "Young's modulus"),
    number("poisson", "material", d.poisson or 0.3, "1", { 0, 0.5, "[)" }, "Poisson's ratio"),
    number("yield", "material", d.yield or inf, "1", { 0, inf, "[]" },
           "plastic yield strain (von Mises, thesis sec 3.3); inf = elastic"),
    number("flow", "material", d.flow or 0, "1/s", { 0, inf, "[)" }, "plastic flow rate"),
    number("hardening", "material", d.hardening or 0, "1", { -inf, inf, "()" }, "work hardening K (negative softens)"),
    number("plastic_max", "material", d.plastic_max or 0, "1", { 0, inf, "[)" },
           "cap on the plastic strain (its excess drives plastic_excess); 0 = none"),
  }
end

-- The fracture criterion: none, a corotational criterion, or (with solver = shape_matching)
-- cluster_stretch, with its toughness.
function C.fracture(d)
  return {
    { name = "criterion", group = "fracture", type = "enum", default = d.criterion or "none",
      values = { "none", "separation_tensor", "plastic_excess", "cluster_stretch" },
      help = "fracture criterion (none = the body never breaks; cluster_stretch needs solver = shape_matching)" },
    number("toughness", "fracture", d.toughness or 1, "N", { 0, inf, "[)" },
           "separation-tensor eigenvalue or accumulated excess plastic force (N) at which a node splits; "
           .. "for cluster_stretch the stretch of a cluster (a strain)"),
    { name = "largest_only", group = "fracture", type = "boolean", default = d.largest_only ~= false,
      help = "true = only the largest event per step (thesis sec 5.4), false = every event above toughness" },
    number("strength", "fracture", d.strength or 0, "Pa", { 0, inf, "[)" },
           "> 0: the node's measure per unit area of its section against this stress instead of the "
           .. "toughness (separation_tensor, plastic_excess); 0 = the toughness in N"),
    { name = "crack_tips", group = "fracture", type = "boolean", default = d.crack_tips ~= false,
      help = "cracks grow from their tips: nodes next to a crack wait for it and a piece starts one crack at a "
             .. "time (separation_tensor, plastic_excess); false = every node above the threshold" },
    { name = "plane", group = "fracture", type = "enum", values = { "net_force", "principal" }, index_from = 0,
      default = d.plane or "principal",
      help = "plastic_excess: the crack normal, net_force = eq 5.11, principal = the excess stress's principal axis" },
    { name = "excess", group = "fracture", type = "enum", values = { "per_step", "refused" }, index_from = 0,
      default = d.excess or "refused",
      help = "plastic_excess: per_step = eq 5.10 summed step after step, refused = the flow the cap refused so far" },
    { name = "continue_cracks", group = "fracture", type = "boolean", default = d.continue_cracks ~= false,
      help = "corotational: a node split continues the crack already at the node (false: the thesis's plane "
             .. "through the node only)" },
    number("min_fragment_elements", "fracture", d.min_fragment_elements or 4, "1", { 0, 1e6 },
           "corotational: an event that would cut off a piece of at most this many elements (or mean element "
           .. "volumes) is not applied; 0 = every event applies"),
    { name = "skip_stale_events", group = "fracture", type = "boolean", default = d.skip_stale_events ~= false,
      help = "corotational: skip an event whose node shares an element with a node split earlier in the step" },
  }
end

-- The solver and its settings (substeps per frame when d.substeps is given). The scene runs on
-- shape_matching too (tets given as its particles, the same damping rate); linear_solver is the
-- corotational solver's only.
function C.solver(d)
  return {
    { name = "solver", group = "solver", type = "enum", default = "corotational",
      values = { "corotational", "shape_matching" }, help = "the solver of the body" },
    number("damping", "solver", d.damping, "1/s", { 0, 1e6 }, "mass damping rate (corotational: Rayleigh alpha)"),
    { name = "linear_solver", group = "solver", type = "enum", values = { "pcg", "cholmod" }, index_from = 0,
      default = "pcg", help = "the corotational solver's linear solver" },
    P.threads(),
    d.substeps and P.substeps(d.substeps) or nil,
  }
end

-- TetGen's quality bound and largest tet.
function C.resolution(max_volume)
  return {
    number("max_volume", "resolution", max_volume, "m^3", { 0, inf, "()" }, "largest tet volume (TetGen -a)"),
    number("quality", "resolution", 1.8, "1", { 1, 10 }, "TetGen radius-edge ratio bound (-q)"),
  }
end

-- Every parameter of the body, by group, with the scene's defaults: the material (C.material's
-- keys), the fracture (C.fracture's), the solver (damping, substeps), the resolution (max_volume)
-- and the frames.
function C.body_params(d)
  return C.entries { C.material(d), C.fracture(d), C.solver(d), C.resolution(d.max_volume), P.frames(d.frames) }
end

-- The scene's world: one step of 1/60 s per frame (p.substeps solver steps, when the scene has them).
function C.world(p, gravity)
  return cl.world { dt = 1 / 60, substeps = p.substeps, gravity = gravity, threads = p.threads }
end

-- A closed surface tetrahedralized at the scene's resolution.
function C.tets(shape, p)
  return shape:tetrahedralize { quality = p.quality, max_volume = p.max_volume }
end

-- world:body's material, params and fracture tables from the filled parameters.
function C.material_table(p)
  local m = { density = p.density, young = p.young, poisson = p.poisson }
  if p.yield < inf then m.plastic = { yield = p.yield, flow = p.flow, hardening = p.hardening, max = p.plastic_max } end
  return m
end

function C.params_table(p)
  if p.solver == "corotational" then
    return { damping = p.damping, linear_solver = p.linear_solver, continue_cracks = p.continue_cracks,
             min_fragment_elements = p.min_fragment_elements, skip_stale_events = p.skip_stale_events }
  end
  return { damping = p.damping }
end

function C.fracture_table(p)
  if p.criterion == "none" then return false end
  if p.criterion == "cluster_stretch" then return { criterion = p.criterion, toughness = p.toughness } end
  local t = { criterion = p.criterion, toughness = p.toughness, largest_only = p.largest_only, strength = p.strength,
              crack_tips = p.crack_tips }
  if p.criterion == "plastic_excess" then t.plane, t.excess = p.plane, p.excess end
  return t
end

-- One body of the scene on the chosen solver.
function C.body(w, name, mesh, p)
  return w:body { name = name, mesh = mesh, solver = p.solver, material = C.material_table(p),
                  params = C.params_table(p), fracture = C.fracture_table(p) }
end

-- Piece volumes and the one-line summary of the pieces (experiments/scenes/pieces.lua).
C.piece_volumes = pieces.volumes
C.piece_summary = pieces.summary

-- The runner's hooks for a scene with one deformable body (experiments/scenes/init.lua, main):
-- counts before the run, the pieces, volume, energies and phase times as probes, a summary line
-- after it, then the scene's own report (built.report) and a shaded snapshot of the body.
function C.standard(built)
  local body = built.body
  local info0 = body:info()
  built.intro = built.intro or function(frames)
    return string.format("  %d nodes, %d %s, %d frames of 1/60 s", info0.nodes, info0.units,
                         body.solver == "corotational" and "tets" or "clusters", frames)
  end
  built.probes = built.probes or { pieces = cl.probe.pieces(body), volume = cl.probe.volume(body),
                                   kinetic = cl.probe.kinetic(body), elastic = cl.probe.elastic(body),
                                   phases = cl.probe.phase_time() }
  local report = built.report
  built.report = function(run)
    local info = body:info()
    print(string.format("  after %.2f s: %d nodes (%d added by fracture), %d pieces, volume %.4g m^3, "
                        .. "last step %.1f ms, %d CG iterations", run.stats.time, info.nodes, info.nodes - info0.nodes,
                        info.pieces, run.probes.volume[#run.probes.volume], run.stats.step_ms, run.stats.iterations))
    if report then report(run) end
  end
  built.snapshot = built.snapshot or function(png, title)
    return cl.plot.snapshot { surface = body, output = png, title = title }
  end
  return built
end

return C
