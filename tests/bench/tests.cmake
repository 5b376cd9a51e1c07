# The benchmark programs' command lines (a short run's output and the refusal of bad options).
add_test(NAME bench_shape_matching_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_sm_cli.sh $<TARGET_FILE:cleave-bench-shape_matching>)
set_tests_properties(bench_shape_matching_cli PROPERTIES LABELS bench TIMEOUT 120
                     ENVIRONMENT "CLEAVE_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
add_test(NAME bench_multigrid_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_mg_cli.sh $<TARGET_FILE:cleave-bench-multigrid>)
set_tests_properties(bench_multigrid_cli PROPERTIES LABELS bench TIMEOUT 300)

# The sweep runner's benchmark (bench/sweep_runner.lua, docs/BENCHMARKS.md "Sweeps") in its smoke
# mode: it runs `cleave sweep` on its own small sweeps and prints the figures' lines.
set(_sweep_bench_dir ${CMAKE_CURRENT_BINARY_DIR}/bench-sweep)
file(MAKE_DIRECTORY ${_sweep_bench_dir})
add_test(NAME bench_sweep_runner
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/sweep_runner.lua --set quick=true
                 --set dir=${_sweep_bench_dir}/out
         WORKING_DIRECTORY ${_sweep_bench_dir})
set_tests_properties(bench_sweep_runner PROPERTIES LABELS bench TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "median wall of 8 points")
add_test(NAME bench_graph_fem_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_gfem_cli.sh $<TARGET_FILE:cleave-bench-graph_fem>)
set_tests_properties(bench_graph_fem_cli PROPERTIES LABELS bench TIMEOUT 300)

# The Charpy impact's cost per step (bench/graph_fem_charpy_impact.lua, docs/BENCHMARKS.md "Graph-based
# FEM") on the scene's coarse mesh: it steps the experiment's scene and prints the medians and means.
add_test(NAME bench_graph_fem_charpy_impact
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_charpy_impact.lua --set quick=true)
set_tests_properties(bench_graph_fem_charpy_impact PROPERTIES LABELS bench TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "linsolve +[0-9.]+ +[0-9.]+ ms")
# the cheaper settings reach the scene (its parameters tangent and mg_smoother); a wrong one is refused
add_test(NAME bench_graph_fem_charpy_impact_settings
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_charpy_impact.lua --set quick=true
                 --set tangent=warped --set mg_smoother=colored_gauss_seidel --set mg_cycles=1)
set_tests_properties(bench_graph_fem_charpy_impact_settings PROPERTIES LABELS bench TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "linsolve +[0-9.]+ +[0-9.]+ ms")
add_test(NAME bench_graph_fem_charpy_impact_bad_tangent
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_charpy_impact.lua --set tangent=warpd)
set_tests_properties(bench_graph_fem_charpy_impact_bad_tangent PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "tangent = \"warpd\" is not one of model, warped \\(did you mean 'warped'\\?\\)")

# The speed end of graph_fem's volume-gain front (bench/graph_fem_sphere_front.lua) in its smoke
# mode: every setting with 1 and 2 threads gives a finite volume change and a time; bad options are
# refused with the option's name and range.
add_test(NAME bench_graph_fem_sphere_front
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_sphere_front.lua --set quick=true)
set_tests_properties(bench_graph_fem_sphere_front PROPERTIES LABELS bench TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "\\| mg 50/all, 1 V-cycle \\| 2 \\| [0-9.]+ % \\| [0-9.]+ / [0-9.]+ \\|")
# the lagged tangent's setting: kept matrices (1 fresh step of the smoke test's 5) and a volume change
add_test(NAME bench_graph_fem_sphere_front_lagged
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_sphere_front.lua --set quick=true
                 --set only=1)
set_tests_properties(bench_graph_fem_sphere_front_lagged PROPERTIES LABELS bench TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "tangent every 30 steps \\| 2 \\| [0-9.]+ % \\| [0-9.]+ / [0-9.]+ \\|[^|]+\\|[^|]+\\| 1 of 5 \\|")
add_test(NAME bench_graph_fem_sphere_front_bad_only
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_sphere_front.lua --set only=0)
set_tests_properties(bench_graph_fem_sphere_front_bad_only PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "only = 0 has \\[1\\] = 0 outside \\[1, 7\\]")
add_test(NAME bench_graph_fem_sphere_front_bad_threads
         COMMAND $<TARGET_FILE:cleave_app> run ${PROJECT_SOURCE_DIR}/bench/graph_fem_sphere_front.lua --set threads=0)
set_tests_properties(bench_graph_fem_sphere_front_bad_threads PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "threads = 0 has \\[1\\] = 0 outside \\[1, 256\\]")
