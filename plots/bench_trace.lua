-- Frame times over a benchmark run: where a run spends its time (a shattering body's frames are
-- far from uniform, and the benchmark's table shows only the median and the 95th percentile).
--   build/cleave bench shape_matching --scene plate_brittle_weak --threads 1 --trace out/trace.tsv
--   build/cleave run plots/bench_trace.lua --set trace=out/trace.tsv [--set output=plots/out/trace.png]
-- Draws total, dynamics and fracture ms per frame for every run of one scene in the file (one per
-- thread count), and a second figure (<output>_pieces.<ext>) of its pieces and nodes over the
-- frames. A trace of several scenes (a bench run without --scene) needs --set scene=NAME.
local cl = require "cleave"

local p = cl.options {
  { name = "trace", type = "string", required = true,
    help = "tab-separated file written by `cleave bench shape_matching --trace FILE`" },
  { name = "output", type = "string", default = "plots/out/bench_trace.png",
    help = "figure of the times (.png .pdf .svg); the pieces go beside it" },
  { name = "scene", type = "string", help = "the scene to draw when the trace holds several" },
}

-- The runs of the file: { name = "<scene>, N thread(s)", frame = {}, total = {}, ... } each.
local function read_trace(path)
  local f, err = io.open(path, "r")
  if not f then error("bench_trace: cannot read --set trace=" .. path .. " (" .. tostring(err) .. ")", 0) end
  local runs, run, ln = {}, nil, 0
  local cols = { "frame", "total", "dynamics", "plasticity", "fracture", "cpu", "pieces", "nodes" }
  for line in f:lines() do
    ln = ln + 1
    local name = line:match("^# (.+, %d+ thread%(s%))$")
    if name then
      run = { name = name }
      for _, c in ipairs(cols) do run[c] = {} end
      runs[#runs + 1] = run
    elseif line:match("^%s*$") or line:match("^#") then -- blank lines between runs; column names
    else
      if not run then
        f:close()
        error(string.format("%s:%d: a row before the '# <scene>, N thread(s)' line of its run", path, ln), 0)
      end
      local vals = {}
      for field in line:gmatch("[^\t]+") do vals[#vals + 1] = tonumber(field) end
      if #vals ~= #cols then
        f:close()
        error(string.format("%s:%d: expected %d numbers separated by tabs (%s), got: %s", path, ln, #cols,
                            table.concat(cols, ", "), line), 0)
      end
      for i, c in ipairs(cols) do table.insert(run[c], vals[i]) end
    end
  end
  f:close()
  if #runs == 0 or #runs[1].frame == 0 then error(path .. ": no frames (is it a --trace file?)", 0) end
  return runs
end

-- The runs of one scene: the one named, or the only one in the file.
local function runs_of_scene(all, path, wanted)
  local names, seen = {}, {}
  for _, r in ipairs(all) do
    r.scene = r.name:match("^(.-),")
    if not seen[r.scene] then seen[r.scene], names[#names + 1] = true, r.scene end
  end
  if not wanted and #names > 1 then
    error(string.format("%s holds the scenes %s: choose one with --set scene=NAME", path,
                        table.concat(names, ", ")), 0)
  end
  wanted = wanted or names[1]
  if not seen[wanted] then
    error(string.format("--set scene=%s: not in %s (it holds %s)", wanted, path, table.concat(names, ", ")), 0)
  end
  local runs = {}
  for _, r in ipairs(all) do
    if r.scene == wanted then runs[#runs + 1] = r end
  end
  return runs
end

local runs = runs_of_scene(read_trace(p.trace), p.trace, p.scene)
local series, pieces = {}, {}
for _, r in ipairs(runs) do
  local tag = #runs > 1 and (" (" .. r.name:match("(%d+ thread)") .. ")") or ""
  series[#series + 1] = { x = r.frame, y = r.total, title = "total" .. tag }
  series[#series + 1] = { x = r.frame, y = r.dynamics, title = "dynamics" .. tag }
  series[#series + 1] = { x = r.frame, y = r.fracture, title = "fracture" .. tag }
  if #pieces == 0 then
    pieces[1] = { x = r.frame, y = r.pieces, title = "pieces" }
    pieces[2] = { x = r.frame, y = r.nodes, title = "nodes" }
  end
end
local scene = runs[1].scene
cl.output.mkdir(p.output:match("^(.*)/[^/]*$") or ".")
cl.plot.lines { series = series, xlabel = "frame", ylabel = "ms per frame", yrange = { 0, nil },
                title = scene .. ": time per frame", output = p.output }
local pieces_out = p.output:gsub("(%.%w+)$", "_pieces%1")
cl.plot.lines { series = pieces, xlabel = "frame", ylabel = "count", title = scene .. ": pieces and nodes",
                output = pieces_out }
print(string.format("bench_trace: %d run(s), %d frames: %s, %s", #runs, #runs[1].frame, p.output, pieces_out))
