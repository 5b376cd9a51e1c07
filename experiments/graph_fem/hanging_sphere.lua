-- graph_fem scene 'hanging_sphere' (set-up and parameters: experiments/scenes/graph_fem/hanging_sphere.lua).
-- Writes VTU frames, probes.csv, run.json and hanging_sphere.png to out/graph_fem/hanging_sphere/.
--   cleave run experiments/graph_fem/hanging_sphere.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("graph_fem/hanging_sphere")
