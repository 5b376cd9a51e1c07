-- Corotational scene 'pendulum_bar' (set-up and parameters: experiments/scenes/corotational/pendulum_bar.lua).
-- Writes VTU frames, probes.csv, run.json and pendulum_bar.png to out/corotational/pendulum_bar/.
--   cleave run experiments/corotational/pendulum_bar.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("corotational/pendulum_bar")
