-- The pieces a body broke into, measured on its surface (any solver whose surface splits along
-- cracks: corotational, graph_fem): their volumes and a one-line summary for scene reports.
--   local pieces = dofile(here .. "/../pieces.lua")
--   pieces.volumes(body) -> { largest, ... } (m^3);  pieces.summary(body) -> "n pieces; largest ..."
local M = {}

-- Volumes (m^3) of the body's pieces, largest first, from its surface: the connected components of
-- the surface triangles (fracture leaves every piece closed), each enclosing the signed volume
-- sum a . (b x c) / 6 over its triangles. A cavity's surface (the inside of the hollow ball) is a
-- component of its own with a negative volume: it is taken off the smallest piece whose bounding
-- box holds it.
function M.volumes(body)
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
    for _, q in ipairs({ a, b, c }) do
      for k = 1, 3 do
        cp.lo[k], cp.hi[k] = math.min(cp.lo[k], q[k]), math.max(cp.hi[k], q[k])
      end
    end
  end
  local solids, cavities = {}, {}
  for _, cp in pairs(comp) do
    if cp.v >= 0 then solids[#solids + 1] = cp else cavities[#cavities + 1] = cp end
  end
  table.sort(solids, function(a, b) return a.v < b.v end)
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
  table.sort(out, function(a, b) return a > b end)
  return out
end

-- "n pieces; largest: 61%, 12%, ... of the volume; k pieces under 1%"
function M.summary(body, shown)
  local v = M.volumes(body)
  if #v == 0 then -- particles (solver = shape_matching) have no surface to measure
    return string.format("%d pieces (no surface: piece volumes not measured)", body:info().pieces)
  end
  local total, small = 0, 0
  for _, x in ipairs(v) do total = total + x end
  local parts = {}
  for i, x in ipairs(v) do
    if i <= (shown or 6) then parts[#parts + 1] = string.format("%.1f%%", 100 * x / total) end
    if x < 0.01 * total then small = small + 1 end
  end
  return string.format("%d pieces; largest %s of the volume; %d pieces under 1%%", #v, table.concat(parts, ", "), small)
end

return M
