# The CUDA call counting layer (harness/cuda_calls.h) and the counts per mode on the CPU backend.
rb_add_test(test_cuda_calls SOURCES test_cuda_calls.c LIBS rb_ring LABELS unit)
rb_add_test(test_call_counts SOURCES test_call_counts.c LIBS rb_ring LABELS unit)
# schema.c compiled in directly: the check needs the family table, not the HDF5 writer.
rb_add_test(test_call_families SOURCES test_call_families.c ${PROJECT_SOURCE_DIR}/results/schema.c LIBS rb_ring
            LABELS unit)
target_include_directories(test_call_families PRIVATE ${PROJECT_SOURCE_DIR}/results)
