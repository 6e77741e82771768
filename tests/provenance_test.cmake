# provenance_test.cmake - cmake/provenance.cmake on throw-away trees: a copy of the source inside
# another git repository records "unknown" (never the outer repository's commit) or the supplied
# commit; a tree that is the top of its own repository records its HEAD and whether it is dirty.
#   cmake -DSCRIPT=.../cmake/provenance.cmake -DWORK=<scratch dir> -P provenance_test.cmake
# Stops with an error message on the first failed check; prints "SKIP: no git" (CTest: skipped) without git.
cmake_minimum_required(VERSION 3.25)

# tests/CMakeLists.txt includes every tests/*.cmake at configure time: then this file only registers
# itself as the test; it runs in script mode (cmake -P) when CTest runs it.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  add_test(NAME test_provenance
           COMMAND ${CMAKE_COMMAND} -DSCRIPT=${PROJECT_SOURCE_DIR}/cmake/provenance.cmake
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/provenance_work -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties(test_provenance PROPERTIES LABELS "unit" TIMEOUT 60 SKIP_REGULAR_EXPRESSION "SKIP: no git")
  return()
endif()
if(NOT IS_ABSOLUTE "${WORK}" OR NOT EXISTS "${SCRIPT}")
  message(FATAL_ERROR "usage: cmake -DSCRIPT=.../provenance.cmake -DWORK=<absolute scratch dir> -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
find_program(GIT git)
if(NOT GIT)
  message("SKIP: no git")
  return()
endif()
unset(ENV{RINGBENCH_GIT_COMMIT})
unset(ENV{RINGBENCH_GIT_DIRTY})
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ENV{GIT_CONFIG_NOSYSTEM} 1)
set(ENV{HOME} "${WORK}") # no user configuration, and an identity for the commits below
set(ENV{GIT_AUTHOR_NAME} t)
set(ENV{GIT_AUTHOR_EMAIL} t@example.com)
set(ENV{GIT_COMMITTER_NAME} t)
set(ENV{GIT_COMMITTER_EMAIL} t@example.com)

function(git dir)
  execute_process(COMMAND "${GIT}" -C "${dir}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ${ARGN} in ${dir}: ${err}")
  endif()
  set(git_out "${out}" PARENT_SCOPE)
endfunction()

# check(NAME SOURCE_DIR COMMIT DIRTY SOURCE [-DVAR=value...]): runs the script, compares the header.
function(check name src want_commit want_dirty want_source)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${src} -DOUT=${WORK}/${name}.h ${ARGN} -P "${SCRIPT}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: provenance.cmake failed: ${err}")
  endif()
  file(READ "${WORK}/${name}.h" h)
  foreach(pair "COMMIT \"${want_commit}\"" "DIRTY \"${want_dirty}\"" "COMMIT_SOURCE \"${want_source}\"")
    string(FIND "${h}" "#define RINGBENCH_GIT_${pair}" at)
    if(at LESS 0)
      message(FATAL_ERROR "${name}: wanted RINGBENCH_GIT_${pair}, got:\n${h}")
    endif()
  endforeach()
  message(STATUS "ok: ${name}")
endfunction()

# An outer repository with a commit, holding a copy of the source tree (one file is enough) that
# is not a repository of its own: what a tree copied into someone's project, or a GPU machine's
# checkout of a bigger repository, looks like.
set(outer "${WORK}/outer")
set(copy "${outer}/vendor/ringbench")
file(MAKE_DIRECTORY "${copy}")
file(WRITE "${copy}/CMakeLists.txt" "# a copy\n")
git("${WORK}" init -q "${outer}")
git("${outer}" add -A)
git("${outer}" commit -q -m outer)
git("${outer}" rev-parse --short=12 HEAD)
set(outer_head "${git_out}")
check(copy_in_outer "${copy}" unknown unknown unknown)
check(copy_supplied "${copy}" 0123abcd unknown supplied -DSUPPLIED_COMMIT=0123abcd)
check(copy_supplied_dirty "${copy}" 0123abcd no supplied -DSUPPLIED_COMMIT=0123abcd -DSUPPLIED_DIRTY=no)
set(ENV{RINGBENCH_GIT_COMMIT} fromenv1)
check(copy_env "${copy}" fromenv1 unknown supplied)
unset(ENV{RINGBENCH_GIT_COMMIT})
# A subdirectory of the outer repository's own tree is not the top of a work tree either.
check(outer_subdir "${outer}/vendor" unknown unknown unknown)

# A tree that is the top of its own repository: its HEAD, clean, then dirty.
set(own "${WORK}/own")
file(MAKE_DIRECTORY "${own}")
file(WRITE "${own}/a.c" "int a;\n")
git("${WORK}" init -q "${own}")
git("${own}" add -A)
git("${own}" commit -q -m own)
git("${own}" rev-parse --short=12 HEAD)
set(own_head "${git_out}")
if(own_head STREQUAL outer_head)
  message(FATAL_ERROR "two repositories with one commit id")
endif()
file(WRITE "${own}/untracked.txt" "build output\n")
check(own_clean "${own}" "${own_head}" no git)
file(APPEND "${own}/a.c" "int b;\n")
check(own_dirty "${own}" "${own_head}" yes git)
# Reached through a symbolic link, it is still the top of its tree.
file(CREATE_LINK "${own}" "${WORK}/link" SYMBOLIC)
check(own_link "${WORK}/link" "${own_head}" yes git)

# No repository anywhere above: a directory under / that git cannot walk up from into ours.
set(ENV{GIT_CEILING_DIRECTORIES} "${WORK}")
file(MAKE_DIRECTORY "${WORK}/bare")
check(no_repo "${WORK}/bare" unknown unknown unknown)
