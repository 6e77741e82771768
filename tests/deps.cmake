# The dependency step of `make bench` / `make test` (.ci/deps.sh) against fake dpkg-query, apt-get,
# sudo and id: missing packages named and installed, the one-line command and exit 2 without root.
add_test(NAME test_deps COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/deps_test.sh ${PROJECT_SOURCE_DIR}/.ci/deps.sh
                                ${CMAKE_CURRENT_BINARY_DIR}/deps_work)
set_tests_properties(test_deps PROPERTIES LABELS "unit" TIMEOUT 300) # a dozen CMake probes: slow on a busy machine
