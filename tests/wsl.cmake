# WSL kind detection (harness/wsl.c) against fake machine trees.
rb_add_test(test_wsl2_detect SOURCES test_wsl2_detect.c LIBS rb_env LABELS unit)
