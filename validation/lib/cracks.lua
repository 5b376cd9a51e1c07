-- How clean a fracture run's crack is (issue 17, docs/solvers/corotational.md "Clean cracks"): the
-- pieces of a tet body with their volumes, and where the crack surface lies at rest.
--
--   local cracks = dofile(here .. "/lib/cracks.lua")
--   local m = cracks.measure(body, mesh, { axis = 1, at = 0 })   -- mesh: the body's rest tet mesh
--   print(cracks.line("brittle", m))
--
-- Piece volumes are the volumes their surface triangles enclose (divergence theorem: the sum of
-- a . (b x c) / 6 over a piece's triangles, current configuration), a triangle belonging to the piece
-- of its first corner (body:piece_labels). The crack surface is the rest position of every node
-- fracture added (node replication appends a copy at its original's rest position); its distance
-- from the plane X[axis] = at is measured against h, the mean edge length of the rest mesh's tets
-- that the plane cuts (the element size where the crack should run), and the added nodes that are no
-- corner of those tets are counted (0: the crack runs inside the layer of elements the plane cuts).
-- h_mean is the mesh's element size overall: the edge of the regular tet of the mean tet volume;
-- `within` is the fraction of the added nodes within h_mean of the plane, crack_q95 the distance
-- 95 % of them are within.
-- Fragments are the pieces beyond the two largest.
local M = {}

-- The tets of `mesh` whose rest extent along `axis` contains `at` (the layer the plane cuts): their mean
-- edge length (m) and the set of their corners, keyed by rest position.
function M.plane_layer(mesh, axis, at)
  local X, cells = mesh:points("flat"), mesh:cells("flat")
  local sum, count, corners = 0, 0, {}
  for e = 0, #cells / 4 - 1 do
    local lo, hi = math.huge, -math.huge
    for a = 1, 4 do
      local c = X[3 * (cells[4 * e + a] - 1) + axis]
      lo, hi = math.min(lo, c), math.max(hi, c)
    end
    if lo <= at and at <= hi then
      for a = 1, 4 do
        local p = 3 * (cells[4 * e + a] - 1)
        corners[string.format("%.17g %.17g %.17g", X[p + 1], X[p + 2], X[p + 3])] = true
        for b = a + 1, 4 do
          local q = 3 * (cells[4 * e + b] - 1)
          sum = sum + math.sqrt((X[p + 1] - X[q + 1]) ^ 2 + (X[p + 2] - X[q + 2]) ^ 2 + (X[p + 3] - X[q + 3]) ^ 2)
          count = count + 1
        end
      end
    end
  end
  return count > 0 and sum / count or 0 / 0, corners
end

function M.measure(body, mesh, plane)
  local labels = body:piece_labels()
  local surf = body:surface()
  local x, tris = surf:points("flat"), surf:cells("flat")
  surf:destroy()
  local vol, total = {}, 0
  for t = 0, #tris / 3 - 1 do
    local a, b, c = 3 * (tris[3 * t + 1] - 1), 3 * (tris[3 * t + 2] - 1), 3 * (tris[3 * t + 3] - 1)
    local ax, ay, az = x[a + 1], x[a + 2], x[a + 3]
    local bx, by, bz = x[b + 1], x[b + 2], x[b + 3]
    local cx, cy, cz = x[c + 1], x[c + 2], x[c + 3]
    local v = (ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)) / 6
    local l = labels[a / 3 + 1]
    vol[l] = (vol[l] or 0) + v
    total = total + v
  end
  local pieces = {}
  for l, v in pairs(vol) do pieces[#pieces + 1] = { label = l, volume = v, fraction = v / total } end
  table.sort(pieces, function(p, q) return p.volume > q.volume end)
  local h, layer = M.plane_layer(mesh, plane.axis, plane.at)
  local X, n0, n = body:rest_positions("flat"), mesh:info().points, body:info().nodes
  local far, lo, hi, outside, ds = 0, math.huge, -math.huge, 0, {}
  for i = n0 + 1, n do
    local p = 3 * (i - 1)
    local d = X[p + plane.axis] - plane.at
    far = math.max(far, math.abs(d))
    ds[#ds + 1] = math.abs(d)
    lo, hi = math.min(lo, d), math.max(hi, d)
    if not layer[string.format("%.17g %.17g %.17g", X[p + 1], X[p + 2], X[p + 3])] then outside = outside + 1 end
  end
  local fragment_max = 0
  for i = 3, #pieces do fragment_max = math.max(fragment_max, pieces[i].fraction) end
  -- the mesh's element size: the edge of the regular tet of its mean volume, (6 sqrt(2) V / tets)^(1/3)
  local h_mean = (6 * math.sqrt(2) * total / body:info().units) ^ (1 / 3)
  table.sort(ds)
  local within = 0
  for _, d in ipairs(ds) do if d <= h_mean then within = within + 1 end end
  return { pieces = #pieces, volumes = pieces, total = total, h = h, h_mean = h_mean, added = n - n0, within = #ds > 0 and within / #ds or 1,
           crack_q95 = ds[math.max(1, math.ceil(0.95 * #ds))] or 0, crack_far = far,
           outside = outside, crack_lo = n > n0 and lo or 0, crack_hi = n > n0 and hi or 0, fragments = math.max(#pieces - 2, 0),
           fragment_max = fragment_max, main = { pieces[1] and pieces[1].fraction or 0, pieces[2] and pieces[2].fraction or 0 } }
end

function M.line(name, m)
  return string.format("%s: %d pieces (main %.3f + %.3f of the volume; %d fragments, largest %.4f); %d nodes added, "
                       .. "%d outside the layer of tets the plane cuts; crack at rest in [%+.4f, %+.4f] m: max %.4f m "
                       .. "= %.2f layer edges (%.4f m) = %.2f mean element sizes (%.4f m), 95 %% within %.2f, %.1f %% within one",
                       name, m.pieces, m.main[1],
                       m.main[2], m.fragments, m.fragment_max, m.added, m.outside, m.crack_lo, m.crack_hi, m.crack_far,
                       m.crack_far / m.h, m.h, m.crack_far / m.h_mean, m.h_mean, m.crack_q95 / m.h_mean, 100 * m.within)
end

return M
