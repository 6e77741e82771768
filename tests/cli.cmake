# The ringbench command line end to end, on the CPU reference backend (no GPU needed): a quick run
# read back by h5dump, h5py and the report; an interrupted run; the full-window leg in fresh processes;
# every documented error path; the option grammar every command shares.
foreach(what output quick interrupt placement anatomy badinput grammar sizes procs)
  add_test(NAME test_cli_${what}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh $<TARGET_FILE:ringbench>
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_${what} ${what} "${RB_PYTHON_H5PY}"
                   ${PROJECT_SOURCE_DIR}/results/schema.h)
  set_tests_properties(test_cli_${what} PROPERTIES LABELS "unit" TIMEOUT 900)
endforeach()
