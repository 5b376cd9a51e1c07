-- Figure 13 of Mandal, Chaudhuri and Chaudhuri (GRAPP 2025): the load against crack-mouth opening
-- displacement (CMOD) of the simulated Charpy test beside the laboratory curve. Our curve comes from
-- validation/charpy.lua (issue 13), run here as a child process (`cleave run validation/charpy.lua`,
-- with --set quick=true in quick mode); this script reads the CSV files it names or writes (columns
-- found by name: one holding "cmod", every one holding "load" or "force") and draws them in one
-- figure with the laboratory data files of data/validation/ that the validation names.
-- Without validation/charpy.lua in the tree the section says that the item needs it and no figure is
-- drawn.
--
--   cleave run experiments/papers/mandal_fig13.lua [--set quick=true]
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/lib/report.lua")
local V = dofile(here .. "/lib/validation.lua")

local o = R.options {}
local sec = R.section("mandal_fig13", o)
sec:text("Paper: Figure 13, \"The plot compares the load-crack mouth opening displacement (CMOD) curve of the simulated " ..
         "Charpy impact test with ground truth curves from actual laboratory experiments.\" Its text (sec 4.6): the " ..
         "experimental curve with its envelope and an XFEM curve \"as reported by (Areias and Belytschko, 2005)\", the " ..
         "Galerkin-enhanced and the plain graph-based FEM curves; \"our experimental results closely follow the " ..
         "real-world laboratory experiment results\"; the notched bar has 28k tets. No value of the curves is printed.")

local res, why = V.run("charpy", "charpy", o, o.quick and 120 or 3600)
if not res then
  sec:unavailable("Figure 13", "It needs the Charpy validation, validation/charpy.lua (issue 13), which is not in this " ..
                  "tree yet (" .. why .. "); when it lands this script runs it and draws its load-CMOD curves.")
  sec:finish()
  return
end
sec:text(string.format("`cleave run validation/charpy.lua%s` ran for %.1f s and %s (log: `%s`).",
                       o.quick and " --set quick=true" or "", res.seconds,
                       res.ok and "exited with status 0" or ("failed, status " .. tostring(res.status)), res.log))
local verdicts = V.verdicts(res.stdout)
if #verdicts > 0 then sec:text("Its verdicts:", "```\n" .. table.concat(verdicts, "\n") .. "\n```") end

-- A CSV's curves: its CMOD column against each load (or force) column, or nil.
local function curves_of(c)
  local xcol = V.column(c.names, { "cmod" })
  if not xcol then return nil end
  local out = {}
  for _, n in ipairs(c.names) do
    local l = n:lower()
    if n ~= xcol and (l:find("load") or l:find("force")) then
      local x, y = {}, {}
      for _, r in ipairs(c.rows) do
        if type(r[xcol]) == "number" and type(r[n]) == "number" then x[#x + 1], y[#y + 1] = r[xcol], r[n] end
      end
      if #x > 0 then out[#out + 1] = { x = x, y = y, xcol = xcol, ycol = n } end
    end
  end
  return #out > 0 and out or nil
end

local curves, rows, xname, yname = {}, {}, nil, nil
for _, c in ipairs(V.csvs(res.files)) do
  for _, k in ipairs(curves_of(c) or {}) do
    local peak, at = -math.huge, 0 / 0
    for i = 1, #k.x do if k.y[i] > peak then peak, at = k.y[i], k.x[i] end end
    curves[#curves + 1] = { x = k.x, y = k.y, title = c.path:match("[^/]+$") .. ": " .. k.ycol, style = "lines" }
    sec:row { item = c.path .. ":" .. k.ycol, points = #k.x, peak_load = peak, cmod_at_peak = at }
    rows[#rows + 1] = { c.path, k.xcol, k.ycol, #k.x, peak, at }
    xname, yname = xname or k.xcol, yname or k.ycol
  end
end
-- the laboratory data the validation compares with: the data/validation/*load_cmod*.csv files it
-- names in its output (their units are in their column names, as ours are)
local lab = io.popen("ls " .. cl.output.shell_quote(R.root .. "/data/validation") .. "/*load_cmod*.csv 2>/dev/null")
for p in lab and lab:lines() or function() end do
  local got = res.stdout:find(p:match("[^/]+$"), 1, true) and V.csvs { p }[1]
  for _, k in ipairs(got and curves_of(got) or {}) do
    curves[#curves + 1] = { x = k.x, y = k.y, title = "experiment: " .. k.ycol, style = "points" }
    sec:text(string.format("Laboratory data drawn: `%s`, column %s against %s.", p:match("data/.*$") or p, k.ycol, k.xcol))
  end
end
if lab then lab:close() end

local pngs = {}
for _, p in ipairs(res.files) do if p:match("%.png$") then pngs[#pngs + 1] = "`" .. p .. "`" end end
if #pngs > 0 then sec:text("The validation's own figures: " .. table.concat(pngs, ", ") .. ".") end
if #rows == 0 then
  sec:unavailable("Figure 13", "validation/charpy.lua ran but wrote no CSV with a CMOD and a load column that this script " ..
                  "could find (files seen: " .. (#res.files > 0 and table.concat(res.files, ", ") or "none") .. ").")
else
  sec:text("Curves read (columns as the validation names them; units are its own):")
  sec:table({ "file", "CMOD column", "load column", "points", "peak load", "CMOD at the peak" }, rows)
  if cl.plot.available() then
    local png = cl.plot.lines { series = curves, xlabel = xname, ylabel = yname, key = "top right", size = { 900, 600 },
                                title = "Charpy-like test: load against CMOD (validation/charpy.lua)",
                                output = o.out .. "/mandal_fig13.png" }
    sec:figure(png, "load against CMOD from validation/charpy.lua, with the laboratory data where the tree has it")
  end
end
sec:finish()
