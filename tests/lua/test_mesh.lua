-- Meshes from Lua: shapes, from_arrays, tetrahedralize, boundary, write and read back, transforms,
-- sampling, carving, fields. Runs through `cleave run` and through plain luajit (LUA_PATH).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local tmp = T.tmpdir("mesh")

T.test("box surface: counts, bounds and enclosed volume", function()
  local box = cl.shape.box { size = { 0.4, 0.1, 0.2 } }
  local info = box:info()
  T.eq(info.kind, "triangles")
  T.truthy(info.points >= 8 and info.cells >= 12, "a box has at least 8 points and 12 triangles")
  T.near(info.lo[1], -0.2, 1e-12)
  T.near(info.hi[3], 0.1, 1e-12)
  T.near(info.measure, 0.4 * 0.1 * 0.2, 1e-12)
  T.truthy(box:is_closed(), "the box is closed")
  T.eq(box:components(), 1)
  T.truthy(box:contains { 0, 0, 0 }, "origin inside")
  T.truthy(not box:contains { 0.3, 0, 0 }, "outside point")
end)

T.test("shape centre moves the shape", function()
  local s = cl.shape.icosphere { radius = 0.5, subdivisions = 2, center = { 1, 2, 3 } }
  local info = s:info()
  T.near((info.lo[1] + info.hi[1]) / 2, 1, 1e-9)
  T.near((info.lo[3] + info.hi[3]) / 2, 3, 1e-9)
  T.near(info.hi[2] - info.lo[2], 1.0, 1e-9)
end)

T.test("every procedural shape builds a closed surface", function()
  for _, k in ipairs { "box", "plate", "cylinder", "icosphere", "hollow_sphere", "charpy", "notched_beam", "heart" } do
    local m = cl.shape[k] {}
    T.eq(m:info().kind, "triangles", k)
    T.truthy(m:info().measure > 0, k .. " encloses a positive volume")
    T.truthy(m:is_closed(), k .. " is closed")
  end
  local hollow = cl.shape.hollow_sphere { radius = 1, inner_radius = 0.5, subdivisions = 3 }
  T.near(hollow:info().measure, 4 / 3 * math.pi * (1 - 0.125), 0.05)
  T.eq(hollow:components(), 2, "two nested shells")
end)

