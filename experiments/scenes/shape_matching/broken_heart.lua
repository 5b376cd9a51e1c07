-- The broken heart of Jones et al. (I3D 2016), as in the authors' brokenHeart.json: a heart
-- 1.0 x 0.9 x 0.24 m (the extents of their heart-bn.txt, 20,132 particles: a rounded heart whose
-- thickness falls from 0.24 m in the middle to nothing at the rim; ours is Taubin's heart surface,
-- cl.shape.heart, fitted to those extents), no gravity, pulled apart by planes with normals +-x at
-- 0.4 m that hold what lies beyond them and move out at 0.1 m/s.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

return C.scene {
  name = "broken_heart",
  what = "a heart pulled apart at 0.1 m/s",
  paper = { particles = 20132, r = 0.09, k = 100, alpha = 0.8, omega = 0.3, iterations = 4, gamma = 0.5,
            damping = 0.5, toughness = 0.12, yield = 0, flow = 600, hardening = 0.05, frames = 240 },
  bench = { big = true },
  params = {
    P.size({ 1.0, 0.9, 0.24 }, "the heart"),
    P.grip("grip", 0.4, "pulled apart"),
    P.speed("pull", 0.1, "speed of each side along x"),
  },
  build = function(p)
    local world = C.world(p)
    local body = C.body(world, "broken_heart", cl.shape.heart { size = p.size }, p)
    C.pull_apart(world, body, p.grip, p.pull)
    return { world = world, body = body }
  end,
}
