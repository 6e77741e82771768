# tests/results.cmake: the results module (results/): writer and reader round trip, damaged files,
# and the files read by other tools (h5dump, Python h5py), which is what docs/schema.md promises. The
# schema-1 file the reader must still open is a fixture (tests/fixtures/README.md).
set(rb_h5_work "${CMAKE_CURRENT_BINARY_DIR}/h5_work")
set(rb_h5_file "${rb_h5_work}/roundtrip.h5")

rb_add_test(test_h5_roundtrip SOURCES test_h5_roundtrip.c LIBS rb_results LABELS unit
            ARGS "${rb_h5_work}" "${CMAKE_CURRENT_SOURCE_DIR}/fixtures/h100-schema1.h5")
# The round trip leaves roundtrip.h5 behind for the tests of other readers below.
set_tests_properties(test_h5_roundtrip PROPERTIES FIXTURES_SETUP rb_h5_file)

rb_add_test(test_h5_damaged SOURCES test_h5_damaged.c LIBS rb_results LABELS unit
            ARGS "${rb_h5_work}")

# SHA-256, the content key of a run in a history, against the FIPS 180-2 vectors.
rb_add_test(test_sha256 SOURCES test_sha256.c LIBS rb_results LABELS unit)

# h5dump (hdf5-tools) must be able to show the header of the file: groups, the table, attributes.
find_program(RB_H5DUMP h5dump)
if(RB_H5DUMP)
  add_test(NAME test_h5_dump COMMAND ${RB_H5DUMP} -H "${rb_h5_file}")
  set_tests_properties(test_h5_dump PROPERTIES
    PASS_REGULAR_EXPRESSION "ATTRIBUTE \"schema_version\".*DATASET \"cells\".*ATTRIBUTE \"families\".*GROUP \"provenance\".*GROUP \"samples\""
    FAIL_REGULAR_EXPRESSION "h5dump error")
else()
  add_test(NAME test_h5_dump COMMAND sh -c "echo 'h5dump not found (install hdf5-tools): skipped'; exit 77")
endif()
set_tests_properties(test_h5_dump PROPERTIES LABELS unit FIXTURES_REQUIRED rb_h5_file SKIP_RETURN_CODE 77)

# The Python reading recipe of docs/schema.md, with the first python3 that has h5py (a pyenv or venv
# python3 often lacks it where the distribution's /usr/bin/python3 has it).
if(NOT DEFINED RB_PYTHON_H5PY)
  set(RB_PYTHON_H5PY "")
  find_program(rb_python3_in_path python3)
  foreach(py ${rb_python3_in_path} /usr/bin/python3)
    if(py AND NOT RB_PYTHON_H5PY)
      execute_process(COMMAND ${py} -c "import h5py, numpy" RESULT_VARIABLE rb_py_rc OUTPUT_QUIET ERROR_QUIET)
      if(rb_py_rc EQUAL 0)
        set(RB_PYTHON_H5PY "${py}")
      endif()
    endif()
  endforeach()
  set(RB_PYTHON_H5PY "${RB_PYTHON_H5PY}" CACHE STRING "python3 with h5py for test_h5_python ('' = skip)")
endif()
if(RB_PYTHON_H5PY)
  add_test(NAME test_h5_python
           COMMAND ${RB_PYTHON_H5PY} "${CMAKE_CURRENT_SOURCE_DIR}/read_results.py" "${rb_h5_file}"
                   "${PROJECT_SOURCE_DIR}/results/schema.h")
else()
  add_test(NAME test_h5_python COMMAND sh -c "echo 'no python3 with h5py found: skipped'; exit 77")
endif()
set_tests_properties(test_h5_python PROPERTIES LABELS unit FIXTURES_REQUIRED rb_h5_file SKIP_RETURN_CODE 77)
