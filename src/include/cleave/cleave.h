/* cleave: public C API. Everything a C or Lua user may call is declared under include/cleave/.
 *
 * Conventions (see docs/ARCHITECTURE.md):
 *  - prefix cl_ for functions and types, CL_ for enum constants; constants are enums so LuaJIT's
 *    FFI sees them;
 *  - every function that can fail returns cl_status (0 ok, < 0 error, > 0 warning) and leaves a
 *    message for cl_last_error() naming the file and line, or the parameter and its allowed range;
 *  - creation takes a *_def struct filled by cl_*_def_default(); no struct is passed or returned by
 *    value; bulk data leaves through caller buffers with a capacity;
 *  - doubles throughout, SI units, stated in every field comment.
 *
 * The LuaJIT FFI declarations (lua/cleave/cdef.lua) are generated from this header at build time by
 * preprocessing it with CL_FFI_CDEF defined, which hides the system includes below. */
#ifndef CLEAVE_CLEAVE_H
#define CLEAVE_CLEAVE_H

#include "cleave/status.h"
#include "cleave/mesh.h"
#include "cleave/world.h"

#endif
