-- Rigid-body scene 'bouncing_balls' (set-up and parameters: experiments/scenes/rigid/bouncing_balls.lua).
-- Writes balls.csv, probes.csv, run.json and heights.png to out/rigid/bouncing_balls/.
--   cleave run experiments/rigid/bouncing_balls.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("rigid/bouncing_balls")
