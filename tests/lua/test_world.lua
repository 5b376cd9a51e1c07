-- Worlds from Lua: creation from a checked table, stepping, statistics, colliders, probes, regions
-- and motions; with no solver registered, a body with any solver name is the error that lists the
-- registered solvers. When solvers are registered, a small body is fixed, driven, probed and stepped.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local tmp = T.tmpdir("world")

T.test("a world takes its defaults from C and its values from the table", function()
  local w = cl.world {}
  T.near(w.def.dt, 1 / 600, 1e-15)
  T.eq(w.def.gravity[2], -9.81)
  local w2 = cl.world { dt = 0.01, gravity = { 0, 0, -1 }, substeps = 2, threads = 1, seed = 42 }
  T.eq(w2.def.dt, 0.01)
  T.eq(w2.def.seed, 42)
  local s = w2:stats()
  T.eq(s.steps, 0)
  T.eq(s.time, 0)
  T.eq(type(s.phase_ms.solve), "number")
  T.truthy(tostring(w2):find("cl.world"), "tostring")
end)

T.test("stepping an empty world advances time by dt per step", function()
  local w = cl.world { dt = 0.01 }
  w:step()
  w:step(4)
  local s = w:stats()
  T.eq(s.steps, 5)
  T.near(s.time, 0.05, 1e-12)
  T.near(w:time(), 0.05, 1e-12)
  T.eq(#w:warnings(), 0)
  w:set_gravity { 0, 0, 0 }
end)

T.test("with no matching solver the error lists the registered ones", function()
  local w = cl.world {}
  local msg = T.error(function()
    w:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "no_such_solver" }
  end, { "world:body", "unknown solver \"no_such_solver\"" })
  local solvers = cl.solvers()
  if #solvers == 0 then T.contains(msg, "none are available") end
  for _, s in ipairs(solvers) do T.contains(msg, s) end
  T.eq(#w:bodies(), 0)
end)

T.test("colliders: kinds, defaults, moving centre", function()
  local w = cl.world { dt = 0.1, gravity = { 0, 0, 0 } }
  local plane = w:collider { kind = "plane", center = { 0, -1, 0 }, normal = "y", friction = 0.5 }
  T.eq(plane.kind, "plane")
  local c = plane:center()
  T.eq(c[2], -1)
  local ball = w:collider { kind = "sphere", radius = 0.2, velocity = { 1, 0, 0 } }
  local box = w:collider { kind = "box", half_extents = { 1, 0.1, 1 }, rotation = { axis = "z", angle = 0.3 } }
  T.eq(box.kind, "box")
  w:step(10)
  T.near(ball:center()[1], 1.0, 1e-9, "x = v t after 1 s")
  ball:remove()
  T.error(function() ball:center() end, "collider")
end)

T.test("phase-time probe has one value per phase", function()
  local w = cl.world {}
  local p = w:probe(cl.probe.phase_time())
  T.eq(p:size(), 6)
  w:step()
  local v = p:read()
  T.eq(#v, 6)
  T.eq(type(v.solve), "number")
  T.truthy(v.solve >= 0, "times are non-negative")
end)

T.test("world:run steps, samples probes every frame and writes probes.csv", function()
  local w = cl.world { dt = 0.01 }
  local ball = w:collider { kind = "sphere", radius = 0.1, velocity = { 0, 1, 0 } }
  local seen = 0
  local run = w:run { frames = 5, every = 2, output = tmp .. "/run", probes = { phases = cl.probe.phase_time() },
                      on_frame = function(frame, world)
                        seen = seen + 1
                        T.eq(world, w)
                        T.eq(world:stats().steps, frame)
                      end }
  T.eq(seen, 5)
  T.eq(#run.probes.time, 6, "frame 0 and 5 frames")
  T.near(run.probes.time[6], 0.05, 1e-12)
  T.eq(#run.probes.phases, 6)
  T.eq(#run.probes.phases[1], 6, "six phases per sample")
  T.eq(run.stats.steps, 5)
  T.near(ball:center()[2], 0.05, 1e-12)
  local f = assert(io.open(run.csv))
  local text = f:read("*a")
  f:close()
  T.contains(text, "frame,time,phases_forces,phases_solve")
  local rows = 0
  for line in text:gmatch("[^\n]+") do
    if line:match("^%d") then rows = rows + 1 end
  end
  T.eq(rows, 6)
  T.error(function() w:run { frames = -1 } end, "frames = -1")
  T.error(function() w:run { frames = 1, probes = { time = cl.probe.phase_time() } } end, "reserved")
  T.error(function() w:run { frames = 1, probes = { x = 5 } } end, "probes.x must be a probe")
  T.error(function() w:run { frames = 1, on_frame = 5 } end, "not a function")
  T.error(function() w:run { frames = 2, on_frame = function() error("boom") end } end, "boom")
end)

T.test("regions and motions are checked tables", function()
  local slab = cl.region.slab { axis = "x", below = -0.19 }
  T.eq(slab.kind, "slab")
  T.eq(slab.opts.below, -0.19)
  local box = cl.region.box { center = { 0, 0, 0 }, size = { 1, 1, 1 } }
  T.eq(box.kind, "box")
  local sph = cl.region.sphere { radius = 0.1 }
  T.eq(sph.opts.center[1], 0)
  local idx = cl.region.indices { 1, 2, 3 }
  T.eq(idx.opts.count, 3)
  local tw = cl.motion.twist { axis = "x", rate = math.pi }
  T.eq(tw.opts.axis[1], 1)
  T.eq(tw.opts.duration, math.huge, "twist forever by default")
  local tr = cl.motion.translate { velocity = { 0, 0.01, 0 }, start = 0.5, duration = 1 }
  T.eq(tr.opts.release, math.huge)
  local rot = cl.motion.rotate { axis = { 0, 0, 2 }, center = { 1, 0, 0 }, rate = 1 }
  T.eq(rot.opts.center[1], 1)
end)

T.test("the parameter tables come from C", function()
  local solvers, criteria = cl.solvers(), cl.criteria()
  T.eq(type(solvers), "table")
  for _, s in ipairs(solvers) do
    local spec = cl.params(s)
    for _, e in ipairs(spec) do
      T.eq(type(e.name), "string", s)
      if e.type == "boolean" then
        T.eq(type(e.default), "boolean", s .. "." .. e.name .. " default")
      elseif e.type == "enum" then
        local known = false
        for _, v in ipairs(e.values) do known = known or v == e.default end
        T.truthy(known, s .. "." .. e.name .. " default is one of its names")
      elseif e.type == "string" then
        T.eq(type(e.default), "string", s .. "." .. e.name .. " default text")
      else
        T.truthy(e.range[1] <= e.default and e.default <= e.range[2], s .. "." .. e.name .. " default within its range")
      end
    end
  end
  for _, c in ipairs(criteria) do
    T.eq(cl.params(c, "criterion").which, "criterion")
  end
  local out = {}
  cl.help(nil, { write = function(_, ...) for _, s in ipairs { ... } do out[#out + 1] = s end end })
  local text = table.concat(out)
  T.contains(text, "solvers:")
  T.contains(text, "fracture criteria:")
  for _, s in ipairs(solvers) do T.contains(text, s) end
end)

-- A small tet bar on each registered solver: fix one end, drive the other, probe, step.
local solvers = cl.solvers()
T.test("solvers are registered", function() T.truthy(#solvers >= 2, "cl.solvers() lists " .. #solvers) end)
for _, solver in ipairs(solvers) do
  T.test("a body on " .. solver .. ": fix, drive, probes, step, outputs", function()
    local w = cl.world { dt = 1 / 600, gravity = { 0, -9.81, 0 } }
    local shape = cl.shape.box { size = { 0.2, 0.05, 0.05 } }:tetrahedralize { max_volume = 2e-5 }
    local bar = w:body { shape = shape, solver = solver, name = "bar",
                         material = { density = 1000, young = 1e5, poisson = 0.3 } }
    T.eq(tostring(bar), "cl.body('bar', " .. solver .. ")")
    local info = bar:info()
    T.truthy(info.nodes > 0, "nodes")
    T.near(info.mass, 1000 * 0.2 * 0.05 * 0.05, 1e-6)
    local fixed = w:fix(bar, cl.region.slab { axis = "x", below = -0.099 })
    T.truthy(fixed:nodes() > 0, "the fixed slab selects nodes")
    local driven = w:drive(bar, cl.region.slab { axis = "x", above = 0.099 },
      cl.motion.translate { velocity = { 0.01, 0, 0 } })
    local vol = w:probe(cl.probe.volume(bar))
    local reaction = w:probe(cl.probe.reaction(fixed))
    w:step(5)
    T.eq(w:stats().steps, 5)
    T.near(vol:read(), 0.2 * 0.05 * 0.05, 1e-4)
    T.eq(#reaction:read(), 3)
    local run = w:run { frames = 4, every = 2, output = tmp .. "/run_" .. solver,
                        probes = { volume = vol, kinetic = cl.probe.kinetic(bar), pieces = cl.probe.pieces(bar) } }
    T.eq(#run.probes.volume, 5)
    T.eq(run.probes.pieces[5], 1)
    T.truthy(io.open(tmp .. "/run_" .. solver .. "/bar.pvd"), "the series index is written")
    local pos = bar:positions()
    T.eq(#pos, bar:info().nodes)
    local surf = bar:surface()
    T.eq(surf:info().kind, "triangles")
    bar:write(tmp .. "/bar_" .. solver .. ".vtu")
    T.error(function() w:fix(bar, cl.region.slab { axis = "x", below = -10 }) end, "")
    driven:remove()
    bar:remove()
    T.error(function() bar:info() end, "was removed")
  end)
end

T.done()
