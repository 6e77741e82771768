/* cuda_check.h - the one way ringbench host code checks a CUDA runtime call.
 *
 * CUDA_TRY(buf, call, label) runs call; on failure it writes "call failed: cudaErrorX (text) at
 * file:line" into buf (a char array) and jumps to label. Library code returns a status from there;
 * it never exits.
 */
#ifndef RINGBENCH_CUDA_CHECK_H
#define RINGBENCH_CUDA_CHECK_H

#include <stdio.h>
#include <cuda_runtime_api.h>

#include "timing.h"

static inline void cuda_check_describe(char *buf, size_t n, const char *call, cudaError_t e, const char *file, int line)
{
    const char *base = file;
    for (const char *p = file; *p; p++)
        if (*p == '/')
            base = p + 1;
    snprintf(buf, n, "%s failed: %s (%s) at %s:%d", call, cudaGetErrorName(e), cudaGetErrorString(e), base, line);
}

/* Waits for a stream without trusting it to finish: a kernel that never ends must not hang us.
 * Returns the stream's status, or cudaErrorNotReady when it was still busy after `seconds`. */
static inline cudaError_t cuda_check_stream_wait(cudaStream_t st, double seconds)
{
    const uint64_t t0 = timing_now_ns();
    for (;;) {
        cudaError_t e = cudaStreamQuery(st);
        if (e != cudaErrorNotReady)
            return e;
        if (timing_seconds_since(t0) > seconds)
            return cudaErrorNotReady;
    }
}

#define CUDA_TRY(buf, call, label)                                                           \
    do {                                                                                     \
        cudaError_t cuda_try_e_ = (call);                                                    \
        if (cuda_try_e_ != cudaSuccess) {                                                    \
            cuda_check_describe((buf), sizeof(buf), #call, cuda_try_e_, __FILE__, __LINE__); \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

#endif
