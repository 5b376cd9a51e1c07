-- A cantilever sagging under its own weight, the same definition on every solver (issue 14): a
-- 0.4 x 0.1 x 0.1 m elastic bar (E = 1 MPa) clamped at x < -0.19 m, gravity, mass damping so it
-- settles in the 2 s of the run. Euler-Bernoulli beam theory puts the static tip deflection at
-- q L^4 / (8 E I) = 3.8 cm (q = rho g A, L = 0.4 m, I = h^4 / 12); shear adds a few mm at L / h = 4
-- (Timoshenko), and the compared runs measure the tip of the simulated body, not of a beam.
-- Measures: the tip's deflection (the material point at x = 0.19 m on the axis) and the volume
-- change; the runs are compared on a grid of material points (experiments/compare_solvers.lua).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

return cl.scene {
  name = "cantilever",
  what = "an elastic bar clamped at one end sags under its own weight and settles",
  params = C.entries {
    P.size({ 0.4, 0.1, 0.1 }, "the bar"),
    P.grip("clamp", 0.19, "held (x < -clamp)"),
    P.number("gravity", "loading", 9.81, "m/s^2", { 0, 1000 }, "downward acceleration"),
    C.body_params { young = 1e6, damping = 5, max_volume = 2e-5, frames = 120 },
  },
  check = function(p) return P.inside("clamp", p.clamp, p.size[1]) end,
  quick = { frames = 3, max_volume = 1e-4 },
  build = function(p)
    local w = C.world(p, { 0, -p.gravity, 0 })
    local mesh = C.tets(cl.shape.box { size = p.size }, p)
    local body = C.body(w, "cantilever", mesh, p)
    w:fix(body, cl.region.slab { axis = "x", below = -p.clamp })
    local L = p.size
    local built = C.standard { world = w, body = body, mesh = mesh }
    C.with_points(built, mesh, { tip = { 0.475 * L[1], 0, 0 } },
                  C.box_points(L, { 8, 2, 2 }))
    local volume_change = C.volume_change(w, body)
    built.measure = function()
      return { tip_deflection = -built.material_points.now().named.tip[2], volume_change = volume_change() }
    end
    return built
  end,
}
