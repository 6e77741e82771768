/* probe.c - capability probe (see probe.h). Without CUDA built in, it says so and nothing runs on
 * the CUDA backend. */
#include "probe.h"

#include <stdio.h>
#include <string.h>

#ifdef RINGBENCH_HAVE_CUDA
#include <stdlib.h>
#include "timing.h"
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
static void probe_allocations(probe_caps *c)
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
static void probe_stream_ops(probe_caps *c)
{
    void *p = NULL, *d = NULL;
    cudaStream_t st = NULL;
    c->stream_ops_ok = 0;
    CUDA_TRY(c->stream_ops_error, cudaHostAlloc(&p, 4096, cudaHostAllocMapped), done);
    memset(p, 0, 4096);
    CUDA_TRY(c->stream_ops_error, cudaHostGetDevicePointer(&d, p, 0), done);
    CUDA_TRY(c->stream_ops_error, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), done);
    c->stream_ops_ok =
        stream_ops_try(st, d, c->stream_ops_error, sizeof c->stream_ops_error) == 0 && *(volatile uint32_t *)p == 1;
    if (!c->stream_ops_ok && !c->stream_ops_error[0])
        snprintf(c->stream_ops_error, sizeof c->stream_ops_error, "the stream's write did not reach the host");
done:
    if (st)
        cudaStreamDestroy(st);
    if (p)
        cudaFreeHost(p);
    (void)cudaGetLastError();
}

/* One cudaHostAlloc of `bytes`, freed at once: 1 ok, 0 refused (error text into err). */
static int pinned_try(unsigned long long bytes, char *err, size_t n)
{
    void *p = NULL;
    cudaError_t e = cudaHostAlloc(&p, (size_t)bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        snprintf(err, n, "cudaHostAlloc(%llu bytes): %s", bytes, cudaGetErrorName(e));
        (void)cudaGetLastError();
        return 0;
    }
    if (cudaFreeHost(p) != cudaSuccess)
        (void)cudaGetLastError();
    return 1;
}

/* The total: RB_PINNED_STEP chunks until one is refused or the bound is reached, then all freed. */
static void pinned_total(probe_pinned_ceiling *o)
{
    const size_t max_chunks = (size_t)(o->bound / RB_PINNED_STEP);
    void **chunks = calloc(max_chunks ? max_chunks : 1, sizeof *chunks);
    size_t k = 0;
    if (!chunks) {
        snprintf(o->note, sizeof o->note, "out of memory for the chunk list");
        return;
    }
    for (; k < max_chunks; k++) {
        cudaError_t e = cudaHostAlloc(&chunks[k], RB_PINNED_STEP, cudaHostAllocDefault);
        if (e != cudaSuccess) {
            snprintf(o->note, sizeof o->note, "total: chunk %zu of %llu bytes refused: %s", k + 1, RB_PINNED_STEP,
                     cudaGetErrorName(e));
            (void)cudaGetLastError();
            break;
        }
    }
    o->total = (unsigned long long)k * RB_PINNED_STEP;
    o->total_hit_bound = k == max_chunks;
    for (size_t i = 0; i < k; i++)
        if (cudaFreeHost(chunks[i]) != cudaSuccess)
            (void)cudaGetLastError();
    free(chunks);
}

/* The largest single allocation: the bound (or the total) first, halving until one succeeds, then a
 * binary search between the last success and the first refusal, to RB_PINNED_STEP. */
static void pinned_largest(probe_pinned_ceiling *o)
{
    char err[PROBE_ERR] = "";
    unsigned long long hi = o->total_hit_bound ? o->bound : o->total + RB_PINNED_STEP, lo = 0;
    unsigned long long t = hi;
    while (t >= RB_PINNED_STEP && !pinned_try(t, err, sizeof err)) {
        hi = t;
        t /= 2;
    }
    if (t < RB_PINNED_STEP) {
        snprintf(o->note, sizeof o->note, "largest: even %llu bytes refused: %s", RB_PINNED_STEP, err);
        return;
    }
    lo = t;
    o->largest_hit_bound = lo >= o->bound;
    while (hi > lo + RB_PINNED_STEP) {
        unsigned long long mid = (lo + (hi - lo) / 2) / RB_PINNED_STEP * RB_PINNED_STEP;
        if (mid <= lo)
            break;
        if (pinned_try(mid, err, sizeof err))
            lo = mid;
        else
            hi = mid;
    }
    o->largest = lo;
}

