-- Figure 4 of Jones et al. 2016 (I3D): a bar twisted by its clamps, then let go; a tough plastic bar
-- keeps its twist, a weaker one tears before the clamps are released. cleave's shape_matching on
-- the scenes twisted_bar and twisted_bar_fracture (experiments/scenes/shape_matching/twisted_bar.lua),
-- drawn when the clamps let go (10 s) and at the end (15 s), particles coloured by their nearest
-- cluster centre as in the paper.
--
--   cleave run experiments/papers/jones_fig4.lua [--set quick=true] [--set frames=N]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/lib/jones_figures.lua").run {
  name = "jones_fig4",
  caption = "Figure 4, \"A bar is twisted and then the clamps are released. Top: A tough plastic bar does not " ..
            "fracture. Bottom: The bar fractures before the clamps are released.\"",
  says = "\"First we demonstrate plastic deformation, which allows the bar to maintain its twisted shape, then we " ..
         "enable fracture. This twisting deformation causes the two large tears in the material, one which separates " ..
         "the object into two pieces, and a large partial tear\" (sec 5).",
  panels = {
    { scene = "twisted_bar", label = "plastic bar", at = { 600 / 900, 1 } },
    { scene = "twisted_bar_fracture", label = "fracturing bar", at = { 600 / 900, 1 } },
  },
  note = "Frames 600 and 900 of the full run: the clamps turn for 10 s (600 frames) and let go; the paper's \"two " ..
         "pieces\" is the pieces column of the fracturing bar.",
}
