-- A soft sphere hanging from its top cap, the same definition on every solver (issue 14): radius
-- 0.1 m (an icosphere), E = 20 kPa, the nodes above y = 0.07 m held, gravity, mass damping so it
-- settles in 2 s. Measures: the sag of the material point 1 cm above the bottom and the volume
-- change.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

return cl.scene {
  name = "hanging_sphere",
  what = "a soft sphere held by its top cap sags under its own weight and settles",
  params = C.entries {
    P.length("radius", 0.1, "the sphere's radius"),
    P.integer("subdivisions", "resolution", 2, { 0, 6 }, "icosphere subdivisions of the surface (the geometry every resolution shares)"),
    P.number("cap", "geometry", 0.07, "m", { -100, 100 }, "the nodes above this height (rest) are held"),
    P.number("gravity", "loading", 9.81, "m/s^2", { 0, 1000 }, "downward acceleration"),
    C.body_params { young = 2e4, damping = 5, max_volume = 2e-5, frames = 120 },
  },
  check = function(p) if p.cap >= p.radius then return "cap must be below the top of the sphere (radius)" end end,
  quick = { frames = 3, max_volume = 1e-4, subdivisions = 1 },
  build = function(p)
    local w = C.world(p, { 0, -p.gravity, 0 })
    local mesh = C.tets(cl.shape.icosphere { radius = p.radius, subdivisions = p.subdivisions }, p)
    local body = C.body(w, "sphere", mesh, p)
    w:fix(body, cl.region.slab { axis = "y", above = p.cap })
    local built = C.standard { world = w, body = body, mesh = mesh }
    local r = p.radius
    C.with_points(built, mesh, { bottom = { 0, -0.9 * r, 0 } },
                  C.grid_points({ -r, -r, -r }, { r, r, r }, { 4, 4, 4 },
                                function(q) return q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < (0.85 * r) ^ 2 end))
    local volume_change = C.volume_change(w, body)
    built.measure = function()
      return { bottom_sag = -0.9 * r - built.material_points.now().named.bottom[2], volume_change = volume_change() }
    end
    return built
  end,
}
