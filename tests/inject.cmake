# Issue 21: what WSL2 can do to the verdict, on the CPU reference backend (no GPU needed).
#   inject     --inject-call-us moves a round trip by calls x cost; the file says INJECTED in report,
#              compare and export; track refuses it; bad values are usage errors
#   limits     --platform-limits wsl2: managed modes unsupported with "limit applied", a pinned ceiling
#              from --pinned-ceiling, labelled LIMITS APPLIED everywhere, refused by track
#   sensitivity  `ringbench sensitivity` end to end on a tiny configuration: runs, report, break-even
foreach(what inject limits sensitivity)
  add_test(NAME test_wsl2_${what}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/inject_cli.sh $<TARGET_FILE:ringbench>
                   ${CMAKE_CURRENT_BINARY_DIR}/wsl2_${what} ${what} ${RINGBENCH_HAVE_JANSSON} ${RINGBENCH_HAVE_SQLITE})
  set_tests_properties(test_wsl2_${what} PROPERTIES LABELS unit TIMEOUT 900 SKIP_RETURN_CODE 77)
endforeach()
# Timing: the injected test compares round trips, so it runs with no other test beside it.
set_tests_properties(test_wsl2_inject PROPERTIES RUN_SERIAL ON)
