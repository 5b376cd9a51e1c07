-- cleave.schema: parameter schemas for scene tables.
--
-- A spec is a list of entries, each describing one key of a table the user writes:
--   { name = "dt", type = "number", default = 1/600, unit = "s", range = {0, 1, "(]"},
--     help = "time step" }
-- Types: "number", "integer", "string", "boolean", "vec3", "axis" (a non-zero vec3 or "x"/"y"/"z",
-- returned as a vec3), "numbers" (list of numbers), "integers" (list of integers; one integer is a
-- list of one, so `--set threads=2` and `--set threads=1,2` both work), "vec3s" (list of vec3), "table" (nested: give
-- `schema = <spec>` to check it too), "enum" (one of `values`; with `index_from = k` the values
-- stand for the numbers k, k+1, ... and a number given is answered with the name to write), "any",
-- and any type registered with schema.define_type (cleave registers "mesh", "body", "condition").
-- `range = {lo, hi, bounds}` applies to numbers, integers and every vec3 component; bounds is "[]"
-- (default), "(]", "[)" or "()". NaN is always rejected; +-inf only where a closed bound at +-inf
-- admits it (e.g. range = {0, math.huge, "[]"} for "never").
-- `required = true` makes a missing key an error; `check = function(value, filled)` returns an
-- error text for cross-field rules (inner_radius < radius). A spec may have `spec.check(filled)`
-- too, returning an error text.
--
-- schema.check(spec, tbl, where) returns a filled copy of tbl (defaults added, strings like "1,2,3"
-- from `--set` converted) or raises an error at the user's line naming the key, its value, what is
-- allowed and the help. Unknown keys are errors that list the valid keys and suggest the closest.
local schema = {}

-- ---- errors at the user's line ----------------------------------------------------------------
-- Errors must point at the script line that called into cleave, however deep inside the module the
-- check happens. Every frame whose source lives in this module's folder (init.lua, schema.lua and
-- the sibling modules) is skipped; so are C frames and tail calls, which carry no position.
local module_prefix = debug.getinfo(1, "S").source:match("^(@.*[/\\])[^/\\]+$") or "@cleave/"

