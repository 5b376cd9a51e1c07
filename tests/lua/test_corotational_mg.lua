-- The corotational solver with linear_solver = "galerkin_mg" from Lua (issues 13 and 17): the same
-- steps as block-Jacobi PCG and CHOLMOD in fewer CG iterations, a notched bar that fracture splits
-- into islands (each re-analysed, chips on PCG), and grid specs that are refused by name.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local elastic = { density = 1000, young = 1e5, poisson = 0.3 }

-- the largest downward displacement of a node (the sag of the free end)
local function sag(b)
  local rest, most = b:rest_positions(), 0
  for i, q in ipairs(b:positions()) do most = math.max(most, rest[i][2] - q[2]) end
  return most
end

T.test("galerkin_mg steps like pcg and cholmod, in fewer CG iterations", function()
  local mesh = cl.shape.box { size = { 0.6, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
  local function run(params)
    local w = cl.world { dt = 1 / 60, gravity = { 0, -9.81, 0 }, threads = 1 }
    local b = w:body { mesh = mesh, solver = "corotational", material = elastic, params = params }
    w:fix(b, cl.region.slab { axis = "x", below = -0.29 })
    local iterations = 0
    for _ = 1, 15 do
      w:step(1)
      iterations = iterations + b:stats().cg_iterations
    end
    return sag(b), iterations, b:stats()
  end
  local y_pcg, it_pcg = run { linear_solver = "pcg", tolerance = 1e-10 }
  local y_chol = run { linear_solver = "cholmod", tolerance = 1e-10 }
  local y_mg, it_mg, st_mg = run { linear_solver = "galerkin_mg", grid = "30/all", tolerance = 1e-10 }
  local y_gs = run { linear_solver = "galerkin_mg", grid = "10/60/all", mg_smoother = "symmetric_gauss_seidel",
                     mg_sweeps = 1, mg_coarse = "dense", tolerance = 1e-10 }
  T.near(y_mg, y_pcg, 1e-7 * math.abs(y_pcg), "multigrid against block Jacobi")
  T.near(y_mg, y_chol, 1e-7 * math.abs(y_pcg), "multigrid against CHOLMOD")
  T.near(y_gs, y_pcg, 1e-7 * math.abs(y_pcg), "three levels, symmetric Gauss-Seidel, dense coarsest")
  T.truthy(it_mg * 4 < it_pcg, "multigrid CG iterations " .. it_mg .. " against block Jacobi's " .. it_pcg)
  T.eq(st_mg.analyses_total, 1, "one hierarchy for the one island")
end)

T.test("galerkin_mg: the paper's fixed cycles step without warnings; static equilibrium as with pcg", function()
  local mesh = cl.shape.box { size = { 0.6, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
  local function world(params, g)
    local w = cl.world { dt = 1 / 60, gravity = { 0, g or -9.81, 0 }, threads = 1 }
    local b = w:body { mesh = mesh, solver = "corotational", material = elastic, params = params }
    w:fix(b, cl.region.slab { axis = "x", below = -0.29 })
    return w, b
  end
  local w, b = world { linear_solver = "galerkin_mg", grid = "30/all", mg_mode = "fixed", mg_cycles = 3 }
  T.eq(w:step(5), 0, "no warning: fixed cycles stop where they stop, by design")
  T.eq(#w:warnings(), 0, "no warnings collected")
  local st = b:stats()
  T.truthy(st.cg_residual > 0 and st.cg_residual < 1, "three V-cycles a step reduce the residual: " .. st.cg_residual)
  T.eq(st.cg_iterations, 3, "V-cycles of the last step")
  local sags = {}
  for _, solver in ipairs { "pcg", "galerkin_mg" } do
    local ws, bs = world({ linear_solver = solver, grid = "30/all", tolerance = 1e-10 }, -0.5)
    local rep = ws:solve_static { tolerance = 1e-8, max_iterations = 30 }
    T.truthy(rep.residual <= 1e-8, solver .. " static residual " .. rep.residual)
    sags[solver] = sag(bs)
  end
  T.near(sags.galerkin_mg, sags.pcg, 1e-6 * sags.pcg, "static sag")
end)

T.test("a notched bar pulled apart with separation_tensor and galerkin_mg breaks and keeps stepping", function()
  local mesh = cl.shape.notched_beam { size = { 0.6, 0.1, 0.1 }, notch_depth = 0.03, notch_root_radius = 0.002 }
                 :tetrahedralize { quality = 2, max_volume = 2e-5 }
  local function run(solver)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, threads = 1 }
    local b = w:body { mesh = mesh, solver = "corotational", material = elastic,
                       params = { linear_solver = solver, grid = "20/all", damping = 1 },
                       fracture = { criterion = "separation_tensor", toughness = 1.5, largest_only = false } }
    w:drive(b, cl.region.slab { axis = "x", below = -0.28 }, cl.motion.translate { velocity = { -0.1, 0, 0 } })
    w:drive(b, cl.region.slab { axis = "x", above = 0.28 }, cl.motion.translate { velocity = { 0.1, 0, 0 } })
    local n0 = b:stats().nodes
    w:step(30)
    local st = b:stats()
    for _, q in ipairs(b:positions()) do
      T.truthy(q[1] == q[1] and math.abs(q[1]) < 10, "finite positions")
    end
    return st, n0
  end
  local st, n0 = run "galerkin_mg"
  local ref = run "pcg"
  print(string.format("galerkin_mg: %d -> %d nodes, %d islands, %d analyses; pcg: %d nodes, %d islands", n0, st.nodes,
                      st.islands, st.analyses_total, ref.nodes, ref.islands))
  T.truthy(st.nodes > n0, "fracture replicated nodes")
  T.truthy(st.islands >= 2, "the bar is in pieces: " .. st.islands .. " islands")
  -- the island that fracture changed got a new hierarchy: more than the first one
  T.truthy(st.analyses_total >= 2, "islands re-analysed after the split: " .. st.analyses_total)
  T.truthy(st.cg_residual <= 1e-6, "the last step converged: " .. st.cg_residual)
  T.truthy(ref.islands >= 2, "block Jacobi breaks it too")
end)

T.test("a bad grid names the parameter grid", function()
  local mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
  local w = cl.world { dt = 1 / 60, threads = 1 }
  for _, bad in ipairs { "50/al", "100000/all", "all", "500/50/all" } do
    T.error(function()
      w:body { mesh = mesh, solver = "corotational", material = elastic,
               params = { linear_solver = "galerkin_mg", grid = bad } }
    end, { "grid", bad, "corotational" })
  end
  T.error(function()
    w:body { mesh = mesh, solver = "corotational", material = elastic, params = { linear_solver = "galerkin_mg", mg_sweeps = 0 } }
  end, "mg_sweeps")
end)

T.done()
