-- The default experiment, run by `make run` (build/cleave run experiments/default.lua): the Charpy
-- impact test of Mandal, Chaudhuri and Chaudhuri (GRAPP 2025, sec 4.6) with their Galerkin multigrid
-- (graph_fem, grid "50/all", two V-cycles a step): a pendulum hammer swinging at 5 m/s strikes an
-- ISO 148-1 V-notch specimen of brittle steel (55 x 10 x 10 mm, about 29k tets) resting on two
-- anvils 40 mm apart; a crack runs from the notch and the specimen breaks. Every step records the
-- load on the hammer (its contact force) and the crack mouth opening (CMOD).
--
-- The scene, its parameters and where each value comes from: experiments/scenes/graph_fem/charpy.lua
-- (the same as `cleave run experiments/graph_fem/charpy.lua`; validation/charpy.lua checks it).
-- It writes to out/default/ (change with --set out=...):
--   specimen.pvd, specimen_*.vtu   the specimen every `every` frames, with its damage (ParaView)
--   probes.csv                     load, CMOD, pieces, energies and phase times per step
--   load_cmod.png                  the load against the CMOD (gnuplot)
--   charpy.png                     a shaded snapshot of the broken specimen
--   run.json                       parameters, version, git revision, date, host
-- Every parameter of the scene can be set: --set speed=5.5, --set linear_solver=pcg (the converged
-- solve), --set max_volume=2e-9 (coarser, faster), --set frames=100; --set help=true lists them.
-- --set quick=true is the smoke test (coarse mesh, a few frames).
-- To stay near a minute on two cores it uses a coarser mesh than the scene's 29k tets (about 10k:
-- TetGen max volume 5e-9 m^3) and 80 steps of 4 us (0.32 ms; the specimen is in two halves by
-- then); --set max_volume=5.5e-10 --set dt=2e-6 --set frames=250 is the scene's default run.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/scenes/init.lua")
local scene = scenes.get("graph_fem/charpy"):variant {
  name = "default",
  what = "the Charpy impact test: a pendulum hammer at 5 m/s breaks a V-notched steel specimen (graph_fem with "
    .. "the Galerkin multigrid)",
  defaults = { max_volume = 5e-9, dt = 4e-6, frames = 80 },
}
scenes.main(scene, "out/default")
