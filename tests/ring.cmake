# The ring protocol and runtime (harness/ring*.c, kernels/ring_protocol.h).
rb_add_test(test_ring_cpu SOURCES test_ring_cpu.c LIBS rb_ring LABELS unit)
