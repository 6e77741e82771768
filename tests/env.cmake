rb_add_test(test_env SOURCES test_env.c LIBS rb_env LABELS unit)
rb_add_test(test_hostload SOURCES test_hostload.c LIBS rb_env LABELS unit)
