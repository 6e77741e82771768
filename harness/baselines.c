/* baselines.c - the floor, launch-per-message, graph-per-message and memcpy baselines (see
 * baselines.h). Sampling goes through measure_run, as every ring measurement does. */
#define _POSIX_C_SOURCE 200809L
#include "baselines.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "timing.h"

#ifdef RINGBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda_check.h"
#include "call_kernels.h"
#include "ring_kernel.h"
#endif

#define PONG_TIMEOUT_NS 2000000000ull

static inline uint32_t ld_acq(const uint32_t *p)
{
    return atomic_load_explicit((_Atomic uint32_t *)(uintptr_t)p, memory_order_acquire);
}

static inline void st_rel(uint32_t *p, uint32_t v)
{
    atomic_store_explicit((_Atomic uint32_t *)(uintptr_t)p, v, memory_order_release);
}

/* --- floor --------------------------------------------------------------------------------------- */

typedef struct pingpong {
    uint32_t *ping, *pong; /* host view */
    uint32_t next;
} pingpong;

/* One round trip: a new value out, the same value back. Gives up (non-zero) after 2 s. */
static int pingpong_op(void *ctx)
{
    pingpong *pp = ctx;
    const uint32_t v = ++pp->next;
    st_rel(pp->ping, v);
    const uint64_t t0 = timing_now_ns();
    unsigned spins = 0;
    while (ld_acq(pp->pong) != v)
        if (++spins % 4096 == 0 && timing_now_ns() - t0 > PONG_TIMEOUT_NS)
            return 1;
    return 0;
}

/* The CPU floor's partner thread: answers every new ping until RB_PINGPONG_STOP. It runs where the CPU
 * backend's ring thread runs (placement_kernel_thread: its own CPU when the run pins), so the floor
 * and the ring it bounds are placed alike; it was once left on the poller's CPU, inherited from the
 * pinned main thread, and a 2-CPU machine then measured a floor of 8-16 ms under a 4 us ring. Like
 * the ring thread it gives its CPU away only when idle, here after FLOOR_IDLE_YIELD_NS without a
 * ping: a yield on the path of a ping would make the floor slower than the ring. */
#define FLOOR_IDLE_YIELD_NS 20000u
static void *cpu_pong(void *arg)
{
    pingpong *pp = arg;
    uint32_t last = 0; /* the words start zeroed; the first ping may come before this thread runs */
    unsigned idle = 0;
    uint64_t idle_since = 0;
    placement_kernel_thread();
    for (;;) {
        uint32_t v = ld_acq(pp->ping);
        if (v == last) {
            if (++idle % 64 == 0) {
                const uint64_t now = timing_now_ns();
                if (idle_since == 0)
                    idle_since = now;
                else if (now - idle_since > FLOOR_IDLE_YIELD_NS)
                    sched_yield();
            }
            continue;
        }
        idle = 0;
        idle_since = 0;
        if (v == 0xFFFFFFFFu)
            break;
        last = v;
        st_rel(pp->pong, v);
    }
    return NULL;
}

static int measure_result(int mrc, int op_rc, const char *what, char *err, size_t errlen)
{
    if (mrc == 1)
        return RB_BASE_INTERRUPTED;
    if (mrc < 0) {
        snprintf(err, errlen, "%s: %s", what, op_rc ? "no answer within 2 s" : "out of memory");
        return RB_BASE_FAILED;
    }
    return RB_BASE_OK;
}

