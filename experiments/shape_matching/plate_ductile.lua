-- Shape-matching scene 'plate_ductile' (set-up and parameters: experiments/scenes/shape_matching/plate.lua).
-- Writes VTU frames, probes.csv, run.json and plate_ductile.png to out/shape_matching/plate_ductile/.
--   cleave run experiments/shape_matching/plate_ductile.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/plate_ductile")
