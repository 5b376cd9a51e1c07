-- cleave.plot: figures drawn by gnuplot through a pipe.
--
--   plot.lines{ series = {...}, xlabel=, ylabel=, title=, logx=, logy=, xrange=, yrange=,
--               output = "x.png", size = {w, h}, key = "top left" | false }
--   plot.series{ xs, ys, title=, output=, ... }           one line, the short form (title names
--                                                         the line; plot_title the figure)
--   plot.bars{ labels = {...}, groups = {{title=, values=}, ...}, output=, ... }
--   plot.snapshot{ points=, triangles=, output=, view = {rot_x, rot_z}, ... }
--
-- Data goes to gnuplot inline as $datablocks, never through temporary data files, and the
-- script runs as a script file (gnuplot /dev/stdin) so the first error stops gnuplot with a
-- non-zero status; the module then raises a Lua error carrying gnuplot's own message. gnuplot
-- >= 5.4 is assumed (2D and 3D `with polygons`, GPVAL_TERMINALS).
--
-- Options every figure takes: output (.png via pngcairo, else libgd png; .pdf; .svg), size =
-- {w, h} pixels, title, font ("Family,size"), enhanced (gnuplot's ^_{} text markup; off by
-- default so names like load_min print as written), background, style (a gnuplot file loaded
-- before drawing; default plots/style.gp, false for none), and for lines/bars: xlabel, ylabel,
-- logx, logy, xrange/yrange = {lo, hi} (nil for automatic), key (placement string or false),
-- grid = false, commands = {extra gnuplot commands issued just before plotting}.
--
-- Every function returns the path of the figure it wrote (and a list of gnuplot warnings, if
-- any, as a second value).
local output = require "cleave.output"

local plot = {}
local fail = output.fail

--- The gnuplot command; CLEAVE_GNUPLOT overrides it.
plot.gnuplot = os.getenv("CLEAVE_GNUPLOT") or "gnuplot"

local q = output.shell_quote

-- ---------------------------------------------------------------------------------------------
-- locating gnuplot and the shared style

local gnuplot_checked = nil

local function check_gnuplot(level)
  if gnuplot_checked == plot.gnuplot then return end
  if not output.execute_ok("command -v " .. q(plot.gnuplot) .. " >/dev/null 2>&1") then
    fail("gnuplot not found: install gnuplot-nox (looked for '" .. plot.gnuplot .. "')")
  end
  gnuplot_checked = plot.gnuplot
end

--- True when gnuplot can be run (for scripts that make plots optional).
function plot.available()
  return pcall(check_gnuplot, 1)
end

