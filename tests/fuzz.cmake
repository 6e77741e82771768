# tests/fuzz.cmake: libFuzzer targets for the file readers (fuzz_readers.c: report, compare, export,
# track), built when RINGBENCH_FUZZ is ON (a clang build; every C target is then instrumented, under
# ASan + UBSan: use a build directory of its own, `make test-fuzz`). Label `fuzz`: a seed corpus from
# a tiny CPU run (fuzz_seeds.sh), then each target for RINGBENCH_FUZZ_SECONDS. A finding fails the
# test and leaves its input as crash-*/timeout-*/leak-* in the target's corpus directory.
if(RINGBENCH_FUZZ)
  set(rb_fuzz_work "${CMAKE_CURRENT_BINARY_DIR}/fuzz")
  add_test(NAME fuzz_seeds COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_seeds.sh $<TARGET_FILE:ringbench>
                                   "${rb_fuzz_work}/seeds")
  set_tests_properties(fuzz_seeds PROPERTIES LABELS fuzz FIXTURES_SETUP rb_fuzz_seeds TIMEOUT 300)
  set(rb_fuzz_targets report compare export)
  if(RINGBENCH_HAVE_SQLITE)
    list(APPEND rb_fuzz_targets track)
  endif()
  foreach(t ${rb_fuzz_targets})
    string(TOUPPER ${t} T)
    add_executable(fuzz_${t} fuzz_readers.c)
    target_compile_definitions(fuzz_${t} PRIVATE FUZZ_TARGET=FUZZ_${T})
    target_link_libraries(fuzz_${t} PRIVATE rb_report rb_export)
    if(t STREQUAL "track")
      target_link_libraries(fuzz_${t} PRIVATE rb_trackreport)
    endif()
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    # -close_fd_mask=3: the commands' own output would drown libFuzzer's. -timeout: one input taking
    # longer is a hang. The corpus directory keeps what the run found, for the next one.
    add_test(NAME fuzz_${t}
             COMMAND sh -c "mkdir -p \"$1\" && cd \"$1\" && exec \"$0\" -max_total_time=${RINGBENCH_FUZZ_SECONDS} -timeout=20 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \"$1\" \"$2\""
                     $<TARGET_FILE:fuzz_${t}> "${rb_fuzz_work}/corpus_${t}" "${rb_fuzz_work}/seeds")
    set_tests_properties(fuzz_${t} PROPERTIES LABELS fuzz FIXTURES_REQUIRED rb_fuzz_seeds
                         TIMEOUT 600 ENVIRONMENT "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1;LSAN_OPTIONS=print_suppressions=0")
  endforeach()
endif()
