-- Mesh helpers for validation scripts (generic, solver-agnostic).
--
--   local meshes = dofile(here .. "/lib/meshes.lua")
--   local g = meshes.grid(cl, {nx, ny, nz}, lo, hi)   -- structured tet grid (6 Kuhn tets per cell)
--   g.mesh            the cl mesh; g.points (flat, 3 per node), g.cells (flat, 1-based, 4 per tet)
--   g.node(i, j, k)   1-based node index of grid point (i, j, k), 0 <= i <= nx
--   meshes.lumped_masses(points, cells, density)  -> per-node masses (kg), density V / 4 per corner
--   meshes.tet_volume(points, cells, t)            -> signed volume of tet t (1-based)
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
  local nx, ny, nz = n[1], n[2], n[3]
  local points, cells = {}, {}
  local function node(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        local b = 3 * (node(i, j, k) - 1)
        points[b + 1] = lo[1] + (hi[1] - lo[1]) * i / nx
        points[b + 2] = lo[2] + (hi[2] - lo[2]) * j / ny
        points[b + 3] = lo[3] + (hi[3] - lo[3]) * k / nz
      end
    end
  end
  local perms = { { 1, 2, 3 }, { 1, 3, 2 }, { 2, 1, 3 }, { 2, 3, 1 }, { 3, 1, 2 }, { 3, 2, 1 } }
  for k = 0, nz - 1 do
    for j = 0, ny - 1 do
      for i = 0, nx - 1 do
        for _, p in ipairs(perms) do
          local c = { i, j, k }
          local t = { node(c[1], c[2], c[3]) }
          for s = 1, 2 do
            c[p[s]] = c[p[s]] + 1
            t[#t + 1] = node(c[1], c[2], c[3])
          end
          t[4] = node(i + 1, j + 1, k + 1)
          local base = #cells
          for a = 1, 4 do cells[base + a] = t[a] end
          if M.tet_volume(points, cells, #cells / 4) < 0 then
            cells[base + 2], cells[base + 3] = cells[base + 3], cells[base + 2]
          end
        end
      end
    end
  end
  local mesh = cl.mesh.from_arrays { kind = "tets", points = points, cells = cells }
  return { mesh = mesh, points = points, cells = cells, node = node, n = { nx, ny, nz } }
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
