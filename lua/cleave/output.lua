-- cleave.output: where a run's results go on disk.
--
--   output.series(dir, name)       a VTU time series with a ParaView .pvd index
--   output.csv(path, columns)      a CSV table written row by row (flushed per row)
--   output.read_csv(path)          read a CSV back as columns (skips '#' comment lines)
--   output.mkdir(dir)              mkdir -p
--
-- Plain Lua, no FFI: the series writes each frame through a mesh or body handle's :write(path)
-- method (or any function(path)), so this module works with or without the C core loaded.
local output = {}
local where = require("cleave.schema").where -- "file:line: " with the file named whole

-- ---------------------------------------------------------------------------------------------
-- errors at the user's line
--
-- Inside the module, fail(msg) raises a marked error; every public function is wrapped by api(),
-- which turns it into error(msg, 2) at the outermost public call, so the message starts with the
-- user's file and line however deep inside the module the check was. Public functions calling
-- each other (also across cleave.plot and cleave.runinfo, which share these two) pass the mark
-- through. Unmarked errors (a bug here, or an error raised by a user callback) keep their text.
local Failure = {}
Failure.__tostring = function(e) return e.msg end
local api_depth = 0

local function fail(msg)
  error(setmetatable({ msg = msg }, Failure), 0)
end

local function api(fn)
  return function(...)
    api_depth = api_depth + 1
    local r = { pcall(fn, ...) }
    api_depth = api_depth - 1
    if r[1] then return unpack(r, 2, table.maxn(r)) end
    local e = r[2]
    if getmetatable(e) == Failure then
      if api_depth > 0 then error(e, 0) end
      error(where(2) .. e.msg, 0)
    end
    error(e, 0)
  end
end
output.fail, output.api = fail, api

-- ---------------------------------------------------------------------------------------------
-- paths and directories

-- Quote a string for a POSIX shell: single quotes, with each ' written as '\''.
local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", [['\'']]) .. "'"
end
output.shell_quote = shell_quote

