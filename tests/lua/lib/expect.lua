-- A tiny assertion library for the Lua tests (run through `cleave run` or plain luajit).
--   local T = require "expect"
--   T.test("name", function() T.eq(1 + 1, 2) end)
--   T.done()   -- prints a summary and exits non-zero if anything failed
-- T.error(fn, pattern) checks that fn raises an error whose message contains `pattern` (plain text,
-- or a Lua pattern when `pattern` starts with "^" or T.error(..., {pattern = true})) AND that the
-- message points at the caller's line: it must start with the file of `fn` (named whole, or cut as
-- LuaJIT's own error() cuts it at long paths) and a line number. That is the "errors at the user's
-- line" rule of the Lua layer, checked by every error test.
local T = { passed = 0, failed = 0, skipped = 0, failures = {} }

local function fail(msg, level)
  error(msg, (level or 1) + 1)
end

local function fmt(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function T.eq(a, b, what)
  if a ~= b then fail(string.format("%sexpected %s, got %s", what and (what .. ": ") or "", fmt(b), fmt(a)), 2) end
end

function T.near(a, b, tol, what)
  if type(a) ~= "number" or math.abs(a - b) > tol then
    fail(string.format("%sexpected %s within %g, got %s", what and (what .. ": ") or "", fmt(b), tol, fmt(a)), 2)
  end
end

function T.truthy(v, what)
  if not v then fail((what or "expected a true value") .. ", got " .. fmt(v), 2) end
  return v
end

function T.contains(s, needle, what)
  if type(s) ~= "string" or not s:find(needle, 1, true) then
    fail(string.format("%sexpected text containing %s, got %s", what and (what .. ": ") or "", fmt(needle), fmt(s)), 2)
  end
end

function T.matches(s, pattern, what)
  if type(s) ~= "string" or not s:find(pattern) then
    fail(string.format("%sexpected text matching %s, got %s", what and (what .. ": ") or "", fmt(pattern), fmt(s)), 2)
  end
end

-- fn must raise an error containing every pattern; the message must start with fn's file:line.
-- Returns the message.
function T.error(fn, patterns, opts)
  opts = opts or {}
  if type(patterns) == "string" then patterns = { patterns } end
  local ok, msg = pcall(fn)
  if ok then fail("expected an error containing " .. fmt(patterns[1]) .. ", but the call succeeded", 2) end
  if type(msg) ~= "string" then fail("expected a string error, got " .. fmt(msg), 2) end
  for _, p in ipairs(patterns) do
    local plain = not (opts.pattern or p:sub(1, 1) == "^")
    if not msg:find(p, 1, plain) then
      fail(string.format("error message lacks %s:\n    %s", fmt(p), msg), 2)
    end
  end
  if not opts.anywhere then
    -- The file named whole, as cleave's errors name it. An error the test's own code raises with
    -- error() (a callback's) carries LuaJIT's short_src, cut to "..." and the last 56 characters
    -- when the checkout is deep: that form names the same file. (Whole names in cleave's errors at
    -- long paths: test_cli.lua.)
    local info = debug.getinfo(fn, "S")
    local src = info.source:sub(1, 1) == "@" and info.source:sub(2) or info.short_src
    local function at(name) return msg:sub(1, #name + 1) == name .. ":" and msg:sub(#name + 2):match("^%d+:") end
    if not at(src) and not at(info.short_src) then
      fail(string.format("error does not point at the caller's line (%s:<line>:):\n    %s", src, msg), 2)
    end
  end
  return msg
end

function T.test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    T.passed = T.passed + 1
    io.write("ok    ", name, "\n")
  else
    T.failed = T.failed + 1
    T.failures[#T.failures + 1] = name
    io.write("FAIL  ", name, "\n      ", tostring(err):gsub("\n", "\n      "), "\n")
  end
end

-- A skip is for what this machine cannot run (gnuplot missing), never for a part of cleave that
-- should work: T.done then exits 77, which ctest shows as "Skipped" (SKIP_RETURN_CODE), not passed.
T.SKIP_EXIT = 77
function T.skip(name, why)
  T.skipped = T.skipped + 1
  io.write("skip  ", name, ": ", why, "\n")
end

function T.done()
  io.write(string.format("%d passed, %d failed, %d skipped\n", T.passed, T.failed, T.skipped))
  io.stdout:flush()
  if T.failed > 0 then os.exit(1) end
  if T.skipped > 0 then os.exit(T.SKIP_EXIT) end
end

-- A scratch folder for files the test writes.
function T.tmpdir(name)
  local base = os.getenv("CLEAVE_TEST_TMP") or "/tmp/cleave-lua-tests"
  local dir = base .. "/" .. name
  os.execute("mkdir -p '" .. dir .. "'")
  return dir
end

-- An empty scratch folder (what an earlier run left there is removed first).
function T.fresh_tmpdir(name)
  local dir = T.tmpdir(name)
  os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")
  return dir
end

-- The whole file as a string (binary), or nil when it cannot be opened.
function T.read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

function T.write_file(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

return T
