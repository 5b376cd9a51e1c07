# The benchmark programs' command lines (a short run's output and the refusal of bad options).
add_test(NAME bench_shape_matching_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_sm_cli.sh $<TARGET_FILE:cleave-bench-shape_matching>)
set_tests_properties(bench_shape_matching_cli PROPERTIES LABELS bench TIMEOUT 120
                     ENVIRONMENT "CLEAVE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
add_test(NAME bench_multigrid_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_mg_cli.sh $<TARGET_FILE:cleave-bench-multigrid>)
set_tests_properties(bench_multigrid_cli PROPERTIES LABELS bench TIMEOUT 300)