-- os.execute returns 0 (Lua 5.1, LuaJIT's default) or true (5.2 compatibility) on success.
local function execute_ok(cmd)
  local a, _, c = os.execute(cmd)
  if a == true or a == 0 then return true end
  if type(a) == "number" then return false, a end
  return false, c
end
output.execute_ok = execute_ok

--- Create a directory and its parents (like mkdir -p, without a shell). Errors name the directory.
function output.mkdir(dir)
  if type(dir) ~= "string" or dir == "" then
    fail("output.mkdir: directory must be a non-empty string, got " .. tostring(dir))
  end
  local ok, why = require("cleave.process").mkdir_p(dir)
  if not ok then fail("output.mkdir: cannot create directory '" .. dir .. "': " .. why) end
  return dir
end

--- The directory part of a path ("." when there is none).
function output.dirname(path)
  local d = path:match("^(.*)/[^/]*$")
  if d == nil then return "." end
  if d == "" then return "/" end
  return d
end

--- The last component of a path.
function output.basename(path)
  return path:match("([^/]*)$")
end

--- Create the directory that will hold `path` (a file).
function output.mkdir_for(path)
  local d = output.dirname(path)
  if d ~= "." and d ~= "/" then output.mkdir(d) end
  return path
end

--- Write `text` to `path` atomically: readers see either the old file or the new one, never a
--- half-written one (write a temporary file beside it, then rename, which POSIX makes atomic
--- within one file system).
function output.write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then fail("cannot write '" .. tmp .. "': " .. tostring(err)) end
  local ok, werr = f:write(text)
  if ok then ok, werr = f:flush() end
  local cok, cerr = f:close()
  if not ok or not cok then
    os.remove(tmp)
    fail("cannot write '" .. tmp .. "': " .. tostring(werr or cerr))
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    fail("cannot rename '" .. tmp .. "' to '" .. path .. "': " .. tostring(rerr))
  end
end
jit.off(output.write_atomic) -- as checked_write below: its write and flush results must be the first ones

local function file_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end
output.file_size = file_size

local function fmt_number(v)
  -- %.17g round-trips every double; integers print without a fraction.
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  return string.format("%.17g", v)
end
output.format_number = fmt_number

-- ---------------------------------------------------------------------------------------------
-- VTU series with a .pvd index

local function xml_attr(s)
  return (tostring(s):gsub("[&<>\"']", {
    ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }))
end

local Series = {}
Series.__index = Series

-- Call the writer: a function(path), or an object (table, cdata with a metatype) with :write(path).
local function write_with(what, path)
  local tw = type(what)
  local fn, obj
  if tw == "function" then
    fn = what
  elseif tw == "table" or tw == "cdata" or tw == "userdata" then
    -- handles raise on unknown fields: look the method up under pcall
    local ok, method = pcall(function() return what.write end)
    if ok and type(method) == "function" then fn, obj = method, what end
  end
  if fn then
    local ok, err
    if obj ~= nil then ok, err = pcall(fn, obj, path) else ok, err = pcall(fn, path) end
    if not ok then
      fail("series:write: writing '" .. path .. "' failed: " .. tostring(err))
    end
    return
  end
  fail("series:write: third argument must be a function(path) or an object with a "
        .. ":write(path) method (a mesh or a body), got " .. tw)
end

--- A VTU series <dir>/<name>_<NNNNN>.vtu indexed by <dir>/<name>.pvd.
--- The .pvd is rewritten atomically after every frame, so a run killed mid-way leaves a valid
--- index of the frames it finished. A new series replaces an older one of the same name: its index,
--- its frames and any half-written frame (.vtu.tmp) are removed.
function output.series(dir, name)
  if type(dir) ~= "string" or dir == "" then
    fail("output.series: dir must be a non-empty string, got " .. tostring(dir))
  end
  if type(name) ~= "string" or not name:match("^[%w_%-%.]+$") then
    fail("output.series: name must be a non-empty file name of letters, digits, '_', '-', '.'"
          .. ", got " .. tostring(name))
  end
  output.mkdir(dir)
  -- frames of an earlier series of this name (which the new index would not list) and files a
  -- killed writer left half-written (<name>_NNNNN.vtu.tmp): name holds only [%w_%-%.], safe in a glob
  execute_ok("rm -f -- " .. shell_quote(dir) .. "/" .. name .. "_[0-9]*.vtu " .. shell_quote(dir) .. "/" .. name
    .. "_[0-9]*.vtu.tmp " .. shell_quote(dir .. "/" .. name .. ".pvd.tmp") .. " 2>/dev/null")
  local self = setmetatable({
    dir = dir, name = name, pvd = dir .. "/" .. name .. ".pvd", entries = {},
  }, Series)
  self:_write_index()
  return self
end

function Series:_write_index()
  local out = {
    '<?xml version="1.0"?>',
    '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
    '  <Collection>',
  }
  for _, e in ipairs(self.entries) do
    out[#out + 1] = string.format('    <DataSet timestep="%s" group="" part="0" file="%s"/>',
                                  fmt_number(e.time), xml_attr(e.file))
  end
  out[#out + 1] = '  </Collection>'
  out[#out + 1] = '</VTKFile>'
  out[#out + 1] = ''
  output.write_atomic(self.pvd, table.concat(out, "\n"))
end

--- Write frame `step` (integer >= 0) at simulated time `time` (s) through `what`: a function(path)
--- or an object with :write(path). Returns the path written. Writing a step again replaces it.
function Series:write(step, time, what)
  if type(step) ~= "number" or step < 0 or step ~= math.floor(step) then
    fail("series:write: step must be an integer >= 0, got " .. tostring(step))
  end
  if type(time) ~= "number" or time ~= time or time == math.huge or time == -math.huge then
    fail("series:write: time must be a finite number (s), got " .. tostring(time))
  end
  local file = string.format("%s_%05d.vtu", self.name, step)
  local path = self.dir .. "/" .. file
  os.remove(path)
  write_with(what, path)
  local size = file_size(path)
  if not size or size == 0 then
    fail("series:write: the writer did not produce '" .. path .. "'")
  end
  local replaced = false
  for _, e in ipairs(self.entries) do
    if e.step == step then e.time, e.file, replaced = time, file, true end
  end
  if not replaced then
    self.entries[#self.entries + 1] = { step = step, time = time, file = file }
    table.sort(self.entries, function(a, b) return a.step < b.step end)
  end
  self:_write_index()
  return path
end

--- Number of frames written so far.
function Series:count()
  return #self.entries
end

-- ---------------------------------------------------------------------------------------------
-- CSV

-- RFC 4180 quoting: a field with a comma, quote, CR/LF or surrounding spaces is quoted, with
-- quotes doubled.
local function csv_field(v)
  local t = type(v)
  if v == nil then return "" end
  if t == "number" then return fmt_number(v) end
  if t == "boolean" then return v and "true" or "false" end
  if t == "cdata" then
    local n = tonumber(v)
    if n then return fmt_number(n) end
  end
  local s = tostring(v)
  -- Strings that would read back as numbers (or as nothing, or as a comment) are quoted too,
  -- so that read_csv returns them as strings.
  if s == "" or s:find('[,"\r\n]') or s:match("^%s") or s:match("%s$") or s:sub(1, 1) == "#"
     or tonumber(s) then
    return '"' .. s:gsub('"', '""') .. '"'
  end
  return s
end
output.csv_field = csv_field

local Csv = {}
Csv.__index = Csv

-- Write and flush, or fail naming the file: io's write and flush report errors (ENOSPC on a full
-- disk) through their return values, which nothing would otherwise read. The file is closed on
-- failure so no further row lands after the gap.
local function checked_write(f, path, text, what)
  local ok, err = f:write(text)
  if ok then ok, err = f:flush() end
  if not ok then
    f:close()
    fail(string.format("%s: writing '%s' failed: %s (is the disk full?)", what, path, tostring(err)))
  end
end
-- Never compiled: a trace records f:write and f:flush as calls guarded on their results, and a
-- failed guard resumes the interpreter before the call, which runs it again. The second fflush
-- finds the buffer glibc dropped after the failed write and reports success, so a full disk went
-- unnoticed whenever this function had become hot (1 run in 6 of test_reliability).
jit.off(checked_write)

--- Open a CSV file for writing with the given column names; creates the directory.
--- opts.comments: optional list of lines written first, each prefixed with "# ".
function output.csv(path, columns, opts)
  if type(path) ~= "string" or path == "" then
    fail("output.csv: path must be a non-empty string, got " .. tostring(path))
  end
  if type(columns) ~= "table" or #columns == 0 then
    fail("output.csv: columns must be a non-empty list of names")
  end
  local index = {}
  for i, c in ipairs(columns) do
    if type(c) ~= "string" or c == "" then
      fail("output.csv: column " .. i .. " must be a non-empty string, got " .. tostring(c))
    end
    if index[c] then fail("output.csv: column '" .. c .. "' appears twice") end
    index[c] = i
  end
  output.mkdir_for(path)
  local f, err = io.open(path, "w")
  if not f then fail("output.csv: cannot open '" .. path .. "': " .. tostring(err)) end
  local text = {}
  for _, line in ipairs(opts and opts.comments or {}) do
    text[#text + 1] = "# " .. (tostring(line):gsub("[\r\n]+", " ")) .. "\n"
  end
  local head = {}
  for i, c in ipairs(columns) do head[i] = csv_field(c) end
  text[#text + 1] = table.concat(head, ",") .. "\n"
  checked_write(f, path, table.concat(text), "output.csv")
  local cols = {}
  for i, c in ipairs(columns) do cols[i] = c end
  return setmetatable({ path = path, columns = cols, index = index, file = f, rows = 0 }, Csv)
end

--- Append a row: either positional {v1, v2, ...} or named {colname = v, ...} (not both).
--- nil or missing values become empty fields. The row is flushed to disk at once.
function Csv:row(values)
  if not self.file then fail("csv:row: '" .. self.path .. "' is closed") end
  if type(values) ~= "table" then
    fail("csv:row: expected a table of values, got " .. type(values))
  end
  local n = #self.columns
  local fields = {}
  local named = false
  for k in pairs(values) do
    if type(k) == "string" then
      if not self.index[k] then
        fail("csv:row: unknown column '" .. k .. "' (columns: "
              .. table.concat(self.columns, ", ") .. ")")
      end
      named = true
    elseif type(k) == "number" then
      if k < 1 or k > n or k ~= math.floor(k) then
        fail("csv:row: value at position " .. tostring(k) .. " but the file has " .. n
              .. " columns")
      end
    end
  end
  for i = 1, n do
    local v
    if named then v = values[self.columns[i]] else v = values[i] end
    if named and values[i] ~= nil then
      fail("csv:row: mix of positional and named values")
    end
    fields[i] = csv_field(v)
  end
  -- Flushed per row: a killed run keeps every row it finished; a failed write (a full disk) is an
  -- error here, not a file that ends mid-row under a run that says it completed.
  checked_write(self.file, self.path, table.concat(fields, ",") .. "\n", "csv:row")
  self.rows = self.rows + 1
  return self
end

function Csv:close()
  if self.file then
    local f = self.file
    self.file = nil
    local ok, err = f:close()
    if not ok then fail("csv:close: '" .. self.path .. "': " .. tostring(err)) end
  end
end

-- Parse CSV text into records of fields (RFC 4180: quoted fields may hold commas, doubled
-- quotes and newlines). Lines that begin with '#' outside a quoted field are comments; blank
-- lines are skipped. Returns a list of {line = n, fields = {...}}.
local function parse_csv(text, path)
  local records = {}
  local pos, len, line = 1, #text, 1
  while pos <= len do
    local c = text:sub(pos, pos)
    if c == "#" then
      local e = text:find("\n", pos, true) or len
      pos, line = e + 1, line + 1
    elseif c == "\n" then
      pos, line = pos + 1, line + 1
    elseif c == "\r" and text:sub(pos + 1, pos + 1) == "\n" then
      pos, line = pos + 2, line + 1
    else
      local fields, start_line = {}, line
      while true do
        local field
        if text:sub(pos, pos) == '"' then
          local parts = {}
          pos = pos + 1
          while true do
            local q = text:find('"', pos, true)
            if not q then
              fail(string.format("output.read_csv: %s:%d: unterminated quoted field", path, start_line))
            end
            local chunk = text:sub(pos, q - 1)
            for _ in chunk:gmatch("\n") do line = line + 1 end
            parts[#parts + 1] = chunk
            if text:sub(q + 1, q + 1) == '"' then
              parts[#parts + 1] = '"'
              pos = q + 2
            else
              pos = q + 1
              break
            end
          end
          field = { table.concat(parts), quoted = true }
        else
          local e = text:find("[,\r\n]", pos) or len + 1
          field = { text:sub(pos, e - 1), quoted = false }
          pos = e
        end
        fields[#fields + 1] = field
        local d = text:sub(pos, pos)
        if d == "," then
          pos = pos + 1
        elseif d == "\r" or d == "\n" or d == "" then
          if d == "\r" then pos = pos + 1 end
          if text:sub(pos, pos) == "\n" then pos = pos + 1 end
          line = line + 1
          break
        else
          fail(string.format("output.read_csv: %s:%d: unexpected character '%s' after a quoted field",
                              path, line, d))
        end
      end
      records[#records + 1] = { line = start_line, fields = fields }
    end
  end
  return records
end
output.parse_csv = parse_csv -- raw (errors are output.fail marks): for readers of one-line records

local special_numbers = {
  nan = 0 / 0, ["-nan"] = 0 / 0, ["+nan"] = 0 / 0,
  inf = math.huge, ["+inf"] = math.huge, ["-inf"] = -math.huge,
  infinity = math.huge, ["-infinity"] = -math.huge,
}

local function convert(field)
  if field.quoted then return field[1] end
  local s = field[1]:match("^%s*(.-)%s*$")
  local n = tonumber(s)
  if n then return n end
  local sp = special_numbers[s:lower()]
  if sp then return sp end
  return s
end
output.csv_value = convert -- a parsed field as read_csv returns it (number, or string)

--- Read a CSV file written by output.csv or by anyone else: the first non-comment record is the
--- header. Returns cols, names, nrows where cols[name] is the list of that column's values
--- (numbers where the field parses as a number, else strings; an empty field is ""), and names
--- is the header in file order. Lines starting with '#' are comments. A record with a different
--- number of fields than the header is an error naming the file and line.
function output.read_csv(path)
  if type(path) ~= "string" then
    fail("output.read_csv: path must be a string, got " .. tostring(path))
  end
  -- only a regular file has an end: opening a FIFO blocks, and a device (a link to /dev/zero) would
  -- be read until memory runs out
  if execute_ok("test -e " .. shell_quote(path)) and not execute_ok("test -f " .. shell_quote(path)) then
    fail("output.read_csv: '" .. path .. "' is not a regular file; give the path of a CSV file")
  end
  local f, err = io.open(path, "rb")
  if not f then fail("output.read_csv: cannot open '" .. path .. "': " .. tostring(err)) end
  local text = f:read("*a")
  f:close()
  local records = parse_csv(text, path)
  if #records == 0 then fail("output.read_csv: '" .. path .. "' has no header line") end
  local names, cols = {}, {}
  for i, fld in ipairs(records[1].fields) do
    local name = fld[1]:match("^%s*(.-)%s*$")
    if name == "" then name = "column" .. i end
    if cols[name] then
      fail(string.format("output.read_csv: %s:%d: column '%s' appears twice", path,
                          records[1].line, name))
    end
    names[i] = name
    cols[name] = {}
  end
  for r = 2, #records do
    local rec = records[r]
    if #rec.fields ~= #names then
      fail(string.format("output.read_csv: %s:%d: %d fields but the header has %d", path,
                          rec.line, #rec.fields, #names))
    end
    for i, fld in ipairs(rec.fields) do
      local c = cols[names[i]]
      c[#c + 1] = convert(fld)
    end
  end
  return cols, names, #records - 1
end

-- public entry points raise at the caller's line
for _, name in ipairs { "mkdir", "mkdir_for", "write_atomic", "series", "csv", "read_csv" } do
  output[name] = api(output[name])
end
for _, name in ipairs { "write" } do Series[name] = api(Series[name]) end
for _, name in ipairs { "row", "close" } do Csv[name] = api(Csv[name]) end

return output
