-- graph_fem scene 'torn_armadillo' (set-up and parameters: experiments/scenes/graph_fem/torn_armadillo.lua).
-- Writes VTU frames, probes.csv, run.json and torn_armadillo.png to out/graph_fem/torn_armadillo/.
--   cleave run experiments/graph_fem/torn_armadillo.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("graph_fem/torn_armadillo")
