-- cleave.sweep: parameter sweeps (cl.sweep). A sweep is a set of points (a full grid, an explicit
-- list, or a seeded random or Latin hypercube sample) and a function that runs one point and
-- returns named numbers; cl.sweep runs the points in worker processes, appends each finished one
-- to a CSV results file, resumes, and writes job files for Slurm and GNU parallel.
--
--   local sw = cl.sweep {
--     name = "bar_resolution", what = "tip sag and cost against the tet size",
--     scene = scenes.get("corotational/twisted_bar"),     -- a cl.scene: points set its parameters
--     grid = { max_volume = { 2e-5, 1e-5, 5e-6 }, young = { 1e5, 2e5 } },
--     fixed = { frames = 60 },
--     outputs = { "ms_per_frame", "volume_change" },       -- the columns each point returns
--     measure = function(built, p) ... return { ms_per_frame = ..., volume_change = ... } end,
--     quick = { grid = { max_volume = { 2e-5 } }, fixed = { frames = 3 } },
--   }
--   sw:lines { x = "max_volume", y = "ms_per_frame", by = "young", output = "out/sweeps/cost.png" }
--
-- `cleave sweep SCRIPT` (or `cleave run SCRIPT`) runs the script; cl.sweep reads the command line
-- (--jobs, --point, --emit, --results, --timeout, --retry, --threads, --chunk, --plan, --set
-- quick=true) and either runs every point not yet in the results file and returns (the script's
-- plots follow), or runs the one point --point names, or writes a job file; those two exit the
-- process when done. docs/LUA_API.md ("Sweeps") has the whole story.
--
-- Each point runs in a forked child (cleave.process): an error, a blow-up (a non-finite result,
-- or the world stopped on NaN), a time limit passed or a signal is recorded as the point's status
-- with a message; the other points go on. The runner holds a lock per running point (a byte of
-- <results>.lock, released when the runner dies however it dies), so two runs of one sweep never
-- run a point twice, and it appends the row under the file's lock after re-reading what others
-- wrote (cleave.sweep_file), so a point is never recorded twice either.
local ffi = require "ffi"
local bit = require "bit"
local schema = require "cleave.schema"
local output = require "cleave.output"
local process = require "cleave.process"
local progress = require "cleave.progress"
local sfile = require "cleave.sweep_file"

local raise, show = schema.raise, schema.show

local M = {}
M.statuses = { "ok", "error", "blowup", "timeout", "signal" }

-- ---- the definition ----------------------------------------------------------------------------

local definition = {
  { name = "name", type = "string", required = true, help = "the sweep's name (an identifier): the results file and job names" },
  { name = "what", type = "string", default = "", help = "one line saying what the sweep measures" },
  { name = "scene", type = "any", help = "a cl.scene: the points set its parameters, checked against its schema" },
  { name = "fixed", type = "table", default = {}, help = "parameters every point takes (scene parameters, or run's)" },
  { name = "grid", type = "table", help = "{name = {values...}, ...}: every combination (a full grid)" },
  { name = "points", type = "table", help = "an explicit list of points, each {name = value, ...}" },
  { name = "sample", type = "table", help = "{method = 'random' or 'lhs', n =, seed =, ranges = {name = {lo, hi [, log = true] [, integer = true]} or {values = {...}}}}" },
  { name = "measure", type = "function", help = "function(built, params) -> {output = number, ...}: a scene sweep's point (default: run the frames, time them)" },
  { name = "run", type = "function", help = "function(params) -> {output = number, ...}: a point of a sweep without a scene" },
  { name = "outputs", type = "table", required = true, help = "names of the numbers a point returns, in column order" },
  { name = "timeout", type = "number", default = 0, unit = "s", range = { 0, math.huge }, help = "a point's time limit (0 = none); --timeout overrides" },
  { name = "results", type = "string", help = "results file (default out/sweeps/<name>.csv; quick mode adds -quick before .csv)" },
  { name = "quick", type = "table", default = {}, help = "the smoke test (--set quick=true): grid, points, sample, fixed (merged) or timeout in place of the sweep's" },
}

local quick_spec = {
  { name = "grid", type = "table", help = "the quick grid" },
  { name = "points", type = "table", help = "the quick points" },
  { name = "sample", type = "table", help = "the quick sample" },
  { name = "fixed", type = "table", help = "fixed values put over the sweep's" },
  { name = "timeout", type = "number", unit = "s", range = { 0, math.huge }, help = "the quick time limit" },
}

local sample_spec = {
  { name = "method", type = "enum", values = { "random", "lhs" }, default = "lhs", help = "uniform random points, or a Latin hypercube (each range cut in n strata, each stratum used once)" },
  { name = "n", type = "integer", required = true, range = { 1, 1e6 }, help = "number of points" },
  { name = "seed", type = "integer", default = 1, range = { 0, 2 ^ 53 }, help = "seed: the same seed gives the same points everywhere" },
  { name = "ranges", type = "table", required = true, help = "name = {lo, hi [, log = true] [, integer = true]} or {values = {...}}" },
}

-- The command-line options (`cleave sweep` turns its flags into these; `cleave run` takes --set).
M.options_spec = {
  { name = "jobs", type = "integer", default = 0, range = { 0, 4096 }, help = "worker processes (0 = as many as cores); Slurm's %K and parallel's -j in job files" },
  { name = "point", type = "integer", default = -1, range = { -1, 2 ^ 31 }, help = "run only this point (0-based) and exit (-1 = all)" },
  { name = "emit", type = "enum", values = { "none", "slurm", "parallel" }, default = "none", help = "write a job file instead of running" },
  { name = "results", type = "string", default = "", help = "results file (default: the sweep's)" },
  { name = "timeout", type = "number", default = -1, unit = "s", range = { -1, math.huge }, help = "per-point time limit (-1 = the sweep's, 0 = none)" },
  { name = "retry", type = "boolean", default = false, help = "run again the points whose last row is not ok" },
  { name = "fresh", type = "boolean", default = false, help = "run again the points whose last row another build of cleave (git revision) wrote" },
  { name = "threads", type = "integer", default = -1, range = { -1, 1024 }, help = "OpenMP threads per point (-1 = cores / jobs locally, the machine's default for --point; 0 = the machine's default)" },
  { name = "chunk", type = "integer", default = 1, range = { 1, 1e6 }, help = "points per Slurm array task" },
  { name = "plan", type = "string", default = "", help = "the point plan a job file was written for (the task refuses another)" },
  { name = "job_file", type = "string", default = "", help = "where --emit writes (default beside the results file)" },
  { name = "quick", type = "boolean", default = false, help = "the sweep's smoke test (its quick settings)" },
}

