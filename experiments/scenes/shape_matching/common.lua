-- What the shape-matching scenes share: the scenes of Jones, Martin, Levine, Shinar and Bargteil,
-- "Ductile Fracture for Clustered Shape Matching" (I3D 2016), for cleave's shape_matching solver.
-- One step of 1/60 s per frame.
--
-- Each scene is the authors' scene file (their public code, strainLimitingForClusteredShapeMatching
-- at commit e53fde1, inputFiles/*.json) rebuilt: the extents, particle counts and loads of their
-- particle files and scene files (gravity, held regions, moving planes, projectiles with their
-- momentum kick, collision restitution, delayRepeatedFracture), and their parameters (cluster radius
-- r and count k, alpha, omega, strain-limiting iterations, gamma, damping, toughness with boost and
-- falloff, yield / flow / hardening). The particle sets are ours: the same shapes and extents,
-- Poisson-disk sampled to the same counts (docs/solvers/shape_matching.md, "The authors' scenes").
-- Three units differ from their files (docs/solvers/shape_matching.md):
--   * damping: the authors' springDamping f is a fraction per frame; the solver takes a rate,
--     damping = -60 ln(1 - f) 1/s (C.rate below);
--   * flow: the authors' flow rate nu is a fraction per frame (eq 13); the material takes a rate,
--     flow = 60 nu 1/s, which gives eq 13 the same nu at one step of 1/60 s per frame;
--   * the hardening variable is integrated over time in units of 1/60 s, so K keeps its meaning.
-- bench/bench_shape_matching.c times these very scenes: it builds them from these files.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local P = dofile(here .. "/../params.lua")

local C = { P = P }

local inf = math.huge

C.root = here .. "/../../.."

-- springDamping f (fraction per 1/60 s frame) as the solver's damping rate, 1/s
function C.rate(f) return -60 * math.log(1 - f) end

-- The parameter entries of a paper scene, defaults from its scene file:
-- { particles, r, k, alpha, omega, iterations, gamma, damping (fraction), toughness, boost, falloff
--   (toughness nil: no fracture), yield, flow, hardening (yield nil: elastic), frames, gravity }.
function C.paper(d)
  local num, int = P.number, P.integer
  return {
    num("alpha", "material", d.alpha, "1", { 0, 1 }, "goal stiffness: fraction of the way to the goal per step"),
    num("gamma", "material", d.gamma, "1", { 0, 1000 }, "strain limit: largest goal distance over cluster width"),
    num("damping", "material", d.damping, "1", { 0, 1, "[)" },
        "the authors' springDamping: fraction of the velocity relaxed per 1/60 s frame"),
    num("yield", "material", d.yield or inf, "1", { 0, inf, "[]" }, "plastic yield threshold; inf = elastic"),
    num("flow", "material", d.flow or 0, "1/s", { 0, inf, "[)" },
        "plastic flow rate k (eq 13 with nu = k dt: the authors' nu per 1/60 s frame times 60)"),
    num("hardening", "material", d.hardening or 0, "1", { -inf, inf, "()" }, "work hardening K"),
    { name = "criterion", group = "fracture", type = "enum", default = d.toughness and "cluster_stretch" or "none",
      values = { "none", "cluster_stretch" }, help = "fracture criterion (none = the body never breaks)" },
    num("toughness", "fracture", d.toughness or 0.1, "1", { 0, 1e9 },
        "stretch threshold tau_0 on Sigma_max - 1 of a cluster's F (a strain)"),
    num("boost", "fracture", d.boost or 0, "1", { 0, 1e6 }, "toughness boost tau_b after a break (eq 16)"),
    num("falloff", "fracture", d.falloff or 0, "1/s", { 0, 1e9 }, "decay rate tau_f of the boost (eq 16)"),
    { name = "relax", group = "fracture", type = "boolean", default = d.relax ~= false,
      help = "a cluster that broke breaks again only after its stretch fell below the toughness (the authors' " ..
             "delayRepeatedFracture; their brittle plates turn it off)" },
    { name = "gravity", group = "loading", type = "vec3", default = d.gravity or { 0, 0, 0 }, unit = "m/s^2",
      range = { -1e3, 1e3 }, help = "gravitational acceleration (the authors' scenes: 0, the cheese (0, -1, 0))" },
    { name = "self_collisions", group = "solver", type = "boolean", default = true,
      help = "cluster-proxy collisions between the pieces of the body (Jones et al. 2015)" },
    { name = "proxy_whole", group = "solver", type = "boolean", default = false,
      help = "proxies also act within a piece, intact bodies included (the authors' code; no result of these " ..
             "scenes changes, docs/solvers/shape_matching.md)" },
    { name = "proxy_origins", group = "solver", type = "boolean", default = true,
      help = "clusters holding copies of one original particle do not collide (the authors' neighbours)" },
    { name = "proxy_velocity", group = "solver", type = "boolean", default = false,
      help = "a proxy push changes the velocity too (the solver's default); false = position only, as the authors' " ..
             "code (these scenes)" },
    num("restitution", "solver", d.restitution or 0.5, "1", { 0, 1 },
        "fraction of the cluster-proxy projection applied (the authors' collisionRestitution, default 0.5)"),
    num("omega", "solver", d.omega, "1", { 0, 1 }, "strain-limiting relaxation per iteration"),
    int("iterations", "solver", d.iterations, { 0, 1000 }, "strain-limiting iterations per step"),
    P.threads(),
    P.seed(),
    int("particles", "resolution", d.particles, { 8, 1e8 }, "particles sampled from the shape"),
    num("cluster_radius", "resolution", d.r, "m", { 0, 1e6 }, "cluster membership radius r"),
    int("cluster_count", "resolution", d.k, { 0, 1e7 }, "number of clusters k"),
    P.frames(d.frames),
  }
end

-- The scene's one body on the shape_matching solver, with the paper's parameters. `spacing`: the
-- sampling spacing the shape was made with (a point set), 0 = from the particle count.
function C.body(world, name, shape, p, spacing)
  local fracture = false
  if p.criterion ~= "none" then
    fracture = { criterion = p.criterion, toughness = p.toughness, boost = p.boost, falloff = p.falloff,
                 relax = p.relax }
  end
  local plastic = nil
  if p.yield < inf then plastic = { yield = p.yield, flow = p.flow, hardening = p.hardening } end
  local params = { particles = p.particles, cluster_radius = p.cluster_radius, cluster_count = p.cluster_count,
                   alpha = p.alpha, omega = p.omega, iterations = p.iterations, gamma = p.gamma,
                   damping = C.rate(p.damping), restitution = p.restitution,
                   self_collisions = p.self_collisions, proxy_whole = p.proxy_whole,
                   proxy_origins = p.proxy_origins, proxy_velocity = p.proxy_velocity, spacing = spacing or 0 }
  return world:body { name = name, shape = shape, solver = "shape_matching", params = params,
                      material = { density = 1000, plastic = plastic }, fracture = fracture }
end

function C.world(p)
  return cl.world { dt = 1 / 60, gravity = p.gravity, seed = p.seed, threads = p.threads }
end

-- The momentum kick of the authors' projectiles (their momentumScale; cl_collider_def
-- momentum_scale, a non-physical scene device): a particle the projectile touches is pushed to its
-- surface and gains `default` x the projectile's velocity, every frame it touches.
function C.kick(default)
  return P.number("momentum_scale", "loading", default, "1", { 0, 1e3 },
                  "momentum kick of the projectiles: a touched particle gains this x their velocity per step (0 = " ..
                  "ordinary frictionless contact)")
end

-- Indices (1-based) of the nodes whose rest position X has n . X >= d (n normalised): the authors'
-- moving planes hold what lies beyond them.
function C.beyond(body, n, d)
  local l = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2)
  local X, count = body:rest_positions("cdata")
  local list = {}
  for i = 0, count / 3 - 1 do
    if (X[3 * i] * n[1] + X[3 * i + 1] * n[2] + X[3 * i + 2] * n[3]) / l >= d then list[#list + 1] = i + 1 end
  end
  return cl.region.indices(list)
end

-- Both ends (|x| beyond `x`) moved apart at `speed` along x.
function C.pull_apart(world, body, x, speed)
  world:drive(body, cl.region.slab { axis = "x", above = x }, cl.motion.translate { velocity = { speed, 0, 0 } })
  world:drive(body, cl.region.slab { axis = "x", below = -x }, cl.motion.translate { velocity = { -speed, 0, 0 } })
end

-- Distinct colours for the largest pieces (0xRRGGBB), then a grey for the rest.
local piece_palette = { 0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7,
                        0x9c755f, 0x86bcb6, 0xd37295, 0x8cd17d, 0xb6992d, 0x499894, 0xf1ce63, 0xa0cbe8 }

C.crumb_color = 0xcfcfcf

-- A colour per particle by its piece (body:piece_labels): the pieces ordered by size, the largest
-- ones in distinct colours, pieces of fewer than `small` particles (debris, crumbs) light grey.
function C.piece_colors(body, small)
  local labels, n = body:piece_labels("cdata")
  local size = {}
  for i = 0, n - 1 do size[labels[i]] = (size[labels[i]] or 0) + 1 end
  local order = {}
  for l in pairs(size) do order[#order + 1] = l end
  table.sort(order, function(a, b) return size[a] > size[b] or (size[a] == size[b] and a < b) end)
  local col = {}
  for r, l in ipairs(order) do
    if size[l] < (small or 4) then col[l] = C.crumb_color
    else col[l] = piece_palette[(r - 1) % #piece_palette + 1] end
  end
  local out = {}
  for i = 0, n - 1 do out[i + 1] = col[labels[i]] end
  return out, #order
end

-- A shaded snapshot of a particle body: each particle drawn as a small tetrahedron (of edge
-- `size`, default 0.9 x the sampling spacing), coloured by piece (C.piece_colors) unless opts.color
-- gives one colour; particles of pieces smaller than 4 (debris flung far away by the projectiles)
-- are left out, so they do not shrink the picture; at most `max` particles (every k-th beyond).
function C.snapshot(body, path, opts)
  opts = opts or {}
  local x, count = body:positions("cdata")
  local n = count / 3
  local max = opts.max or 20000
  local stride = math.max(1, math.ceil(n / max))
  local pc = not opts.color and C.piece_colors(body) or nil
  local size = opts.size
  if not size then
    local sp = body:stats().spacing or 0
    if sp > 0 then
      size = 0.9 * sp
    else
      local info = body:info()
      local lo, hi = { math.huge, math.huge, math.huge }, { -math.huge, -math.huge, -math.huge }
      for i = 0, n - 1 do
        for k = 1, 3 do
          local v = x[3 * i + k - 1]
          if v < lo[k] then lo[k] = v end
          if v > hi[k] then hi[k] = v end
        end
      end
      local V = 1
      for k = 1, 3 do V = V * math.max(hi[k] - lo[k], 1e-3) end
      size = 0.9 * (V / math.max(info.nodes, 1)) ^ (1 / 3)
    end
  end
  local h = size / 2
  local P, T, TC = {}, {}, {}
  local corners = { { h, h, h }, { h, -h, -h }, { -h, h, -h }, { -h, -h, h } } -- a regular tetrahedron
  local faces = { { 1, 2, 3 }, { 1, 4, 2 }, { 1, 3, 4 }, { 2, 4, 3 } }        -- outward
  for i = 0, n - 1, stride do
    if not (pc and pc[i + 1] == C.crumb_color) then
      local base = #P / 3
      for _, c in ipairs(corners) do
        P[#P + 1] = x[3 * i] + c[1]
        P[#P + 1] = x[3 * i + 1] + c[2]
        P[#P + 1] = x[3 * i + 2] + c[3]
      end
      for _, f in ipairs(faces) do
        T[#T + 1] = base + f[1]
        T[#T + 1] = base + f[2]
        T[#T + 1] = base + f[3]
        if pc then TC[#TC + 1] = pc[i + 1] end
      end
    end
  end
  return cl.plot.snapshot { points = P, triangles = T, base = 1, output = path, view = opts.view,
                            title = opts.title, color = opts.color, colors = pc and TC or nil, cull = false }
end

-- The runner's hooks for a paper scene (experiments/scenes/init.lua, main): the particle and
-- cluster counts the clustering chose, the pieces, volume, kinetic energy and phase times as probes,
-- a summary after the run and a particle snapshot.
function C.standard(built, paper_particles)
  local body = built.body
  built.intro = built.intro or function(frames)
    local info0, st0 = body:info(), body:stats()
    -- the cluster count and radius the clustering actually used (issue 4; automatic unless given)
    return string.format("  %d particles (paper: %d), %d clusters of radius %.4g m (%.2f per particle), " ..
      "%d frames of 1/60 s", info0.nodes, paper_particles, st0.clusters, st0.cluster_radius,
      st0.clusters_per_particle, frames)
  end
  built.probes = built.probes or { pieces = cl.probe.pieces(body), volume = cl.probe.volume(body),
                                   kinetic = cl.probe.kinetic(body), phases = cl.probe.phase_time() }
  built.report = built.report or function(run)
    local info, st = body:info(), body:stats()
    -- pieces as the authors count them (clusters joined by shared particles: their code deletes the
    -- particles left in no cluster), and the particles and memberships at the end
    print(string.format("  after %.2f s: %d pieces holding clusters (%d with the debris), %d particles in clusters " ..
      "(%d debris), %d clusters, %d memberships, %.4g m^3", run.stats.time, st.cluster_pieces, info.pieces,
      info.nodes - st.debris, st.debris, st.clusters, st.memberships, run.probes.volume[#run.probes.volume]))
  end
  built.snapshot = built.snapshot or function(png, title) return C.snapshot(body, png, { title = title }) end
  return built
end

-- A paper scene: the entries of C.paper plus the scene's own, and a build that adds the standard
-- hooks. d = { name, what, paper = C.paper's table, params = extra entries, quick, bench (what the
-- benchmark reads: big, the scenes --quick leaves out), build }.
function C.scene(d)
  local params = C.paper(d.paper)
  for _, e in ipairs(d.params or {}) do params[#params + 1] = e end
  local info = { bench = d.bench, paper_particles = d.paper.particles }
  return cl.scene {
    name = d.name, what = d.what, params = params, info = info, check = d.check,
    quick = d.quick or { frames = 3, particles = 1500 },
    build = function(p, scene) return C.standard(d.build(p, scene), scene.info.paper_particles) end,
  }
end

-- Paper scenes on one set-up: `def` = { params, check, quick, build(p, scene) } shared, and for
-- each of `variants` its { name, what, paper, bench } (build names the body after scene.name).
function C.scenes(def, variants)
  local out = {}
  for i, v in ipairs(variants) do
    out[i] = C.scene { name = v.name, what = v.what, paper = v.paper, bench = v.bench, params = def.params,
                       check = def.check, quick = def.quick, build = def.build }
  end
  return out
end

-- A copy of the table t with the fields of `changes` replaced.
function C.with(t, changes)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  for k, v in pairs(changes) do c[k] = v end
  return c
end

return C
