-- Shape-matching scene 'broken_heart' (set-up and parameters: experiments/scenes/shape_matching/broken_heart.lua).
-- Writes VTU frames, probes.csv, run.json and broken_heart.png to out/shape_matching/broken_heart/.
--   cleave run experiments/shape_matching/broken_heart.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/broken_heart")
