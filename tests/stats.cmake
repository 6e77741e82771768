# Statistics: percentiles, the median CI, the stopping rule and the bootstrap, against known answers.
rb_add_test(test_stats SOURCES test_stats.c LIBS rb_stats LABELS unit)
