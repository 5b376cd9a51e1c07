-- Issue 15's reproducers that go through Lua (docs/GUARANTEES.md): blow-ups stop a run with the
-- body, the frame and the quantity named; no output is lost or silently wrong (a full disk, two
-- bodies of one name, a second run into a folder, an interrupted run, a body added in on_frame,
-- half-written files); messages name what the user wrote, never a C function or a raw id.
-- Each test failed before the fix. .ci/run also runs this file under valgrind (LuaJIT hides the C
-- library from the sanitizers).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

local function bar_world(opts)
  opts = opts or {}
  local w = cl.world { dt = opts.dt or 1 / 600, gravity = { 0, -9.81, 0 } }
  local shape = cl.shape.box { size = { 0.4, 0.1, 0.1 } }:tetrahedralize { max_volume = 2e-4 }
  local b = w:body { name = opts.name or "bar", shape = shape, solver = opts.solver or "corotational",
                     params = opts.params, material = { density = 1000, young = 1e6, poisson = 0.3 } }
  w:fix(b, cl.region.slab { axis = "x", below = -0.19 })
  return w, b
end

T.test("a blow-up stops world:run naming the body, the frame and the quantity; run.json says so", function()
  local dir = T.tmpdir("reliability") .. "/blowup"
  os.execute("rm -rf '" .. dir .. "'")
  local w, b = bar_world { dt = 0.01, params = { max_iterations = 1 } }
  local msg = T.error(function()
    w:run { frames = 200, output = dir, probes = { v = cl.probe.volume(b), k = cl.probe.kinetic(b) } }
  end, { "body 'bar': kinetic energy", "blowing up", "smaller dt", "world:run stopped after frame" })
  local frame = tonumber(msg:match("after frame (%d+) of 200"))
  T.truthy(frame and frame < 100, "stopped early: " .. msg)
  local info = T.read_file(dir .. "/run.json")
  T.contains(info, '"completed": false')
  T.contains(info, '"frames_completed": ' .. frame)
  T.contains(info, '"stopped_by": "body \'bar\': kinetic energy')
  -- every row written is whole and finite
  local cols, _, n = cl.output.read_csv(dir .. "/probes.csv")
  T.eq(n, frame + 1)
  for i = 1, n do T.truthy(cols.v[i] == cols.v[i] and math.abs(cols.k[i]) < math.huge, "finite row " .. i) end
  T.error(function() w:step() end, "the world stopped on an error")
end)

T.test("out-of-range inputs that blew up are refused where they are written", function()
  local w = cl.world {}
  local box = cl.shape.box { size = { 0.1, 0.1, 0.1 } }
  T.error(function() w:body { shape = box, solver = "shape_matching", velocity = { 1e160, 0, 0 } } end,
    { "velocity = (1e+160, 0, 0) m/s", "[0, 3e+08] m/s" })
  T.error(function() w:body { shape = box, solver = "shape_matching", material = { young = 1e308 } } end,
    { "young = 1e+308 Pa", "(0, 1e+13] Pa" })
  T.error(function() cl.world { gravity = { 0, -1e300, 0 } } end, { "gravity", "[0, 1e+09] m/s^2" })
  T.error(function() w:collider { kind = "box", half_extents = { 1, 1, 1 }, center = { 1e308, 1e308, 1e308 } } end,
    { "collider: center", "[0, 1e+09] m" })
  T.error(function() w:collider { kind = "box", half_extents = { 1, 1, 1 }, dynamic = true, mass = 1e-300 } end,
    "mass = 1e-300 kg is outside the allowed range [1e-09, 1e+15] kg")
  local b = w:body { shape = box, solver = "shape_matching" }
  T.error(function() w:drive(b, cl.region.all {}, cl.motion.translate { velocity = { 1e300, 0, 0 } }) end,
    { "motion: velocity", "[0, 3e+08] m/s" })
  T.error(function() w:body { shape = box, solver = "shape_matching", params = { cluster_radius = 1e-9 } } end,
    { "cluster_radius = 1e-09 m gives about", "use cluster_radius >=" })
end)

T.test("probes.csv on a full disk is an error, not a run that says it completed", function()
  local dir = T.tmpdir("reliability") .. "/full"
  os.execute("rm -rf '" .. dir .. "'; mkdir -p '" .. dir .. "'; ln -sf /dev/full '" .. dir .. "/probes.csv'")
  local ok = os.execute("test -L '" .. dir .. "/probes.csv'")
  T.truthy(ok == 0 or ok == true, "probes.csv is a link to /dev/full")
  local w, b = bar_world()
  T.error(function() w:run { frames = 3, output = dir, probes = { v = cl.probe.volume(b) } } end,
    { "probes.csv", "No space left on device", "stopped after frame" })
  T.contains(T.read_file(dir .. "/run.json"), '"completed": false')
end)

