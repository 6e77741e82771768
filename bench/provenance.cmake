# provenance.cmake - writes rb_provenance.h: the commit ringbench was built from, whether the tree had
# uncommitted changes, and where the commit came from. Run at every build (cmake -P, from the
# rb_provenance target of the top-level CMakeLists.txt), so that a build directory configured once
# and built again after new commits records the new commit, not the one of its configure.
#
#   cmake -DSOURCE_DIR=... -DOUT=.../rb_provenance.h [-DSUPPLIED_COMMIT=...] [-DSUPPLIED_DIRTY=...]
#         -P provenance.cmake
#
# The commit is recorded only when SOURCE_DIR is itself the top of a git work tree: `git rev-parse`
# would otherwise walk up into whatever repository encloses a copy of the tree and record that
# repository's commit. A commit supplied by RINGBENCH_GIT_COMMIT (the environment at build time, or
# the CMake variable / configure-time environment passed in as SUPPLIED_COMMIT) is used for copies and
# tarballs, and wins over git. Otherwise everything is "unknown". configure_file writes the header only
# when its content changes, so an unchanged commit recompiles nothing.
#   RINGBENCH_GIT_COMMIT         e.g. $(git rev-parse --short=12 HEAD); "git_commit_source" is then "supplied"
#   RINGBENCH_GIT_DIRTY          yes / no, for a supplied commit (default unknown)
cmake_minimum_required(VERSION 3.25)

set(commit "unknown")
set(dirty "unknown")
set(source "unknown")

if(DEFINED ENV{RINGBENCH_GIT_COMMIT} AND NOT "$ENV{RINGBENCH_GIT_COMMIT}" STREQUAL "")
  set(SUPPLIED_COMMIT "$ENV{RINGBENCH_GIT_COMMIT}")
endif()
if(DEFINED ENV{RINGBENCH_GIT_DIRTY} AND NOT "$ENV{RINGBENCH_GIT_DIRTY}" STREQUAL "")
  set(SUPPLIED_DIRTY "$ENV{RINGBENCH_GIT_DIRTY}")
endif()

if(NOT "${SUPPLIED_COMMIT}" STREQUAL "")
  set(commit "${SUPPLIED_COMMIT}")
  set(source "supplied")
  if(SUPPLIED_DIRTY MATCHES "^(yes|no)$")
    set(dirty "${SUPPLIED_DIRTY}")
  endif()
else()
  find_program(GIT_EXECUTABLE git)
  if(GIT_EXECUTABLE)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                    OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    file(REAL_PATH "${SOURCE_DIR}" src_real)
    if(rc EQUAL 0 AND NOT top STREQUAL "")
      file(REAL_PATH "${top}" top_real)
    else()
      set(top_real "")
    endif()
    if(top_real STREQUAL src_real)
      execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                      OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
        set(commit "${head}")
        set(source "git")
        # Tracked files only: the build directories inside the tree are ignored, and a new source
        # file is compiled only once a tracked CMakeLists.txt names it.
        execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                        OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
        if(rc EQUAL 0 AND changes STREQUAL "")
          set(dirty "no")
        elseif(rc EQUAL 0)
          set(dirty "yes")
        endif()
      endif()
    endif()
  endif()
endif()

# Only characters that are safe inside a C string literal are kept in a supplied value.
string(REGEX REPLACE "[^A-Za-z0-9._+-]" "_" commit "${commit}")
set(RB_PROV_COMMIT "${commit}")
set(RB_PROV_DIRTY "${dirty}")
set(RB_PROV_SOURCE "${source}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/rb_provenance.h.in" "${OUT}" @ONLY)
