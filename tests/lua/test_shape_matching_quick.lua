-- Quick checks of the shape_matching solver from Lua: momentum in free flight, exact rigid motion,
-- thread-count independence on a paper scene, and bad input raises clear errors. (Every scene
-- script runs in its quick mode under the ctest label "scripts", tests/scripts/tests.cmake.)
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local scenes = dofile(here .. "/../../experiments/scenes/init.lua")

local function momentum(body)
  local info = body:info()
  local m = info.mass / info.nodes -- equal particle masses before any fracture
  local x, n3 = body:positions("cdata")
  local v = body:velocities("cdata")
  local P, L = { 0, 0, 0 }, { 0, 0, 0 }
  for i = 0, n3 - 1, 3 do
    for k = 0, 2 do P[k + 1] = P[k + 1] + m * v[i + k] end
    L[1] = L[1] + m * (x[i + 1] * v[i + 2] - x[i + 2] * v[i + 1])
    L[2] = L[2] + m * (x[i + 2] * v[i] - x[i] * v[i + 2])
    L[3] = L[3] + m * (x[i] * v[i + 1] - x[i + 1] * v[i])
  end
  return P, L
end

local function rel(a, b)
  local d = math.sqrt((a[1] - b[1]) ^ 2 + (a[2] - b[2]) ^ 2 + (a[3] - b[3]) ^ 2)
  return d / math.sqrt(b[1] ^ 2 + b[2] ^ 2 + b[3] ^ 2)
end

T.test("shape_matching is registered with the cluster_stretch criterion", function()
  local found, crit = false, false
  for _, n in ipairs(cl.solvers()) do found = found or n == "shape_matching" end
  for _, n in ipairs(cl.criteria()) do crit = crit or n == "cluster_stretch" end
  T.truthy(found, "shape_matching in cl.solvers()")
  T.truthy(crit, "cluster_stretch in cl.criteria()")
  local p = cl.params("shape_matching")
  T.truthy(#p >= 10, "parameter table")
end)

T.test("momentum is conserved in free flight", function()
  local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, seed = 2 }
  local bar = w:body { shape = cl.shape.box { size = { 0.6, 0.2, 0.2 } }, solver = "shape_matching",
                       params = { particles = 600, cluster_count = 8, alpha = 0.8, gamma = 0.1 } }
  w:drive(bar, cl.region.slab { axis = "x", below = -0.2 }, cl.motion.twist { axis = "x", rate = 4, release = 0.2 })
  w:drive(bar, cl.region.slab { axis = "x", above = 0.2 },
    cl.motion.translate { velocity = { 0.2, 0.8, 0 }, release = 0.2 })
  w:step(13)
  local P0, L0 = momentum(bar)
  w:step(60)
  local P1, L1 = momentum(bar)
  T.truthy(rel(P1, P0) < 1e-12, "linear momentum drift " .. rel(P1, P0))
  T.truthy(rel(L1, L0) < 1e-12, "angular momentum drift " .. rel(L1, L0))
end)

T.test("a rigidly driven body measures F = R in every cluster", function()
  local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 } }
  local b = w:body { shape = cl.shape.box { size = { 0.2, 0.1, 0.1 } }, solver = "shape_matching",
                     params = { particles = 300, cluster_count = 4 } }
  w:drive(b, cl.region.all {}, cl.motion.rotate { axis = "z", rate = 1.0 })
  w:step(30)
  local R = cl.rotation_matrix({ 0, 0, 1 }, w:time())
  local F = b:unit_field("deformation_gradient", "flat")
  for u = 0, #F / 9 - 1 do
    for k = 1, 9 do T.near(F[9 * u + k], R[k], 1e-12, "F of cluster " .. u) end
  end
end)

