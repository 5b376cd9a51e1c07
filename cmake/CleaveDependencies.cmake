# Every dependency is a Debian package; when one is missing, say which package to install.
function(cleave_missing what pkg)
  message(FATAL_ERROR
    "cleave: ${what} not found. Install the Debian package ${pkg}:\n"
    "    sudo apt-get install ${pkg}\n"
    "or run scripts/install-deps.sh, which installs everything cleave needs.")
endfunction()

# LuaJIT (libluajit-5.1-dev): embedded by the `cleave` executable.
find_path(LUAJIT_INCLUDE_DIR luajit.h PATH_SUFFIXES luajit-2.1 luajit-2.0)
find_library(LUAJIT_LIBRARY NAMES luajit-5.1 luajit)
if(NOT LUAJIT_INCLUDE_DIR OR NOT LUAJIT_LIBRARY)
  cleave_missing("LuaJIT headers and library" libluajit-5.1-dev)
endif()
find_program(LUAJIT_EXECUTABLE luajit)

# CHOLMOD (libsuitesparse-dev): sparse Cholesky for direct solves.
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
find_library(CHOLMOD_LIBRARY cholmod)
find_library(SUITESPARSECONFIG_LIBRARY suitesparseconfig)
if(NOT CHOLMOD_INCLUDE_DIR OR NOT CHOLMOD_LIBRARY OR NOT SUITESPARSECONFIG_LIBRARY)
  cleave_missing("CHOLMOD (SuiteSparse)" libsuitesparse-dev)
endif()

# TetGen 1.5 (libtet1.5-dev): a C++ library, reached through src/geom/tetgen_bridge.cpp.
find_path(TETGEN_INCLUDE_DIR tetgen.h)
find_library(TETGEN_LIBRARY tet)
if(NOT TETGEN_INCLUDE_DIR OR NOT TETGEN_LIBRARY)
  cleave_missing("TetGen" libtet1.5-dev)
endif()

# OpenMP is part of the compiler; parallel loops fall back to serial without it.
find_package(OpenMP COMPONENTS C)

# cmocka (libcmocka-dev): the C test framework.
if(CLEAVE_TESTS)
  find_path(CMOCKA_INCLUDE_DIR cmocka.h)
  find_library(CMOCKA_LIBRARY cmocka)
  if(NOT CMOCKA_INCLUDE_DIR OR NOT CMOCKA_LIBRARY)
    cleave_missing("cmocka" libcmocka-dev)
  endif()
  if(NOT LUAJIT_EXECUTABLE)
    cleave_missing("the luajit interpreter (for the Lua tests)" luajit)
  endif()
endif()

# gnuplot (gnuplot-nox) is driven through a pipe at run time; only warn here.
find_program(GNUPLOT_EXECUTABLE gnuplot)
if(NOT GNUPLOT_EXECUTABLE)
  message(WARNING "cleave: gnuplot not found; plots will fail at run time. Install gnuplot-nox.")
endif()
