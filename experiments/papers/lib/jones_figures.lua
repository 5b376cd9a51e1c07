-- The figures of Jones et al. 2016 (Figs 1, 4, 5, 6) as cleave renders them: each panel a scene of
-- experiments/scenes/shape_matching/ run to the frames the figure shows, drawn by gnuplot
-- (cl.plot.snapshot through the scenes' C.snapshot: a small tetrahedron per particle) with the
-- particles coloured by their nearest live cluster centre, as the paper colours its renderings
-- (sec 5), debris and crumbs (pieces of fewer than 4 particles) left out. The paper's figures are
-- images: no number is printed in them, so the section sets what the caption and text say beside
-- what ours shows (pieces, particles, clusters at each drawn frame).
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/report.lua")
local scenes = dofile(here .. "/../../scenes/init.lua")
local C = dofile(here .. "/../../scenes/shape_matching/common.lua")

local F = {}

-- d = { name (of R.scripts), caption (the paper's, quoted), says (what the paper's text says the
-- figure shows), panels = { { scene, label, over = {param = value} (full runs), at = {fractions of
-- the run to draw, default {1}} }, ... }, note (ours, after the table) }.
function F.run(d)
  local o = R.options {
    frames = { type = "integer", default = 0, range = { 0, 1e6 }, help = "frames per panel (0 = each scene's own)" },
  }
  local sec = R.section(d.name, o)
  sec:text("Paper: " .. d.caption, "Its text: " .. d.says)
  local rows = {}
  for _, pnl in ipairs(d.panels) do
    local sc = scenes.get("shape_matching/" .. pnl.scene)
    local over = { threads = 1 } -- one thread: OpenMP barriers spin on a shared 2-core machine
    for k, v in pairs(pnl.over or {}) do over[k] = v end
    if o.quick then for k, v in pairs(sc.quick) do over[k] = v end end
    if o.frames > 0 then over.frames = o.frames end
    local built = sc:build(over)
    local w, body, frames = built.world, built.body, built.params.frames
    -- the box the drawing keeps: the body's box at the start grown by `crop` (default 0.75) of its
    -- size on every side; pieces flung farther (the armadillo's, by the cannonballs' momentum kick)
    -- are left out so that the body does not shrink to a dot (the table counts them)
    local x0, n0 = body:positions("cdata")
    local lo, hi = { math.huge, math.huge, math.huge }, { -math.huge, -math.huge, -math.huge }
    for i = 0, n0 / 3 - 1 do
      for k = 1, 3 do
        lo[k], hi[k] = math.min(lo[k], x0[3 * i + k - 1]), math.max(hi[k], x0[3 * i + k - 1])
      end
    end
    local grow = pnl.crop or 0.75
    for k = 1, 3 do
      local e = hi[k] - lo[k]
      lo[k], hi[k] = lo[k] - grow * e, hi[k] + grow * e
    end
    local at = {}
    for i, f in ipairs(pnl.at or { 1 }) do at[i] = math.max(1, math.floor(f * frames + 0.5)) end
    local done, t0 = 0, cl.progress.now()
    for i, f in ipairs(at) do
      if f > done then w:step(f - done) end
      done = math.max(done, f)
      local st, info = body:stats(), body:info()
      local tag = #at > 1 and string.format("%s_%d", pnl.tag or pnl.scene, i) or (pnl.tag or pnl.scene)
      local png = string.format("%s/%s_%s.png", o.out, d.name, tag)
      local title = string.format("%s, frame %d (t = %.2f s)", pnl.label, f, w:time())
      local drawn = false
      if cl.plot.available() then
        local colors, nlive = C.cluster_colors(body)
        local x = body:positions("cdata")
        local out = 0
        for i = 0, #colors - 1 do
          for k = 1, 3 do
            local v = x[3 * i + k - 1]
            if v < lo[k] or v > hi[k] then
              if colors[i + 1] ~= C.crumb_color then out = out + 1 end
              colors[i + 1] = C.crumb_color
              break
            end
          end
        end
        if out > 0 then title = title .. string.format(" (%d particles flung out of view)", out) end
        local ok, err = pcall(C.snapshot, body, png, { title = title, colors = colors })
        drawn = ok
        if ok then sec:figure(png, title .. string.format(": %d particles coloured by the nearest of %d clusters", info.nodes, nlive))
        else print("snapshot failed: " .. tostring(err)) end
      end
      if not drawn then sec:text(string.format("(%s: no figure, gnuplot is not available)", title)) end
      rows[#rows + 1] = { pnl.label, f, info.nodes, st.clusters, st.cluster_pieces, info.pieces, st.fractures }
      sec:row { item = tag, frame = f, particles = info.nodes, clusters = st.clusters, pieces = st.cluster_pieces,
                pieces_with_debris = info.pieces, cluster_splits = st.fractures, seconds = cl.progress.now() - t0 }
    end
    w:destroy()
    collectgarbage()
  end
  sec:text("Ours, at each drawn frame (pieces: those holding clusters, the authors' count; with the debris: every " ..
           "connected piece, single particles included):")
  sec:table({ "panel", "frame", "particles", "clusters", "pieces", "pieces with debris", "cluster splits so far" }, rows)
  if d.note then sec:text(d.note) end
  sec:finish()
end

return F
