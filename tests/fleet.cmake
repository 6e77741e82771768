# A history shared by many machines (issue 54): the fleet's reading of a history on its pure functions
# (test_fleet), and `ringbench track` end to end on a folder history and on a throwaway PostgreSQL
# server (tests/pg_cluster.sh), the same cases on both where they apply (tests/fleet_cli.sh says which).
if(RINGBENCH_HAVE_SQLITE)
  rb_add_test(test_fleet SOURCES test_fleet.c LIBS rb_fleet LABELS unit)
  # The nights of a synthetic fleet (report_fixture.c's files), for fleet_cli.sh and the benchmarks.
  add_executable(fleet_fixture fleet_fixture.c report_fixture.c)
  target_include_directories(fleet_fixture PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(fleet_fixture PRIVATE rb_report rb_results rb_stats)
  # Ten nights of the two machines, the WSL2 one's control-block read 1.6x from night 5 (beside a
  # driver change), written once for both backends' tests (writing a results file takes seconds).
  set(rb_nights ${CMAKE_CURRENT_BINARY_DIR}/fleet_nights)
  add_test(NAME fleet_nights COMMAND ${CMAKE_COMMAND} -E env sh -c
           "rm -rf '${rb_nights}' && exec '$<TARGET_FILE:fleet_fixture>' '${rb_nights}' 10 5")
  set_tests_properties(fleet_nights PROPERTIES LABELS unit FIXTURES_SETUP fleet_nights TIMEOUT 600)
  foreach(backend sqlite pg)
    add_test(NAME test_fleet_cli_${backend}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fleet_cli.sh $<TARGET_FILE:ringbench> ${rb_nights}
                     ${CMAKE_CURRENT_BINARY_DIR}/fleet_cli_${backend} ${backend} ${RINGBENCH_HAVE_LIBPQ})
    set_tests_properties(test_fleet_cli_${backend} PROPERTIES LABELS unit TIMEOUT 900 SKIP_RETURN_CODE 77
                         FIXTURES_REQUIRED fleet_nights)
  endforeach()
else()
  foreach(t test_fleet test_fleet_cli_sqlite test_fleet_cli_pg)
    add_test(NAME ${t} COMMAND sh -c "echo 'built without SQLite (libsqlite3-dev): skipped'; exit 77")
    set_tests_properties(${t} PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
  endforeach()
endif()