static int cpu_floor(const measure_policy *p, measure_samples *s, char *err, size_t errlen, volatile sig_atomic_t *stop)
{
    /* ping and pong on separate cache lines, as the CUDA version keeps them. */
    uint32_t *words = aligned_alloc(64, 128);
    if (!words) {
        snprintf(err, errlen, "out of memory");
        return RB_BASE_FAILED;
    }
    memset(words, 0, 128);
    pingpong pp = {&words[0], &words[16], 0};
    pthread_t t;
    if (pthread_create(&t, NULL, cpu_pong, &pp) != 0) {
        free(words);
        snprintf(err, errlen, "pthread_create failed");
        return RB_BASE_FAILED;
    }
    int op_rc;
    int mrc = measure_run(p, pingpong_op, &pp, s, &op_rc, stop);
    st_rel(pp.ping, 0xFFFFFFFFu);
    pthread_join(t, NULL);
    free(words);
    return measure_result(mrc, op_rc, "CPU ping-pong", err, errlen);
}

#ifdef RINGBENCH_HAVE_CUDA
static int cuda_floor(int device, const measure_policy *p, measure_samples *s, char *err, size_t errlen,
                      volatile sig_atomic_t *stop)
{
    uint32_t *words = NULL, *dwords = NULL;
    cudaStream_t st = NULL;
    char cerr[256];
    int rc = RB_BASE_FAILED;
    CUDA_TRY(cerr, cudaSetDevice(device), fail);
    CUDA_TRY(cerr, cudaHostAlloc((void **)&words, 128, cudaHostAllocMapped), unsupported);
    memset(words, 0, 128);
    CUDA_TRY(cerr, cudaHostGetDevicePointer((void **)&dwords, words, 0), unsupported);
    CUDA_TRY(cerr, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), fail);
    CUDA_TRY(cerr, rb_pingpong_launch(&dwords[0], &dwords[16], st), fail);
    pingpong pp = {&words[0], &words[16], 0};
    int op_rc;
    int mrc = measure_run(p, pingpong_op, &pp, s, &op_rc, stop);
    st_rel(pp.ping, RB_PINGPONG_STOP);
    CUDA_TRY(cerr, cuda_check_stream_wait(st, 5.0), fail);
    rc = measure_result(mrc, op_rc, "GPU ping-pong", err, errlen);
    goto out;
unsupported:
    snprintf(err, errlen, "mapped pinned memory refused: %s", cerr);
    rc = RB_BASE_UNSUPPORTED;
    goto out;
fail:
    snprintf(err, errlen, "%s", cerr);
out:
    if (st)
        cudaStreamDestroy(st);
    if (words)
        cudaFreeHost(words);
    (void)cudaGetLastError();
    return rc;
}
#endif

int baselines_floor(ring_backend b, int device, const measure_policy *p, measure_samples *s, char *err, size_t errlen,
                    volatile sig_atomic_t *stop)
{
    memset(s, 0, sizeof *s);
    if (b == RING_BACKEND_CPU)
        return cpu_floor(p, s, err, errlen, stop);
#ifdef RINGBENCH_HAVE_CUDA
    return cuda_floor(device, p, s, err, errlen, stop);
#else
    (void)device;
    snprintf(err, errlen, "built without CUDA");
    return RB_BASE_UNSUPPORTED;
#endif
}

/* --- launch and graph per message ------------------------------------------------------------------ */

#ifdef RINGBENCH_HAVE_CUDA
typedef struct launch_ctx {
    uint32_t *hin, *hout, *din, *dout;
    uint32_t nwords;
    cudaStream_t st;
    cudaGraphExec_t exec;
    cudaError_t last;
} launch_ctx;

static cudaError_t enqueue_message(launch_ctx *c)
{
    cudaError_t e;
    const size_t bytes = (size_t)c->nwords * 4;
    if ((e = cudaMemcpyAsync(c->din, c->hin, bytes, cudaMemcpyHostToDevice, c->st)) != cudaSuccess ||
        (e = rb_transform_launch(c->din, c->dout, c->nwords, 0, c->st)) != cudaSuccess)
        return e;
    return cudaMemcpyAsync(c->hout, c->dout, bytes, cudaMemcpyDeviceToHost, c->st);
}

static int launch_op(void *ctx)
{
    launch_ctx *c = ctx;
    if ((c->last = enqueue_message(c)) != cudaSuccess || (c->last = cudaStreamSynchronize(c->st)) != cudaSuccess)
        return 1;
    return 0;
}

