-- The projectile plates of Jones et al. (I3D 2016), as in the authors' scene files
-- (projectilePlate{DuctileStrong,BrittleStrong,BrittleWeak}.json): a 1 x 0.667 x 0.067 m sheet
-- (their sheet-bn.txt, 5,325 particles; sheetDense-bn.txt, 20,335, for the 20k ductile plate) held
-- where y > 0.28 and y < -0.31 (planes with normals +-y that do not move), no gravity, and a
-- kinematic sphere (r 0.1 m) starting at z = -0.15 m that moves at 0.3 m/s along +z and gives every
-- particle it touches 10 x its velocity each frame (their momentumScale). Ductile (bends and tears
-- a petalled hole; also with 20k particles), strong brittle (a few shards) and weak brittle (many).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

local ductile = { particles = 5325, r = 0.1125, k = 63, alpha = 1, omega = 0.3, iterations = 4, gamma = 0.2,
                  damping = 0.6, toughness = 0.025, yield = 0.013, flow = 6000, hardening = 0.02, frames = 240 }
-- the brittle plates turn delayRepeatedFracture off
local brittle = { particles = 5325, r = 0.1125, k = 63, alpha = 1, omega = 0.3, iterations = 4, gamma = 0.2,
                  damping = 0.5, frames = 240, relax = false }

return C.scenes({
  params = {
    P.size({ 1.0, 2 / 3, 1 / 15 }, "the plate"),
    P.number("hold_top", "geometry", 0.28, "m", { -100, 100 }, "particles with rest y above this are held"),
    P.number("hold_bottom", "geometry", -0.31, "m", { -100, 100 }, "particles with rest y below this are held"),
    P.number("ball_radius", "loading", 0.1, "m", { 0, 10, "()" }, "radius of the projectile (a kinematic sphere)"),
    P.speed("ball_speed", 0.3, "speed of the projectile along +z"),
    P.number("ball_z", "loading", -0.15, "m", { -100, 100 }, "the projectile's centre at the start (on the plate's axis)"),
    C.kick(10),
  },
  check = function(p)
    if not (p.hold_bottom < p.hold_top) then return "hold_bottom must lie below hold_top" end
  end,
  build = function(p, scene)
    local world = C.world(p)
    local body = C.body(world, scene.name, cl.shape.plate { size = p.size }, p)
    world:fix(body, cl.region.slab { axis = "y", above = p.hold_top })
    world:fix(body, cl.region.slab { axis = "y", below = p.hold_bottom })
    local ball = world:collider { kind = "sphere", radius = p.ball_radius, center = { 0, 0, p.ball_z },
                                  velocity = { 0, 0, p.ball_speed }, momentum_scale = p.momentum_scale }
    return { world = world, body = body, projectile = ball }
  end,
}, {
  { name = "plate_ductile", what = "a sphere (r 0.1 m, 0.3 m/s, momentum kick 10) shot through a held ductile plate",
    paper = ductile, bench = {} },
  { name = "plate_ductile_20k", what = "the ductile plate with 20k particles (the authors' sheetDense)",
    paper = C.with(ductile, { particles = 20335 }), bench = { big = true } },
  { name = "plate_brittle_strong", what = "the same projectile, strong brittle plate",
    paper = C.with(brittle, { toughness = 0.07 }), bench = {} },
  { name = "plate_brittle_weak", what = "the same projectile, weak brittle plate",
    paper = C.with(brittle, { toughness = 0.001 }), bench = {} },
})
