-- Figure 5 of Jones et al. 2016 (I3D): a projectile fired through a thin sheet of three materials,
-- weak brittle, strong brittle and ductile. cleave's shape_matching on the scenes
-- plate_brittle_weak, plate_brittle_strong and plate_ductile (experiments/scenes/shape_matching/
-- plate.lua), drawn at the end of the run, particles coloured by their nearest cluster centre.
--
--   cleave run experiments/papers/jones_fig5.lua [--set quick=true] [--set frames=N]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/lib/jones_figures.lua").run {
  name = "jones_fig5",
  caption = "Figure 5, \"A projectile is fired through a thin sheet of material with varying material properties. " ..
            "top: weak and brittle; center: strong and brittle; bottom: strong and ductile. Note permanent the plastic " ..
            "deformation near the hole.\"",
  says = "\"The weak, brittle material breaks into many small pieces. The strong, brittle material breaks into larger " ..
         "pieces. The ductile material deforms plastically near the impact before fracturing, bending permanently in " ..
         "the wake of the projectile\" (sec 5). So the expected order is pieces(weak) > pieces(strong), the ductile " ..
         "plate holed but bent.",
  panels = {
    { scene = "plate_brittle_weak", label = "weak brittle plate" },
    { scene = "plate_brittle_strong", label = "strong brittle plate" },
    { scene = "plate_ductile", label = "ductile plate" },
  },
}
