-- A hollow ball (outer radius 0.15 m, inner 0.11 m: a 4 cm shell, 8.6 kg of a soft solid) dropped on
-- the ground (corotational, issue 3; docs/solvers/corotational.md, "Experiments"): brittle, it
-- shatters into a few large pieces; ductile, it dents and stays dented. One step of 1/60 s per frame.
--
-- The brittle one is tuned to shatter into a few large pieces instead of crumbling at the contact
-- (measured at 90 frames). What decided it:
--  * Mesh resolution. The separation tensor (thesis eq 5.7) has no length scale: every node near the
--    contact whose tensile load exceeds the toughness splits in the same step (largest_only = false), so a
--    mesh with 3 elements through the shell (max_volume 4e-6, 5.5k nodes) turned the contact patch into
--    hundreds of single-tet crumbs whatever the toughness (2.5: ~440 crumbs; 4 to 10: from 85 crumbs to
--    none, the ball only bounced; with E = 2e6 and toughness 20: 64 crumbs). With about one element
--    through the shell (subdivisions 2, max_volume 1.5e-5, 1.3k nodes) a split at a node cuts the
--    whole wall, so a crack runs along the shell from node to node: the mesh size is the fragment
--    size scale, as the crack spacing in a real brittle shell is set by its thickness.
--  * Toughness 8 N (separation-tensor eigenvalue per node): 6 broke it on the second bounce, 10 did
--    not break it; 8 leaves large pieces and a few chips.
--  * Drop height 0.75 m (3.8 m/s at impact) instead of 0.25 m: enough energy (64 J) to run the
--    cracks through the wall on the first impact.
--  * All events above the toughness per step (largest_only = false): with only the largest event per
--    step (the thesis's choice) a crack grows one node per step, and the ~6 steps of contact do not
--    separate anything.
--  * Four substeps: at 1/60 s the ball moved 6 cm (more than the wall) per solve at impact and the
--    contact projection crushed the first layer of elements, which added to the crumbling.
--  * Since issue 17 (docs/solvers/corotational.md, "Clean cracks"): strength 2 kPa, the separation
--    tensor's eigenvalue per unit area of the node's section, instead of the toughness, with the
--    solver's crack rules on (crack tips, continuing cracks, no stale events, no fragments of up to 4
--    elements). With the toughness 8 N and those rules nothing broke (a crack of 45 nodes); without
--    the rules, 20 pieces of which 16 chips under 1 %. Strength 1 kPa crumbles it again (37 pieces,
--    18 under 1 %), 3 kPa chips it (4 pieces, 90.6 % whole).
-- The ductile ball keeps the finer mesh and the 0.25 m drop: it must dent, not break.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

local hollow_ball_brittle = cl.scene {
  name = "hollow_ball_brittle",
  what = "a hollow ball dropped from 0.75 m onto the ground: brittle, it shatters into a few large pieces",
  params = C.entries {
    P.length("radius", 0.15, "outer radius"),
    P.length("inner_radius", 0.11, "radius of the cavity"),
    P.number("height", "geometry", 0.9, "m", { -100, 100 },
             "height of the centre at the start (the ground is y = 0; drop = height - radius)"),
    P.number("ground_friction", "geometry", 0.3, "1", { 0, 10 }, "Coulomb friction of the ground"),
    P.integer("subdivisions", "resolution", 2, { 0, 6 }, "icosphere subdivisions of the two spheres"),
    C.body_params { young = 2e5, criterion = "separation_tensor", toughness = 8, strength = 2e3, largest_only = false,
                    damping = 0.5,
                    substeps = 4, max_volume = 1.5e-5, frames = 90 },
  },
  check = function(p)
    if p.inner_radius >= p.radius then return "inner_radius must be less than radius" end
  end,
  quick = { frames = 3 },
  build = function(p)
    local w = C.world(p, { 0, -9.81, 0 })
    local shape = cl.shape.hollow_sphere { radius = p.radius, inner_radius = p.inner_radius,
                                          subdivisions = p.subdivisions, center = { 0, p.height, 0 } }
    local body = C.body(w, "ball", C.tets(shape, p), p)
    w:collider { kind = "plane", center = { 0, 0, 0 }, normal = "y", friction = p.ground_friction, restitution = 0 }
    return C.standard { world = w, body = body, report = function() print("  " .. C.piece_summary(body)) end }
  end,
}

local hollow_ball_ductile = hollow_ball_brittle:variant {
  name = "hollow_ball_ductile",
  what = "a finer-meshed hollow ball dropped from 0.25 m, plastic: it dents and stays dented",
  defaults = { height = 0.4, yield = 0.03, flow = 60, hardening = 0.5, plastic_max = 0, criterion = "none",
               substeps = 1, subdivisions = 3, max_volume = 4e-6 },
  quick = { frames = 3, subdivisions = 2, max_volume = 1.5e-5 },
}

return { hollow_ball_brittle, hollow_ball_ductile }
