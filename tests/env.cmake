rb_add_test(test_env SOURCES test_env.c LIBS rb_env LABELS unit)
