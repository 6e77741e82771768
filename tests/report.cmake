# tests/report.cmake: `ringbench report` and `ringbench compare` (bench/cmd_*.c, plots/) against synthetic results
# files with known answers (report_fixture.c). One program, one CTest test per case. The render case
# needs gnuplot and exits 77 (skipped) without it; the others need nothing but HDF5.
# Run under -DRINGBENCH_SANITIZE=address too: damaged files must not make the report touch bad memory.
set(rb_report_work "${CMAKE_CURRENT_BINARY_DIR}/report_work")
# The commands' own files (bench/cmd_report.c, cmd_compare.c, cli.c) are built in, so that the tests
# drive report and compare through their real option parsing.
rb_add_test(test_report_content SOURCES test_report.c report_fixture.c ${PROJECT_SOURCE_DIR}/bench/cmd_report.c
                                        ${PROJECT_SOURCE_DIR}/bench/cmd_compare.c ${PROJECT_SOURCE_DIR}/bench/cli.c
            LIBS rb_report rb_results rb_stats LABELS unit ARGS content "${rb_report_work}")
target_include_directories(test_report_content PRIVATE ${PROJECT_SOURCE_DIR}/bench)
foreach(case render compare damaged paths nognuplot trials hostile modes slowtrials windows headline)
  add_test(NAME test_report_${case} COMMAND test_report_content ${case} "${rb_report_work}")
  set_tests_properties(test_report_${case} PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()
