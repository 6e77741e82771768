/* probe.c - capability probe (see probe.h). Without CUDA built in, it says so and nothing runs on
 * the CUDA backend. */
#include "probe.h"

#include <stdio.h>
#include <string.h>

#ifdef RINGBENCH_HAVE_CUDA
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cuda_check.h"
#include "ring_kernel.h"
#include "stream_ops.h"

static int attr(int dev, enum cudaDeviceAttr a)
{
    int v = -1;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess)
        return -1;
    return v;
}

/* Each allocation test allocates and frees 1 MiB; a refusal is recorded with its error. */
static void probe_allocations(rb_caps *c)
{
    void *p = NULL, *d = NULL;
    c->pinned_ok = c->mapped_ok = c->managed_ok = 0;
    CUDA_TRY(c->pinned_error, cudaHostAlloc(&p, 1 << 20, cudaHostAllocDefault), pinned_done);
    c->pinned_ok = 1;
    cudaFreeHost(p);
pinned_done:
    p = NULL;
    CUDA_TRY(c->mapped_error, cudaHostAlloc(&p, 1 << 20, cudaHostAllocMapped), mapped_done);
    CUDA_TRY(c->mapped_error, cudaHostGetDevicePointer(&d, p, 0), mapped_free);
    c->mapped_ok = 1;
mapped_free:
    cudaFreeHost(p);
mapped_done:
    p = NULL;
    CUDA_TRY(c->managed_error, cudaMallocManaged(&p, 1 << 20, cudaMemAttachGlobal), managed_done);
    c->managed_ok = 1;
    cudaFree(p);
managed_done:
    (void)cudaGetLastError(); /* a refused allocation must not leave an error for the next call */
}

/* A stream writes a mapped word and waits for it, as an idle async ring does (ring.h stream_ops). */
static void probe_stream_ops(rb_caps *c)
{
    void *p = NULL, *d = NULL;
    cudaStream_t st = NULL;
    c->stream_ops_ok = 0;
    CUDA_TRY(c->stream_ops_error, cudaHostAlloc(&p, 4096, cudaHostAllocMapped), done);
    memset(p, 0, 4096);
    CUDA_TRY(c->stream_ops_error, cudaHostGetDevicePointer(&d, p, 0), done);
    CUDA_TRY(c->stream_ops_error, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), done);
    c->stream_ops_ok = rb_stream_ops_try(st, d, c->stream_ops_error, sizeof c->stream_ops_error) == 0 &&
                       *(volatile uint32_t *)p == 1;
    if (!c->stream_ops_ok && !c->stream_ops_error[0])
        snprintf(c->stream_ops_error, sizeof c->stream_ops_error, "the stream's write did not reach the host");
done:
    if (st)
        cudaStreamDestroy(st);
    if (p)
        cudaFreeHost(p);
    (void)cudaGetLastError();
}

int rb_probe(int device, rb_caps *c)
{
    /* Load every module when the context is created: a module loaded lazily while a persistent
     * kernel occupies the GPU can deadlock (a known failure of spin-kernel benchmarks). */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    memset(c, 0, sizeof *c);
    c->device = device;
    c->can_map_host_memory = c->concurrent_managed_access = c->pageable_memory_access = -1;
    c->cooperative_launch = c->host_native_atomic = c->direct_managed_from_host = -1;
    c->async_engine_count = c->unified_addressing = -1;
    cudaRuntimeGetVersion(&c->runtime_version);
    CUDA_TRY(c->cuda_error, cudaGetDeviceCount(&c->device_count), out);
    if (device < 0 || device >= c->device_count) {
        snprintf(c->cuda_error, sizeof c->cuda_error, "no CUDA device %d (%d found)", device, c->device_count);
        return 0;
    }
    CUDA_TRY(c->cuda_error, cudaSetDevice(device), out);
    CUDA_TRY(c->cuda_error, cudaDriverGetVersion(&c->driver_version), out);
    struct cudaDeviceProp prop;
    CUDA_TRY(c->cuda_error, cudaGetDeviceProperties(&prop, device), out);
    snprintf(c->name, sizeof c->name, "%s", prop.name);
    c->cc_major = prop.major;
    c->cc_minor = prop.minor;
    c->sm_count = prop.multiProcessorCount;
    c->total_mem = prop.totalGlobalMem;
    CUDA_TRY(c->cuda_error, cudaDeviceGetPCIBusId(c->pci_bus_id, sizeof c->pci_bus_id, device), out);
    c->can_map_host_memory = attr(device, cudaDevAttrCanMapHostMemory);
    c->concurrent_managed_access = attr(device, cudaDevAttrConcurrentManagedAccess);
    c->pageable_memory_access = attr(device, cudaDevAttrPageableMemoryAccess);
    c->cooperative_launch = attr(device, cudaDevAttrCooperativeLaunch);
    c->host_native_atomic = attr(device, cudaDevAttrHostNativeAtomicSupported);
    c->direct_managed_from_host = attr(device, cudaDevAttrDirectManagedMemAccessFromHost);
    c->async_engine_count = attr(device, cudaDevAttrAsyncEngineCount);
    c->unified_addressing = attr(device, cudaDevAttrUnifiedAddressing);
    probe_allocations(c);
    probe_stream_ops(c);
    CUDA_TRY(c->ring_error, ring_kernel_prepare(&c->ring_blocks), kernels_done);
kernels_done:
    c->cuda_usable = 1;
    return 0;
out:
    c->cuda_usable = 0;
    return 0;
}
#else
int rb_probe(int device, rb_caps *c)
{
    memset(c, 0, sizeof *c);
    c->device = device;
    c->can_map_host_memory = c->concurrent_managed_access = c->pageable_memory_access = -1;
    c->cooperative_launch = c->host_native_atomic = c->direct_managed_from_host = -1;
    c->async_engine_count = c->unified_addressing = -1;
    snprintf(c->cuda_error, sizeof c->cuda_error, "this ringbench was built without CUDA (no nvcc at configure time)");
    return 0;
}
#endif

