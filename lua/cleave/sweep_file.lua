-- cleave.sweep_file: the results file of a sweep (cleave.sweep), one CSV row per finished point.
--
--   # cleave sweep <name>: fingerprint=<16 hex> script=<file> params=a,b outputs=x,y fixed=<k=v;...>
--   key,point,a,b,x,y,wall_s,status,message,cleave_version,git_revision,host,finished,check
--   3f0c...,0,1e5,0.5,0.0123,4.2,3.21,ok,,0.1.0,5dd79822d224,vm,2026-11-25T19:20:52Z,8c1d2e3f
--
-- The first line says which sweep wrote the file: a sweep with another name, script, parameter
-- names, outputs or fixed values has another fingerprint and is refused (its rows would not mean
-- the same). Every row is one line (messages are flattened), appended with one write() under an
-- exclusive flock, so concurrent writers (local workers, Slurm tasks, GNU parallel jobs on hosts
-- sharing the file) never interleave; a row is in the file (the kernel's page cache, which a killed
-- process does not take with it) when its point counts as finished; the file is fsynced when the
-- runner closes it, not after every row (a machine that loses power may lose the last rows, whose
-- points then run again; a row cut short by it fails its check, below). The last
-- field, `check`, is a hash of the rest of the line: a line cut short (a full disk, a copy
-- truncated) fails it and is skipped with a warning instead of being read as a wrong value, and
-- its point runs again. Readers take the last row of a key (a point re-run with --retry).
-- Read it elsewhere with pandas.read_csv(path, comment="#") or gnuplot's `set datafile
-- separator ","`.
local ffi = require "ffi"
local bit = require "bit"
local output = require "cleave.output"
local process = require "cleave.process"

local M = {}

M.trailer = { "wall_s", "status", "message", "cleave_version", "git_revision", "host", "finished", "check" }

-- ---- hashing -------------------------------------------------------------------------------------

-- FNV-1a, 64 bits, as 16 hex digits.
function M.hash(s)
  local h = 14695981039346656037ULL
  for i = 1, #s do
    h = bit.bxor(h, s:byte(i)) * 1099511628211ULL
  end
  return bit.tohex(h, 16)
end

-- A value as the key and the fingerprint write it: %.17g numbers (every double round-trips),
-- true/false, strings as they are.
function M.canonical(v)
  if type(v) == "number" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", v) end
    return string.format("%.17g", v)
  end
  return tostring(v)
end

-- "a=1;b=x" over the names in the order given.
function M.canonical_set(names, values)
  local parts = {}
  for i, n in ipairs(names) do parts[i] = n .. "=" .. M.canonical(values[n]) end
  return table.concat(parts, ";")
end

-- ---- the header ------------------------------------------------------------------------------

-- meta: name, script, params (names, sorted), outputs (names), fixed (canonical text).
function M.fingerprint(meta)
  return M.hash(table.concat({ "sweep=" .. meta.name, "script=" .. meta.script,
                               "params=" .. table.concat(meta.params, ","),
                               "outputs=" .. table.concat(meta.outputs, ","), "fixed=" .. meta.fixed }, "\n"))
end

local function flat(s) return (tostring(s):gsub("[\r\n]+", " | ")) end

function M.header(meta)
  local cols = { "key", "point" }
  for _, n in ipairs(meta.params) do cols[#cols + 1] = n end
  for _, n in ipairs(meta.outputs) do cols[#cols + 1] = n end
  for _, n in ipairs(M.trailer) do cols[#cols + 1] = n end
  local first = string.format("# cleave sweep %s: fingerprint=%s script=%s params=%s outputs=%s fixed=%s",
                              meta.name, M.fingerprint(meta), meta.script, table.concat(meta.params, ","),
                              table.concat(meta.outputs, ","), flat(meta.fixed))
  local fields = {}
  for i, c in ipairs(cols) do fields[i] = output.csv_field(c) end
  return first .. "\n" .. table.concat(fields, ",") .. "\n", cols
end

-- What the first line of a file says: name, fingerprint, script, params, outputs, fixed.
function M.parse_first_line(line)
  local name, rest = line:match("^# cleave sweep ([^:]+): (.*)$")
  if not name then return nil end
  local m = { name = name }
  m.fingerprint = rest:match("fingerprint=(%x+)")
  m.script = rest:match("script=(%S+)")
  m.params = rest:match("params=(%S*)")
  m.outputs = rest:match("outputs=(%S*)")
  m.fixed = rest:match("fixed=(.*)$")
  return m
end

-- Why a file written by `theirs` is not this sweep's (`mine`): the fields that differ.
local function differences(mine, theirs)
  local d = {}
  local function cmp(what, a, b)
    if a ~= b then d[#d + 1] = string.format("%s %s (this sweep: %s)", what, b ~= nil and b ~= "" and b or "(none)", a ~= "" and a or "(none)") end
  end
  cmp("sweep", mine.name, theirs.name)
  cmp("script", mine.script, theirs.script)
  cmp("parameters", table.concat(mine.params, ","), theirs.params)
  cmp("outputs", table.concat(mine.outputs, ","), theirs.outputs)
  cmp("fixed values", flat(mine.fixed), theirs.fixed)
  return d
end

-- ---- rows --------------------------------------------------------------------------------------

-- One line of the file: the fields of `cols` from `row` (a table by column name) and the check.
function M.format_row(cols, row)
  local fields = {}
  for i = 1, #cols - 1 do
    local v = row[cols[i]]
    if type(v) == "string" then v = flat(v) end
    fields[i] = output.csv_field(v)
  end
  local body = table.concat(fields, ",")
  return body .. "," .. M.hash(body):sub(1, 8) .. "\n"
end

-- Parse one line into a row table (by column), or nil and why.
local function parse_line(cols, line)
  local comma = line:match("^.*(),")
  if not comma then return nil, "not a row" end
  local body, check = line:sub(1, comma - 1), line:sub(comma + 1)
  if M.hash(body):sub(1, 8) ~= check then return nil, "its check field does not match (a cut or edited line)" end
  local ok, recs = pcall(output.parse_csv, body .. "\n", "row")
  if not ok or #recs ~= 1 then return nil, "not valid CSV" end
  local f = recs[1].fields
  if #f ~= #cols - 1 then return nil, string.format("%d fields, the header has %d", #f + 1, #cols) end
  local row = {}
  for i, fld in ipairs(f) do
    -- an empty field is a value the point did not give (nil); an empty string is written quoted
    if fld.quoted or fld[1] ~= "" then row[cols[i]] = output.csv_value(fld) end
  end
  row.check = check
  return row
end

-- ---- the file ----------------------------------------------------------------------------------
local File = {}
File.__index = File

local function read_from(path, offset)
  local f = io.open(path, "rb")
  if not f then return "" end
  f:seek("set", offset)
  local s = f:read("*a") or ""
  f:close()
  return s
end

-- Open (create) the results file of a sweep for appending. Refuses a file another sweep wrote,
-- naming what differs. meta: see M.header.
function M.open(path, meta)
  output.mkdir_for(path)
  local fd, err = process.open_append(path)
  if not fd then error(string.format("cannot open the results file '%s': %s", path, err), 0) end
  local header, cols = M.header(meta)
  local self = setmetatable({ path = path, fd = fd, meta = meta, cols = cols, offset = 0, rows = {}, by_key = {},
                              order = {}, bad = {}, fingerprint = M.fingerprint(meta) }, File)
  local ok, e = pcall(process.with_file_lock, fd, function()
    local f = io.open(path, "rb")
    local size = f:seek("end")
    f:close()
    if size == 0 then assert(process.write_all(fd, header)) end
    self:_check_header()
    self:_refresh(true)
  end)
  if not ok then
    process.close(fd)
    error(e, 0)
  end
  return self
end

function File:_check_header()
  local text = read_from(self.path, 0)
  local first = text:match("^([^\n]*)\n")
  local theirs = first and M.parse_first_line(first)
  if not theirs then
    error(string.format("'%s' is not the results file of a cleave sweep (its first line is %s); give --results "
                        .. "another file or move it away", self.path, first and ("'" .. first:sub(1, 80) .. "'") or "missing"), 0)
  end
  if theirs.fingerprint ~= self.fingerprint then
    local d = differences(self.meta, theirs)
    error(string.format("'%s' holds the results of another sweep (%s); its rows would not mean the same: give "
                        .. "--results another file, or move it away to start over", self.path,
                        #d > 0 and table.concat(d, "; ") or ("fingerprint " .. tostring(theirs.fingerprint))), 0)
  end
  local second_end = text:find("\n", #first + 2, true)
  self.offset = second_end or #text
end

-- Read the rows appended since the last look (complete lines only). Under the file's lock
-- (`locked`), a last line without its end of line was cut short by a writer that died or by a
-- truncated copy (writers hold the lock while they write): it is ended here, so it reads as a bad
-- row and the next row starts on a line of its own.
function File:_refresh(locked)
  local text = read_from(self.path, self.offset)
  if locked and text ~= "" and text:sub(-1) ~= "\n" then
    local ok, err = process.write_all(self.fd, "\n")
    if not ok then error(string.format("cannot append to '%s': %s", self.path, err), 0) end
    text = text .. "\n"
  end
  local last = text:match("^.*()\n")
  if not last then return end
  local chunk = text:sub(1, last)
  local lineno_base = self.lines_read or 2
  local n = 0
  for line in chunk:gmatch("([^\n]*)\n") do
    n = n + 1
    if line ~= "" and line:sub(1, 1) ~= "#" then
      local row, why = parse_line(self.cols, line)
      if row then
        self.rows[#self.rows + 1] = row
        if not self.by_key[row.key] then self.order[#self.order + 1] = row.key end
        self.by_key[row.key] = row
      else
        self.bad[#self.bad + 1] = { line = lineno_base + n, why = why }
      end
    end
  end
  self.lines_read = lineno_base + n
  self.offset = self.offset + last
end

function File:refresh()
  process.with_file_lock(self.fd, function() self:_refresh(true) end)
end

-- The last row recorded for a key, or nil.
function File:row(key) return self.by_key[key] end

-- Append a row unless `skip(existing_row)` says the key is done already (checked under the lock,
-- after reading what others appended). Returns true when written.
function File:append(row, skip)
  return process.with_file_lock(self.fd, function()
    self:_refresh(true)
    local have = self.by_key[row.key]
    if have and skip and skip(have) then return false end
    local ok, err = process.write_all(self.fd, M.format_row(self.cols, row))
    if not ok then error(string.format("cannot append to '%s': %s", self.path, err), 0) end
    self:_refresh(true)
    return true
  end)
end

function File:close()
  process.fsync(self.fd)
  process.close(self.fd)
  self.fd = -1
end

-- Read a results file (no lock needed: rows are whole lines appended at once). Returns
-- { meta (the first line's fields), columns, rows (every complete row, file order), last (the last
-- row per key, in order of first appearance), bad = {{line, why}} }.
function M.read(path)
  local f, err = io.open(path, "rb")
  if not f then error(string.format("cannot open the results file '%s': %s", path, tostring(err)), 0) end
  local text = f:read("*a")
  f:close()
  local first, second = text:match("^([^\n]*)\n([^\n]*)\n")
  local meta = first and M.parse_first_line(first)
  if not meta then
    error(string.format("'%s' is not the results file of a cleave sweep (no '# cleave sweep' first line)", path), 0)
  end
  local recs = output.parse_csv(second .. "\n", path)
  local cols = {}
  for i, fld in ipairs(recs[1].fields) do cols[i] = fld[1] end
  local self = setmetatable({ path = path, cols = cols, offset = #first + #second + 2, rows = {}, by_key = {},
                              order = {}, bad = {}, lines_read = 2 }, File)
  self:_refresh()
  local last = {}
  for i, k in ipairs(self.order) do last[i] = self.by_key[k] end
  return { meta = meta, columns = cols, rows = self.rows, last = last, bad = self.bad }
end

return M
