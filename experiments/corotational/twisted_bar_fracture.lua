-- Corotational scene 'twisted_bar_fracture' (set-up and parameters in scenes.lua beside this file). Writes VTU frames,
-- probes.csv and a PNG snapshot to out/corotational/twisted_bar_fracture/.
--   cleave run experiments/corotational/twisted_bar_fracture.lua [--set frames=N] [--set threads=N] [--set out=DIR]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local S = dofile(here .. "/scenes.lua")
S.main("twisted_bar_fracture")
