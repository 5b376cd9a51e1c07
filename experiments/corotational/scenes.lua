-- Scenes for the corotational solver (issue 3, "Experiments"; docs/solvers/corotational.md): a
-- twisted bar (plastic, and tearing), a notched bar pulled apart (brittle and ductile), a hollow ball
-- dropped on the ground (brittle: shatters, ductile: dents) and a projectile through a plate
-- (brittle: a hole, ductile: the plate bends). One step of 1/60 s per frame; every scene writes VTU
-- frames, probes.csv, the parameters it ran with (run.json via world:run) and a shaded PNG snapshot.
--
--   local S = dofile(here .. "/scenes.lua")
--   S.main("twisted_bar")          -- options: frames, every, out, threads, snapshot, linear_solver
--
-- The projectile is a kinematic sphere collider (its motion is prescribed, it does not slow down).
-- Dynamic, two-way rigid bodies exist (docs/RIGID_BODIES.md, experiments/corotational/pendulum_bar.lua);
-- moving the projectile scenes onto them is still to do.
local cl = require "cleave"

local S = {}

local function box(size, max_volume)
  return cl.shape.box { size = size }:tetrahedralize { quality = 1.8, max_volume = max_volume }
end

-- name = { what, frames, build(scene options) -> world, body, extra probes }
S.table = {}

local elastic = { density = 1000, young = 1e5, poisson = 0.3 }

local function twisted(fracture)
  return function(o)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, threads = o.threads }
    local material = { density = 1000, young = 1e5, poisson = 0.3,
                       plastic = { yield = 0.01, flow = 5, hardening = 0, max = fracture and 0.06 or 0 } }
    local body = w:body { name = "bar", shape = box({ 0.8, 0.1, 0.1 }, 4e-6), solver = "corotational",
                          material = material,
                          params = { damping = 2, linear_solver = o.linear_solver },
                          fracture = fracture and { criterion = "plastic_excess", toughness = 0.6 } or false }
    w:fix(body, cl.region.slab { axis = "x", below = -0.38 })
    -- half a turn in 2 s, then held for a second and let go; the tearing bar is turned on for 4 s
    w:drive(body, cl.region.slab { axis = "x", above = 0.38 },
            cl.motion.twist { axis = "x", rate = math.pi / 2, duration = fracture and 4 or 2, release = fracture and 5 or 3 })
    return w, body
  end
end

S.table.twisted_bar = {
  what = "a plastic bar twisted half a turn by one clamped end in 2 s, then let go: it keeps its twist",
  frames = 300, build = twisted(false),
}
S.table.twisted_bar_fracture = {
  what = "a bar whose plasticity is capped, twisted a full turn in 4 s: the excess plastic force tears it "
         .. "(thesis 5.6)",
  frames = 330, build = twisted(true),
}

local function notched(ductile)
  return function(o)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, threads = o.threads }
    local shape = cl.shape.notched_beam { size = { 0.6, 0.1, 0.1 }, notch_depth = 0.03, notch_width = 0, notch_angle = 45,
                                          notch_root_radius = 0.002 }
    local mesh = shape:tetrahedralize { quality = 1.8, max_volume = 5e-6 }
    local material = ductile and { density = 1000, young = 1e5, poisson = 0.3,
                                   plastic = { yield = 0.02, flow = 10, hardening = 0.05, max = 0.3 } } or elastic
    local fracture = ductile and { criterion = "plastic_excess", toughness = 0.5, largest_only = 1 }
                     or { criterion = "separation_tensor", toughness = 1.5, largest_only = 0 }
    local body = w:body { name = "notched", mesh = mesh, solver = "corotational", material = material,
                          params = { damping = 1, linear_solver = o.linear_solver }, fracture = fracture }
    local pull = 0.05
    w:drive(body, cl.region.slab { axis = "x", below = -0.28 }, cl.motion.translate { velocity = { -pull, 0, 0 } })
    w:drive(body, cl.region.slab { axis = "x", above = 0.28 }, cl.motion.translate { velocity = { pull, 0, 0 } })
    return w, body
  end
end

S.table.notched_bar_brittle = {
  what = "an elastic notched bar pulled apart at 0.1 m/s: separation-tensor fracture starts at the notch and "
         .. "runs straight across (brittle)",
  frames = 180, build = notched(false),
}
S.table.notched_bar_ductile = {
  what = "the same bar, plastic with a capped flow: it necks at the notch and tears by plastic excess (ductile)",
  frames = 300, build = notched(true),
}

