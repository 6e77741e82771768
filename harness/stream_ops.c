/* stream_ops.c - stream memory operations through the runtime's driver entry points (stream_ops.h). */
#define _POSIX_C_SOURCE 200809L
#include "stream_ops.h"

#include <pthread.h>
#include <stdio.h>

#include <cuda.h>

typedef CUresult (*write32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult (*wait32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static write32_fn g_write;
static wait32_fn g_wait;
static char g_missing[160];

/* The CUDA 12.0 versions of both (the _v2 functions): present in every driver this runs on. */
static void resolve(void)
{
    void *w = NULL, *v = NULL;
    enum cudaDriverEntryPointQueryResult qw = cudaDriverEntryPointSymbolNotFound, qv = qw;
    cudaError_t ew = cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &w, 12000, cudaEnableDefault, &qw);
    cudaError_t ev = cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &v, 12000, cudaEnableDefault, &qv);
    if (ew != cudaSuccess || ev != cudaSuccess || qw != cudaDriverEntryPointSuccess ||
        qv != cudaDriverEntryPointSuccess || !w || !v) {
        snprintf(g_missing, sizeof g_missing,
                 "the driver does not provide cuStreamWriteValue32/cuStreamWaitValue32 (%s)",
                 cudaGetErrorString(ew != cudaSuccess ? ew : ev));
        (void)cudaGetLastError();
        return;
    }
    g_write = (write32_fn)w;
    g_wait = (wait32_fn)v;
}

static int ready(char *why, size_t n)
{
    pthread_once(&g_once, resolve);
    if (g_write && g_wait)
        return 1;
    snprintf(why, n, "%s", g_missing);
    return 0;
}

static int driver_fail(const char *what, CUresult e, char *why, size_t n)
{
    snprintf(why, n, "%s failed: CUDA driver error %d", what, (int)e);
    return -1;
}

int stream_ops_write32(cudaStream_t stream, uint32_t *word, uint32_t value, char *why, size_t n)
{
    if (!ready(why, n))
        return -1;
    CUresult e = g_write((CUstream)stream, (CUdeviceptr)(uintptr_t)word, value, CU_STREAM_WRITE_VALUE_DEFAULT);
    return e == CUDA_SUCCESS ? 0 : driver_fail("cuStreamWriteValue32", e, why, n);
}

int stream_ops_wait_geq32(cudaStream_t stream, const uint32_t *word, uint32_t value, char *why, size_t n)
{
    if (!ready(why, n))
        return -1;
    CUresult e = g_wait((CUstream)stream, (CUdeviceptr)(uintptr_t)word, value, CU_STREAM_WAIT_VALUE_GEQ);
    return e == CUDA_SUCCESS ? 0 : driver_fail("cuStreamWaitValue32", e, why, n);
}

int stream_ops_try(cudaStream_t stream, uint32_t *word, char *why, size_t n)
{
    if (stream_ops_write32(stream, word, 1, why, n) != 0 || stream_ops_wait_geq32(stream, word, 1, why, n) != 0)
        return -1;
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        snprintf(why, n, "a stream write and wait did not complete: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return -1;
    }
    return 0;
}
