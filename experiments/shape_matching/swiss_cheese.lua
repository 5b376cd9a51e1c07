-- Shape-matching scene 'swiss_cheese' of Jones, Martin, Levine, Shinar and Bargteil, "Ductile Fracture for
-- Clustered Shape Matching" (I3D 2016); the set-up and its parameters are in scenes.lua beside
-- this file. Writes VTU frames, probes.csv and a PNG snapshot to out/shape_matching/swiss_cheese/.
--   cleave run experiments/shape_matching/swiss_cheese.lua [--set frames=N] [--set threads=N] [--set out=DIR]
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local S = dofile(here .. "/scenes.lua")
S.main("swiss_cheese")