static int graph_op(void *ctx)
{
    launch_ctx *c = ctx;
    if ((c->last = cudaGraphLaunch(c->exec, c->st)) != cudaSuccess ||
        (c->last = cudaStreamSynchronize(c->st)) != cudaSuccess)
        return 1;
    return 0;
}

static int cuda_launch_baseline(int device, uint32_t size, int graph, const measure_policy *p, measure_samples *s,
                                char *err, size_t errlen, volatile sig_atomic_t *stop)
{
    launch_ctx c = {0};
    cudaGraph_t g = NULL;
    char cerr[256];
    int rc = RB_BASE_FAILED;
    const size_t bytes = size;
    c.nwords = size / 4;
    CUDA_TRY(cerr, cudaSetDevice(device), fail);
    CUDA_TRY(cerr, cudaHostAlloc((void **)&c.hin, bytes, cudaHostAllocDefault), unsupported);
    CUDA_TRY(cerr, cudaHostAlloc((void **)&c.hout, bytes, cudaHostAllocDefault), unsupported);
    CUDA_TRY(cerr, cudaMalloc((void **)&c.din, bytes), fail);
    CUDA_TRY(cerr, cudaMalloc((void **)&c.dout, bytes), fail);
    CUDA_TRY(cerr, cudaStreamCreateWithFlags(&c.st, cudaStreamNonBlocking), fail);
    for (uint32_t i = 0; i < c.nwords; i++)
        c.hin[i] = ring_gen(1, 0, i);
    memset(c.hout, 0, bytes);
    if (graph) {
        CUDA_TRY(cerr, cudaStreamBeginCapture(c.st, cudaStreamCaptureModeThreadLocal), fail);
        cudaError_t e = enqueue_message(&c);
        cudaError_t e2 = cudaStreamEndCapture(c.st, &g);
        CUDA_TRY(cerr, e, fail);
        CUDA_TRY(cerr, e2, fail);
        CUDA_TRY(cerr, cudaGraphInstantiate(&c.exec, g, 0), fail);
    }
    int op_rc;
    int mrc = measure_run(p, graph ? graph_op : launch_op, &c, s, &op_rc, stop);
    if (mrc < 0 && op_rc) {
        cuda_check_describe(cerr, sizeof cerr, graph ? "graph launch" : "launch", c.last, __FILE__, __LINE__);
        goto fail;
    }
    if (mrc == 1) {
        rc = RB_BASE_INTERRUPTED;
        goto out;
    }
    for (uint32_t i = 0; i < c.nwords; i++)
        if (c.hout[i] != (ring_gen(1, 0, i) ^ ring_key(0, i))) {
            snprintf(err, errlen, "baseline transform output wrong at word %u", i);
            goto out;
        }
    rc = RB_BASE_OK;
    goto out;
unsupported:
    snprintf(err, errlen, "pinned host memory refused: %s", cerr);
    rc = RB_BASE_UNSUPPORTED;
    goto out;
fail:
    snprintf(err, errlen, "%s", cerr);
out:
    if (c.exec)
        cudaGraphExecDestroy(c.exec);
    if (g)
        cudaGraphDestroy(g);
    if (c.st)
        cudaStreamDestroy(c.st);
    if (c.din)
        cudaFree(c.din);
    if (c.dout)
        cudaFree(c.dout);
    if (c.hin)
        cudaFreeHost(c.hin);
    if (c.hout)
        cudaFreeHost(c.hout);
    (void)cudaGetLastError();
    return rc;
}
#endif

