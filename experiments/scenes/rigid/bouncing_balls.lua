-- Bouncing balls (contact between rigid bodies, docs/RIGID_BODIES.md "Contact between rigid bodies"):
-- three dynamic balls of restitution 0.9, 0.6 and 0.3 dropped 1 m onto a kinematic ground plane
-- (restitution 0: the pair takes max(e_ball, e_ground) = e_ball), and two more (0.5 kg and 1 kg,
-- e = 1) thrown at each other that collide in the air: gravity acts along y only, so the horizontal
-- momentum is kept through the hit, and with e = 1 the energy too (1D elastic collision formulas).
-- The report gives each dropped ball's first two bounce heights against e^2 and e^4 of the drop
-- height, and the thrown pair's horizontal momentum and kinetic energy before and after their
-- collision; the run writes balls.csv (heights per frame) and the figure heights.png.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")

return cl.scene {
  name = "bouncing_balls",
  what = "three balls of restitution 0.9, 0.6, 0.3 dropped on the ground, two thrown at each other (e = 1)",
  params = {
    P.number("drop", "geometry", 1.0, "m", { 0, 100 }, "drop height of the three balls' bottoms"),
    P.length("radius", 0.05, "radius of every ball", 1),
    P.number("gravity", "loading", 9.81, "m/s^2", { 0, 1e3 }, "gravitational acceleration (along -y)"),
    P.substeps(8),
    P.frames(720, "1/240 s"),
  },
  quick = { frames = 30 },
  build = function(p)
    local g, r, H = p.gravity, p.radius, p.drop
    local w = cl.world { dt = 1 / 240, substeps = p.substeps, gravity = { 0, -g, 0 } }
    w:collider { kind = "plane", center = { 0, 0, 0 }, normal = "y", restitution = 0, friction = 0.3 }
    local drops = {}
    for i, e in ipairs { 0.9, 0.6, 0.3 } do
      drops[i] = { e = e, peaks = {}, vy = 0, bounces = 0,
                   c = w:collider { kind = "sphere", radius = r, center = { (i - 2) * 0.5, H + r, 0 }, dynamic = true,
                                    mass = 1, restitution = e, friction = 0.3 } }
    end
    -- the thrown pair, at the same height with the same upward speed (so they meet side by side), at
    -- z = 1 m, out of the drop line
    local mA, mB, uA, uB = 0.5, 1.0, 2.0, -1.5
    local A = w:collider { kind = "sphere", radius = r, center = { -0.6, 0.6, 1 }, velocity = { uA, 2, 0 },
                           dynamic = true, mass = mA, restitution = 1, friction = 0 }
    local B = w:collider { kind = "sphere", radius = r, center = { 0.6, 0.6, 1 }, velocity = { uB, 2, 0 },
                           dynamic = true, mass = mB, restitution = 1, friction = 0 }
    local function pair_state()
      local va, vb = A:velocity(), B:velocity()
      local px = mA * va[1] + mB * vb[1]
      local ke = 0.5 * mA * (va[1] ^ 2 + va[2] ^ 2 + va[3] ^ 2) + 0.5 * mB * (vb[1] ^ 2 + vb[2] ^ 2 + vb[3] ^ 2)
      return px, ke, va[1], vb[1]
    end
    local px0, ke0, vax0, vbx0 = pair_state()
    -- kinetic energy of the pair at the same time without the hit: gravity changes it the same way,
    -- so compare against free flight: ke_free(t) = ke0 - 2 m g (y(t) - y0) for two balls at equal height
    local y0 = A:center()[2]
    local csv, T, Hs = nil, {}, { {}, {}, {} }
    local hit_px, hit_ke, hit_va, hit_vb
    return {
      world = w,
      intro = function(frames)
        return string.format("  %d frames of 1/240 s, %d substeps (h = %.2e s), drop height %.2f m", frames,
                             p.substeps, 1 / 240 / p.substeps, H)
      end,
      probes = { phases = cl.probe.phase_time() },
      start = function(out)
        cl.output.mkdir(out)
        csv = assert(io.open(out .. "/balls.csv", "w"))
        csv:write("time,h1,h2,h3,yA,yB\n")
      end,
      on_frame = function(_, world)
        local t = world:stats().time
        T[#T + 1] = t
        local row = { string.format("%.6f", t) }
        for i, d in ipairs(drops) do
          local c, v = d.c:center(), d.c:velocity()
          local hgt = c[2] - r
          Hs[i][#Hs[i] + 1] = hgt
          row[#row + 1] = string.format("%.6f", hgt)
          if d.vy < 0 and v[2] > 0 then d.bounces = d.bounces + 1 end -- just bounced
          if d.bounces >= 1 and d.bounces <= 2 then
            d.peaks[d.bounces] = math.max(d.peaks[d.bounces] or 0, hgt)
          end
          d.vy = v[2]
        end
        local ya, yb = A:center()[2], B:center()[2]
        row[#row + 1] = string.format("%.6f", ya)
        row[#row + 1] = string.format("%.6f", yb)
        if csv then csv:write(table.concat(row, ","), "\n") end
        if not hit_px and A:velocity()[1] < 0 then -- they have hit
          local px, ke = pair_state()
          hit_px, hit_ke = px, ke + mA * g * (ya - y0) + mB * g * (yb - y0) -- back to the launch height
          hit_va, hit_vb = A:velocity()[1], B:velocity()[1]
        end
      end,
      report = function(run)
        if csv then csv:close() end
        for _, d in ipairs(drops) do
          print(string.format("  e = %.1f: bounces to %.4f m (e^2 H = %.4f) then %.4f m (e^4 H = %.4f)", d.e,
                              d.peaks[1] or 0, d.e ^ 2 * H, d.peaks[2] or 0, d.e ^ 4 * H))
        end
        local px1 = pair_state()
        local eA = ((mA - mB) * uA + 2 * mB * uB) / (mA + mB) -- 1D elastic collision
        local eB = ((mB - mA) * uB + 2 * mA * uA) / (mA + mB)
        print(string.format("  thrown pair (%.1f kg and %.1f kg, e = 1): vx %.4f / %.4f m/s -> %.4f / %.4f m/s "
                            .. "(elastic: %.4f / %.4f)", mA, mB, vax0, vbx0, hit_va or 0 / 0, hit_vb or 0 / 0, eA, eB))
        print(string.format("  horizontal momentum %.15f -> %.15f N s (end of run %.15f)", px0, hit_px or 0 / 0, px1))
        print(string.format("  kinetic energy at the launch height %.6f J -> %.6f J after the hit", ke0,
                            hit_ke or 0 / 0))
        print(string.format("  %s, balls.csv, last step %.3f ms", run.csv or "(no probes.csv)", run.stats.step_ms))
      end,
      snapshot = function(png)
        local series = {}
        for i, d in ipairs(drops) do series[i] = { x = T, y = Hs[i], title = string.format("e = %.1f", d.e) } end
        return cl.plot.lines { series = series, xlabel = "time (s)", ylabel = "height of the ball's bottom (m)",
                               title = "bouncing balls on a kinematic plane", output = png }
      end,
      figure = "heights.png",
    }
  end,
}
