-- The hanging sphere of Mandal, Chaudhuri and Chaudhuri (GRAPP 2025, sec 4.1 and 5, Fig. 14, Table
-- 2): a sphere held at its top hangs under gravity, nearly incompressible (Poisson 0.48); its volume
-- gain (V - V_rest) / V_rest measures how well a solver and a material model keep the volume. The
-- paper gives neither the size, Young's modulus, mesh nor time step; cleave's choice is a sphere of
-- radius 0.1 m (icosphere, 3 subdivisions, TetGen -q2 with tets of at most 4e-7 m^3: 8,483 nodes,
-- 36,124 tets, about the paper's 34.9k), E = 1e5 Pa, density 1000 kg/m^3, the nodes within 1 cm of
-- the top held, one step of 1/60 s per frame, graph_fem with the paper's Galerkin multigrid (grid
-- "50/all", one fixed V-cycle per step) by default. validation/volume_gain.lua runs it across
-- solvers, models and multigrid settings; `cleave bench graph_fem` times it.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local G = dofile(here .. "/common_volume.lua")
local P = G.P

return cl.scene {
  name = "hanging_sphere",
  what = "a sphere (Poisson 0.48) held at its top hangs under gravity: the volume-gain study's scene",
  info = { bench = { big = false } },
  params = G.entries {
    P.length("radius", 0.1, "radius of the sphere", 10),
    P.integer("subdivisions", "geometry", 3, { 0, 6 }, "icosphere subdivisions of the surface"),
    P.length("hold", 0.01, "the nodes within this distance of the top are held", 10),
    P.number("gravity", "loading", 9.81, "m/s^2", { 0, 1e3 }, "gravitational acceleration along -y"),
    G.material { young = 1e5, poisson = 0.48 },
    G.solver {},
    G.fracture {},
    G.resolution { max_volume = 4e-7 },
    P.frames(120),
  },
  quick = { frames = 5, subdivisions = 2, max_volume = 2e-5 },
  check = function(p)
    if p.hold >= 2 * p.radius then return "hold must be less than the sphere's diameter" end
    return G.check(p)
  end,
  build = function(p)
    local w = G.world(p, { 0, -p.gravity, 0 })
    local mesh = G.tets(cl.shape.icosphere { radius = p.radius, subdivisions = p.subdivisions }, p)
    local body = w:body { name = "sphere", mesh = mesh, solver = p.solver, material = G.material_table(p),
                          params = G.params_table(p), fracture = G.fracture_table(p) }
    mesh:destroy()
    local held = w:fix(body, cl.region.slab { axis = "y", above = p.radius - p.hold })
    local info0 = body:info()
    local v_rest = w:probe(cl.probe.volume(body)):read()
    local probes = { volume = cl.probe.volume(body), kinetic = cl.probe.kinetic(body),
                     reaction = cl.probe.reaction(held), pieces = cl.probe.pieces(body) }
    return {
      world = w, body = body, held = held, probes = probes,
      intro = function(frames)
        return string.format("  %d nodes (%d held), %d tets, E = %g Pa, nu = %g, density %g kg/m^3, %d frames of 1/60 s\n"
                             .. "  %s", info0.nodes, held:nodes(), info0.units, p.young, p.poisson, p.density, frames,
                             G.describe(p))
      end,
      report = function(run)
        local v = run.probes.volume
        local g = G.volume_gain(v, v_rest, math.max(1, math.floor(#v / 10)))
        local st = body:stats()
        print(string.format("  volume gain (V - V_rest) / V_rest: largest %+.4f %%, smallest %+.4f %%, last tenth %+.4f %%",
                            100 * g.max, 100 * g.min, 100 * g.steady))
        print(string.format("  last step %.1f ms, %s iterations %s, %d piece(s)", run.stats.step_ms,
                            p.solver == "graph_fem" and "linear solver" or "CG",
                            tostring(st.iterations or st.cg_iterations), body:info().pieces))
      end,
      snapshot = function(png, title)
        return cl.plot.snapshot { surface = body, output = png, title = title, view = { 80, 20 } }
      end,
    }
  end,
}
