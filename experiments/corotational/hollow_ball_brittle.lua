-- Corotational scene 'hollow_ball_brittle' (set-up and parameters: experiments/scenes/corotational/hollow_ball.lua).
-- Writes VTU frames, probes.csv, run.json and hollow_ball_brittle.png to out/corotational/hollow_ball_brittle/.
--   cleave run experiments/corotational/hollow_ball_brittle.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("corotational/hollow_ball_brittle")
