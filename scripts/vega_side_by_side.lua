-- Side by side: Vega FEM and cleave's corotational solver on the same mesh and settings, in one
-- sitting on one machine (issue 17, "Benchmarks that compare the same work"). Not run in CI.
--
--   cleave run scripts/vega_side_by_side.lua --set vega=PATH [--set steps=15] [--set warmup=3]
--       [--set build=DIR] [--set threads=1,2]
--
-- vega = a Vega FEM checkout YOU provide (its libraries/ folder: volumetricMesh, corotationalLinearFEM,
--        elasticForceModel, integratorSparse, sparseSolver, ...; tested with the CMake fork
--        github.com/dyollb/VegaFEM, Vega 4.0). Nothing of Vega is fetched, copied into cleave or
--        committed: this script compiles the few Vega sources the benchmark needs from the checkout,
--        at -O3, into `build` (default out/vega_side_by_side/build, reused on later runs), with
--        scripts/vega_charpy_driver.cpp (cleave's own driver of Vega's public classes). Vega's
--        integrator is built with its Jacobi-preconditioned CG selected (a generated
--        integratorSolverSelection.h that defines PCG shadows the checkout's), and the three OpenGL
--        calls of its bounding-box drawing are stubbed (never called).
--
-- The work, identical on both sides:
--   mesh     the Charpy specimen at scale 10 (0.55 m), TetGen -pq2.0, max_volume = volume / 10400:
--            the mesh of `cleave bench corotational` (6600 nodes, 28243 tets)
--   material E = 1e5 Pa, nu = 0.45, density 1000 kg/m^3, linear corotational elasticity
--   loads    gravity 9.81 m/s^2 along -y; the nodes within 5 % of the length at each end held
--   time     backward Euler, dt = 1/60 s, one linearised solve (Vega: one Newton iteration) per step,
--            no damping, lumped masses, linear solves to a relative residual of 1e-6
--   solvers  Vega: Jacobi-preconditioned CG (its only built-in sparse solver); cleave: block-Jacobi
--            PCG (the same kind) and its default fast path, the CHOLMOD factor as preconditioner
--            with refactorisations by the rent-or-buy rule, each with `threads` OpenMP threads
-- and prints, per solver, the median and the mean wall time of a step over `steps` timed steps
-- after `warmup` untimed ones, and the ratios Vega / cleave of both, measured in this run.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."

local set = cl.args or {}
local vega = set.vega
if not vega then
  io.stderr:write("usage: cleave run scripts/vega_side_by_side.lua --set vega=PATH [--set steps=15] "
                  .. "[--set warmup=3] [--set build=DIR] [--set threads=1,2]\n")
  os.exit(2)
end
local steps, warmup = tonumber(set.steps or 15), tonumber(set.warmup or 3)
if not steps or steps < 1 or steps ~= math.floor(steps) then error("steps must be an integer >= 1, got " .. tostring(set.steps), 0) end
if not warmup or warmup < 0 or warmup ~= math.floor(warmup) then error("warmup must be an integer >= 0, got " .. tostring(set.warmup), 0) end
local threads = {}
for t in tostring(set.threads or "1,2"):gmatch("[^,]+") do
  local k = tonumber(t)
  if not k or k < 1 or k ~= math.floor(k) then error("threads must be a list of integers >= 1, got " .. tostring(set.threads), 0) end
  threads[#threads + 1] = k
end
local build = set.build or "out/vega_side_by_side/build"

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function run(cmd)
  local ok = os.execute(cmd)
  return ok == true or ok == 0
end
local function exists(p)
  local f = io.open(p, "r")
  if f then f:close() end
  return f ~= nil
end

local lib = vega .. "/libraries"
if not exists(lib .. "/corotationalLinearFEM/corotationalLinearFEM.h") then
  error("vega: " .. vega .. " does not look like a Vega FEM checkout (no libraries/corotationalLinearFEM/"
        .. "corotationalLinearFEM.h)", 0)
end

-- ---- build Vega's part (objects cached in `build`) ---------------------------------------------
local sources = {
  "volumetricMesh/tetMesh.cpp", "volumetricMesh/volumetricMesh.cpp", "volumetricMesh/volumetricMeshENuMaterial.cpp",
  "volumetricMesh/volumetricMeshOrthotropicMaterial.cpp", "volumetricMesh/volumetricMeshMooneyRivlinMaterial.cpp",
  "volumetricMesh/volumetricMeshParser.cpp", "volumetricMesh/generateMassMatrix.cpp", "volumetricMesh/cubicMesh.cpp",
  "corotationalLinearFEM/corotationalLinearFEM.cpp", "elasticForceModel/corotationalLinearFEMForceModel.cpp",
  "forceModel/forceModel.cpp", "integrator/integratorBase.cpp", "integratorSparse/integratorBaseSparse.cpp",
  "integratorSparse/implicitNewmarkSparse.cpp", "integratorSparse/implicitBackwardEulerSparse.cpp",
  "sparseMatrix/sparseMatrix.cpp", "sparseSolver/CGSolver.cpp", "sparseSolver/linearSolver.cpp",
  "constrainedDOFs/constrainedDOFs.cpp", "minivector/mat3d.cpp", "minivector/vec3d.cpp", "minivector/eig3.cpp",
  "polarDecomposition/polarDecomposition.cpp", "mesh/boundingBox.cpp", "mesh/geometryQuery.cpp",
}
run("mkdir -p " .. q(build .. "/obj") .. " " .. q(build .. "/override"))
local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end
write(build .. "/override/integratorSolverSelection.h", "/* generated by scripts/vega_side_by_side.lua */\n#define PCG\n")
write(build .. "/override/vega-config.h", "/* generated by scripts/vega_side_by_side.lua */\n")
write(build .. "/glstub.c", "/* generated by scripts/vega_side_by_side.lua: boundingBox.cpp's drawing, never called */\n"
      .. "void glBegin(unsigned int m) { (void)m; }\nvoid glEnd(void) {}\n"
      .. "void glVertex3f(float x, float y, float z) { (void)x; (void)y; (void)z; }\n")
local inc = "-I" .. q(build .. "/override")
local p = io.popen("ls -d " .. q(lib) .. "/*/")
for d in p:lines() do inc = inc .. " -I" .. q(d) end
p:close()
local cxx = os.getenv("CXX") or "g++"
local objs = { q(build .. "/glstub.o") }
io.write("building Vega's sources (-O3) in " .. build .. " ...\n")
io.flush()
if not run("cc -O2 -c " .. q(build .. "/glstub.c") .. " -o " .. q(build .. "/glstub.o")) then error("compiling the GL stubs failed", 0) end
for _, s in ipairs(sources) do
  local o = build .. "/obj/" .. s:gsub("/", "_"):gsub("%.cpp$", ".o")
  objs[#objs + 1] = q(o)
  if not exists(o) then
    if not exists(lib .. "/" .. s) then error("the checkout has no libraries/" .. s .. " (another Vega layout?)", 0) end
    if not run(cxx .. " -O3 -std=c++14 -w " .. inc .. " -c " .. q(lib .. "/" .. s) .. " -o " .. q(o)) then
      error("compiling libraries/" .. s .. " failed", 0)
    end
  end
end
local driver = build .. "/vega_charpy_driver"
if not run(cxx .. " -O3 -std=c++14 -w " .. inc .. " " .. q(here .. "/vega_charpy_driver.cpp") .. " "
           .. table.concat(objs, " ") .. " -o " .. q(driver)) then
  error("linking the driver failed (a Vega version needing more sources than this script lists?)", 0)
end

-- ---- the mesh, as `cleave bench corotational` builds it -----------------------------------------
local surf = cl.shape.charpy { scale = 10 }
local volume = surf:info().measure
local mesh = surf:tetrahedralize { quality = 2.0, max_volume = volume / 10400 }
local info = mesh:info()
local X, cells = mesh:points("flat"), mesh:cells("flat")
local lo, hi = info.lo[1], info.hi[1]
local ext = hi - lo
local fixed = {}
for i = 1, info.points do
  local x = X[3 * (i - 1) + 1]
  if x <= lo + 0.05 * ext or x >= hi - 0.05 * ext then fixed[#fixed + 1] = i - 1 end
end
local meshfile = build .. "/charpy.txt"
do
  local f = assert(io.open(meshfile, "w"))
  f:write(string.format("%d %d %d\n", info.points, info.cells, #fixed))
  for i = 1, 3 * info.points, 3 do f:write(string.format("%.17g %.17g %.17g\n", X[i], X[i + 1], X[i + 2])) end
  for e = 1, 4 * info.cells, 4 do
    f:write(string.format("%d %d %d %d\n", cells[e] - 1, cells[e + 1] - 1, cells[e + 2] - 1, cells[e + 3] - 1))
  end
  for _, i in ipairs(fixed) do f:write(i, "\n") end
  f:close()
end
print(string.format("mesh: Charpy at scale 10, TetGen -pq2.0a%.3g: %d nodes, %d tets, %d nodes held (5 %% of "
                    .. "the length at each end)", volume / 10400, info.points, info.cells, #fixed))
print("load: " .. (io.open("/proc/loadavg") and io.open("/proc/loadavg"):read("*l") or "?"))

-- ---- cleave -------------------------------------------------------------------------------------
local summary = require "cleave.summary"
local median, mean = summary.median, summary.mean

local function cleave_run(linear_solver, nthreads)
  local w = cl.world { dt = 1 / 60, gravity = { 0, -9.81, 0 }, threads = nthreads }
  local body = w:body { name = "charpy", mesh = mesh, solver = "corotational",
                        material = { density = 1000, young = 1e5, poisson = 0.45 },
                        params = { linear_solver = linear_solver, tolerance = 1e-6 } }
  w:fix(body, cl.region.slab { axis = "x", below = lo + 0.05 * ext })
  w:fix(body, cl.region.slab { axis = "x", above = hi - 0.05 * ext })
  local t, it = {}, {}
  for s = 1, warmup + steps do
    w:step(1)
    if s > warmup then
      local st = w:stats()
      t[#t + 1] = st.step_ms
      it[#it + 1] = st.iterations
    end
  end
  return { median = median(t), mean = mean(t), iterations = mean(it) }
end

local function vega_run()
  local out = io.popen(q(driver) .. " " .. q(meshfile) .. " " .. warmup .. " " .. steps .. " 2>&1")
  local text = out:read("*a")
  out:close()
  local line = text:match("RESULT[^\n]*")
  if not line then error("the Vega driver printed no RESULT line:\n" .. text, 0) end
  local r = {}
  for k, v in line:gsub("^RESULT%s*", ""):gmatch("(%S+)%s+(%S+)") do r[k] = tonumber(v) end
  return { median = r.median_ms, mean = r.mean_ms, solve = r.solve_mean_ms }
end

local rows = {}
local vg = vega_run()
rows[#rows + 1] = { "Vega FEM, Jacobi PCG", 1, vg, nil }
for _, k in ipairs(threads) do
  rows[#rows + 1] = { "cleave, block-Jacobi PCG", k, cleave_run("pcg", k) }
  rows[#rows + 1] = { "cleave, CHOLMOD factor + CG", k, cleave_run("cholmod", k) }
end
print(string.format("\n%d timed steps after %d warm-up steps each, wall clock per step (ms); ratio = Vega / cleave",
                    steps, warmup))
print(string.format("| %-28s | %7s | %9s | %9s | %7s | %15s |", "solver", "threads", "median", "mean", "CG it",
                    "ratio med / mean"))
print("|---|---|---|---|---|---|")
for _, r in ipairs(rows) do
  local v = r[3]
  local ratio = r[1]:find("^Vega") and "" or string.format("%.1fx / %.1fx", vg.median / v.median, vg.mean / v.mean)
  print(string.format("| %-28s | %7d | %9.1f | %9.1f | %7s | %15s |", r[1], r[2], v.median, v.mean,
                      v.iterations and string.format("%.1f", v.iterations) or "", ratio))
end
print("(Vega's CG iteration count is not exposed by its integrator; its solve took " ..
      string.format("%.1f ms of the mean step)", vg.solve or 0 / 0))