local function file_exists(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

-- Where plots/style.gp is: CLEAVE_PLOT_STYLE names a file; in the source tree it sits two
-- folders above this file (lua/cleave/plot.lua); the build tree's copy of the modules finds the
-- source tree through cleave.config; an installed tree looks in <prefix>/share/cleave/plots
-- (this file being <prefix>/share/lua/5.1/cleave/plot.lua).
local function default_style_path()
  local env = os.getenv("CLEAVE_PLOT_STYLE")
  if env and env ~= "" then return env end
  local candidates = {}
  local src = debug.getinfo(1, "S").source
  if src:sub(1, 1) == "@" then
    local dir = src:sub(2):match("^(.*)/[^/]*$") or "."
    candidates[#candidates + 1] = dir .. "/../../plots/style.gp"
    candidates[#candidates + 1] = dir .. "/../../../cleave/plots/style.gp"
  end
  local ok, config = pcall(require, "cleave.config")
  if ok and type(config) == "table" and type(config.source_dir) == "string" then
    candidates[#candidates + 1] = config.source_dir .. "/plots/style.gp"
  end
  for _, p in ipairs(candidates) do
    if file_exists(p) then return p end
  end
  return nil
end

--- Path of the gnuplot style loaded before every figure (nil: none). Scripts may change it.
plot.style = default_style_path()

-- ---------------------------------------------------------------------------------------------
-- small helpers

-- A gnuplot string literal: single quotes take everything literally except '' for a quote.
local function gq(s)
  s = tostring(s):gsub("[\r\n]+", " ")
  return "'" .. s:gsub("'", "''") .. "'"
end
plot.quote = gq

local function num(v)
  if v ~= v or v == math.huge or v == -math.huge then return "NaN" end
  return string.format("%.10g", v)
end

-- Argument errors name the function: "plot.lines: series[2] ('sim') has no y".
local function argerr(fname, msg)
  fail("plot." .. fname .. ": " .. msg)
end

local function check_table(fname, opts)
  if type(opts) ~= "table" then
    argerr(fname, "expected a table of options, got " .. type(opts))
  end
end

-- Length of a list of numbers (Lua table, or cdata with an explicit count).
local function list_len(fname, what, v, n)
  if type(v) == "table" then return #v end
  if type(v) == "cdata" and type(n) == "number" then return n end
  argerr(fname, what .. " must be a list of numbers, got " .. type(v)
         .. (type(v) == "cdata" and " without a count n" or ""))
end

local function get_number(fname, what, v, i)
  local x = v[(type(v) == "cdata") and (i - 1) or i]
  local t = tonumber(x)
  if t == nil then
    argerr(fname, string.format("%s[%d] is %s, not a number", what, i, tostring(x)))
  end
  return t
end

local function range_str(fname, name, r)
  if r == nil then return nil end
  if type(r) ~= "table" then argerr(fname, name .. " must be {lo, hi}") end
  local lo, hi = r[1], r[2]
  if lo ~= nil and type(lo) ~= "number" or hi ~= nil and type(hi) ~= "number" then
    argerr(fname, name .. " must be {lo, hi} with numbers (nil for automatic)")
  end
  if lo and hi and not (lo < hi) then
    argerr(fname, string.format("%s = {%s, %s}: lo must be below hi", name, num(lo), num(hi)))
  end
  return "[" .. (lo and num(lo) or "*") .. ":" .. (hi and num(hi) or "*") .. "]"
end

local function color_str(fname, c)
  if c == nil then return nil end
  if type(c) == "number" then return string.format("'#%06x'", c) end
  if type(c) == "string" and c:match("^[#%w]+$") then return gq(c) end
  argerr(fname, "color must be '#rrggbb', a gnuplot colour name or 0xRRGGBB, got "
         .. tostring(c))
end

local function size_of(fname, opts, dw, dh)
  local s = opts.size
  if s == nil then return dw, dh end
  if type(s) ~= "table" or type(s[1]) ~= "number" or type(s[2]) ~= "number"
     or s[1] < 16 or s[2] < 16 or s[1] > 20000 or s[2] > 20000 then
    argerr(fname, "size must be {width, height} in pixels, each in [16, 20000]")
  end
  return math.floor(s[1]), math.floor(s[2])
end

-- The terminal follows the output's extension. Sizes are pixels; vector formats take them at
-- 100 px per inch.
local function terminal_lines(fname, out, w, h, opts)
  local ext = (out:match("%.([%w]+)$") or ""):lower()
  local enh = opts.enhanced and "enhanced" or "noenhanced"
  local bg = opts.background and (" background " .. color_str(fname, opts.background)) or ""
  if ext == "png" then
    -- pngcairo antialiases; the libgd png terminal is the fallback when cairo is missing.
    return string.format(
      "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
      .. "  set terminal pngcairo size %d,%d %s%s\n} else {\n"
      .. "  set terminal png size %d,%d %s%s\n}", w, h, enh, bg, w, h, enh, bg)
  elseif ext == "pdf" then
    return string.format("set terminal pdfcairo size %.2fin,%.2fin %s%s", w / 100, h / 100,
                         enh, bg)
  elseif ext == "svg" then
    return string.format("set terminal svg size %d,%d %s%s", w, h, enh, bg)
  end
  argerr(fname, "output '" .. out .. "': the extension must be .png, .pdf or .svg")
end

local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("*a")
  f:close()
  return s
end

-- Run a gnuplot script. `blocks` (datablock text) goes first so that gnuplot has read all the
-- data before it can stop on an error in the commands: it never quits while we are still
-- writing a large block into the pipe.
local function run(fname, out, blocks, commands)
  check_gnuplot(3)
  output.mkdir_for(out)
  os.remove(out)
  local errfile, statfile = os.tmpname(), os.tmpname()
  local cmd = q(plot.gnuplot) .. " /dev/stdin >/dev/null 2>" .. q(errfile)
              .. "; echo $? >" .. q(statfile)
  local pipe = io.popen(cmd, "w")
  if not pipe then
    os.remove(errfile) os.remove(statfile)
    fail("plot." .. fname .. ": cannot start gnuplot")
  end
  for _, b in ipairs(blocks) do pipe:write(b) end
  pipe:write(table.concat(commands, "\n"), "\nunset output\n")
  pipe:close()
  local errtext = read_all(errfile)
  local status = tonumber(read_all(statfile):match("%d+"))
  os.remove(errfile) os.remove(statfile)
  -- Run as a script file, gnuplot stops at the first error with a non-zero status; anything it
  -- says on stderr otherwise (warnings, a missing font) is handed back as warnings.
  local warnings = {}
  for line in errtext:gmatch("[^\n]+") do
    if line:match("%S") then warnings[#warnings + 1] = line end
  end
  if status ~= 0 then
    os.remove(out)
    local msg = errtext:gsub("^%s+", ""):gsub("%s+$", "")
    fail(string.format("plot.%s: gnuplot failed (exit status %s) drawing '%s':\n%s", fname,
                        tostring(status), out, msg))
  end
  local size = output.file_size(out)
  if not size or size == 0 then
    fail(string.format("plot.%s: gnuplot wrote nothing to '%s'", fname, out))
  end
  return out, (#warnings > 0) and warnings or nil
end

-- Commands common to every figure: terminal, style, output, title.
local function preamble(fname, opts, dw, dh)
  local out = opts.output
  if type(out) ~= "string" or out == "" then
    argerr(fname, "output must name the figure file (.png, .pdf or .svg)")
  end
  local w, h = size_of(fname, opts, dw, dh)
  local c = { terminal_lines(fname, out, w, h, opts) }
  local style = opts.style
  if style == nil then style = plot.style end
  if style then
    if not file_exists(style) then argerr(fname, "style file '" .. style .. "' not found") end
    c[#c + 1] = "load " .. gq(style)
  end
  if opts.font then c[#c + 1] = "set termoption font " .. gq(opts.font) end
  c[#c + 1] = "set output " .. gq(out)
  if opts.title then c[#c + 1] = "set title " .. gq(opts.title) end
  return out, c
end

local function axes_commands(fname, opts, c)
  if opts.xlabel then c[#c + 1] = "set xlabel " .. gq(opts.xlabel) end
  if opts.ylabel then c[#c + 1] = "set ylabel " .. gq(opts.ylabel) end
  if opts.logx then c[#c + 1] = "set logscale x" end
  if opts.logy then c[#c + 1] = "set logscale y" end
  local xr = range_str(fname, "xrange", opts.xrange)
  local yr = range_str(fname, "yrange", opts.yrange)
  if xr then c[#c + 1] = "set xrange " .. xr end
  if yr then c[#c + 1] = "set yrange " .. yr end
  if opts.key == false then
    c[#c + 1] = "unset key"
  elseif type(opts.key) == "string" then
    c[#c + 1] = "set key " .. opts.key
  elseif opts.key ~= nil and opts.key ~= true then
    argerr(fname, "key must be a gnuplot key placement string ('top left', ...) or false")
  end
  if opts.grid == false then c[#c + 1] = "unset grid" end
  for _, extra in ipairs(opts.commands or {}) do c[#c + 1] = extra end
end

-- ---------------------------------------------------------------------------------------------
-- line plots with bands

local line_styles = {
  lines = "lines", points = "points", linespoints = "linespoints", steps = "steps",
  fsteps = "fsteps", histeps = "histeps", impulses = "impulses", dots = "dots",
  dashed = "lines",
}

--- Line plot of several series. Each series is {x=, y=, title=, style=, color=, width=, dash=,
--- point=, labels=} (style: lines, points, linespoints, steps, dashed, ...; default lines; labels:
--- a text per point, written beside it, as a sweep's Pareto plot names its points), or a band
--- {kind="band", x=, ylo=, yhi=, title=, color=, alpha=} drawn as a translucent filled region
--- (an experimental envelope). Bands are drawn first, lines on top. Lists are Lua arrays of
--- numbers (or cdata arrays with n = count); NaN leaves a gap. On a log axis every value must be
--- positive.
function plot.lines(opts)
  check_table("lines", opts)
  local series = opts.series
  if type(series) ~= "table" or #series == 0 then
    argerr("lines", "series must be a non-empty list of {x=, y=, title=} tables")
  end
  local out, c = preamble("lines", opts, 800, 500)
  axes_commands("lines", opts, c)
  local blocks, bands, lines = {}, {}, {}
  local nlines = 0
  for si, s in ipairs(series) do
    if type(s) ~= "table" then argerr("lines", "series[" .. si .. "] must be a table") end
    local label = string.format("series[%d]%s", si, s.title and (" ('" .. s.title .. "')") or "")
    local band = s.kind == "band"
    if s.kind ~= nil and s.kind ~= "band" and s.kind ~= "line" then
      argerr("lines", label .. ": kind must be 'line' or 'band', got " .. tostring(s.kind))
    end
    local cols = band and { "x", "ylo", "yhi" } or { "x", "y" }
    local n
    for _, k in ipairs(cols) do
      if s[k] == nil then argerr("lines", label .. " has no " .. k) end
      local nk = list_len("lines", label .. "." .. k, s[k], s.n)
      if n and nk ~= n then
        argerr("lines", string.format("%s: %s has %d values but %s has %d", label, k, nk,
                                      cols[1], n))
      end
      n = nk
    end
    if n == 0 then argerr("lines", label .. " is empty") end
    if s.labels ~= nil and (band or type(s.labels) ~= "table" or #s.labels ~= n) then
      argerr("lines", label .. ": labels must be a list of " .. n .. " texts, one per point (lines only)")
    end
    local rows = { string.format("$s%d << EOD\n", si) }
    for i = 1, n do
      local vals = {}
      for j, k in ipairs(cols) do
        local v = get_number("lines", label .. "." .. k, s[k], i)
        local logaxis = (j == 1) and opts.logx or (j > 1 and opts.logy)
        if logaxis and v == v and v <= 0 then
          argerr("lines", string.format("%s.%s[%d] = %s but the %s axis is logarithmic", label,
                                        k, i, num(v), j == 1 and "x" or "y"))
        end
        vals[j] = num(v)
      end
      if s.labels then
        vals[#vals + 1] = '"' .. tostring(s.labels[i]):gsub("[\r\n]+", " "):gsub('"', "'") .. '"'
      end
      rows[#rows + 1] = table.concat(vals, " ") .. "\n"
    end
    rows[#rows + 1] = "EOD\n"
    blocks[#blocks + 1] = table.concat(rows)
    local title = s.title and ("title " .. gq(s.title)) or "notitle"
    local color = color_str("lines", s.color)
    if band then
      local alpha = s.alpha or 0.25
      if type(alpha) ~= "number" or alpha < 0 or alpha > 1 then
        argerr("lines", label .. ": alpha must be in [0, 1], got " .. tostring(alpha))
      end
      -- grey unless told: an envelope is context, the lines are the result
      bands[#bands + 1] = string.format(
        "$s%d using 1:2:3 with filledcurves fillstyle transparent solid %.3f noborder"
        .. " fillcolor rgb %s %s", si, alpha, color or "'#808080'", title)
    else
      local st = s.style or "lines"
      local with
      if st:match("^with ") then
        with = st
      else
        local w = line_styles[st]
        if not w then
          local names = {}
          for k in pairs(line_styles) do names[#names + 1] = k end
          table.sort(names)
          argerr("lines", label .. ": style '" .. tostring(st) .. "' is not one of "
                 .. table.concat(names, ", ") .. " (or a raw 'with ...' clause)")
        end
        -- Lines take the style's colours in order, whatever bands come between them.
        nlines = nlines + 1
        with = "with " .. w .. " linetype " .. nlines
        if color then with = with .. " linecolor rgb " .. color end
        if s.width then with = with .. " linewidth " .. num(s.width) end
        if s.dash or st == "dashed" then with = with .. " dashtype " .. num(s.dash or 2) end
        if s.point then with = with .. " pointtype " .. num(s.point) end
      end
      lines[#lines + 1] = string.format("$s%d using 1:2 %s %s", si, with, title)
      if s.labels then -- each point's text beside it
        lines[#lines + 1] = string.format("$s%d using 1:2:3 with labels offset character 0.6,0.4 left "
                                          .. "font ',8' textcolor rgb '#404040' notitle", si)
      end
    end
  end
  local all = {}
  for _, b in ipairs(bands) do all[#all + 1] = b end
  for _, l in ipairs(lines) do all[#all + 1] = l end
  c[#c + 1] = "plot " .. table.concat(all, ", \\\n     ")
  return run("lines", out, blocks, c)
end

--- One series, the short form: plot.series{ xs, ys, title=, output=, xlabel=, ... }.
function plot.series(opts)
  check_table("series", opts)
  local o = {}
  for k, v in pairs(opts) do
    if type(k) ~= "number" then o[k] = v end
  end
  o.series = { { x = opts[1] or opts.x, y = opts[2] or opts.y, title = opts.title,
                 style = opts.style, color = opts.color } }
  o.title = opts.plot_title
  return plot.lines(o)
end

-- ---------------------------------------------------------------------------------------------
-- bar charts

--- Clustered (or stacked = true) bar chart: labels name the clusters along x, each group is one
--- bar per label, {title=, values={...}, color=}. Used for timings (ms per phase per solver).
function plot.bars(opts)
  check_table("bars", opts)
  local labels, groups = opts.labels, opts.groups
  if type(labels) ~= "table" or #labels == 0 then
    argerr("bars", "labels must be a non-empty list of category names")
  end
  if type(groups) ~= "table" or #groups == 0 then
    argerr("bars", "groups must be a non-empty list of {title=, values=} tables")
  end
  for gi, g in ipairs(groups) do
    if type(g) ~= "table" or type(g.values) ~= "table" then
      argerr("bars", "groups[" .. gi .. "] must be a table with values = {...}")
    end
    if #g.values ~= #labels then
      argerr("bars", string.format("groups[%d]%s has %d values but there are %d labels", gi,
             g.title and (" ('" .. g.title .. "')") or "", #g.values, #labels))
    end
    for i = 1, #labels do
      local v = g.values[i]
      if type(v) ~= "number" then
        argerr("bars", string.format("groups[%d].values[%d] is %s, not a number", gi, i,
                                     tostring(v)))
      end
      if opts.logy and v <= 0 then
        argerr("bars", string.format("groups[%d].values[%d] = %s but the y axis is logarithmic",
                                     gi, i, num(v)))
      end
    end
  end
  local out, c = preamble("bars", opts, 800, 500)
  axes_commands("bars", opts, c)
  local rows = { "$bars << EOD\n" }
  for i, l in ipairs(labels) do
    local vals = { '"' .. tostring(l):gsub('[\r\n]+', ' '):gsub('"', "'") .. '"' }
    for gi, g in ipairs(groups) do vals[gi + 1] = num(g.values[i]) end
    rows[#rows + 1] = table.concat(vals, " ") .. "\n"
  end
  rows[#rows + 1] = "EOD\n"
  c[#c + 1] = "set style data histograms"
  if opts.stacked then
    c[#c + 1] = "set style histogram rowstacked"
  else
    c[#c + 1] = "set style histogram clustered gap 1"
  end
  c[#c + 1] = "set style fill solid 0.85 border rgb '#404040'"
  c[#c + 1] = "set boxwidth 0.9 relative"
  c[#c + 1] = "set grid noxtics"
  if not opts.yrange and not opts.logy then c[#c + 1] = "set yrange [0:*]" end
  c[#c + 1] = "set xtics nomirror scale 0"
  local parts = {}
  for gi, g in ipairs(groups) do
    local color = color_str("bars", g.color)
    parts[gi] = string.format("$bars using %d%s%s %s", gi + 1, gi == 1 and ":xtic(1)" or "",
                              color and (" fillcolor rgb " .. color) or "",
                              g.title and ("title " .. gq(g.title)) or "notitle")
  end
  c[#c + 1] = "plot " .. table.concat(parts, ", \\\n     ")
  return run("bars", out, { table.concat(rows) }, c)
end

-- ---------------------------------------------------------------------------------------------
-- shaded 3D snapshot of a triangle surface

-- Points as a flat Lua list {x,y,z, x,y,z, ...}, a nested list {{x,y,z}, ...}, or a cdata
-- double array with npoints given. Returns flat Lua arrays X, Y, Z (1-based) and the count.
local function gather_points(p, npoints)
  local X, Y, Z = {}, {}, {}
  if type(p) == "table" then
    if type(p[1]) == "table" then
      for i = 1, #p do
        local v = p[i]
        X[i], Y[i], Z[i] = tonumber(v[1]), tonumber(v[2]), tonumber(v[3])
        if not (X[i] and Y[i] and Z[i]) then
          argerr("snapshot", "points[" .. i .. "] must be {x, y, z}")
        end
      end
      return X, Y, Z, #p
    end
    if #p % 3 ~= 0 then
      argerr("snapshot", "a flat points list needs 3 numbers per point; got " .. #p)
    end
    local n = #p / 3
    for i = 1, n do
      X[i], Y[i], Z[i] = tonumber(p[3 * i - 2]), tonumber(p[3 * i - 1]), tonumber(p[3 * i])
      if not (X[i] and Y[i] and Z[i]) then
        argerr("snapshot", "points: point " .. i .. " is not three numbers")
      end
    end
    return X, Y, Z, n
  elseif type(p) == "cdata" then
    if type(npoints) ~= "number" then
      argerr("snapshot", "points given as cdata need npoints = count")
    end
    for i = 1, npoints do
      X[i], Y[i], Z[i] = p[3 * i - 3], p[3 * i - 2], p[3 * i - 1]
    end
    return X, Y, Z, npoints
  end
  argerr("snapshot", "points must be a list {x,y,z,...} or {{x,y,z},...}, got " .. type(p))
end

-- Triangles as a flat list {a,b,c, ...}, nested {{a,b,c}, ...} or cdata int32 with ntriangles.
-- Returns a flat 1-based Lua array of 0-based indices and the count.
local function gather_triangles(t, ntri)
  local T = {}
  if type(t) == "table" then
    if type(t[1]) == "table" then
      for i = 1, #t do
        local v = t[i]
        T[3 * i - 2], T[3 * i - 1], T[3 * i] = v[1], v[2], v[3]
      end
      return T, #t
    end
    if #t % 3 ~= 0 then
      argerr("snapshot", "a flat triangles list needs 3 indices per triangle; got " .. #t)
    end
    for i = 1, #t do T[i] = t[i] end
    return T, #t / 3
  elseif type(t) == "cdata" then
    if type(ntri) ~= "number" then
      argerr("snapshot", "triangles given as cdata need ntriangles = count")
    end
    for i = 1, 3 * ntri do T[i] = tonumber(t[i - 1]) end
    return T, ntri
  end
  argerr("snapshot", "triangles must be a list {a,b,c,...} or {{a,b,c},...}, got " .. type(t))
end

local function normalize3(x, y, z)
  local l = math.sqrt(x * x + y * y + z * z)
  if l == 0 then return 0, 0, 0 end
  return x / l, y / l, z / l
end

-- Closed and consistently oriented: every directed edge appears once and its reverse appears
-- too. Then, seen orthographically, every back face is hidden behind a front face and can be
-- dropped, halving what gnuplot draws.
local function closed_and_oriented(T, ntri, npts)
  local seen = {}
  local key = function(a, b) return a * npts + b end
  for t = 0, ntri - 1 do
    local a, b, c = T[3 * t + 1], T[3 * t + 2], T[3 * t + 3]
    for _, e in ipairs({ key(a, b), key(b, c), key(c, a) }) do
      if seen[e] then return false end
      seen[e] = true
    end
  end
  for t = 0, ntri - 1 do
    local a, b, c = T[3 * t + 1], T[3 * t + 2], T[3 * t + 3]
    if not (seen[key(b, a)] and seen[key(c, b)] and seen[key(a, c)]) then return false end
  end
  return true
end

--- Shaded picture of a triangle surface, to PNG (or PDF/SVG).
---   points    = {x,y,z,...} or {{x,y,z},...} (or cdata with npoints)
---   triangles = {a,b,c,...} or {{a,b,c},...}: 1-based like mesh:cells(), unless an index is 0
---               (then 0-based, like the C API); base = 0 or 1 says it explicitly
---   or surface = an object with :points() and :cells() (a mesh handle), or a body (:surface()).
---   up        = "y" (default; the scene's up axis is +y) or "z"
---   view      = {rot_x, rot_z} degrees, as gnuplot's `set view` after bringing `up` to gnuplot's z
---               (default {75, 30}: a little above, turned 30 degrees)
---   light     = {x, y, z}: direction towards the light in the view frame (x right, y up,
---               z towards the viewer); default upper left, in front
---   color     = base colour '#rrggbb' (default a light clay); background = '#rrggbb'
---   colors    = a base colour per triangle instead: a list (or cdata) of 0xRRGGBB integers, one
---               per triangle in the order given (to colour pieces or clusters apart)
---   size      = {w, h} pixels (default 900 x 900); title = string; cull = true/false (default:
---               drop back faces only when the surface is closed and consistently oriented)
--- Shading is Lambert (two-sided: a back face is lit as if it faced the viewer) plus ambient and
--- a small Blinn-Phong highlight, computed per triangle in Lua; triangles are projected and
--- sorted back to front here (painter's algorithm) and gnuplot fills them as 2D polygons, which
--- keeps ~100k triangles within a few seconds.
function plot.snapshot(opts)
  check_table("snapshot", opts)
  local pts, tris = opts.points, opts.triangles
  local surf = opts.surface or opts.mesh
  local np_hint, nt_hint = opts.npoints, opts.ntriangles
  local base = opts.base
  if surf ~= nil then
    -- Handles raise on unknown fields, so probe for methods under pcall.
    local function method(obj, name)
      local ok, m = pcall(function() return obj[name] end)
      if ok and type(m) == "function" then return m end
      return nil
    end
    if not method(surf, "cells") and method(surf, "surface") then
      local ok, s2 = pcall(surf.surface, surf)
      if not ok then argerr("snapshot", "surface: " .. tostring(s2)) end
      surf = s2
    end
    if not (method(surf, "points") and method(surf, "cells")) then
      argerr("snapshot", "surface must be a triangle mesh or a body (with :points() and :cells()"
             .. " or :surface()), got " .. type(surf))
    end
    if method(surf, "info") then
      local ok, info = pcall(surf.info, surf)
      if ok and type(info) == "table" and info.kind ~= nil and info.kind ~= "triangles" then
        argerr("snapshot", "surface must be a triangle mesh, got a mesh of " .. tostring(info.kind)
               .. " (take mesh:boundary() of a tet mesh)")
      end
    end
    -- cleave meshes hand out flat lists with 1-based cells.
    local ok, p, t = pcall(function() return surf:points("flat"), surf:cells("flat") end)
    if not ok then argerr("snapshot", "surface: " .. tostring(p)) end
    pts, tris = p, t
    if base == nil then base = 1 end
  end
  if pts == nil or tris == nil then
    argerr("snapshot", "give points= and triangles=, or surface= a mesh handle")
  end
  local X, Y, Z, np = gather_points(pts, np_hint)
  local T, nt = gather_triangles(tris, nt_hint)
  if np == 0 or nt == 0 then argerr("snapshot", "the surface is empty") end

  -- index base
  local imin, imax = math.huge, -math.huge
  for i = 1, 3 * nt do
    local v = T[i]
    if type(v) ~= "number" or v ~= math.floor(v) then
      argerr("snapshot", string.format("triangle %d has index %s", math.floor((i - 1) / 3) + 1,
                                       tostring(v)))
    end
    if v < imin then imin = v end
    if v > imax then imax = v end
  end
  if base == nil then base = (imin == 0) and 0 or 1 end
  if base ~= 0 and base ~= 1 then argerr("snapshot", "base must be 0 or 1") end
  if imin < base or imax > np - 1 + base then
    argerr("snapshot", string.format("triangle indices span [%d, %d] but %d-based indices into %d"
           .. " points must lie in [%d, %d]", imin, imax, base, np, base, np - 1 + base))
  end
  if base == 1 then
    for i = 1, 3 * nt do T[i] = T[i] - 1 end
  end
  for i = 1, np do
    local x, y, z = X[i], Y[i], Z[i]
    if x ~= x or y ~= y or z ~= z or math.abs(x) == math.huge or math.abs(y) == math.huge
       or math.abs(z) == math.huge then
      argerr("snapshot", "point " .. i .. " is not finite")
    end
  end

  -- view: bring `up` to z, then gnuplot's rotations (about z by rot_z, then about the screen's
  -- horizontal axis by rot_x; row vector times matrix as in gnuplot's util3d.c), so the same
  -- angles give the same picture as `set view rot_x, rot_z`.
  local up = opts.up or "y"
  if up ~= "y" and up ~= "z" then argerr("snapshot", "up must be 'y' or 'z'") end
  local view = opts.view or { 75, 30 }
  if type(view) ~= "table" or type(view[1]) ~= "number" or type(view[2]) ~= "number" then
    argerr("snapshot", "view must be {rot_x, rot_z} in degrees")
  end
  local rx, rz = math.rad(view[1]), math.rad(view[2])
  local ca, sa, cb, sb = math.cos(rz), math.sin(rz), math.cos(rx), math.sin(rx)
  local SX, SY, SD = {}, {}, {}
  for i = 1, np do
    local x, y, z = X[i], Y[i], Z[i]
    if up == "y" then y, z = -z, y end -- a +90 degree turn about x: +y becomes +z
    local x1, y1 = x * ca + y * sa, -x * sa + y * ca
    SX[i], SY[i], SD[i] = x1, y1 * cb + z * sb, -y1 * sb + z * cb
  end

  local light = opts.light or { -0.45, 0.55, 0.70 }
  if type(light) ~= "table" or #light ~= 3 then argerr("snapshot", "light must be {x, y, z}") end
  local lx, ly, lz = normalize3(light[1], light[2], light[3])
  if lx == 0 and ly == 0 and lz == 0 then argerr("snapshot", "light must not be zero") end
  local hx, hy, hz = normalize3(lx, ly, lz + 1) -- Blinn half vector, viewer along +z
  local color = opts.color or "#d9c7a8"
  if type(color) ~= "string" or not color:match("^#%x%x%x%x%x%x$") then
    argerr("snapshot", "color must be '#rrggbb', got " .. tostring(color))
  end
  local br = tonumber(color:sub(2, 3), 16) / 255
  local bg = tonumber(color:sub(4, 5), 16) / 255
  local bb = tonumber(color:sub(6, 7), 16) / 255
  local colors = opts.colors
  if colors ~= nil then
    local ok = type(colors) == "table" and #colors >= nt or type(colors) == "cdata"
    if not ok then argerr("snapshot", "colors must give one 0xRRGGBB integer per triangle (" .. nt .. ")") end
  end
  local ambient, diffuse, specular, shininess = 0.20, 0.72, 0.15, 24
  local fx, fy, fz = normalize3(0.8, 0.1, 0.6)
  local fill_strength = 0.22

  local cull = opts.cull
  local flip = false
  if cull == nil then
    cull = closed_and_oriented(T, nt, np)
  end
  if cull then
    -- Outward or inward? The signed volume (divergence theorem) of a closed surface says.
    local vol = 0
    for t = 0, nt - 1 do
      local a, b, c = T[3 * t + 1] + 1, T[3 * t + 2] + 1, T[3 * t + 3] + 1
      vol = vol + X[a] * (Y[b] * Z[c] - Z[b] * Y[c]) - Y[a] * (X[b] * Z[c] - Z[b] * X[c])
                + Z[a] * (X[b] * Y[c] - Y[b] * X[c])
    end
    flip = vol < 0
  end

  -- shade and keep the visible triangles
  local order, depth, rgb = {}, {}, {}
  local kept = 0
  for t = 0, nt - 1 do
    local a, b, c = T[3 * t + 1] + 1, T[3 * t + 2] + 1, T[3 * t + 3] + 1
    local ux, uy, uz = SX[b] - SX[a], SY[b] - SY[a], SD[b] - SD[a]
    local vx, vy, vz = SX[c] - SX[a], SY[c] - SY[a], SD[c] - SD[a]
    local nx, ny, nz = normalize3(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx)
    if flip then nx, ny, nz = -nx, -ny, -nz end
    if not (cull and nz < 0) then
      if nz < 0 then nx, ny, nz = -nx, -ny, -nz end -- two-sided lighting
      local lam = nx * lx + ny * ly + nz * lz
      if lam < 0 then lam = 0 end
      local sp = nx * hx + ny * hy + nz * hz
      sp = sp > 0 and specular * sp ^ shininess or 0
      -- a weak fill light from the right keeps the shadow side readable
      local fill = nx * fx + ny * fy + nz * fz
      if fill < 0 then fill = 0 end
      local k = ambient + diffuse * lam + fill_strength * fill
      if colors then
        local cv = tonumber(colors[type(colors) == "table" and t + 1 or t])
        br, bg, bb = math.floor(cv / 65536) % 256 / 255, math.floor(cv / 256) % 256 / 255, cv % 256 / 255
      end
      local r = math.min(255, math.floor(255 * (br * k + sp) + 0.5))
      local g = math.min(255, math.floor(255 * (bg * k + sp) + 0.5))
      local bl = math.min(255, math.floor(255 * (bb * k + sp) + 0.5))
      kept = kept + 1
      order[kept] = t
      depth[t] = SD[a] + SD[b] + SD[c]
      rgb[t] = r * 65536 + g * 256 + bl
    end
  end
  table.sort(order, function(i, j) return depth[i] < depth[j] end)

  -- Screen coordinates scaled to [0, 10000] across the larger extent, so one decimal is plenty.
  local xmin, xmax, ymin, ymax = math.huge, -math.huge, math.huge, -math.huge
  for i = 1, np do
    if SX[i] < xmin then xmin = SX[i] end
    if SX[i] > xmax then xmax = SX[i] end
    if SY[i] < ymin then ymin = SY[i] end
    if SY[i] > ymax then ymax = SY[i] end
  end
  local ext = math.max(xmax - xmin, ymax - ymin)
  if ext <= 0 then ext = 1 end
  local sc = 10000 / ext
  local buf = { "$tri << EOD\n" }
  local fmt = string.format
  for k = 1, kept do
    local t = order[k]
    local col = rgb[t]
    local a, b, c = T[3 * t + 1] + 1, T[3 * t + 2] + 1, T[3 * t + 3] + 1
    buf[#buf + 1] = fmt("%.1f %.1f %d\n%.1f %.1f %d\n%.1f %.1f %d\n\n",
      (SX[a] - xmin) * sc, (SY[a] - ymin) * sc, col,
      (SX[b] - xmin) * sc, (SY[b] - ymin) * sc, col,
      (SX[c] - xmin) * sc, (SY[c] - ymin) * sc, col)
  end
  buf[#buf + 1] = "EOD\n"

  local o2 = {}
  for k, v in pairs(opts) do o2[k] = v end
  if o2.background == nil then o2.background = "#ffffff" end
  local out, c = preamble("snapshot", o2, 900, 900)
  local pad = 0.04 * 10000
  c[#c + 1] = "unset border; unset tics; unset key; unset grid"
  c[#c + 1] = "set margins 0,0,0," .. (opts.title and "3" or "0")
  c[#c + 1] = "set size ratio -1"
  c[#c + 1] = string.format("set xrange [%.1f:%.1f]", -pad, (xmax - xmin) * sc + pad)
  c[#c + 1] = string.format("set yrange [%.1f:%.1f]", -pad, (ymax - ymin) * sc + pad)
  -- A hairline border in the fill colour closes the antialiasing seams between neighbours.
  c[#c + 1] = "plot $tri using 1:2:3 with polygons fillstyle solid 1.0 noborder"
              .. " fillcolor rgb variable notitle"
  local path, warnings = run("snapshot", out, { table.concat(buf) }, c)
  return path, warnings, { triangles = nt, drawn = kept, culled = cull and true or false }
end

-- public entry points raise at the caller's line
for _, name in ipairs { "lines", "series", "bars", "snapshot" } do plot[name] = output.api(plot[name]) end

return plot
