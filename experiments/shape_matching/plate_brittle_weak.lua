-- Shape-matching scene 'plate_brittle_weak' (set-up and parameters: experiments/scenes/shape_matching/plate.lua).
-- Writes VTU frames, probes.csv, run.json and plate_brittle_weak.png to out/shape_matching/plate_brittle_weak/.
--   cleave run experiments/shape_matching/plate_brittle_weak.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/plate_brittle_weak")
