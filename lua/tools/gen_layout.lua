-- Build-time generator: luajit gen_layout.lua <ffi_layout.lua> <cdef.lua> <out.c>
-- Writes the C program that prints every public struct's size, alignment and field offsets and
-- every enum constant, as the C compiler sees them (see cleave/ffi_layout.lua).
local layout_path, cdef_path, out_path = ...
if not (layout_path and cdef_path and out_path) then
  io.stderr:write("usage: luajit gen_layout.lua <ffi_layout.lua> <cdef.lua> <out.c>\n")
  os.exit(2)
end
local layout = dofile(layout_path)
local text = dofile(cdef_path)
local program = layout.c_program(text)
local f = assert(io.open(out_path .. ".tmp", "w"))
f:write(program)
f:close()
assert(os.rename(out_path .. ".tmp", out_path))
