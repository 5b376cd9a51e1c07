-- The broken heart of Jones et al. (I3D 2016): a 1 x 0.9 x 0.45 m heart pulled apart at 0.1 m/s.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

return C.scene {
  name = "broken_heart",
  what = "a heart pulled apart at 0.1 m/s",
  paper = { particles = 20132, r = 0.09, k = 100, alpha = 0.8, omega = 0.3, iterations = 4, gamma = 0.5,
            damping = 0.5, toughness = 0.12, yield = 0, flow = 600, hardening = 0.05, frames = 360 },
  bench = { authors_ms = 22.7, big = true },
  params = {
    P.size({ 1.0, 0.9, 0.45 }, "the heart"),
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
