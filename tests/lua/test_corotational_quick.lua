-- The quick subset of validation/corotational.lua (patch test, 90-degree rotation, cantilever
-- refinement on coarse meshes, first frequency, energy drift of backward Euler, momentum in free
-- flight), run as `make test` runs it: through the executable, checking the exit status and that
-- every check printed PASS.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local tmp = T.tmpdir("corotational_quick")
local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")
local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

T.test("validation/corotational.lua --set quick=true passes every check", function()
  local errfile = tmp .. "/stderr.txt"
  local cmd = q(exe) .. " run " .. q(src .. "/validation/corotational.lua") .. " --set quick=true 2>" .. q(errfile) ..
              "; echo \"__exit=$?\""
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  local code = tonumber(out:match("__exit=(%d+)%s*$"))
  io.write(out:gsub("__exit=%d+%s*$", ""))
  local passes, fails = 0, 0
  for line in out:gmatch("[^\n]+") do
    if line:match("^PASS") then passes = passes + 1 end
    if line:match("^FAIL") then fails = fails + 1 end
  end
  if code ~= 0 then
    local f = io.open(errfile)
    if f then io.stderr:write(f:read("*a")); f:close() end
  end
  T.eq(fails, 0, "FAIL lines")
  T.truthy(passes >= 15, "at least 15 PASS lines, got " .. passes)
  T.eq(code, 0, "exit status")
end)

T.done()
