# Tracking: the regression detector on synthetic histories (false-alarm and detection rates).
rb_add_test(test_track_detect SOURCES test_track_detect.c LIBS rb_track rb_stats LABELS unit)

# The run history (SQLite index, fingerprints, damaged files, rebuilds) on synthetic run files.
if(RINGBENCH_HAVE_SQLITE)
  rb_add_test(test_history SOURCES test_history.c LIBS rb_trackreport LABELS unit
              ARGS "${CMAKE_CURRENT_BINARY_DIR}")
else()
  add_test(NAME test_history COMMAND sh -c "echo 'built without SQLite (libsqlite3-dev): skipped'; exit 77")
  set_tests_properties(test_history PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
endif()

# Issue 53: several `track` jobs on one history at once, and jobs killed half-way (history_jobs.sh
# says what each case checks); history_check reads the folder and its index as the jobs left them.
if(RINGBENCH_HAVE_SQLITE)
  add_executable(history_check history_check.c)
  target_link_libraries(history_check PRIVATE rb_history SQLite::SQLite3)
  # Under a sanitizer every job runs 2-5 times slower: the kill rounds (40, which the leftover sweep
  # needs to be caught at all) are the plain build's; a sanitizer build runs 15 of them for what the
  # sanitizer itself catches.
  set(kill_rounds 40)
  if(NOT RINGBENCH_SANITIZE STREQUAL "")
    set(kill_rounds 15)
  endif()
  foreach(what concurrent kill)
    set(rounds 20)
    if(what STREQUAL "kill")
      set(rounds ${kill_rounds})
    endif()
    add_test(NAME test_history_jobs_${what}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/history_jobs.sh $<TARGET_FILE:ringbench>
                     $<TARGET_FILE:history_check> $<TARGET_FILE:make_rows>
                     ${CMAKE_CURRENT_BINARY_DIR}/history_jobs_${what} ${what} ${rounds})
    set_tests_properties(test_history_jobs_${what} PROPERTIES LABELS unit TIMEOUT 450)
  endforeach()
endif()

# export and track end to end on a tiny CPU run: BMF shape, CSV read back by pandas, exit codes.
foreach(what export pandas track)
  add_test(NAME test_track_cli_${what}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/track_cli.sh $<TARGET_FILE:ringbench>
                   ${CMAKE_CURRENT_BINARY_DIR}/track_cli_${what} ${what} ${RINGBENCH_HAVE_JANSSON})
  set_tests_properties(test_track_cli_${what} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

# The nightly's terminal output, exit status and history page on a synthetic quiet machine
# (make_night.c): twelve quiet nights, then the async path's 8 B round trips 15 % slower.
add_executable(make_night make_night.c)
target_link_libraries(make_night PRIVATE rb_results)
add_test(NAME test_track_cli_nightly
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/track_cli.sh $<TARGET_FILE:ringbench>
                 ${CMAKE_CURRENT_BINARY_DIR}/track_cli_nightly nightly ${RINGBENCH_HAVE_JANSSON} $<TARGET_FILE:make_night>)
set_tests_properties(test_track_cli_nightly PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)

# Every optional feature whose library is installed is built: a listed Debian package present (dpkg)
# while its feature is OFF in this build fails (the configure missed it, as it once missed jansson
# without pkg-config). Skipped (77) where there is no dpkg-query.
add_test(NAME test_features
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/features_test.sh ${PROJECT_SOURCE_DIR}/.ci/packages
                 "sqlite=${RINGBENCH_HAVE_SQLITE}" "libpq=${RINGBENCH_HAVE_LIBPQ}" "jansson=${RINGBENCH_HAVE_JANSSON}" "hdf5=ON")
set_tests_properties(test_features PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 30)
