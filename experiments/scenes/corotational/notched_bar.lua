-- A notched bar pulled apart at both ends (corotational, issues 3 and 17; docs/solvers/corotational.md,
-- "Clean cracks"): elastic with separation-tensor fracture, a crack starts at the notch and runs
-- straight across (notched_bar_brittle, O'Brien & Hodgins 1999); plastic with a capped flow, it necks
-- at the notch and tears by plastic excess (notched_bar_ductile, thesis sec 5.6). One step of 1/60 s
-- per frame, no gravity. Both end in two pieces split at the notch plane (the issue 17 test:
-- tests/lua/test_clean_cracks.lua; the refined meshes: validation/corotational.lua, "clean cracks").
--
-- What the settings are for:
--  * strength (Pa) instead of the toughness (N): the criteria compare their node measure per unit
--    area of the node's section. The force of eq 5.7 / 5.10 grows with the size of the elements
--    around a node, and TetGen refines the mesh at the notch root: with toughness 1.5 N the first
--    nodes to fail were large interior elements all along the bar (within 15 % of each other), never
--    the notch (its nodes carried 0.005-0.03 N), and 13 pieces came out; per area the notch root
--    is the most loaded place, as it is in the material.
--  * brittle: 20 kPa, every event above it per step (largest_only = false): the crack runs across in
--    a few frames, as a brittle crack does (it crosses the bar faster than one frame).
--  * ductile: flow 60/s (flow dt = 1: the whole excess flows in a step, no rate effect), softening
--    (hardening -0.04) so that the flow gathers in the ligament and it necks; the cap 0.3 is the
--    strain it tears at; strength 3 kPa of refused plastic strain (excess = "refused", the default);
--    every event above it per step. With 2 kPa the tear left jags of up to 1.8 element sizes in
--    the neck (the crack nodes within 0.029 m of the notch plane); with 3 kPa within 0.84-1.05 of
--    an element size on all four meshes of docs/solvers/corotational.md, "Clean cracks". With the earlier flow 10/s and hardening 0.05 the whole bar
--    flowed to the cap (viscous overstress as large as the yield) and tore anywhere (30 pieces).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

local notched_bar_brittle = cl.scene {
  name = "notched_bar_brittle",
  what = "an elastic notched bar pulled apart at 0.1 m/s: separation-tensor fracture starts at the notch and "
         .. "runs straight across (brittle)",
  params = C.entries {
    P.size({ 0.6, 0.1, 0.1 }, "the bar (the notch is cut into its top face)"),
    P.length("notch_depth", 0.03, "depth of the V-notch"),
    P.number("notch_width", "geometry", 0, "m", { 0, 100 }, "width of the notch's flat bottom (0 = a V)"),
    P.number("notch_angle", "geometry", 45, "degree", { 0, 180, "()" }, "opening angle of the V"),
    P.number("notch_root_radius", "geometry", 0.002, "m", { 0, 100 }, "radius at the root of the notch"),
    P.grip("grip", 0.28, "pulled apart"),
    P.speed("pull", 0.05, "speed of each end (the ends separate at twice this)"),
    C.body_params { young = 1e5, criterion = "separation_tensor", toughness = 1.5, strength = 2e4,
                    largest_only = false, damping = 1, max_volume = 5e-6, frames = 180 },
  },
  check = function(p) return P.inside("grip", p.grip, p.size[1]) end,
  quick = { frames = 3, max_volume = 2e-5 },
  build = function(p)
    local w = C.world(p, { 0, 0, 0 })
    local shape = cl.shape.notched_beam { size = p.size, notch_depth = p.notch_depth, notch_width = p.notch_width,
                                          notch_angle = p.notch_angle, notch_root_radius = p.notch_root_radius }
    local mesh = C.tets(shape, p)
    local body = C.body(w, "notched", mesh, p)
    local left = w:drive(body, cl.region.slab { axis = "x", below = -p.grip },
                         cl.motion.translate { velocity = { -p.pull, 0, 0 } })
    local right = w:drive(body, cl.region.slab { axis = "x", above = p.grip },
                          cl.motion.translate { velocity = { p.pull, 0, 0 } })
    return C.standard { world = w, body = body, mesh = mesh, grips = { left = left, right = right } }
  end,
}

local notched_bar_ductile = notched_bar_brittle:variant {
  name = "notched_bar_ductile",
  what = "the same bar, plastic with a capped flow: it necks at the notch and tears by plastic excess (ductile)",
  defaults = { yield = 0.02, flow = 60, hardening = -0.04, plastic_max = 0.3, criterion = "plastic_excess",
               toughness = 0.5, strength = 3e3, largest_only = false, frames = 180 },
}

return { notched_bar_brittle, notched_bar_ductile }
