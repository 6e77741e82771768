# House checks: rules about the source tree itself, each a shell script in tests/ (label unit, no GPU,
# no build outputs read except the ringbench binary for the modes table).
foreach(check comment_paths function_length include_layering)
  add_test(NAME test_house_${check} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/${check}.sh ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_house_${check} PROPERTIES LABELS "unit" TIMEOUT 120)
endforeach()
# The README's modes table is generated from harness/modes.c and its commands table from bench/main.c's
# dispatch table; each test fails when the README's copy differs.
foreach(table modes commands)
  add_test(NAME test_house_${table}_doc
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/readme_tables.sh $<TARGET_FILE:ringbench>
                   ${PROJECT_SOURCE_DIR}/README.md ${table})
  set_tests_properties(test_house_${table}_doc PROPERTIES LABELS "unit" TIMEOUT 60)
endforeach()
