# House checks: rules about the source tree itself, each a shell script in tests/ (label unit, no GPU,
# no build outputs read except the ringbench binary for the README's generated tables). The rules that
# read git's list of tracked files are skipped (77) where the source is not the top of a git checkout.
set(rb_house ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_house_function_length COMMAND sh ${rb_house}/function_length.sh ${PROJECT_SOURCE_DIR})
add_test(NAME test_house_include_layering COMMAND sh ${rb_house}/include_layering.sh ${PROJECT_SOURCE_DIR})
# What the product's words may name: paths that exist and no removed lab path (paths); no commit hash
# in a comment or the README's prose (hashes).
foreach(rule paths hashes)
  add_test(NAME test_house_${rule} COMMAND sh ${rb_house}/house_text.sh ${rule} ${PROJECT_SOURCE_DIR})
endforeach()
# What the tree may hold: a README of at most 250 lines, no patch, every script run by a test or a
# target, committed data only in results/reference/ and tests/fixtures/, within its budget.
foreach(rule readme_lines no_patch scripts_used data_budget)
  add_test(NAME test_house_${rule} COMMAND sh ${rb_house}/house_tree.sh ${rule} ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_house_${rule} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
foreach(check function_length include_layering paths hashes readme_lines no_patch scripts_used data_budget)
  set_tests_properties(test_house_${check} PROPERTIES LABELS "unit" TIMEOUT 120)
endforeach()
# The README's modes table is generated from harness/modes.c and its commands table from bench/main.c's
# dispatch table; each test fails when the README's copy differs.
foreach(table modes commands)
  add_test(NAME test_house_${table}_doc
           COMMAND sh ${rb_house}/readme_tables.sh $<TARGET_FILE:ringbench> ${PROJECT_SOURCE_DIR}/README.md ${table})
  set_tests_properties(test_house_${table}_doc PROPERTIES LABELS "unit" TIMEOUT 60)
endforeach()
