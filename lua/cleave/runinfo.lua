-- cleave.runinfo: what a run used, written beside its outputs so any figure can be reproduced.
--
--   runinfo.write("out/twist", params)   -> "out/twist/run.json"
--
-- run.json holds the parameters, the cleave version and git revision, the script, the command
-- line (--set values and script arguments), the date (UTC), the host and the interpreter.
-- The version and revision come from the loaded `cleave` module (cl.version, cl.git_revision);
-- scripts run with plain luajit without the library get them from opts or from git itself.
local output = require "cleave.output"

local runinfo = {}
local fail = output.fail

-- ---------------------------------------------------------------------------------------------
-- a small JSON encoder (RFC 8259): objects with sorted keys, so two runs diff cleanly

local function json_string(s)
  s = s:gsub('[%c"\\]', function(c)
    local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
                  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
    return map[c] or string.format("\\u%04x", c:byte())
  end)
  return '"' .. s .. '"'
end

local function json_number(v)
  -- JSON has no NaN or infinities: they become null (and the value is lost, which the key
  -- being present still says).
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", v) end
  return string.format("%.17g", v)
end

-- A table is an array when its keys are exactly 1..n (n >= 1).
local function array_length(t)
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k ~= math.floor(k) then return nil end
    n = n + 1
  end
  if n == 0 then return nil end
  for i = 1, n do if t[i] == nil then return nil end end
  return n
end

local function encode(v, indent, seen, out)
  local t = type(v)
  if v == nil then
    out[#out + 1] = "null"
  elseif t == "boolean" then
    out[#out + 1] = v and "true" or "false"
  elseif t == "number" then
    out[#out + 1] = json_number(v)
  elseif t == "string" then
    out[#out + 1] = json_string(v)
  elseif t == "table" then
    if seen[v] then fail("runinfo: the parameters contain a cycle") end
    seen[v] = true
    local inner = indent .. "  "
    local n = array_length(v)
    if n then
      out[#out + 1] = "["
      for i = 1, n do
        out[#out + 1] = (i > 1 and ",\n" or "\n") .. inner
        encode(v[i], inner, seen, out)
      end
      out[#out + 1] = "\n" .. indent .. "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      if #keys == 0 then
        out[#out + 1] = "{}"
      else
        out[#out + 1] = "{"
        for i, k in ipairs(keys) do
          out[#out + 1] = (i > 1 and ",\n" or "\n") .. inner .. json_string(tostring(k)) .. ": "
          encode(v[k], inner, seen, out)
        end
        out[#out + 1] = "\n" .. indent .. "}"
      end
    end
    seen[v] = nil
  elseif t == "cdata" and tonumber(v) then
    out[#out + 1] = json_number(tonumber(v))
  else
    -- functions, handles: their description, so the file still says what was passed
    out[#out + 1] = json_string(tostring(v))
  end
end

--- Encode a Lua value as indented JSON text.
function runinfo.encode(v)
  local out = {}
  encode(v, "", {}, out)
  return table.concat(out)
end

-- ---------------------------------------------------------------------------------------------
-- facts about this run

local function command_output(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then return nil end
  local s = p:read("*a")
  p:close()
  s = s and s:gsub("%s+$", "")
  if s == nil or s == "" then return nil end
  return s
end

local function hostname()
  local h = os.getenv("HOSTNAME")
  if h and h ~= "" then return h end
  local f = io.open("/proc/sys/kernel/hostname", "r") or io.open("/etc/hostname", "r")
  if f then
    h = f:read("*l")
    f:close()
    if h and h ~= "" then return h end
  end
  return command_output("hostname") or "unknown"
end

-- The loaded cleave module, if any (without loading the FFI core as a side effect).
local function loaded_cleave()
  local cl = package.loaded["cleave"]
  if type(cl) == "table" then return cl end
  return nil
end

local function script_path()
  local a = rawget(_G, "arg")
  if type(a) == "table" and type(a[0]) == "string" then return a[0] end
  return nil
end

--- Facts about the current run (without writing anything). opts may give version,
--- git_revision, script, set, args to override what is found.
function runinfo.collect(params, opts)
  opts = opts or {}
  local cl = opts.cl or loaded_cleave()
  local a = rawget(_G, "arg")
  local script = opts.script or script_path()
  local version = opts.version or (cl and rawget(cl, "version"))
  local revision = opts.git_revision or (cl and rawget(cl, "git_revision"))
  local dirty
  if script then
    -- The library's revision says which code ran; the script's checkout says whether the
    -- scripts had local edits.
    local dir = output.dirname(script)
    local q = output.shell_quote
    if not revision then
      revision = command_output("git -C " .. q(dir) .. " rev-parse --short=12 HEAD")
    end
    local st = command_output("git -C " .. q(dir) .. " status --porcelain --untracked-files=no")
    if command_output("git -C " .. q(dir) .. " rev-parse --is-inside-work-tree") == "true" then
      dirty = st ~= nil
    end
  end
  local args = {}
  if type(a) == "table" then
    for i = 1, #a do args[i] = a[i] end
  end
  local set = opts.set
  if set == nil and cl then set = rawget(cl, "args") end
  if set == nil and type(a) == "table" and type(a.set) == "table" then set = a.set end
  return {
    parameters = params or (cl and rawget(cl, "used_options")) or {},
    cleave_version = version or "unknown",
    git_revision = revision or "unknown",
    git_dirty = dirty,
    script = script,
    set = set or {},
    args = opts.args or args,
    date = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    hostname = hostname(),
    lua = (rawget(_G, "jit") and jit.version) or _VERSION,
    cwd = os.getenv("PWD"),
  }
end

-- The record behind write() and start(): the facts collected once, the file rewritten atomically
-- by :update(fields) (fields merged in).
local function record(fname, dir, params, opts)
  if type(dir) ~= "string" or dir == "" then
    fail(fname .. ": dir must be a non-empty string, got " .. tostring(dir))
  end
  if params ~= nil and type(params) ~= "table" then
    fail(fname .. ": params must be a table, got " .. type(params))
  end
  local info = runinfo.collect(params, opts)
  if opts and type(opts.extra) == "table" then
    for k, v in pairs(opts.extra) do info[k] = v end
  end
  output.mkdir(dir)
  local rec = { path = dir .. "/run.json", info = info }
  rec.update = output.api(function(self, more)
    for k, v in pairs(more or {}) do self.info[k] = v end
    output.write_atomic(self.path, runinfo.encode(self.info) .. "\n")
    return self
  end)
  return rec
end

--- Write <dir>/run.json with `params` (the parameters the run used) and the facts above.
--- Creates dir. Returns the path written.
function runinfo.write(dir, params, opts)
  return record("runinfo.write", dir, params, opts):update().path
end

--- Start the record of a run that will say how far it got: writes <dir>/run.json as write() does,
--- plus `fields` (e.g. { completed = false, frames_completed = 0 }), and returns a record whose
--- :update(fields) merges new fields and rewrites the file atomically. A run killed mid-way leaves
--- a run.json that says how far it got.
function runinfo.start(dir, params, opts, fields)
  return record("runinfo.start", dir, params, opts):update(fields)
end

-- public entry points raise at the caller's line
for _, name in ipairs { "encode", "collect", "write", "start" } do runinfo[name] = output.api(runinfo[name]) end

return runinfo
