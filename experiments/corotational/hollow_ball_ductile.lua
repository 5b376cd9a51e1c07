-- Corotational scene 'hollow_ball_ductile' (set-up and parameters: experiments/scenes/corotational/hollow_ball.lua).
-- Writes VTU frames, probes.csv, run.json and hollow_ball_ductile.png to out/corotational/hollow_ball_ductile/.
--   cleave run experiments/corotational/hollow_ball_ductile.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("corotational/hollow_ball_ductile")
