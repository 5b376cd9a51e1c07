-- Table 2 of Mandal, Chaudhuri and Chaudhuri (GRAPP 2025): the volume gain of the hanging sphere
-- (Poisson's ratio about 0.48) per model. Our numbers come from validation/volume_gain.lua (issue
-- 13), run here as a child process (`cleave run validation/volume_gain.lua`, with --set quick=true in
-- quick mode); this script reads the CSV files it names or writes: a column naming the model (found
-- by "model", "method" or "solver" in its name) and a column of volume gain ("gain_abs", "gain",
-- else "volume"; rows whose "status" column is not "ok" are left out), and quotes the markdown
-- tables it writes.
-- Without validation/volume_gain.lua in the tree the section says the item needs it.
--
--   cleave run experiments/papers/mandal_table2.lua [--set quick=true]
local cl = require "cleave"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local R = dofile(here .. "/lib/report.lua")
local V = dofile(here .. "/lib/validation.lua")

local o = R.options {}
-- Table 2 as printed, and the names under which a model of cleave would stand beside each row.
local paper = {
  { "Co-rot. FEM (Irving et al., 2004)", "85%", { "corot" } },
  { "Inv. N-Hkn (Sin et al., 2013)", "3.2%", { "invertible_neo", "inv_neo" } },
  { "Inv. StVK (Sin et al., 2013)", "10.7%", { "stvk" } },
  { "Stb. N-Hkn (Smith et al., 2018)", "4.3%", { "stable", "snh" } },
  { "Our Method (Xian et al., 2019)", "19%", { "galerkin", "multigrid", "graph" } },
}

local sec = R.section("mandal_table2", o)
sec:text("Paper: Table 2, \"Volume gain in different existing consecutive models using various hyper-elastic strain " ..
         "energies\", the hanging sphere of Fig. 14 with Poisson's ratio about 0.48 (sec 5), as printed:")
sec:table({ "method", "vol. gain" }, paper)

local res, why = V.run("volume_gain", "volume", o, o.quick and 120 or 3600)
if not res then
  sec:unavailable("Table 2", "It needs the volume-gain validation, validation/volume_gain.lua (issue 13), which is not in " ..
                  "this tree yet (" .. why .. "); when it lands this script runs it and sets its volume gains beside the " ..
                  "paper's.")
  sec:finish()
  return
end
sec:text(string.format("`cleave run validation/volume_gain.lua%s` ran for %.1f s and %s (log: `%s`).",
                       o.quick and " --set quick=true" or "", res.seconds,
                       res.ok and "exited with status 0" or ("failed, status " .. tostring(res.status)), res.log))
local verdicts = V.verdicts(res.stdout)
if #verdicts > 0 then sec:text("Its verdicts:", "```\n" .. table.concat(verdicts, "\n") .. "\n```") end

local rows = {}
for _, c in ipairs(V.csvs(res.files)) do
  local mcol = V.column(c.names, { "model", "method", "solver" })
  local gcol = V.column(c.names, { "gain_abs", "gain", "volume" }, mcol)
  local scol = V.column(c.names, { "^status$" })
  if mcol and gcol then
    for _, r in ipairs(c.rows) do
      if type(r[gcol]) == "number" and (not scol or r[scol] == "ok") then
        -- the row's name: every text column of it (model, and e.g. a solver or grid column), model first
        local parts = { tostring(r[mcol]) }
        for _, n in ipairs(c.names) do
          local l = n:lower()
          local book = l == "key" or l:find("status") or l:find("message") or l:find("version") or l:find("revision")
                       or l:find("git")
          if n ~= mcol and not book and type(r[n]) == "string" and r[n] ~= "" then parts[#parts + 1] = r[n] end
        end
        local E = V.column(c.names, { "^young$" })
        if E and type(r[E]) == "number" then parts[#parts + 1] = string.format("E = %g Pa", r[E]) end
        local name = table.concat(parts, " ")
        local beside = "-"
        for _, p in ipairs(paper) do
          for _, key in ipairs(p[3]) do
            if name:lower():find(key, 1, true) and beside == "-" then beside = p[1] .. ": " .. p[2] end
          end
        end
        rows[#rows + 1] = { name, gcol, r[gcol], beside, c.path }
        sec:row { item = name .. " (" .. c.path:match("[^/]+$") .. ")", volume_gain = r[gcol] }
      end
    end
  end
end
-- the validation's own tables (markdown files it wrote), headings moved below this section's
for _, p in ipairs(res.files) do
  if p:match("%.md$") then
    local f = io.open(p)
    local text = f and f:read("*a") or ""
    if f then f:close() end
    sec:text("The validation's own table (`" .. p .. "`):", (text:gsub("\n#", "\n###"):gsub("^#", "###")))
  end
end
if #rows == 0 then
  sec:unavailable("Table 2", "validation/volume_gain.lua ran but wrote no CSV with a model and a volume-gain column " ..
                  "that this script could find (files seen: " .. (#res.files > 0 and table.concat(res.files, ", ") or "none") .. ").")
else
  sec:text("Ours, as the validation wrote them (its column and units; the paper's gain is a percentage):")
  sec:table({ "model", "column", "value", "paper's row", "file" }, rows)
end
sec:finish()
