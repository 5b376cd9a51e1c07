-- Two shape-matching bodies thrown at each other without gravity: a box and a ball meet head-on,
-- bounce and fly apart. Contact between different bodies is the solver's pair op (cluster
-- proxies, spheres cut by half-spaces, after Jones et al., MIG 2015 and I3D 2016 sec 3.1; see
-- docs/solvers/shape_matching.md, "Collisions"): each body's particles are pushed out of the other
-- body's proxies and the proxy's cluster takes the reaction, so the total linear momentum is kept.
-- The report gives the total linear and angular momentum before and after and how far the bodies met.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

-- total linear momentum (N s) and angular momentum about the origin (kg m^2/s); the particles of a
-- body sampled from a closed surface have equal masses (its mass over its particle count)
local function momentum(bodies)
  local P, L = { 0, 0, 0 }, { 0, 0, 0 }
  for _, b in ipairs(bodies) do
    local v, count = b:velocities("cdata")
    local x = b:positions("cdata")
    local n = count / 3
    local m = b:info().mass / n
    for i = 0, n - 1 do
      local x1, x2, x3 = x[3 * i], x[3 * i + 1], x[3 * i + 2]
      local v1, v2, v3 = v[3 * i], v[3 * i + 1], v[3 * i + 2]
      P[1], P[2], P[3] = P[1] + m * v1, P[2] + m * v2, P[3] + m * v3
      L[1] = L[1] + m * (x2 * v3 - x3 * v2)
      L[2] = L[2] + m * (x3 * v1 - x1 * v3)
      L[3] = L[3] + m * (x1 * v2 - x2 * v1)
    end
  end
  return P, L
end

local function dist(a, b) return math.sqrt((a[1] - b[1]) ^ 2 + (a[2] - b[2]) ^ 2 + (a[3] - b[3]) ^ 2) end

-- The x-gap between the box's right face and the ball's left side.
local function gap(box, ball)
  local bx = box:positions("cdata")
  local bl, nb = ball:positions("cdata")
  local xmax, xmin = -math.huge, math.huge
  for i = 0, box:info().nodes - 1 do xmax = math.max(xmax, bx[3 * i]) end
  for i = 0, nb / 3 - 1 do xmin = math.min(xmin, bl[3 * i]) end
  return xmin - xmax
end

return cl.scene {
  name = "two_bodies",
  what = "a box and a ball thrown at each other: they meet, bounce and fly apart, keeping their momentum",
  params = {
    P.number("speed", "loading", 1.0, "m/s", { 0, 10 }, "speed of each body"),
    P.number("offset", "geometry", 0.0, "m", { -0.3, 0.3 },
             "the ball's centre above the box's (0 = head-on; e.g. 0.1 for a glancing hit that spins them)"),
    P.integer("substeps", "solver", 2, { 1, 100 },
              "substeps per frame: keep 2 speed dt / substeps below the particle spacing"),
    P.seed(),
    P.threads(),
    P.integer("particles", "resolution", 1500, { 100, 1e6 }, "particles per body"),
    P.frames(90),
  },
  quick = { frames = 3, particles = 300 },
  build = function(p)
    local world = cl.world { dt = 1 / 60, substeps = p.substeps, gravity = { 0, 0, 0 }, seed = p.seed,
                             threads = p.threads }
    -- no damping: the solver's damping relaxes each cluster toward its mean velocity and so slows spin;
    -- without it the linear and angular momentum printed below are both kept to rounding
    local params = { particles = p.particles, cluster_count = 20, alpha = 0.5, damping = 0, restitution = 1 }
    local box = world:body { name = "box",
                             shape = cl.shape.box { size = { 0.3, 0.3, 0.3 }, center = { -0.3, -p.offset / 2, 0 } },
                             solver = "shape_matching", params = params, material = { density = 1000 },
                             velocity = { p.speed, 0, 0 } }
    local ball = world:body { name = "ball", shape = cl.shape.icosphere { radius = 0.15, subdivisions = 3,
                                                                         center = { 0.3, p.offset / 2, 0 } },
                              solver = "shape_matching", params = params, material = { density = 1000 },
                              velocity = { -p.speed, 0, 0 } }
    local bodies = { box, ball }
    local closest = math.huge
    local P0, L0 = momentum(bodies) -- the throw
    return {
      world = world, body = box, bodies = bodies,
      intro = function(frames)
        return string.format("  a box (%d particles) and a ball (%d) at %g m/s each, %d frames of 1/60 s, %d substeps",
                             box:info().nodes, ball:info().nodes, p.speed, frames, p.substeps)
      end,
      probes = { box_kinetic = cl.probe.kinetic(box), ball_kinetic = cl.probe.kinetic(ball),
                 phases = cl.probe.phase_time() },
      on_frame = function() closest = math.min(closest, gap(box, ball)) end,
      report = function()
        local P1, L1 = momentum(bodies)
        local scale = (box:info().mass + ball:info().mass) * p.speed
        print(string.format("  linear momentum after the throw (%.4g, %.4g, %.4g) N s, at the end (%.4g, %.4g, %.4g) " ..
          "N s: change %.3g of %.3g N s", P0[1], P0[2], P0[3], P1[1], P1[2], P1[3], dist(P0, P1), scale))
        print(string.format("  angular momentum about the origin after the throw (%.4g, %.4g, %.4g), at the end " ..
          "(%.4g, %.4g, %.4g) kg m^2/s: change %.3g", L0[1], L0[2], L0[3], L1[1], L1[2], L1[3], dist(L0, L1)))
        print(string.format("  x-gap between the box's right face and the ball: closest %.4f m (head-on: negative " ..
          "means particles of one that far inside the other; compare the spacing, about (V / n)^(1/3) = %.3f m; a " ..
          "glancing hit turns the box, which widens its x extent), at the end %.4f m", closest,
          (0.3 ^ 3 / box:info().nodes) ^ (1 / 3), gap(box, ball)))
      end,
      snapshot = function(png, title)
        -- both bodies in one picture: C.snapshot reads positions (0-based, like cdata) and a node count
        local xs, n = {}, 0
        for _, b in ipairs(bodies) do
          local x, count = b:positions("cdata")
          for i = 0, count - 1 do xs[n + i] = x[i] end
          n = n + count
        end
        local both = { positions = function() return xs, n end, info = function() return { nodes = n / 3 } end }
        return C.snapshot(both, png, { title = title })
      end,
    }
  end,
}
