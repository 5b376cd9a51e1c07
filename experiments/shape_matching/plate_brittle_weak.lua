-- Shape-matching scene 'plate_brittle_weak' of Jones, Martin, Levine, Shinar and Bargteil, "Ductile Fracture for
-- Clustered Shape Matching" (I3D 2016); the set-up and its parameters are in scenes.lua beside
-- this file. Writes VTU frames, probes.csv and a PNG snapshot to out/shape_matching/plate_brittle_weak/.
--   cleave run experiments/shape_matching/plate_brittle_weak.lua [--set frames=N] [--set threads=N] [--set out=DIR]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local S = dofile(here .. "/scenes.lua")
S.main("plate_brittle_weak")