int rb_caps_foreach(const rb_caps *c, int (*fn)(void *ctx, const char *key, const char *value, const char *error),
                    void *ctx)
{
    char v[64];
    int rc;
#define EMIT(key, value, error) do { if ((rc = fn(ctx, (key), (value), (error))) != 0) return rc; } while (0)
#define EMIT_INT(key, x, error) do { snprintf(v, sizeof v, "%lld", (long long)(x)); EMIT(key, v, error); } while (0)
    EMIT_INT("cuda_usable", c->cuda_usable, c->cuda_error);
    EMIT_INT("device", c->device, "");
    EMIT_INT("device_count", c->device_count, "");
    EMIT("gpu_name", c->name, "");
    EMIT("pci_bus_id", c->pci_bus_id, "");
    snprintf(v, sizeof v, "%d.%d", c->cc_major, c->cc_minor);
    EMIT("compute_capability", v, "");
    EMIT_INT("sm_count", c->sm_count, "");
    EMIT_INT("total_memory_bytes", c->total_mem, "");
    EMIT_INT("driver_version", c->driver_version, "");
    EMIT_INT("runtime_version", c->runtime_version, "");
    EMIT_INT("can_map_host_memory", c->can_map_host_memory, "");
    EMIT_INT("concurrent_managed_access", c->concurrent_managed_access, "");
    EMIT_INT("pageable_memory_access", c->pageable_memory_access, "");
    EMIT_INT("cooperative_launch", c->cooperative_launch, "");
    EMIT_INT("host_native_atomic_supported", c->host_native_atomic, "");
    EMIT_INT("direct_managed_mem_access_from_host", c->direct_managed_from_host, "");
    EMIT_INT("async_engine_count", c->async_engine_count, "");
    EMIT_INT("unified_addressing", c->unified_addressing, "");
    EMIT_INT("pinned_alloc", c->pinned_ok, c->pinned_error);
    EMIT_INT("mapped_alloc", c->mapped_ok, c->mapped_error);
    EMIT_INT("managed_alloc", c->managed_ok, c->managed_error);
    EMIT_INT("stream_memory_ops", c->stream_ops_ok, c->stream_ops_error);
    EMIT_INT("ring_kernel_coresident_blocks", c->ring_blocks, c->ring_error);
#undef EMIT_INT
#undef EMIT
    return 0;
}

const char *rb_caps_unsupported_reason(const rb_caps *c, const rb_mode *m, char *buf, size_t n)
{
    if (!c->cuda_usable) {
        snprintf(buf, n, "no usable CUDA device: %s", c->cuda_error);
        return buf;
    }
    if (c->ring_blocks == 0) {
        snprintf(buf, n, "the ring kernel cannot be loaded: %s", c->ring_error);
        return buf;
    }
    const int needs_pinned = m->v[RB_AXIS_HOST] == RB_HOST_PINNED;
    const int needs_mapped = m->v[RB_AXIS_CTRL] == RB_CTRL_MAPPED || m->v[RB_AXIS_XFER] == RB_XFER_ZEROCOPY;
    if (needs_pinned && !c->pinned_ok) {
        snprintf(buf, n, "pinned host memory refused: %s", c->pinned_error);
        return buf;
    }
    if (needs_mapped && !c->mapped_ok) {
        snprintf(buf, n, "mapped pinned memory refused: %s", c->mapped_error);
        return buf;
    }
    if (m->v[RB_AXIS_CTRL] == RB_CTRL_MANAGED) {
        if (!c->managed_ok) {
            snprintf(buf, n, "managed memory refused: %s", c->managed_error);
            return buf;
        }
        if (c->concurrent_managed_access != 1) {
            snprintf(buf, n, "concurrentManagedAccess = %d: the host may not touch managed memory while a "
                     "kernel runs (as on WSL2)", c->concurrent_managed_access);
            return buf;
        }
    }
    if (m->v[RB_AXIS_LAUNCH] == RB_LAUNCH_COOP && c->cooperative_launch != 1) {
        snprintf(buf, n, "cooperativeLaunch = %d: the device cannot launch cooperative kernels",
                 c->cooperative_launch);
        return buf;
    }
    return NULL;
}
