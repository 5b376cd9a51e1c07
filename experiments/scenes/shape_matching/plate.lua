-- The projectile plates of Jones et al. (I3D 2016): a sphere (r 0.1 m, 0.3 m/s, kinematic) shot
-- through a 1 x 1 x 0.05 m plate clamped at two edges: ductile (bends around its hole; also with
-- 20k particles), strong brittle and weak brittle (shatters).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

local ductile = { particles = 5325, r = 0.1125, k = 63, alpha = 1, omega = 0.3, iterations = 4, gamma = 0.2,
                  damping = 0.6, toughness = 0.025, yield = 0.013, flow = 6000, hardening = 0.02, frames = 240 }
local brittle = { particles = 5325, r = 0.1125, k = 63, alpha = 1, omega = 0.3, iterations = 4, gamma = 0.2,
                  damping = 0.5, frames = 240 }

return C.scenes({
  params = {
    P.size({ 1.0, 1.0, 0.05 }, "the plate"),
    P.grip("clamp", 0.45, "held"),
    P.number("ball_radius", "loading", 0.1, "m", { 0, 10, "()" }, "radius of the projectile (a kinematic sphere)"),
    P.speed("ball_speed", 0.3, "speed of the projectile along -z"),
    P.number("ball_z", "loading", 0.15, "m", { -100, 100 }, "the projectile's centre at the start (on the plate's axis)"),
    C.friction("the projectile's"),
  },
  check = function(p) return P.inside("clamp", p.clamp, p.size[1]) end,
  build = function(p, scene)
    local world = C.world(p)
    local body = C.body(world, scene.name, cl.shape.plate { size = p.size }, p)
    world:fix(body, cl.region.slab { axis = "x", below = -p.clamp })
    world:fix(body, cl.region.slab { axis = "x", above = p.clamp })
    local ball = world:collider { kind = "sphere", radius = p.ball_radius, center = { 0, 0, p.ball_z },
                                  velocity = { 0, 0, -p.ball_speed }, friction = p.ball_friction }
    return { world = world, body = body, projectile = ball }
  end,
}, {
  { name = "plate_ductile", what = "a sphere (r 0.1 m, 0.3 m/s) shot through a plate clamped at two edges",
    paper = ductile, bench = { authors_ms = 11.6 } },
  { name = "plate_ductile_20k", what = "a sphere (r 0.1 m, 0.3 m/s) shot through a plate clamped at two edges",
    paper = C.with(ductile, { particles = 20335 }), bench = { authors_ms = 67.9, big = true } },
  { name = "plate_brittle_strong", what = "the same projectile, strong brittle plate",
    paper = C.with(brittle, { toughness = 0.07 }), bench = { authors_ms = 11.6 } },
  { name = "plate_brittle_weak", what = "the same projectile, weak brittle plate",
    paper = C.with(brittle, { toughness = 0.001 }), bench = { authors_ms = 11.6 } },
})
