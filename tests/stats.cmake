# Statistics: percentiles, the median CI, the stopping rule and the bootstrap, against known answers.
rb_add_test(test_stats SOURCES test_stats.c LIBS rb_stats LABELS unit)
# The coverage of the trial-level interval over many simulated cells: the same program, its slow half.
add_test(NAME test_stats_coverage COMMAND test_stats coverage)
set_tests_properties(test_stats_coverage PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 900)
# The sampling loop (harness/measure.c): warm-up, samples, batched samples (--cb-batch).
rb_add_test(test_measure SOURCES test_measure.c LIBS rb_ring LABELS unit)
# The headline figures (harness/headline.h): which cells, the one ratio, missing cells said with why.
rb_add_test(test_headline SOURCES test_headline.c LIBS rb_headline LABELS unit)
