# Issue 53: nothing lost when a disk fills, a path is long, stdout fails or the platform never
# answers, on the CPU reference backend (tests/io_cli.sh says what each case checks).
foreach(what stdout fsize fulldisk longpath empty fault interrupt)
  add_test(NAME test_io_${what}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/io_cli.sh $<TARGET_FILE:ringbench>
                   ${CMAKE_CURRENT_BINARY_DIR}/io_${what} ${what} ${RINGBENCH_HAVE_JANSSON} ${RINGBENCH_HAVE_SQLITE})
  set_tests_properties(test_io_${what} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

# Issue 53: exports stream row by row. make_rows writes a results file of N rows fast (the fixture of
# this test, and of the 10^6-row benchmark in docs/schema.md); export_stream.sh exports it in every
# format and reads the exports back: every row once, in order, the lying ones marked damaged.
add_executable(make_rows make_rows.c)
target_link_libraries(make_rows PRIVATE rb_results)
add_test(NAME test_export_stream
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/export_stream.sh $<TARGET_FILE:ringbench> $<TARGET_FILE:make_rows>
                 ${CMAKE_CURRENT_BINARY_DIR}/export_stream ${RINGBENCH_HAVE_JANSSON})
set_tests_properties(test_export_stream PROPERTIES LABELS unit TIMEOUT 300)
