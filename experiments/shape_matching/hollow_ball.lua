-- Shape-matching scene 'hollow_ball' (set-up and parameters: experiments/scenes/shape_matching/hollow_ball.lua).
-- Writes VTU frames, probes.csv, run.json and hollow_ball.png to out/shape_matching/hollow_ball/.
--   cleave run experiments/shape_matching/hollow_ball.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/hollow_ball")
