-- Parameter entries the scenes of every family share (cl.scene schema entries: name, group, type,
-- default, unit, range, help), so a parameter that means the same in two scenes is written once.
--   local P = dofile(here .. "/../params.lua")
--   params = { P.size({ 0.8, 0.1, 0.1 }, "the bar"), P.grip(0.28, "pulled apart"), P.frames(300), ... }
local P = {}

local inf = math.huge

function P.number(name, group, default, unit, range, help)
  return { name = name, group = group, type = "number", default = default, unit = unit, range = range, help = help }
end

function P.integer(name, group, default, range, help)
  return { name = name, group = group, type = "integer", default = default, unit = "1", range = range, help = help }
end

-- A length (m) in (0, limit).
function P.length(name, default, help, limit)
  return P.number(name, "geometry", default, "m", { 0, limit or 100, "()" }, help)
end

-- The extent of a box-like body, centred at the origin.
function P.size(default, what)
  return { name = "size", group = "geometry", type = "vec3", default = default, unit = "m", range = { 0, 100, "(]" },
           help = what .. "'s extent along x, y, z" }
end

-- Where the held or driven ends begin: |x| (or the axis named) beyond `default`.
function P.grip(name, default, what)
  return P.length(name, default, "the ends |x| > " .. name .. " are " .. what, 50)
end

-- A speed (m/s) of the loading.
function P.speed(name, default, help)
  return P.number(name, "loading", default, "m/s", { 0, 1e3 }, help)
end

function P.frames(default, dt_text)
  return P.integer("frames", "run", default, { 1, 1e6 }, "frames of " .. (dt_text or "1/60 s"))
end

function P.threads() return P.integer("threads", "solver", 0, { 0, 1024 }, "OpenMP threads (0 = all)") end

function P.seed() return P.integer("seed", "solver", 1, { 0, 2 ^ 31 }, "sampling and clustering seed") end

function P.substeps(default)
  return P.integer("substeps", "solver", default, { 1, 1000 }, "solver steps per frame")
end

-- The rule "a grip across a body `length` long must lie inside it": nil, or what is wrong.
function P.inside(name, x, length)
  if x >= length / 2 then
    return string.format("%s = %g must be less than half the body's length (%g m)", name, x, length / 2)
  end
end

P.inf = inf
return P
