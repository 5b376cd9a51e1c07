-- Scene 'every_solver/dropped_ball' (set-up and parameters: experiments/scenes/every_solver/dropped_ball.lua), on any
-- solver: --set solver=corotational|shape_matching|graph_fem. Writes VTU frames, probes.csv,
-- run.json and a snapshot to out/every_solver/dropped_ball/.
--   cleave run experiments/every_solver/dropped_ball.lua [--set solver=graph_fem] [--set <parameter>=<value> ...]
--   --set quick=true: the smoke test (a few frames); --set help=true: the parameters, units, ranges
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/../scenes/init.lua").main("every_solver/dropped_ball")