local function internal_source(src)
  if src == nil or src == "=[C]" or src == "=(tail call)" or src == "=?" then return true end
  return src:sub(1, #module_prefix) == module_prefix
end

-- "file:line: " of a frame as error(msg, level) would write it, but with the file named whole:
-- LuaJIT cuts a file name of 60 characters or more to "..." and its last 56 (short_src), and users
-- keep checkouts at long paths. "" for a frame without a line (a C function), as error() does.
local function position(info)
  if not info.currentline or info.currentline <= 0 then return "" end
  local src = info.source or ""
  local name = src:sub(1, 1) == "@" and src:sub(2) or info.short_src
  return name .. ":" .. info.currentline .. ": "
end

-- The position prefix of the frame `level` levels above the caller (1 = the caller itself), as
-- error(msg, level) writes it, with the file named whole.
function schema.where(level)
  local info = debug.getinfo((level or 1) + 1, "Sl")
  return info and position(info) or ""
end

-- The stack level (relative to the caller of this function) of the first frame in user code.
function schema.user_level()
  local level = 2 -- 1 = user_level itself, 2 = its caller
  while true do
    local info = debug.getinfo(level, "S")
    if not info then return 1 end
    if not internal_source(info.source) then return level - 1 end
    level = level + 1
  end
end

-- Raise `msg` at the first user frame. Never returns. The message is kept as schema.last_raised:
-- `cleave run` prints such an error (it names the script's line already) without the traceback of
-- cleave's own frames (app/embed.c).
function schema.raise(msg)
  local level = 2
  while true do
    local info = debug.getinfo(level, "Sl")
    if not info then
      schema.last_raised = msg
      error(msg, 0)
    end
    if not internal_source(info.source) then
      schema.last_raised = position(info) .. msg
      error(schema.last_raised, 0)
    end
    level = level + 1
  end
end

-- "file:line" of the first user frame (for warnings), or "?".
function schema.user_where()
  local level = 2
  while true do
    local info = debug.getinfo(level, "Sl")
    if not info then return "?" end
    if not internal_source(info.source) and info.currentline and info.currentline > 0 then
      return position(info):sub(1, -3)
    end
    level = level + 1
  end
end

-- An error message raised inside a sibling module with error(msg, 2) carries that module's
-- position, possibly cut by LuaJIT to ".../cleave/mesh.lua" when the module tree lives at a long
-- path; strip it so the message can be raised again at the user's line.
function schema.strip_internal_position(msg)
  if type(msg) ~= "string" then return msg end
  local file, rest = msg:match("^(.-):%d+: (.*)$")
  if not file then return msg end
  if internal_source("@" .. file) then return rest end
  if file:sub(1, 3) == "..." then
    local base = file:match("[^/\\]+$") or ""
    local whole = module_prefix:sub(2) .. base
    if whole:sub(-(#file - 3)) == file:sub(4) then return rest end
  end
  return msg
end

local raise = schema.raise

-- ---- formatting ---------------------------------------------------------------------------------
local function fmt_number(x)
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  if x == math.floor(x) and math.abs(x) < 1e6 then return string.format("%d", x) end
  return string.format("%.6g", x)
end

local function show(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "number" then return fmt_number(v) end
  if t == "string" then return string.format("%q", #v > 60 and v:sub(1, 57) .. "..." or v) end
  if t == "table" then
    if depth > 1 then return "{...}" end
    local mt = getmetatable(v)
    if mt and mt.__tostring then return tostring(v) end
    local parts, n = {}, 0
    for i = 1, #v do
      n = n + 1
      if n > 6 then parts[#parts + 1] = "..." break end
      parts[#parts + 1] = show(v[i], depth + 1)
    end
    for k, x in pairs(v) do
      if not (type(k) == "number" and k >= 1 and k <= #v and k == math.floor(k)) then
        n = n + 1
        if n > 6 then parts[#parts + 1] = "..." break end
        parts[#parts + 1] = tostring(k) .. " = " .. show(x, depth + 1)
      end
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end
schema.show = show

local function kind_of(v)
  local t = type(v)
  if t == "cdata" then return "cdata " .. tostring(require("ffi").typeof(v)):gsub("^ctype", "") end
  if t == "table" then
    local mt = getmetatable(v)
    if mt and mt.__name then return mt.__name end
  end
  return t
end
schema.kind_of = kind_of

function schema.format_range(range)
  if not range then return nil end
  local b = range[3] or "[]"
  local lo = range[1] == nil and -math.huge or range[1]
  local hi = range[2] == nil and math.huge or range[2]
  return b:sub(1, 1) .. fmt_number(lo) .. ", " .. fmt_number(hi) .. b:sub(2, 2)
end

-- What an entry accepts, in words: "a number in (0, 1] s".
local function allowed(e)
  local parts = {}
  local ty = e.type or "any"
  if ty == "enum" then
    local vs = {}
    for i, v in ipairs(e.values or {}) do vs[i] = show(v) end
    parts[#parts + 1] = "one of " .. table.concat(vs, ", ")
  elseif ty == "integer" then parts[#parts + 1] = "an integer"
  elseif ty == "number" then parts[#parts + 1] = "a number"
  elseif ty == "vec3" then parts[#parts + 1] = "a vector {x, y, z}"
  elseif ty == "axis" then parts[#parts + 1] = "an axis \"x\", \"y\", \"z\" or a non-zero {x, y, z}"
  elseif ty == "numbers" then parts[#parts + 1] = "a list of numbers"
  elseif ty == "integers" then parts[#parts + 1] = "a list of integers (\"1,2\" with --set)"
  elseif ty == "vec3s" then parts[#parts + 1] = "a list of {x, y, z}"
  elseif ty == "string" then parts[#parts + 1] = "a string"
  elseif ty == "boolean" then parts[#parts + 1] = "true or false"
  elseif ty == "table" then parts[#parts + 1] = "a table"
  elseif ty == "function" then parts[#parts + 1] = "a function"
  elseif schema.types[ty] then parts[#parts + 1] = schema.types[ty].describe or ty
  else parts[#parts + 1] = ty end
  if e.range then parts[#parts + 1] = "in " .. schema.format_range(e.range) end
  if e.unit and e.unit ~= "" and e.unit ~= "1" then parts[#parts + 1] = e.unit end
  return table.concat(parts, " ")
end
schema.allowed = allowed

-- ---- edit distance for "did you mean" -------------------------------------------------------------
function schema.distance(a, b)
  a, b = a:lower(), b:lower()
  local prev, cur = {}, {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    cur[0] = i
    local ca = a:byte(i)
    for j = 1, #b do
      local cost = (ca == b:byte(j)) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev, cur = cur, prev
  end
  return prev[#b]
end

-- The candidate closest to `name` if it is close enough to be a plausible typo, else nil.
function schema.closest(name, candidates)
  if type(name) ~= "string" then return nil end
  local best, bestd
  for _, c in ipairs(candidates) do
    local d = schema.distance(name, c)
    if not bestd or d < bestd then best, bestd = c, d end
  end
  if best and bestd <= math.max(2, math.floor(#name / 3)) then return best end
  return nil
end

-- "unknown solver 'shape_matchin'; did you mean 'shape_matching'? Available: a, b"
function schema.unknown_name(what, name, candidates)
  local msg = string.format("unknown %s %s", what, show(name))
  local near = schema.closest(name, candidates)
  if near then msg = msg .. string.format("; did you mean '%s'?", near) end
  if #candidates == 0 then
    msg = msg .. " (none are available)"
  else
    msg = msg .. (near and " Available: " or "; available: ") .. table.concat(candidates, ", ")
  end
  return msg
end

-- ---- value checks -----------------------------------------------------------------------------
local function in_range(x, range)
  if not range then return x == x and x > -math.huge and x < math.huge end
  if x ~= x then return false end
  local b = range[3] or "[]"
  local lo = range[1] == nil and -math.huge or range[1]
  local hi = range[2] == nil and math.huge or range[2]
  if b:sub(1, 1) == "[" then
    if x < lo then return false end
  elseif x <= lo then return false end
  if b:sub(2, 2) == "]" then
    if x > hi then return false end
  elseif x >= hi then return false end
  -- inf passes only through a closed bound at inf (checked above); reject it against finite bounds
  return true
end
schema.in_range = in_range

local function parse_number_list(s)
  local out = {}
  for item in (s .. ","):gmatch("([^,]*),") do
    local x = tonumber((item:gsub("^%s+", ""):gsub("%s+$", "")))
    if not x then return nil end
    out[#out + 1] = x
  end
  return out
end

local function is_list(v)
  if type(v) ~= "table" then return false end
  local n = #v
  for k in pairs(v) do
    if type(k) ~= "number" or k < 1 or k > n or k ~= math.floor(k) then return false end
  end
  return true
end
schema.is_list = is_list

local function copy(v)
  if type(v) ~= "table" or getmetatable(v) then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = copy(x) end
  return out
end
schema.copy = copy

-- Each checker returns (true, converted) or (false, problem text).
local function check_vec3(v, e)
  if type(v) == "string" then v = parse_number_list(v) or v end
  if not is_list(v) or #v ~= 3 then return false, "is not a vector of three numbers" end
  local out = {}
  for i = 1, 3 do
    local x = v[i]
    if type(x) ~= "number" then return false, string.format("has a non-number component %d", i) end
    if not in_range(x, e.range) then
      return false, string.format("has component %d = %s outside %s", i, fmt_number(x),
        e.range and schema.format_range(e.range) or "the finite numbers")
    end
    out[i] = x
  end
  if e.nonzero and out[1] == 0 and out[2] == 0 and out[3] == 0 then return false, "must not be zero" end
  return true, out
end

local axes = { x = {1, 0, 0}, y = {0, 1, 0}, z = {0, 0, 1},
               ["-x"] = {-1, 0, 0}, ["-y"] = {0, -1, 0}, ["-z"] = {0, 0, -1} }

local checkers = {}
checkers["number"] = function(v, e)
  if type(v) ~= "number" then return false, "is not a number" end
  if not in_range(v, e.range) then
    if v ~= v then return false, "is NaN" end
    if e.range then return false, "is outside the allowed range " .. schema.format_range(e.range) end
    return false, "is not finite"
  end
  return true, v
end
checkers["integer"] = function(v, e)
  if type(v) ~= "number" then return false, "is not a number" end
  if v ~= v or v == math.huge or v == -math.huge or v ~= math.floor(v) then
    return false, "is not an integer"
  end
  if not in_range(v, e.range) then return false, "is outside the allowed range " .. schema.format_range(e.range) end
  return true, v
end
checkers["string"] = function(v, e)
  if type(v) ~= "string" then return false, "is not a string" end
  return true, v
end
checkers["boolean"] = function(v, e)
  if type(v) == "number" then
    -- C tables and older scripts spell flags 1 / 0: say what to write instead
    if v == 1 or v == 0 then
      return false, string.format("is a number, not true or false; write %s = %s", e.name or "it", tostring(v == 1))
    end
    return false, "is a number, not true or false"
  end
  if type(v) ~= "boolean" then return false, "is not true or false" end
  return true, v
end
checkers["vec3"] = check_vec3
checkers["axis"] = function(v, e)
  if type(v) == "string" and axes[v:lower()] then return true, copy(axes[v:lower()]) end
  local ok, r = check_vec3(v, e)
  if not ok then return false, r end
  if r[1] == 0 and r[2] == 0 and r[3] == 0 then return false, "is the zero vector" end
  return true, r
end
checkers["numbers"] = function(v, e)
  if type(v) == "string" then v = parse_number_list(v) or v end
  if not is_list(v) then return false, "is not a list of numbers" end
  local out = {}
  for i = 1, #v do
    if type(v[i]) ~= "number" then return false, string.format("has a non-number at [%d]", i) end
    if not in_range(v[i], e.range) then
      return false, string.format("has [%d] = %s outside %s", i, fmt_number(v[i]),
        e.range and schema.format_range(e.range) or "the finite numbers")
    end
    out[i] = v[i]
  end
  return true, out
end
checkers["integers"] = function(v, e)
  if type(v) == "number" then v = { v } end
  local ok, out = checkers["numbers"](v, e)
  if not ok then return false, (out:gsub("numbers", "integers"):gsub("non%-number", "non-integer")) end
  for i = 1, #out do
    if out[i] ~= math.floor(out[i]) then return false, string.format("has [%d] = %s, not an integer", i, fmt_number(out[i])) end
  end
  return true, out
end
checkers["vec3s"] = function(v, e)
  if not is_list(v) then return false, "is not a list of {x, y, z}" end
  local out = {}
  for i = 1, #v do
    local ok, r = check_vec3(v[i], e)
    if not ok then return false, string.format("[%d] %s", i, r) end
    out[i] = r
  end
  return true, out
end
checkers["enum"] = function(v, e)
  for _, x in ipairs(e.values or {}) do
    if v == x then return true, v end
  end
  local names = {}
  for i, x in ipairs(e.values or {}) do names[i] = tostring(x) end
  -- index_from = k: the names stand for the numbers k, k+1, ... (a C choice); a number given is
  -- answered with the name to write
  if type(v) == "number" and e.index_from then
    local name = v == math.floor(v) and e.values[v - e.index_from + 1]
    local prefix = "is a number, not one of " .. table.concat(names, ", ")
    if name then return false, string.format("%s; write %s = %s", prefix, e.name or "it", show(name)) end
    return false, prefix
  end
  local near = schema.closest(v, names)
  return false, "is not one of " .. table.concat(names, ", ") ..
    (near and string.format(" (did you mean '%s'?)", near) or "")
end
checkers["table"] = function(v, e)
  if type(v) ~= "table" then return false, "is not a table" end
  return true, v
end
checkers["function"] = function(v, e)
  if type(v) ~= "function" then return false, "is not a function" end
  return true, v
end
checkers["any"] = function(v) return true, v end

-- Extra types: schema.define_type("mesh", function(v) return ok, converted_or_problem end, "a mesh")
schema.types = {}
function schema.define_type(name, check, describe)
  schema.types[name] = { check = check, describe = describe }
end

-- ---- the check ------------------------------------------------------------------------------------
local function index_of(spec)
  local idx = rawget(spec, "__index_by_name")
  if idx then return idx end
  idx = {}
  for i, e in ipairs(spec) do
    assert(type(e.name) == "string", "schema entry without a name")
    idx[e.name] = e
  end
  rawset(spec, "__index_by_name", idx)
  return idx
end

function schema.names(spec)
  local out = {}
  for i, e in ipairs(spec) do out[i] = e.name end
  return out
end

local function describe_entry(e, path)
  local s = path .. ": " .. (e.help or "")
  local extra = {}
  extra[#extra + 1] = "allowed: " .. allowed(e)
  if e.default ~= nil then extra[#extra + 1] = "default " .. show(e.default) end
  return s .. " (" .. table.concat(extra, "; ") .. ")"
end

local check_table

local function check_entry(e, v, where, path, filled)
  local ty = e.type or "any"
  local ok, r
  if checkers[ty] then
    ok, r = checkers[ty](v, e)
  elseif schema.types[ty] then
    ok, r = schema.types[ty].check(v, e)
  else
    error("cleave.schema: entry '" .. path .. "' has unknown type '" .. tostring(ty) .. "'")
  end
  if not ok then
    raise(string.format("%s: %s = %s %s. %s", where, path, show(v), r, describe_entry(e, path)))
  end
  if ty == "table" and e.schema then r = check_table(e.schema, r, where, path .. ".") end
  if e.check then
    local problem = e.check(r, filled)
    if problem then
      raise(string.format("%s: %s = %s %s. %s", where, path, show(v), problem, describe_entry(e, path)))
    end
  end
  return r
end

check_table = function(spec, tbl, where, prefix)
  if tbl == nil then tbl = {} end
  if type(tbl) ~= "table" or getmetatable(tbl) then
    raise(string.format("%s: expected a table of named parameters%s, got %s %s", where,
      prefix ~= "" and (" for " .. prefix:sub(1, -2)) or "", kind_of(tbl), show(tbl)))
  end
  local idx = index_of(spec)
  for k, v in pairs(tbl) do
    if type(k) ~= "string" then
      raise(string.format("%s: unexpected positional value [%s] = %s%s; parameters are given by name (%s)",
        where, tostring(k), show(v), prefix ~= "" and (" in " .. prefix:sub(1, -2)) or "",
        table.concat(schema.names(spec), ", ")))
    end
    if not idx[k] then
      local names = schema.names(spec)
      local near = schema.closest(k, names)
      local msg = string.format("%s: unknown key '%s%s'", where, prefix, k)
      if near then msg = msg .. string.format("; did you mean '%s%s'?", prefix, near) end
      if #names > 0 then
        msg = msg .. (near and " Valid keys: " or "; valid keys: ") .. table.concat(names, ", ")
      else
        msg = msg .. "; this table takes no keys"
      end
      raise(msg)
    end
  end
  local filled = {}
  for _, e in ipairs(spec) do
    local v = tbl[e.name]
    if v == nil then
      if e.required then
        raise(string.format("%s: missing required key '%s%s'. %s", where, prefix, e.name,
          describe_entry(e, prefix .. e.name)))
      end
      if e.default ~= nil then
        v = copy(e.default)
        if e.type == "table" and e.schema then v = check_table(e.schema, v, where, prefix .. e.name .. ".") end
        filled[e.name] = v
      elseif e.type == "table" and e.schema and e.fill_nested then
        filled[e.name] = check_table(e.schema, {}, where, prefix .. e.name .. ".")
      end
    end
  end
  for _, e in ipairs(spec) do
    local v = tbl[e.name]
    if v ~= nil then filled[e.name] = check_entry(e, v, where, prefix .. e.name, filled) end
  end
  if spec.check then
    local problem = spec.check(filled)
    if problem then raise(string.format("%s: %s", where, problem)) end
  end
  return filled
end

function schema.check(spec, tbl, where)
  return check_table(spec, tbl, where or "parameters", "")
end

-- Check one value against one entry (for positional arguments): returns the converted value.
function schema.check_value(entry, v, where)
  return check_entry(entry, v, where or "argument", entry.name, {})
end

-- ---- help -----------------------------------------------------------------------------------------
-- Text table of a spec: name, default, unit, range, help; one line per entry.
function schema.describe(spec, indent)
  indent = indent or "  "
  local rows = {}
  local w = { 0, 0, 0, 0 }
  for _, e in ipairs(spec) do
    local row = { e.name,
      e.default ~= nil and show(e.default) or (e.required and "(required)" or "-"),
      (e.unit and e.unit ~= "") and e.unit or "-",
      e.range and schema.format_range(e.range) or
        (e.type == "enum" and table.concat((function()
          local t = {}
          for i, x in ipairs(e.values or {}) do t[i] = tostring(x) end
          return t
        end)(), "|")) or (e.type == "boolean" and "true|false") or (e.type or "any"),
      e.help or "" }
    for i = 1, 4 do w[i] = math.max(w[i], #row[i]) end
    rows[#rows + 1] = row
  end
  local lines = {}
  for _, row in ipairs(rows) do
    lines[#lines + 1] = indent .. string.format("%-" .. w[1] .. "s  %-" .. w[2] .. "s  %-" .. w[3] ..
      "s  %-" .. w[4] .. "s  %s", row[1], row[2], row[3], row[4], row[5]):gsub("%s+$", "")
  end
  return table.concat(lines, "\n")
end

return schema
