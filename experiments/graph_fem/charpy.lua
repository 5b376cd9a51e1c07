-- Graph-based FEM scene 'charpy' (set-up and parameters: experiments/scenes/graph_fem/charpy.lua).
-- Writes VTU frames, probes.csv, run.json, load_cmod.png and charpy.png to out/graph_fem/charpy/.
--   cleave run experiments/graph_fem/charpy.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("graph_fem/charpy")
