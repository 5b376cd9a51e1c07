-- Shape-matching scene 'swiss_cheese' (set-up and parameters: experiments/scenes/shape_matching/swiss_cheese.lua).
-- Writes VTU frames, probes.csv, run.json and swiss_cheese.png to out/shape_matching/swiss_cheese/.
--   cleave run experiments/shape_matching/swiss_cheese.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/swiss_cheese")
