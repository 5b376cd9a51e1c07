-- What the scenes that run unchanged on every solver share (issue 14, "One scene, every solver"):
-- one set of body parameters for shape_matching, corotational and graph_fem (an elastic material,
-- the solver by name with each solver's own settings, a fracture criterion by name with each
-- criterion's threshold), the body built from them, and material points: places in the body named
-- by their rest positions and followed through whatever mesh and solver a run used (barycentric in
-- the rest tet that holds them), which is how runs on different meshes and solvers are compared.
--
-- The tet mesh is the input of every solver: corotational and graph_fem use its tets, shape
-- matching takes its nodes as particles (their masses from the tets) and clusters them. Shape
-- matching has no Young's modulus: its stiffness is the goal stiffness alpha and the cluster size,
-- so its deflections answer a different question, which the comparison shows as it is.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")
local corot = dofile(here .. "/../corotational/common.lua")

local C = { P = P, entries = corot.entries, world = corot.world, tets = corot.tets, standard = corot.standard }

local inf = math.huge
local number = P.number

C.solvers = { "corotational", "shape_matching", "graph_fem" }
-- the criteria a body may take, and the solvers each one drives (the C library checks it again)
C.criteria = { "none", "cluster_stretch", "separation_tensor", "edge_stress" }

-- Every parameter of the body, with the scene's defaults d: material, solver, fracture,
-- resolution and frames.
function C.body_params(d)
  return C.entries {
    number("density", "material", d.density or 1000, "kg/m^3", { 0, inf, "()" }, "mass density"),
    number("young", "material", d.young, "Pa", { 0, inf, "()" }, "Young's modulus (FEM solvers; shape matching has none)"),
    number("poisson", "material", d.poisson or 0.3, "1", { 0, 0.5, "[)" }, "Poisson's ratio"),
    { name = "solver", group = "solver", type = "enum", default = d.solver or "corotational", values = C.solvers,
      help = "the solver of the body: the same scene runs on each" },
    number("damping", "solver", d.damping or 0, "1/s", { 0, 1e6 },
           "mass damping rate (corotational, graph_fem: Rayleigh alpha; shape_matching: relaxation to the cluster's velocity)"),
    { name = "model", group = "solver", type = "enum", default = d.model or "stable_neohookean",
      values = { "corotated", "stvk", "stable_neohookean" }, help = "graph_fem's hyperelastic model" },
    { name = "linear_solver", group = "solver", type = "enum", values = { "pcg", "cholmod", "galerkin_mg" }, default = "pcg",
      help = "the linear solver of corotational and graph_fem (galerkin_mg: graph_fem only, the Galerkin multigrid of " ..
             "Mandal et al. 2025)" },
    { name = "grid", group = "solver", type = "string", default = "50/all",
      help = "graph_fem with galerkin_mg: the paper's grid spec, vertex counts of the coarse levels then 'all'" },
    { name = "mg_mode", group = "solver", type = "enum", values = { "pcg", "fixed" }, default = "pcg",
      help = "graph_fem with galerkin_mg: CG preconditioned by a V-cycle to the tolerance, or fixed V-cycles (the paper's Algorithm 2)" },
    number("alpha", "solver", d.alpha or 1, "1", { 0, 1 }, "shape_matching's goal stiffness (fraction of the way to the goal per step)"),
    P.integer("cluster_count", "solver", d.cluster_count or 0, { 0, 1e7 }, "shape_matching's cluster count (0 = particles / 40)"),
    P.integer("substeps", "solver", d.substeps or 1, { 1, 1000 }, "solver steps per frame of 1/60 s"),
    P.threads(),
    { name = "criterion", group = "fracture", type = "enum", default = d.criterion or "none", values = C.criteria,
      help = "fracture criterion: cluster_stretch (every solver), separation_tensor (corotational), edge_stress (graph_fem)" },
    number("stretch", "fracture", d.stretch or 0.1, "1", { 0, 1e9 }, "cluster_stretch: the largest principal stretch - 1 at which a unit splits"),
    number("toughness", "fracture", d.toughness or 1.5, "N", { 0, inf, "[)" }, "separation_tensor: the eigenvalue at which a node splits"),
    { name = "largest_only", group = "fracture", type = "boolean", default = d.largest_only == true,
      help = "separation_tensor: only the largest event per step (thesis sec 5.4)" },
    number("strength", "fracture", d.strength or 1e4, "Pa", { 0, inf, "()" }, "edge_stress: the tensile strength f_t of an edge"),
    number("node_strength", "fracture", d.node_strength or 0, "Pa", { 0, inf, "[)" },
           "separation_tensor: > 0 compares the eigenvalue per unit area of the node's section against this "
           .. "stress instead of the toughness (docs/solvers/corotational.md, \"Clean cracks\")"),
    { name = "mode", group = "fracture", type = "enum", default = d.mode or "threshold", values = { "threshold", "softening" },
      help = "edge_stress: break at the strength, or soften dissipating fracture_energy" },
    number("fracture_energy", "fracture", d.fracture_energy or 10, "J/m^2", { 0, inf, "()" }, "edge_stress softening: G_f"),
    number("max_volume", "resolution", d.max_volume, "m^3", { 0, inf, "()" }, "largest tet volume (TetGen -a)"),
    number("quality", "resolution", 1.8, "1", { 1, 10 }, "TetGen radius-edge ratio bound (-q)"),
    P.frames(d.frames),
  }
end

-- world:body's tables for the solver and criterion the parameters name.
function C.params_table(p)
  if p.linear_solver == "galerkin_mg" and p.solver ~= "graph_fem" then
    error("linear_solver = galerkin_mg is graph_fem's (the " .. p.solver .. " solver takes pcg or cholmod)", 0)
  end
  if p.solver == "corotational" then return { damping = p.damping, linear_solver = p.linear_solver } end
  if p.solver == "graph_fem" then
    local t = { damping = p.damping, linear_solver = p.linear_solver, model = p.model }
    if p.linear_solver == "galerkin_mg" then t.grid, t.mg_mode = p.grid, p.mg_mode end
    return t
  end
  local t = { damping = p.damping, alpha = p.alpha }
  if p.cluster_count > 0 then t.cluster_count = p.cluster_count end
  return t
end

function C.fracture_table(p)
  if p.criterion == "none" then return false end
  if p.criterion == "cluster_stretch" then return { criterion = p.criterion, toughness = p.stretch } end
  if p.criterion == "separation_tensor" then
    return { criterion = p.criterion, toughness = p.toughness, largest_only = p.largest_only,
             strength = p.node_strength }
  end
  return { criterion = p.criterion, strength = p.strength, mode = p.mode, fracture_energy = p.fracture_energy }
end

function C.body(w, name, mesh, p)
  return w:body { name = name, mesh = mesh, solver = p.solver, params = C.params_table(p), fracture = C.fracture_table(p),
                  material = { density = p.density, young = p.young, poisson = p.poisson } }
end

-- ---- material points -------------------------------------------------------------------------

-- Barycentric coordinates of q in the tet (a, b, c, d): the four weights, summing to 1.
local function barycentric(q, a, b, c, d)
  local e1 = { b[1] - a[1], b[2] - a[2], b[3] - a[3] }
  local e2 = { c[1] - a[1], c[2] - a[2], c[3] - a[3] }
  local e3 = { d[1] - a[1], d[2] - a[2], d[3] - a[3] }
  local r = { q[1] - a[1], q[2] - a[2], q[3] - a[3] }
  local function det(u, v, w)
    return u[1] * (v[2] * w[3] - v[3] * w[2]) - u[2] * (v[1] * w[3] - v[3] * w[1]) + u[3] * (v[1] * w[2] - v[2] * w[1])
  end
  local D = det(e1, e2, e3)
  if D == 0 then return nil end
  local l1, l2, l3 = det(r, e2, e3) / D, det(e1, r, e3) / D, det(e1, e2, r) / D
  return { 1 - l1 - l2 - l3, l1, l2, l3 }
end

-- Locate rest points in a tet mesh (points and 1-based cells, as mesh:points() and mesh:cells()
-- give them): each point's tet (the one it is inside, or for a point just outside a curved
-- surface's facets the tet it is least outside of) and weights. Returns a locator whose
-- :positions(body) gives the current positions of the points, interpolated from the body's nodes
-- (the mesh's nodes keep their indices in every solver; fracture only appends nodes).
function C.locate(points, cells, rest)
  local loc = { n = #rest, tet = {}, w = {} }
  for i, q in ipairs(rest) do
    local best, bw, bmin = nil, nil, -math.huge
    for t, c in ipairs(cells) do
      local a, b, cc, d = points[c[1]], points[c[2]], points[c[3]], points[c[4]]
      local lo1, hi1 = math.min(a[1], b[1], cc[1], d[1]), math.max(a[1], b[1], cc[1], d[1])
      if q[1] >= lo1 - 0.02 and q[1] <= hi1 + 0.02 then
        local w = barycentric(q, a, b, cc, d)
        if w then
          local m = math.min(w[1], w[2], w[3], w[4])
          if m > bmin then best, bw, bmin = t, w, m end
          if m >= 0 then break end
        end
      end
    end
    if not best then error(string.format("material point %d (%g, %g, %g) is in no tet", i, q[1], q[2], q[3])) end
    loc.tet[i], loc.w[i] = cells[best], bw
  end
  function loc:positions(body)
    local x, out = body:positions(), {}
    for i = 1, self.n do
      local c, w, p = self.tet[i], self.w[i], { 0, 0, 0 }
      for k = 1, 4 do
        local xk = x[c[k]]
        for j = 1, 3 do p[j] = p[j] + w[k] * xk[j] end
      end
      out[i] = p
    end
    return out
  end
  return loc
end

-- A grid of nx x ny x nz points filling the box lo..hi (cell centres), kept where inside(p) says.
function C.grid_points(lo, hi, n, inside)
  local pts = {}
  for i = 1, n[1] do
    for j = 1, n[2] do
      for k = 1, n[3] do
        local p = { lo[1] + (i - 0.5) * (hi[1] - lo[1]) / n[1], lo[2] + (j - 0.5) * (hi[2] - lo[2]) / n[2],
                    lo[3] + (k - 0.5) * (hi[3] - lo[3]) / n[3] }
        if not inside or inside(p) then pts[#pts + 1] = p end
      end
    end
  end
  return pts
end

-- The built scene's material points: `shape` named points (rest positions) the scene's measures
-- use, and the grid the final shape is compared on; positions() of both after a run.
function C.with_points(built, mesh, named, grid)
  local pts, cells = mesh:points(), mesh:cells()
  local all, names = {}, {}
  for name, q in pairs(named) do
    names[#names + 1] = name
  end
  table.sort(names)
  for i, name in ipairs(names) do all[i] = named[name] end
  for _, q in ipairs(grid) do all[#all + 1] = q end
  local loc = C.locate(pts, cells, all)
  built.material_points = { names = names, rest = all, grid_from = #names + 1, count = #all }
  function built.material_points.now()
    local x = loc:positions(built.body)
    local out = { named = {}, grid = {} }
    for i, name in ipairs(names) do out.named[name] = x[i] end
    for i = #names + 1, #x do out.grid[#out.grid + 1] = x[i] end
    return out
  end
  return built
end

-- The grid of points in a box of extent `size` centred at the origin.
function C.box_points(size, n)
  return C.grid_points({ -size[1] / 2, -size[2] / 2, -size[3] / 2 }, { size[1] / 2, size[2] / 2, size[3] / 2 }, n)
end

-- A function giving the body's relative volume change since now (V / V0 - 1).
function C.volume_change(w, body)
  local vol = w:probe(cl.probe.volume(body))
  local v0 = vol:read()
  return function() return vol:read() / v0 - 1 end
end

-- RMS distance (m) between two lists of positions of the same material points.
function C.rms_distance(a, b)
  local s = 0
  for i = 1, #a do
    local dx, dy, dz = a[i][1] - b[i][1], a[i][2] - b[i][2], a[i][3] - b[i][3]
    s = s + dx * dx + dy * dy + dz * dz
  end
  return math.sqrt(s / #a)
end

return C
