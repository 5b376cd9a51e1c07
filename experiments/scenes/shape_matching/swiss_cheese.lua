-- The Swiss cheese of Jones et al. (I3D 2016), as in the authors' swissCheese.json: a 1.0 x 0.75 x
-- 0.05 m slice (their swiss_cheese1-bn.txt, 25,032 particles) with 18 holes of 2.5-11 cm radius,
-- held where y > 0.28 and y < -0.31 by planes with normals +-y that move out at 0.05 m/s, under
-- gravity (0, -1, 0). The slab is Poisson-sampled and the holes are carved out of the samples; the
-- body gets that point set (each particle stands for the slab volume over the samples before
-- carving, so the density is right).
local cl = require "cleave"
local ffi = require "ffi"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

-- The sample spacing comes from a cube root. libm's cbrt and x^(1/3) differ in the last bit, and
-- the Poisson sampler turns that into another point set (24991 instead of 25030 particles): the
-- scene computes as the benchmark's former C copy of this scene did (cbrt, keep * (n / target)),
-- whose figures docs/BENCHMARKS.md records (Table 1: 25030 particles).
if not pcall(function() return ffi.C.cbrt end) then ffi.cdef "double cbrt(double x);" end
local cbrt = ffi.C.cbrt

-- The holes (centre x, y, z and radius, m) read off the empty regions of the authors' particle set:
-- spheres whose sections through the slab match the holes' outlines at five depths.
local holes = {
  { 0.041, 0.233, 0.039, 0.109 }, { 0.267, 0.229, -0.015, 0.090 }, { 0.188, -0.067, 0.024, 0.091 },
  { -0.008, -0.126, 0.015, 0.081 }, { -0.358, 0.167, 0.003, 0.066 }, { 0.399, -0.345, 0.012, 0.060 },
  { 0.458, 0.211, 0.000, 0.058 }, { -0.382, -0.180, 0.012, 0.059 }, { -0.152, 0.219, 0.024, 0.057 },
  { 0.102, 0.085, -0.024, 0.052 }, { -0.449, 0.035, -0.021, 0.050 }, { -0.046, -0.306, -0.018, 0.045 },
  { -0.487, -0.209, -0.009, 0.040 }, { 0.486, -0.235, 0.000, 0.036 }, { -0.340, -0.346, 0.009, 0.034 },
  { -0.292, 0.054, 0.030, 0.036 }, { 0.164, 0.369, 0.012, 0.028 }, { 0.495, 0.071, -0.009, 0.025 },
}

-- The carved point set with about `target` points, and the spacing of the samples before carving.
local function cheese(size, target, seed)
  local slab = cl.shape.box { size = size }
  local V = size[1] * size[2] * size[3]
  local removed = 0
  for _, h in ipairs(holes) do removed = removed + 4 / 3 * 3.14159265358979 * h[4] ^ 3 end -- an upper bound
  local centers, radii = {}, {}
  for i, h in ipairs(holes) do centers[i], radii[i] = { h[1], h[2], h[3] }, h[4] end
  local keep, pts, spacing = 1 - 0.7 * removed / V, nil, nil
  for _ = 1, 2 do -- the count after carving, corrected once
    pts = slab:sample { method = "poisson", spacing = cbrt(0.7 * V * keep / target), seed = seed }
    local before = pts:info().points
    pts:carve_spheres { centers = centers, radii = radii }
    keep = keep * (pts:info().points / target)
    spacing = cbrt(V / before)
  end
  return pts, spacing
end

return C.scene {
  name = "swiss_cheese",
  what = "a slice with holes torn by planes at 0.05 m/s under gravity",
  paper = { particles = 25032, r = 0.15, k = 63, alpha = 0.8, omega = 0.3, iterations = 4, gamma = 0.5,
            damping = 0.5, toughness = 0.1, yield = 0.1, flow = 60, hardening = 0, frames = 240,
            gravity = { 0, -1, 0 } },
  bench = { big = true },
  params = {
    P.size({ 1.0, 0.75, 0.05 }, "the slab (the 18 holes are fixed)"),
    P.integer("sample_seed", "geometry", 5, { 0, 2 ^ 31 }, "seed of the Poisson sampling of the slab"),
    P.number("hold_top", "geometry", 0.28, "m", { -100, 100 }, "particles with rest y above this are pulled up"),
    P.number("hold_bottom", "geometry", -0.31, "m", { -100, 100 }, "particles with rest y below this are pulled down"),
    P.speed("pull", 0.05, "speed of each side along y"),
  },
  build = function(p)
    local world = C.world(p)
    local shape, spacing = cheese(p.size, p.particles, p.sample_seed)
    local body = C.body(world, "swiss_cheese", shape, p, spacing)
    world:drive(body, cl.region.slab { axis = "y", above = p.hold_top }, cl.motion.translate { velocity = { 0, p.pull, 0 } })
    world:drive(body, cl.region.slab { axis = "y", below = p.hold_bottom },
                cl.motion.translate { velocity = { 0, -p.pull, 0 } })
    return { world = world, body = body }
  end,
}