int baselines_launch(ring_backend b, int device, uint32_t size, int graph, const measure_policy *p, measure_samples *s,
                     char *err, size_t errlen, volatile sig_atomic_t *stop)
{
    memset(s, 0, sizeof *s);
    if (size == 0 || size % 4) {
        snprintf(err, errlen, "message size must be a positive multiple of 4");
        return RB_BASE_FAILED;
    }
    if (b == RING_BACKEND_CPU) {
        snprintf(err, errlen, "CPU backend: there are no kernel launches to measure");
        return RB_BASE_UNSUPPORTED;
    }
#ifdef RINGBENCH_HAVE_CUDA
    return cuda_launch_baseline(device, size, graph, p, s, err, errlen, stop);
#else
    (void)device;
    (void)graph;
    (void)p;
    (void)stop;
    snprintf(err, errlen, "built without CUDA");
    return RB_BASE_UNSUPPORTED;
#endif
}

/* --- memcpy bandwidth ------------------------------------------------------------------------------ */

/* The repetitions of baselines_memcpy: one warm-up, then `reps` of rep_seconds each, each one sample
 * in GB/s. Returns RB_BASE_OK, RB_BASE_INTERRUPTED, or RB_BASE_FAILED with one line in err. */
static int memcpy_reps(ring_backend b, void *host, void *dev, uint32_t size, int h2d, int reps, double rep_seconds,
                       measure_samples *s, char *err, size_t errlen, volatile sig_atomic_t *stop)
{
#ifdef RINGBENCH_HAVE_CUDA
    char cerr[256];
#endif
    for (int r = -1; r < reps; r++) { /* r = -1 is the warm-up repetition */
        if (stop && *stop)
            return RB_BASE_INTERRUPTED;
        const uint64_t t0 = timing_now_ns();
        uint64_t copies = 0;
        do {
            if (b == RING_BACKEND_CPU) {
                memcpy(h2d ? dev : host, h2d ? host : dev, size);
            } else {
#ifdef RINGBENCH_HAVE_CUDA
                CUDA_TRY(cerr,
                         cudaMemcpy(h2d ? dev : host, h2d ? host : dev, size,
                                    h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
                         fail);
#endif
            }
            copies++;
        } while (timing_seconds_since(t0) < rep_seconds);
        const double secs = timing_seconds_since(t0);
        if (r >= 0 && measure_samples_push(s, (double)copies * size / secs * 1e-9) != 0) {
            snprintf(err, errlen, "out of memory");
            return RB_BASE_FAILED;
        }
        if (r >= 0)
            s->elapsed_s += secs;
    }
    return RB_BASE_OK;
#ifdef RINGBENCH_HAVE_CUDA
fail:
    snprintf(err, errlen, "%s", cerr);
    return RB_BASE_FAILED;
#endif
}

int baselines_memcpy(ring_backend b, int device, uint32_t size, int pinned, int h2d, int reps, double rep_seconds,
                     measure_samples *s, char *err, size_t errlen, volatile sig_atomic_t *stop)
{
    memset(s, 0, sizeof *s);
    int rc = RB_BASE_FAILED;
    void *host = NULL, *dev = NULL;
    if (b == RING_BACKEND_CPU && pinned) {
        snprintf(err, errlen, "CPU backend: there is no pinned memory");
        return RB_BASE_UNSUPPORTED;
    }
#ifndef RINGBENCH_HAVE_CUDA
    if (b == RING_BACKEND_CUDA) {
        (void)device;
        snprintf(err, errlen, "built without CUDA");
        return RB_BASE_UNSUPPORTED;
    }
#else
    char cerr[256];
    if (b == RING_BACKEND_CUDA) {
        CUDA_TRY(cerr, cudaSetDevice(device), fail);
        if (pinned)
            CUDA_TRY(cerr, cudaHostAlloc(&host, size, cudaHostAllocDefault), unsupported);
        CUDA_TRY(cerr, cudaMalloc(&dev, size), fail);
    }
#endif
    if (!host && !(host = malloc(size))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (b == RING_BACKEND_CPU && !(dev = malloc(size))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    memset(host, 0x5A, size);
    if (b == RING_BACKEND_CPU)
        memset(dev, 0xA5, size);
    rc = memcpy_reps(b, host, dev, size, h2d, reps, rep_seconds, s, err, errlen, stop);
    goto out;
#ifdef RINGBENCH_HAVE_CUDA
unsupported:
    snprintf(err, errlen, "pinned host memory refused: %s", cerr);
    rc = RB_BASE_UNSUPPORTED;
    goto out;
fail:
    snprintf(err, errlen, "%s", cerr);
#endif
out:
    if (b == RING_BACKEND_CPU) {
        free(host);
        free(dev);
    }
#ifdef RINGBENCH_HAVE_CUDA
    else {
        if (pinned && host)
            cudaFreeHost(host);
        else
            free(host);
        if (dev)
            cudaFree(dev);
        (void)cudaGetLastError();
    }
#endif
    if (rc != RB_BASE_OK)
        measure_samples_free(s);
    return rc;
}

/* --- per-call costs ------------------------------------------------------------------------------- */

const char *baselines_call_family(baselines_call_kind c)
{
    static const char *const fam[RB_CALL_COUNT] = {
#define RB_CALL_BASE_FAM(e, f) [RB_CALL_##e] = f,
        RB_CALL_BASES(RB_CALL_BASE_FAM)
#undef RB_CALL_BASE_FAM
    };
    return (int)c >= 0 && (int)c < (int)RB_CALL_COUNT ? fam[c] : NULL;
}

#ifdef RINGBENCH_HAVE_CUDA
typedef struct call_ctx {
    baselines_call_kind kind;
    void *pinned, *pageable, *dev;
    cudaStream_t st;
    cudaEvent_t ev;
    cudaError_t last;
    uint64_t launches;
} call_ctx;

/* One call (or, for memcpy_async_query, the ring's sequence for one async copy). 0, or 1 with the
 * CUDA error in c->last. */
static int call_op(void *ctx)
{
    call_ctx *c = ctx;
    cudaError_t e = cudaSuccess;
    switch (c->kind) {
    case RB_CALL_MEMCPY_H2D_PINNED: e = cudaMemcpy(c->dev, c->pinned, RB_CALL_BYTES, cudaMemcpyHostToDevice); break;
    case RB_CALL_MEMCPY_D2H_PINNED: e = cudaMemcpy(c->pinned, c->dev, RB_CALL_BYTES, cudaMemcpyDeviceToHost); break;
    case RB_CALL_MEMCPY_H2D_PAGEABLE: e = cudaMemcpy(c->dev, c->pageable, RB_CALL_BYTES, cudaMemcpyHostToDevice); break;
    case RB_CALL_MEMCPY_D2H_PAGEABLE: e = cudaMemcpy(c->pageable, c->dev, RB_CALL_BYTES, cudaMemcpyDeviceToHost); break;
    case RB_CALL_MEMCPY_ASYNC_QUERY:
        if ((e = cudaMemcpyAsync(c->dev, c->pinned, RB_CALL_BYTES, cudaMemcpyHostToDevice, c->st)) != cudaSuccess ||
            (e = cudaEventRecord(c->ev, c->st)) != cudaSuccess)
            break;
        while ((e = cudaEventQuery(c->ev)) == cudaErrorNotReady) {
        }
        break;
    case RB_CALL_STREAM_QUERY_IDLE: e = cudaStreamQuery(c->st); break;
    case RB_CALL_STREAM_SYNC_IDLE: e = cudaStreamSynchronize(c->st); break;
    case RB_CALL_EVENT_QUERY_DONE: e = cudaEventQuery(c->ev); break;
    case RB_CALL_LAUNCH_EMPTY:
        /* Not waited for: the queue of launches can fill, and a launch then blocks until the GPU
         * drains it. An empty kernel runs faster than it is launched, so that is rare; it shows in
         * the tail, not the median. */
        e = rb_empty_launch(c->st);
        c->launches++;
        break;
    case RB_CALL_LAUNCH_SYNC:
        if ((e = rb_empty_launch(c->st)) == cudaSuccess)
            e = cudaStreamSynchronize(c->st);
        break;
    default: e = cudaErrorInvalidValue;
    }
    c->last = e;
    return e != cudaSuccess;
}

static int cuda_call_baseline(int device, baselines_call_kind kind, const measure_policy *p, measure_samples *s,
                              char *err, size_t errlen, volatile sig_atomic_t *stop)
{
    call_ctx c = {.kind = kind};
    char cerr[256];
    int rc = RB_BASE_FAILED;
    CUDA_TRY(cerr, cudaSetDevice(device), fail);
    CUDA_TRY(cerr, rb_empty_prepare(), fail);
    CUDA_TRY(cerr, cudaHostAlloc(&c.pinned, RB_CALL_BYTES, cudaHostAllocDefault), unsupported);
    CUDA_TRY(cerr, cudaMalloc(&c.dev, RB_CALL_BYTES), fail);
    CUDA_TRY(cerr, cudaStreamCreateWithFlags(&c.st, cudaStreamNonBlocking), fail);
    CUDA_TRY(cerr, cudaEventCreateWithFlags(&c.ev, cudaEventDisableTiming), fail);
    if (!(c.pageable = malloc(RB_CALL_BYTES))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    memset(c.pageable, 0x5A, RB_CALL_BYTES);
    memset(c.pinned, 0x5A, RB_CALL_BYTES);
    CUDA_TRY(cerr, cudaEventRecord(c.ev, c.st), fail); /* a completed event for EVENT_QUERY_DONE */
    CUDA_TRY(cerr, cudaStreamSynchronize(c.st), fail);
    int op_rc;
    int mrc = measure_run(p, call_op, &c, s, &op_rc, stop);
    if (mrc < 0 && op_rc) {
        cuda_check_describe(cerr, sizeof cerr, baselines_call_family(kind), c.last, __FILE__, __LINE__);
        goto fail;
    }
    CUDA_TRY(cerr, cudaStreamSynchronize(c.st), fail);
    rc = mrc == 1 ? RB_BASE_INTERRUPTED : mrc < 0 ? RB_BASE_FAILED : RB_BASE_OK;
    if (mrc < 0)
        snprintf(err, errlen, "out of memory");
    goto out;
unsupported:
    snprintf(err, errlen, "pinned host memory refused: %s", cerr);
    rc = RB_BASE_UNSUPPORTED;
    goto out;
fail:
    snprintf(err, errlen, "%s", cerr);
out:
    if (c.ev)
        cudaEventDestroy(c.ev);
    if (c.st)
        cudaStreamDestroy(c.st);
    if (c.dev)
        cudaFree(c.dev);
    if (c.pinned)
        cudaFreeHost(c.pinned);
    free(c.pageable);
    (void)cudaGetLastError();
    return rc;
}
#endif

int baselines_call(ring_backend b, int device, baselines_call_kind c, const measure_policy *p, measure_samples *s,
                   char *err, size_t errlen, volatile sig_atomic_t *stop)
{
    memset(s, 0, sizeof *s);
    if (!baselines_call_family(c)) {
        snprintf(err, errlen, "unknown call baseline %d", (int)c);
        return RB_BASE_FAILED;
    }
    if (b == RING_BACKEND_CPU) {
        /* The CPU backend's twin of a call is a counter increment, not a driver call: timing it would
         * put a number where the comparison needs a driver's, so it is recorded as unsupported. */
        snprintf(err, errlen, "CPU backend: no CUDA driver calls to time");
        return RB_BASE_UNSUPPORTED;
    }
#ifdef RINGBENCH_HAVE_CUDA
    return cuda_call_baseline(device, c, p, s, err, errlen, stop);
#else
    (void)device;
    (void)p;
    (void)stop;
    snprintf(err, errlen, "built without CUDA");
    return RB_BASE_UNSUPPORTED;
#endif
}
