-- A ball dropped on the ground, the same definition on every solver (issue 14): radius 0.1 m
-- (an icosphere), E = 100 kPa, its centre 0.3 m up (a 0.2 m fall, 2 m/s at impact), a ground
-- plane with friction and no restitution, light mass damping, 1 s. Measures: the rebound (the
-- highest the centre rises after its lowest point), the lowest the body's nodes went (below 0:
-- into the ground), the centre's height and the volume change at the end.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

return cl.scene {
  name = "dropped_ball",
  what = "an elastic ball dropped from 0.2 m onto the ground bounces and settles",
  params = C.entries {
    P.length("radius", 0.1, "the ball's radius"),
    P.number("height", "geometry", 0.3, "m", { -100, 100 }, "height of the centre at the start (the ground is y = 0)"),
    P.number("friction", "geometry", 0.5, "1", { 0, 10 }, "Coulomb friction of the ground"),
    P.integer("subdivisions", "resolution", 2, { 0, 6 }, "icosphere subdivisions of the surface (the geometry every resolution shares)"),
    P.number("gravity", "loading", 9.81, "m/s^2", { 0, 1000 }, "downward acceleration"),
    C.body_params { young = 1e5, damping = 0.5, max_volume = 4e-5, frames = 60 },
  },
  check = function(p) if p.height <= p.radius then return "height must put the ball above the ground (> radius)" end end,
  quick = { frames = 3, max_volume = 1e-4, subdivisions = 1 },
  build = function(p)
    local w = C.world(p, { 0, -p.gravity, 0 })
    w:collider { kind = "plane", center = { 0, 0, 0 }, normal = "y", restitution = 0, friction = p.friction }
    local mesh = C.tets(cl.shape.icosphere { radius = p.radius, subdivisions = p.subdivisions,
                                           center = { 0, p.height, 0 } }, p)
    local body = C.body(w, "ball", mesh, p)
    local built = C.standard { world = w, body = body, mesh = mesh }
    local r = p.radius
    C.with_points(built, mesh, { centre = { 0, p.height, 0 } },
                  C.grid_points({ -r, p.height - r, -r }, { r, p.height + r, r }, { 4, 4, 4 }, function(q)
                    return q[1] * q[1] + (q[2] - p.height) ^ 2 + q[3] * q[3] < (0.85 * r) ^ 2
                  end))
    local volume_change = C.volume_change(w, body)
    local lowest, low_centre, rebound = math.huge, math.huge, -math.huge
    built.on_frame = function()
      for _, x in ipairs(body:positions()) do lowest = math.min(lowest, x[2]) end
      local c = built.material_points.now().named.centre[2]
      if c < low_centre then
        low_centre, rebound = c, c
      else
        rebound = math.max(rebound, c)
      end
    end
    built.measure = function()
      return { rebound = rebound - low_centre, lowest = lowest, centre_height = built.material_points.now().named.centre[2],
               volume_change = volume_change() }
    end
    return built
  end,
}
