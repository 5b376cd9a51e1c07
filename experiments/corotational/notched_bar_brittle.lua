-- Corotational scene 'notched_bar_brittle' (set-up and parameters: experiments/scenes/corotational/notched_bar.lua).
-- Writes VTU frames, probes.csv, run.json and notched_bar_brittle.png to out/corotational/notched_bar_brittle/.
--   cleave run experiments/corotational/notched_bar_brittle.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("corotational/notched_bar_brittle")
