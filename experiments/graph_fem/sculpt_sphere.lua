-- graph_fem scene 'sculpt_sphere' (set-up and parameters: experiments/scenes/graph_fem/sculpt_sphere.lua):
-- a sphere carved into a face with scripted brushes and knives, its back held by an anchor.
-- Writes VTU frames, probes.csv, run.json, sculpted.obj (closed) and sculpt_sphere.png to
-- out/graph_fem/sculpt_sphere/.
--   cleave run experiments/graph_fem/sculpt_sphere.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a coarse sphere, short strokes); --set help=true: the parameters
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("graph_fem/sculpt_sphere")
