-- plots/bench_trace.lua, run the way a user runs it (`cleave run plots/bench_trace.lua --set
-- trace=FILE`): a trace of two runs gives the two figures, a trace of several scenes draws the one
-- named; a missing file, a malformed row (named by file and line), several scenes without --set
-- scene, an absent scene and a missing --set trace are clear errors with exit status 1.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. here .. "/../../lua/?.lua;" .. package.path
local T = require "expect"
local tmp = T.tmpdir("bench_trace")
local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")
local script = (os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")) .. "/plots/bench_trace.lua"

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- cleave run plots/bench_trace.lua with --set arguments; returns stdout, stderr, exit code.
local function run(sets)
  local args = {}
  for _, s in ipairs(sets) do args[#args + 1] = "--set " .. q(s) end
  local errfile = tmp .. "/stderr.txt"
  local p = assert(io.popen(q(exe) .. " run " .. q(script) .. " " .. table.concat(args, " ") .. " 2>" ..
                            q(errfile) .. "; echo \"__exit=$?\""))
  local out = p:read("*a")
  p:close()
  local code = tonumber(out:match("__exit=(%d+)%s*$"))
  local f = io.open(errfile)
  local err = f and f:read("*a") or ""
  if f then f:close() end
  return out:gsub("__exit=%d+%s*$", ""), err, code
end

-- A trace as the benchmark writes it: per run two comment lines, rows, two blank lines; a run of
-- 1 and of 2 threads per scene.
local function trace_text(rows_per_run, bad_row, scenes)
  local t = {}
  for _, scene in ipairs(scenes or { "plate_brittle_weak" }) do
    for th = 1, 2 do
      t[#t + 1] = string.format("# %s, %d thread(s)", scene, th)
      t[#t + 1] = "# frame\ttotal_ms\tdynamics_ms\tplasticity_ms\tfracture_ms\tcpu_ms\tpieces\tnodes"
      for f = 1, rows_per_run do
        t[#t + 1] = string.format("%d\t%.4f\t%.4f\t0.0000\t%.4f\t%.4f\t%d\t%d", f, 1 + f / 10, 0.8 + f / 10, 0.2,
                                  1 + f / 10, f, 5331 + 10 * f)
      end
      if bad_row and th == 2 then t[#t + 1] = bad_row end
      t[#t + 1] = ""
      t[#t + 1] = ""
    end
  end
  return table.concat(t, "\n")
end

local read = T.read_file

T.test("a trace of two runs gives the time and the pieces figures", function()
  if not require("cleave.plot").available() then return T.skip("figures", "gnuplot is not installed") end
  local trace = T.write_file(tmp .. "/good.tsv", trace_text(12))
  local out, err, code = run { "trace=" .. trace, "output=" .. tmp .. "/fig/trace.png" }
  T.eq(code, 0, err)
  T.contains(out, "bench_trace: 2 run(s), 12 frames")
  for _, name in ipairs { "trace.png", "trace_pieces.png" } do
    local s = read(tmp .. "/fig/" .. name)
    T.truthy(s and s:sub(1, 8) == "\137PNG\r\n\26\n", name .. " is a PNG")
    T.truthy(#s > 2000, name .. " is a real image (" .. #s .. " bytes)")
  end
end)

T.test("a trace of several scenes draws the one named with --set scene", function()
  if not require("cleave.plot").available() then return T.skip("figures", "gnuplot is not installed") end
  local trace = T.write_file(tmp .. "/two.tsv", trace_text(5, nil, { "twisted_bar", "hollow_ball" }))
  local out, err, code = run { "trace=" .. trace, "scene=hollow_ball", "output=" .. tmp .. "/fig2/t.png" }
  T.eq(code, 0, err)
  T.contains(out, "bench_trace: 2 run(s), 5 frames")
  T.truthy(T.read_file(tmp .. "/fig2/t_pieces.png"), "the pieces figure")
end)

T.test("bad input: missing file, malformed row with its line, no --set trace", function()
  local _, err, code = run { "trace=" .. tmp .. "/no_such.tsv" }
  T.eq(code, 1)
  T.contains(err, "cannot read --set trace=" .. tmp .. "/no_such.tsv")
  local bad = T.write_file(tmp .. "/bad.tsv", trace_text(3, "4\t1.0\tnot-a-number"))
  _, err, code = run { "trace=" .. bad }
  T.eq(code, 1)
  -- run 1: 2 comments + 3 rows + 2 blanks = 7 lines; run 2: 2 comments + 3 rows, then the bad row
  T.contains(err, bad .. ":13: expected 8 numbers separated by tabs")
  local two = T.write_file(tmp .. "/two_bad.tsv", trace_text(2, nil, { "twisted_bar", "hollow_ball" }))
  _, err, code = run { "trace=" .. two }
  T.eq(code, 1)
  T.contains(err, "holds the scenes twisted_bar, hollow_ball: choose one with --set scene=NAME")
  _, err, code = run { "trace=" .. two, "scene=armadillo" }
  T.eq(code, 1)
  T.contains(err, "--set scene=armadillo: not in " .. two .. " (it holds twisted_bar, hollow_ball)")
  _, err, code = run {}
  T.eq(code, 1)
  T.contains(err, "missing required key 'trace'")
end)

T.done()
