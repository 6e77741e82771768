# House checks: rules about the source tree itself, each a shell script in tests/ (label unit, no GPU).
# The README's modes table is generated from harness/modes.c; this fails when the two differ.
add_test(NAME test_house_modes_doc
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/modes_doc.sh $<TARGET_FILE:ringbench> ${PROJECT_SOURCE_DIR}/README.md)
set_tests_properties(test_house_modes_doc PROPERTIES LABELS "unit" TIMEOUT 60)
