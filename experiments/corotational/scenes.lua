-- Scenes for the corotational solver (issue 3, "Experiments"; docs/solvers/corotational.md): a
-- twisted bar (plastic, and tearing), a notched bar pulled apart (brittle and ductile), a hollow ball
-- dropped on the ground (brittle: shatters, ductile: dents) and a projectile through a plate
-- (brittle: a hole, ductile: the plate bends). One step of 1/60 s per frame; every scene writes VTU
-- frames, probes.csv, the parameters it ran with (run.json via world:run) and a shaded PNG snapshot.
--
--   local S = dofile(here .. "/scenes.lua")
--   S.main("twisted_bar")          -- options: frames, every, out, threads, snapshot, linear_solver
--
-- The projectile is a dynamic sphere collider (two-way: it slows down as it pushes the plate).
local cl = require "cleave"

local S = {}

local function box(size, max_volume)
  return cl.shape.box { size = size }:tetrahedralize { quality = 1.8, max_volume = max_volume }
end

-- name = { what, frames, build(scene options) -> world, body[, hooks {on_frame = f(frame, world), report = f()}] }
S.table = {}

local elastic = { density = 1000, young = 1e5, poisson = 0.3 }

local function twisted(fracture)
  return function(o)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, threads = o.threads }
    local material = { density = 1000, young = 1e5, poisson = 0.3,
                       plastic = { yield = 0.01, flow = 5, hardening = 0, max = fracture and 0.06 or 0 } }
    local body = w:body { name = "bar", shape = box({ 0.8, 0.1, 0.1 }, 4e-6), solver = "corotational",
                          material = material,
                          params = { damping = 2, linear_solver = o.linear_solver },
                          fracture = fracture and { criterion = "plastic_excess", toughness = 0.6 } or false }
    w:fix(body, cl.region.slab { axis = "x", below = -0.38 })
    -- half a turn in 2 s, then held for a second and let go; the tearing bar is turned on for 4 s
    w:drive(body, cl.region.slab { axis = "x", above = 0.38 },
            cl.motion.twist { axis = "x", rate = math.pi / 2, duration = fracture and 4 or 2, release = fracture and 5 or 3 })
    return w, body
  end
end

S.table.twisted_bar = {
  what = "a plastic bar twisted half a turn by one clamped end in 2 s, then let go: it keeps its twist",
  frames = 300, build = twisted(false),
}
S.table.twisted_bar_fracture = {
  what = "a bar whose plasticity is capped, twisted a full turn in 4 s: the excess plastic force tears it "
         .. "(thesis 5.6)",
  frames = 330, build = twisted(true),
}

local function notched(ductile)
  return function(o)
    local w = cl.world { dt = 1 / 60, gravity = { 0, 0, 0 }, threads = o.threads }
    local shape = cl.shape.notched_beam { size = { 0.6, 0.1, 0.1 }, notch_depth = 0.03, notch_width = 0, notch_angle = 45,
                                          notch_root_radius = 0.002 }
    local mesh = shape:tetrahedralize { quality = 1.8, max_volume = 5e-6 }
    local material = ductile and { density = 1000, young = 1e5, poisson = 0.3,
                                   plastic = { yield = 0.02, flow = 10, hardening = 0.05, max = 0.3 } } or elastic
    local fracture = ductile and { criterion = "plastic_excess", toughness = 0.5, largest_only = true }
                     or { criterion = "separation_tensor", toughness = 1.5, largest_only = false }
    local body = w:body { name = "notched", mesh = mesh, solver = "corotational", material = material,
                          params = { damping = 1, linear_solver = o.linear_solver }, fracture = fracture }
    local pull = 0.05
    w:drive(body, cl.region.slab { axis = "x", below = -0.28 }, cl.motion.translate { velocity = { -pull, 0, 0 } })
    w:drive(body, cl.region.slab { axis = "x", above = 0.28 }, cl.motion.translate { velocity = { pull, 0, 0 } })
    return w, body
  end
end

S.table.notched_bar_brittle = {
  what = "an elastic notched bar pulled apart at 0.1 m/s: separation-tensor fracture starts at the notch and "
         .. "runs straight across (brittle)",
  frames = 180, build = notched(false),
}
S.table.notched_bar_ductile = {
  what = "the same bar, plastic with a capped flow: it necks at the notch and tears by plastic excess (ductile)",
  frames = 300, build = notched(true),
}

