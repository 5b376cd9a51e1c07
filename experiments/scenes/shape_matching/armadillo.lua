-- The armadillo torture of Jones et al. (I3D 2016), as in the authors' armadilloTorture.json: the
-- armadillo 1.0 m tall (data/meshes/armadillo_2500.off fitted to 1 m; their armadillo-20k-bn.txt
-- has 20,115 particles), no gravity, its arms pulled apart by two planes with normals (+-1, 0.1, 0)
-- at 0.36 m from the centre moving out at 0.15 m/s (the planes hold what lies beyond them at rest),
-- while two cannonballs (r 0.05 m, kinematic, momentum kick 7: their momentumScale) fly through
-- its arms at 2 m/s, from (-0.25, 0.25, -2) along +z and from (0.25, 0.3, 2) along -z. Collision
-- restitution 0.4.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

return C.scene {
  name = "armadillo",
  what = "arms pulled apart by planes at 0.15 m/s, two cannonballs (r 0.05 m, momentum kick 7) at 2 m/s",
  paper = { particles = 20115, r = 0.15, k = 157, alpha = 0.6, omega = 0.3, iterations = 4, gamma = 0.5,
            damping = 0.2, toughness = 0.12, yield = 0.06, flow = 120, hardening = 0, frames = 240,
            restitution = 0.4 },
  bench = { big = true },
  params = {
    { name = "mesh", group = "geometry", type = "string", default = "data/meshes/armadillo_2500.off",
      help = "closed surface, relative to the source tree (or absolute)" },
    P.length("size", 1.0, "the surface's largest extent (its height) after fitting"),
    P.length("plane", 0.36, "distance of the two pulling planes from the centre; normals (+-1, 0.1, 0)"),
    P.speed("pull", 0.15, "speed of each plane along its normal"),
    P.speed("ball_speed", 2, "speed of the two cannonballs (radius 0.05 m, along +-z)"),
    P.number("ball_start", "loading", 2, "m", { 0, 100 }, "distance of the cannonballs' start from the z = 0 plane"),
    C.kick(7),
  },
  quick = { frames = 3, particles = 1500 },
  build = function(p)
    local world = C.world(p)
    local path = p.mesh:sub(1, 1) == "/" and p.mesh or (C.root .. "/" .. p.mesh)
    local shape = cl.mesh.read(path)
    shape:fit(p.size)
    local body = C.body(world, "armadillo", shape, p)
    local l = math.sqrt(1.01)
    for _, n in ipairs { { 1, 0.1, 0 }, { -1, 0.1, 0 } } do
      world:drive(body, C.beyond(body, n, p.plane),
        cl.motion.translate { velocity = { p.pull * n[1] / l, p.pull * n[2] / l, 0 } })
    end
    world:collider { kind = "sphere", radius = 0.05, center = { -0.25, 0.25, -p.ball_start },
                     velocity = { 0, 0, p.ball_speed }, momentum_scale = p.momentum_scale }
    world:collider { kind = "sphere", radius = 0.05, center = { 0.25, 0.3, p.ball_start },
                     velocity = { 0, 0, -p.ball_speed }, momentum_scale = p.momentum_scale }
    return { world = world, body = body }
  end,
}
