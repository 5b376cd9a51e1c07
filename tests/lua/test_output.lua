-- cleave.output: VTU series with a .pvd index kept valid after every frame, CSV writing (flushed
-- per row, exact numbers, quoting) and reading (comments, quotes, errors with file and line).
-- Runs through `cleave run` and through plain luajit with LUA_PATH at lua/ (no FFI core needed;
-- the part that writes real meshes runs when the core loads).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/../../lua/?.lua;" .. package.path
local T = require "expect"
local output = require "cleave.output"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

-- Parse a .pvd: check the XML skeleton and return its DataSet entries in file order.
local function parse_pvd(path)
  local s = read(path)
  T.matches(s, '^<%?xml version="1.0"%?>', "pvd header")
  T.matches(s, '<VTKFile type="Collection"[^>]*>', "pvd root")
  T.matches(s, "</Collection>%s*</VTKFile>%s*$", "pvd closed")
  local open = select(2, s:gsub("<Collection>", ""))
  T.eq(open, 1, "one Collection")
  local entries = {}
  for attrs in s:gmatch("<DataSet([^>]*)/>") do
    entries[#entries + 1] = {
      timestep = tonumber(attrs:match('timestep="([^"]*)"')),
      file = attrs:match('file="([^"]*)"'),
    }
  end
  return entries
end