T.test("points and cells come out 1-based in tables, 0-based in cdata", function()
  local m = cl.mesh.from_arrays { kind = "tets", points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } },
                                  cells = { { 1, 2, 3, 4 } } }
  local info = m:info()
  T.eq(info.kind, "tets")
  T.near(info.measure, 1 / 6, 1e-12)
  local cells = m:cells()
  T.eq(#cells, 1)
  T.eq(cells[1][1], 1)
  T.eq(cells[1][4], 4)
  local raw, n = m:cells("cdata")
  T.eq(n, 4)
  T.eq(raw[3], 3)
  local pts = m:points()
  T.eq(#pts, 4)
  T.eq(pts[2][1], 1)
  local flat = m:points("flat")
  T.eq(#flat, 12)
  T.eq(flat[12], 1)
end)

T.test("from_arrays accepts flat lists and point sets", function()
  local m = cl.mesh.from_arrays { kind = "triangles", points = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, cells = { 1, 2, 3 } }
  T.eq(m:info().cells, 1)
  local p = cl.mesh.from_arrays { kind = "points", points = { { 0, 0, 0 }, { 1, 1, 1 } } }
  T.eq(p:info().points, 2)
  T.eq(p:info().cells, 0)
  T.eq(#p:cells(), 0)
end)

T.test("tetrahedralize keeps the volume; boundary closes it again", function()
  local box = cl.shape.box { size = { 0.2, 0.1, 0.1 } }
  local tets = box:tetrahedralize { quality = 2, max_volume = 1e-5 }
  local info = tets:info()
  T.eq(info.kind, "tets")
  T.truthy(info.cells >= 200, "max_volume 1e-5 over 2e-3 m^3 needs >= 200 tets, got " .. info.cells)
  T.near(info.measure, 0.002, 1e-12)
  local surf = tets:boundary()
  T.eq(surf:info().kind, "triangles")
  T.near(surf:info().measure, 0.002, 1e-12)
  T.truthy(surf:is_closed(), "the boundary is closed")
  T.eq(tets:components(), 1)
end)

T.test("size zones grade a mesh: fine at a point or in a box, coarse away from it", function()
  local box = cl.shape.box { size = { 0.1, 0.1, 0.1 }, center = { 0.05, 0.05, 0.05 } }
  local graded = box:tetrahedralize { quality = 2, zones = { { center = { 0, 0, 0 }, size = 2e-3, growth = 0.3 } } }
  local p, c = graded:points("flat"), graded:cells("flat")
  local near, far = 0, math.huge
  for t = 0, #c / 4 - 1 do
    local g, lmax = { 0, 0, 0 }, 0
    for a = 1, 4 do
      for k = 1, 3 do g[k] = g[k] + 0.25 * p[3 * (c[4 * t + a] - 1) + k] end
      for b = a + 1, 4 do
        local e = 0
        for k = 1, 3 do e = e + (p[3 * (c[4 * t + a] - 1) + k] - p[3 * (c[4 * t + b] - 1) + k]) ^ 2 end
        lmax = math.max(lmax, math.sqrt(e))
      end
    end
    local d = math.sqrt(g[1] ^ 2 + g[2] ^ 2 + g[3] ^ 2)
    if d < 2e-3 then near = math.max(near, lmax) end
    if d > 0.12 then far = math.min(far, lmax) end
  end
  T.truthy(near <= 2e-3 * 1.3 and near > 0, "edges at the point: " .. near)
  T.truthy(far > 0.01, "edges far from it: " .. far)
  T.near(graded:info().measure, 1e-3, 1e-15)
  local slab = box:tetrahedralize { quality = 2, zones = { { lo = { 0, 0, 0.09 }, hi = { 0.1, 0.1, 0.1 }, size = 5e-3 } } }
  T.truthy(slab:info().cells > box:tetrahedralize { quality = 2 }:info().cells, "a slab zone adds tets")
  T.error(function() box:tetrahedralize { quality = 2, zones = { { center = { 0, 0, 0 } } } } end,
          { "zones[1]", "size" })
  T.error(function() box:tetrahedralize { quality = 2, zones = { { lo = { 0, 0, 0 }, size = 1 } } } end,
          { "zones[1]", "give lo and hi" })
  T.error(function() box:tetrahedralize { quality = 2, zones = { { lo = { 1, 0, 0 }, hi = { 0, 0, 0 }, size = 1 } } } end,
          { "zone 1", "lo[0] = 1 m is above hi[0] = 0 m" })
  T.error(function() box:tetrahedralize { quality = 2, zones = {} } end, { "zones must be a list" })
  T.error(function() box:tetrahedralize { quality = 0, zones = { { center = { 0, 0, 0 }, size = 1e-3 } } } end,
          { "need the quality refinement" })
end)

T.test("write and read back (.off, .obj, .node/.ele, .mesh)", function()
  local box = cl.shape.box { size = { 1, 2, 3 } }
  for _, ext in ipairs { "off", "obj" } do
    local path = tmp .. "/box." .. ext
    box:write(path)
    local back = cl.mesh.read(path)
    T.eq(back:info().points, box:info().points, ext)
    T.near(back:info().measure, 6, 1e-9, ext)
  end
  local tets = box:tetrahedralize {}
  for _, ext in ipairs { "node", "mesh" } do
    local path = tmp .. "/tets." .. ext
    tets:write(path)
    local back = cl.mesh.read(path)
    T.eq(back:info().kind, "tets", ext)
    T.eq(back:info().cells, tets:info().cells, ext)
    T.near(back:info().measure, 6, 1e-9, ext)
  end
  tets:set_field("id", "cell", 1, (function()
    local v = {}
    for i = 1, tets:info().cells do v[i] = i end
    return v
  end)())
  tets:write(tmp .. "/tets.vtu")
  local f = assert(io.open(tmp .. "/tets.vtu"))
  local text = f:read("*a")
  f:close()
  T.contains(text, "VTKFile")
  T.contains(text, 'Name="id"')
end)

T.test("fit, transform, translate, scale, rotate", function()
  local m = cl.shape.box { size = { 2, 1, 1 } }
  m:fit(1.0, { 5, 0, 0 })
  local info = m:info()
  T.near(info.hi[1] - info.lo[1], 1.0, 1e-12)
  T.near((info.hi[1] + info.lo[1]) / 2, 5, 1e-12)
  m:translate { -5, 0, 0 }:scale(2)
  info = m:info()
  T.near(info.hi[1], 1, 1e-12)
  T.near(info.measure, 2 * 1 * 1, 1e-9)
  m:rotate("z", math.pi / 2)
  info = m:info()
  T.near(info.hi[2], 1, 1e-9)
  T.near(info.hi[1], 0.5, 1e-9)
  -- a mirror keeps the volume positive (cells are flipped by the C side)
  m:transform { scale = { -1, 1, 1 } }
  T.near(m:info().measure, 2, 1e-9)
  m:transform { matrix = { { 1, 0, 0 }, { 0, 2, 0 }, { 0, 0, 1 } }, translate = { 0, 0, 1 } }
  T.near(m:info().measure, 4, 1e-9)
  T.near(m:info().hi[3], 1.5, 1e-9)
end)

T.test("sampling: poisson is reproducible, grid fills the box", function()
  local box = cl.shape.box { size = { 0.1, 0.1, 0.1 } }
  local a = box:sample { spacing = 0.02, seed = 7 }
  local b = box:sample { spacing = 0.02, seed = 7 }
  T.eq(a:info().kind, "points")
  T.eq(a:info().points, b:info().points, "same seed, same count")
  T.eq(a:points()[1][1], b:points()[1][1], "same seed, same samples")
  local g = box:sample { method = "grid", spacing = 0.02 }
  T.truthy(g:info().points >= 64, "a 0.1 m cube at 0.02 m holds at least 4^3 grid points")
end)

T.test("carve spheres removes tets", function()
  local tets = cl.shape.box { size = { 1, 1, 1 } }:tetrahedralize { max_volume = 1e-3 }
  local before = tets:info().measure
  tets:carve_spheres { centers = { { 0, 0, 0 } }, radii = { 0.3 } }
  local after = tets:info().measure
  T.truthy(after < before - 0.05, string.format("volume drops by about 4/3 pi 0.3^3 = 0.11 (%g -> %g)", before, after))
end)

T.test("copy is independent; destroy frees and later use is an error", function()
  local m = cl.shape.box {}
  local c = m:copy()
  m:scale(2)
  T.near(c:info().measure, 1, 1e-12)
  T.truthy(m:alive())
  m:destroy()
  T.truthy(not m:alive())
  m:destroy() -- twice is harmless
  T.error(function() m:info() end, "this mesh was destroyed")
  T.eq(tostring(m), "cl.mesh(destroyed)")
  T.near(c:info().measure, 1, 1e-12)
end)

T.test("mesh read errors carry the C message with file and line", function()
  local path = T.write_file(tmp .. "/bad.off", "OFF\n3 1 0\n0 0 0\n1 0 zero\n0 1 0\n3 0 1 2\n")
  T.error(function() cl.mesh.read(path) end, { path .. ":4:" })
  T.error(function() cl.mesh.read(tmp .. "/missing.off") end, { "missing.off" })
end)

T.done()
