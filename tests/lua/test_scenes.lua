-- Scenes as functions of their parameters (cl.scene, lua/cleave/scene.lua) and the scene catalogue
-- of the experiments (experiments/scenes/init.lua): every scene file is listed, every scene has its
-- runner script and every runner its scene, every parameter is documented, overrides and quick
-- settings reach the build, and mistakes are errors naming the parameter at the caller's line.
-- (Each script running in its quick mode is the "scripts" label: tests/scripts/tests.cmake.)
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local cl = require "cleave"
local src = os.getenv("CLEAVE_SOURCE_DIR") or (here .. "/../..")
local scenes = dofile(src .. "/experiments/scenes/init.lua")

local function ls(dir)
  local names, p = {}, assert(io.popen("ls '" .. dir .. "' 2>/dev/null"))
  for line in p:lines() do names[#names + 1] = line end
  p:close()
  return names
end

T.test("every file of experiments/scenes/<family>/ is in the catalogue, and every family folder", function()
  for _, family in ipairs(ls(src .. "/experiments/scenes")) do
    if not family:match("%.lua$") then
      local listed = {}
      for _, f in ipairs(scenes.families[family] or {}) do listed[f .. ".lua"] = true end
      T.truthy(scenes.families[family], "family folder " .. family .. " in scenes.families")
      for _, file in ipairs(ls(src .. "/experiments/scenes/" .. family)) do
        if not file:match("^common.*%.lua$") then T.truthy(listed[file], family .. "/" .. file .. " in scenes.families") end
      end
    end
  end
end)

T.test("every scene has a runner script and every runner script a scene", function()
  for _, family in ipairs(scenes.family_names) do
    local names = {}
    for _, sc in ipairs(scenes.family(family)) do
      T.truthy(not names[sc.name], "one scene per name: " .. family .. "/" .. sc.name)
      names[sc.name] = true
      local script = T.read_file(src .. "/experiments/" .. family .. "/" .. sc.name .. ".lua")
      T.truthy(script, "experiments/" .. family .. "/" .. sc.name .. ".lua")
      T.contains(script, 'main("' .. family .. "/" .. sc.name .. '")', "the runner runs its own scene")
    end
    for _, file in ipairs(ls(src .. "/experiments/" .. family)) do
      T.truthy(names[file:gsub("%.lua$", "")], "experiments/" .. family .. "/" .. file .. " has a scene")
    end
  end
end)

T.test("every parameter has a default, help, group, and numbers a unit and a range", function()
  for _, family in ipairs(scenes.family_names) do
    for _, sc in ipairs(scenes.family(family)) do
      T.truthy(sc:params_of({}).frames, family .. "/" .. sc.name .. " has frames")
      for _, e in ipairs(sc.params) do
        local what = family .. "/" .. sc.name .. "." .. e.name
        T.truthy(e.default ~= nil and e.help and e.group, what)
        if e.type == "number" or e.type == "integer" then T.truthy(e.unit and e.range, what) end
      end
      T.contains(sc:help(), sc.what)
    end
  end
end)

-- A small scene for the API's own checks.
local function bar_scene(extra)
  local d = {
    name = "bar", what = "a bar",
    params = {
      { name = "young", group = "material", type = "number", default = 1e5, unit = "Pa", range = { 0, math.huge, "()" },
        help = "Young's modulus" },
      { name = "length", group = "geometry", type = "number", default = 0.4, unit = "m", range = { 0, 10, "()" },
        help = "length" },
      { name = "frames", group = "run", type = "integer", default = 10, unit = "1", range = { 1, 1e6 }, help = "frames" },
    },
    quick = { frames = 2 },
    check = function(p) if p.length > 5 then return "length must be at most 5 m here" end end,
    build = function(p)
      local w = cl.world { gravity = { 0, 0, 0 } }
      local b = w:body { shape = cl.shape.box { size = { p.length, 0.1, 0.1 } }:tetrahedralize { max_volume = 1e-3 },
                         solver = "corotational", material = { young = p.young } }
      return { world = w, body = b }
    end,
  }
  for k, v in pairs(extra or {}) do d[k] = v end
  return cl.scene(d)
end

T.test("a scene builds from its defaults and from overrides; variants change defaults", function()
  local sc = bar_scene()
  T.truthy(cl.is_scene(sc))
  local built = sc:build()
  T.eq(built.params.young, 1e5)
  T.eq(built.scene, sc)
  T.truthy(cl.is_world(built.world))
  T.eq(sc:build({ young = 2e5 }).params.young, 2e5)
  local stiff = sc:variant { name = "stiff_bar", defaults = { young = 3e5 } }
  T.eq(stiff:build().params.young, 3e5)
  T.eq(stiff.what, "a bar")
  T.eq(sc:build().params.young, 1e5, "the base scene keeps its default")
end)

T.test("options: --set values, quick settings under explicit ones, runner options apart", function()
  local sc = bar_scene()
  local runner = { { name = "out", type = "string", default = "out/bar", help = "output folder" } }
  local p, o = sc:options(runner, { young = 4e5, out = "x" })
  T.eq(p.young, 4e5)
  T.eq(p.frames, 10)
  T.eq(o.out, "x")
  T.eq(o.quick, false)
  T.eq(p.out, nil)
  p, o = sc:options(runner, { quick = true })
  T.eq(p.frames, 2)
  T.eq(o.quick, true)
  p = sc:options(runner, { quick = true, frames = 5 })
  T.eq(p.frames, 5, "an explicit value wins over the quick settings")
end)

T.test("mistakes are errors naming the parameter, at the caller's line", function()
  local sc = bar_scene()
  T.error(function() sc:build { yung = 1 } end, { "unknown key 'yung'", "did you mean 'young'?" })
  T.error(function() sc:build { young = -1 } end, { "young = -1", "(0, inf)" })
  T.error(function() sc:build { length = 6 } end, "length must be at most 5 m here")
  T.error(function() sc:options({}, { lenght = 1 }) end, "did you mean 'length'?")
  T.error(function() sc:variant { name = "v", defaults = { yung = 1 } } end, "yung")
  T.error(function()
    cl.scene { name = "s", what = "w", build = function() end,
               params = { { name = "x", group = "geometry", type = "number", default = 1, help = "x" } } }
  end, "parameter \"x\" needs a unit")
  T.error(function()
    cl.scene { name = "s", what = "w", build = function() end,
               params = { { name = "x", group = "shape", type = "string", default = "a", help = "x" } } }
  end, "group \"shape\"")
  T.error(function()
    cl.scene { name = "s", what = "w", build = function() end,
               params = { { name = "x", group = "geometry", type = "string", help = "x" } } }
  end, "has no default")
  T.error(function() bar_scene { quick = { frmaes = 1 } } end, "frmaes")
  T.error(function() bar_scene({ build = function() return {} end }):build() end, "must return a table with the world")
  T.error(function() scenes.get("corotational/no_such_bar") end, "unknown corotational scene")
  T.error(function() scenes.get("twisted_bar") end, "is not '<family>/<name>'")
end)

T.done()
