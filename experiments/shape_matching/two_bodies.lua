-- Shape-matching scene 'two_bodies' (set-up and parameters: experiments/scenes/shape_matching/two_bodies.lua).
-- Writes VTU frames, probes.csv, run.json and two_bodies.png to out/shape_matching/two_bodies/.
--   cleave run experiments/shape_matching/two_bodies.lua [--set frames=N] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("shape_matching/two_bodies")
