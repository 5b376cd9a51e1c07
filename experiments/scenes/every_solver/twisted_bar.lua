-- An elastic bar twisted a quarter turn, the same definition on every solver (issue 14): a
-- 0.6 x 0.1 x 0.1 m bar (E = 100 kPa) held at x < -0.28 m, its end x > 0.28 m turned about x at
-- pi/2 rad/s for 1 s and then held for 2 s, no gravity, mass damping. In uniform torsion the twist grows
-- linearly between the grips, so the middle section turns half as far as the end (pi/4 rad),
-- less near the grips' warping constraint. Measures: the middle section's twist (a ring of
-- material points at x = 0, radius 3 cm) and the volume change.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

local ring = 8

return cl.scene {
  name = "twisted_bar",
  what = "an elastic bar, one end held, the other turned a quarter turn in 1 s and held",
  params = C.entries {
    P.size({ 0.6, 0.1, 0.1 }, "the bar"),
    P.grip("clamp", 0.28, "held (x < -clamp) and turned (x > clamp)"),
    P.number("twist_rate", "loading", math.pi / 2, "rad/s", { -100, 100 }, "turning rate of the driven end about x"),
    P.number("twist_time", "loading", 1, "s", { 0, 1e6 }, "how long the end turns (then it is held)"),
    C.body_params { young = 1e5, damping = 5, max_volume = 2e-5, frames = 180 },
  },
  check = function(p) return P.inside("clamp", p.clamp, p.size[1]) end,
  quick = { frames = 3, max_volume = 1e-4 },
  build = function(p)
    local w = C.world(p, { 0, 0, 0 })
    local mesh = C.tets(cl.shape.box { size = p.size }, p)
    local body = C.body(w, "bar", mesh, p)
    w:fix(body, cl.region.slab { axis = "x", below = -p.clamp })
    w:drive(body, cl.region.slab { axis = "x", above = p.clamp },
            cl.motion.twist { axis = "x", rate = p.twist_rate, duration = p.twist_time })
    local built = C.standard { world = w, body = body, mesh = mesh }
    local named, r = {}, 0.3 * math.min(p.size[2], p.size[3])
    for k = 1, ring do
      local a = 2 * math.pi * (k - 0.5) / ring
      named[string.format("ring%d", k)] = { 0, r * math.cos(a), r * math.sin(a) }
    end
    local L = p.size
    C.with_points(built, mesh, named,
                  C.box_points(L, { 8, 2, 2 }))
    local volume_change = C.volume_change(w, body)
    built.measure = function()
      local m = built.material_points.now().named
      local cy, cz = 0, 0
      for k = 1, ring do
        cy, cz = cy + m["ring" .. k][2] / ring, cz + m["ring" .. k][3] / ring
      end
      local twist = 0
      for k = 1, ring do
        local a = 2 * math.pi * (k - 0.5) / ring
        local Y, Z = math.cos(a), math.sin(a)
        local y, z = m["ring" .. k][2] - cy, m["ring" .. k][3] - cz
        twist = twist + math.atan2(Y * z - Z * y, Y * y + Z * z) / ring
      end
      return { mid_twist = twist, volume_change = volume_change() }
    end
    return built
  end,
}
