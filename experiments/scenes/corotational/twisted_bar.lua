-- A bar twisted by one clamped end (corotational, issue 3; docs/solvers/corotational.md,
-- "Experiments"): plastic, it keeps its twist after it is let go (twisted_bar); with its plastic
-- strain capped, the excess plastic force tears it (twisted_bar_fracture, thesis sec 5.6). One step of
-- 1/60 s per frame, no gravity.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

local twisted_bar = cl.scene {
  name = "twisted_bar",
  what = "a plastic bar twisted half a turn by one clamped end in 2 s, then let go: it keeps its twist",
  params = C.entries {
    P.size({ 0.8, 0.1, 0.1 }, "the bar"),
    P.grip("clamp", 0.38, "held (x < -clamp) and twisted (x > clamp)"),
    P.number("twist_rate", "loading", math.pi / 2, "rad/s", { -100, 100 }, "turning rate of the driven end about x"),
    P.number("twist_time", "loading", 2, "s", { 0, 1e6 }, "how long the end turns (then it is held)"),
    P.number("release", "loading", 3, "s", { 0, 1e6 }, "when the driven end is let go"),
    C.body_params { young = 1e5, yield = 0.01, flow = 5, hardening = 0, plastic_max = 0, criterion = "none",
                    toughness = 0.6, damping = 2, max_volume = 4e-6, frames = 300 },
  },
  check = function(p) return P.inside("clamp", p.clamp, p.size[1]) end,
  quick = { frames = 3, max_volume = 2e-5 },
  build = function(p)
    local w = C.world(p, { 0, 0, 0 })
    local body = C.body(w, "bar", C.tets(cl.shape.box { size = p.size }, p), p)
    w:fix(body, cl.region.slab { axis = "x", below = -p.clamp })
    w:drive(body, cl.region.slab { axis = "x", above = p.clamp },
            cl.motion.twist { axis = "x", rate = p.twist_rate, duration = p.twist_time, release = p.release })
    return C.standard { world = w, body = body, params = p }
  end,
}

local twisted_bar_fracture = twisted_bar:variant {
  name = "twisted_bar_fracture",
  what = "a bar whose plasticity is capped, twisted a full turn in 4 s: the excess plastic force tears it "
         .. "(thesis 5.6)",
  defaults = { plastic_max = 0.06, criterion = "plastic_excess", twist_time = 4, release = 5, frames = 330 },
}

return { twisted_bar, twisted_bar_fracture }
