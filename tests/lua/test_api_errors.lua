-- Misuse from Lua is a clean Lua error at the caller's line, naming the parameter, never a crash:
-- wrong types, out-of-range values, unknown keys, destroyed handles, unknown names.
-- Every T.error below also checks that the message starts with this file and a line number.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

T.test("world parameters: types, ranges, unknown keys", function()
  T.error(function() cl.world { dt = "fast" } end, { "cl.world: dt", "not a number" })
  T.error(function() cl.world { dt = -1 } end, { "dt = -1", "(0, 1]" })
  T.error(function() cl.world { dt = 0 / 0 } end, "dt = nan")
  T.error(function() cl.world { dt = math.huge } end, "dt = inf")
  T.error(function() cl.world { gravity = 9.81 } end, "gravity = 9.81")
  T.error(function() cl.world { substeps = 0 } end, "substeps = 0")
  T.error(function() cl.world { threads = 1.5 } end, "not an integer")
  T.error(function() cl.world { gravty = { 0, 0, 0 } } end, { "unknown key 'gravty'", "did you mean 'gravity'" })
  T.error(function() cl.world("dt=1") end, "expected a table")
end)

T.test("shapes: negative sizes, wrong types, unknown keys, cross-field rules", function()
  T.error(function() cl.shape.box { size = { -1, 1, 1 } } end, { "cl.shape.box: size", "component 1 = -1" })
  T.error(function() cl.shape.box { size = { 1, 1 } } end, "three numbers")
  T.error(function() cl.shape.box { size = "big" } end, "size")
  T.error(function() cl.shape.box { radius = 1 } end, { "unknown key 'radius'", "valid keys: size, center" })
  T.error(function() cl.shape.cylinder { segments = 2 } end, { "segments = 2", "[3, 4096]" })
  T.error(function() cl.shape.icosphere { subdivisions = 9 } end, { "subdivisions = 9", "[0, 7]" })
  T.error(function() cl.shape.hollow_sphere { radius = 1, inner_radius = 2 } end, "inner_radius = 2 must be smaller than radius = 1")
  T.error(function() cl.shape.notched_beam { size = { 1, 0.1, 0.1 }, notch_depth = 0.2 } end, "notch_depth")
  T.error(function() cl.shape.cube {} end, { "unknown shape", "box" })
  T.error(function() cl.shape.charpy { scale = 0 } end, "scale = 0")
end)

T.test("mesh methods check their arguments", function()
  local box = cl.shape.box {}
  T.error(function() box:tetrahedralize { quality = 0.5 } end, { "quality = 0.5", "must be 0 (off) or >= 1" })
  T.error(function() box:tetrahedralize { max_volume = -1 } end, "max_volume = -1")
  T.error(function() box:tetrahedralize { qualty = 2 } end, "did you mean 'quality'")
  T.error(function() box:tetrahedralize(5) end, "expected a table")
  T.error(function() box:boundary() end, "needs a tet mesh, but this mesh holds triangles")
  T.error(function() box:fit(-1) end, "size = -1")
  T.error(function() box:fit(1, { 0, 0 }) end, "center")
  T.error(function() box:write(42) end, "path must be a non-empty string")
  T.error(function() box:write("") end, "path must be a non-empty string")
  T.error(function() box:sample {} end, "missing required key 'spacing'")
  T.error(function() box:sample { spacing = 0.1, method = "random" } end, "not one of poisson, grid")
  T.error(function() box:contains { 0, 0 } end, "point")
  T.error(function() box:points("list") end, 'format must be "table", "flat" or "cdata"')
  T.error(function() box:transform { matrix = { 1, 2, 3 } } end, "9 numbers")
  T.error(function() box:transform { scale = 0 } end, "non-zero")
  T.error(function() box:transform { matrix = { 1, 0, 0, 0, 0, 0, 0, 0, 1 } } end, "singular")
  T.error(function() box:carve_spheres { centers = { { 0, 0, 0 } }, radii = { 1, 2 } } end, "1 centres but 2 radii")
  T.error(function() box:carve_spheres { centers = { { 0, 0, 0 } }, radii = { -1 } } end, "radii")
  T.error(function() box:set_field("f", "node", 1, {}) end, "not one of point, cell")
  T.error(function() box:set_field("f", "point", 1, { 1, 2 }) end, "got 2 values but 8 points x 1 components need 8")
  T.error(function() box:set_field("f", "point", 1, require("ffi").new("double[3]")) end, "holds 3 doubles")
  T.error(function() box:set_field("f", "point", 1, require("ffi").new("double*")) end, "must be a double[] array")
  T.error(function() box:no_such_method() end, "unknown mesh method")
end)

