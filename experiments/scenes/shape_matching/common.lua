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
local ffi = require "ffi"
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
    { name = "proxy_whole", group = "solver", type = "boolean", default = true,
      help = "proxies also act within a piece, intact bodies included, as the authors' code does (false: between " ..
             "pieces only, the solver's default; it moves particles by up to a quarter spacing before the first " ..
             "split, docs/solvers/shape_matching.md)" },
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

-- A colour per particle by its nearest live cluster centre, as the paper renders its particles
-- (Jones et al. 2016 sec 5: "particle color is used to indicate the nearest cluster center"),
-- particles of pieces smaller than `small` (debris, crumbs) light grey as in C.piece_colors. A
-- deleted cluster slot measures F = I and zero stress exactly (sm_measure.c) and is skipped. The
-- search uses a grid of cells of the clustering radius; a particle with no centre in its 27 cells
-- takes the nearest of all.
function C.cluster_colors(body, small)
  local x, count = body:positions("cdata")
  local n = count / 3
  local cen = body:unit_field("center", "cdata")
  local F = body:unit_field("deformation_gradient", "cdata")
  local S = body:unit_field("stress", "cdata")
  local units = body:info().units
  local live = {}
  for c = 0, units - 1 do
    local dead = true
    for k = 0, 8 do
      if F[9 * c + k] ~= ((k % 4 == 0) and 1 or 0) or S[9 * c + k] ~= 0 then dead = false break end
    end
    if not dead then live[#live + 1] = c end
  end
  local h = body:stats().cluster_radius
  if not h or h <= 0 then h = 0.1 end
  local function key(i, j, k) return ((i + 2 ^ 16) * 2 ^ 17 + (j + 2 ^ 16)) * 2 ^ 17 + (k + 2 ^ 16) end
  local grid = {}
  for _, c in ipairs(live) do
    local i, j, k = math.floor(cen[3 * c] / h), math.floor(cen[3 * c + 1] / h), math.floor(cen[3 * c + 2] / h)
    local kk = key(i, j, k)
    local cell = grid[kk]
    if not cell then cell = {} grid[kk] = cell end
    cell[#cell + 1] = c
  end
  local piece = C.piece_colors(body, small)
  local out = {}
  for p = 0, n - 1 do
    if piece[p + 1] == C.crumb_color or #live == 0 then
      out[p + 1] = C.crumb_color
    else
      local px, py, pz = x[3 * p], x[3 * p + 1], x[3 * p + 2]
      local i, j, k = math.floor(px / h), math.floor(py / h), math.floor(pz / h)
      local best, bd = nil, math.huge
      local function try(c)
        local dx, dy, dz = cen[3 * c] - px, cen[3 * c + 1] - py, cen[3 * c + 2] - pz
        local d = dx * dx + dy * dy + dz * dz
        if d < bd then best, bd = c, d end
      end
      for di = -1, 1 do
        for dj = -1, 1 do
          for dk = -1, 1 do
            local cell = grid[key(i + di, j + dj, k + dk)]
            if cell then for _, c in ipairs(cell) do try(c) end end
          end
        end
      end
      if not best then for _, c in ipairs(live) do try(c) end end
      -- a cluster's colour from its slot (a multiplicative hash spreads neighbouring slots)
      out[p + 1] = piece_palette[(best * 2654435761) % 4294967296 % #piece_palette + 1]
    end
  end
  return out, #live
end

-- The particles' spacing: the sampling distance, or (a tet mesh's nodes) the cube root of the
-- box volume per particle.
local function particle_spacing(body, x, n)
  local sp = body:stats().spacing or 0
  if sp > 0 then return sp end
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
  return (V / math.max(n, 1)) ^ (1 / 3)
end

-- A surface per piece skinned from the particles: each piece's particles spread the density
-- sum_i (1 - |y - x_i|^2 / R^2)^3 (R = `radius` x the spacing) on a grid of cells of `cell` x the
-- spacing, and the level set at `level` x the density the largest piece has at its particles (the
-- median over them) is extracted by surface nets (Gibson 1998: one vertex per cell the surface
-- crosses, at the mean of the crossings on the cell's edges; one quad per grid edge it crosses).
-- Pieces of fewer than `small` particles are left out. Returns points (flat), 1-based triangles,
-- the colour (C.piece_colors) and the piece label of every triangle. The grid is coarsened so
-- that it holds at most `max_nodes` nodes over all pieces.
function C.skin(body, opts)
  opts = opts or {}
  local x, cnt = body:positions("cdata")
  local n = cnt / 3
  local labels = body:piece_labels("cdata")
  local pc = C.piece_colors(body, opts.small or 10)
  local h = particle_spacing(body, x, n)
  local R = (opts.radius or 1.5) * h
  local R2 = R * R
  -- the pieces drawn, largest first, with their particles and boxes
  local groups, order = {}, {}
  for i = 0, n - 1 do
    if pc[i + 1] ~= C.crumb_color then
      local l = labels[i]
      local g = groups[l]
      if not g then
        g = { label = l, color = pc[i + 1], idx = {}, lo = { math.huge, math.huge, math.huge },
              hi = { -math.huge, -math.huge, -math.huge } }
        groups[l] = g
        order[#order + 1] = g
      end
      g.idx[#g.idx + 1] = i
      for k = 1, 3 do
        local v = x[3 * i + k - 1]
        if v < g.lo[k] then g.lo[k] = v end
        if v > g.hi[k] then g.hi[k] = v end
      end
    end
  end
  table.sort(order, function(a, b) return #a.idx > #b.idx or (#a.idx == #b.idx and a.label < b.label) end)
  local cell = (opts.cell or 0.6) * h
  local vol = 0
  for _, g in ipairs(order) do
    local v = 1
    for k = 1, 3 do v = v * (g.hi[k] - g.lo[k] + 2 * R + 2 * cell) end
    vol = vol + v
  end
  cell = math.max(cell, (vol / (opts.max_nodes or 4e6)) ^ (1 / 3))
  local P, T, TC, TL = {}, {}, {}, {}
  local iso
  for _, g in ipairs(order) do
    local o, dim = {}, {}
    for k = 1, 3 do
      o[k] = g.lo[k] - R - cell
      dim[k] = math.floor((g.hi[k] + R + cell - o[k]) / cell) + 2
    end
    local nx, ny, nz = dim[1], dim[2], dim[3]
    local f = ffi.new("double[?]", nx * ny * nz)
    local reach = math.ceil(R / cell)
    for _, i in ipairs(g.idx) do
      local px, py, pz = x[3 * i], x[3 * i + 1], x[3 * i + 2]
      local ci = math.floor((px - o[1]) / cell + 0.5)
      local cj = math.floor((py - o[2]) / cell + 0.5)
      local ck = math.floor((pz - o[3]) / cell + 0.5)
      for kk = math.max(ck - reach, 0), math.min(ck + reach, nz - 1) do
        local dz = o[3] + kk * cell - pz
        for jj = math.max(cj - reach, 0), math.min(cj + reach, ny - 1) do
          local dy = o[2] + jj * cell - py
          local dyz = dy * dy + dz * dz
          if dyz < R2 then
            local row = (kk * ny + jj) * nx
            for ii = math.max(ci - reach, 0), math.min(ci + reach, nx - 1) do
              local dx = o[1] + ii * cell - px
              local d2 = dx * dx + dyz
              if d2 < R2 then
                local w = 1 - d2 / R2
                f[row + ii] = f[row + ii] + w * w * w
              end
            end
          end
        end
      end
    end
    if not iso then -- from the largest piece: the median density at its particles' nearest nodes
      local at = {}
      for a, i in ipairs(g.idx) do
        local ci = math.floor((x[3 * i] - o[1]) / cell + 0.5)
        local cj = math.floor((x[3 * i + 1] - o[2]) / cell + 0.5)
        local ck = math.floor((x[3 * i + 2] - o[3]) / cell + 0.5)
        at[a] = f[(ck * ny + cj) * nx + ci]
      end
      table.sort(at)
      iso = (opts.level or 0.4) * at[math.max(1, math.floor(#at / 2))]
    end
    -- surface nets: a vertex in every cell with corners on both sides of the level
    local cx, cy = nx - 1, ny - 1
    local vid = ffi.new("int32_t[?]", cx * cy * (nz - 1))
    local corner = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 }, { 0, 0, 1 }, { 1, 0, 1 }, { 0, 1, 1 }, { 1, 1, 1 } }
    local edges = { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 }, { 1, 3 }, { 2, 4 }, { 5, 7 }, { 6, 8 }, { 1, 5 }, { 2, 6 },
                    { 3, 7 }, { 4, 8 } }
    local val = {}
    local base = #P / 3
    local nv = 0
    for kk = 0, nz - 2 do
      for jj = 0, ny - 2 do
        for ii = 0, nx - 2 do
          local inside, outside = false, false
          for c = 1, 8 do
            local q = corner[c]
            local v = f[((kk + q[3]) * ny + jj + q[2]) * nx + ii + q[1]] - iso
            val[c] = v
            if v > 0 then inside = true else outside = true end
          end
          local id = (kk * cy + jj) * cx + ii
          if inside and outside then
            local sx, sy, sz, m = 0, 0, 0, 0
            for _, e in ipairs(edges) do
              local a, b = val[e[1]], val[e[2]]
              if (a > 0) ~= (b > 0) then
                local t = a / (a - b)
                local qa, qb = corner[e[1]], corner[e[2]]
                sx = sx + qa[1] + t * (qb[1] - qa[1])
                sy = sy + qa[2] + t * (qb[2] - qa[2])
                sz = sz + qa[3] + t * (qb[3] - qa[3])
                m = m + 1
              end
            end
            P[#P + 1] = o[1] + (ii + sx / m) * cell
            P[#P + 1] = o[2] + (jj + sy / m) * cell
            P[#P + 1] = o[3] + (kk + sz / m) * cell
            vid[id] = base + nv + 1
            nv = nv + 1
          else
            vid[id] = 0
          end
        end
      end
    end
    -- a quad around every grid edge the level crosses, facing out of the piece
    local function quad(a, b, c, d, flip)
      if a == 0 or b == 0 or c == 0 or d == 0 then return end
      if flip then a, b, c, d = d, c, b, a end
      local t = #T
      T[t + 1], T[t + 2], T[t + 3], T[t + 4], T[t + 5], T[t + 6] = a, b, c, a, c, d
      local u = #TC
      TC[u + 1], TC[u + 2], TL[u + 1], TL[u + 2] = g.color, g.color, g.label, g.label
    end
    local function V(i, j, k) return vid[(k * cy + j) * cx + i] end
    for kk = 1, nz - 2 do
      for jj = 1, ny - 2 do
        for ii = 1, nx - 2 do
          local f0 = f[(kk * ny + jj) * nx + ii] > iso
          if f0 ~= (f[(kk * ny + jj) * nx + ii + 1] > iso) then -- x edge
            quad(V(ii, jj - 1, kk - 1), V(ii, jj, kk - 1), V(ii, jj, kk), V(ii, jj - 1, kk), not f0)
          end
          if f0 ~= (f[(kk * ny + jj + 1) * nx + ii] > iso) then -- y edge
            quad(V(ii - 1, jj, kk - 1), V(ii - 1, jj, kk), V(ii, jj, kk), V(ii, jj, kk - 1), not f0)
          end
          if f0 ~= (f[((kk + 1) * ny + jj) * nx + ii] > iso) then -- z edge
            quad(V(ii - 1, jj - 1, kk), V(ii, jj - 1, kk), V(ii, jj, kk), V(ii - 1, jj, kk), not f0)
          end
        end
      end
    end
  end
  return P, T, TC, TL
end

-- The skin (C.skin) as a triangle mesh with the piece label and colour of every triangle as cell
-- fields, written to `path` (.vtu for ParaView).
function C.write_skin(body, path, opts)
  local P, T, _, TL = C.skin(body, opts)
  if #T == 0 then return nil end
  local m = cl.mesh.from_arrays { kind = "triangles", points = P, cells = T }
  m:set_field("piece", "cell", 1, TL)
  m:write(path)
  m:destroy()
  return path
end

-- A shaded snapshot of a particle body: each particle drawn as a small tetrahedron (of edge
-- `size`, default 0.9 x the sampling spacing), coloured by piece (C.piece_colors) unless opts.color
-- gives one colour or opts.colors one per particle (C.cluster_colors); particles of pieces smaller
-- than 4 (debris flung far away by the projectiles), grey in those colourings, are left out, so
-- they do not shrink the picture; at most `max` particles (every k-th beyond).
-- With opts.style = "skin": the surface per piece of C.skin instead (pieces of fewer than 10
-- particles left out), falling back to the particles when no piece is drawn.
function C.snapshot(body, path, opts)
  opts = opts or {}
  if opts.style == "skin" then
    local P, T, TC = C.skin(body, opts.skin)
    if #T > 0 then
      return cl.plot.snapshot { points = P, triangles = T, base = 1, output = path, view = opts.view,
                                title = opts.title, colors = TC, cull = false }
    end
  end
  local x, count = body:positions("cdata")
  local n = count / 3
  local max = opts.max or 20000
  local stride = math.max(1, math.ceil(n / max))
  local pc = opts.colors or (not opts.color and C.piece_colors(body) or nil)
  local size = opts.size or 0.9 * particle_spacing(body, x, n)
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
  -- the picture: a surface per piece skinned from the particles (C.skin), coloured by piece; the
  -- same surface with each triangle's piece label beside it as <scene>_skin.vtu (ParaView)
  built.snapshot = built.snapshot or function(png, title)
    C.write_skin(body, (png:gsub("%.png$", "")) .. "_skin.vtu")
    return C.snapshot(body, png, { title = title, style = "skin" })
  end
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
