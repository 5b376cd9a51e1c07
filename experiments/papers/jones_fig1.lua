-- Figure 1 of Jones et al. 2016 ("Ductile Fracture for Clustered Shape Matching", I3D): the
-- armadillo torn by the arms while shot at, the broken heart, the Swiss cheese torn apart, rendered
-- by cleave's shape_matching on the paper's scenes (experiments/scenes/shape_matching/), particles
-- coloured by their nearest cluster centre as in the paper.
--
--   cleave run experiments/papers/jones_fig1.lua [--set quick=true] [--set frames=N]
--
-- Writes out/papers/jones_fig1_<scene>.png, out/papers/jones_fig1.md and .csv, and rewrites
-- out/papers/report.md (experiments/papers/lib/jones_figures.lua).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/lib/jones_figures.lua").run {
  name = "jones_fig1",
  caption = "Figure 1, \"Left: An armadillo is tortured by being torn apart by the arms while being fired upon by " ..
            "spherical projectiles. Center: A heart-breaking example. Right: Tearing a slice of Swiss cheese.\"",
  says = "\"The complex shape determines where the tear begins and how it propagates. Similarly ... the holes in a " ..
         "slice of swiss cheese determine how the model is torn\" (sec 5).",
  panels = {
    { scene = "armadillo", label = "armadillo", at = { 0.5, 1 } },
    { scene = "broken_heart", label = "broken heart" },
    { scene = "swiss_cheese", label = "swiss cheese" },
  },
}
