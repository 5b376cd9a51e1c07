-- cleave.run: world:run, the loop most experiments use: step, sample probes after every frame
-- (into a table and probes.csv), write the bodies every `every` frames (.pvd/.vtu series), record
-- run.json beside the outputs and show a progress line on a terminal.
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local convert = require "cleave.convert"
local specs = require("cleave.specs").all
local handles = require "cleave.handles"
local phases = require("cleave.probes").phases

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local INT32_MAX = convert.INT32_MAX
local World, Probe = handles.World, handles.Probe
local is_body, is_probe_spec = handles.is_body, handles.is_probe_spec
local world_ptr, same_world = handles.world_ptr, handles.same_world

-- Call a sibling module (cleave.output, ...) and re-raise its errors at the user's line.
local function sibling(fn, ...)
  local res = { pcall(fn, ...) }
  if not res[1] then raise(schema.strip_internal_position(res[2])) end
  return unpack(res, 2, table.maxn(res))
end

specs["world.run"] = {
  { name = "frames", type = "integer", required = true, range = { 0, INT32_MAX }, help = "steps to take (one step of dt per frame)" },
  { name = "every", type = "integer", default = 1, range = { 1, INT32_MAX }, help = "write the bodies every this many frames" },
  { name = "output", type = "string", help = "folder for <body>.pvd/.vtu series and probes.csv; none = no files" },
  { name = "probes", type = "table", help = "name = cl.probe.*(...) (or a live probe): sampled at every frame" },
  { name = "bodies", type = "table", help = "bodies to write (default: every body of the world)" },
  { name = "on_frame", type = "function", help = "function(frame, world) called after every frame (scripted changes)" },
  help = "world:run: step, sample probes, write outputs",
}

