-- Corotational scene 'projectile_plate_ductile' (set-up and parameters in scenes.lua beside this file). Writes VTU frames,
-- probes.csv and a PNG snapshot to out/corotational/projectile_plate_ductile/.
--   cleave run experiments/corotational/projectile_plate_ductile.lua [--set frames=N] [--set threads=N] [--set out=DIR]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local S = dofile(here .. "/scenes.lua")
S.main("projectile_plate_ductile")
