-- A sphere sculpted with scripted tools, like the sculpting figures of Mandal, Chaudhuri and
-- Chaudhuri (GRAPP 2025, sec 4, Figs 5 and 9: a face carved from a sphere with knives, deformation
-- brushes and anchoring tools; world:knife, world:brush, world:anchor, docs/LUA_API.md "Tools").
-- graph_fem (the paper's graph-based FEM: cuts break mesh edges, nothing is remeshed) on a
-- tetrahedralised icosphere floating as in a sculpting application (no gravity by default), its back
-- held by an anchor so the brushes pull against it. One tool stroke after another, each `stroke`
-- seconds long:
--   1. a brush pulls a nose out of the front,      2. a brush pulls the crown up into a point,
--   3. a knife plunges a mouth slit into the front, 4. two knives plunge the eye slits,
--   5. a knife slices the right cheek off,          6. a brush takes the slice away.
-- The brushes hold their pull to the end: graph_fem is elastic, so a pulled shape lasts while a tool
-- holds it (the paper's sculpting keeps its deformations; it does not say how). The run writes VTU
-- frames, the sculpted surface as a closed OBJ (sculpted.obj, the visual surface: every edge in
-- exactly two triangles, checked here), a shaded snapshot of the face and the tools' report.
-- With gravity (--set gravity=9.81) the body sags from its anchor and the slice falls as it comes
-- off, so the last brush catches little of it (a node or none; none warns CL_WARN_NO_EFFECT).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")

local inf = P.inf

return cl.scene {
  name = "sculpt_sphere",
  what = "a sphere sculpted into a face: brushes pull a nose and a crown, knives cut a mouth, eyes and a cheek off",
  params = {
    P.length("radius", 0.1, "radius of the sphere", 10),
    P.integer("subdivisions", "geometry", 3, { 1, 5 }, "icosphere subdivisions of the surface"),
    P.number("density", "material", 1000, "kg/m^3", { 0, inf, "()" }, "mass density"),
    P.number("young", "material", 1e5, "Pa", { 0, inf, "()" }, "Young's modulus (a soft clay-like solid)"),
    P.number("poisson", "material", 0.4, "1", { 0, 0.5, "[)" }, "Poisson's ratio"),
    P.number("gravity", "loading", 0, "m/s^2", { 0, 1e3 }, "gravitational acceleration along -y (0: a sculpting stand)"),
    P.number("stroke", "loading", 0.4, "s", { 0, 100, "()" }, "duration of each of the six tool strokes"),
    P.number("pull", "loading", 0.35, "1", { 0, 1 }, "how far the brushes pull, as a fraction of the radius"),
    P.number("damping", "solver", 4, "1/s", { 0, 1e6 }, "Rayleigh mass damping"),
    { name = "linear_solver", group = "solver", type = "enum", values = { "pcg", "cholmod", "galerkin_mg" },
      index_from = 0, default = "pcg", help = "graph_fem's linear solver (galerkin_mg: the paper's multigrid)" },
    { name = "grid", group = "solver", type = "string", default = "50/all",
      help = "galerkin_mg: the paper's grid spec, vertex counts of the coarse levels then 'all'" },
    P.threads(),
    P.number("max_volume", "resolution", 4e-6, "m^3", { 0, inf, "()" }, "largest tet volume (TetGen -a)"),
    P.number("quality", "resolution", 1.8, "1", { 1, 10 }, "TetGen radius-edge ratio bound (-q)"),
    P.frames(160),
  },
  quick = { frames = 32, stroke = 0.08, subdivisions = 2, max_volume = 2e-5 },
  build = function(p)
    local R, T = p.radius, p.stroke
    local w = cl.world { dt = 1 / 60, gravity = { 0, -p.gravity, 0 }, threads = p.threads }
    local mesh = cl.shape.icosphere { radius = R, subdivisions = p.subdivisions }
      :tetrahedralize { quality = p.quality, max_volume = p.max_volume }
    local body = w:body { name = "sphere", mesh = mesh, solver = "graph_fem",
                          material = { density = p.density, young = p.young, poisson = p.poisson },
                          params = { damping = p.damping, linear_solver = p.linear_solver,
                                     grid = p.linear_solver == "galerkin_mg" and p.grid or nil } }
    local tools = {}
    local function tool(name, t) tools[#tools + 1] = { name = name, tool = t } end
    -- the back (z < -0.7 R) is held from the start
    tool("anchor (back)", w:anchor(body, cl.region.slab { axis = "z", below = -0.7 * R }))
    -- 1, 2: brushes pull the nose forward and the crown up
    local d = p.pull * R
    tool("brush (nose)", w:brush(body, { radius = 0.25 * R, path = { { 0, 0, 0, R }, { T, 0, 0, R + d } } }))
    tool("brush (crown)", w:brush(body, { radius = 0.3 * R, path = { { T, 0, R, 0 }, { 2 * T, 0, R + 1.15 * d, 0 } } }))
    -- 3: a mouth slit, a blade across x plunged from in front to 0.65 R deep
    tool("knife (mouth)", w:knife(body, { blade = { { -0.45 * R, 0, 0 }, { 0.45 * R, 0, 0 } },
      path = { { 2 * T, 0, -0.35 * R, 1.3 * R }, { 3 * T, 0, -0.35 * R, 0.65 * R } } }))
    -- 4: the eye slits
    for _, s in ipairs { -1, 1 } do
      tool(s < 0 and "knife (right eye)" or "knife (left eye)", w:knife(body, { blade = { { -0.12 * R, 0, 0 }, { 0.12 * R, 0, 0 } },
        path = { { 3 * T, s * 0.35 * R, 0.3 * R, 1.3 * R }, { 4 * T, s * 0.35 * R, 0.3 * R, 0.75 * R } } }))
    end
    -- 5: the cheek at x > 0.75 R sliced off from below; 6: a brush takes the slice away
    tool("knife (cheek)", w:knife(body, { blade = { { 0, 0, -1.5 * R }, { 0, 0, 1.5 * R } },
      path = { { 4 * T, 0.75 * R, -1.5 * R, 0 }, { 5 * T, 0.75 * R, 1.5 * R, 0 } } }))
    tool("brush (slice)", w:brush(body, { radius = 0.28 * R, -- from outside, reaching x > 0.77 R only
      path = { { 5 * T, 1.05 * R, 0, 0 }, { 6 * T, 1.9 * R, 0, 0.2 * R } } }))
    local info0 = body:info()
    local out
    return {
      world = w, body = body, tools = tools,
      intro = function(frames)
        return string.format("  %d nodes, %d tets, %d frames of 1/60 s, six strokes of %.2f s", info0.nodes,
                             info0.units, frames, T)
      end,
      probes = { pieces = cl.probe.pieces(body), volume = cl.probe.volume(body), kinetic = cl.probe.kinetic(body),
                 phases = cl.probe.phase_time() },
      start = function(o) out = o end,
      report = function(run)
        local info, st = body:info(), body:stats()
        print(string.format("  after %.2f s: %d pieces, %d of %d edges broken, %d damaged tets, last step %.1f ms",
                            run.stats.time, info.pieces, st.broken_edges, st.edges, st.damaged_tets, run.stats.step_ms))
        for _, t in ipairs(tools) do
          local i = t.tool:info()
          print(string.format("  %-18s %s%s", t.name, i.touched and "touched the body" or "did not touch the body",
                              i.nodes > 0 and string.format(", holds %d nodes", i.nodes) or
                              (i.triangles > 0 and string.format(", %d swept triangles", i.triangles) or "")))
        end
        local obj = out .. "/sculpted.obj"
        body:write(obj)
        local surface = cl.mesh.read(obj)
        -- closed and edge-manifold: every edge in exactly two triangles, of opposite orientation
        local closed, why = surface:is_closed()
        if not closed then cl.error("sculpt_sphere: " .. obj .. " is not watertight: " .. tostring(why)) end
        local n = surface:components()
        print(string.format("  %s: %d triangles in %d closed surface%s, every edge in exactly two triangles", obj,
                            surface:info().cells, n, n == 1 and "" or "s"))
        surface:destroy()
      end,
      figure = "sculpt_sphere.png",
      snapshot = function(png, title)
        return cl.plot.snapshot { surface = body, output = png, title = title, view = { 90, 0 } }
      end,
    }
  end,
}
