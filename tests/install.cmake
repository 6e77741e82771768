# `make install`'s rules (bench/CMakeLists.txt) into a scratch prefix, then the installed binary run
# from there: it must exist under PREFIX/bin and say this build's version.
add_test(NAME test_install
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/install_prefix ${PROJECT_VERSION})
set_tests_properties(test_install PROPERTIES LABELS "unit" TIMEOUT 60)
