-- The scenes of cleave's experiments, each a function of its parameters (cl.scene: a schema with
-- defaults, units, ranges and help, and a build function). The experiment scripts are thin runners
-- over them; validations, tests and the shape-matching benchmark build the same scenes from here.
--
--   local scenes = dofile(here .. "/../scenes/init.lua")     -- this file, from a script beside it
--   scenes.main("corotational/notched_bar_brittle")          -- the runner every experiment uses
--   local sc = scenes.get("shape_matching/plate_ductile")     -- a cl.scene
--   local built = sc:build { particles = 2500 }               -- built.world, built.body, ...
--   for _, s in ipairs(scenes.family("shape_matching")) do ... end
--   print(sc:help())                                          -- the parameter table by group
--
-- Each family folder holds one file per set-up, returning a scene or a list of variants (e.g.
-- notched_bar.lua: notched_bar_brittle and notched_bar_ductile), and a common.lua of what the
-- family shares. A scene's name is "<family>/<name>"; every scene has a runner script
-- experiments/<family>/<name>.lua (checked by tests/lua/test_scenes.lua).
local cl = require "cleave"

local M = {}

M.dir = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."

-- The files of each family, in the order its scenes are listed (the benchmark's table follows it).
M.families = {
  corotational = { "twisted_bar", "notched_bar", "hollow_ball", "projectile_plate", "pendulum_bar" },
  shape_matching = { "twisted_bar", "plate", "armadillo", "broken_heart", "swiss_cheese", "hollow_ball",
                     "two_bodies" },
  rigid = { "bouncing_balls" },
  graph_fem = { "sculpt_sphere", "charpy" },
  -- one definition on every solver (experiments/compare_solvers.lua runs them all)
  every_solver = { "cantilever", "twisted_bar", "hanging_sphere", "dropped_ball", "notched_bar" },
}
M.family_names = { "corotational", "shape_matching", "rigid", "graph_fem", "every_solver" }

local loaded = {} -- family -> { list = {...}, by_name = {...} }

-- Errors name the line that called scenes.get or scenes.family (`level` 2 from those).
local function fail(level, msg) error(cl.schema.where(level + 1) .. msg, 0) end

local function load_family(family)
  if loaded[family] then return loaded[family] end
  local files = M.families[family]
  if not files then fail(3, cl.schema.unknown_name("scene family", family, M.family_names)) end
  local list, by_name = {}, {}
  for _, file in ipairs(files) do
    local got = dofile(M.dir .. "/" .. family .. "/" .. file .. ".lua")
    if cl.is_scene(got) then got = { got } end
    for _, sc in ipairs(got) do
      list[#list + 1] = sc
      by_name[sc.name] = sc
    end
  end
  loaded[family] = { list = list, by_name = by_name }
  return loaded[family]
end

-- The scenes of a family, in order.
function M.family(family)
  return load_family(family).list
end

-- The scene "<family>/<name>".
function M.get(qualified)
  local family, name = tostring(qualified):match("^([%w_]+)/([%w_]+)$")
  if not family then
    fail(2, "scenes.get: " .. cl.schema.show(qualified) .. " is not '<family>/<name>' (families: " ..
            table.concat(M.family_names, ", ") .. ")")
  end
  local f = load_family(family)
  local sc = f.by_name[name]
  if not sc then
    local names = {}
    for i, s in ipairs(f.list) do names[i] = s.name end
    fail(2, cl.schema.unknown_name(family .. " scene", name, names))
  end
  return sc
end

-- A runner's options beside the scene's parameters, from --set: every, out, snapshot, help and
-- quick (the scene's smoke-test settings). Returns the scene's parameters and the options, or
-- nothing when --set help=true printed the parameter table.
function M.options(sc, out, every)
  local p, o = sc:options {
    { name = "every", type = "integer", default = every, range = { 1, 1e6 }, help = "write VTU every this many frames" },
    { name = "out", type = "string", default = out, help = "output folder" },
    { name = "snapshot", type = "boolean", default = true, help = "draw the run's PNG figures (gnuplot)" },
    { name = "help", type = "boolean", default = false, help = "print the scene's parameters and stop" },
  }
  if o.help then
    print(sc:help())
    return
  end
  return p, o
end

-- The runner of every experiment script: the scene's parameters and the options above, then
-- build, print what it is, run with VTU frames, probes.csv and run.json in `out`, print the
-- scene's report and draw its figure (a shaded snapshot unless the scene draws something else).
-- The build's table may carry these hooks: intro(frames) -> a line printed before the run,
-- probes, start(out) before the run, on_frame(frame, world), report(run), measure() -> {name =
-- number} printed after the run, snapshot(png, title), figure (the PNG's file name). Returns the built scene and the run.
-- `qualified` is "family/name" or a scene (a variant); `out` (optional) is the default output folder
-- (out/<family>/<scene> otherwise; required for a scene given as a table).
function M.main(qualified, out)
  local sc = type(qualified) == "table" and qualified or M.get(qualified)
  local p, o = M.options(sc, out or ("out/" .. qualified:match("^([%w_]+)/") .. "/" .. sc.name), 10)
  if not p then return end
  local built = sc:build(p)
  print(string.format("%s: %s", sc.name, sc.what))
  if built.intro then print(built.intro(p.frames)) end
  if built.start then built.start(o.out) end
  local run = built.world:run { frames = p.frames, every = o.every, output = o.out, probes = built.probes,
                                on_frame = built.on_frame }
  if built.report then built.report(run) end
  if built.measure then -- the scene's own measures (every_solver: what compare_solvers.lua compares)
    local m, names = built.measure(), {}
    for k in pairs(m) do names[#names + 1] = k end
    table.sort(names)
    for i, k in ipairs(names) do names[i] = string.format("%s %.6g", k, m[k]) end
    print("  " .. table.concat(names, ", "))
  end
  if o.snapshot and built.snapshot then
    local png = o.out .. "/" .. (built.figure or (sc.name .. ".png"))
    local ok, err = pcall(built.snapshot, png, string.format("%s, t = %.2f s", sc.name, run.stats.time))
    print(ok and ("  snapshot " .. png) or ("  snapshot failed: " .. tostring(err)))
  end
  return built, run
end

return M
