-- cleave.scene: a scene as a function of its parameters (cl.scene).
--
-- A scene is a schema of parameters (each with a default, a unit, a range and help, grouped as
-- geometry, material, fracture, loading, solver, resolution, run) and a build function that turns a
-- filled parameter table into a world, its bodies and what a runner needs (probes, hooks). Experiments,
-- validations, tests and benchmarks build the same scene from the same definition, and any
-- parameter can be changed from the command line (--set young=2e5) or from a script
-- (scene:build { young = 2e5 }).
--
--   local bar = cl.scene {
--     name = "bar", what = "a bar sagging under gravity",
--     params = {
--       { name = "young", group = "material", type = "number", default = 1e5, unit = "Pa",
--         range = { 0, math.huge, "()" }, help = "Young's modulus" },
--       { name = "frames", group = "run", type = "integer", default = 60, unit = "1",
--         range = { 1, 1e6 }, help = "frames of 1/60 s" },
--     },
--     quick = { frames = 3 },                      -- the smoke-test settings (--set quick=true)
--     build = function(p) ... return { world = w, body = b } end,
--     check = function(p) if ... then return "why these values do not go together" end end, -- optional
--   }
--   local brittle = bar:variant { name = "bar_brittle", what = "...", defaults = { young = 2e5 } }
--   local built = brittle:build { frames = 10 }   -- built.world, built.body, built.params, built.scene
--   local p, opts = brittle:options { { name = "out", type = "string", default = "out/bar", help = "..." } }
--
-- Every parameter must state its default, help and group; numbers and integers also a unit ("1"
-- when dimensionless) and a range: a scene that leaves one out is an error where it is defined.
local schema = require "cleave.schema"

local raise = schema.raise
local show = schema.show

local M = {}

M.groups = { "geometry", "material", "fracture", "loading", "solver", "resolution", "run" }
local group_set = {}
for _, g in ipairs(M.groups) do group_set[g] = true end

local Scene = { __name = "cl.scene" }
Scene.__index = Scene
Scene.__tostring = function(s) return "cl.scene(" .. s.name .. ")" end

local definition = {
  { name = "name", type = "string", required = true, help = "the scene's name (an identifier)" },
  { name = "what", type = "string", required = true, help = "one line saying what happens in the scene" },
  { name = "params", type = "table", required = true, help = "the parameter schema (a list of entries)" },
  { name = "quick", type = "table", default = {}, help = "parameter values of the smoke test (--set quick=true)" },
  { name = "build", type = "function", required = true, help = "function(params) -> { world =, body =, ... }" },
  { name = "check", type = "function", help = "function(params) -> nil, or the text of a rule the values break" },
  { name = "info", type = "table", default = {}, help = "anything else a runner or a benchmark reads (free form)" },
}

-- Every entry documented: a missing default, help, group, unit or range is an error naming it.
local function check_entry(scene_name, e)
  local where = string.format("cl.scene '%s': parameter %s", scene_name, show(e.name))
  if type(e) ~= "table" or type(e.name) ~= "string" then raise(where .. " is not an entry with a name") end
  if e.default == nil then raise(where .. " has no default") end
  if type(e.help) ~= "string" or e.help == "" then raise(where .. " has no help text") end
  if not group_set[e.group] then
    raise(string.format("%s has group %s; groups: %s", where, show(e.group), table.concat(M.groups, ", ")))
  end
  if (e.type == "number" or e.type == "integer" or e.type == "vec3") and (not e.unit or not e.range) then
    raise(where .. " needs a unit (\"1\" when dimensionless) and a range")
  end
end

local function index_by_name(params)
  local idx = {}
  for _, e in ipairs(params) do idx[e.name] = e end
  return idx
end

-- Check `overrides` against the schema's keys only (not the values): for quick and variant tables.
local function check_keys(self, t, what)
  local idx = index_by_name(self.params)
  for k in pairs(t) do
    if not idx[k] then
      raise(string.format("cl.scene '%s': %s names %s, which is not a parameter; %s", self.name, what, show(k),
        schema.unknown_name("parameter", k, schema.names(self.params))))
    end
  end
end