-- The hollow balls (outer radius 0.15 m, inner 0.11 m: a 4 cm shell, 8.6 kg of a soft solid).
-- The brittle one is tuned to shatter into a few large pieces instead of crumbling at the contact
-- (measured at 90 frames: docs/solvers/corotational.md, "Experiments"). What decided it:
--  * Mesh resolution. The separation tensor (thesis eq 5.7) has no length scale: every node near the
--    contact whose tensile load exceeds the toughness splits in the same step (largest_only = false), so a
--    mesh with 3 elements through the shell (max_volume 4e-6, 5.5k nodes) turned the contact patch into
--    hundreds of single-tet crumbs whatever the toughness (2.5: ~440 crumbs; 4 to 10: from 85 crumbs to
--    none, the ball only bounced; with E = 2e6 and toughness 20: 64 crumbs). With about one element
--    through the shell (subdivisions 2, max_volume 1.5e-5, 1.3k nodes) a split at a node cuts the
--    whole wall, so a crack runs along the shell from node to node: the mesh size is the fragment
--    size scale, as the crack spacing in a real brittle shell is set by its thickness.
--  * Toughness 8 N (separation-tensor eigenvalue per node): 6 broke it on the second bounce, 10 did
--    not break it; 8 leaves large pieces and a few chips.
--  * Drop height 0.75 m (3.8 m/s at impact) instead of 0.25 m: enough energy (64 J) to run the
--    cracks through the wall on the first impact.
--  * All events above the toughness per step (largest_only = false): with only the largest event per
--    step (the thesis's choice) a crack grows one node per step, and the ~6 steps of contact do not
--    separate anything.
--  * Four substeps: at 1/60 s the ball moved 6 cm (more than the wall) per solve at impact and the
--    contact projection crushed the first layer of elements, which added to the crumbling.
-- The ductile ball keeps the finer mesh and the 0.25 m drop: it must dent, not break.
S.hollow = {
  brittle = { substeps = 4, toughness = 8, largest_only = false, center_y = 0.9, subdivisions = 2, max_volume = 1.5e-5,
              young = 2e5 },
  ductile = { substeps = 1, center_y = 0.4, subdivisions = 3, max_volume = 4e-6, young = 2e5 },
}

local function hollow(ductile)
  return function(o)
    local h = ductile and S.hollow.ductile or S.hollow.brittle
    local w = cl.world { dt = 1 / 60, substeps = h.substeps, gravity = { 0, -9.81, 0 }, threads = o.threads }
    local mesh = cl.shape.hollow_sphere { radius = 0.15, inner_radius = 0.11, subdivisions = h.subdivisions,
                                          center = { 0, h.center_y, 0 } }
                   :tetrahedralize { quality = 1.8, max_volume = h.max_volume }
    local material = ductile and { density = 1000, young = h.young, poisson = 0.3,
                                   plastic = { yield = 0.03, flow = 60, hardening = 0.5, max = 0 } } or
                     { density = 1000, young = h.young, poisson = 0.3 }
    local body = w:body { name = "ball", mesh = mesh, solver = "corotational", material = material,
                          params = { damping = 0.5, linear_solver = o.linear_solver },
                          fracture = not ductile and { criterion = "separation_tensor", toughness = h.toughness,
                                                       largest_only = h.largest_only } or false }
    w:collider { kind = "plane", center = { 0, 0, 0 }, normal = "y", friction = 0.3, restitution = 0 }
    return w, body, { report = function() print("  " .. S.piece_summary(body)) end }
  end
end

S.table.hollow_ball_brittle = {
  what = "a hollow ball dropped from 0.75 m onto the ground: brittle, it shatters into a few large pieces", frames = 90,
  build = hollow(false),
}
S.table.hollow_ball_ductile = {
  what = "a finer-meshed hollow ball dropped from 0.25 m, plastic: it dents and stays dented", frames = 90,
  build = hollow(true),
}

-- Volumes (m^3) of the body's pieces, largest first, from its surface: the connected components of
-- the surface triangles (fracture leaves every piece closed), each enclosing the signed volume
-- sum a . (b x c) / 6 over its triangles. A cavity's surface (the inside of the hollow ball) is a
-- component of its own with a negative volume: it is taken off the smallest piece whose bounding
-- box holds it.
function S.piece_volumes(body)
  local surf = body:surface()
  local x, tris = surf:points(), surf:cells()
  surf:destroy()
  local parent = {}
  local function find(i)
    while parent[i] ~= i do
      parent[i] = parent[parent[i]]
      i = parent[i]
    end
    return i
  end
  for _, t in ipairs(tris) do
    for k = 1, 3 do parent[t[k]] = parent[t[k]] or t[k] end
    local r = find(t[1])
    for k = 2, 3 do
      local q = find(t[k])
      if q ~= r then parent[q] = r end
    end
  end
  local comp = {}
  for _, t in ipairs(tris) do
    local a, b, c = x[t[1]], x[t[2]], x[t[3]]
    local r = find(t[1])
    local cp = comp[r]
    if not cp then
      cp = { v = 0, lo = { a[1], a[2], a[3] }, hi = { a[1], a[2], a[3] } }
      comp[r] = cp
    end
    cp.v = cp.v + (a[1] * (b[2] * c[3] - b[3] * c[2]) - a[2] * (b[1] * c[3] - b[3] * c[1])
                   + a[3] * (b[1] * c[2] - b[2] * c[1])) / 6
    for _, p in ipairs({ a, b, c }) do
      for k = 1, 3 do
        cp.lo[k], cp.hi[k] = math.min(cp.lo[k], p[k]), math.max(cp.hi[k], p[k])
      end
    end
  end
  local solids, cavities = {}, {}
  for _, cp in pairs(comp) do
    if cp.v >= 0 then solids[#solids + 1] = cp else cavities[#cavities + 1] = cp end
  end
  table.sort(solids, function(p, q) return p.v < q.v end)
  for _, cv in ipairs(cavities) do
    for _, sd in ipairs(solids) do
      local inside = true
      for k = 1, 3 do inside = inside and sd.lo[k] <= cv.lo[k] and cv.hi[k] <= sd.hi[k] end
      if inside then
        sd.v = sd.v + cv.v
        break
      end
    end
  end
  local out = {}
  for _, sd in ipairs(solids) do out[#out + 1] = sd.v end
  table.sort(out, function(p, q) return p > q end)
  return out
end

-- "n pieces; largest: 61%, 12%, ... of the volume; k pieces under 1%"
function S.piece_summary(body, shown)
  local v = S.piece_volumes(body)
  local total, small = 0, 0
  for _, x in ipairs(v) do total = total + x end
  local parts = {}
  for i, x in ipairs(v) do
    if i <= (shown or 6) then parts[#parts + 1] = string.format("%.1f%%", 100 * x / total) end
    if x < 0.01 * total then small = small + 1 end
  end
  return string.format("%d pieces; largest %s of the volume; %d pieces under 1%%", #v, table.concat(parts, ", "), small)
end

-- The projectile is a dynamic rigid sphere (docs/RIGID_BODIES.md): it pays for every impulse it
-- gives the plate, so it slows down. Radius 0.08 m and 4 kg (a mean density of 1870 kg/m^3, about
-- 1.9 times the plate's: a hard rubber or stone ball) at 2 m/s: 8 J against a 10.8 kg plate of a
-- soft solid (E = 2e5 Pa). It goes through the brittle plate and is stopped (and thrown back) by the
-- ductile one, which keeps the dent. Four substeps: the ball then advances 0.8 cm per solve, about
-- half an element (the mesh's edges are ~1.5 cm) and a quarter of the plate's thickness. With two
-- substeps (1.7 cm) the node-contact projection pushed nodes through more than an element per solve
-- and the elastic energy of the plate grew to 5x the ball's kinetic energy; with four, the total
-- energy (ball + plate kinetic + elastic) only decreases, as it must with restitution 0 and damping.
local projectile = { radius = 0.08, mass = 4.0, speed = 2.0, z0 = 0.11 }

-- Mean displacement along z (m) of the plate's nodes within 0.15 m of its centre axis.
local function deflection(body)
  local x, X = body:positions(), body:rest_positions()
  local sum, n = 0, 0
  for i = 1, #x do
    if X[i][1] ^ 2 + X[i][2] ^ 2 < 0.15 ^ 2 then sum, n = sum + (x[i][3] - X[i][3]), n + 1 end
  end
  return sum / math.max(n, 1)
end

-- on_frame / report hooks for the projectile scenes: the projectile's speed before and after, the
-- plate's deflection every 10 frames (a permanent bend stays once the ball has left), plastic strain.
local function projectile_report(ball, body, ductile)
  local speed = function()
    local v = ball:velocity()
    return math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2)
  end
  local v0, vmin, history = speed(), speed(), {}
  return {
    projectile = ball,
    on_frame = function(frame)
      vmin = math.min(vmin, speed())
      if ductile and frame % 10 == 0 then history[#history + 1] = string.format("%.3f", deflection(body)) end
    end,
    report = function()
      local c, v1, vz = ball:center(), speed(), ball:velocity()[3]
      local m = projectile.mass
      print(string.format("  projectile: %.3f m/s before, %.3f m/s after (v_z %.3f m/s; slowest %.3f m/s), centre at "
                          .. "z = %.3f m; kinetic energy %.2f J -> %.2f J", v0, v1, vz, vmin, c[3],
                          0.5 * m * v0 ^ 2, 0.5 * m * v1 ^ 2))
      if ductile then
        -- the plate's middle (its debris would fly with the ball in the brittle case)
        local ep, epmax = body:unit_field("plastic_strain"), 0
        for e = 1, #ep do
          local s2 = 0
          for k = 1, 9 do s2 = s2 + ep[e][k] ^ 2 end
          epmax = math.max(epmax, math.sqrt(s2))
        end
        print(string.format("  plate: mean deflection of the middle (r < 0.15 m) every 10 frames: %s m; now %.4f m; "
                            .. "largest plastic strain %.3f (the bend is permanent)", table.concat(history, ", "),
                            deflection(body), epmax))
      end
      print("  " .. S.piece_summary(body))
    end,
  }
end

local function plate(ductile)
  return function(o)
    local w = cl.world { dt = 1 / 60, substeps = 4, gravity = { 0, 0, 0 }, threads = o.threads }
    local mesh = box({ 0.6, 0.6, 0.03 }, 2e-6)
    local material = ductile and { density = 1000, young = 2e5, poisson = 0.3,
                                   plastic = { yield = 0.01, flow = 30, hardening = 0, max = 0.4 } } or
                     { density = 1000, young = 2e5, poisson = 0.3 }
    -- brittle toughness 2: with 0.3 (the value for the old 0.6 m/s kinematic ball) the 8 J impact
    -- turned the plate into ~500 specks within 20 frames; with 2 it punches a hole (~70 pieces: the
    -- plate, the plug the ball carries on and chips from the rim) and the ball goes through
    local fracture = ductile and { criterion = "plastic_excess", toughness = 0.3 }
                     or { criterion = "separation_tensor", toughness = 2.0, largest_only = false }
    local body = w:body { name = "plate", mesh = mesh, solver = "corotational", material = material,
                          params = { damping = 1, linear_solver = o.linear_solver }, fracture = fracture }
    w:fix(body, cl.region.slab { axis = "x", below = -0.29 })
    w:fix(body, cl.region.slab { axis = "x", above = 0.29 })
    local pr = projectile
    local ball = w:collider { kind = "sphere", radius = pr.radius, center = { 0, 0, pr.z0 },
                              velocity = { 0, 0, -pr.speed }, dynamic = true, mass = pr.mass, friction = 0.3 }
    return w, body, projectile_report(ball, body, ductile)
  end
end

S.table.projectile_plate_brittle = {
  what = "a dynamic sphere (r 0.08 m, 4 kg, 2 m/s) through a brittle plate clamped at two edges: a hole",
  frames = 60, build = plate(false),
}
S.table.projectile_plate_ductile = {
  what = "the same projectile into a plastic plate: the plate stops it and throws it back, and keeps a 5 cm dent",
  frames = 60, build = plate(true),
}

function S.main(name)
  local sc = assert(S.table[name], "unknown scene " .. tostring(name))
  local p = cl.options {
    { name = "frames", type = "integer", default = sc.frames, range = { 1, 1e6 }, help = "frames of 1/60 s" },
    { name = "every", type = "integer", default = 10, range = { 1, 1e6 }, help = "write VTU every this many frames" },
    { name = "out", type = "string", default = "out/corotational/" .. name, help = "output folder" },
    { name = "threads", type = "integer", default = 0, range = { 0, 1024 }, help = "OpenMP threads (0 = all)" },
    { name = "linear_solver", type = "enum", values = { "pcg", "cholmod" }, index_from = 0, default = "pcg",
      help = "the corotational solver's linear solver" },
    { name = "snapshot", type = "boolean", default = true, help = "draw a PNG snapshot of the last frame" },
  }
  local world, body, hooks = sc.build(p)
  hooks = hooks or {}
  local info0 = body:info()
  print(string.format("%s: %s", name, sc.what))
  print(string.format("  %d nodes, %d tets, %d frames of 1/60 s", info0.nodes, info0.units, p.frames))
  local run = world:run { frames = p.frames, every = p.every, output = p.out,
                          probes = { pieces = cl.probe.pieces(body), volume = cl.probe.volume(body),
                                     kinetic = cl.probe.kinetic(body), elastic = cl.probe.elastic(body),
                                     phases = cl.probe.phase_time() },
                          on_frame = hooks.on_frame }
  local info = body:info()
  print(string.format("  after %.2f s: %d nodes (%d added by fracture), %d pieces, volume %.4g m^3, "
                      .. "last step %.1f ms, %d CG iterations", run.stats.time, info.nodes, info.nodes - info0.nodes,
                      info.pieces, run.probes.volume[#run.probes.volume], run.stats.step_ms, run.stats.iterations))
  if hooks.report then hooks.report() end
  if p.snapshot then
    local png = p.out .. "/" .. name .. ".png"
    local ok, err = pcall(cl.plot.snapshot, { surface = body, output = png,
                                             title = string.format("%s, t = %.2f s", name, run.stats.time) })
    print(ok and ("  snapshot " .. png) or ("  snapshot failed: " .. tostring(err)))
  end
  return world, body, run
end

return S
