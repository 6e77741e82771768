# tests/results.cmake: the results module (results/): writer and reader round trip, damaged files.
set(rb_h5_work "${CMAKE_CURRENT_BINARY_DIR}/h5_work")
set(rb_h5_file "${rb_h5_work}/roundtrip.h5")

rb_add_test(test_h5_roundtrip SOURCES test_h5_roundtrip.c LIBS rb_results LABELS unit
            ARGS "${rb_h5_work}")
# The round trip leaves roundtrip.h5 behind for the tests of other readers below.
set_tests_properties(test_h5_roundtrip PROPERTIES FIXTURES_SETUP rb_h5_file)

rb_add_test(test_h5_damaged SOURCES test_h5_damaged.c LIBS rb_results LABELS unit
            ARGS "${rb_h5_work}")

