-- Solver and criterion parameters that are a choice take a name, on/off parameters take true/false
-- (cl_param_info.kind and .choices in the C tables): the name reaches C as its index, a wrong name
-- or a number where a name or boolean belongs is an error at the user's line saying what to write,
-- and cl.help / `cleave solvers` list the names.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local bar = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { max_volume = 2e-5 }

local function angular_momentum(b)
  local x, n = b:positions("cdata")
  local v = b:velocities("cdata")
  local L = { 0, 0, 0 }
  for i = 0, n / 3 - 1 do
    local px, py, pz, vx, vy, vz = x[3 * i], x[3 * i + 1], x[3 * i + 2], v[3 * i], v[3 * i + 1], v[3 * i + 2]
    L[1], L[2], L[3] = L[1] + py * vz - pz * vy, L[2] + pz * vx - px * vz, L[3] + px * vy - py * vx
  end
  return L
end

T.test("linear_solver by name: \"cholmod\" factorises, \"pcg\" does not", function()
  local counts = {}
  for _, name in ipairs { "pcg", "cholmod" } do
    local w = cl.world { dt = 1 / 600, gravity = { 0, -9.81, 0 }, threads = 1 }
    local b = w:body { shape = bar, solver = "corotational", params = { linear_solver = name } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
    w:step(3)
    counts[name] = b:stats().factorizations_total
    T.eq(b.params.linear_solver, name, "the body keeps the name")
  end
  T.eq(counts.pcg, 0, "pcg factorisations")
  T.truthy(counts.cholmod >= 1, "cholmod factorised, got " .. counts.cholmod)
end)

T.test("rotation by name: \"polar\" is the default, \"gram_schmidt\" moves differently", function()
  local function tip(params)
    local w = cl.world { dt = 1 / 600, gravity = { 0, -9.81, 0 }, threads = 1 }
    local b = w:body { shape = bar, solver = "corotational", params = params, material = { young = 2e5 } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
    w:step(20)
    local x = b:positions("flat")
    local s = 0
    for i = 2, #x, 3 do s = s + x[i] end
    return s
  end
  local default, polar, gs = tip {}, tip { rotation = "polar" }, tip { rotation = "gram_schmidt" }
  T.eq(polar, default, "polar is index 0, the default")
  T.truthy(gs ~= polar, "gram_schmidt is another method")
  T.near(gs, polar, 1e-3 * math.abs(polar) + 1e-6, "but the same physics")
end)

T.test("booleans reach C as 1 / 0: torque_free and damp_spin of shape matching", function()
  -- a spinning, deforming body in free flight: angular momentum is conserved exactly unless the
  -- torque projection is off (torque_free = false) or damping slows the spin (damp_spin = true)
  local function drift(params)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, seed = 2, threads = 1 }
    local p = { particles = 600, cluster_count = 8, alpha = 0.8, gamma = 0.05 }
    for k, v in pairs(params) do p[k] = v end
    local b = w:body { shape = cl.shape.box { size = { 0.6, 0.2, 0.2 } }, solver = "shape_matching", params = p }
    local X, n = b:rest_positions("cdata")
    local vel = {}
    for i = 0, n / 3 - 1 do
      vel[#vel + 1] = { 0.3 + 2 * X[3 * i] * X[3 * i + 1], -3 * X[3 * i + 2], 4 * X[3 * i] ^ 2 }
    end
    b:set_velocities(vel)
    w:step(1)
    local L0 = angular_momentum(b)
    w:step(60)
    local L1 = angular_momentum(b)
    local d = math.sqrt((L1[1] - L0[1]) ^ 2 + (L1[2] - L0[2]) ^ 2 + (L1[3] - L0[3]) ^ 2)
    return d / math.sqrt(L0[1] ^ 2 + L0[2] ^ 2 + L0[3] ^ 2)
  end
  T.truthy(drift {} < 1e-12, "default: conserved")
  T.truthy(drift { torque_free = false } > 1e-3, "torque_free = false: the paper's goals drift")
  T.truthy(drift { torque_free = true, damping = 5, damp_spin = false } < 1e-12, "damp_spin = false: conserved")
  T.truthy(drift { damping = 5, damp_spin = true } > 0.1, "damp_spin = true: the spin is damped")
end)

T.test("a choice of sampling: \"grid\" puts one particle per cell", function()
  local w = cl.world { gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { shape = cl.shape.box { size = { 0.2, 0.1, 0.1 } }, solver = "shape_matching",
                     params = { sampling = "grid", spacing = 0.05, cluster_count = 2 } }
  T.eq(b:info().nodes, 4 * 2 * 2, "cell-centred grid of 0.05 m in 0.2 x 0.1 x 0.1 m")
end)

T.test("largest_only = true raises at most one event per step, false several", function()
  -- crack_tips = false: the crack-tip rule would also hold a piece to one new crack per step
  local function most_per_step(largest_only)
    local w = cl.world { dt = 1 / 600, gravity = { 0, 0, 0 }, threads = 1 }
    local m = cl.shape.box { size = { 0.3, 0.05, 0.05 } }:tetrahedralize { max_volume = 2e-5 }
    local b = w:body { shape = m, solver = "corotational", material = { young = 1e5 },
                       fracture = { criterion = "separation_tensor", toughness = 0.5, largest_only = largest_only,
                                    crack_tips = false } }
    w:fix(b, cl.region.slab { axis = "x", below = -0.14 })
    w:drive(b, cl.region.slab { axis = "x", above = 0.14 }, cl.motion.translate { velocity = { 3, 0, 0 } })
    local most = 0
    for _ = 1, 40 do
      w:step(1)
      most = math.max(most, w:stats().fracture_events)
    end
    T.eq(b.fracture_params.largest_only, largest_only, "the body keeps the boolean")
    return most
  end
  T.eq(most_per_step(true), 1)
  T.truthy(most_per_step(false) > 1, "several events in one step")
end)

T.test("a wrong name is an error at the user's line listing the names", function()
  local w = cl.world {}
  T.error(function() w:body { shape = bar, solver = "corotational", params = { linear_solver = "chol" } } end,
    { "linear_solver = \"chol\" is not one of pcg, cholmod", "allowed: one of \"pcg\", \"cholmod\"" })
  T.error(function() w:body { shape = bar, solver = "corotational", params = { rotation = "polr" } } end,
    { "is not one of polar, gram_schmidt", "did you mean 'polar'?" })
  T.error(function() w:body { shape = bar, solver = "corotational", params = { factor_solve = true } } end,
    "is not one of cholmod, double, single")
end)

T.test("a number where a name or a boolean belongs says what to write", function()
  local w = cl.world {}
  T.error(function() w:body { shape = bar, solver = "corotational", params = { linear_solver = 1 } } end,
    "linear_solver = 1 is a number, not one of pcg, cholmod, galerkin_mg; write linear_solver = \"cholmod\"")
  T.error(function() w:body { shape = bar, solver = "corotational", params = { factor_solve = 0 } } end,
    "factor_solve = 0 is a number, not one of cholmod, double, single; write factor_solve = \"cholmod\"")
  T.error(function() w:body { shape = bar, solver = "corotational", params = { linear_solver = 7 } } end,
    { "linear_solver = 7 is a number, not one of pcg, cholmod, galerkin_mg.",
      "allowed: one of \"pcg\", \"cholmod\", \"galerkin_mg\"" })
  T.error(function() w:body { shape = bar, solver = "corotational", params = { joint_pruning = 0 } } end,
    "joint_pruning = 0 is a number, not true or false; write joint_pruning = false")
  T.error(function() w:body { shape = bar, solver = "corotational", params = { conserve_momentum = 1 } } end,
    "conserve_momentum = 1 is a number, not true or false; write conserve_momentum = true")
  T.error(function() w:body { shape = bar, solver = "corotational", params = { joint_pruning = 0.5 } } end,
    { "joint_pruning = 0.5 is a number, not true or false.", "allowed: true or false" })
  T.error(function()
    w:body { shape = bar, solver = "corotational", fracture = { criterion = "plastic_excess", largest_only = 1 },
             material = { plastic = { yield = 0.01, max = 0.1 } } }
  end, "largest_only = 1 is a number, not true or false; write largest_only = true")
  T.error(function()
    w:body { shape = cl.shape.box {}, solver = "shape_matching", fracture = { criterion = "cluster_stretch", relax = 0 } }
  end, "relax = 0 is a number, not true or false; write relax = false")
end)

T.test("cl.params describes booleans and choices", function()
  local by = {}
  for _, e in ipairs(cl.params("corotational")) do by[e.name] = e end
  T.eq(by.linear_solver.type, "enum")
  T.eq(table.concat(by.linear_solver.values, "|"), "pcg|cholmod|galerkin_mg")
  T.eq(by.linear_solver.default, "pcg")
  T.eq(table.concat(by.factor_solve.values, "|"), "cholmod|double|single")
  T.eq(by.factor_solve.default, "single")
  T.eq(by.joint_pruning.type, "boolean")
  T.eq(by.joint_pruning.default, true)
  T.eq(by.max_iterations.type, "integer")
  T.eq(by.tolerance.type, "number")
  local crit = {}
  for _, e in ipairs(cl.params("separation_tensor", "criterion")) do crit[e.name] = e end
  T.eq(crit.largest_only.type, "boolean")
end)

T.test("cl.help and `cleave solvers` list the choices", function()
  local out = {}
  cl.help("corotational", { write = function(_, ...) for _, s in ipairs { ... } do out[#out + 1] = s end end })
  local text = table.concat(out)
  T.contains(text, "pcg|cholmod")
  T.contains(text, "polar|gram_schmidt")
  T.contains(text, "cholmod|double|single")
  T.matches(text, "joint_pruning%s+true%s+%-%s+true|false")
  local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")
  local p = assert(io.popen("'" .. exe .. "' solvers 2>&1"))
  local all = p:read("*a")
  p:close()
  T.contains(all, "linear_solver")
  T.contains(all, "pcg|cholmod")
  T.contains(all, "grid|poisson")
  T.matches(all, "largest_only%s+true%s+%-%s+true|false")
end)

T.done()