T.test("mesh builders reject bad input", function()
  T.error(function() cl.mesh.read(nil) end, "path must be a non-empty string")
  T.error(function() cl.mesh.read({}) end, "path")
  T.error(function() cl.mesh.from_arrays { kind = "tets", points = { { 0, 0, 0 } }, cells = { { 1, 2, 3, 4 } } } end,
    "not a point index in [1, 1]")
  T.error(function() cl.mesh.from_arrays { kind = "quads", points = {} } end, "not one of points, triangles, tets")
  T.error(function() cl.mesh.from_arrays { kind = "points", points = { { 0, 0 / 0, 0 } } } end, "component 2")
  T.error(function() cl.mesh.from_arrays { kind = "triangles", points = { 0, 0, 0, 1, 0 } } end, "3 numbers per point")
end)

T.test("a table or a number where a mesh is expected", function()
  local w = cl.world {}
  T.error(function() w:body { shape = {}, solver = "x" } end, { "shape = {}", "not a mesh" })
  T.error(function() w:body { shape = 5, solver = "x" } end, "not a mesh")
  T.error(function() w:body { solver = "x" } end, "missing the body's shape")
  T.error(function() cl.shape.box {}:fit("1") end, "size")
  T.error(function() cl.mesh.read("x.off"):info() end, "x.off")
end)

T.test("destroyed handles are errors, not crashes", function()
  local m = cl.shape.box {}
  m:destroy()
  for _, call in ipairs {
    function() m:info() end, function() m:points() end, function() m:cells() end,
    function() m:write("/tmp/x.off") end, function() m:tetrahedralize {} end, function() m:copy() end,
    function() m:fit(1) end, function() m:translate { 1, 0, 0 } end, function() m:components() end,
    function() m:contains { 0, 0, 0 } end, function() m:sample { spacing = 1 } end,
  } do
    T.error(call, "this mesh was destroyed")
  end
  local w = cl.world {}
  T.error(function() w:body { shape = m, solver = "x" } end, "destroyed mesh")
  w:destroy()
  w:destroy()
  T.error(function() w:step() end, "this world was destroyed")
  T.error(function() w:stats() end, "this world was destroyed")
  T.error(function() w:body { shape = cl.shape.box {}, solver = "x" } end, "this world was destroyed")
  T.error(function() w:fix({}, cl.region.all {}) end, "this world was destroyed")
  T.eq(tostring(w), "cl.world(destroyed)")
end)

T.test("world methods check bodies, regions and motions", function()
  local w = cl.world {}
  T.error(function() w:fix({}, cl.region.all {}) end, "expected a body")
  T.error(function() w:drive("bar", cl.region.all {}, cl.motion.translate { velocity = { 1, 0, 0 } }) end, "expected")
  T.error(function() w:step(0) end, { "n = 0", "[1, " })
  T.error(function() w:step(1.5) end, "not an integer")
  T.error(function() w:step("10") end, "not a number")
  T.error(function() w:probe(42) end, "expected a probe")
  T.error(function() w:collider { kind = "cone" } end, { "unknown collider kind", "plane" })
  T.error(function() w:collider { kind = "sphere" } end, "missing required key 'radius'")
  T.error(function() w:collider { kind = "plane", normal = { 0, 0, 0 } } end, "zero vector")
  T.error(function() w:collider { kind = "plane", restitution = 2 } end, "restitution = 2")
  T.error(function() w:collider { kind = "box", half_extents = { 1, 1, 1 }, rotation = { 1, 0, 0, 0, 2, 0, 0, 0, 1 } } end,
    "not orthonormal")
  T.error(function() w:set_gravity { 0, "down", 0 } end, "gravity")
  T.error(function() w:nonsense() end, "unknown world method")
  T.error(function() cl.probe.volume({}) end, "expected a body")
  T.error(function() cl.probe.reaction(5) end, "expected a condition")
end)

