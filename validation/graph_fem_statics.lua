-- Validation of the graph-based FEM's statics (issue 16; docs/solvers/graph_fem.md, "Static
-- equilibrium"): the supports, surface loads, contact, contact probes and static solve it shares with
-- the corotational solver (src/fem/system.c, src/fem/static_solve.c), on the textbook problems of
-- validation/lib/statics.lua, each with its reference, tolerance and mesh on its check lines:
--   - Lame's thick sphere under internal pressure (Timoshenko & Goodier, sec. 137): u(a) and u(b)
--     within 2 % on the finest mesh (45k tets; quick: 5 % at 6.9k tets), the error shrinking;
--   - Hertz's rigid sphere pressed into a half-space (Johnson, "Contact Mechanics", sec. 4.2): force
--     within 5 % and contact radius within 10 % on the finest mesh (h = 0.1 mm; quick: 15 % and 10 %
--     at h = 0.4 mm on a small block), both errors shrinking; the contact probe equals the bottom's
--     reaction;
--   - a three-point bend on rollers against Timoshenko's beam with shear: within 2.5 % at 16 cells
--     per depth (quick: 10 % at 8), the error shrinking;
--   and for each, the damped dynamics at rest against the static solve within 1e-5.
-- The element model is graph_fem's default, the stable Neo-Hookean (`--set model=corotated` gives the
-- corotational solver's energy); all of them match E and nu at small strain.
--
--   cleave run validation/graph_fem_statics.lua                   full meshes
--   cleave run validation/graph_fem_statics.lua --set quick=true  coarse meshes (run by `make test`)
--   cleave run validation/graph_fem_statics.lua --set only=hertz  (or lame, bend)
--
-- Prints one PASS/FAIL line per check and exits 0 only if all passed.

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local cl = require "cleave"
local check = dofile(here .. "/lib/check.lua")
local meshes = dofile(here .. "/lib/meshes.lua")

local opt = cl.options {
  { name = "quick", type = "boolean", default = false, help = "coarse meshes (the `make test` subset)" },
  { name = "only", type = "string", default = "", help = "run only the checks whose name contains this (lame, hertz, bend)" },
  { name = "linear_solver", type = "enum", values = { "pcg", "cholmod", "galerkin_mg" }, default = "cholmod",
    help = "graph_fem's linear solver" },
  { name = "model", type = "enum", values = { "corotated", "stvk", "stable_neohookean" }, default = "stable_neohookean",
    help = "graph_fem's element model" },
  { name = "threads", type = "integer", default = 1, range = { 0, 256 }, help = "the worlds' threads (0 = all cores)" },
}
local R = check.reporter("graph_fem statics" .. (opt.quick and " (quick)" or ""))
R:info("graph_fem", string.format("model %s, linear_solver %s", opt.model, opt.linear_solver))

dofile(here .. "/lib/statics.lua").run {
  cl = cl, R = R, meshes = meshes, quick = opt.quick, solver = "graph_fem",
  wanted = function(name) return opt.only == "" or name:find(opt.only, 1, true) end,
  params = { linear_solver = opt.linear_solver, model = opt.model }, threads = opt.threads,
}

R:finish()
