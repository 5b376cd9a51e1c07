-- cleave.progress: the status line's content and throttling (with a fake clock and stream), and
-- silence when stderr is not a terminal (checked in a child process whose stderr is a file, with
-- TERM set, so only the isatty check can keep it quiet).
-- Runs through `cleave run` and plain luajit with LUA_PATH at lua/ (no FFI core needed).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/../../lua/?.lua;" .. package.path
local T = require "expect"
local progress = require "cleave.progress"

-- A stream that records what is written.
local function recorder()
  local r = { text = "", writes = 0, flushes = 0 }
  function r:write(...)
    for i = 1, select("#", ...) do self.text = self.text .. select(i, ...) end
    self.writes = self.writes + 1
  end
  function r:flush() self.flushes = self.flushes + 1 end
  return r
end

-- The command that runs a Lua file the way this test is being run: `<cleave> run` inside the
-- executable (arg[-1] is its path), else the luajit interpreter.
local function interpreter()
  local exe = (arg and arg[-1]) or "luajit"
  local q = "'" .. exe:gsub("'", [['\'']]) .. "'"
  if exe:match("cleave[^/]*$") and not exe:match("luajit[^/]*$") then return q .. " run" end
  return q
end

T.test("status line: frame, simulated time, ms/frame, ETA", function()
  local now = 100
  local s = recorder()
  local p = progress.new { total = 600, label = "twist", enabled = true, stream = s,
                           clock = function() return now end }
  for f = 1, 120 do
    now = now + 0.0142
    p:update(f, f / 60)
  end
  local text = p:text()
  T.contains(text, "twist")
  T.contains(text, "frame 120/600")
  T.contains(text, "t=2.000 s")
  T.contains(text, "14.2 ms/frame")
  T.contains(text, "ETA 6.8 s") -- 480 frames left at 14.2 ms
  -- every draw starts with \r and no newline until finish
  T.eq(s.text:sub(1, 1), "\r")
  T.truthy(not s.text:find("\n"), "no newline while running")
  T.truthy(s.flushes >= 1, "flushed so the line shows at once")
end)

T.test("throttled to about five redraws a second, last frame always drawn", function()
  local now = 0
  local s = recorder()
  local p = progress.new { total = 1000, enabled = true, stream = s, clock = function() return now end }
  for f = 1, 1000 do
    now = now + 0.001 -- 1 s in all
    p:update(f, f * 0.001)
  end
  -- 1 s of updates at 0.2 s intervals: ~5 redraws plus the first and the final frame
  T.truthy(p.lines >= 5 and p.lines <= 8, "redraws: " .. p.lines)
  T.contains(s.text, "frame 1000/1000")
  local before = #s.text
  local summary = p:finish()
  T.eq(summary.frames, 1000)
  T.near(summary.seconds, 1.0, 1e-9)
  T.near(summary.ms_per_frame, 1.0, 1e-9)
  local tail = s.text:sub(before + 1)
  T.matches(tail, "^\r1000 frames in 1%.0 s, 1%.0 ms/frame%s*\n$")
  p:finish()
  T.eq(#s.text, before + #tail, "a second finish prints nothing more")
end)

T.test("a shorter line fully covers the previous one", function()
  local now = 0
  local s = recorder()
  local p = progress.new { enabled = true, stream = s, clock = function() return now end, interval = 0 }
  now = 1; p:update(100000, 123.456)
  now = 2; p:update(100001)
  local last = s.text:match("\r([^\r]*)$")
  local first = s.text:match("^\r([^\r]*)\r")
  T.eq(#last, #first, "padded with spaces")
  T.matches(last, "^frame 100001  ")
end)

T.test("disabled: nothing at all, but timings still returned", function()
  local s = recorder()
  local p = progress.new { total = 10, enabled = false, stream = s }
  for f = 1, 10 do p:update(f, f) end
  local r = p:finish()
  T.eq(s.writes, 0)
  T.eq(r.frames, 10)
end)

T.test("durations read naturally", function()
  T.eq(progress.format_duration(7.04), "7.0 s")
  T.eq(progress.format_duration(42.4), "42 s")
  T.eq(progress.format_duration(192), "3 min 12 s")
  T.eq(progress.format_duration(7500), "2 h 05 min")
  T.eq(progress.format_duration(0 / 0), "?")
end)

T.test("argument checks", function()
  T.error(function() progress.new { total = -1 } end, "total must be an integer >= 0")
  T.error(function() progress.new { total = 1.5 } end, "total must be an integer >= 0")
  local p = progress.new { enabled = false }
  T.error(function() p:update("x") end, "frame must be a number")
end)

T.test("quiet when stderr is not a terminal, even with TERM set", function()
  local dir = T.tmpdir("progress")
  local script = dir .. "/child.lua"
  T.write_file(script, string.format([[
package.path = %q
local progress = require "cleave.progress"
io.stdout:write(tostring(progress.is_terminal()), "\n")
local p = progress.new { total = 50, label = "child" }
for f = 1, 50 do p:update(f, f / 60) end
p:finish()
]], package.path))
  -- Re-run this interpreter: plain luajit, or `cleave run` inside the executable.
  local runner = interpreter()
  local errfile = dir .. "/stderr.txt"
  local cmd = string.format("env -u CLEAVE_PROGRESS TERM=xterm %s '%s' 2>'%s' </dev/null", runner,
                            script, errfile)
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("*a")
  pipe:close()
  T.eq(out, "false\n", "the child sees no terminal")
  local f = assert(io.open(errfile))
  local err = f:read("*a")
  f:close()
  T.eq(err, "", "nothing written to stderr")
end)

T.test("CLEAVE_PROGRESS forces it on or off", function()
  local dir = T.tmpdir("progress")
  local script = T.write_file(dir .. "/force.lua", string.format([[
package.path = %q
io.stdout:write(tostring(require("cleave.progress").is_terminal()), "\n")
]], package.path))
  local runner = interpreter()
  local function run(env)
    local p = assert(io.popen(string.format("env %s %s '%s' 2>/dev/null", env, runner, script)))
    local s = p:read("*a")
    p:close()
    return s
  end
  T.eq(run("CLEAVE_PROGRESS=1"), "true\n")
  T.eq(run("CLEAVE_PROGRESS=0 TERM=xterm"), "false\n")
end)

T.done()