T.test("unknown solver and criterion names list what is available", function()
  local w = cl.world {}
  local msg = T.error(function() w:body { shape = cl.shape.box {}, solver = "shape_matchin" } end,
    "unknown solver \"shape_matchin\"")
  local solvers = cl.solvers()
  if #solvers == 0 then
    T.contains(msg, "none are available")
  else
    for _, s in ipairs(solvers) do T.contains(msg, s) end
  end
  T.error(function() w:body { shape = cl.shape.box {}, solver = 42 } end, "solver")
  T.error(function() cl.params("no_such_solver") end, "unknown solver or criterion")
  T.error(function() cl.params("x", "nonsense") end, "which must be")
  if #solvers > 0 then
    local s = solvers[1]
    T.error(function() w:body { shape = cl.shape.box {}, solver = s, params = { no_such_param = 1 } } end,
      { "unknown key 'no_such_param'" })
    T.error(function() w:body { shape = cl.shape.box {}, solver = s, fracture = { criterion = "nope" } } end,
      "unknown criterion \"nope\"")
    T.error(function() w:body { shape = cl.shape.box {}, solver = s, material = { young = -1 } } end, "young = -1")
    T.error(function() w:body { shape = cl.shape.box {}, solver = s, material = { plastic = { flow = 1 } } } end,
      "missing required key 'yield'")
  end
end)

T.test("methods called with '.' instead of ':' are errors", function()
  local box = cl.shape.box {}
  T.error(function() box.info(5) end, "expected a mesh")
  T.error(function() box.write("x.off") end, "expected a mesh")
  local w = cl.world {}
  T.error(function() w.step(3) end, "expected a world")
  local c = w:collider { kind = "sphere", radius = 1 }
  T.error(function() c.center() end, "expected a cl.collider")
  local p = w:probe(cl.probe.phase_time())
  T.error(function() p.read({}) end, "expected a cl.probe")
end)

T.test("regions and motions check their tables", function()
  T.error(function() cl.region.slab { axis = "w", below = 0 } end, "not one of x, y, z")
  T.error(function() cl.region.slab { axis = "x" } end, "give below, above or both")
  T.error(function() cl.region.slab { axis = "x", above = 1, below = 0 } end, "selects nothing")
  T.error(function() cl.region.box { lo = { 1, 0, 0 }, hi = { 0, 1, 1 } } end, "lo[1] = 1 > hi[1] = 0")
  T.error(function() cl.region.box { lo = { 0, 0, 0 } } end, "give lo and hi")
  T.error(function() cl.region.sphere { radius = -1 } end, "radius = -1")
  T.error(function() cl.region.indices {} end, "the list is empty")
  T.error(function() cl.region.indices { 0 } end, "[1] = 0 is not a node index")
  T.error(function() cl.region.indices { 1.5 } end, "not a node index")
  T.error(function() cl.motion.twist { axis = "x" } end, "missing required key 'rate'")
  T.error(function() cl.motion.twist { axis = { 0, 0, 0 }, rate = 1 } end, "zero vector")
  T.error(function() cl.motion.translate { velocity = { 1, 0, 0 }, start = -1 } end, "start = -1")
  T.error(function() cl.motion.translate { velocity = { 1, 0, 0 }, start = 2, release = 1 } end, "release = 1 comes before start = 2")
  T.error(function() cl.motion.rotate { axis = "z", rate = 1, centre = { 0, 0, 0 } } end, "did you mean 'center'")
end)

T.test("sibling modules load on first use; a missing one is a clear error then", function()
  for _, name in ipairs { "output", "plot", "progress", "runinfo" } do
    if package.searchpath("cleave." .. name, package.path) then
      T.eq(type(cl[name]), "table", "cl." .. name)
    else
      T.error(function() return cl[name] end, { "cl." .. name .. " is not available", name .. ".lua is not in this module tree" })
    end
  end
end)

T.test("cl itself: unknown fields and options", function()
  T.error(function() return cl.wrold end, { "cleave has no field cl.wrold", "did you mean cl.world" })
  T.error(function() cl.options({ { name = "frames", type = "integer", default = 10 } }, { frams = 3 }) end,
    { "--set: unknown key 'frams'", "did you mean 'frames'" })
  local o = cl.options({ frames = { type = "integer", default = 10, range = { 1, 100 } } }, { frames = 20 })
  T.eq(o.frames, 20)
  T.error(function() cl.options({ frames = { type = "integer", range = { 1, 100 } } }, { frames = 200 }) end,
    "frames = 200")
end)

T.done()
