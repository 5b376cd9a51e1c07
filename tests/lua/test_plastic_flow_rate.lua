-- material.plastic.flow is a rate k in 1/s in every solver. Shape matching turns it into eq 13's
-- fraction per step, nu = k dt (src/solvers/shape_matching/sm_plastic.c, docs/solvers/
-- shape_matching.md), so the same k gives the same plastic flow per second whatever the step.
--
-- The set-up makes the deformation independent of the dynamics: every particle of a small grid
-- body is driven, stretched by the isochoric field v = (x, -y, 0) 1/s for 0.1 s and then held, so
-- every cluster sees the same F = diag(1.1, 0.9, 1) at the same times at any dt. The plastic
-- stretch ln sigma_max(F^p) after 0.3 s is then a function of the flow law alone. (Each world
-- warns CL_WARN_ALL_FIXED on stderr once: every node is driven, as intended.)
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

-- Largest singular value of a row-major 3x3 (power iteration on M^T M).
local function sigma_max(m)
  local v = { 1, 0.7, 0.3 }
  local function apply(a)
    return { m[1] * a[1] + m[2] * a[2] + m[3] * a[3], m[4] * a[1] + m[5] * a[2] + m[6] * a[3],
             m[7] * a[1] + m[8] * a[2] + m[9] * a[3] }
  end
  for _ = 1, 60 do
    local u = apply(v)
    local w = { m[1] * u[1] + m[4] * u[2] + m[7] * u[3], m[2] * u[1] + m[5] * u[2] + m[8] * u[3],
                m[3] * u[1] + m[6] * u[2] + m[9] * u[3] }
    local l = math.sqrt(w[1] ^ 2 + w[2] ^ 2 + w[3] ^ 2)
    v = { w[1] / l, w[2] / l, w[3] / l }
  end
  local u = apply(v)
  return math.sqrt(u[1] ^ 2 + u[2] ^ 2 + u[3] ^ 2)
end

-- Mean plastic log-stretch over the clusters after `T` seconds at step `dt` with flow rate `k`.
local function plastic_stretch(dt, k, T_end)
  local w = cl.world { dt = dt, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { shape = cl.shape.box { size = { 0.2, 0.2, 0.2 } }, solver = "shape_matching",
                     params = { sampling = "grid", spacing = 0.05, cluster_count = 4 },
                     material = { plastic = { yield = 0.02, flow = k } } }
  local X, n3 = b:rest_positions("cdata")
  for i = 0, n3 / 3 - 1 do
    w:drive(b, cl.region.indices { i + 1 },
      cl.motion.translate { velocity = { X[3 * i], -X[3 * i + 1], 0 }, duration = 0.1 })
  end
  w:step(math.floor(T_end / dt + 0.5))
  local sum, P = 0, b:unit_field("plastic_strain")
  for _, p in ipairs(P) do
    local F = {}
    for j = 1, 9 do F[j] = p[j] + ((j == 1 or j == 5 or j == 9) and 1 or 0) end -- F^p = I + P
    sum = sum + math.log(sigma_max(F))
  end
  return sum / #P
end

T.test("the same rate at dt = 1/100 s and 1/400 s flows the same in 0.3 s", function()
  local coarse, fine = plastic_stretch(1 / 100, 2, 0.3), plastic_stretch(1 / 400, 2, 0.3)
  io.write(string.format("      ln sigma_max(F^p): %.5f at dt = 1/100 s, %.5f at 1/400 s\n", coarse, fine))
  -- what flowed: well above nothing and well below the whole deviatoric stretch (~ln 1.1)
  T.truthy(coarse > 0.01 and coarse < 0.08, "a partial flow, got " .. coarse)
  -- nu = k dt is first order: the two agree to O(k dt) = 2 %, here to 1 %
  T.truthy(math.abs(coarse - fine) < 0.01 * fine, "relative difference " .. math.abs(coarse - fine) / fine)
  -- and the measure does see the rate: twice the rate (what a per-step fraction at a 4x finer step
  -- would amount to, halfway) flows a third more
  local doubled = plastic_stretch(1 / 400, 4, 0.3)
  T.truthy(doubled > 1.33 * fine, "doubling k: " .. doubled .. " against " .. fine)
end)

T.test("the flow converges as dt shrinks (first order)", function()
  -- against a fine step, halving dt halves the difference: nu = k dt is the forward-Euler step of
  -- de/dt = -k e, so the result has a limit independent of the step (a per-step fraction has none)
  local ref = plastic_stretch(1 / 1600, 2, 0.3)
  local e1 = math.abs(plastic_stretch(1 / 100, 2, 0.3) - ref)
  local e2 = math.abs(plastic_stretch(1 / 200, 2, 0.3) - ref)
  io.write(string.format("      difference to dt = 1/1600 s: %.3g at 1/100 s, %.3g at 1/200 s\n", e1, e2))
  T.truthy(e1 < 0.02 * ref, "within 2 % at 1/100 s")
  T.truthy(e1 / e2 > 1.5 and e1 / e2 < 3, "ratio " .. e1 / e2)
end)

T.done()