local function hollow(ductile)
  return function(o)
    local w = cl.world { dt = 1 / 60, gravity = { 0, -9.81, 0 }, threads = o.threads }
    local mesh = cl.shape.hollow_sphere { radius = 0.15, inner_radius = 0.11, subdivisions = 3,
                                          center = { 0, 0.4, 0 } }:tetrahedralize { quality = 1.8, max_volume = 4e-6 }
    local material = ductile and { density = 1000, young = 2e5, poisson = 0.3,
                                   plastic = { yield = 0.03, flow = 60, hardening = 0.5, max = 0 } } or
                     { density = 1000, young = 2e5, poisson = 0.3 }
    local body = w:body { name = "ball", mesh = mesh, solver = "corotational", material = material,
                          params = { damping = 0.5, linear_solver = o.linear_solver },
                          fracture = not ductile and { criterion = "separation_tensor", toughness = 2.5, largest_only = 0 }
                                     or false }
    w:collider { kind = "plane", center = { 0, 0, 0 }, normal = "y", friction = 0.3, restitution = 0 }
    return w, body
  end
end

S.table.hollow_ball_brittle = {
  what = "a hollow ball dropped from 0.25 m onto the ground: brittle, it shatters", frames = 90, build = hollow(false),
}
S.table.hollow_ball_ductile = {
  what = "the same ball, plastic: it dents and stays dented", frames = 90, build = hollow(true),
}

local function plate(ductile)
  return function(o)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, threads = o.threads }
    local mesh = box({ 0.6, 0.6, 0.03 }, 2e-6)
    local material = ductile and { density = 1000, young = 2e5, poisson = 0.3,
                                   plastic = { yield = 0.01, flow = 30, hardening = 0, max = 0.4 } } or
                     { density = 1000, young = 2e5, poisson = 0.3 }
    local fracture = ductile and { criterion = "plastic_excess", toughness = 0.3 }
                     or { criterion = "separation_tensor", toughness = 0.3, largest_only = 0 }
    local body = w:body { name = "plate", mesh = mesh, solver = "corotational", material = material,
                          params = { damping = 1, linear_solver = o.linear_solver }, fracture = fracture }
    w:fix(body, cl.region.slab { axis = "x", below = -0.29 })
    w:fix(body, cl.region.slab { axis = "x", above = 0.29 })
    -- a sphere of radius 0.08 m shot through the plate's middle at 0.6 m/s (kinematic)
    w:collider { kind = "sphere", radius = 0.08, center = { 0, 0, 0.2 }, velocity = { 0, 0, -0.6 } }
    return w, body
  end
end

S.table.projectile_plate_brittle = {
  what = "a sphere (r 0.08 m, 0.6 m/s, prescribed motion) through a brittle plate clamped at two edges: a hole",
  frames = 60, build = plate(false),
}
S.table.projectile_plate_ductile = {
  what = "the same projectile through a plastic plate: it bends and tears by plastic excess", frames = 60,
  build = plate(true),
}

function S.main(name)
  local sc = assert(S.table[name], "unknown scene " .. tostring(name))
  local p = cl.options {
    { name = "frames", type = "integer", default = sc.frames, range = { 1, 1e6 }, help = "frames of 1/60 s" },
    { name = "every", type = "integer", default = 10, range = { 1, 1e6 }, help = "write VTU every this many frames" },
    { name = "out", type = "string", default = "out/corotational/" .. name, help = "output folder" },
    { name = "threads", type = "integer", default = 0, range = { 0, 1024 }, help = "OpenMP threads (0 = all)" },
    { name = "linear_solver", type = "integer", default = 0, range = { 0, 1 }, help = "0 PCG, 1 CHOLMOD" },
    { name = "snapshot", type = "boolean", default = true, help = "draw a PNG snapshot of the last frame" },
  }
  local world, body = sc.build(p)
  local info0 = body:info()
  print(string.format("%s: %s", name, sc.what))
  print(string.format("  %d nodes, %d tets, %d frames of 1/60 s", info0.nodes, info0.units, p.frames))
  local run = world:run { frames = p.frames, every = p.every, output = p.out,
                          probes = { pieces = cl.probe.pieces(body), volume = cl.probe.volume(body),
                                     kinetic = cl.probe.kinetic(body), elastic = cl.probe.elastic(body),
                                     phases = cl.probe.phase_time() } }
  local info = body:info()
  print(string.format("  after %.2f s: %d nodes (%d added by fracture), %d pieces, volume %.4g m^3, "
                      .. "last step %.1f ms, %d CG iterations", run.stats.time, info.nodes, info.nodes - info0.nodes,
                      info.pieces, run.probes.volume[#run.probes.volume], run.stats.step_ms, run.stats.iterations))
  if p.snapshot then
    local png = p.out .. "/" .. name .. ".png"
    local ok, err = pcall(cl.plot.snapshot, { surface = body, output = png,
                                             title = string.format("%s, t = %.2f s", name, run.stats.time) })
    print(ok and ("  snapshot " .. png) or ("  snapshot failed: " .. tostring(err)))
  end
  return world, body, run
end

return S
