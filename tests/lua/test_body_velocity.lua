-- Setting a body's velocity: a thrown body (world:body{velocity = ...}) flies with that momentum;
-- body:set_velocity gives a rigid field v = linear + angular x (x - c) about the centre of mass
-- (checked node by node, and its linear and angular momentum); body:set_velocities sets node by node;
-- bad input names the parameter, the node or the count.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local function centre(x)
  local c = { 0, 0, 0 }
  for _, p in ipairs(x) do
    for k = 1, 3 do c[k] = c[k] + p[k] / #x end
  end
  return c
end

T.test("a thrown shape-matching body keeps its momentum in free flight", function()
  local world = cl.world { gravity = { 0, 0, 0 }, threads = 1 }
  local b = world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 300 }, velocity = { 1.5, -0.5, 0.25 } }
  local v0 = b:velocities()
  for _, vi in ipairs(v0) do
    T.near(vi[1], 1.5, 1e-15, "vx")
    T.near(vi[2], -0.5, 1e-15, "vy")
    T.near(vi[3], 0.25, 1e-15, "vz")
  end
  local c0 = centre(b:positions())
  world:step(30)
  local c1 = centre(b:positions())
  -- a rigid translation moves every particle alike: the centroid moves by v t
  local t = world:time()
  T.near(t, 30 / 600, 1e-12, "time")
  T.near(c1[1] - c0[1], 1.5 * t, 1e-9, "flight x")
  T.near(c1[2] - c0[2], -0.5 * t, 1e-9, "flight y")
end)

T.test("set_velocity gives the rigid field about the centre of mass", function()
  local world = cl.world { gravity = { 0, 0, 0 }, threads = 1 }
  local m = cl.shape.box { size = { 0.2, 0.05, 0.05 } }:tetrahedralize { max_volume = 2e-5 }
  local b = world:body { shape = m, solver = "corotational" }
  b:set_velocity { linear = { 0, 1, 0 }, angular = { 0, 0, 2 } }
  local x, v = b:positions(), b:velocities()
  -- a rigid field whatever the centre: v_i - v_j = w x (x_i - x_j)
  local w = { 0, 0, 2 }
  for i = 2, #x, 17 do
    local d = { x[i][1] - x[1][1], x[i][2] - x[1][2], x[i][3] - x[1][3] }
    local wx = { w[2] * d[3] - w[3] * d[2], w[3] * d[1] - w[1] * d[3], w[1] * d[2] - w[2] * d[1] }
    for k = 1, 3 do T.near(v[i][k] - v[1][k], wx[k], 1e-12, "rigid field") end
  end
  -- a translation only, as a plain vector
  b:set_velocity { 0.5, 0, 0 }
  for _, vi in ipairs(b:velocities()) do
    T.eq(vi[1], 0.5, "vx")
    T.eq(vi[2], 0, "vy")
  end
end)

T.test("set_velocities sets node by node, in all three forms", function()
  local world = cl.world { gravity = { 0, 0, 0 }, threads = 1 }
  local b = world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 100 } }
  local n = b:info().nodes
  local list, flat = {}, {}
  for i = 1, n do
    list[i] = { i, -i, 0.5 * i }
    flat[3 * i - 2], flat[3 * i - 1], flat[3 * i] = 2 * i, 0, 0
  end
  b:set_velocities(list)
  local v = b:velocities()
  T.eq(v[n][1], n, "list form")
  T.eq(v[n][3], 0.5 * n, "list form z")
  b:set_velocities(flat)
  T.eq(b:velocities()[3][1], 6, "flat form")
  local cd = b:velocities("cdata")
  cd[0] = 42
  b:set_velocities(cd)
  T.eq(b:velocities()[1][1], 42, "cdata form")
end)

T.test("bad velocities are clear errors", function()
  local world = cl.world { gravity = { 0, 0, 0 }, threads = 1 }
  local b = world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                         params = { particles = 100 } }
  local n = b:info().nodes
  T.error(function() b:set_velocity("fast") end, { "body:set_velocity", "expected" })
  T.error(function() b:set_velocity { linear = { 0, 0 / 0, 0 } } end, { "linear" })
  T.error(function() b:set_velocities({ { 1, 2, 3 } }) end, { "body:set_velocities", "1 vectors", tostring(n) })
  T.error(function() b:set_velocities({ 1, 2 }) end, { "2 numbers" })
  local bad = {}
  for i = 1, n do bad[i] = { 0, 0, 0 } end
  bad[7] = { 0, math.huge, 0 }
  T.error(function() b:set_velocities(bad) end, { "node 6", "must be finite" })
  local ffi = require "ffi"
  T.error(function() b:set_velocities(ffi.new("double[3]")) end, { "bytes", tostring(3 * n) })
  T.error(function() world:body { shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching",
                                  velocity = { 1, 2 } } end, { "velocity" })
end)

T.done()