T.test("series: files numbered by step, .pvd lists them in order after every frame", function()
  local dir = T.tmpdir("output_series") .. "/deep/er"
  os.execute("rm -rf '" .. dir .. "'")
  local s = output.series(dir, "bar")
  T.truthy(exists(dir .. "/bar.pvd"), "the index exists before the first frame")
  T.eq(#parse_pvd(dir .. "/bar.pvd"), 0, "empty index")
  local times = { 0, 1 / 60, 0.1 }
  for i, t in ipairs(times) do
    local step = (i - 1) * 10
    local path = s:write(step, t, function(p)
      T.write_file(p, "<VTKFile>frame " .. step .. "</VTKFile>\n")
    end)
    T.eq(path, string.format("%s/bar_%05d.vtu", dir, step))
    -- valid after every frame: a run killed now leaves a readable index of finished frames
    local e = parse_pvd(dir .. "/bar.pvd")
    T.eq(#e, i, "entries after frame " .. i)
    for k = 1, i do
      T.eq(e[k].file, string.format("bar_%05d.vtu", (k - 1) * 10))
      T.eq(e[k].timestep, times[k], "timestep round-trips exactly")
      T.truthy(exists(dir .. "/" .. e[k].file), "listed file exists")
    end
    T.truthy(not exists(dir .. "/bar.pvd.tmp"), "no temporary file left behind")
  end
  T.eq(s:count(), 3)
  -- writing a step again replaces it rather than listing it twice
  s:write(10, 0.5, function(p) T.write_file(p, "again") end)
  local e = parse_pvd(dir .. "/bar.pvd")
  T.eq(#e, 3)
  T.eq(e[2].timestep, 0.5)
  T.eq(read(dir .. "/bar_00010.vtu"), "again")
end)

T.test("series: an object with :write(path) (a mesh or body) is written through its method", function()
  local dir = T.tmpdir("output_series_obj")
  local calls = {}
  local obj = { write = function(self, p) calls[#calls + 1] = p; T.write_file(p, "x") end }
  local s = output.series(dir, "obj")
  s:write(0, 0, obj)
  T.eq(#calls, 1)
  T.eq(calls[1], dir .. "/obj_00000.vtu")
  -- frames written out of order are listed by step
  s:write(20, 2, obj)
  s:write(5, 0.5, obj)
  local e = parse_pvd(dir .. "/obj.pvd")
  T.eq(e[1].file .. " " .. e[2].file .. " " .. e[3].file, "obj_00000.vtu obj_00005.vtu obj_00020.vtu")
end)

T.test("series: errors name the problem at the caller's line", function()
  local dir = T.tmpdir("output_series_err")
  local s = output.series(dir, "e")
  T.error(function() s:write(-1, 0, function() end) end, "step must be an integer >= 0")
  T.error(function() s:write(1.5, 0, function() end) end, "step must be an integer >= 0")
  T.error(function() s:write(0, 0 / 0, function() end) end, "time must be a finite number")
  T.error(function() s:write(0, 0, 42) end, "function(path) or an object with a :write(path)")
  T.error(function() s:write(0, 0, function() end) end, "the writer did not produce")
  T.error(function() s:write(0, 0, function() error("disk full") end) end,
          { "writing '" .. dir .. "/e_00000.vtu' failed", "disk full" })
  T.error(function() output.series(dir, "a/b") end, "name must be a non-empty file name")
  T.error(function() output.series("", "x") end, "dir must be a non-empty string")
  T.eq(#parse_pvd(dir .. "/e.pvd"), 0, "failed frames are not listed")
end)

T.test("mkdir: nested paths with spaces and quotes; a file in the way is an error", function()
  local base = T.tmpdir("output_mkdir")
  local d = base .. "/it's a \"dir\"/with spaces/$(x)"
  T.eq(output.mkdir(d), d)
  T.write_file(d .. "/f.txt", "ok")
  T.eq(read(d .. "/f.txt"), "ok")
  T.write_file(base .. "/plainfile", "")
  T.error(function() output.mkdir(base .. "/plainfile/sub") end, "plainfile/sub': Not a directory")
  T.error(function() output.mkdir(base .. "/plainfile") end, "plainfile': exists and is not a directory")
  T.eq(output.mkdir(base .. "//double//slashes/"), base .. "//double//slashes/")
  T.write_file(base .. "/double/slashes/g.txt", "ok")
  T.eq(read(base .. "/double/slashes/g.txt"), "ok")
  T.eq(output.dirname("a/b/c.png"), "a/b")
  T.eq(output.dirname("c.png"), ".")
  T.eq(output.basename("a/b/c.png"), "c.png")
end)

T.test("the process's cores, working directory and file modes without a shell, against the shell's tools", function()
  local process = require "cleave.process"
  local p = io.popen("nproc")
  T.eq(process.cores(), tonumber(p:read("*l")), "cores = nproc (the affinity mask)")
  p:close()
  p = io.popen("pwd -P")
  T.eq(process.cwd(), p:read("*l"))
  p:close()
  local f = T.tmpdir("output_mkdir") .. "/mode.sh"
  T.write_file(f, "#!/bin/sh\nexit 7\n")
  T.truthy(process.chmod(f, tonumber("755", 8)))
  T.truthy(os.execute(f .. " 2>/dev/null") ~= 0 and os.execute("test -x " .. output.shell_quote(f)) == 0, "executable now")
  local ok, why = process.chmod(f .. ".missing", 420)
  T.eq(ok, false)
  T.contains(why, "No such file")
  -- is_dir: a directory, a file, a missing path, a path below a file (EACCES, a directory that may
  -- not be listed, cannot be made here: the tests may run as root)
  local dir = T.tmpdir("output_mkdir")
  T.eq(process.is_dir(dir), true, "a directory")
  T.eq(process.is_dir(f), false, "a file")
  T.eq(process.is_dir(dir .. "/missing"), false, "a missing path")
  T.eq(process.is_dir(f .. "/below"), false, "a path below a file")
end)

T.test("csv: exact numbers, quoting, named rows, round trip through read_csv", function()
  local path = T.tmpdir("output_csv") .. "/sub/t.csv"
  local c = output.csv(path, { "frame", "time", "name", "value" }, { comments = { "made by a test" } })
  local values = { 0.1, 1 / 3, 1e-300, -2.5e300, 123456789012345, 2 ^ -1074 }
  for i, v in ipairs(values) do
    c:row { i, i / 60, "row " .. i, v }
  end
  c:row { frame = 7, time = 0.7, name = 'say "hi", then\nleave', value = 0 / 0 }
  c:row { 8, math.huge, "42", nil }
  c:row { 9, -math.huge, "#not a comment", false }
  -- flushed per row: visible before close, as a killed run would leave it
  local partial = read(path)
  T.matches(partial, "^# made by a test\nframe,time,name,value\n")
  T.contains(partial, '"say ""hi"", then\nleave"')
  c:close()
  T.error(function() c:row { 1, 2, 3, 4 } end, "is closed")

  local cols, names, n = output.read_csv(path)
  T.eq(n, #values + 3)
  T.eq(table.concat(names, ","), "frame,time,name,value")
  for i, v in ipairs(values) do
    T.eq(cols.frame[i], i)
    T.eq(cols.time[i], i / 60, "time round-trips exactly")
    T.eq(cols.value[i], v, "value " .. i .. " round-trips exactly")
    T.eq(cols.name[i], "row " .. i)
  end
  local k = #values + 1
  T.eq(cols.name[k], 'say "hi", then\nleave')
  T.truthy(cols.value[k] ~= cols.value[k], "NaN reads back as NaN")
  T.eq(cols.time[k + 1], math.huge)
  T.eq(cols.name[k + 1], "42", "a string that looks like a number stays a string")
  T.eq(cols.value[k + 1], "", "nil is an empty field")
  T.eq(cols.time[k + 2], -math.huge)
  T.eq(cols.name[k + 2], "#not a comment")
  T.eq(cols.value[k + 2], "false")
end)

T.test("csv: bad columns and rows are errors naming them", function()
  local dir = T.tmpdir("output_csv_err")
  T.error(function() output.csv(dir .. "/a.csv", {}) end, "columns must be a non-empty list")
  T.error(function() output.csv(dir .. "/a.csv", { "x", "x" }) end, "column 'x' appears twice")
  T.error(function() output.csv(dir .. "/a.csv", { "x", 3 }) end, "column 2 must be a non-empty string")
  local c = output.csv(dir .. "/b.csv", { "x", "y" })
  T.error(function() c:row { x = 1, z = 2 } end, { "unknown column 'z'", "columns: x, y" })
  T.error(function() c:row { 1, 2, 3 } end, "position 3 but the file has 2 columns")
  T.error(function() c:row "1,2" end, "expected a table of values")
  T.error(function() c:row { 1, y = 2 } end, "mix of positional and named values")
  c:close()
end)

T.test("read_csv: comment headers, CRLF, quoted fields; errors name file and line", function()
  local dir = T.tmpdir("output_read_csv")
  local p = T.write_file(dir .. "/ref.csv",
    "# Source: somebody else's experiment\n#   units: mm, N\ncmod_mm,load_N\r\n"
    .. "0.0000200,19.73\r\n\n# a comment between rows\n1e-3,\"2,5\"\n")
  local cols, names, n = output.read_csv(p)
  T.eq(n, 2)
  T.eq(names[1], "cmod_mm")
  T.eq(cols.cmod_mm[1], 0.00002)
  T.eq(cols.load_N[1], 19.73)
  T.eq(cols.cmod_mm[2], 1e-3)
  T.eq(cols.load_N[2], "2,5", "a quoted field stays a string")

  local bad = T.write_file(dir .. "/bad.csv", "# c\na,b\n1,2\n3\n")
  T.error(function() output.read_csv(bad) end, { "bad.csv:4:", "1 fields but the header has 2" })
  local unterminated = T.write_file(dir .. "/unterminated.csv", 'a,b\n1,"2\n')
  T.error(function() output.read_csv(unterminated) end, "unterminated quoted field")
  T.error(function() output.read_csv(dir .. "/missing.csv") end, "cannot open")
  local empty = T.write_file(dir .. "/empty.csv", "# only comments\n")
  T.error(function() output.read_csv(empty) end, "has no header line")
end)

T.test("read_csv: the validation reference data", function()
  local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")
  local file = "gregoire2013_D50_halfnotched_load_cmod_envelope.csv"
  local path
  for _, d in ipairs { "/data/validation/", "/validation/data/" } do
    if exists(src .. d .. file) then path = src .. d .. file break end
  end
  T.truthy(path, file .. " in data/validation")
  local cols, names, n = output.read_csv(path)
  T.eq(table.concat(names, ","), "cmod_mm,load_min_N,load_max_N")
  T.truthy(n > 1000, "thousands of rows")
  local peak = 0
  for i = 1, n do
    T.truthy(cols.load_min_N[i] <= cols.load_max_N[i], "envelope ordered at row " .. i)
    peak = math.max(peak, cols.load_max_N[i])
  end
  T.truthy(peak > 900 and peak < 1300, "peak load about 1 kN, got " .. peak)
end)

T.test("series of a real mesh through the C core", function()
  local cl = require "cleave"
  local dir = T.tmpdir("output_series_mesh")
  local box = cl.shape.box {}
  local s = output.series(dir, "box")
  s:write(0, 0, box)
  s:write(1, 0.01, function(p) box:write(p) end)
  local e = parse_pvd(dir .. "/box.pvd")
  T.eq(#e, 2)
  T.matches(read(dir .. "/" .. e[1].file), "<VTKFile[^>]*UnstructuredGrid")
end)

T.done()
