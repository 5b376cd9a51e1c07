-- The sculpting tools from Lua (world:knife, world:brush, world:anchor; lua/cleave/tools.lua): a knife
-- stroke splits a graph_fem bar in two (body:info().pieces and the pieces probe) and breaks exactly
-- the edges that cross the plane rectangle its blade swept (a brute-force count here), and the
-- cut body writes a closed OBJ; a knife that misses cuts nothing and warns once; a brush moves the
-- nodes under it and not those far away; an anchor holds from its start time and not before; knives
-- on corotational and shape-matching bodies fail naming the solvers that cut; bad options are errors
-- at the caller's line naming the key, the value and what is allowed.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local bar_mesh = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { quality = 2, max_volume = 2e-5 }
local material = { density = 1000, young = 1e5, poisson = 0.3 }

local function graph_fem_bar(w, name)
  return w:body { name = name or "bar", mesh = bar_mesh, solver = "graph_fem", material = material }
end

-- The unique edges of the bar's tets: {a, b} pairs of 1-based node indices.
local function edges()
  local seen, out = {}, {}
  for _, t in ipairs(bar_mesh:cells()) do
    for i = 1, 3 do
      for j = i + 1, 4 do
        local a, b = math.min(t[i], t[j]), math.max(t[i], t[j])
        local key = a * 1000003 + b
        if not seen[key] then
          seen[key] = true
          out[#out + 1] = { a, b }
        end
      end
    end
  end
  return out
end

-- Edges whose segment crosses the plane x = x0 inside the rectangle y in [ylo, yhi], z in [zlo, zhi]
-- (positions p: a list of {x, y, z}).
local function crossing(p, x0, ylo, yhi, zlo, zhi)
  local n = 0
  for _, e in ipairs(edges()) do
    local a, b = p[e[1]], p[e[2]]
    local da, db = a[1] - x0, b[1] - x0
    if (da < 0 and db > 0) or (da > 0 and db < 0) then
      local s = da / (da - db)
      local y, z = a[2] + s * (b[2] - a[2]), a[3] + s * (b[3] - a[3])
      if y >= ylo and y <= yhi and z >= zlo and z <= zhi then n = n + 1 end
    end
  end
  return n
end

-- Every edge of a triangle surface shared by exactly two triangles: closed and edge-manifold.
local function watertight(mesh)
  local count = {}
  for _, t in ipairs(mesh:cells()) do
    for i = 1, 3 do
      local a, b = t[i], t[i % 3 + 1]
      local key = math.min(a, b) * 1000003 + math.max(a, b)
      count[key] = (count[key] or 0) + 1
    end
  end
  local bad = 0
  for _, c in pairs(count) do bad = bad + (c == 2 and 0 or 1) end
  return bad == 0, bad
end

-- A blade along z from -0.08 to 0.08 at x = 0.0123, moving from y = 0.08 down to `y1` over 0.1 s.
local function stroke(w, b, y1)
  return w:knife(b, { blade = { { 0, 0, -0.08 }, { 0, 0, 0.08 } },
                      path = { { 0, 0.0123, 0.08, 0.0011 }, { 0.1, 0.0123, y1, 0.0011 } } })
end

T.test("a knife stroke through a graph_fem bar splits it in two along the swept rectangle", function()
  local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
  local b = graph_fem_bar(w)
  local k = stroke(w, b, -0.08)
  T.eq(k.kind, "knife")
  local run = w:run { frames = 12, probes = { pieces = cl.probe.pieces(b) } }
  T.eq(b:info().pieces, 2)
  T.eq(run.probes.pieces[1], 1, "one piece before the cut")
  T.eq(run.probes.pieces[#run.probes.pieces], 2, "the pieces probe after it")
  local expected = crossing(b:positions(), 0.0123, -0.08, 0.08, -0.08 + 0.0011, 0.08 + 0.0011)
  T.truthy(expected > 20, "edges across the section: " .. expected)
  T.eq(b:stats().broken_edges, expected, "broken edges = the brute-force count")
  local info = k:info()
  T.truthy(info.started and info.finished and info.touched)
  T.eq(info.triangles, 22, "10 steps of motion and one more sweeping its last stretch again")
  T.near(info.position[2], -0.08, 1e-15)
  T.near(info.blade[2][3], 0.0811, 1e-15)
  T.eq(#w:warnings(), 0)
  -- the visual surface stays closed: every edge of the written OBJ in exactly two triangles
  local dir = T.tmpdir("tools")
  b:write(dir .. "/cut.obj")
  local obj = cl.mesh.read(dir .. "/cut.obj")
  local ok, bad = watertight(obj)
  T.truthy(ok, bad and (bad .. " edges not shared by exactly two triangles"))
  T.eq(obj:components(), 2, "two closed pieces, and no vertex outside the surface")
  T.eq(obj:is_closed(), true)
end)

T.test("a stroke that stops half way cuts only the part of the section it swept", function()
  local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
  local b = graph_fem_bar(w)
  stroke(w, b, 0.0)
  w:step(12)
  T.eq(b:info().pieces, 1)
  T.eq(b:stats().broken_edges, crossing(b:positions(), 0.0123, 0.0, 0.08, -0.0789, 0.0811))
end)

T.test("a knife that misses cuts nothing and warns once", function()
  local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
  local b = graph_fem_bar(w)
  local k = w:knife(b, { blade = { { 0, 0, -0.08 }, { 0, 0, 0.08 } }, center = { 0, 0.2, 0 }, velocity = { 0, 0.5, 0 },
                         duration = 0.05 })
  for _ = 1, 5 do T.eq(w:step(), 0) end
  T.truthy(k:info().finished, "its motion ended")
  T.eq(cl.status_name(w:step()), "CL_WARN_NO_EFFECT", "after its last sweep")
  w:step(10)
  local warnings = w:warnings()
  T.eq(#warnings, 1, "once")
  T.contains(warnings[1].message, "without cutting anything")
  T.contains(warnings[1].message, "bounding box")
  T.eq(b:stats().broken_edges, 0)
  local info = k:info()
  T.truthy(info.finished and not info.touched)
end)

T.test("a brush moves the nodes under it with its displacement and not those far away", function()
  local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
  local b = w:body { mesh = bar_mesh, solver = "graph_fem", material = material, params = { damping = 30 } }
  local anchor = w:anchor(b, cl.region.slab { axis = "x", below = -0.18 })
  local c = { 0.2, 0, 0 }
  local brush = w:brush(b, { radius = 0.03, path = { { 0.02, c[1], c[2], c[3] }, { 0.12, c[1], 0.02, c[3] } } })
  local x0 = b:positions()
  w:step(15)
  local x = b:positions()
  local info = brush:info()
  T.truthy(info.started and info.finished and info.touched)
  T.eq(brush:nodes(), info.nodes)
  local inside, far = 0, 0
  for i, p in ipairs(x0) do
    local d = math.sqrt((p[1] - c[1]) ^ 2 + (p[2] - c[2]) ^ 2 + (p[3] - c[3]) ^ 2)
    if d <= 0.03 then
      inside = inside + 1
      T.near(x[i][2], p[2] + 0.02, 1e-12, "node under the brush follows it")
      T.near(x[i][1], p[1], 1e-12)
    elseif p[1] <= -0.18 then
      far = far + 1
      for k = 1, 3 do T.near(x[i][k], p[k], 1e-12, "anchored far end") end
    else
      T.truthy(math.abs(x[i][2] - p[2] - 0.02) > 1e-9, "a node outside the brush does not move with it")
    end
  end
  T.eq(inside, info.nodes)
  T.truthy(inside >= 3 and far >= 3)
  -- a reaction probe reads the force the brush exerts
  -- at rest (damped), the brush holds the bent bar up and the anchor holds it down: reaction probes
  -- read both, and they balance
  local rb, ra = w:probe(cl.probe.reaction(brush)), w:probe(cl.probe.reaction(anchor))
  w:step(300)
  T.truthy(rb:read()[2] > 0, "the brush holds the bar up")
  for k = 1, 3 do T.near(rb:read()[k] + ra:read()[k], 0, 1e-3 * math.abs(rb:read()[2]), "reactions balance") end
end)

T.test("an anchor holds from its start time and not before", function()
  local w = cl.world { dt = 0.01, gravity = { 0, -9.81, 0 }, threads = 1 }
  local b = graph_fem_bar(w)
  local a = w:anchor(b, cl.region.slab { axis = "x", below = -0.18 }, { start = 0.05 })
  local x0 = b:positions()
  w:step(5)
  T.eq(a:nodes(), 0, "nothing held before its start")
  local x5 = b:positions()
  w:step(20)
  local x = b:positions()
  local held = 0
  for i, p in ipairs(x0) do
    if p[1] <= -0.18 then
      held = held + 1
      T.truthy(x5[i][2] < p[2] - 1e-4, "fell before the start")
      for k = 1, 3 do T.near(x[i][k], x5[i][k], 1e-12, "held where it was at the start") end
    end
  end
  T.eq(a:nodes(), held)
  T.truthy(a:info().started)
end)

T.test("knives need a solver that cuts; brushes and anchors work on every solver", function()
  for _, solver in ipairs { "corotational", "shape_matching" } do
    local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
    local b = w:body { mesh = bar_mesh, solver = solver, material = material }
    T.error(function() stroke(w, b, -0.08) end,
      { "knife", "solver '" .. solver .. "'", "cut_surface", "solvers that can: graph_fem" })
    local brush = w:brush(b, { center = { 0.2, 0, 0 }, radius = 0.03, velocity = { 0, 0.1, 0 }, duration = 0.05 })
    w:anchor(b, cl.region.slab { axis = "x", below = -0.18 })
    w:step(3)
    T.truthy(brush:nodes() > 0, solver .. ": the brush took nodes")
  end
end)

T.test("bad tool options are errors at the caller's line naming the key, the value and what is allowed", function()
  local w = cl.world { dt = 0.01, gravity = { 0, 0, 0 }, threads = 1 }
  local b = graph_fem_bar(w)
  local blade = { { 0, 0, -0.08 }, { 0, 0, 0.08 } }
  T.error(function() w:knife(b, { blade = blade, velocity = { 0, -1, 0 }, sped = 1 }) end, { "sped" })
  T.error(function() w:knife(b, { velocity = { 0, -1, 0 } }) end, "blade")
  T.error(function() w:knife(b, { blade = { { 0, 0, 0.1 }, { 0, 0, 0.1 } }, velocity = { 0, -1, 0 } }) end, "coincide")
  T.error(function() w:knife(b, { blade = { { 0, 0, 0.1 } }, velocity = { 0, -1, 0 } }) end, "two end points")
  T.error(function() w:knife(b, { blade = { { 0, 0 / 0, 0.1 }, { 0, 0, 0 } }, velocity = { 0, -1, 0 } }) end, "blade")
  T.error(function() w:knife(b, { blade = blade }) end, "never moves")
  T.error(function() w:knife(b, { blade = blade, path = { { 0, 0, 0, 0 }, { 0.5, 0, 1, 0 }, { 0.5, 0, 2, 0 } } }) end,
    { "path row 3", "time 0.5 s does not come after 0.5 s" })
  T.error(function() w:knife(b, { blade = blade, path = { { 0, 0, 0, 0 }, { 1, 0, 0 / 0, 0 } } }) end,
    { "path row 2, entry 3", "finite" })
  T.error(function() w:knife(b, { blade = blade, velocity = { 0, 1, 0 }, path = { { 0, 0, 0, 0 }, { 1, 0, 1, 0 } } }) end,
    "not both")
  T.error(function() w:knife(b, { blade = blade, velocity = { 0, -1, 0 }, duration = -1 }) end, { "duration", "-1" })
  T.error(function() w:brush(b, { radius = 0 / 0, velocity = { 0, 1, 0 } }) end, { "radius", "nan" })
  T.error(function() w:brush(b, { radius = -0.1, velocity = { 0, 1, 0 } }) end, { "radius", "-0.1", "(0, inf)" })
  T.error(function() w:brush(b, { velocity = { 0, 1, 0 } }) end, "radius")
  T.error(function() w:brush(b, { radius = 0.1, start = 1, release = 0.5 }) end, { "release = 0.5 s", "1 s" })
  T.error(function() w:anchor(b, cl.region.all {}, { start = 1, release = 0.5 }) end, "release = 0.5 comes before start = 1")
  T.error(function() w:anchor(b, cl.region.all {}, { start = -1 }) end, { "start", "-1" })
  T.error(function() w:anchor(b, { axis = "x" }) end, "expected a region")
  T.error(function() w:knife(42, { blade = blade, velocity = { 0, 1, 0 } }) end, "expected a body")
  local fixed = w:fix(b, cl.region.slab { axis = "x", below = -0.18 })
  T.error(function() fixed:info() end, "only tools")
end)

T.test("the sculpted sphere scene: every tool touches the sphere, the cheek comes off, the OBJ is watertight", function()
  local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")
  local sc = dofile(src .. "/experiments/scenes/init.lua").get("graph_fem/sculpt_sphere")
  local built = sc:build { threads = 1, stroke = 0.1, frames = 46 } -- 7k tets, six strokes of 6 steps
  built.world:step(built.params.frames)
  T.eq(#built.world:warnings(), 0)
  for _, t in ipairs(built.tools) do T.truthy(t.tool:info().touched, t.name .. " touched the sphere") end
  T.truthy(built.body:info().pieces >= 2, "the cheek is off")
  local path = T.tmpdir("tools") .. "/sculpted.obj"
  built.body:write(path)
  local obj = cl.mesh.read(path)
  local ok, bad = watertight(obj)
  T.truthy(ok, bad and (bad .. " edges not shared by exactly two triangles"))
  T.eq(obj:components(), 2, "the face and the slice")
end)

T.done()