T.test("body names are unique and not empty", function()
  local w = cl.world {}
  local box = cl.shape.box { size = { 0.1, 0.1, 0.1 } }
  w:body { name = "twin", shape = box, solver = "shape_matching" }
  T.error(function() w:body { name = "twin", shape = box, solver = "shape_matching" } end,
    { "name = 'twin' is already the name of another body", "unique" })
  T.error(function() w:body { name = "", shape = box, solver = "shape_matching" } end, "name = \"\" is empty")
  local second = w:body { shape = box, solver = "shape_matching" }
  T.eq(second.name, "body2")
  local third = w:body { name = "body3", shape = box, solver = "shape_matching" }
  T.eq(third.name, "body3")
  T.eq(w:body { shape = box, solver = "shape_matching" }.name, "body4")
  T.error(function() w:run { frames = 1, output = T.tmpdir("reliability") .. "/twins", bodies = { second, second } } end,
    "bodies holds body 'body2' twice")
end)

T.test("a second run into a folder says so; stale frames and half-written files go", function()
  local dir = T.tmpdir("reliability") .. "/again"
  os.execute("rm -rf '" .. dir .. "'")
  local w = bar_world()
  local first = w:run { frames = 4, output = dir }
  T.eq(first.replaced, nil)
  T.truthy(exists(dir .. "/bar_00004.vtu"))
  T.write_file(dir .. "/bar_00007.vtu.tmp", "half")
  local w2 = bar_world()
  local second = w2:run { frames = 2, output = dir }
  T.truthy(second.replaced, "the result says an earlier run was replaced")
  T.contains(T.read_file(dir .. "/run.json"), '"replaced_earlier_run"')
  T.truthy(not exists(dir .. "/bar_00004.vtu"), "the first run's frame 4 is gone")
  T.truthy(not exists(dir .. "/bar_00007.vtu.tmp"), "no .vtu.tmp left")
  local info = T.read_file(dir .. "/run.json")
  T.contains(info, '"completed": true')
  T.contains(info, '"frames_completed": 2')
end)

T.test("an interrupted run records the frames it completed", function()
  local dir = T.tmpdir("reliability") .. "/interrupted"
  os.execute("rm -rf '" .. dir .. "'")
  local w = bar_world()
  T.error(function()
    w:run { frames = 10, output = dir, on_frame = function(f) if f == 5 then error("stop here", 2) end end }
  end, { "stop here", "stopped after frame 5 of 10" }, { anywhere = true })
  local info = T.read_file(dir .. "/run.json")
  T.contains(info, '"completed": false')
  T.contains(info, '"frames_completed": 5')
  T.contains(info, '"frames": 10')
  T.truthy(not exists(dir .. "/bar_00006.vtu"))
end)

T.test("a body added inside on_frame is written from that frame on", function()
  local dir = T.tmpdir("reliability") .. "/late"
  os.execute("rm -rf '" .. dir .. "'")
  local w = bar_world()
  local r = w:run { frames = 4, output = dir, on_frame = function(f, world)
    if f == 2 then
      world:body { name = "late", shape = cl.shape.box { size = { 0.1, 0.1, 0.1 }, center = { 0, 1, 0 } },
                   solver = "shape_matching" }
    end
  end }
  T.truthy(r.series.late, "a series for the late body")
  T.eq(r.series.late:count(), 2) -- frames 3 and 4
  T.truthy(exists(dir .. "/late_00003.vtu") and exists(dir .. "/late_00004.vtu"))
  T.truthy(exists(dir .. "/late.pvd"))
end)

T.test("messages name what the user wrote: no C function names, no raw ids", function()
  local w, b = bar_world()
  local probe = w:probe(cl.probe.kinetic(b))
  local cond = w:fix(b, cl.region.slab { axis = "x", above = 0.19 })
  local reaction = w:probe(cl.probe.reaction(cond))
  cond:remove()
  local msg = T.error(function() reaction:read() end, { "removed with its condition" })
  T.truthy(not msg:find("id %d"), "no raw id: " .. msg)
  b:remove()
  msg = T.error(function() probe:read() end, { "probe:read", "removed with body 'bar'" })
  T.truthy(not msg:find("%d%d%d%d%d"), "no raw id: " .. msg)
  T.error(function() cond:nodes() end, "it was removed")
  local open = cl.mesh.from_arrays { kind = "triangles", points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } },
                                     cells = { { 1, 2, 3 } } }
  msg = T.error(function() open:sample { spacing = 0.1 } end, "the surface encloses a volume of 0 m^3")
  T.truthy(not msg:find("cl_[%l_]+:"), "no C function name: " .. msg)
  local w2 = cl.world {}
  local b2 = w2:body { name = "plain", shape = cl.shape.box { size = { 0.1, 0.1, 0.1 } }, solver = "shape_matching" }
  msg = T.error(function() b2:set_velocity { 4e8, 0, 0 } end, { "body 'plain': velocity", "[0, 3e+08] m/s" })
  T.truthy(not msg:find("cl_[%l_]+:") and not msg:find("%(id "), "no C name or id: " .. msg)
