# README.md's answer table against `ringbench report REF --answer` on the committed reference run (issue
# 52). RINGBENCH_REFERENCE_RUN, the one name of the reference run, is set in the top-level CMakeLists.txt.
add_test(NAME test_readme_answer
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/answer_test.sh $<TARGET_FILE:ringbench> ${PROJECT_SOURCE_DIR}/README.md
                 ${RINGBENCH_REFERENCE_RUN})
set_tests_properties(test_readme_answer PROPERTIES LABELS unit TIMEOUT 120)
