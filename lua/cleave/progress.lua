-- cleave.progress: one self-overwriting status line for long runs, on a terminal only.
--
--   local bar = progress.new { total = 600, label = "twist" }
--   for f = 1, 600 do world:step(1); bar:update(f, world:time()) end
--   bar:finish()
--
-- On a terminal (stderr is a tty and TERM is set and not "dumb") it prints, at most ~5 times a
-- second, a line such as
--   twist  frame 120/600  t=2.000 s  14.2 ms/frame  ETA 7 s
-- rewritten in place with \r, and :finish() prints a one-line summary. Anywhere else (a pipe, a
-- log file, ctest, a cluster job) it prints nothing at all, so batch logs stay clean.
-- CLEAVE_PROGRESS=0 silences it on a terminal too; CLEAVE_PROGRESS=1 forces it on.
local progress = {}

local have_ffi, ffi = pcall(require, "ffi")
local where = require("cleave.schema").where -- "file:line: " with the file named whole

-- Wall-clock seconds from a monotonic clock (os.clock counts CPU time, which is not what a
-- user waiting for a run cares about).
local now
if have_ffi and ffi.os ~= "Windows" then
  local ok = pcall(ffi.cdef, [[
    struct cl_progress_timespec { long tv_sec; long tv_nsec; };
    int clock_gettime(int clk_id, struct cl_progress_timespec *tp);
  ]])
  if not ok then
    -- Another module declared clock_gettime with its own struct: fall back to our struct only.
    pcall(ffi.cdef, "struct cl_progress_timespec { long tv_sec; long tv_nsec; };")
  end
  local ts = ffi.new("struct cl_progress_timespec")
  local CLOCK_MONOTONIC = (ffi.os == "OSX") and 6 or 1
  local okc = pcall(function()
    return ffi.C.clock_gettime(CLOCK_MONOTONIC, ffi.cast("void *", ts))
  end)
  if okc then
    now = function()
      ffi.C.clock_gettime(CLOCK_MONOTONIC, ffi.cast("void *", ts))
      return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
    end
  end
end
now = now or os.clock
progress.now = now

local isatty_fn
if have_ffi then
  pcall(ffi.cdef, "int isatty(int fd);")
  local ok = pcall(function() return ffi.C.isatty end)
  if ok then isatty_fn = function(fd) return ffi.C.isatty(fd) == 1 end end
end

--- True when progress lines should be shown: stderr is a terminal and TERM names one, unless
--- CLEAVE_PROGRESS says otherwise.
function progress.is_terminal()
  local force = os.getenv("CLEAVE_PROGRESS")
  if force == "0" then return false end
  if force == "1" then return true end
  local term = os.getenv("TERM")
  if term == nil or term == "" or term == "dumb" then return false end
  if not isatty_fn then return false end
  return isatty_fn(2)
end

--- Human-readable duration: "7 s", "3 min 12 s", "2 h 05 min".
function progress.format_duration(s)
  if s ~= s or s == math.huge then return "?" end
  if s < 0 then s = 0 end
  if s < 10 then return string.format("%.1f s", s) end
  if s < 60 then return string.format("%d s", math.floor(s + 0.5)) end
  if s < 3600 then
    local m = math.floor(s / 60)
    return string.format("%d min %02d s", m, math.floor(s - 60 * m + 0.5) % 60)
  end
  local h = math.floor(s / 3600)
  return string.format("%d h %02d min", h, math.floor((s - 3600 * h) / 60))
end

local Progress = {}
Progress.__index = Progress

--- A progress line. opts: total (frames, optional), label (optional), interval (s between
--- redraws, default 0.2), enabled (default: progress.is_terminal()), stream (default io.stderr),
--- clock (a function returning seconds; for tests).
function progress.new(opts)
  opts = opts or {}
  if type(opts) ~= "table" then error(where(2) .. "progress.new: expected a table of options", 0) end
  local total = opts.total
  if total ~= nil and (type(total) ~= "number" or total < 0 or total ~= math.floor(total)) then
    error(where(2) .. "progress.new: total must be an integer >= 0 (frames), got " .. tostring(total), 0)
  end
  local enabled = opts.enabled
  if enabled == nil then enabled = progress.is_terminal() end
  local clock = opts.clock or now
  local self = setmetatable({
    total = total, label = opts.label, interval = opts.interval or 0.2,
    enabled = enabled and true or false, stream = opts.stream or io.stderr, clock = clock,
    start = clock(), last_draw = -math.huge, width = 0, frame = nil, first_frame = nil,
    sim_time = nil, lines = 0,
  }, Progress)
  return self
end

-- Seconds of wall time per frame so far (nil before two updates).
function Progress:rate()
  if not self.frame or not self.first_frame or self.frame <= self.first_frame then
    -- Before the second update, time since creation over frames done (if any) is the estimate.
    if self.frame and self.frame > 0 then
      return (self.clock() - self.start) / self.frame
    end
    return nil
  end
  return (self.t_last - self.t_first) / (self.frame - self.first_frame)
end

--- The status text for the current state (without \r); exposed for tests.
function Progress:text()
  local parts = {}
  if self.label then parts[#parts + 1] = self.label end
  if self.total then
    parts[#parts + 1] = string.format("frame %d/%d", self.frame or 0, self.total)
  else
    parts[#parts + 1] = string.format("frame %d", self.frame or 0)
  end
  if self.sim_time then parts[#parts + 1] = string.format("t=%.3f s", self.sim_time) end
  local r = self:rate()
  if r then
    parts[#parts + 1] = string.format("%.1f ms/frame", 1000 * r)
    if self.total and self.frame then
      parts[#parts + 1] = "ETA " .. progress.format_duration(r * math.max(0, self.total - self.frame))
    end
  end
  return table.concat(parts, "  ")
end

function Progress:_draw(text)
  -- Pad with spaces so a shorter line fully covers the previous one.
  local pad = self.width > #text and string.rep(" ", self.width - #text) or ""
  self.stream:write("\r", text, pad)
  self.stream:flush()
  self.width = #text
  self.lines = self.lines + 1
end

--- Report that `frame` frames are done at simulated time `sim_time` (s, optional).
function Progress:update(frame, sim_time)
  if type(frame) ~= "number" then
    error(where(2) .. "progress:update: frame must be a number, got " .. type(frame), 0)
  end
  local t = self.clock()
  if self.first_frame == nil then
    self.first_frame, self.t_first = frame, t
  end
  self.frame, self.sim_time, self.t_last = frame, sim_time, t
  if not self.enabled then return end
  if t - self.last_draw < self.interval and frame ~= self.total then return end
  self.last_draw = t
  self:_draw(self:text())
end

--- End the line: on a terminal, a one-line summary ("label: 600 frames in 8.5 s, 14.2
--- ms/frame"). Returns { frames, seconds, ms_per_frame } in any case.
function Progress:finish()
  local seconds = self.clock() - self.start
  local frames = self.frame or 0
  local ms = frames > 0 and 1000 * seconds / frames or nil
  if self.enabled and not self.finished then
    local text = string.format("%s%d frames in %s%s", self.label and (self.label .. ": ") or "",
      frames, progress.format_duration(seconds),
      ms and string.format(", %.1f ms/frame", ms) or "")
    self:_draw(text)
    self.stream:write("\n")
    self.stream:flush()
  end
  self.finished = true
  return { frames = frames, seconds = seconds, ms_per_frame = ms }
end

return progress
