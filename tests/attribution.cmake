# Calls x cost attribution and the per-call overhead MODEL (harness/attribution.c), on synthetic rows.
rb_add_test(test_attribution SOURCES test_attribution.c LIBS rb_attr LABELS unit)
