-- A validation judges the build that runs it (validation/volume_gain.lua): the rows of its sweep's
-- results file that another build of cleave wrote are computed again by default, and with
-- --set fresh=false they are kept and a check fails, naming them. Runs the validation's quick mode
-- (4 points on a coarse sphere, about a second each) three times in a scratch folder.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local rows = require "sweep_rows"

local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")
local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- Run the quick validation in `dir` with extra arguments; returns its output and exit code.
local function validate(dir, args)
  local p = assert(io.popen("cd " .. q(dir) .. " && " .. q(exe) .. " run " .. q(src .. "/validation/volume_gain.lua")
                            .. " --set quick=true " .. (args or "") .. " 2>&1; echo \"__exit=$?\""))
  local out = p:read("*a")
  p:close()
  return out:gsub("__exit=%d+%s*$", ""), tonumber(out:match("__exit=(%d+)%s*$"))
end

T.test("rows of another build are computed again by a validation, or named in a FAIL with fresh=false", function()
  local d = T.fresh_tmpdir("validation_fresh")
  local out, code = validate(d)
  T.eq(code, 0, out)
  T.contains(out, "PASS  every point computed by this build of cleave (git " .. cl.git_revision .. ")")
  -- the last row as an older build would have written it
  local path = d .. "/out/sweeps/graph_fem_volume-quick.csv"
  local row = rows.stamp_last_row(path, "0123456789ab")

  -- kept on request: the verdict would be another build's, so the check fails and names the row
  out, code = validate(d, "--set fresh=false")
  T.eq(code, 1, out)
  T.contains(out, "(4 done before)")
  T.contains(out, "note: 1 of the 4 points done before were computed by another build of cleave (git 0123456789ab")
  T.contains(out, "FAIL  every point computed by this build")
  T.contains(out, "(git 0123456789ab): run without --set fresh=false to compute them with this build")

  -- by default: that point runs again with this build and the validation passes
  out, code = validate(d)
  T.eq(code, 0, out)
  T.contains(out, "(3 done before)")
  T.contains(out, "PASS  every point computed by this build")
  T.eq(rows.last_row(path, row.key).git_revision, cl.git_revision, "the point's row that counts is this build's")
end)

T.done()
