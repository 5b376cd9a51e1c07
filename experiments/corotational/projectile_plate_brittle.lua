-- Corotational scene 'projectile_plate_brittle'
-- (set-up and parameters: experiments/scenes/corotational/projectile_plate.lua). Writes VTU frames,
-- probes.csv, run.json and projectile_plate_brittle.png to out/corotational/projectile_plate_brittle/.
--   cleave run experiments/corotational/projectile_plate_brittle.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("corotational/projectile_plate_brittle")
