-- Shape-matching scene 'armadillo' (set-up and parameters: experiments/scenes/shape_matching/armadillo.lua).
-- Writes VTU frames, probes.csv, run.json and armadillo.png to out/shape_matching/armadillo/.
--   cleave run experiments/shape_matching/armadillo.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/armadillo")
