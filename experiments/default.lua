-- The default experiment, run by `make run` (build/cleave run experiments/default.lua): a notched
-- bar pulled apart until it breaks, the corotational solver's brittle fracture from start to end in
-- about half a minute on a 2-core machine (29 s with 2 threads at a load of 4.5).
--
-- The scene is experiments/scenes/corotational/notched_bar.lua (notched_bar_brittle) on a finer
-- mesh (21k tets) and pulled slower: an elastic 0.6 x 0.1 x 0.1 m bar (E = 100 kPa, a soft solid)
-- with a 3 cm V-notch, its ends pulled apart at 10 mm/s each. The separation tensor (O'Brien &
-- Hodgins 1999; thesis eq 5.7) of the nodes at the notch root grows with the load until it passes
-- the toughness; the nodes split and a crack runs across the section. The pulling force rises
-- linearly while the bar stretches (to about 30 N at an opening of 19 mm) and drops as the crack
-- opens: the load-opening curve of a fracture test.
-- It writes to out/default/ (change with --set out=...):
--   notched.pvd, notched_*.vtu   the body every `every` frames (open the .pvd in ParaView)
--   probes.csv                   force, pieces, volume, energies and phase times per frame
--   force.png                    the pulling force against the opening of the ends (gnuplot)
--   default.png                  a shaded snapshot of the broken bar
--   run.json                     parameters, version, git revision, date, host
-- Every parameter of the scene can be set: --set young=2e5, --set toughness=3, --set
-- max_volume=5e-6 (coarser, faster), --set frames=60; --set help=true lists them.
-- --set quick=true is the smoke test `make test` runs (coarse mesh, faster pull, 12 frames).
local cl = require "cleave"

-- Inputs are found relative to this script, so it runs from any working directory.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local scenes = dofile(here .. "/scenes/init.lua")

local scene = scenes.get("corotational/notched_bar_brittle"):variant {
  name = "default",
  what = "a notched elastic bar pulled apart at 20 mm/s until a crack runs from the notch across it",
  defaults = { max_volume = 1.2e-6, pull = 0.01, frames = 150 },
  quick = { max_volume = 4e-5, pull = 0.05, frames = 12 }, -- it breaks by frame 10
}
local p, o = scenes.options(scene, "out/default", 5)
if not p then return end -- --set help=true

local t0 = cl.progress.now()
local built = scene:build(p)
local body, world = built.body, built.world
local info0 = body:info()
print(string.format("cleave %s (git %s): default experiment, %s", cl.version, cl.git_revision, scene.what))
print(string.format("  %d nodes, %d tets (TetGen, max volume %.3g m^3), %d frames of 1/60 s, toughness %g N",
                    info0.nodes, info0.units, p.max_volume, p.frames, p.toughness))
local probes = built.probes
probes.force = cl.probe.reaction(built.grips.right) -- the force the drive exerts on the pulled end
local run = world:run { frames = p.frames, every = o.every, output = o.out, probes = probes }

-- The pulling force (N, along +x) against the opening of the ends (mm: both move at `pull`).
local opening, force, peak, at = {}, {}, 0, 0
for i, t in ipairs(run.probes.time) do
  opening[i] = 2 * p.pull * t * 1e3
  force[i] = run.probes.force[i][1]
  if force[i] > peak then peak, at = force[i], opening[i] end
end
local info = body:info()
print(string.format("  peak pulling force %.3g N at an opening of %.1f mm; at the end (%.1f mm) %.3g N", peak, at,
                    opening[#opening], force[#force]))
print(string.format("  after %.2f s: %d pieces, %d nodes added by fracture, volume %.4g m^3 (rest %.4g m^3)",
                    run.stats.time, info.pieces, info.nodes - info0.nodes, run.probes.volume[#run.probes.volume],
                    run.probes.volume[1]))
local wrote = { run.csv or "(no probes.csv)" }
if o.snapshot then
  if cl.plot.available() then
    local fig = cl.plot.lines { series = { { x = opening, y = force, title = "pulling force" } },
                                xlabel = "opening of the ends (mm)", ylabel = "force (N)",
                                title = "notched bar pulled apart: load and fracture", output = o.out .. "/force.png" }
    local png = o.out .. "/default.png"
    cl.plot.snapshot { surface = body, output = png, view = { 62, 22 },
                       title = string.format("t = %.2f s: %d pieces", run.stats.time, info.pieces) }
    wrote[#wrote + 1], wrote[#wrote + 2] = fig, png
  else
    io.stderr:write("default: gnuplot not found (install gnuplot-nox): no force plot, no snapshot\n")
  end
end
print(string.format("  wrote %s/notched.pvd (every %d frames), %s, run.json", o.out, o.every, table.concat(wrote, ", ")))
print(string.format("  total %.1f s (last step %.1f ms, %d CG iterations)", cl.progress.now() - t0, run.stats.step_ms,
                    run.stats.iterations))
