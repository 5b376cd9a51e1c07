-- Shape-matching scene 'twisted_bar' (set-up and parameters: experiments/scenes/shape_matching/twisted_bar.lua).
-- Writes VTU frames, probes.csv, run.json and twisted_bar.png to out/shape_matching/twisted_bar/.
--   cleave run experiments/shape_matching/twisted_bar.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/twisted_bar")
