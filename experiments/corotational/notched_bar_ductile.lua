-- Corotational scene 'notched_bar_ductile' (set-up and parameters: experiments/scenes/corotational/notched_bar.lua).
-- Writes VTU frames, probes.csv, run.json and notched_bar_ductile.png to out/corotational/notched_bar_ductile/.
--   cleave run experiments/corotational/notched_bar_ductile.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("corotational/notched_bar_ductile")
