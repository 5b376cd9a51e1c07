-- cleave.runinfo: run.json beside a run's outputs parses back (with a small JSON decoder written
-- here, independent of the encoder) and holds the parameters, version, revision, script, --set
-- values, date and host.
-- Runs through `cleave run` and plain luajit with LUA_PATH at lua/ (no FFI core needed).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/../../lua/?.lua;" .. package.path
local T = require "expect"
local runinfo = require "cleave.runinfo"

-- A strict JSON decoder (RFC 8259) for checking: errors on anything malformed.
local function decode(s)
  local pos = 1
  local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local function err(what) error(string.format("JSON: %s at byte %d: %q", what, pos, s:sub(pos, pos + 20)), 0) end
  local value
  local function str()
    pos = pos + 1
    local out = {}
    while true do
      local c = s:sub(pos, pos)
      if c == "" then err("unterminated string") end
      if c == '"' then pos = pos + 1 break end
      if c:byte() < 32 then err("raw control character in string") end
      if c == "\\" then
        local e = s:sub(pos + 1, pos + 1)
        local map = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
        if map[e] then
          out[#out + 1] = map[e]
          pos = pos + 2
        elseif e == "u" then
          local hex = s:sub(pos + 2, pos + 5)
          if not hex:match("^%x%x%x%x$") then err("bad \\u escape") end
          local cp = tonumber(hex, 16)
          if cp >= 128 then err("test decoder handles ASCII escapes only") end
          out[#out + 1] = string.char(cp)
          pos = pos + 6
        else
          err("bad escape")
        end
      else
        out[#out + 1] = c
        pos = pos + 1
      end
    end
    return table.concat(out)
  end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      pos = pos + 1
      local obj = {}
      ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1 return obj end
      while true do
        ws()
        if s:sub(pos, pos) ~= '"' then err("expected a key") end
        local k = str()
        ws()
        if s:sub(pos, pos) ~= ":" then err("expected ':'") end
        pos = pos + 1
        obj[k] = value()
        ws()
        local d = s:sub(pos, pos)
        pos = pos + 1
        if d == "}" then return obj end
        if d ~= "," then err("expected ',' or '}'") end
      end
    elseif c == "[" then
      pos = pos + 1
      local arr = { n = 0 }
      ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1 return arr end
      while true do
        arr.n = arr.n + 1
        arr[arr.n] = value()
        ws()
        local d = s:sub(pos, pos)
        pos = pos + 1
        if d == "]" then return arr end
        if d ~= "," then err("expected ',' or ']'") end
      end
    elseif c == '"' then
      return str()
    elseif s:find("^true", pos) then pos = pos + 4 return true
    elseif s:find("^false", pos) then pos = pos + 5 return false
    elseif s:find("^null", pos) then pos = pos + 4 return "<null>"
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" or not s:match("^-?%d", pos) then err("unexpected character") end
      pos = pos + #num
      return tonumber(num)
    end
  end
  local v = value()
  ws()
  if pos <= #s then err("trailing text") end
  return v
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

T.test("run.json parses back with the parameters and the facts of the run", function()
  local dir = T.tmpdir("runinfo") .. "/fresh/out"
  os.execute("rm -rf '" .. T.tmpdir("runinfo") .. "/fresh'")
  local params = {
    frames = 600, dt = 1 / 600, young = 2.5e6, name = 'bar "A"\n\tsecond line\1',
    gravity = { 0, -9.81, 0 }, material = { plastic = { yield = 0.1, flow = 0.5 } },
    flags = { true, false }, nan = 0 / 0,
  }
  local path = runinfo.write(dir, params, { version = "9.8.7", git_revision = "abc123def456",
                                            set = { frames = 600 } })
  T.eq(path, dir .. "/run.json")
  local j = decode(read(path))
  local p = j.parameters
  T.eq(p.frames, 600)
  T.eq(p.dt, 1 / 600, "numbers keep all 17 digits")
  T.eq(p.young, 2.5e6)
  T.eq(p.name, 'bar "A"\n\tsecond line\1', "strings escaped and restored")
  T.eq(p.gravity.n, 3)
  T.eq(p.gravity[2], -9.81)
  T.eq(p.material.plastic.flow, 0.5)
  T.eq(p.flags[1], true)
  T.eq(p.flags[2], false)
  T.eq(p.nan, "<null>", "NaN has no JSON spelling: null")
  T.eq(j.cleave_version, "9.8.7")
  T.eq(j.git_revision, "abc123def456")
  T.eq(j.set.frames, 600)
  T.matches(j.date, "^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$")
  T.truthy(type(j.hostname) == "string" and j.hostname ~= "", "hostname recorded")
  T.truthy(type(j.lua) == "string", "interpreter recorded")
  T.eq(j.script, arg and arg[0], "the script path is arg[0]")
  -- written atomically: no temporary file left
  T.eq(io.open(dir .. "/run.json.tmp"), nil)
end)

T.test("version and revision come from the loaded cleave module when there is one", function()
  local ok, cl = pcall(require, "cleave")
  local dir = T.tmpdir("runinfo") .. "/withcl"
  local j = decode(read(runinfo.write(dir, { a = 1 })))
  if ok then
    T.eq(j.cleave_version, cl.version)
    T.eq(j.git_revision, cl.git_revision)
  else
    -- without the library: git itself names the revision of the checkout the script lives in
    T.truthy(j.git_revision == "unknown" or j.git_revision:match("^%x+$"), "revision: " .. tostring(j.git_revision))
    T.eq(j.cleave_version, "unknown")
  end
  T.eq(j.parameters.a, 1)
end)

T.test("the encoder: sorted keys, arrays, empty tables, nesting", function()
  local s = runinfo.encode { b = 1, a = { 3, 2, 1 }, c = {}, d = { x = { y = "z" } } }
  T.truthy(s:find('"a"') < s:find('"b"') and s:find('"b"') < s:find('"c"'), "keys sorted")
  local j = decode(s)
  T.eq(j.a.n, 3)
  T.eq(j.a[1], 3)
  T.eq(j.d.x.y, "z")
  T.eq(next(j.c), nil)
  T.eq(decode(runinfo.encode(0.1)), 0.1)
  T.eq(decode(runinfo.encode(-1e-300)), -1e-300)
  T.eq(decode(runinfo.encode(2 ^ 53 + 2)), 2 ^ 53 + 2)
end)

T.test("bad input is an error at the caller's line", function()
  T.error(function() runinfo.write("", {}) end, "dir must be a non-empty string")
  T.error(function() runinfo.write(T.tmpdir("runinfo"), "frames=1") end, "params must be a table")
  local cyc = {}
  cyc.self = cyc
  T.error(function() runinfo.write(T.tmpdir("runinfo") .. "/cyc", cyc) end, "contain a cycle")
end)

T.done()
