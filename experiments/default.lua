-- The default experiment, run by `make run` (build/cleave run experiments/default.lua).
--
-- Until a solver lands this is the meshing pipeline every simulation starts from, on the two
-- bodies the later experiments break:
--   * the Stanford Armadillo (data/meshes/armadillo_6k.off, a closed 6,000-vertex surface),
--     scaled so its largest extent is 1 m, tetrahedralized by TetGen with radius-edge quality 2.0
--     (TetGen -pq2.0; about 148k tets, the size of the Galerkin-multigrid paper's armadillo);
--   * the ISO 148-1 Charpy V-notch specimen (55 x 10 x 10 mm, 2 mm deep 45-degree notch with a
--     0.25 mm root radius), tetrahedralized with quality 2.0 and max_volume 5e-10 m^3 (0.5 mm^3),
--     which gives about 30k tets: enough to resolve the notch root while staying quick.
-- It writes to out/default/ (change with --set out=...):
--   armadillo.vtu, charpy.vtu                 the tet meshes (open in ParaView)
--   armadillo_surface.vtu, charpy_surface.vtu  their boundary triangles
--   armadillo.png, charpy.png                 shaded snapshots of the boundaries (gnuplot)
--   meshes.csv                                counts, volumes and timings, one row per body
--   run.json                                  parameters, version, git revision, date, host
-- and prints a short summary. A later issue turns this into a real simulation.
--
-- Parameters (cleave run experiments/default.lua --set key=value): see `params` below.
local cl = require "cleave"

-- Inputs are found relative to this script, so it runs from any working directory.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local root = here .. "/.."

local params = cl.options {
  { name = "out", type = "string", default = "out/default", help = "output folder" },
  { name = "armadillo", type = "string", default = root .. "/data/meshes/armadillo_6k.off",
    help = "closed surface to mesh (.off .obj .stl)" },
  { name = "size", type = "number", default = 1.0, unit = "m", range = { 0, math.huge, "()" },
    help = "the armadillo's largest extent after scaling" },
  { name = "quality", type = "number", default = 2.0, unit = "1", range = { 1, 10 },
    help = "TetGen radius-edge ratio bound (-q) for both meshes" },
  { name = "charpy_max_volume", type = "number", default = 5e-10, unit = "m^3",
    range = { 0, math.huge, "[)" }, help = "largest Charpy tet volume (TetGen -a); 0 = unbounded" },
  { name = "snapshots", type = "boolean", default = true, help = "draw PNG snapshots with gnuplot" },
}

local now = cl.progress.now -- monotonic wall clock, s
local out = params.out
cl.output.mkdir(out)
local t_start = now()

-- Time one phase; returns what fn returns and records the seconds under `name`.
local timings = {}
local function timed(name, fn)
  local t0 = now()
  local a, b = fn()
  timings[name] = now() - t0
  return a, b
end

-- Mesh a closed surface, write the tets and their boundary, and report.
local function mesh_body(name, surface, tetgen)
  local s_info = surface:info()
  local tets = timed(name .. "_tetgen", function() return surface:tetrahedralize(tetgen) end)
  local boundary = tets:boundary()
  timed(name .. "_write", function()
    tets:write(out .. "/" .. name .. ".vtu")
    boundary:write(out .. "/" .. name .. "_surface.vtu")
  end)
  local t_info, b_info = tets:info(), boundary:info()
  return {
    name = name, tets = tets, boundary = boundary,
    points = t_info.points, cells = t_info.cells, boundary_triangles = b_info.cells,
    volume = t_info.measure, surface_volume = s_info.measure,
    extent = { t_info.hi[1] - t_info.lo[1], t_info.hi[2] - t_info.lo[2], t_info.hi[3] - t_info.lo[3] },
    tetgen_s = timings[name .. "_tetgen"], write_s = timings[name .. "_write"],
  }
end

-- the armadillo, 1 m tall
local armadillo_surface = timed("armadillo_read", function()
  return cl.mesh.read(params.armadillo):fit(params.size)
end)
local armadillo = mesh_body("armadillo", armadillo_surface, { quality = params.quality })

-- the Charpy specimen
local charpy = mesh_body("charpy", cl.shape.charpy {},
                         { quality = params.quality, max_volume = params.charpy_max_volume })

-- Shaded snapshots of the boundaries. The scenes are y-up; the armadillo faces -z, so it is
-- turned to face the viewer, seen a little from above; the bar is seen from above the notched
-- face so the V-notch reads.
local pictures = {}
if params.snapshots then
  if cl.plot.available() then
    local shots = {
      { body = armadillo, view = { 80, 205 }, color = "#d9c7a8", size = { 900, 900 },
        title = string.format("armadillo: %d tets", armadillo.cells) },
      { body = charpy, view = { 62, 22 }, color = "#b7c4d1", size = { 1100, 600 },
        title = string.format("Charpy V-notch specimen: %d tets", charpy.cells) },
    }
    for _, s in ipairs(shots) do
      local path = out .. "/" .. s.body.name .. ".png"
      timed(s.body.name .. "_snapshot", function()
        cl.plot.snapshot { surface = s.body.boundary, output = path, view = s.view, color = s.color,
                           size = s.size, title = s.title }
      end)
      pictures[#pictures + 1] = path
    end
  else
    io.stderr:write("default: gnuplot not found (install gnuplot-nox): no PNG snapshots\n")
  end
end

-- one row per body, and the run record
local csv = cl.output.csv(out .. "/meshes.csv",
  { "body", "points", "tets", "boundary_triangles", "volume_m3", "surface_volume_m3",
    "tetgen_s", "write_s" })
for _, b in ipairs { armadillo, charpy } do
  csv:row { b.name, b.points, b.cells, b.boundary_triangles, b.volume, b.surface_volume,
            b.tetgen_s, b.write_s }
end
csv:close()

local total = now() - t_start
local results = {}
for _, b in ipairs { armadillo, charpy } do
  results[b.name] = { points = b.points, tets = b.cells, boundary_triangles = b.boundary_triangles,
                      volume_m3 = b.volume, surface_volume_m3 = b.surface_volume,
                      extent_m = b.extent }
end
results.timings_s = timings
results.total_s = total
cl.runinfo.write(out, params, { extra = { results = results } })

-- summary
print(string.format("cleave %s (git %s): default experiment, meshing with TetGen", cl.version,
                    cl.git_revision))
for _, b in ipairs { armadillo, charpy } do
  -- TetGen keeps the input boundary (-p), so the tets fill exactly the surface's volume.
  local rel = math.abs(b.volume - b.surface_volume) / b.surface_volume
  print(string.format("  %-9s %7d points %8d tets %7d boundary triangles  volume %.6g m^3"
                      .. " (surface %.6g, rel. diff %.1e)  %.3g x %.3g x %.3g m  TetGen %.2f s",
                      b.name, b.points, b.cells, b.boundary_triangles, b.volume, b.surface_volume,
                      rel, b.extent[1], b.extent[2], b.extent[3], b.tetgen_s))
end
print(string.format("  wrote %s/{armadillo,charpy}{,_surface}.vtu, meshes.csv, run.json%s",
                    out, #pictures > 0 and ", armadillo.png, charpy.png" or ""))
print(string.format("  total %.2f s", total))
