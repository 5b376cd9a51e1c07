# Lua tests (label "lua"), included by tests/CMakeLists.txt.
#  * every tests/lua/test_*.lua runs through the executable: `build/cleave run <file>`;
#  * test_mesh.lua and test_world.lua also run through the plain `luajit` interpreter with LUA_PATH
#    pointing at the build's module tree, proving `require "cleave"` works outside the executable;
#  * the executable's own behaviour (exit codes, messages, --set) is tested by test_cli.lua, which
#    runs build/cleave on small scripts;
#  * test_ffi_layout.lua compares struct layouts with the generated C program cleave_ffi_layout_dump.
file(GLOB CLEAVE_LUA_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/lua/test_*.lua)
set(_lua_tmp ${CMAKE_CURRENT_BINARY_DIR}/lua-tmp)
set(_lua_env
  "CLEAVE_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
  "CLEAVE_BINARY_DIR=${PROJECT_BINARY_DIR}"
  "CLEAVE_EXE=$<TARGET_FILE:cleave_app>"
  "CLEAVE_TEST_TMP=${_lua_tmp}"
  "CLEAVE_VERSION=${PROJECT_VERSION}")
if(LUAJIT_EXECUTABLE)
  list(APPEND _lua_env "CLEAVE_LUAJIT=${LUAJIT_EXECUTABLE}")
endif()
if(TARGET cleave_ffi_layout_dump)
  list(APPEND _lua_env "CLEAVE_FFI_LAYOUT_DUMP=$<TARGET_FILE:cleave_ffi_layout_dump>")
endif()

foreach(src ${CLEAVE_LUA_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME lua_${name} COMMAND $<TARGET_FILE:cleave_app> run ${src})
  set_tests_properties(lua_${name} PROPERTIES LABELS lua TIMEOUT 300 ENVIRONMENT "${_lua_env}"
                       SKIP_RETURN_CODE ${CLEAVE_SKIP_CODE}) # T.skip, then T.done
endforeach()

if(LUAJIT_EXECUTABLE)
  # LUA_PATH holds semicolons, which a CMake list would split: escape them.
  set(_lua_path "${PROJECT_BINARY_DIR}/lua/?.lua\\;${PROJECT_BINARY_DIR}/lua/?/init.lua\\;\\;")
  foreach(name test_mesh test_world test_output test_plot test_progress test_runinfo test_summary)
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/lua/${name}.lua)
      add_test(NAME lua_plain_${name} COMMAND ${LUAJIT_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/lua/${name}.lua)
      set_tests_properties(lua_plain_${name} PROPERTIES LABELS lua TIMEOUT 300 SKIP_RETURN_CODE ${CLEAVE_SKIP_CODE}
        # its own scratch folder: the same test runs through `cleave` at the same time under ctest -j
        ENVIRONMENT "${_lua_env};LUA_PATH=${_lua_path};CLEAVE_TEST_TMP=${_lua_tmp}-plain")
    endif()
  endforeach()
endif()

# The README's example script runs as written.
add_test(NAME readme_example COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lua/run_readme_example.sh
  ${PROJECT_SOURCE_DIR}/README.md $<TARGET_FILE:cleave_app> ${CMAKE_CURRENT_BINARY_DIR}/readme-example)
set_tests_properties(readme_example PROPERTIES LABELS lua TIMEOUT 300 ENVIRONMENT "${_lua_env}")
