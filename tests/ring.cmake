# The ring protocol and runtime (harness/ring*.c, kernels/ring_protocol.h).
rb_add_test(test_ring_cpu SOURCES test_ring_cpu.c LIBS rb_ring LABELS unit)

# Every mode combination on a real device: one CTest test per combination (invalid ones are not
# registered; unsupported ones, and machines without a CUDA device, exit 77 = skipped).
if(RINGBENCH_HAVE_CUDA)
  add_executable(test_ring_gpu test_ring_gpu.c)
  target_include_directories(test_ring_gpu PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_ring_gpu PRIVATE rb_ring)
  foreach(m pinned/zerocopy/coop/mapped malloc/sync/noncoop/device)
    string(REPLACE "/" "_" mname ${m})
    add_test(NAME gpu_ring_lifetime_${mname} COMMAND test_ring_gpu --lifetime ${m})
    set_tests_properties(gpu_ring_lifetime_${mname} PROPERTIES
                         LABELS "gpu" SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK gpu)
  endforeach()
  # A relaunch takes nothing the last launch left in its input ring: in host memory (zero-copy) or in
  # the device's (copy modes).
  foreach(m pinned/zerocopy/coop/mapped pinned/async/coop/mapped malloc/sync/noncoop/device)
    string(REPLACE "/" "_" mname ${m})
    add_test(NAME gpu_ring_relaunch_${mname} COMMAND test_ring_gpu --relaunch ${m})
    set_tests_properties(gpu_ring_relaunch_${mname} PROPERTIES
                         LABELS "gpu" SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK gpu)
  endforeach()
  # A platform that fails (issue 53): replies that never come, come late or come stale, on the real
  # kernel's leader and warp paths, in a zero-copy, a copy and a staged mode (test_ring_gpu --faults).
  foreach(m pinned/zerocopy/coop/mapped pinned/async/noncoop/managed malloc/sync/noncoop/device)
    string(REPLACE "/" "_" mname ${m})
    add_test(NAME gpu_ring_faults_${mname} COMMAND test_ring_gpu --faults ${m})
    set_tests_properties(gpu_ring_faults_${mname} PROPERTIES
                         LABELS "gpu" SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK gpu)
  endforeach()
  # The protocol's other paths on modes that would otherwise not take them (FLAG:MODE): without the
  # early take (every message waits for in_tail), with stream ops (ring_config.stream_ops), with
  # the kernel's trace on (ring_config.trace, checked against what was sent), the leader's split
  # of a zero-copy window seen in the trace (none in a copy mode or without the leader's reply), and
  # inputs damaged on purpose, which every path of the kernel must flag (RING_FAULT_BAD_INPUT).
  foreach(t plain:pinned/async/coop/mapped plain:pinned/zerocopy/noncoop/managed
            bad-input:pinned/zerocopy/coop/mapped bad-input:pinned/async/noncoop/device
            bad-input:malloc/sync/noncoop/device
            stream-ops:pinned/async/coop/mapped stream-ops:pinned/async/noncoop/managed
            trace:pinned/zerocopy/noncoop/mapped trace:pinned/async/coop/device
            split:pinned/zerocopy/noncoop/mapped split:pinned/zerocopy/coop/managed split:pinned/async/coop/mapped)
    string(REPLACE ":" ";" parts ${t})
    list(GET parts 0 flag)
    list(GET parts 1 m)
    string(REPLACE "/" "_" mname ${m})
    string(REPLACE "-" "" fname ${flag})
    add_test(NAME gpu_ring_${fname}_${mname} COMMAND test_ring_gpu --${flag} ${m})
    set_tests_properties(gpu_ring_${fname}_${mname} PROPERTIES
                         LABELS "gpu" SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK gpu)
  endforeach()
  foreach(host pinned malloc)
    foreach(xfer async sync zerocopy)
      foreach(launch coop noncoop)
        foreach(ctrl managed device mapped)
          if(host STREQUAL "malloc" AND (ctrl STREQUAL "mapped" OR xfer STREQUAL "zerocopy"))
            continue()
          endif()
          add_test(NAME gpu_ring_${host}_${xfer}_${launch}_${ctrl}
                   COMMAND test_ring_gpu ${host}/${xfer}/${launch}/${ctrl})
          set_tests_properties(gpu_ring_${host}_${xfer}_${launch}_${ctrl} PROPERTIES
                               LABELS "gpu" SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK gpu)
        endforeach()
      endforeach()
    endforeach()
  endforeach()
else()
  # Built without nvcc: the GPU tests cannot exist, and CTest says so as one skipped test rather
  # than leaving no trace of them.
  add_test(NAME gpu_ring_not_built
           COMMAND sh -c "echo 'built without CUDA (no nvcc when configured): the GPU tests were not built; skipped'; exit 77")
  set_tests_properties(gpu_ring_not_built PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77)
endif()

# The host's worker pool (harness/pool.c): pieces done once, passes that do not wait for absent workers.
rb_add_test(test_pool SOURCES test_pool.c LIBS rb_ring LABELS unit)
