-- cleave.registry: the solvers and fracture criteria registered in C, their parameter tables
-- (cl.solvers, cl.criteria, cl.params) and the printed help (cl.help).
local ffi = require "ffi"
local schema = require "cleave.schema"
local core = require "cleave.ffi"
local specs_mod = require "cleave.specs"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of
local C, check = core.C, core.check
local specs, prepare = specs_mod.all, specs_mod.prepare

local REG = { solver = 0, criterion = 1 }

local function registry_names(which)
  local r = REG[which]
  local n = tonumber(C.cl_registry_count(r))
  local out = {}
  for i = 0, n - 1 do
    local s = C.cl_registry_name(r, i)
    if s ~= nil then out[#out + 1] = ffi.string(s) end
  end
  return out
end

-- Names of the registered solvers / fracture criteria.
local function solvers() return registry_names("solver") end
local function criteria() return registry_names("criterion") end

local param_cache = { solver = {}, criterion = {} }

-- The schema entry of one C parameter. Booleans and choices get Lua types the user writes
-- (true/false, a name); the C value stays a number: c_value turns them back.
local function param_entry(p)
  local function str(s) return s ~= nil and ffi.string(s) or "" end
  local e = { name = str(p.name), unit = str(p.unit), help = str(p.help), default = tonumber(p.value) }
  local kind = tonumber(p.kind)
  if kind == C.CL_PARAM_BOOLEAN then
    e.type, e.unit, e.default = "boolean", "", e.default ~= 0
  elseif kind == C.CL_PARAM_CHOICE then
    local names = {}
    for n in (str(p.choices) .. "|"):gmatch("([^|]*)|") do names[#names + 1] = n end
    -- index_from: the names stand for the numbers 0, 1, ... (schema's message for a number given)
    e.type, e.unit, e.values, e.index_from = "enum", "", names, 0
    e.default = names[e.default + 1]
  elseif kind == C.CL_PARAM_TEXT then
    -- a string C checks the meaning of at bind (e.g. a grid spec "50/1000/all")
    e.type, e.default = "string", str(p.text)
  else
    e.type = kind == C.CL_PARAM_INTEGER and "integer" or "number"
    e.range = { tonumber(p.min), tonumber(p.max) }
  end
  return e
end

local function param_spec(which, name)
  local cached = param_cache[which][name]
  if cached then return cached end
  local tbl, cnt = ffi.new("const cl_param_info*[1]"), ffi.new("int32_t[1]")
  check(C.cl_param_table(REG[which], name, tbl, cnt))
  local spec = { solver = name, which = which }
  for i = 0, cnt[0] - 1 do spec[#spec + 1] = param_entry(tbl[0][i]) end
  param_cache[which][name] = spec
  return spec
end

-- The number C reads for a checked value of a param_spec entry: 1/0 for true/false, a choice's
-- index, a number as it is.
local function c_value(entry, v)
  if entry.type == "boolean" then return v and 1 or 0 end
  if entry.type == "enum" then
    for i, n in ipairs(entry.values) do
      if n == v then return i - 1 end
    end
    error("cleave.registry: " .. tostring(v) .. " is not a choice of " .. entry.name) -- schema.check let it pass
  end
  return v
end

-- { name = C number } for the keys the user gave (`given`), from the checked table `filled`.
local function c_values(spec, filled, given)
  local by_name, out = {}, {}
  for _, e in ipairs(spec) do by_name[e.name] = e end
  for k in pairs(given or {}) do out[k] = c_value(by_name[k], filled[k]) end
  return out
end

local function check_registered(which, name, where)
  if type(name) ~= "string" then
    raise(string.format("%s: %s must be a name (string), got %s %s", where, which, kind_of(name), show(name)))
  end
  local names = registry_names(which)
  for _, n in ipairs(names) do
    if n == name then return name end
  end
  raise(string.format("%s: %s", where, schema.unknown_name(which, name, names)))
end

-- The parameter schema of a solver or criterion, read from its C table: a list of
-- { name, default, unit, help, type }: type "number" or "integer" with range = {min, max};
-- "boolean" (default true/false); "enum" with values = the names in C's index order (default a name);
-- "string" (a text parameter, default its text).
-- `which` is "solver" or "criterion"; without it solvers are searched first.
local function params(name, which)
  if which ~= nil and not REG[which] then
    raise("cl.params: which must be \"solver\" or \"criterion\", got " .. show(which))
  end
  if which == nil then
    if type(name) == "string" then
      for _, n in ipairs(criteria()) do
        if n == name then which = "criterion" end
      end
      for _, n in ipairs(solvers()) do
        if n == name then which = "solver" end
      end
    end
    if which == nil then
      local all = solvers()
      for _, n in ipairs(criteria()) do all[#all + 1] = n end
      raise("cl.params: " .. schema.unknown_name("solver or criterion", name, all))
    end
  end
  check_registered(which, name, "cl.params")
  return param_spec(which, name)
end

-- Print parameter tables: of every solver and criterion (no argument), of one of them, or of a
-- Lua-side table such as "world", "body", "material", "shape.box", "region.slab", "tetrahedralize".
local function help(name, out)
  out = out or io.stdout
  local function section(title, spec)
    out:write(title, "\n", schema.describe(spec), "\n")
  end
  if name == nil then
    out:write(string.format("cleave %s (git %s)\n\nsolvers:\n", core.version, core.git_revision))
    local solvers = solvers()
    if #solvers == 0 then out:write("  (none registered)\n") end
    for _, s in ipairs(solvers) do section("\n" .. s .. ":", param_spec("solver", s)) end
    out:write("\nfracture criteria:\n")
    local crits = criteria()
    if #crits == 0 then out:write("  (none registered)\n") end
    for _, s in ipairs(crits) do section("\n" .. s .. ":", param_spec("criterion", s)) end
    local lua_specs = {}
    for k in pairs(specs) do lua_specs[#lua_specs + 1] = k end
    table.sort(lua_specs)
    out:write("\nscene tables (cl.help(name)): ", table.concat(lua_specs, ", "), "\n")
    return
  end
  if specs[name] then
    local spec = prepare(specs[name])
    section(name .. (spec.help and (": " .. spec.help) or "") .. ":", spec)
    return
  end
  local spec = params(name)
  section(spec.which .. " " .. name .. ":", spec)
end

return { solvers = solvers, criteria = criteria, params = params, help = help,
         param_spec = param_spec, c_values = c_values, check_registered = check_registered,
         names = registry_names }
