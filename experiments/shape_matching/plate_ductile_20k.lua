-- Shape-matching scene 'plate_ductile_20k' (set-up and parameters: experiments/scenes/shape_matching/plate.lua).
-- Writes VTU frames, probes.csv, run.json and plate_ductile_20k.png to out/shape_matching/plate_ductile_20k/.
--   cleave run experiments/shape_matching/plate_ductile_20k.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/plate_ductile_20k")