end)

T.test("meshing messages name the real defect: flat, thin, wrong unit, quadratic tets", function()
  local box = cl.shape.box {}
  local pts = box:points()
  for _, q in ipairs(pts) do q[3] = 0 end
  local flat = cl.mesh.from_arrays { kind = "triangles", points = pts, cells = box:cells() }
  local msg = T.error(function() flat:tetrahedralize {} end, { "1 x 1 x 0 m: it is flat", "give it a thickness" })
  T.truthy(not msg:find("inside out"), msg)
  msg = T.error(function() cl.shape.box { size = { 1e6, 1e6, 1e-6 } }:tetrahedralize {} end, "it is flat")
  T.truthy(not msg:find("self%-intersects"), msg)
  local tiny = cl.shape.box {}
  tiny:scale(1e-200) -- not "singular": it is invertible, only far too small
  T.error(function() tiny:tetrahedralize {} end, { "1e-200 x 1e-200 x 1e-200 m", "sizes are in metres" })
  local dir = T.tmpdir("reliability")
  T.write_file(dir .. "/quad.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n")
  T.write_file(dir .. "/quad.ele", "1 10 0\n0 0 1 2 3 4 5 6 7 8 9\n")
  T.error(function() cl.mesh.read(dir .. "/quad.ele") end, { "quad.ele:2", "quadratic tets are not supported" })
end)

T.test("mesh:set_field refuses NaN; a cube beside an inward-facing cube is not a closed solid", function()
  local box = cl.shape.box {}
  local v = {}
  for i = 1, 8 do v[i] = i end
  v[5] = 0 / 0
  T.error(function() box:set_field("f", "point", 1, v) end, { "field 'f'", "point 5", "not finite" })
  local b = cl.shape.box { center = { 3, 0, 0 } }
  local pts, cells = box:points(), box:cells()
  for _, p in ipairs(b:points()) do pts[#pts + 1] = p end
  for _, c in ipairs(b:cells()) do cells[#cells + 1] = { c[1] + 8, c[3] + 8, c[2] + 8 } end
  local two = cl.mesh.from_arrays { kind = "triangles", points = pts, cells = cells }
  local closed, why = two:is_closed()
  T.eq(closed, false)
  T.contains(why, "is inside out")
  T.error(function() two:tetrahedralize {} end, "2 of 2 shells")
  T.truthy(cl.shape.hollow_sphere { radius = 1, inner_radius = 0.5 }:is_closed(), "a cavity is fine")
end)

T.test("--set: decimal numbers only, \"quoted\" strings, 1e999 and a repeated key are usage errors", function()
  local exe = os.getenv("CLEAVE_EXE")
  if not exe then return T.skip("--set", "CLEAVE_EXE is not set") end
  local dir = T.tmpdir("reliability")
  local script = T.write_file(dir .. "/set.lua", "for k, v in pairs(arg.set) do print(k .. '=' .. type(v) .. ':' .. tostring(v)) end\n")
  local function run(args)
    local p = io.popen(string.format("'%s' run '%s' %s 2>&1; echo rc=$?", exe, script, args))
    local out = p:read("*a")
    p:close()
    return out
  end
  local out = run([[--set hex=0x10 --set id='"007"' --set n=1e5 --set w=nan]])
  T.contains(out, "hex=string:0x10")
  T.contains(out, "id=string:007")
  T.contains(out, "n=number:100000")
  T.contains(out, "w=string:nan")
  out = run("--set big=1e999")
  T.contains(out, "--set big=1e999: the value is a number beyond the range of a double")
  T.contains(out, "rc=2")
  out = run("--set frames=10 --set frames=20")
  T.contains(out, "--set frames is given twice ('frames=10' and 'frames=20')")
  T.contains(out, "rc=2")
end)

T.test("a fix and a drive on the same nodes warn that one of them is dropped", function()
  local w, b = bar_world()
  w:drive(b, cl.region.slab { axis = "x", below = -0.15 }, cl.motion.translate { velocity = { 0, 1, 0 } })
  local warned = false
  for _, x in ipairs(w:warnings()) do
    if x.status == "CL_WARN_OVERLAP" then
      warned = true
      T.contains(x.message, "already held by another condition")
      T.contains(x.message, "does not move them")
    end
  end
  T.truthy(warned, "CL_WARN_OVERLAP recorded")
end)

T.done()
