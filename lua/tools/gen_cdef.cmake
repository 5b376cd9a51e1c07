# Build-time generator of lua/cleave/cdef.lua: the public header preprocessed with CL_FFI_CDEF
# (which hides the system includes and extern "C"), wrapped in a Lua long string.
#   cmake -DCC=<compiler> -DINCLUDE_DIR=<src/include> -DHEADER=<cleave.h> -DOUTPUT=<cdef.lua> -P gen_cdef.cmake
execute_process(
  COMMAND ${CC} -E -P -DCL_FFI_CDEF -I${INCLUDE_DIR} -x c ${HEADER}
  OUTPUT_VARIABLE decls ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cleave: preprocessing ${HEADER} for the FFI failed (${rc}):\n${err}")
endif()
if(decls MATCHES "\\]==\\]")
  message(FATAL_ERROR "cleave: the preprocessed header contains ']==]', which would end the Lua string")
endif()
if(decls MATCHES "#include|extern \"C\"")
  message(FATAL_ERROR "cleave: the preprocessed header still has an include or extern \"C\"; "
                      "guard it with #ifndef CL_FFI_CDEF")
endif()
# Drop blank lines; LuaJIT's C parser does not need them.
string(REGEX REPLACE "\n[ \t]*\n" "\n" decls "${decls}")
string(REGEX REPLACE "\n[ \t]*\n" "\n" decls "${decls}")
set(text "-- Generated at build time from ${HEADER}\n-- by lua/tools/gen_cdef.cmake; do not edit.\nreturn [==[\n${decls}]==]\n")
file(WRITE ${OUTPUT} "${text}")
