-- cleave.ffi: the C library behind the Lua layer.
--
-- Loads the FFI declarations (cleave/cdef.lua, generated from the public header at build time),
-- finds and loads libcleave (CLEAVE_LIB, then cleave/config.lua's paths), and turns C statuses into
-- Lua errors or recorded warnings. Every other cleave module calls C through `C` from here.
--
--   local core = require "cleave.ffi"
--   core.check(core.C.cl_world_step(p, 1), world)
local ffi = require "ffi"
local schema = require "cleave.schema"

local raise = schema.raise

local M = { ffi = ffi }

-- ---- declarations and the library -----------------------------------------------------------------
if not pcall(ffi.typeof, "cl_world_def") then ffi.cdef(require "cleave.cdef") end
if not pcall(ffi.typeof, "cl_lua_mesh") then
  -- The Lua-side mesh handle: a struct so it can carry a metatype and a __gc, and so destroy() can
  -- clear the pointer every copy of the handle sees.
  ffi.cdef [[ typedef struct cl_lua_mesh { cl_mesh *handle; } cl_lua_mesh; ]]
end

local config_ok, config = pcall(require, "cleave.config")
if not config_ok or type(config) ~= "table" then config = {} end
M.config = config

local function load_library()
  local env = os.getenv("CLEAVE_LIB")
  if env == "process" then
    -- A program that links cleave itself and exports its symbols (the benchmarks that build their
    -- scenes in Lua, bench/bench_scenes.h): call those, so the process holds one copy of the
    -- library and the worlds built here are the ones the program steps.
    if not pcall(function() return ffi.C.cl_version end) then
      raise("cleave: CLEAVE_LIB=process, but this program does not export cleave's functions (link it " ..
        "with the whole library and ENABLE_EXPORTS, or unset CLEAVE_LIB)")
    end
    return ffi.C, "this process (CLEAVE_LIB=process)"
  end
  local candidates = {}
  if env and env ~= "" then
    candidates[1] = env
  else
    if config.library then candidates[#candidates + 1] = config.library end
    for _, c in ipairs(config.library_fallbacks or {}) do candidates[#candidates + 1] = c end
    if #candidates == 0 then candidates[1] = "cleave" end
  end
  local problems = {}
  for _, path in ipairs(candidates) do
    local ok, lib = pcall(ffi.load, path)
    if ok then return lib, path end
    problems[#problems + 1] = "  " .. path .. ": " .. tostring(lib)
  end
  raise("cleave: cannot load the C library libcleave" ..
    (env and env ~= "" and " from CLEAVE_LIB" or "") .. ":\n" .. table.concat(problems, "\n") ..
    "\nBuild it (make build) or set CLEAVE_LIB to the path of libcleave.so")
end

local lib, lib_path = load_library()
M.lib = lib
M.library_path = lib_path

-- Functions are looked up on first use. A function the library lacks (a part of the C core not
-- built yet, or a library older than the header) is a clear Lua error, not a crash.
local C = setmetatable({}, { __index = function(t, name)
  local ok, v = pcall(function() return lib[name] end)
  if not ok then
    raise(string.format("cleave: the C library %s has no %s (%s); this part of libcleave is not " ..
      "implemented in this build", lib_path, name, tostring(v):gsub("^.-:%d+: ", "")))
  end
  rawset(t, name, v)
  return v
end })
M.C = C

-- Long C operations (TetGen, sampling) show a progress line on a terminal only, like world:run's.
pcall(function()
  if require("cleave.progress").is_terminal() then lib.cl_set_progress(1) end
end)

M.version = ffi.string(C.cl_version())
M.git_revision = ffi.string(C.cl_git_revision())
if config.version and config.version ~= M.version then
  raise(string.format("cleave: the Lua module is version %s but the library %s is version %s; " ..
    "rebuild, or point CLEAVE_LIB at the matching libcleave", config.version, lib_path, M.version))
end

-- ---- statuses, errors, warnings --------------------------------------------------------------------
local global_warnings = {}
local warned_kinds = {}

local function status_name(s)
  local ok, name = pcall(function() return ffi.string(C.cl_status_name(s)) end)
  return ok and name or ("status " .. tostring(s))
end
M.status_name = status_name

local function record_warning(s, msg, world)
  local w = { status = status_name(s), code = s, message = msg, where = schema.user_where() }
  global_warnings[#global_warnings + 1] = w
  local seen = warned_kinds
  if world then
    world._warnings[#world._warnings + 1] = w
    seen = world._warned
  end
  if not seen[s] then
    seen[s] = true
    io.stderr:write(string.format("cleave: warning at %s: %s%s (further %s warnings are collected " ..
      "silently: see %s)\n", w.where, w.status, msg ~= "" and (": " .. msg) or "", w.status,
      world and "world:warnings()" or "cl.warnings()"))
  end
end

-- A C message as a Lua user reads it: the C library names its own functions ("cl_cg_solve: ...",
-- "cl_mesh_sample: ...") for C callers, but a script called a Lua method, so those names only point
-- the wrong way. (Every C function is cl_<lowercase>; a message's own words never end in ':'
-- right after such a name.)
local function user_message(msg)
  return (msg:gsub("cl_[%l%d_]+: ", ""))
end
M.user_message = user_message

-- Turn a C status into an error at the user's line (< 0) or a recorded warning (> 0).
local function check(status, world)
  local s = tonumber(status)
  if s == 0 then return 0 end
  local msg = user_message(ffi.string(C.cl_last_error()))
  if s < 0 then
    if msg == "" then msg = status_name(s) .. " (the C library left no message)" end
    -- what failed last, for callers that classify a caught error (a sweep point that blew up)
    M.last_failure = { status = s, message = msg }
    raise(msg)
  end
  record_warning(s, msg, world)
  return s
end
M.check = check

-- A warning of the Lua layer itself (no C status): recorded like a C warning (cl.warnings(), and
-- world:warnings() when a world is given) with status "lua" and code 0; printed to stderr with the
-- user's line the first time its `key` comes up in the process.
local warned_keys = {}
function M.warn(key, msg, world)
  local w = { status = "lua", code = 0, message = msg, where = schema.user_where() }
  global_warnings[#global_warnings + 1] = w
  if world then world._warnings[#world._warnings + 1] = w end
  if not warned_keys[key] then
    warned_keys[key] = true
    io.stderr:write(string.format("cleave: warning at %s: %s (shown once)\n", w.where, msg))
  end
end

-- Every warning seen so far (meshes and worlds), oldest first.
function M.warnings()
  local out = {}
  for i, w in ipairs(global_warnings) do out[i] = w end
  return out
end

return M
