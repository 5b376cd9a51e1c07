# VTK reads cleave's .vtu back. vtk_write_samples (a C program on the public API) writes sample
# files and expected.json into the build tree; check_vtu.py, run with Debian's system python
# (/usr/bin/python3, which has python3-vtk9; a pyenv python on PATH usually has no vtk), reads them
# with vtkXMLUnstructuredGridReader and compares. Without VTK the check reports SKIP (exit 77).
set(CLEAVE_VTK_SAMPLES ${CMAKE_CURRENT_BINARY_DIR}/vtk_samples)
file(MAKE_DIRECTORY ${CLEAVE_VTK_SAMPLES})

add_executable(vtk_write_samples ${CMAKE_CURRENT_LIST_DIR}/write_samples.c)
cleave_target_defaults(vtk_write_samples)
target_link_libraries(vtk_write_samples PRIVATE cleave_internal)
add_test(NAME vtk_write_samples COMMAND vtk_write_samples ${CLEAVE_VTK_SAMPLES})
set_tests_properties(vtk_write_samples PROPERTIES FIXTURES_SETUP cleave_vtu_samples LABELS vtk TIMEOUT 60)

find_program(CLEAVE_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CLEAVE_SYSTEM_PYTHON)
  find_program(CLEAVE_SYSTEM_PYTHON python3)
endif()
if(CLEAVE_SYSTEM_PYTHON)
  add_test(NAME vtk_read_back COMMAND ${CLEAVE_SYSTEM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_vtu.py ${CLEAVE_VTK_SAMPLES})
  set_tests_properties(vtk_read_back PROPERTIES FIXTURES_REQUIRED cleave_vtu_samples SKIP_RETURN_CODE ${CLEAVE_SKIP_CODE}
                       LABELS vtk TIMEOUT 120)
else()
  message(STATUS "cleave: no python3 found; the VTK read-back test (vtk_read_back) is not registered")
endif()