local function is_scalar(v)
  local t = type(v)
  return (t == "number" and v == v) or t == "string" or t == "boolean"
end

-- ---- points ------------------------------------------------------------------------------------

local function sorted_keys(t)
  local k = {}
  for n in pairs(t) do k[#k + 1] = n end
  table.sort(k, function(a, b) return tostring(a) < tostring(b) end)
  return k
end

-- splitmix64: the same sequence on every machine; uniform doubles in [0, 1).
local function rng(seed)
  local s = ffi.new("uint64_t", seed)
  return function()
    s = s + 0x9E3779B97F4A7C15ULL
    local z = s
    z = bit.bxor(z, bit.rshift(z, 30)) * 0xBF58476D1CE4E5B9ULL
    z = bit.bxor(z, bit.rshift(z, 27)) * 0x94D049BB133111EBULL
    z = bit.bxor(z, bit.rshift(z, 31))
    return tonumber(bit.rshift(z, 11)) / 9007199254740992
  end
end

local function round6(x) return tonumber(string.format("%.6g", x)) end

local function grid_points(where, grid)
  local names = sorted_keys(grid)
  if #names == 0 then raise(where .. ": the grid is empty: give each parameter a list of values") end
  for _, n in ipairs(names) do
    local vals = grid[n]
    if type(n) ~= "string" then raise(where .. ": grid keys must be parameter names, got " .. show(n)) end
    if type(vals) ~= "table" then
      raise(string.format("%s: grid.%s must be a list of values, got %s", where, n, show(vals)))
    end
    if #vals == 0 then
      raise(string.format("%s: grid.%s has no values: an empty grid has no points", where, n))
    end
    local seen = {}
    for i, v in ipairs(vals) do
      if not is_scalar(v) then
        raise(string.format("%s: grid.%s[%d] = %s is not a number, string or boolean", where, n, i, show(v)))
      end
      local c = sfile.canonical(v)
      if seen[c] then raise(string.format("%s: grid.%s lists %s twice", where, n, show(v))) end
      seen[c] = true
    end
  end
  local pts = { {} }
  for _, n in ipairs(names) do -- the last name varies fastest
    local nxt = {}
    for _, p in ipairs(pts) do
      for _, v in ipairs(grid[n]) do
        local q = {}
        for k, x in pairs(p) do q[k] = x end
        q[n] = v
        nxt[#nxt + 1] = q
      end
    end
    pts = nxt
  end
  return pts, names
end

local function list_points(where, list)
  if #list == 0 then raise(where .. ": points is an empty list: a sweep needs at least one point") end
  local names = sorted_keys(list[1])
  for i, p in ipairs(list) do
    if type(p) ~= "table" then raise(string.format("%s: points[%d] must be a table {name = value}", where, i)) end
    local these = sorted_keys(p)
    if table.concat(these, ",") ~= table.concat(names, ",") then
      raise(string.format("%s: points[%d] sets %s but points[1] sets %s: every point sets the same parameters",
                          where, i, table.concat(these, ", "), table.concat(names, ", ")))
    end
    for _, n in ipairs(names) do
      if not is_scalar(p[n]) then
        raise(string.format("%s: points[%d].%s = %s is not a number, string or boolean", where, i, n, show(p[n])))
      end
    end
  end
  if #names == 0 then raise(where .. ": points[1] sets no parameter") end
  return list, names
end

local function sample_points(where, spec)
  local s = schema.check(sample_spec, spec, where .. ": sample")
  local names = sorted_keys(s.ranges)
  if #names == 0 then raise(where .. ": sample.ranges is empty: give each parameter a range") end
  local maps = {}
  for _, n in ipairs(names) do
    local r = s.ranges[n]
    if type(r) ~= "table" then raise(string.format("%s: sample.ranges.%s must be {lo, hi} or {values = {...}}", where, n)) end
    if r.values then
      if type(r.values) ~= "table" or #r.values == 0 then
        raise(string.format("%s: sample.ranges.%s.values must be a non-empty list", where, n))
      end
      maps[n] = function(u) return r.values[math.min(#r.values, math.floor(u * #r.values) + 1)] end
    else
      local lo, hi = r[1], r[2]
      if type(lo) ~= "number" or type(hi) ~= "number" or not (lo < hi) then
        raise(string.format("%s: sample.ranges.%s = %s must be {lo, hi} with lo < hi", where, n, show(r)))
      end
      if r.log and lo <= 0 then
        raise(string.format("%s: sample.ranges.%s is logarithmic but lo = %s is not positive", where, n, show(lo)))
      end
      if r.integer then
        maps[n] = function(u) return math.min(hi, math.floor(lo + u * (hi - lo + 1))) end
      elseif r.log then
        maps[n] = function(u) return round6(math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))) end
      else
        maps[n] = function(u) return round6(lo + u * (hi - lo)) end
      end
    end
  end
  local rand = rng(s.seed)
  local u = {}
  for d, n in ipairs(names) do
    u[d] = {}
    if s.method == "lhs" then
      local perm = {}
      for i = 1, s.n do perm[i] = i end
      for i = s.n, 2, -1 do
        local j = math.floor(rand() * i) + 1
        perm[i], perm[j] = perm[j], perm[i]
      end
      for i = 1, s.n do u[d][i] = (perm[i] - 1 + rand()) / s.n end
    else
      for i = 1, s.n do u[d][i] = rand() end
    end
  end
  local pts, seen = {}, {}
  for i = 1, s.n do
    local p = {}
    for d, n in ipairs(names) do p[n] = maps[n](u[d][i]) end
    local c = sfile.canonical_set(names, p)
    if not seen[c] then
      seen[c] = true
      pts[#pts + 1] = p
    end
  end
  return pts, names, s.n - #pts
end

-- ---- options -----------------------------------------------------------------------------------

local function command_options()
  local cl = require("cleave.handles").facade
  local given = {}
  for k, v in pairs(cl and cl.args or {}) do given[k] = v end
  local names = schema.names(M.options_spec)
  for k in pairs(given) do
    local known = false
    for _, n in ipairs(names) do known = known or n == k end
    if not known then
      raise(string.format("cl.sweep: %s is not an option of a sweep; %s", show(k),
                          schema.unknown_name("option", k, names)))
    end
  end
  return schema.check(M.options_spec, given, "cl.sweep options")
end

-- ---- the sweep ---------------------------------------------------------------------------------

local Sweep = {}
Sweep.__index = Sweep
Sweep.__tostring = function(s) return "cl.sweep(" .. s.name .. ")" end

local function script_path()
  local a = rawget(_G, "arg")
  if type(a) == "table" and type(a[0]) == "string" then return a[0] end
  return nil
end

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local cwd = os.getenv("PWD")
  if not cwd or cwd == "" then cwd = process.cwd() or "." end
  return (cwd .. "/" .. path):gsub("/%./", "/")
end

local function check_scene_names(where, sc, names, what)
  local idx = {}
  for _, e in ipairs(sc.params) do idx[e.name] = true end
  local all = schema.names(sc.params)
  for _, n in ipairs(names) do
    if not idx[n] then
      local near = schema.closest(n, all)
      raise(string.format("%s: %s names %s, which scene '%s' does not have%s (its parameters: %s)", where, what, show(n),
                          sc.name, near and ("; did you mean '" .. near .. "'?") or "", table.concat(all, ", ")))
    end
  end
end

-- Strip a "file:line: " position (a nested check's) so the message can be raised at the user's line.
local function bare(msg) return (tostring(msg):gsub("^[^\n]-:%d+: ", "")) end

-- "x.csv" as the smoke test names it: "x-quick.csv".
local function quick_name(path, quick)
  if not quick then return path end
  local stem, ext = path:match("^(.-)(%.csv)$")
  return stem and (stem .. "-quick" .. ext) or (path .. "-quick")
end

function M.new(def)
  local where0 = "cl.sweep"
  local d = schema.check(definition, def, where0)
  if not d.name:match("^[%a_][%w_%-]*$") then raise("cl.sweep: name " .. show(d.name) .. " is not an identifier") end
  local where = "cl.sweep '" .. d.name .. "'"
  local sc = d.scene
  if sc ~= nil and not require("cleave.scene").is_scene(sc) then
    raise(where .. ": scene must be a cl.scene (scenes.get(\"family/name\")), got " .. show(sc))
  end
  if sc and d.run then raise(where .. ": give measure (a scene sweep) or run (no scene), not run with a scene") end
  if not sc and not d.run then raise(where .. ": give a scene (and optionally measure) or run = function(params)") end
  if not sc and d.measure then raise(where .. ": measure goes with a scene; without one give run = function(params)") end
  if #d.outputs == 0 then raise(where .. ": outputs is empty: name the numbers each point returns") end
  local outset = {}
  for i, n in ipairs(d.outputs) do
    if type(n) ~= "string" or not n:match("^[%a_][%w_]*$") then
      raise(string.format("%s: outputs[%d] = %s is not an identifier", where, i, show(n)))
    end
    if outset[n] then raise(string.format("%s: output '%s' is listed twice", where, n)) end
    outset[n] = true
  end
  for _, n in ipairs(sfile.trailer) do
    if outset[n] then raise(string.format("%s: output '%s' is a column the results file keeps itself", where, n)) end
  end
  if sc and not d.measure then
    for _, n in ipairs(d.outputs) do
      if not M.default_outputs[n] then
        raise(string.format("%s: output '%s' is not one the default measure gives (%s): give measure = function(built, p)",
                            where, n, table.concat(sorted_keys(M.default_outputs), ", ")))
      end
    end
  end

  local opts = command_options()
  local quick = schema.check(quick_spec, d.quick, where .. ": quick")
  local grid, points, sample, fixed, timeout = d.grid, d.points, d.sample, d.fixed, d.timeout
  if opts.quick then
    if quick.grid or quick.points or quick.sample then grid, points, sample = quick.grid, quick.points, quick.sample end
    local f = {}
    for k, v in pairs(fixed) do f[k] = v end
    for k, v in pairs(quick.fixed or {}) do f[k] = v end
    fixed = f
    if quick.timeout then timeout = quick.timeout end
  end
  local given = (grid and 1 or 0) + (points and 1 or 0) + (sample and 1 or 0)
  if given ~= 1 then
    raise(string.format("%s: give exactly one of grid, points and sample (%s)", where,
                        given == 0 and "none given" or "several given"))
  end
  local pts, names, dropped
  if grid then pts, names = grid_points(where, grid)
  elseif points then pts, names = list_points(where, points)
  else pts, names, dropped = sample_points(where, sample) end

  local fixed_names = sorted_keys(fixed)
  for _, n in ipairs(fixed_names) do
    if type(n) ~= "string" then raise(where .. ": fixed keys must be parameter names, got " .. show(n)) end
    for _, m in ipairs(names) do
      if m == n then raise(string.format("%s: '%s' is both swept and fixed", where, n)) end
    end
    if not is_scalar(fixed[n]) and type(fixed[n]) ~= "table" then
      raise(string.format("%s: fixed.%s = %s is not a value", where, n, show(fixed[n])))
    end
  end
  for _, n in ipairs(names) do
    if outset[n] then raise(string.format("%s: '%s' is both a parameter and an output", where, n)) end
  end
  if sc then
    check_scene_names(where, sc, names, grid and "the grid" or points and "points" or "the sample")
    check_scene_names(where, sc, fixed_names, "fixed")
  end

  -- every point's key, and (scene sweeps) its values checked against the scene's schema now,
  -- before anything runs
  local keys, seen = {}, {}
  for i, p in ipairs(pts) do
    local key = sfile.hash(sfile.canonical_set(names, p))
    if seen[key] then
      raise(string.format("%s: points %d and %d are the same point (%s)", where, seen[key] - 1, i - 1,
                          sfile.canonical_set(names, p)))
    end
    seen[key] = i
    keys[i] = key
    if sc then
      local merged = {}
      for k, v in pairs(fixed) do merged[k] = v end
      for k, v in pairs(p) do merged[k] = v end
      local ok, err = pcall(sc.params_of, sc, merged, "scene " .. sc.name)
      if not ok then raise(string.format("%s: point %d (%s): %s", where, i - 1, sfile.canonical_set(names, p), bare(err))) end
    end
  end

  local script = script_path()
  local fixed_text = {}
  for _, n in ipairs(fixed_names) do
    local v = fixed[n]
    fixed_text[#fixed_text + 1] = n .. "=" .. (type(v) == "table" and table.concat(v, ",") or sfile.canonical(v))
  end
  local self = setmetatable({
    name = d.name, what = d.what, scene = sc, measure = d.measure, run = d.run, outputs = d.outputs,
    params = names, points = pts, keys = keys, fixed = fixed, timeout = timeout, options = opts,
    dropped = dropped or 0, quick = opts.quick, script = script,
    -- the smoke test writes a file of its own (its fixed values differ: the full file would refuse it)
    results = (opts.results ~= "" and opts.results) or quick_name(d.results or ("out/sweeps/" .. d.name .. ".csv"), opts.quick),
  }, Sweep)
  if opts.timeout >= 0 then self.timeout = opts.timeout end
  self.meta = { name = d.name, script = script and output.basename(script) or "(none)", params = names,
                outputs = d.outputs, fixed = table.concat(fixed_text, ";") }
  self.plan = sfile.hash(table.concat(keys, ","))
  return self
end

-- ---- one point (in the child) ------------------------------------------------------------------

M.default_outputs = { ms_per_frame = true, pieces = true, volume_change = true, steps = true }

-- Run a built scene's frames (its probes and hooks as world:run takes them): returns the run and
-- the wall-clock ms per frame. For measure functions.
function M.run_frames(built, frames)
  frames = frames or built.params.frames
  if type(frames) ~= "number" then
    raise("sweep.run_frames: the scene has no 'frames' parameter; give the frame count")
  end
  local t0 = process.now()
  local run = built.world:run { frames = frames, probes = built.probes, on_frame = built.on_frame }
  return run, 1000 * (process.now() - t0) / math.max(frames, 1)
end

-- The default measure of a scene sweep: run the scene's frames; ms per frame, steps, and for the
-- scene's body its pieces and relative volume change.
local function default_measure(built)
  local cl = require("cleave.handles").facade
  local body = built.body
  local vol = body and built.world:probe(cl.probe.volume(body))
  local v0 = vol and vol:read()
  local run, ms = M.run_frames(built)
  return { ms_per_frame = ms, steps = run.stats.steps, pieces = body and body:info().pieces or nil,
           volume_change = vol and (vol:read() / v0 - 1) or nil }
end

-- The text a child hands back: "status\t<s>", "wall\t<s>", "message\t<text>", "r\t<name>\t<value>".
local function serialize(status, wall, message, results)
  local lines = { "status\t" .. status, string.format("wall\t%.17g", wall), "message\t" .. (message or ""):gsub("[\r\n\t]+", " ") }
  for n, v in pairs(results or {}) do lines[#lines + 1] = string.format("r\t%s\t%.17g", n, v) end
  return table.concat(lines, "\n") .. "\n"
end

local function deserialize(text)
  local out = { results = {} }
  for line in text:gmatch("[^\n]+") do
    local k, v = line:match("^(%w+)\t(.*)$")
    if k == "status" then out.status = v
    elseif k == "wall" then out.wall = tonumber(v)
    elseif k == "message" then out.message = v
    elseif k == "r" then
      local n, x = v:match("^([%w_]+)\t(.*)$")
      if n then out.results[n] = tonumber(x) or (x:find("nan") and 0 / 0) or (x:find("^%-inf") and -math.huge) or (x:find("inf") and math.huge) end
    end
  end
  return out
end

-- Run point i here and return the child's text (never raises: errors become statuses).
function Sweep:_point_text(i)
  local core = require "cleave.ffi"
  core.last_failure = nil
  local p = {}
  for k, v in pairs(self.fixed) do p[k] = v end
  for k, v in pairs(self.points[i]) do p[k] = v end
  local t0 = process.now()
  local ok, res = xpcall(function()
    if self.scene then
      local built = self.scene:build(p)
      if self.measure then return self.measure(built, built.params) end
      return default_measure(built)
    end
    return self.run(p)
  end, debug.traceback)
  local wall = process.now() - t0
  if not ok then
    io.stderr:write(tostring(res), "\n")
    local msg = tostring(res):match("^[^\n]*")
    local f = core.last_failure
    local blow = f and f.status == tonumber(core.C.CL_ERR_NUMERICAL) and msg:find(f.message, 1, true)
    return serialize(blow and "blowup" or "error", wall, msg)
  end
  if type(res) ~= "table" then
    return serialize("error", wall, "the point returned " .. show(res) .. ", not a table {output = number}")
  end
  local outset, results = {}, {}
  for _, n in ipairs(self.outputs) do outset[n] = true end
  for n, v in pairs(res) do
    if not outset[n] then
      return serialize("error", wall, string.format("the point returned '%s', which is not among the outputs (%s)",
                                                     tostring(n), table.concat(self.outputs, ", ")))
    end
    if type(v) == "boolean" then v = v and 1 or 0 end
    if type(v) ~= "number" then
      return serialize("error", wall, string.format("result '%s' = %s is not a number", n, show(v)))
    end
    results[n] = v
  end
  for _, n in ipairs(self.outputs) do
    local v = results[n]
    if v and (v ~= v or v == math.huge or v == -math.huge) then
      return serialize("blowup", wall, string.format("result '%s' is %s", n, tostring(v)), results)
    end
  end
  return serialize("ok", wall, "", results)
end

-- ---- running points (the parent) ---------------------------------------------------------------

local function hostname()
  local f = io.open("/proc/sys/kernel/hostname")
  local h = f and f:read("*l")
  if f then f:close() end
  return h or os.getenv("HOSTNAME") or "unknown"
end

function Sweep:_logdir()
  local d = self.results:gsub("%.csv$", "") .. ".logs"
  output.mkdir(d)
  return d
end

-- Start point i in a child (threads: OpenMP threads there, 0 = leave the default).
function Sweep:_spawn(i, threads)
  local log = string.format("%s/%d-%s.log", self.logdir, i - 1, self.keys[i])
  local child = process.fork(function() return self:_point_text(i) end, {
    log = log,
    setup = function() if threads > 0 then process.set_threads(threads) end end,
  })
  child.point, child.log = i, log
  child.deadline = self.timeout > 0 and child.started + self.timeout or math.huge
  return child
end

-- The row of a child that ended.
function Sweep:_row(child)
  local i = child.point
  local row = { key = self.keys[i], point = i - 1 }
  for _, n in ipairs(self.params) do row[n] = self.points[i][n] end
  local elapsed = (child.ended or process.now()) - child.started
  if child.timed_out then
    row.status, row.wall_s = "timeout", elapsed
    row.message = string.format("no result after %.3g s: killed at the point's time limit (--timeout)", self.timeout)
  elseif child.how == "signal" then
    row.status, row.wall_s = "signal", elapsed
    row.message = string.format("the point's process was killed by %s (signal %d)%s", process.signal_name(child.code),
                                child.code, child.code == process.SIGKILL and ": out of memory, or killed from outside" or "")
  elseif child.code ~= 0 then
    row.status, row.wall_s = "error", elapsed
    row.message = string.format("the point's process exited with status %d%s", child.code,
                                child.output ~= "" and (": " .. child.output) or "")
  else
    local r = deserialize(child.output)
    if not r.status then
      row.status, row.wall_s, row.message = "error", elapsed, "the point's process ended without a result"
    else
      row.status, row.wall_s = r.status, r.wall
      row.message = r.message ~= "" and r.message or nil
      for _, n in ipairs(self.outputs) do row[n] = r.results[n] end
    end
  end
  if row.status ~= "ok" then
    row.message = (row.message or "") .. " [log: " .. child.log .. "]"
  end
  row.wall_s = tonumber(string.format("%.6f", row.wall_s or elapsed))
  local core = require "cleave.ffi"
  row.cleave_version, row.git_revision = core.version, core.git_revision
  row.host, row.finished = self.host, os.date("!%Y-%m-%dT%H:%M:%SZ")
  return row
end

function Sweep:_done(row)
  if not row then return false end
  if self.options.fresh and row.git_revision ~= require("cleave.ffi").git_revision then return false end
  return not self.options.retry or row.status == "ok"
end

local function lock_offset(key) return tonumber(key:sub(1, 10), 16) end

local function fmt_value(v)
  if type(v) == "number" then return string.format("%.4g", v) end
  return tostring(v)
end

function Sweep:_describe(i)
  local parts = {}
  for _, n in ipairs(self.params) do parts[#parts + 1] = n .. "=" .. fmt_value(self.points[i][n]) end
  return table.concat(parts, " ")
end

function Sweep:_line(row, counter)
  local res = {}
  if row.status == "ok" then
    for _, n in ipairs(self.outputs) do
      if row[n] ~= nil then res[#res + 1] = n .. "=" .. fmt_value(row[n]) end
    end
  end
  return string.format("%s %-7s %7.2f s  %s | %s", counter, row.status, row.wall_s or 0,
                       self:_describe(row.point + 1), row.status == "ok" and table.concat(res, " ") or row.message)
end

-- Open the results file and the point locks; errors (a foreign file) are raised at the user's line.
function Sweep:_open()
  local ok, f = pcall(sfile.open, self.results, self.meta)
  if not ok then raise(tostring(f)) end
  self.file = f
  self.lock = assert(process.open_lock(self.results .. ".lock"))
  self.logdir = self:_logdir()
  self.host = hostname()
  for _, b in ipairs(f.bad) do
    io.stderr:write(string.format("cleave: %s:%d: skipped a row: %s (its point will run again)\n", self.results, b.line, b.why))
  end
end

-- Run every point not done yet with `jobs` workers. Returns a summary.
function Sweep:_run_all()
  local o = self.options
  local jobs = o.jobs > 0 and o.jobs or process.cores()
  local threads = o.threads >= 0 and o.threads or math.max(1, math.floor(process.cores() / jobs))
  self:_open()
  local f, lock = self.file, self.lock
  local total = #self.points
  local todo = {}
  for i, key in ipairs(self.keys) do
    if not self:_done(f:row(key)) then todo[#todo + 1] = i end
  end
  local before = total - #todo
  local tty = progress.is_terminal()
  io.stdout:write(string.format("sweep %s%s: %d points (%d done before), %d worker%s, %s\n", self.name,
                                self.what ~= "" and (": " .. self.what) or "", total, before, jobs, jobs == 1 and "" or "s",
                                self.results))
  if self.dropped > 0 then
    io.stdout:write(string.format("  (%d sampled points repeated others and were dropped)\n", self.dropped))
  end
  -- rows kept from another build are results of other code: say so (each row records its revision)
  local mine, other, revs = require("cleave.ffi").git_revision, 0, {}
  for _, key in ipairs(self.keys) do
    local row = f:row(key)
    if row and self:_done(row) and row.git_revision ~= mine then
      other = other + 1
      local r = row.git_revision or "?"
      if not revs[r] then revs[r], revs[#revs + 1] = true, r end
    end
  end
  if other > 0 then
    io.stdout:write(string.format("  note: %d of the %d points done before were computed by another build of cleave (git %s; "
                                  .. "this is git %s): their rows are kept; run with --fresh (or delete %s) to compute them again\n", other, before,
                                  table.concat(revs, ", "), mine, self.results))
  end
  io.stdout:flush()
  local summary = { ok = 0, failed = 0, by_status = {}, busy = {}, ran = 0, before = before }
  local running, next_todo, done_count = {}, 1, before
  local t_start = process.now()
  local durations, last_draw, width = 0, -1, 0
  local function draw(force)
    if not tty then return end
    local t = process.now()
    if not force and t - last_draw < 0.25 then return end
    last_draw = t
    local left = (#todo - next_todo + 1) + #running
    local eta = summary.ran > 0 and durations / summary.ran * left / jobs or nil
    local text = string.format("sweep %s: %d/%d done, %d failed, %d running%s", self.name, done_count, total,
                               summary.failed, #running, eta and ("  ETA " .. progress.format_duration(eta)) or "")
    io.stderr:write("\r", text, string.rep(" ", math.max(0, width - #text)))
    io.stderr:flush()
    width = #text
  end
  local function say(text)
    if tty then
      io.stderr:write("\r", string.rep(" ", width), "\r")
      width = 0
    end
    io.stdout:write(text, "\n")
    io.stdout:flush()
  end
  local function fill()
    while #running < jobs and next_todo <= #todo do
      local i = todo[next_todo]
      next_todo = next_todo + 1
      local off = lock_offset(self.keys[i])
      if not lock:try(off) then
        local pid = lock:holder(off)
        summary.busy[#summary.busy + 1] = i
        say(string.format("  point %d [%s] is running in process %s: left to it", i - 1, self.keys[i], tostring(pid)))
      else
        f:refresh()
        if self:_done(f:row(self.keys[i])) then
          lock:release(off) -- another process recorded it meanwhile
          done_count = done_count + 1
        else
          running[#running + 1] = self:_spawn(i, threads)
        end
      end
    end
  end
  while next_todo <= #todo or #running > 0 do
    fill()
    draw()
    local now = process.now()
    local wait = tty and 0.25 or 3600
    for _, c in ipairs(running) do wait = math.min(wait, math.max(0, c.deadline - now)) end
    local ended = process.wait(running, wait)
    now = process.now()
    local gone = {}
    for _, c in ipairs(ended) do gone[c] = true end
    for _, c in ipairs(running) do
      if not gone[c] and now >= c.deadline then
        process.terminate(c)
        ended[#ended + 1] = c
        gone[c] = true
      end
    end
    if #ended > 0 then
      local still = {}
      for _, c in ipairs(running) do if not gone[c] then still[#still + 1] = c end end
      running = still
      local rows = {}
      for k, c in ipairs(ended) do rows[k] = self:_row(c) end
      -- the next points start before these rows are appended: the append overlaps their work
      fill()
      for k, c in ipairs(ended) do
        local row = rows[k]
        local written = f:append(row, function(have) return self:_done(have) end)
        lock:release(lock_offset(self.keys[c.point]))
        done_count = done_count + 1
        if written then
          summary.ran = summary.ran + 1
          durations = durations + ((c.ended or now) - c.started)
          summary.worker_s = (summary.worker_s or 0) + ((c.ended or now) - c.started)
          summary.by_status[row.status] = (summary.by_status[row.status] or 0) + 1
          if row.status == "ok" then summary.ok = summary.ok + 1 else summary.failed = summary.failed + 1 end
          if not tty or row.status ~= "ok" then
            say(self:_line(row, string.format("[%" .. #tostring(total) .. "d/%d]", done_count, total)))
          end
        end
      end
    end
  end
  draw(true)
  f:close()
  summary.seconds = process.now() - t_start
  local parts = {}
  for _, s in ipairs(M.statuses) do
    if summary.by_status[s] then parts[#parts + 1] = s .. " " .. summary.by_status[s] end
  end
  -- the share of the workers' time spent in points' processes (fork to exit)
  summary.workers_busy = summary.ran > 0 and (summary.worker_s or 0) / (jobs * summary.seconds) or 0
  say(string.format("sweep %s: ran %d point%s in %s (%s)%s; %d/%d points in %s", self.name, summary.ran,
                    summary.ran == 1 and "" or "s", progress.format_duration(summary.seconds),
                    #parts > 0 and (table.concat(parts, ", ") .. string.format("; workers busy %.1f %%", 100 * summary.workers_busy))
                    or "none to run",
                    #summary.busy > 0 and string.format(", %d left to other processes", #summary.busy) or "",
                    self:_count_done(), total, self.results))
  return summary
end

function Sweep:_count_done()
  local n = 0
  for _, k in ipairs(self.keys) do if self.file:row(k) then n = n + 1 end end
  return n
end

-- Run point i (1-based) as a job file's task does. Returns the exit code: 0 recorded ok (or done
-- before, or running elsewhere), 3 recorded with a failure status.
function Sweep:_run_one(i)
  local o = self.options
  self:_open()
  local key = self.keys[i]
  local off = lock_offset(key)
  if not self.lock:try(off) then
    io.stdout:write(string.format("sweep %s: point %d [%s] is running in process %s: not started twice\n", self.name,
                                  i - 1, key, tostring(self.lock:holder(off))))
    return 0
  end
  local have = self.file:row(key)
  if self:_done(have) then
    io.stdout:write(string.format("sweep %s: point %d [%s] is done already (%s): skipped\n", self.name, i - 1, key,
                                  have.status))
    return 0
  end
  local child = self:_spawn(i, o.threads > 0 and o.threads or 0)
  while true do
    local ended = process.wait({ child }, math.min(3600, math.max(0, child.deadline - process.now())))
    if #ended > 0 then break end
    if process.now() >= child.deadline then
      process.terminate(child)
      break
    end
  end
  local row = self:_row(child)
  local written = self.file:append(row, function(h) return self:_done(h) end)
  self.file:close()
  self.lock:release(off)
  if written then
    io.stdout:write(string.format("sweep %s: %s\n", self.name, self:_line(row, string.format("point %d of 0-%d:", i - 1, #self.points - 1))))
  end
  return row.status == "ok" and 0 or 3
end

-- ---- job files ---------------------------------------------------------------------------------

local q = output.shell_quote

function Sweep:_task_command(point_arg)
  local a = rawget(_G, "arg") or {}
  local exe = a[-1]
  if type(exe) ~= "string" or exe == "" or not self.script then
    raise("cl.sweep: --emit needs the cleave executable and the script path (run it with `cleave sweep SCRIPT`)")
  end
  local o = self.options
  local parts = { q(exe), "sweep", q(absolute(self.script)), "--point", point_arg, "--results", q(absolute(self.results)),
                  "--plan", self.plan }
  if o.timeout >= 0 then parts[#parts + 1] = "--timeout " .. sfile.canonical(o.timeout) end
  if o.threads >= 0 then parts[#parts + 1] = "--threads " .. o.threads end
  if o.retry then parts[#parts + 1] = "--retry" end
  if o.fresh then parts[#parts + 1] = "--fresh" end
  if self.quick then parts[#parts + 1] = "--set quick=true" end
  return table.concat(parts, " ")
end

local function write_file(path, text, mode)
  output.mkdir_for(path)
  output.write_atomic(path, text)
  local ok, why = true, nil
  if mode then ok, why = process.chmod(path, tonumber(mode, 8)) end
  if not ok then raise("cl.sweep: cannot make " .. path .. " executable: " .. why) end
end

function Sweep:_emit(kind)
  local o = self.options
  self:_open() -- refuses a foreign results file now, and writes the header the tasks append under
  local n = #self.points
  local jobs = o.jobs > 0 and o.jobs or process.cores()
  local base = self.results:gsub("%.csv$", "")
  local cwd = absolute(".")
  cwd = cwd:gsub("/%.$", "")
  if kind == "slurm" then
    local chunk = o.chunk
    local tasks = math.ceil(n / chunk)
    local path = o.job_file ~= "" and o.job_file or (base .. ".slurm")
    local minutes = self.timeout > 0 and math.ceil((self.timeout * chunk + 120) / 60) or nil
    local lines = {
      "#!/bin/bash",
      "# cleave sweep " .. self.name .. ": " .. n .. " points, " .. chunk .. " per array task. Submit: sbatch " .. path,
      "# Each task runs `cleave sweep ... --point I` and appends its row to the results file (any task",
      "# may run again: a recorded point is skipped). Outside Slurm: SLURM_ARRAY_TASK_ID=k bash " .. path,
      "#SBATCH --job-name=cleave-" .. self.name,
      string.format("#SBATCH --array=0-%d%%%d", tasks - 1, jobs),
      "#SBATCH --output=" .. absolute(self.logdir) .. "/slurm-%A_%a.out",
      "#SBATCH --ntasks=1",
      "#SBATCH --cpus-per-task=" .. (o.threads > 0 and o.threads or 1),
    }
    if minutes then lines[#lines + 1] = "#SBATCH --time=" .. minutes end
    local body = {
      "set -u",
      "cd " .. q(cwd),
      ": \"${SLURM_ARRAY_TASK_ID:?SLURM_ARRAY_TASK_ID is not set: submit with sbatch, or set it to run one task}\"",
      string.format("first=$(( SLURM_ARRAY_TASK_ID * %d ))", chunk),
      string.format("last=$(( first + %d ))", chunk - 1),
      string.format("if [ \"$last\" -gt %d ]; then last=%d; fi", n - 1, n - 1),
      "status=0",
      "for (( i = first; i <= last; i++ )); do",
      "  " .. self:_task_command("\"$i\"") .. " || status=$?",
      "done",
      "exit $status",
    }
    for _, l in ipairs(body) do lines[#lines + 1] = l end
    write_file(path, table.concat(lines, "\n") .. "\n", "755")
    io.stdout:write(string.format("sweep %s: wrote %s: a Slurm job array of %d task%s (%d point%s each, at most %d at once)\n"
                                  .. "  submit: sbatch %s\n  results: %s; afterwards `cleave sweep %s` runs what is missing and plots\n",
                                  self.name, path, tasks, tasks == 1 and "" or "s", chunk, chunk == 1 and "" or "s", jobs, path,
                                  self.results, self.script or "SCRIPT"))
    return path
  end
  -- GNU parallel: one command per point, and a script running them with a job log
  local jobs_path = o.job_file ~= "" and o.job_file or (base .. ".jobs")
  local lines = {}
  for i = 1, n do lines[i] = "cd " .. q(cwd) .. " && " .. self:_task_command(tostring(i - 1)) end
  write_file(jobs_path, table.concat(lines, "\n") .. "\n")
  local sh = jobs_path:gsub("%.jobs$", "") .. ".parallel.sh"
  local joblog = jobs_path:gsub("%.jobs$", "") .. ".joblog"
  local script = {
    "#!/bin/bash",
    "# cleave sweep " .. self.name .. ": runs the " .. n .. " point commands of " .. jobs_path .. " with GNU parallel.",
    "#   " .. sh .. "                  on this machine",
    "#   " .. sh .. " HOSTS            on the hosts of a --sshloginfile (they must share this folder)",
    "# --joblog/--resume: run it again after an interruption and parallel skips the jobs it finished;",
    "# each job also skips a point already in the results file.",
    "set -eu",
    "cd " .. q(cwd),
    "args=(--joblog " .. q(absolute(joblog)) .. " --resume --jobs " .. jobs .. ")",
    "if [ $# -ge 1 ]; then args+=(--sshloginfile \"$1\"); fi",
    "exec parallel \"${args[@]}\" < " .. q(absolute(jobs_path)),
  }
  write_file(sh, table.concat(script, "\n") .. "\n", "755")
  io.stdout:write(string.format("sweep %s: wrote %s (%d commands) and %s\n  run: %s [SSHLOGINFILE]\n  results: %s\n",
                                self.name, jobs_path, n, sh, sh, self.results))
  return jobs_path, sh
end

-- ---- results and plots -------------------------------------------------------------------------

-- The last row of each point, in point order (points without a row are left out).
function Sweep:rows()
  local r = sfile.read(self.results)
  local by = {}
  for _, row in ipairs(r.last) do by[row.key] = row end
  local out = {}
  for _, k in ipairs(self.keys) do if by[k] then out[#out + 1] = by[k] end end
  return out
end

-- Read a results file: { meta, columns, rows (every row), last (the last row per key), bad,
-- params (names), outputs (names) }.
function M.read(path)
  local ok, r = pcall(sfile.read, path)
  if not ok then raise(tostring(r)) end
  r.params = {}
  for n in (r.meta.params or ""):gmatch("[^,]+") do r.params[#r.params + 1] = n end
  r.outputs = {}
  for n in (r.meta.outputs or ""):gmatch("[^,]+") do r.outputs[#r.outputs + 1] = n end
  return r
end

local function finite(v) return type(v) == "number" and v == v and v > -math.huge and v < math.huge end

-- rows and parameter names from opts.results (a file) or opts.rows/opts.params.
local function source(fname, opts)
  if type(opts) ~= "table" then raise("sweep." .. fname .. ": expected a table of options") end
  if opts.results then
    local r = M.read(opts.results)
    return r.last, r.params
  end
  if type(opts.rows) ~= "table" then raise("sweep." .. fname .. ": give results = <file> or rows = {...}") end
  return opts.rows, opts.params or {}
end

local function plot_options(opts, keys)
  local o = {}
  for _, k in ipairs { "output", "title", "xlabel", "ylabel", "logx", "logy", "xrange", "yrange", "key", "size", "style", "commands" } do
    o[k] = opts[k]
  end
  for k, v in pairs(keys or {}) do if o[k] == nil then o[k] = v end end
  return o
end

-- The Pareto front of points minimising both x and y: sorted by x, each point with a y below every
-- point to its left (ties in x: the lower y).
function M.front(points)
  local s = {}
  for i, p in ipairs(points) do s[i] = p end
  table.sort(s, function(a, b) if a.x ~= b.x then return a.x < b.x end return a.y < b.y end)
  local out, best = {}, math.huge
  for _, p in ipairs(s) do
    if p.y < best then
      out[#out + 1] = p
      best = p.y
    end
  end
  return out
end

-- Pareto plot: y (an error) against x (ms per frame), both minimised; every ok point labelled by
-- its parameters' values (the key names them), the front highlighted. opts: results (file) or rows + params; x, y; label (list
-- of parameter names, default all); output; the plot options of plot.lines. Returns the figure's
-- path and the front's rows.
function M.pareto(opts)
  local rows, params = source("pareto", opts)
  local x, y = opts.x, opts.y
  if type(x) ~= "string" or type(y) ~= "string" then raise("sweep.pareto: give x and y (column names)") end
  local label = opts.label or params
  local pts = {}
  for _, r in ipairs(rows) do
    if r.status == "ok" and finite(r[x]) and finite(r[y]) and (not opts.logx or r[x] > 0) and (not opts.logy or r[y] > 0) then
      local parts = {}
      for _, n in ipairs(label) do parts[#parts + 1] = fmt_value(r[n]) end
      pts[#pts + 1] = { x = r[x], y = r[y], label = table.concat(parts, ", "), row = r }
    end
  end
  if #pts == 0 then raise(string.format("sweep.pareto: no ok row has finite %s and %s", x, y)) end
  local front = M.front(pts)
  local ax, ay, al, fx, fy = {}, {}, {}, {}, {}
  for i, p in ipairs(pts) do ax[i], ay[i], al[i] = p.x, p.y, p.label end
  for i, p in ipairs(front) do fx[i], fy[i] = p.x, p.y end
  local cl = require("cleave.handles").facade
  local path = cl.plot.lines(plot_options(opts, {
    xlabel = x, ylabel = y, key = "top right",
    series = {
      { x = ax, y = ay, labels = al, style = "points", point = 7, color = "#808080",
        title = string.format("%d points, labelled %s", #pts, table.concat(label, ", ")) },
      { x = fx, y = fy, style = "linespoints", point = 7, width = 2, color = "#c0392b", title = "Pareto front" },
    },
  }))
  local front_rows = {}
  for i, p in ipairs(front) do front_rows[i] = p.row end
  return path, front_rows
end

-- A result against a parameter, one line per value of a third (opts.by), other parameters held
-- by opts.where = {name = value}. A parameter that still varies is an error naming it.
function M.lines(opts)
  local rows, params = source("lines", opts)
  local x, y, by = opts.x, opts.y, opts.by
  if type(x) ~= "string" or type(y) ~= "string" then raise("sweep.lines: give x (a parameter) and y (a result)") end
  local where = opts.where or {}
  local sel = {}
  for _, r in ipairs(rows) do
    local keep = r.status == "ok" and finite(r[x]) and finite(r[y])
    for k, v in pairs(where) do keep = keep and sfile.canonical(r[k]) == sfile.canonical(v) end
    if keep then sel[#sel + 1] = r end
  end
  if #sel == 0 then raise(string.format("sweep.lines: no ok row has finite %s and %s%s", x, y, next(where) and " where asked" or "")) end
  for _, n in ipairs(params) do
    if n ~= x and n ~= by and where[n] == nil then
      local vals = {}
      for _, r in ipairs(sel) do vals[sfile.canonical(r[n])] = true end
      local count = 0
      for _ in pairs(vals) do count = count + 1 end
      if count > 1 then
        raise(string.format("sweep.lines: parameter '%s' also varies (%d values): hold it with where = {%s = ...} "
                            .. "or draw one line per value with by = '%s'", n, count, n, n))
      end
    end
  end
  local groups, order = {}, {}
  for _, r in ipairs(sel) do
    local g = by and sfile.canonical(r[by]) or ""
    if not groups[g] then
      groups[g] = { value = by and r[by], rows = {} }
      order[#order + 1] = g
    end
    local list = groups[g].rows
    list[#list + 1] = r
  end
  table.sort(order, function(a, b)
    local va, vb = groups[a].value, groups[b].value
    if type(va) == "number" and type(vb) == "number" then return va < vb end
    return a < b
  end)
  local series = {}
  for _, g in ipairs(order) do
    local list = groups[g].rows
    table.sort(list, function(a, b) return a[x] < b[x] end)
    local xs, ys = {}, {}
    for i, r in ipairs(list) do xs[i], ys[i] = r[x], r[y] end
    series[#series + 1] = { x = xs, y = ys, style = "linespoints", point = 7,
                            title = by and (by .. " = " .. fmt_value(groups[g].value)) or y }
  end
  local cl = require("cleave.handles").facade
  return cl.plot.lines(plot_options(opts, { xlabel = x, ylabel = y, series = series }))
end

-- sw:pareto{...} and sw:lines{...}: the same over this sweep's rows.
for _, name in ipairs { "pareto", "lines" } do
  Sweep[name] = function(self, opts)
    local o = {}
    for k, v in pairs(opts or {}) do o[k] = v end
    o.rows, o.params = self:rows(), self.params
    return M[name](o)
  end
end

-- ---- cl.sweep{...}: define, then do what the command line asks ---------------------------------

function M.sweep(def)
  M.ran = true
  local self = M.new(def)
  local o = self.options
  if o.point >= 0 and o.emit ~= "none" then raise("cl.sweep: --point and --emit do not go together") end
  if o.plan ~= "" and o.plan ~= self.plan then
    io.stderr:write(string.format("cleave: sweep %s: the points changed since the job file was written (plan %s, now %s): "
                                  .. "write it again with --emit\n", self.name, o.plan, self.plan))
    os.exit(1)
  end
  if o.point >= 0 then
    if o.point >= #self.points then
      io.stderr:write(string.format("cleave: sweep %s: --point %d is out of range: the sweep has %d point%s (0-%d)\n",
                                    self.name, o.point, #self.points, #self.points == 1 and "" or "s", #self.points - 1))
      os.exit(2)
    end
    io.stdout:flush()
    os.exit(self:_run_one(o.point + 1))
  end
  if o.emit ~= "none" then
    self:_emit(o.emit)
    io.stdout:flush()
    os.exit(0)
  end
  self.summary = self:_run_all()
  return self
end

setmetatable(M, { __call = function(_, def) return M.sweep(def) end })

return M
