-- The FFI declarations are generated from the public header; this test checks that LuaJIT lays out
-- every public struct exactly as the C compiler does (size, alignment, every field offset) and that
-- every enum constant has the same value. The C side is the program cleave_ffi_layout_dump,
-- generated at build time from the same preprocessed header (lua/tools/gen_layout.lua).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local ffi = require "ffi"
local cl = require "cleave"
local layout = require "cleave.ffi_layout"

local dump_exe = os.getenv("CLEAVE_FFI_LAYOUT_DUMP")
local cdef = require "cleave.cdef"

T.test("the generated declarations are the preprocessed header", function()
  T.contains(cdef, "typedef struct cl_world_def")
  T.contains(cdef, "cl_status cl_world_step(cl_world *world, int32_t steps);")
  T.truthy(not cdef:find("#include", 1, true), "no includes left")
  T.truthy(not cdef:find("/*", 1, true), "no comments left")
end)

T.test("the parser finds every struct definition and its fields", function()
  local structs = layout.structs(cdef)
  T.eq(#structs, layout.count_struct_definitions(cdef))
  T.truthy(#structs >= 15, "the public API has at least 15 structs, found " .. #structs)
  local by = {}
  for _, s in ipairs(structs) do by[s.name] = s end
  -- multi-declarator lines and arrays: "double lo[3], hi[3];"
  local f = table.concat(by.cl_mesh_info.fields, ",")
  T.eq(f, "kind,points,cells,fields,lo,hi,measure")
  T.eq(table.concat(by.cl_param_info.fields, ","), "name,unit,help,value,min,max,kind,choices,text")
  local enums = layout.enums(cdef)
  T.truthy(#enums >= 10, "enums found")
  -- a function-pointer member and a nested definition are handled / refused
  local s = layout.structs("typedef struct a { void (*fn)(int, double); int x[2][3], *y; } a;")
  T.eq(table.concat(s[1].fields, ","), "fn,x,y")
  T.truthy(not pcall(layout.structs, "typedef struct b { struct { int x; } inner; } b;"), "nested refused")
end)

T.test("C and LuaJIT agree on every struct, field and enum constant", function()
  T.truthy(dump_exe and dump_exe ~= "", "CLEAVE_FFI_LAYOUT_DUMP names the C layout program")
  local p = assert(io.popen("'" .. dump_exe .. "'"))
  local dump = p:read("*a")
  p:close()
  local mismatches, counts = layout.compare(dump, ffi, cl.lib)
  T.eq(counts.structs, #layout.structs(cdef), "every struct printed by C")
  local nfields = 0
  for _, s in ipairs(layout.structs(cdef)) do nfields = nfields + #s.fields end
  T.eq(counts.fields, nfields, "every field printed by C")
  T.truthy(counts.constants >= 50, "enum constants compared: " .. counts.constants)
  if #mismatches > 0 then error("layout mismatches:\n  " .. table.concat(mismatches, "\n  ")) end
  io.write(string.format("      compared %d structs, %d fields, %d enum constants\n", counts.structs,
    counts.fields, counts.constants))
end)

T.test("the comparison notices a drift", function()
  local mismatches = layout.compare("S cl_world_def 8 8\nF cl_world_def dt 4\nE CL_OK 1\n", ffi, cl.lib)
  T.eq(#mismatches, 3)
end)

T.done()
