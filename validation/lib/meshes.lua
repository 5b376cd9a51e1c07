-- Mesh helpers for validation scripts (generic, solver-agnostic).
--
--   local meshes = dofile(here .. "/lib/meshes.lua")
--   local g = meshes.grid(cl, {nx, ny, nz}, lo, hi)   -- structured tet grid (6 Kuhn tets per cell)
--   g.mesh            the cl mesh; g.points (flat, 3 per node), g.cells (flat, 1-based, 4 per tet)
--   g.node(i, j, k)   1-based node index of grid point (i, j, k), 0 <= i <= nx
--   meshes.spaced(breaks, size)   -> sorted coordinates through every break, each interval cut into
--                                    equal cells no longer than size(midpoint of the interval)
--   local t = meshes.tensor_grid(cl, xs, ys, zs, keep)  -- Kuhn tets on the grid xs x ys x zs, the
--                                    cells whose centre passes keep(x, y, z) (all if nil); unused
--                                    nodes dropped. t.mesh, t.points, t.cells as for grid
--   meshes.lumped_masses(points, cells, density)  -> per-node masses (kg), density V / 4 per corner
--   meshes.tet_volume(points, cells, t)            -> signed volume of tet t (1-based)
--   meshes.shell_octant(cl, a, b, n, m)            -> closed surface of the octant of a shell a <= r <= b
local M = {}

local function det3(a, b, c)
  return a[1] * (b[2] * c[3] - b[3] * c[2]) - a[2] * (b[1] * c[3] - b[3] * c[1]) + a[3] * (b[1] * c[2] - b[2] * c[1])
end

function M.tet_volume(points, cells, t)
  local p = {}
  for a = 1, 4 do
    local n = cells[4 * (t - 1) + a]
    p[a] = { points[3 * n - 2], points[3 * n - 1], points[3 * n] }
  end
  local u = { p[2][1] - p[1][1], p[2][2] - p[1][2], p[2][3] - p[1][3] }
  local v = { p[3][1] - p[1][1], p[3][2] - p[1][2], p[3][3] - p[1][3] }
  local w = { p[4][1] - p[1][1], p[4][2] - p[1][2], p[4][3] - p[1][3] }
  return det3(u, v, w) / 6
end

-- A box [lo, hi] cut into n[1] x n[2] x n[3] cells, each split into the 6 tets around its main
-- diagonal (Kuhn / Freudenthal), the same in every cell so the mesh is conforming; every tet is
-- positively oriented.
function M.grid(cl, n, lo, hi)
  local axes = {}
  for d = 1, 3 do
    axes[d] = {}
    for i = 0, n[d] do axes[d][i + 1] = lo[d] + (hi[d] - lo[d]) * i / n[d] end
  end
  local g = M.tensor_grid(cl, axes[1], axes[2], axes[3])
  g.n = { n[1], n[2], n[3] }
  return g
end

