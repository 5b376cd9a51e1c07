-- Shared helpers for validation scripts: one PASS/FAIL line per check with the measured value, the
-- reference and the tolerance, a summary, and the exit status (0 only if every check passed).
--
--   local check = dofile(here .. "/lib/check.lua")      -- or require with package.path set
--   local R = check.reporter("corotational")
--   R:rel("patch test: strain", measured, reference, 1e-8)          -- |m - r| <= tol |r|
--   R:abs("rotation: elastic energy", e, 0, 1e-12, "J")              -- |m - r| <= tol
--   R:le("cantilever: error on the finest mesh", err, 0.02)          -- m <= limit
--   R:ok("refinement: error shrinks", shrinking, "7.1 % > 3.7 % > 1.3 %")
--   R:info("angular momentum drift", 3e-4)                           -- printed, not judged
--   R:finish()                                                        -- summary, os.exit(0 or 1)
--
-- A check whose measurement is NaN fails. Lines look like
--   PASS  patch test: max |F - (I+G)|   measured 3.553e-15   reference 0   tolerance 1e-08 (abs)
local M = {}

local function num(v)
  if type(v) ~= "number" then return tostring(v) end
  if v == 0 then return "0" end
  return string.format("%.4g", v)
end

local Reporter = {}
Reporter.__index = Reporter

function M.reporter(title, out)
  local r = setmetatable({ title = title, passed = 0, failed = 0, lines = {}, out = out or io.stdout,
                           t0 = os.clock() }, Reporter)
  r.out:write(string.format("== %s validation ==\n", title))
  return r
end

function Reporter:emit(ok, name, text)
  local line = string.format("%s  %s   %s", ok and "PASS" or "FAIL", name, text)
  self.lines[#self.lines + 1] = line
  self.out:write(line, "\n")
  self.out:flush()
  if ok then self.passed = self.passed + 1 else self.failed = self.failed + 1 end
  return ok
end

-- |measured - reference| <= tol * |reference|
function Reporter:rel(name, measured, reference, tol, unit)
  local err = math.abs(measured - reference) / math.abs(reference)
  local ok = err <= tol
  return self:emit(ok, name, string.format("measured %s%s   reference %s%s   relative error %s   tolerance %s (rel)",
    num(measured), unit and (" " .. unit) or "", num(reference), unit and (" " .. unit) or "", num(err), num(tol)))
end

-- |measured - reference| <= tol
function Reporter:abs(name, measured, reference, tol, unit)
  local ok = math.abs(measured - reference) <= tol
  return self:emit(ok, name, string.format("measured %s%s   reference %s   tolerance %s%s (abs)",
    num(measured), unit and (" " .. unit) or "", num(reference), num(tol), unit and (" " .. unit) or ""))
end

-- measured <= limit
function Reporter:le(name, measured, limit, unit)
  local ok = measured <= limit
  return self:emit(ok, name, string.format("measured %s%s   limit %s%s",
    num(measured), unit and (" " .. unit) or "", num(limit), unit and (" " .. unit) or ""))
end

-- a boolean with a description of what was seen
function Reporter:ok(name, ok, detail)
  return self:emit(ok and true or false, name, detail or "")
end

-- printed for the record, not judged
function Reporter:info(name, text)
  self.out:write(string.format("INFO  %s   %s\n", name, type(text) == "number" and num(text) or tostring(text)))
  self.out:flush()
end

function Reporter:finish(no_exit)
  self.out:write(string.format("== %s: %d passed, %d failed (%.1f s CPU) ==\n", self.title, self.passed,
    self.failed, os.clock() - self.t0))
  self.out:flush()
  if not no_exit then os.exit(self.failed == 0 and 0 or 1) end
  return self.failed == 0
end

-- Pretty number for messages.
M.num = num

return M
