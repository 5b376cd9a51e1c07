-- cleave.handles: the Lua handle types of a simulation (world, body, condition, collider, probe and
-- probe spec) and the checks every method starts with.
--
-- The metatables live here, empty of methods, so that cleave.world, cleave.body, cleave.conditions,
-- cleave.colliders, cleave.probes and cleave.run can each add the methods of their subject without
-- requiring each other. A handle is a plain table { world = <world>, id = <cl_id>, ... }; a world
-- holds its C pointer in `ptr` (nil once destroyed), so every check below is a Lua error, not a
-- crash, on a destroyed world or a removed body.
local schema = require "cleave.schema"

local raise = schema.raise
local show = schema.show
local kind_of = schema.kind_of

local M = {}

-- The `cl` table of init.lua, for the few calls that read fields a script may reassign
-- (cl.used_options) or load lazily (cl.output, cl.progress, cl.runinfo). Set by init.lua.
M.facade = nil

-- An __index that lists the known methods when a name is misspelt.
local function strict_index(mt, what)
  return function(_, k)
    local m = rawget(mt, k)
    if m ~= nil then return m end
    local names = {}
    for n, v in pairs(mt) do
      if type(v) == "function" and not n:find("^__") then names[#names + 1] = n end
    end
    table.sort(names)
    raise(schema.unknown_name(what, k, names))
  end
end

local World = { __name = "cl.world" }
World.__index = strict_index(World, "world method")
World.__tostring = function(w)
  if rawget(w, "ptr") == nil then return "cl.world(destroyed)" end
  return string.format("cl.world(%d bodies)", #w._bodies)
end

local Body = { __name = "cl.body" }
Body.__index = strict_index(Body, "body method or field")
Body.__tostring = function(b) return string.format("cl.body('%s', %s)", b.name, b.solver) end

local Condition = { __name = "cl.condition" }
Condition.__index = Condition
Condition.__tostring = function(c) return string.format("cl.condition(%s on '%s')", c.kind, c.body.name) end

local Collider = { __name = "cl.collider" }
Collider.__index = Collider
Collider.__tostring = function(c)
  return "cl.collider(" .. c.kind .. (rawget(c, "number") and (" #" .. c.number) or "") .. ")"
end

local Probe = { __name = "cl.probe" }
Probe.__index = Probe
Probe.__tostring = function(pr)
  local spec = rawget(pr, "spec")
  local body = spec and (spec.body or (spec.condition and spec.condition.body))
  return "cl.probe(" .. pr.kind .. (body and (" of '" .. tostring(body.name) .. "'") or "") .. ")"
end

-- What cl.probe.* returns: a description that world:probe (or world:run) turns into a live probe.
local ProbeSpec = { __name = "cl.probe spec" }
ProbeSpec.__index = ProbeSpec
ProbeSpec.__tostring = function(p) return "cl.probe." .. p.kind end

M.World, M.Body, M.Condition, M.Collider, M.Probe, M.ProbeSpec = World, Body, Condition, Collider, Probe, ProbeSpec

function M.is_world(v) return getmetatable(v) == World end
function M.is_body(v) return getmetatable(v) == Body end
function M.is_condition(v) return getmetatable(v) == Condition end
function M.is_collider(v) return getmetatable(v) == Collider end
function M.is_probe(v) return getmetatable(v) == Probe end
function M.is_probe_spec(v) return getmetatable(v) == ProbeSpec end
local is_world, is_body, is_condition = M.is_world, M.is_body, M.is_condition

schema.define_type("condition", function(v)
  if is_condition(v) then return true, v end
  return false, "is not a condition (from world:fix, world:drive or world:force)"
end, "a condition")
schema.define_type("body", function(v)
  if is_body(v) then return true, v end
  return false, "is not a body (from world:body{...})"
end, "a body")

-- The live C pointer of a world argument, or an error naming the call.
function M.world_ptr(w, what)
  if not is_world(w) then raise(string.format("%s: expected a world (from cl.world{...}), got %s %s", what, kind_of(w), show(w))) end
  local p = rawget(w, "ptr")
  if p == nil then raise(what .. ": this world was destroyed (world:destroy())") end
  return p
end
local world_ptr = M.world_ptr

-- Why a condition, collider or probe handle no longer names a live object, in the user's terms
-- (the C library only knows that the id is stale), or nil while it is alive.
local function gone(self)
  if rawget(self, "_removed") then return "it was removed (" .. tostring(self) .. ":remove())" end
  local spec = rawget(self, "spec")
  local body = rawget(self, "body") or (spec and spec.body)
  local cond = spec and spec.condition
  if cond and rawget(cond, "_removed") then
    return "it was removed with its condition (condition:remove())"
  end
  if cond then body = cond.body end
  if body and rawget(body, "_removed") then
    return "it was removed with body '" .. tostring(body.name) .. "' (body:remove())"
  end
  return nil
end

-- The world pointer behind a condition, collider or probe method call (`self` checked first).
function M.owned_ptr(self, mt, what)
  if getmetatable(self) ~= mt then
    raise(string.format("%s: expected a %s, got %s %s (call it with ':')", what, mt.__name, kind_of(self), show(self)))
  end
  local p = world_ptr(self.world, what)
  local why = gone(self)
  if why then raise(string.format("%s: this %s cannot be used: %s", what, tostring(self), why)) end
  return p
end

-- A body argument, or an error naming the call.
function M.body_arg(b, where)
  if not is_body(b) then raise(string.format("%s: expected a body (from world:body{...}), got %s %s", where, kind_of(b), show(b))) end
  return b
end
local body_arg = M.body_arg

-- The world pointer behind a body method call; errors on a removed body.
function M.body_ptr(b, what)
  body_arg(b, what)
  local p = world_ptr(b.world, what)
  if rawget(b, "_removed") then raise(what .. ": body '" .. b.name .. "' was removed") end
  return p
end

-- A body argument of a call on world `w`: it must be alive and belong to `w`.
function M.same_world(w, b, where)
  body_arg(b, where)
  if b.world ~= w then raise(where .. ": body '" .. b.name .. "' belongs to another world") end
  if rawget(b, "_removed") then raise(where .. ": body '" .. b.name .. "' was removed") end
end

return M
