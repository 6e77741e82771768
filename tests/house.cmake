# House checks: rules about the source tree itself, each a shell script in tests/ (label unit, no GPU,
# no build outputs read except the ringbench binary for the modes table).
foreach(check comment_paths function_length include_layering)
  add_test(NAME test_house_${check} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/${check}.sh ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_house_${check} PROPERTIES LABELS "unit" TIMEOUT 120)
endforeach()
# The tracked tree must fit the copy sent to the GPU machine (64 MiB); skipped (77) outside a git checkout.
add_test(NAME test_house_tree_size COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tree_size.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(test_house_tree_size PROPERTIES LABELS "unit" TIMEOUT 60 SKIP_RETURN_CODE 77)
# The README's modes table is generated from harness/modes.c; this fails when the two differ.
add_test(NAME test_house_modes_doc
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/modes_doc.sh $<TARGET_FILE:ringbench> ${PROJECT_SOURCE_DIR}/README.md)
set_tests_properties(test_house_modes_doc PROPERTIES LABELS "unit" TIMEOUT 60)
