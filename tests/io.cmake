# Issue 53: nothing lost when a disk fills, a path is long, stdout fails or the platform never
# answers, on the CPU reference backend (tests/io_cli.sh says what each case checks).
foreach(what stdout fsize fulldisk longpath empty fault interrupt)
  add_test(NAME test_io_${what}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io_cli.sh $<TARGET_FILE:ringbench>
                   ${CMAKE_CURRENT_BINARY_DIR}/io_${what} ${what} ${RINGBENCH_HAVE_JANSSON} ${RINGBENCH_HAVE_SQLITE})
  set_tests_properties(test_io_${what} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
