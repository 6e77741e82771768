# The kernel-lifetime policy run and anatomy share (harness/lifetime.c).
rb_add_test(test_lifetime SOURCES test_lifetime.c LIBS rb_env LABELS unit)