int probe_pinned(int device, unsigned long long bound, probe_pinned_ceiling *o)
{
    memset(o, 0, sizeof *o);
    o->bound = bound ? bound : RB_PINNED_DEFAULT_MAX;
    o->bound = o->bound / RB_PINNED_STEP * RB_PINNED_STEP;
    if (o->bound < RB_PINNED_STEP)
        o->bound = RB_PINNED_STEP;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || device < 0 || device >= count || cudaSetDevice(device) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(o->note, sizeof o->note, "not applicable: no usable CUDA device %d (%s)", device,
                 e != cudaSuccess ? cudaGetErrorName(e) : "not found");
        return 0;
    }
    const uint64_t t0 = timing_now_ns();
    pinned_total(o);
    pinned_largest(o);
    o->seconds = timing_seconds_since(t0);
    o->measured = 1;
    return 0;
}

int probe_run(int device, probe_caps *c)
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
int probe_pinned(int device, unsigned long long bound, probe_pinned_ceiling *o)
{
    (void)device;
    memset(o, 0, sizeof *o);
    o->bound = bound ? bound : RB_PINNED_DEFAULT_MAX;
    snprintf(o->note, sizeof o->note, "not applicable: this ringbench was built without CUDA (CPU backend)");
    return 0;
}

int probe_run(int device, probe_caps *c)
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

int probe_caps_foreach(const probe_caps *c, int (*fn)(void *ctx, const char *key, const char *value, const char *error),
                       void *ctx)
{
    char v[64];
    int rc;
#define EMIT(key, value, error)                           \
    do {                                                  \
        if ((rc = fn(ctx, (key), (value), (error))) != 0) \
            return rc;                                    \
    } while (0)
#define EMIT_INT(key, x, error)                        \
    do {                                               \
        snprintf(v, sizeof v, "%lld", (long long)(x)); \
        EMIT(key, v, error);                           \
    } while (0)
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

const char *probe_caps_unsupported_reason(const probe_caps *c, const mode_spec *m, char *buf, size_t n)
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
            snprintf(buf, n,
                     "concurrentManagedAccess = %d: the host may not touch managed memory while a "
                     "kernel runs (as on WSL2)",
                     c->concurrent_managed_access);
            return buf;
        }
    }
    if (m->v[RB_AXIS_LAUNCH] == RB_LAUNCH_COOP && c->cooperative_launch != 1) {
        snprintf(buf, n, "cooperativeLaunch = %d: the device cannot launch cooperative kernels", c->cooperative_launch);
        return buf;
    }
    return NULL;
}

int probe_pinned_foreach(const probe_pinned_ceiling *p, int (*fn)(void *ctx, const char *key, const char *value),
                         void *ctx)
{
    char v[64];
    int rc;
    if (!p->measured)
        return fn(ctx, "pinned_ceiling_note", p->note);
    struct {
        const char *k;
        unsigned long long v;
    } n[] = {{"pinned_ceiling_largest_bytes", p->largest},
             {"pinned_ceiling_total_bytes", p->total},
             {"pinned_ceiling_bound_bytes", p->bound}};
    for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
        snprintf(v, sizeof v, "%llu", n[i].v);
        if ((rc = fn(ctx, n[i].k, v)) != 0)
            return rc;
    }
    snprintf(v, sizeof v, "%.3f", p->seconds);
    if ((rc = fn(ctx, "pinned_ceiling_seconds", v)) != 0)
        return rc;
    return fn(ctx, "pinned_ceiling_note",
              p->note[0]                                   ? p->note
              : p->total_hit_bound && p->largest_hit_bound ? "both reached the bound: the "
                                                             "ceiling is above it"
                                                           : "");
}

static void gib(unsigned long long b, char *buf, size_t n)
{
    snprintf(buf, n, "%.2f GiB", (double)b / (double)(1ull << 30));
}

char *probe_pinned_str(const probe_pinned_ceiling *p, char *buf, size_t n)
{
    char a[32], t[32];
    if (!p->measured) {
        snprintf(buf, n, "%s", p->note);
        return buf;
    }
    gib(p->largest, a, sizeof a);
    gib(p->total, t, sizeof t);
    snprintf(buf, n,
             "largest single cudaHostAlloc %s%s, total %s%s (bound %.2f GiB, steps of %llu MiB, %.1f s, "
             "all freed)%s%s",
             a, p->largest_hit_bound ? " (the bound)" : "", t, p->total_hit_bound ? " (the bound)" : "",
             (double)p->bound / (double)(1ull << 30), RB_PINNED_STEP >> 20, p->seconds, p->note[0] ? "; " : "",
             p->note);
    return buf;
}
