-- An armadillo torn apart by graph-based FEM's edge damage (Mandal, Chaudhuri and Chaudhuri, GRAPP
-- 2025, Algorithm 1; its armadillo of sec 4.6 runs the multigrid "50/1000/all"): the armadillo 1 m
-- tall (data/meshes/armadillo_2500.off fitted to 1 m, TetGen -q2: about 63k tets; --set
-- mesh=data/meshes/armadillo_6k.off gives the benchmark's ~148k), no gravity, its arms pulled apart
-- as in the armadillo torture of Jones et al. (experiments/scenes/shape_matching/armadillo.lua): what
-- lies beyond two planes with normals (+-1, 0.1, 0) at 0.36 m from the centre moves out along the
-- normals at `pull` m/s. E = 1e5 Pa, nu = 0.45, density 1000 kg/m^3; the edge_stress criterion at a
-- tensile strength of 3e4 Pa (threshold, the paper's all-or-nothing damage) breaks the edges where
-- the pull concentrates the stress, until the body comes apart. graph_fem stable Neo-Hookean with
-- the Galerkin multigrid "50/1000/all", one fixed V-cycle per step (the paper's mode), mass damping
-- 2/s so the torn pieces do not ring. Measured: the body is in two from t = 0.38 s (frame 23), the
-- right hand off by 0.75 s; run on (--set frames=120) it falls into about 14 pieces and fully broken
-- tets collapse (the volume probe, the sum of signed tet volumes, then drops). The run writes VTU
-- frames (the visual surface split along the broken edges), probes.csv (pieces, volume, kinetic
-- energy) and a snapshot.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local G = dofile(here .. "/common_volume.lua")
local SM = dofile(here .. "/../shape_matching/common.lua")
local P = G.P

return cl.scene {
  name = "torn_armadillo",
  what = "an armadillo's arms pulled apart until graph_fem's edge damage tears it",
  info = { bench = { big = true } },
  params = G.entries {
    { name = "mesh", group = "geometry", type = "string", default = "data/meshes/armadillo_2500.off",
      help = "closed surface, relative to the source tree (or absolute)" },
    P.length("size", 1.0, "the surface's largest extent (its height) after fitting"),
    P.length("plane", 0.36, "distance of the two pulling planes from the centre; normals (+-1, 0.1, 0)"),
    P.speed("pull", 0.15, "speed of what lies beyond each plane, along its normal"),
    G.material { young = 1e5, poisson = 0.45 },
    G.solver { grid = "50/1000/all", damping = 2 },
    G.fracture { strength = 3e4 },
    G.resolution { max_volume = 0 },
    P.frames(60),
  },
  quick = { frames = 4, quality = 0, grid = "50/all" },
  check = G.check,
  build = function(p)
    local w = G.world(p, { 0, 0, 0 })
    local path = p.mesh:sub(1, 1) == "/" and p.mesh or (G.root .. "/" .. p.mesh)
    local surface = cl.mesh.read(path)
    surface:fit(p.size)
    local mesh = G.tets(surface, p)
    local body = w:body { name = "armadillo", mesh = mesh, solver = p.solver, material = G.material_table(p),
                          params = G.params_table(p), fracture = G.fracture_table(p) }
    local l = math.sqrt(1.01)
    for _, n in ipairs { { 1, 0.1, 0 }, { -1, 0.1, 0 } } do
      w:drive(body, SM.beyond(body, n, p.plane),
              cl.motion.translate { velocity = { p.pull * n[1] / l, p.pull * n[2] / l, 0 } })
    end
    local info0 = body:info()
    local probes = { pieces = cl.probe.pieces(body), volume = cl.probe.volume(body), kinetic = cl.probe.kinetic(body),
                     phases = cl.probe.phase_time() }
    return {
      world = w, body = body, mesh = mesh, probes = probes,
      intro = function(frames)
        return string.format("  %d nodes, %d tets, E = %g Pa, nu = %g, density %g kg/m^3, strength %g Pa, pull %g m/s, "
                             .. "%d frames of 1/60 s\n  %s", info0.nodes, info0.units, p.young, p.poisson, p.density,
                             p.strength, p.pull, frames, G.describe(p))
      end,
      report = function(run)
        local st = body:stats()
        local first
        for f, n in ipairs(run.probes.pieces) do
          if n > 1 then first = f break end
        end
        print(string.format("  %s of %s edges broken, %d damaged tets, %d piece(s)%s; last step %.1f ms",
                            tostring(st.broken_edges), tostring(st.edges), st.damaged_tets or 0, body:info().pieces,
                            first and string.format(" (in two from frame %d, t = %.2f s)", first, first / 60) or "",
                            run.stats.step_ms))
      end,
      snapshot = function(png, title)
        return cl.plot.snapshot { surface = body, output = png, title = title, view = { 70, 10 } }
      end,
    }
  end,
}