T.test("one and two threads give the same positions", function()
  local res = {}
  for _, th in ipairs({ 1, 2 }) do
    local sc = scenes.get("shape_matching/twisted_bar_fracture"):build { threads = th, particles = 4300 }
    sc.world:step(8)
    local x, n3 = sc.body:positions("cdata")
    local parts = {}
    for i = 0, n3 - 1 do parts[#parts + 1] = string.format("%a", x[i]) end
    res[th] = table.concat(parts, ",")
  end
  T.truthy(res[1] == res[2], "positions differ between 1 and 2 threads")
end)


T.test("a shattered plate: piece labels agree with the piece counts, the kick pushes particles on", function()
  local built = scenes.get("shape_matching/plate_brittle_weak"):build { particles = 1500, threads = 1 }
  built.world:step(30)
  local info, st = built.body:info(), built.body:stats()
  local labels, n = built.body:piece_labels("cdata")
  T.eq(n, info.nodes, "one label per node")
  local seen, count = {}, 0
  for i = 0, n - 1 do
    if not seen[labels[i]] then seen[labels[i]], count = true, count + 1 end
  end
  T.eq(count, info.pieces, "distinct labels = pieces")
  T.truthy(st.cluster_pieces > 1 and st.cluster_pieces <= info.pieces, "pieces holding clusters: " .. st.cluster_pieces)
  -- the projectile (0.3 m/s, kick 10) has flung particles well ahead of itself
  local v, zmax = built.body:velocities("cdata"), 0
  for i = 0, n - 1 do zmax = math.max(zmax, v[3 * i + 2]) end
  T.truthy(zmax > 1.0, "fastest particle " .. zmax .. " m/s along +z")
end)

T.test("the skin: a surface per piece around the particles, coloured and labelled by piece", function()
  local C = dofile(here .. "/../../experiments/scenes/shape_matching/common.lua")
  local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, seed = 1 }
  -- two 0.2 m cubes 0.1 m apart: two bodies' worth of particles in one body, so two pieces
  local a = cl.shape.box { size = { 0.2, 0.2, 0.2 }, center = { -0.15, 0, 0 } }
  local pts = a:sample { method = "poisson", spacing = 0.02, seed = 1 }
  local P0, n0 = pts:points("flat"), pts:info().points
  local flat = {}
  for i = 1, 3 * n0 do flat[i] = P0[i] end
  for i = 0, n0 - 1 do
    flat[3 * (n0 + i) + 1], flat[3 * (n0 + i) + 2], flat[3 * (n0 + i) + 3] = P0[3 * i + 1] + 0.3, P0[3 * i + 2], P0[3 * i + 3]
  end
  local body = w:body { shape = cl.mesh.from_arrays { kind = "points", points = flat }, solver = "shape_matching",
                        params = { spacing = 0.02, cluster_count = 8 } }
  T.eq(body:info().pieces, 2, "two pieces")
  local P, Tri, TC, TL = C.skin(body)
  T.truthy(#Tri > 300, "triangles: " .. #Tri / 3)
  T.eq(#TC, #Tri / 3, "a colour per triangle")
  local labels = {}
  for _, l in ipairs(TL) do labels[l] = true end
  local count = 0
  for _ in pairs(labels) do count = count + 1 end
  T.eq(count, 2, "triangles of both pieces")
  -- the surface wraps each cube within about a spacing: its extent along x per side of the gap
  local lo, hi = { math.huge, math.huge }, { -math.huge, -math.huge }
  for i = 0, #P / 3 - 1 do
    local x = P[3 * i + 1]
    local s = x < 0 and 1 or 2
    lo[s], hi[s] = math.min(lo[s], x), math.max(hi[s], x)
  end
  T.near(lo[1], -0.25, 0.02, "left cube's left face")
  T.near(hi[1], -0.05, 0.02, "left cube's right face")
  T.near(lo[2], 0.05, 0.02, "right cube's left face")
  T.near(hi[2], 0.25, 0.02, "right cube's right face")
  -- closed surfaces: no edge bounds a single triangle (a hole); surface nets may join two sheets
  -- along an edge (four triangles there), rarely
  local edges = {}
  for t = 0, #Tri / 3 - 1 do
    for e = 0, 2 do
      local u, v = Tri[3 * t + 1 + e], Tri[3 * t + 1 + (e + 1) % 3]
      local k = math.min(u, v) .. ":" .. math.max(u, v)
      edges[k] = (edges[k] or 0) + 1
    end
  end
  local odd, other, total = 0, 0, 0
  for _, c in pairs(edges) do
    total = total + 1
    if c % 2 == 1 then odd = odd + 1 elseif c ~= 2 then other = other + 1 end
  end
  T.eq(odd, 0, "edges of an odd number of triangles")
  T.truthy(other < 0.01 * total, other .. " of " .. total .. " edges join two sheets")
  w:destroy()
end)

T.test("bad input is a clear error at the caller's line", function()
  local w = cl.world {}
  local box = cl.shape.box { size = { 0.2, 0.2, 0.2 } }
  T.error(function() w:body { shape = box, solver = "shape_matching", params = { spacing = -1 } } end, "spacing")
  T.error(function() w:body { shape = box, solver = "shape_matching", params = { alpha = 2 } } end, "alpha")
  T.error(function()
    w:body { shape = box, solver = "shape_matching", params = { particles = 100, cluster_count = 500 } }
  end, "cluster_count")
  T.error(function()
    w:body { shape = box, solver = "shape_matching", fracture = { criterion = "cluster_stretch", toughness = -1 } }
  end, "toughness")
end)

T.done()
