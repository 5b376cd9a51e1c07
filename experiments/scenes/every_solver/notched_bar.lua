-- A notched bar pulled apart, the same definition on every solver and every criterion that fits
-- it (issue 14): a 0.6 x 0.1 x 0.1 m elastic bar (E = 100 kPa) with a 3 cm V-notch in its top
-- face at x = 0, both ends (|x| > 0.28 m) pulled apart at 5 cm/s each, no gravity. The criterion
-- is chosen by name per body: cluster_stretch drives all three solvers, separation_tensor the
-- corotational one (per unit area against node_strength, the same 6 kPa as edge_stress's strength:
-- docs/solvers/corotational.md, "Clean cracks"), edge_stress graph_fem (threshold or softening).
-- Measures: the pieces (and those holding at least 1 % of the nodes), where the crack crossed the
-- bar (the x at rest that best separates the two largest pieces' nodes) and the first frame with
-- two pieces.
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local C = dofile(here .. "/common.lua")
local P = C.P

-- The rest x that best separates two sets of nodes (a's mostly below, b's mostly above): the split
-- of the sorted coordinates that leaves the fewest nodes on the wrong side. Returns x and the
-- fraction on the wrong side (0 for a straight cut across x).
local function separating_x(a, b)
  local all = {}
  for _, x in ipairs(a) do all[#all + 1] = { x, 1 } end
  for _, x in ipairs(b) do all[#all + 1] = { x, 2 } end
  table.sort(all, function(u, v) return u[1] < v[1] end)
  local wrong = #a -- split before everything: every a node is on the wrong side
  local best, at = wrong, all[1] and all[1][1] or 0
  for i, e in ipairs(all) do
    wrong = wrong + (e[2] == 1 and -1 or 1)
    if wrong < best then
      best = wrong
      local nxt = all[i + 1] and all[i + 1][1] or e[1]
      at = 0.5 * (e[1] + nxt)
    end
  end
  return at, best / #all
end

return cl.scene {
  name = "notched_bar",
  what = "an elastic notched bar pulled apart at 5 cm/s each end until it breaks",
  params = C.entries {
    P.size({ 0.6, 0.1, 0.1 }, "the bar (the notch is cut into its top face)"),
    P.length("notch_depth", 0.03, "depth of the V-notch"),
    P.number("notch_angle", "geometry", 45, "degree", { 0, 180, "()" }, "opening angle of the V"),
    P.number("notch_root_radius", "geometry", 0.002, "m", { 0, 100 }, "radius at the root of the notch"),
    P.grip("grip", 0.28, "pulled apart"),
    P.speed("pull", 0.05, "speed of each end (the ends separate at twice this)"),
    C.body_params { young = 1e5, damping = 1, criterion = "cluster_stretch", stretch = 0.2, toughness = 1.5,
                    strength = 6e3, node_strength = 6e3, fracture_energy = 50, max_volume = 1e-5, frames = 150 },
  },
  check = function(p) return P.inside("grip", p.grip, p.size[1]) end,
  quick = { frames = 3, max_volume = 5e-5 },
  build = function(p)
    local w = C.world(p, { 0, 0, 0 })
    local mesh = C.tets(cl.shape.notched_beam { size = p.size, notch_depth = p.notch_depth, notch_angle = p.notch_angle,
                                                        notch_root_radius = p.notch_root_radius }, p)
    local body = C.body(w, "notched", mesh, p)
    w:drive(body, cl.region.slab { axis = "x", below = -p.grip }, cl.motion.translate { velocity = { -p.pull, 0, 0 } })
    w:drive(body, cl.region.slab { axis = "x", above = p.grip }, cl.motion.translate { velocity = { p.pull, 0, 0 } })
    local built = C.standard { world = w, body = body, mesh = mesh }
    local first_break = -1
    built.on_frame = function(frame)
      if first_break < 0 and body:info().pieces >= 2 then first_break = frame end
    end
    built.measure = function()
      local labels, X = body:piece_labels(), body:rest_positions()
      local count = {}
      for _, l in ipairs(labels) do count[l] = (count[l] or 0) + 1 end
      local order = {}
      for l in pairs(count) do order[#order + 1] = l end
      table.sort(order, function(u, v) return count[u] > count[v] end)
      local large = 0
      for _, l in ipairs(order) do if count[l] >= 0.01 * #labels then large = large + 1 end end
      local crack_x, crooked = 0 / 0, 0 / 0
      if #order >= 2 then
        local a, b = {}, {}
        for i, l in ipairs(labels) do
          if l == order[1] then a[#a + 1] = X[i][1] elseif l == order[2] then b[#b + 1] = X[i][1] end
        end
        local ma, mb = 0, 0
        for _, x in ipairs(a) do ma = ma + x / #a end
        for _, x in ipairs(b) do mb = mb + x / #b end
        if ma > mb then a, b = b, a end
        crack_x, crooked = separating_x(a, b)
      end
      return { pieces = body:info().pieces, large_pieces = large, crack_x = crack_x, crack_misfit = crooked,
               first_break = first_break }
    end
    return built
  end,
}
