-- Corotational scene 'notched_bar_brittle' (set-up and parameters in scenes.lua beside this file). Writes VTU frames,
-- probes.csv and a PNG snapshot to out/corotational/notched_bar_brittle/.
--   cleave run experiments/corotational/notched_bar_brittle.lua [--set frames=N] [--set threads=N] [--set out=DIR]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local S = dofile(here .. "/scenes.lua")
S.main("notched_bar_brittle")
