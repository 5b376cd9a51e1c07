-- cleave.convert: small conversions between Lua values and C arrays shared by the cleave modules:
-- vectors, output formats ("table", "flat", "cdata"), string arguments, 3x3 matrices and kinematic
-- paths.
local ffi = require "ffi"
local schema = require "cleave.schema"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of

local M = {}

M.INT32_MAX = 2147483647
M.POSITIVE = { 0, math.huge, "()" } -- a schema range: strictly positive

local function vec3_into(dst, v)
  dst[0], dst[1], dst[2] = v[1], v[2], v[3]
end

local function vec3_from(src)
  return { tonumber(src[0]), tonumber(src[1]), tonumber(src[2]) }
end

local function check_string_arg(v, what, name)
  if type(v) ~= "string" or v == "" then
    raise(string.format("%s: %s must be a non-empty string, got %s %s", what, name, kind_of(v), show(v)))
  end
  if v:find("\0", 1, true) then raise(string.format("%s: %s contains a NUL byte", what, name)) end
  return v
end

-- Array output formats shared by meshes and bodies: "table" (list of {x, y, z}), "flat" (one list
-- of numbers) or "cdata" (the C array itself, zero-based, and its length).
local formats = { table = true, flat = true, cdata = true }
local function check_format(fmt, what)
  if fmt == nil then return "table" end
  if not formats[fmt] then
    raise(string.format("%s: format must be \"table\", \"flat\" or \"cdata\", got %s", what, show(fmt)))
  end
  return fmt
end

-- Reshape `n` groups of `k` values from a C array. Indices get +1 when `one_based`.
local function reshape(buf, n, k, fmt, one_based)
  if fmt == "cdata" then return buf, n * k end
  local off = one_based and 1 or 0
  local out = {}
  if fmt == "flat" then
    for i = 0, n * k - 1 do out[i + 1] = tonumber(buf[i]) + off end
  else
    for i = 0, n - 1 do
      local row = {}
      for j = 0, k - 1 do row[j + 1] = tonumber(buf[i * k + j]) + off end
      out[i + 1] = row
    end
  end
  return out
end

-- ---- 3x3 matrices (row-major lists of 9 numbers) ------------------------------------------------
local function matmul3(a, b)
  local c = {}
  for i = 0, 2 do
    for j = 0, 2 do
      local s = 0
      for k = 0, 2 do s = s + a[i * 3 + k + 1] * b[k * 3 + j + 1] end
      c[i * 3 + j + 1] = s
    end
  end
  return c
end

-- Rodrigues' rotation formula: R = I + sin(a) K + (1 - cos(a)) K^2, K the cross-product matrix.
local function rotation_matrix(axis, angle)
  local n = math.sqrt(axis[1] ^ 2 + axis[2] ^ 2 + axis[3] ^ 2)
  local x, y, z = axis[1] / n, axis[2] / n, axis[3] / n
  local c, s = math.cos(angle), math.sin(angle)
  local t = 1 - c
  return { t * x * x + c, t * x * y - s * z, t * x * z + s * y,
           t * x * y + s * z, t * y * y + c, t * y * z - s * x,
           t * x * z - s * y, t * y * z + s * x, t * z * z + c }
end

local function det3(a)
  return a[1] * (a[5] * a[9] - a[6] * a[8]) - a[2] * (a[4] * a[9] - a[6] * a[7]) +
         a[3] * (a[4] * a[8] - a[5] * a[7])
end

local function check_matrix(m, where, name)
  local flat = {}
  if type(m) ~= "table" then raise(string.format("%s: %s must be a 3x3 matrix, got %s", where, name, kind_of(m))) end
  if type(m[1]) == "table" then
    for i = 1, 3 do
      if type(m[i]) ~= "table" or #m[i] ~= 3 then raise(string.format("%s: %s row %d must have 3 numbers", where, name, i)) end
      for j = 1, 3 do flat[#flat + 1] = m[i][j] end
    end
    if #m ~= 3 then raise(string.format("%s: %s must have 3 rows", where, name)) end
  else
    for i = 1, #m do flat[i] = m[i] end
    if #flat ~= 9 then raise(string.format("%s: %s must hold 9 numbers (row-major), got %d", where, name, #flat)) end
  end
  for i = 1, 9 do
    local x = flat[i]
    if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
      raise(string.format("%s: %s entry %d = %s is not a finite number", where, name, i, show(x)))
    end
  end
  return flat
end

-- A kinematic path {{t, x, y, z}, ...} (colliders, knives, brushes) as a double[4n] for C, and n.
-- Rows must be four finite numbers with increasing times >= 0; errors name the row and entry.
local function path_buffer(path, where)
  if type(path) ~= "table" or #path == 0 then
    raise(where .. ": path must be a list of {t, x, y, z} rows, got " .. show(path))
  end
  local buf = ffi.new("double[?]", 4 * #path)
  for r, row in ipairs(path) do
    if type(row) ~= "table" or #row ~= 4 then
      raise(string.format("%s: path row %d must be {t, x, y, z}, got %s", where, r, show(row)))
    end
    for k = 1, 4 do
      local x = row[k]
      if type(x) ~= "number" or x ~= x or x == math.huge or x == -math.huge then
        raise(string.format("%s: path row %d, entry %d must be a finite number, got %s", where, r, k, show(x)))
      end
      buf[4 * (r - 1) + k - 1] = x
    end
    if row[1] < 0 then raise(string.format("%s: path row %d: time %s s is negative", where, r, show(row[1]))) end
    if r > 1 and not (row[1] > path[r - 1][1]) then
      raise(string.format("%s: path row %d: time %s s does not come after %s s (times must increase)", where, r,
        show(row[1]), show(path[r - 1][1])))
    end
  end
  return buf, #path
end

M.vec3_into = vec3_into
M.vec3_from = vec3_from
M.check_string_arg = check_string_arg
M.check_format = check_format
M.reshape = reshape
M.matmul3 = matmul3
M.rotation_matrix = rotation_matrix
M.det3 = det3
M.check_matrix = check_matrix
M.path_buffer = path_buffer

return M
