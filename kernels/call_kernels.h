/* call_kernels.h - the launcher of the empty kernel the per-call cost baselines time
 * (harness/baselines.c, baselines_call: call_launch_empty, call_launch_sync). */
#ifndef RINGBENCH_CALL_KERNELS_H
#define RINGBENCH_CALL_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One block of one thread that does nothing, on stream: the cost of a launch itself. Returns the
 * launch's error (cudaSuccess when it was accepted). */
cudaError_t rb_empty_launch(cudaStream_t stream);

/* Loads the kernel now (never lazily while a persistent kernel runs, see ring_kernel_prepare). */
cudaError_t rb_empty_prepare(void);

#ifdef __cplusplus
}
#endif

#endif
