# The order of a run's trials (bench/plan.c), compiled in directly: ringbench itself is an executable.
rb_add_test(test_plan SOURCES test_plan.c ${PROJECT_SOURCE_DIR}/bench/plan.c LIBS rb_ring LABELS unit)
target_include_directories(test_plan PRIVATE ${PROJECT_SOURCE_DIR}/bench)
# The run's time left (bench/eta.c), against runs whose every step's cost is known.
rb_add_test(test_eta SOURCES test_eta.c ${PROJECT_SOURCE_DIR}/bench/eta.c ${PROJECT_SOURCE_DIR}/bench/plan.c LIBS rb_ring
            LABELS unit)
target_include_directories(test_eta PRIVATE ${PROJECT_SOURCE_DIR}/bench)
