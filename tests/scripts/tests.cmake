# Every script of experiments/, validation/ and plots/ runs in ctest (label "scripts",
# `ctest -L scripts`), found by a glob: a script is tested the day it is added. Files under a folder
# named scenes/ or lib/ are modules the scripts load, not scripts.
#  * Each runs as `cleave run SCRIPT --set quick=true`: its smoke test, small settings that still
#    take its path (experiments: a few frames of the scene at a coarse resolution, VTU frames,
#    probes.csv and the figure; validations: their quick subset, PASS/FAIL lines and a non-zero
#    exit on a FAIL). A new script without a `quick` option fails here ("unknown key 'quick'").
#  * A script needing other arguments has them in CLEAVE_SCRIPT_ARGS_<test name> below.
#  * Each runs in its own scratch folder (build/tests/scripts/<test name>), so the relative output
#    folders of the scripts (out/..., plots/out/...) land there, never in the source tree; out/ and
#    plots/ there are removed first (a sweep script refuses a results file an older definition of
#    the same sweep wrote).
# Test names: experiments/default.lua -> experiment_default, experiments/corotational/x.lua ->
# experiment_corotational_x, validation/x.lua -> validation_x, plots/x.lua -> plot_x.
file(GLOB_RECURSE CLEAVE_SCRIPTS CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/experiments/*.lua ${PROJECT_SOURCE_DIR}/validation/*.lua ${PROJECT_SOURCE_DIR}/plots/*.lua)
set(_scripts_tmp ${CMAKE_CURRENT_BINARY_DIR}/scripts)

# plots/bench_trace.lua draws a trace written by the shape-matching benchmark: a 3-frame run writes one.
set(_trace ${_scripts_tmp}/bench_trace_input/trace.tsv)
file(MAKE_DIRECTORY ${_scripts_tmp}/bench_trace_input)
add_test(NAME plot_bench_trace_input
  COMMAND $<TARGET_FILE:cleave-bench-shape_matching> --scene plate_brittle_strong --threads 1 --frames 3
          --trace ${_trace})
set_tests_properties(plot_bench_trace_input PROPERTIES LABELS scripts TIMEOUT 120
  FIXTURES_SETUP cleave_bench_trace ENVIRONMENT "CLEAVE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
set(CLEAVE_SCRIPT_ARGS_plot_bench_trace --set trace=${_trace} --set output=plots/out/trace.png)

foreach(script ${CLEAVE_SCRIPTS})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${script})
  if(rel MATCHES "(^|/)(scenes|lib)/")
    continue()
  endif()
  string(REGEX REPLACE "\\.lua$" "" name ${rel})
  string(REGEX REPLACE "^experiments/" "experiment_" name ${name})
  string(REGEX REPLACE "^validation/" "validation_" name ${name})
  string(REGEX REPLACE "^plots/" "plot_" name ${name})
  string(REPLACE "/" "_" name ${name})
  if(DEFINED CLEAVE_SCRIPT_ARGS_${name})
    set(args ${CLEAVE_SCRIPT_ARGS_${name}})
  else()
    set(args --set quick=true)
  endif()
  file(MAKE_DIRECTORY ${_scripts_tmp}/${name})
  # emptied first: a sweep script refuses the results file an earlier definition of it left there
  add_test(NAME ${name} COMMAND sh -c "rm -rf ./out ./plots && exec \"$@\"" sh
           $<TARGET_FILE:cleave_app> run ${script} ${args}
           WORKING_DIRECTORY ${_scripts_tmp}/${name})
  set_tests_properties(${name} PROPERTIES LABELS scripts TIMEOUT 300 ENVIRONMENT "${_lua_env}")
endforeach()
set_tests_properties(plot_bench_trace PROPERTIES FIXTURES_REQUIRED cleave_bench_trace)