-- Coordinates through the sorted break points, each interval between two breaks cut into the fewest
-- equal cells no longer than size(m) (m the interval's midpoint, size > 0): a graded spacing.
function M.spaced(breaks, size)
  local out = { breaks[1] }
  for i = 1, #breaks - 1 do
    local a, b = breaks[i], breaks[i + 1]
    local n = math.max(1, math.ceil((b - a) / size(0.5 * (a + b)) - 1e-9))
    for k = 1, n do out[#out + 1] = a + (b - a) * k / n end
  end
  return out
end

-- The Kuhn tets (as M.grid) of the cells of the tensor grid xs x ys x zs (sorted coordinate lists)
-- whose centre passes keep(x, y, z) (every cell when keep is nil); nodes that no kept cell uses are
-- left out, so a cut-out (a notch) leaves no loose nodes. Nodes are numbered x fastest, then y, z;
-- node(i, j, k) (0-based grid indices) gives a node's 1-based index, nil for a dropped one.
function M.tensor_grid(cl, xs, ys, zs, keep)
  local nx, ny, nz = #xs - 1, #ys - 1, #zs - 1
  local function gnode(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  local gpoints, gcells = {}, {}
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        local b = 3 * (gnode(i, j, k) - 1)
        gpoints[b + 1], gpoints[b + 2], gpoints[b + 3] = xs[i + 1], ys[j + 1], zs[k + 1]
      end
    end
  end
  local perms = { { 1, 2, 3 }, { 1, 3, 2 }, { 2, 1, 3 }, { 2, 3, 1 }, { 3, 1, 2 }, { 3, 2, 1 } }
  for k = 0, nz - 1 do
    for j = 0, ny - 1 do
      for i = 0, nx - 1 do
        local cx, cy, cz = 0.5 * (xs[i + 1] + xs[i + 2]), 0.5 * (ys[j + 1] + ys[j + 2]), 0.5 * (zs[k + 1] + zs[k + 2])
        if not keep or keep(cx, cy, cz) then
          for _, p in ipairs(perms) do
            local c = { i, j, k }
            local t = { gnode(c[1], c[2], c[3]) }
            for s = 1, 2 do
              c[p[s]] = c[p[s]] + 1
              t[#t + 1] = gnode(c[1], c[2], c[3])
            end
            t[4] = gnode(i + 1, j + 1, k + 1)
            local base = #gcells
            for a = 1, 4 do gcells[base + a] = t[a] end
            if M.tet_volume(gpoints, gcells, #gcells / 4) < 0 then
              gcells[base + 2], gcells[base + 3] = gcells[base + 3], gcells[base + 2]
            end
          end
        end
      end
    end
  end
  local index, points, cells = {}, {}, {}
  for _, g in ipairs(gcells) do index[g] = true end
  for g = 1, #gpoints / 3 do
    if index[g] then
      index[g] = #points / 3 + 1
      for c = 1, 3 do points[#points + 1] = gpoints[3 * (g - 1) + c] end
    end
  end
  for q, g in ipairs(gcells) do cells[q] = index[g] end
  local mesh = cl.mesh.from_arrays { kind = "tets", points = points, cells = cells }
  return { mesh = mesh, points = points, cells = cells, node = function(i, j, k) return index[gnode(i, j, k)] end }
end

-- The octant x, y, z >= 0 of a thick spherical shell a <= r <= b as a closed triangle surface, for
-- TetGen: the two spherical patches are the faces of the triangle (1,0,0), (0,1,0), (0,0,1) cut
-- into n x n and pushed onto the spheres, the three quarter-annuli on the coordinate planes are
-- grids of m radial steps (geometric, spacing ~ r) by n arcs, sharing their edge points with the
-- patches and each other. Every triangle is turned to face out of the solid.
function M.shell_octant(cl, a, b, n, m)
  local points, tris, index = {}, {}, {}
  local function point(key, x, y, z)
    local i = index[key]
    if i then return i end
    points[#points + 1] = { x, y, z }
    index[key] = #points
    return #points
  end
  local radii = {}
  for k = 0, m do radii[k] = a * (b / a) ^ (k / m) end
  -- a point of the patch grid (i, j) (i + j <= n: barycentric (n - i - j, i, j) / n) at radius level k;
  -- the key names it by where it lies, so points on shared edges are made once
  local function sphere_point(i, j, k)
    local u = { (n - i - j) / n, i / n, j / n }
    local len = math.sqrt(u[1] ^ 2 + u[2] ^ 2 + u[3] ^ 2)
    return point(string.format("%d,%d,%d", i, j, k), radii[k] * u[1] / len, radii[k] * u[2] / len, radii[k] * u[3] / len)
  end
  local function tri(p, q, r, outward)
    local A, B, C = points[p], points[q], points[r]
    local e1 = { B[1] - A[1], B[2] - A[2], B[3] - A[3] }
    local e2 = { C[1] - A[1], C[2] - A[2], C[3] - A[3] }
    local nrm = { e1[2] * e2[3] - e1[3] * e2[2], e1[3] * e2[1] - e1[1] * e2[3], e1[1] * e2[2] - e1[2] * e2[1] }
    local g = { (A[1] + B[1] + C[1]) / 3, (A[2] + B[2] + C[2]) / 3, (A[3] + B[3] + C[3]) / 3 }
    local o = outward(g)
    if nrm[1] * o[1] + nrm[2] * o[2] + nrm[3] * o[3] < 0 then q, r = r, q end
    tris[#tris + 1] = { p, q, r }
  end
  -- the patches: outward +r on the outer sphere, -r on the inner one
  for _, side in ipairs { { 0, -1 }, { m, 1 } } do
    local k, sign = side[1], side[2]
    local out = function(g) return { sign * g[1], sign * g[2], sign * g[3] } end
    for i = 0, n - 1 do
      for j = 0, n - 1 - i do
        tri(sphere_point(i, j, k), sphere_point(i + 1, j, k), sphere_point(i, j + 1, k), out)
        if i + j < n - 1 then tri(sphere_point(i + 1, j, k), sphere_point(i + 1, j + 1, k), sphere_point(i, j + 1, k), out) end
      end
    end
  end
  -- the quarter-annuli: x = 0 is the patch edge i + j = n (barycentric weight of x is 0), y = 0 is
  -- i = 0, z = 0 is j = 0; each is a strip of n arc steps by m radial steps
  local edges = {
    { function(s) return s, n - s end, { -1, 0, 0 } },
    { function(s) return 0, s end, { 0, -1, 0 } },
    { function(s) return s, 0 end, { 0, 0, -1 } },
  }
  for _, e in ipairs(edges) do
    local at, nrm = e[1], e[2]
    local out = function() return nrm end
    for s = 0, n - 1 do
      local i0, j0 = at(s)
      local i1, j1 = at(s + 1)
      for k = 0, m - 1 do
        tri(sphere_point(i0, j0, k), sphere_point(i1, j1, k), sphere_point(i1, j1, k + 1), out)
        tri(sphere_point(i0, j0, k), sphere_point(i1, j1, k + 1), sphere_point(i0, j0, k + 1), out)
      end
    end
  end
  return cl.mesh.from_arrays { kind = "triangles", points = points, cells = tris }
end

function M.lumped_masses(points, cells, density)
  local m = {}
  for i = 1, #points / 3 do m[i] = 0 end
  for t = 1, #cells / 4 do
    local q = density * math.abs(M.tet_volume(points, cells, t)) / 4
    for a = 1, 4 do
      local n = cells[4 * (t - 1) + a]
      m[n] = m[n] + q
    end
  end
  return m
end

return M