function M.new(def)
  local d = schema.check(definition, def, "cl.scene")
  if not d.name:match("^[%a_][%w_]*$") then raise("cl.scene: name " .. show(d.name) .. " is not an identifier") end
  local params = { check = d.check } -- a rule across parameters (schema.check calls it)
  for i, e in ipairs(d.params) do
    check_entry(d.name, e)
    params[i] = e
  end
  local self = setmetatable({ name = d.name, what = d.what, params = params, quick = d.quick, info = d.info,
                              _build = d.build, _check = d.check }, Scene)
  check_keys(self, self.quick, "quick")
  schema.check(params, self.quick, "cl.scene '" .. d.name .. "' quick")
  return self
end

-- The filled parameters: the defaults with `overrides` on top, each checked against its entry.
function Scene:params_of(overrides, where)
  return schema.check(self.params, overrides or {}, where or ("scene " .. self.name))
end

-- Build the scene: built = build(params) with built.params and built.scene set. The build must
-- return a table holding at least the world.
function Scene:build(overrides, where)
  local p = self:params_of(overrides, where)
  local built = self._build(p, self)
  if type(built) ~= "table" or not require("cleave.handles").is_world(built.world) then
    raise(string.format("cl.scene '%s': build returned %s; it must return a table with the world", self.name,
      show(built)))
  end
  built.params, built.scene = p, self
  return built
end

-- A scene with other defaults (and its own name, description, quick settings and info): the same
-- parameters and build.
function Scene:variant(v)
  local spec = {
    { name = "name", type = "string", required = true, help = "the variant's name" },
    { name = "what", type = "string", default = self.what, help = "what happens in it" },
    { name = "defaults", type = "table", default = {}, help = "new defaults by parameter name" },
    { name = "quick", type = "table", help = "smoke-test settings (default: the base scene's)" },
    { name = "info", type = "table", help = "free-form information (default: the base scene's)" },
  }
  local d = schema.check(spec, v, "scene:variant")
  check_keys(self, d.defaults, "variant '" .. d.name .. "' defaults")
  schema.check(self.params, d.defaults, "variant '" .. d.name .. "' defaults")
  local params = {}
  for i, e in ipairs(self.params) do
    if d.defaults[e.name] ~= nil then
      local copy = {}
      for k, x in pairs(e) do copy[k] = x end
      copy.default = d.defaults[e.name]
      params[i] = copy
    else
      params[i] = e
    end
  end
  return M.new { name = d.name, what = d.what, params = params, quick = d.quick or self.quick,
                 info = d.info or self.info, build = self._build, check = self._check }
end

-- The scene's parameters and a runner's own options from the command line (cl.args), with
-- `--set quick=true` applying the scene's quick settings under the values given explicitly.
-- Returns the scene's filled parameters and the runner's (quick included). A key that is
-- neither is an error listing both.
function Scene:options(runner, args)
  local cl = require("cleave.handles").facade
  local spec, mine = {}, {}
  for _, e in ipairs(self.params) do spec[#spec + 1] = e end
  spec.check = self._check
  for _, e in ipairs(runner or {}) do
    spec[#spec + 1] = e
    mine[e.name] = true
  end
  if not mine.quick then
    spec[#spec + 1] = { name = "quick", type = "boolean", default = false,
                        help = "the smoke-test settings: " .. show(self.quick) }
    mine.quick = true
  end
  local given = {}
  for k, v in pairs(args or cl.args) do given[k] = v end
  if given.quick == true then
    for k, v in pairs(self.quick) do
      if given[k] == nil then given[k] = v end
    end
  end
  local filled = cl.options(spec, given)
  local p, o = {}, {}
  for k, v in pairs(filled) do
    if mine[k] then o[k] = v else p[k] = v end
  end
  return p, o
end

-- The parameter table as text, by group: name, default, unit, range, help.
function Scene:help()
  local lines = { self.name .. ": " .. self.what }
  for _, g in ipairs(M.groups) do
    local entries = {}
    for _, e in ipairs(self.params) do
      if e.group == g then entries[#entries + 1] = e end
    end
    if #entries > 0 then
      lines[#lines + 1] = g .. ":"
      lines[#lines + 1] = schema.describe(entries, "  ")
    end
  end
  return table.concat(lines, "\n")
end

function M.is_scene(v) return getmetatable(v) == Scene end

M.Scene = Scene
return M
