# Tracking: the regression detector on synthetic histories (false-alarm and detection rates).
rb_add_test(test_track_detect SOURCES test_track_detect.c LIBS rb_track LABELS unit)