-- Run `frames` steps, sampling probes after every step (and once before the first) and writing
-- each body every `every` frames into `output`. Returns { frames, probes = { frame = {...},
-- time = {...}, <name> = {...} }, series = { <body name> = series }, csv = path, stats }.
function World:run(opts)
  -- the sibling modules (cl.output, cl.runinfo, cl.progress) and cl.used_options, through the facade
  local cl = handles.facade
  world_ptr(self, "world:run")
  local where = "world:run"
  local o = schema.check(specs["world.run"], opts, where)
  local names, live, sizes = {}, {}, {}
  for name, spec in pairs(o.probes or {}) do
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      raise(string.format("%s: probe names must be identifiers, got %s", where, show(name)))
    end
    if name == "time" or name == "frame" then raise(where .. ": the probe name '" .. name .. "' is reserved") end
    if is_probe_spec(spec) then
      live[name] = self:probe(spec)
    elseif getmetatable(spec) == Probe then
      if spec.world ~= self then raise(where .. ": probe '" .. name .. "' belongs to another world") end
      live[name] = spec
    else
      raise(string.format("%s: probes.%s must be a probe (cl.probe.volume(body), ...), got %s %s", where, name,
        kind_of(spec), show(spec)))
    end
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do sizes[name] = live[name]:size() end

  local bodies = o.bodies or self:bodies()
  local named = {}
  for i, b in ipairs(bodies) do
    if not is_body(b) then raise(string.format("%s: bodies[%d] is not a body", where, i)) end
    same_world(self, b, where)
    -- one series per name: two bodies named alike would write into one series (world:body refuses
    -- that; a list given here may still hold a body twice)
    if named[b.name] then
      raise(string.format("%s: bodies holds body '%s' twice (bodies[%d] and bodies[%d])", where, b.name, named[b.name], i))
    end
    named[b.name] = i
  end

  local result = { frames = o.frames, probes = { frame = {}, time = {} }, series = {} }
  for _, name in ipairs(names) do result.probes[name] = {} end
  local csv, record
  local used = {}
  -- The series of a body, made on its first write: bodies added inside on_frame are written from
  -- the frame they appear on (when `bodies` was not given).
  local function series_of(b)
    local s = result.series[b.name]
    if s then return s end
    local file = tostring(b.name):gsub("[^%w_%-%.]", "_")
    while used[file] do file = file .. "_" end
    used[file] = true
    s = sibling(cl.output.series, o.output, file)
    result.series[b.name] = s
    return s
  end
  if o.output then
    -- A second run into the same folder replaces the first: say so (docs/GUARANTEES.md).
    local earlier = io.open(o.output .. "/run.json", "rb")
    if earlier then
      local text = earlier:read(4096) or ""
      earlier:close()
      local date = text:match('"date": "([^"]*)"') or "an unknown date"
      io.stderr:write(string.format("cleave: note: %s: '%s' holds the files of an earlier run (%s); this run "
        .. "replaces them (give another output folder to keep both)\n", schema.user_where(), o.output, date))
      result.replaced = date
    end
  end

  -- Every run records what produced it (parameters, version, git revision) beside its outputs, and
  -- how far it got: frames_completed after every written frame, completed = true at the end, and
  -- the error that stopped it (written first, so that even a failure to open the outputs is told).
  if o.output then
    record = sibling(cl.runinfo.start, o.output, cl.used_options,
      { version = core.version, git_revision = core.git_revision,
        extra = { frames = o.frames, every = o.every, probes = names, replaced_earlier_run = result.replaced } },
      { completed = false, frames_completed = 0 })
  end

  local function open_outputs()
    if not o.output then return end
    local output = cl.output
    for _, b in ipairs(bodies) do series_of(b) end
    if #names > 0 then
      local columns = { "frame", "time" }
      for _, name in ipairs(names) do
        if sizes[name] == 1 then
          columns[#columns + 1] = name
        else
          for k = 1, sizes[name] do
            columns[#columns + 1] = name .. "_" .. (live[name].kind == "phase_time" and phases[k] or k)
          end
        end
      end
      result.csv = o.output .. "/probes.csv"
      csv = sibling(output.csv, result.csv, columns,
        { comments = { string.format("cleave %s (git %s)", core.version, core.git_revision) } })
    end
  end

  local function sample(frame, t)
    local row = { frame, t }
    local P = result.probes
    P.frame[#P.frame + 1] = frame
    P.time[#P.time + 1] = t
    for _, name in ipairs(names) do
      local v = live[name]:read()
      P[name][#P[name] + 1] = v
      if type(v) == "table" then
        for k = 1, sizes[name] do row[#row + 1] = v[k] end
      else
        row[#row + 1] = v
      end
    end
    if csv then sibling(csv.row, csv, row) end
  end
  local function write(frame, t)
    if not o.bodies then
      for _, b in ipairs(self:bodies()) do
        if not named[b.name] then
          bodies[#bodies + 1] = b
          named[b.name] = #bodies
        end
      end
    end
    for _, b in ipairs(bodies) do
      -- a body removed inside on_frame ends its series with the last frame it was in
      if not rawget(b, "_removed") then
        local s = series_of(b)
        sibling(s.write, s, frame, t, b)
      end
    end
  end

  -- A progress line on a terminal only (quiet in pipes, logs and ctest).
  local bar = cl.progress.new { total = o.frames, label = o.output or "run" }
  local done = 0
  local function run_frames()
    open_outputs()
    local t = self:stats().time
    sample(0, t)
    if o.output then write(0, t) end
    for f = 1, o.frames do
      self:step(1)
      t = self:stats().time
      sample(f, t)
      done = f
      if o.output and (f % o.every == 0 or f == o.frames) then
        write(f, t)
        sibling(record.update, record, { frames_completed = f })
      end
      if o.on_frame then o.on_frame(f, self) end
      bar:update(f, t)
    end
  end
  local ok, err = pcall(run_frames)
  bar:finish()
  if not ok then
    -- say in run.json and in the message where the run stopped; keep every row written so far
    local msg = schema.strip_internal_position(tostring(err))
    if csv then pcall(csv.close, csv) end
    if record then
      pcall(record.update, record, { completed = false, frames_completed = done,
                                     stopped_by = (msg:gsub("^[^:\n]+:%d+: ", "")) })
    end
    if msg:find("^[^:\n]+:%d+: ") then error(msg .. string.format(" (world:run stopped after frame %d of %d)", done, o.frames), 0) end
    raise(msg .. string.format(" (world:run stopped after frame %d of %d)", done, o.frames))
  end
  if csv then sibling(csv.close, csv) end
  if record then sibling(record.update, record, { completed = true, frames_completed = o.frames }) end
  result.stats = self:stats()
  return result
end

return {}
