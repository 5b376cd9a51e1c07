-- cleave.plot: gnuplot driven through a pipe. Each figure must come out as a real, non-empty
-- image (PNG signature, plausible size); gnuplot's own errors must reach the script as Lua errors
-- at the caller's line; bad arguments are caught before gnuplot runs.
-- Runs through `cleave run` and plain luajit with LUA_PATH at lua/ (no FFI core needed).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/../../lua/?.lua;" .. package.path
local T = require "expect"
local plot = require "cleave.plot"

local PNG_SIGNATURE = "\137PNG\r\n\26\n"

local read = T.read_file

-- PNG width and height from the IHDR chunk (big-endian words at bytes 17..24).
local function png_size(s)
  local function be32(i)
    local a, b, c, d = s:byte(i, i + 3)
    return ((a * 256 + b) * 256 + c) * 256 + d
  end
  return be32(17), be32(21)
end

local function check_png(path, w, h, min_bytes)
  local s = read(path)
  T.truthy(s, path .. " was written")
  T.eq(s:sub(1, 8), PNG_SIGNATURE, "PNG signature")
  T.eq(s:sub(13, 16), "IHDR", "IHDR chunk first")
  local pw, ph = png_size(s)
  T.eq(pw, w, "width")
  T.eq(ph, h, "height")
  T.truthy(#s > (min_bytes or 2000), "a non-trivial image (" .. #s .. " bytes)")
  return s
end

if not plot.available() then
  T.skip("every plot test", "gnuplot is not installed (apt install gnuplot-nox)")
  T.done()
  return
end

local dir = T.tmpdir("plot")

-- An icosphere from plain Lua tables: 12 * 4^levels / ... vertices, 20 * 4^levels triangles,
-- counter-clockwise seen from outside, 0-based indices.
local function icosphere(levels)
  local t = (1 + math.sqrt(5)) / 2
  local P = { { -1, t, 0 }, { 1, t, 0 }, { -1, -t, 0 }, { 1, -t, 0 }, { 0, -1, t }, { 0, 1, t },
              { 0, -1, -t }, { 0, 1, -t }, { t, 0, -1 }, { t, 0, 1 }, { -t, 0, -1 }, { -t, 0, 1 } }
  local F = { { 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 }, { 0, 10, 11 }, { 1, 5, 9 },
              { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 }, { 3, 9, 4 }, { 3, 4, 2 },
              { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 }, { 4, 9, 5 }, { 2, 4, 11 }, { 6, 2, 10 },
              { 8, 6, 7 }, { 9, 8, 1 } }
  local function unit(p)
    local l = math.sqrt(p[1] ^ 2 + p[2] ^ 2 + p[3] ^ 2)
    return { p[1] / l, p[2] / l, p[3] / l }
  end
  for i, p in ipairs(P) do P[i] = unit(p) end
  for _ = 1, levels do
    local cache, F2 = {}, {}
    local function mid(a, b)
      local key = a < b and a * 65536 + b or b * 65536 + a
      if not cache[key] then
        local pa, pb = P[a + 1], P[b + 1]
        P[#P + 1] = unit { pa[1] + pb[1], pa[2] + pb[2], pa[3] + pb[3] }
        cache[key] = #P - 1
      end
      return cache[key]
    end
    for _, f in ipairs(F) do
      local ab, bc, ca = mid(f[1], f[2]), mid(f[2], f[3]), mid(f[3], f[1])
      F2[#F2 + 1] = { f[1], ab, ca }
      F2[#F2 + 1] = { f[2], bc, ab }
      F2[#F2 + 1] = { f[3], ca, bc }
      F2[#F2 + 1] = { ab, bc, ca }
    end
    F = F2
  end
  return P, F
end

T.test("the shared style plots/style.gp is found and loaded", function()
  T.truthy(plot.style, "plot.style is set")
  T.matches(plot.style, "plots/style%.gp$")
  local f = io.open(plot.style)
  T.truthy(f, "the style file exists")
  if f then f:close() end
end)

T.test("lines: several series, labels, log axes, PNG of the requested size", function()
  local x, y1, y2 = {}, {}, {}
  for i = 1, 50 do
    x[i] = i / 10
    y1[i] = math.exp(-x[i])
    y2[i] = 1 / (x[i] * x[i])
  end
  local out = dir .. "/new/sub/lines.png"
  os.execute("rm -rf '" .. dir .. "/new'")
  local path = plot.lines {
    series = { { x = x, y = y1, title = "exp(-x)" },
               { x = x, y = y2, title = "1/x^2 (it's dashed)", style = "dashed", color = "#D55E00" },
               { x = x, y = y1, title = "points", style = "points" } },
    xlabel = "x [m]", ylabel = "y_min [N]", title = "decay", logx = true, logy = true,
    xrange = { 0.1, nil }, output = out, size = { 640, 400 }, key = "bottom left",
  }
  T.eq(path, out)
  check_png(out, 640, 400, 5000)
end)

T.test("lines: a band (experimental envelope) under a simulated curve", function()
  local x, lo, hi, sim = {}, {}, {}, {}
  for i = 1, 200 do
    local c = (i - 1) * 0.002
    x[i] = c
    local peak = 1000 * c / 0.05 * math.exp(1 - c / 0.05)
    lo[i], hi[i] = 0.9 * peak, 1.1 * peak
    sim[i] = peak * (1 + 0.03 * math.sin(40 * c))
  end
  local out = dir .. "/band.png"
  plot.lines {
    series = { { x = x, y = sim, title = "simulation" },
               { kind = "band", x = x, ylo = lo, yhi = hi, title = "experiment", color = "#999999" } },
    xlabel = "CMOD [mm]", ylabel = "load [N]", output = out,
  }
  check_png(out, 800, 500, 5000)
  -- the short form used in the design notes
  local out2 = dir .. "/series.png"
  plot.series { x, sim, title = "load", output = out2, xlabel = "CMOD [mm]" }
  check_png(out2, 800, 500)
end)

T.test("bars: clustered and stacked bar charts", function()
  local labels = { "forces", "solve", "measure", "criteria", "topology" }
  local out = dir .. "/bars.png"
  plot.bars {
    labels = labels,
    groups = { { title = "1 thread", values = { 0.3, 12.5, 1.1, 0.4, 0.05 } },
               { title = "2 threads", values = { 0.2, 7.1, 0.7, 0.3, 0.05 } } },
    ylabel = "ms per frame", title = "phase timings", output = out, size = { 700, 450 },
  }
  check_png(out, 700, 450, 4000)
  local out2 = dir .. "/bars_stacked.png"
  plot.bars { labels = { "a", "b" }, groups = { { values = { 1, 2 } }, { values = { 3, 4 } } },
              stacked = true, output = out2 }
  check_png(out2, 800, 500)
end)

T.test("other formats: PDF and SVG", function()
  local x, y = { 1, 2, 3 }, { 1, 4, 9 }
  local pdf = read(plot.lines { series = { { x = x, y = y } }, output = dir .. "/f.pdf" })
  T.eq(pdf:sub(1, 5), "%PDF-")
  local svg = read(plot.lines { series = { { x = x, y = y } }, output = dir .. "/f.svg" })
  T.contains(svg, "<svg")
end)

T.test("snapshot: a closed icosphere of plain tables, shaded, back faces culled", function()
  local P, F = icosphere(3) -- 1280 triangles
  local out = dir .. "/ico.png"
  local path, warnings, st = plot.snapshot { points = P, triangles = F, output = out,
                                             size = { 400, 300 }, title = "icosphere" }
  T.eq(path, out)
  T.eq(warnings, nil)
  T.eq(st.triangles, 1280)
  T.truthy(st.culled, "a closed, consistently oriented surface has its back faces dropped")
  T.truthy(st.drawn > 500 and st.drawn < 800, "about half the triangles face the viewer, got " .. st.drawn)
  local png = check_png(out, 400, 300, 10000)
  -- 1-based flat indices and flat points (the layout mesh:points("flat")/cells("flat") give)
  local flatP, flatF = {}, {}
  for _, p in ipairs(P) do for k = 1, 3 do flatP[#flatP + 1] = p[k] end end
  for _, f in ipairs(F) do for k = 1, 3 do flatF[#flatF + 1] = f[k] + 1 end end
  local out2 = dir .. "/ico_flat.png"
  local _, _, st2 = plot.snapshot { points = flatP, triangles = flatF, output = out2, size = { 400, 300 },
                                    title = "icosphere" }
  T.eq(st2.drawn, st.drawn)
  T.eq(read(out2), png, "the same mesh in either layout gives the same picture")
  -- inside-out (clockwise) orientation: still culled correctly (same visible set)
  local inv = {}
  for i, f in ipairs(F) do inv[i] = { f[1], f[3], f[2] } end
  local _, _, st3 = plot.snapshot { points = P, triangles = inv, output = dir .. "/ico_inv.png",
                                    size = { 400, 300 } }
  T.truthy(st3.culled)
  T.eq(st3.drawn, st.drawn, "orientation is detected from the signed volume")
end)

T.test("snapshot: an open surface is drawn two-sided without culling", function()
  local P, F = icosphere(2)
  local half = {}
  for _, f in ipairs(F) do
    if P[f[1] + 1][2] > 0 and P[f[2] + 1][2] > 0 and P[f[3] + 1][2] > 0 then half[#half + 1] = f end
  end
  local _, _, st = plot.snapshot { points = P, triangles = half, output = dir .. "/dome.png",
                                   view = { 60, 30 }, up = "z", light = { 0, 1, 1 } }
  T.eq(st.culled, false)
  T.eq(st.drawn, #half)
  check_png(dir .. "/dome.png", 900, 900)
end)

T.test("snapshot: a cleave mesh handle (1-based cells, unused interior points)", function()
  local cl = require "cleave"
  local sphere = cl.shape.icosphere { subdivisions = 2 }
  local _, _, st = plot.snapshot { surface = sphere, output = dir .. "/cl_sphere.png", size = { 300, 300 } }
  T.eq(st.triangles, sphere:info().cells)
  T.truthy(st.culled, "closed surface detected through the handle")
  -- the boundary of a tet mesh keeps the tet numbering: interior points are unused
  local tets = cl.shape.box {}:tetrahedralize { quality = 2, max_volume = 0.01 }
  local boundary = tets:boundary()
  T.truthy(boundary:info().points > 8)
  local _, _, st2 = plot.snapshot { surface = boundary, output = dir .. "/cl_box.png", size = { 300, 300 } }
  T.truthy(st2.culled)
  T.eq(st2.triangles, boundary:info().cells)
  check_png(dir .. "/cl_box.png", 300, 300, 1000)
  T.error(function() plot.snapshot { surface = tets, output = dir .. "/x.png" } end,
          "must be a triangle mesh, got a mesh of tets")
end)

-- Large surfaces: every triangle is sent and drawn (how fast is a benchmark's business, not a test's).
T.test("snapshot: ~80k triangles, the back half culled", function()
  local P, F = icosphere(6) -- 81920 triangles
  local _, _, st = plot.snapshot { points = P, triangles = F, output = dir .. "/big.png" }
  T.eq(st.triangles, 81920)
  -- a closed, consistently oriented sphere: back faces are dropped, about half the triangles drawn
  T.truthy(st.culled)
  T.truthy(st.drawn > 30000 and st.drawn < 50000, "drawn " .. tostring(st.drawn))
  check_png(dir .. "/big.png", 900, 900, 20000)
end)

T.test("gnuplot's own errors surface as Lua errors at the caller's line", function()
  local out = dir .. "/bad.png"
  local msg = T.error(function()
    plot.lines { series = { { x = { 1, 2 }, y = { 1, 2 } } }, output = out,
                 commands = { "set frobnicate 3" } }
  end, { "plot.lines: gnuplot failed", "bad.png", "frobnicate" })
  T.contains(msg, "exit status 1")
  T.eq(read(out), nil, "no half-written figure is left behind")
  T.error(function()
    plot.lines { series = { { x = { 1, 2 }, y = { 1, 2 }, style = "with linez" } }, output = out }
  end, "gnuplot failed")
end)

T.test("gnuplot warnings come back as a second value, the figure is still drawn", function()
  local out = dir .. "/warn.png"
  -- constant data: gnuplot warns that the autoscaled y range is empty and widens it
  local path, warnings = plot.lines { series = { { x = { 1, 2 }, y = { 2, 2 } } }, output = out }
  T.eq(path, out)
  T.truthy(type(warnings) == "table" and #warnings >= 1, "a warning was returned")
  T.contains(table.concat(warnings, "\n"), "empty y range")
  check_png(out, 800, 500)
end)

T.test("bad arguments are caught before gnuplot runs", function()
  local s = { { x = { 1, 2, 3 }, y = { 1, 2, 3 } } }
  T.error(function() plot.lines { series = s } end, "output must name the figure file")
  T.error(function() plot.lines { series = s, output = dir .. "/x.jpg" } end, "extension must be .png, .pdf or .svg")
  T.error(function() plot.lines { series = {}, output = dir .. "/x.png" } end, "series must be a non-empty list")
  T.error(function() plot.lines { series = { { x = { 1, 2 }, y = { 1 } } }, output = dir .. "/x.png" } end,
          "y has 1 values but x has 2")
  T.error(function()
    plot.lines { series = { { x = { 1, 2 }, y = { 0, 1 }, title = "err" } }, logy = true, output = dir .. "/x.png" }
  end, { "series[1] ('err').y[1] = 0", "logarithmic" })
  T.error(function() plot.lines { series = { { x = { 1, "a" }, y = { 1, 2 } } }, output = dir .. "/x.png" } end,
          "x[2] is a, not a number")
  T.error(function() plot.lines { series = s, output = dir .. "/x.png", xrange = { 2, 1 } } end, "lo must be below hi")
  T.error(function() plot.lines { series = { { x = { 1 }, y = { 1 }, style = "wiggly" } }, output = dir .. "/x.png" } end,
          "style 'wiggly' is not one of")
  T.error(function() plot.lines { series = { { kind = "band", x = { 1 }, ylo = { 1 } } }, output = dir .. "/x.png" } end,
          "has no yhi")
  T.error(function() plot.bars { labels = { "a", "b" }, groups = { { values = { 1 } } }, output = dir .. "/x.png" } end,
          "has 1 values but there are 2 labels")
  T.error(function() plot.snapshot { points = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 0, 1, 3 }, output = dir .. "/x.png" } end,
          "triangle indices span [0, 3]")
  T.error(function() plot.snapshot { points = { 0, 0, 0, 1, 0 }, triangles = { 0, 1, 2 }, output = dir .. "/x.png" } end,
          "3 numbers per point")
  T.error(function() plot.snapshot { output = dir .. "/x.png" } end, "give points= and triangles=")
  T.error(function() plot.lines "x" end, "expected a table of options")
end)

T.test("a missing gnuplot is a clear error", function()
  local saved = plot.gnuplot
  plot.gnuplot = "/nonexistent/bin/gnuplot"
  T.error(function() plot.lines { series = { { x = { 1 }, y = { 1 } } }, output = dir .. "/y.png" } end,
          "gnuplot not found: install gnuplot-nox")
  plot.gnuplot = saved
  T.truthy(plot.available())
end)

T.done()
