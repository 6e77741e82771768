/* ring_cuda.c - the CUDA backend of the ring runtime: memory per mode, copies, and the persistent
 * kernel's launch and liveness. Runtime API (the document under test reports that mixing the Driver
 * and Runtime APIs corrupts contexts on WSL2), except the two stream memory operations of
 * stream_ops.h, which come through the runtime's own driver entry points and touch no context.
 *
 * Where things live, per mode axis:
 *   ctrl=managed  control block from cudaMallocManaged, read and written by the host directly
 *   ctrl=device   control block from cudaMalloc; the host reads and writes it with staged copies
 *   ctrl=mapped   control block from cudaHostAlloc(Mapped), host pointer + device pointer
 *   xfer=zerocopy both rings from cudaHostAlloc(Mapped); no copies at all
 *   otherwise     both rings in device memory, host staging from cudaHostAlloc (pinned) or malloc
 * Copies: one per run of consecutive slots (ring.c copy_runs: a batch is one copy, two when it wraps);
 * async = cudaMemcpyAsync on non-blocking streams with an event per run, recorded under the run's
 * last slot; sync = cudaMemcpy
 * on the legacy stream. The kernel runs on its own non-blocking stream, so neither waits for it.
 * Nothing is allocated or freed while the kernel runs: cudaFree would wait for it forever.
 * Every runtime call on the ring's paths (launch, status, copies, control block) is counted with
 * CC_COUNT (cuda_calls.h) just before it is made; ring_cpu.c's twin_* rules mirror these.
 */
#define _POSIX_C_SOURCE 200809L
#include "ring_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_calls.h"
#include "cuda_check.h"
#include "ring_kernel.h"
#include "stream_ops.h"
#include "timing.h"

/* Set when a kernel could not be stopped: it still occupies every SM it was given, so no later ring
 * on this device can run (and freeing its memory would wait for it forever). Later rings refuse at
 * once with this reason, and a sweep records its remaining cells as failed instead of hanging. */
static char g_stuck[256];

typedef struct cuda_state {
    ring_cb *cb_dev;                     /* device-visible control block */
    void *cb_alloc;                      /* what was allocated for it */
    unsigned char *in_dev, *out_dev;     /* device-visible rings */
    unsigned char *in_alloc, *out_alloc; /* what was allocated for them */
    unsigned char *in_host, *out_host;   /* host staging (not zerocopy) */
    ring_cb_host *snap;                  /* capacity + 1 snapshots of the host half */
    ring_cb_kern *kstage;                /* landing place of staged kernel-half reads */
    void *scratch;
    ring_trace_rec *trace; /* device memory, RING_TRACE_RECS records (cfg.trace) */
    cudaStream_t kstream, h2d, d2h, ctl;
    cudaEvent_t *ev_in, *ev_out;
    int pinned, async, zerocopy, ctrl, launched, broken;
    /* Stream-ordered replies: the reply stream may hold a wait for out_tail >= await_max that only
     * the kernel can satisfy (awaiting); release_waits undoes that once the kernel is gone. */
    int awaiting;
    uint32_t await_max;
    /* Get runs' completion: a run's event is recorded only once another get follows it (before that
     * copy); the newest run (get_last, while get_pending) has none and is known complete when the
     * reply stream is idle (cudaStreamQuery). One message in flight then costs no cudaEventRecord
     * for its reply. Runs are asked about oldest first, so every other run asked about has one. */
    int get_pending;
    uint32_t get_last;
    char cerr[256];
} cuda_state;

/* --- host memory of the mode's kind ------------------------------------------------------------ */

static int host_alloc(ring *r, void **p, size_t bytes)
{
    cuda_state *s = r->be;
    *p = NULL;
    if (s->pinned) {
        CUDA_TRY(s->cerr, cudaHostAlloc(p, bytes, cudaHostAllocDefault), refused);
        memset(*p, 0, bytes);
        return RING_OK;
    refused:
        *p = NULL;
        (void)cudaGetLastError();
        return ring_fail(r, RING_EUNSUPPORTED, "pinned host memory refused (%zu bytes): %s", bytes, s->cerr);
    }
    if (posix_memalign(p, 4096, bytes) != 0) {
        *p = NULL;
        return ring_fail(r, RING_ENOMEM, "malloc of %zu bytes failed", bytes);
    }
    memset(*p, 0, bytes);
    return RING_OK;
}

static void host_free(cuda_state *s, void *p)
{
    if (!p)
        return;
    if (s->pinned)
        cudaFreeHost(p);
    else
        free(p);
}

/* Mapped pinned memory: host pointer *h, device pointer *d. */
static int mapped_alloc(ring *r, void **h, void **d, size_t bytes, const char *what)
{
    cuda_state *s = r->be;
    *h = *d = NULL;
    CUDA_TRY(s->cerr, cudaHostAlloc(h, bytes, cudaHostAllocMapped), refused);
    memset(*h, 0, bytes);
    CUDA_TRY(s->cerr, cudaHostGetDevicePointer(d, *h, 0), refused);
    return RING_OK;
refused:
    (void)cudaGetLastError();
    return ring_fail(r, RING_EUNSUPPORTED, "mapped pinned memory for the %s refused: %s", what, s->cerr);
}

/* --- open / close ------------------------------------------------------------------------------ */

static int open_control_block(ring *r)
{
    cuda_state *s = r->be;
    void *h = NULL, *d = NULL;
    switch (s->ctrl) {
    case RB_CTRL_MANAGED: {
        CUDA_TRY(s->cerr, cudaMallocManaged(&s->cb_alloc, sizeof(ring_cb), cudaMemAttachGlobal), refused);
        memset(s->cb_alloc, 0, sizeof(ring_cb));
        s->cb_dev = r->cb_direct = s->cb_alloc;
        /* A flag both sides poll must not migrate on every access: without these hints the page
         * ping-pongs between host and device, and a kernel was seen stalled for seconds in a fault.
         * Keep it in host memory and map it for the device (CUDA's advice for concurrent access). */
        struct cudaMemLocation host = {.type = cudaMemLocationTypeHost, .id = 0};
        struct cudaMemLocation dev = {.type = cudaMemLocationTypeDevice, .id = r->cfg.device};
        CUDA_TRY(s->cerr, cudaMemAdvise(s->cb_alloc, sizeof(ring_cb), cudaMemAdviseSetPreferredLocation, host), failed);
        CUDA_TRY(s->cerr, cudaMemAdvise(s->cb_alloc, sizeof(ring_cb), cudaMemAdviseSetAccessedBy, dev), failed);
        return RING_OK;
    }
    case RB_CTRL_DEVICE:
        CUDA_TRY(s->cerr, cudaMalloc(&s->cb_alloc, sizeof(ring_cb)), failed);
        s->cb_dev = s->cb_alloc;
        r->cb_direct = NULL;
        return RING_OK;
    default: {
        int rc = mapped_alloc(r, &h, &d, sizeof(ring_cb), "control block");
        s->cb_alloc = h;
        s->cb_dev = d;
        r->cb_direct = h;
        return rc;
    }
    }
refused:
    (void)cudaGetLastError();
    return ring_fail(r, RING_EUNSUPPORTED, "managed memory for the control block refused: %s", s->cerr);
failed:
    return ring_fail(r, RING_ECUDA, "%s", s->cerr);
}

static int open_rings(ring *r)
{
    cuda_state *s = r->be;
    const size_t bytes = (size_t)r->cfg.capacity * r->stride;
    int rc;
    if (s->zerocopy) {
        void *h, *d;
        if ((rc = mapped_alloc(r, &h, &d, bytes, "input ring")) != RING_OK)
            return rc;
        s->in_alloc = h;
        s->in_dev = d;
        if ((rc = mapped_alloc(r, &h, &d, bytes, "output ring")) != RING_OK)
            return rc;
        s->out_alloc = h;
        s->out_dev = d;
        r->in_stage = s->in_alloc;
        r->out_stage = s->out_alloc;
        return RING_OK;
    }
    CUDA_TRY(s->cerr, cudaMalloc((void **)&s->in_alloc, bytes), failed);
    CUDA_TRY(s->cerr, cudaMalloc((void **)&s->out_alloc, bytes), failed);
    s->in_dev = s->in_alloc;
    s->out_dev = s->out_alloc;
    if ((rc = host_alloc(r, (void **)&s->in_host, bytes)) != RING_OK ||
        (rc = host_alloc(r, (void **)&s->out_host, bytes)) != RING_OK)
        return rc;
    r->in_stage = s->in_host;
    r->out_stage = s->out_host;
    return RING_OK;
failed:
    return ring_fail(r, RING_ECUDA, "device memory for the rings (%zu bytes each): %s", bytes, s->cerr);
}

static int cuda_open(ring *r)
{
    cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return ring_fail(r, RING_ENOMEM, "out of memory");
    r->be = s;
    const mode_spec *m = &r->cfg.mode;
    s->pinned = m->v[RB_AXIS_HOST] == RB_HOST_PINNED;
    s->zerocopy = m->v[RB_AXIS_XFER] == RB_XFER_ZEROCOPY;
    /* Staged control-block copies under zerocopy rings use the async path (the memory is pinned). */
    s->async = m->v[RB_AXIS_XFER] != RB_XFER_SYNC;
    s->ctrl = m->v[RB_AXIS_CTRL];
    int rc;
    unsigned max_blocks = 0;
    setenv("CUDA_MODULE_LOADING", "EAGER", 0); /* see probe_run: no lazy loading under a spinning kernel */
    if (g_stuck[0])
        return ring_fail(r, RING_EKERNEL, "%s", g_stuck);
    CUDA_TRY(s->cerr, cudaSetDevice(r->cfg.device), no_device);
    CUDA_TRY(s->cerr, ring_kernel_prepare(&max_blocks), failed);
    r->blocks = r->cfg.blocks && r->cfg.blocks < max_blocks ? r->cfg.blocks : max_blocks;
    CUDA_TRY(s->cerr, cudaStreamCreateWithFlags(&s->kstream, cudaStreamNonBlocking), failed);
    CUDA_TRY(s->cerr, cudaStreamCreateWithFlags(&s->h2d, cudaStreamNonBlocking), failed);
    CUDA_TRY(s->cerr, cudaStreamCreateWithFlags(&s->d2h, cudaStreamNonBlocking), failed);
    CUDA_TRY(s->cerr, cudaStreamCreateWithFlags(&s->ctl, cudaStreamNonBlocking), failed);
    if ((rc = open_control_block(r)) != RING_OK || (rc = open_rings(r)) != RING_OK)
        return rc;
    if ((rc = host_alloc(r, (void **)&s->snap, (r->cfg.capacity + 1) * sizeof(ring_cb_host))) != RING_OK ||
        (rc = host_alloc(r, (void **)&s->kstage, sizeof(ring_cb_kern))) != RING_OK)
        return rc;
    CUDA_TRY(s->cerr, cudaMalloc(&s->scratch, ring_kernel_scratch_bytes()), failed);
    if (r->cfg.trace)
        CUDA_TRY(s->cerr, cudaMalloc((void **)&s->trace, RING_TRACE_RECS * sizeof *s->trace), failed);
    s->ev_in = calloc(r->cfg.capacity, sizeof *s->ev_in);
    s->ev_out = calloc(r->cfg.capacity, sizeof *s->ev_out);
    if (!s->ev_in || !s->ev_out)
        return ring_fail(r, RING_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->cfg.capacity; i++) {
        CUDA_TRY(s->cerr, cudaEventCreateWithFlags(&s->ev_in[i], cudaEventDisableTiming), failed);
        CUDA_TRY(s->cerr, cudaEventCreateWithFlags(&s->ev_out[i], cudaEventDisableTiming), failed);
    }
    /* Stream ops tried for real on this control block (a pad word of the host half, zeroed again at
     * launch): where the platform refuses them the ring keeps the host-triggered path. */
    if (r->stream_ops && stream_ops_try(s->ctl, &s->cb_dev->h.pad[0], s->cerr, sizeof s->cerr) != 0) {
        r->stream_ops = 0;
        (void)cudaGetLastError();
    }
    return RING_OK;
no_device:
    return ring_fail(r, RING_EUNSUPPORTED, "no usable CUDA device %d: %s", r->cfg.device, s->cerr);
failed:
    return ring_fail(r, RING_ECUDA, "%s", s->cerr);
}

static int release_waits(ring *r);

static void cuda_close(ring *r)
{
    cuda_state *s = r->be;
    if (!s)
        return;
    if (s->launched && cudaStreamQuery(s->kstream) == cudaErrorNotReady) {
        /* The kernel ignored terminate: freeing its memory would wait for it forever. Leave the
         * memory to process exit rather than hang, and keep later rings off the device. */
        char label[64];
        snprintf(g_stuck, sizeof g_stuck, "an earlier ring kernel (%s) never exited and still occupies the GPU",
                 mode_label(&r->cfg.mode, label, sizeof label));
        free(s->ev_in);
        free(s->ev_out);
        free(s);
        r->be = NULL;
        return;
    }
    (void)release_waits(r);
    for (uint32_t i = 0; s->ev_in && i < r->cfg.capacity; i++)
        if (s->ev_in[i])
            cudaEventDestroy(s->ev_in[i]);
    for (uint32_t i = 0; s->ev_out && i < r->cfg.capacity; i++)
        if (s->ev_out[i])
            cudaEventDestroy(s->ev_out[i]);
    free(s->ev_in);
    free(s->ev_out);
    if (s->ctrl == RB_CTRL_MAPPED) {
        if (s->cb_alloc)
            cudaFreeHost(s->cb_alloc);
    } else if (s->cb_alloc) {
        cudaFree(s->cb_alloc);
    }
    if (s->zerocopy) {
        if (s->in_alloc)
            cudaFreeHost(s->in_alloc);
        if (s->out_alloc)
            cudaFreeHost(s->out_alloc);
    } else {
        if (s->in_alloc)
            cudaFree(s->in_alloc);
        if (s->out_alloc)
            cudaFree(s->out_alloc);
    }
    host_free(s, s->in_host);
    host_free(s, s->out_host);
    host_free(s, s->snap);
    host_free(s, s->kstage);
    if (s->scratch)
        cudaFree(s->scratch);
    if (s->trace)
        cudaFree(s->trace);
    cudaStream_t streams[] = {s->kstream, s->h2d, s->d2h, s->ctl};
    for (size_t i = 0; i < 4; i++)
        if (streams[i])
            cudaStreamDestroy(streams[i]);
    /* A kernel fault leaves the context unusable for every later call; reset it so the next ring
     * (the next cell of a sweep) starts on a clean one. */
    if (s->broken)
        cudaDeviceReset();
    (void)cudaGetLastError();
    free(s);
    r->be = NULL;
}

/* --- kernel ------------------------------------------------------------------------------------ */

/* The kernel's part of ring_config.fault_kind (the faults of a platform that fails); the others are
 * the CPU backend's or the host's own. */
static uint32_t kernel_fault(int kind)
{
    return kind == RING_FAULT_NEVER   ? RING_KFAULT_NEVER
           : kind == RING_FAULT_LATE  ? RING_KFAULT_LATE
           : kind == RING_FAULT_STALE ? RING_KFAULT_STALE
                                      : RING_KFAULT_NONE;
}

static int cuda_launch(ring *r, int forgot)
{
    cuda_state *s = r->be;
    const int coop = r->cfg.mode.v[RB_AXIS_LAUNCH] == RB_LAUNCH_COOP;
    int rc = release_waits(r); /* replies awaited from the previous launch never come */
    if (rc != RING_OK)
        return rc;
    s->get_pending = 0; /* ring.c forgets the previous launch's runs */
    /* Zeroed in the kernel's own stream, ahead of it: a device-wide synchronize here would wait
     * forever for a kernel some earlier ring could not stop. */
    if (r->cb_direct)
        memset(r->cb_direct, 0, sizeof(ring_cb));
    else {
        CC_COUNT(CC_OTHER);
        CUDA_TRY(s->cerr, cudaMemsetAsync(s->cb_dev, 0, sizeof(ring_cb), s->kstream), failed);
    }
    CC_COUNT(CC_OTHER);
    CUDA_TRY(s->cerr, cudaMemsetAsync(s->scratch, 0, ring_kernel_scratch_bytes(), s->kstream), failed);
    /* A relaunch after messages (ring.c forget_slots): the device input ring of a copy mode still holds
     * the last launch's, and a lone one of up to 16 B there names the sequence number the new kernel
     * waits for first, so its early take would answer it before the host sent anything. The forgotten
     * headers go over them, in the kernel's stream, ahead of it. */
    if (forgot && !s->zerocopy) {
        CC_COUNT(CC_OTHER);
        CUDA_TRY(s->cerr,
                 cudaMemcpy2DAsync(s->in_dev, r->stride, r->in_stage, r->stride, sizeof(ring_hdr), r->cfg.capacity,
                                   cudaMemcpyHostToDevice, s->kstream),
                 failed);
    }
    if (s->trace) {
        CC_COUNT(CC_OTHER);
        CUDA_TRY(s->cerr, cudaMemsetAsync(s->trace, 0, RING_TRACE_RECS * sizeof *s->trace, s->kstream), failed);
    }
    ring_kernel_args a = {
        .cb = s->cb_dev,
        .in_ring = s->in_dev,
        .out_ring = s->out_dev,
        .scratch = s->scratch,
        .slot_stride = r->stride,
        .max_lifetime_ns = (uint64_t)(r->cfg.max_lifetime_s * 1e9),
        .capacity = r->cfg.capacity,
        .max_payload = r->cfg.max_payload,
        .flags = (r->cfg.early_take ? RING_KFLAG_EARLY_TAKE : 0u) |
                 (r->cfg.leader_reply ? RING_KFLAG_LEADER_REPLY : 0u) |
                 (r->cfg.leader_reply && s->zerocopy ? RING_KFLAG_LEADER_SPLIT : 0u) |
                 (r->cfg.shortcuts_busy ? RING_KFLAG_SHORTCUTS_BUSY : 0u),
        .trace = s->trace,
        .fault_kind = kernel_fault(r->cfg.fault_kind),
        .fault_every = r->cfg.fault_every,
        .fault_late_ns = RING_FAULT_LATE_NS(r->cfg.timeout_s),
    };
    CC_COUNT(CC_LAUNCH);
    CUDA_TRY(s->cerr, ring_kernel_launch(&a, coop, r->blocks, s->kstream), failed);
    s->launched = 1;
    return RING_OK;
failed:
    return ring_fail(r, RING_ECUDA, "kernel launch (%u blocks, %s): %s", r->blocks, coop ? "cooperative" : "ordinary",
                     s->cerr);
}

static int cuda_status(ring *r)
{
    cuda_state *s = r->be;
    if (!s->launched)
        return 1;
    CC_COUNT(CC_STREAM_QUERY);
    cudaError_t e = cudaStreamQuery(s->kstream);
    if (e == cudaErrorNotReady)
        return 0;
    s->launched = 0;
    if (e == cudaSuccess)
        return 1;
    s->broken = 1;
    cuda_check_describe(s->cerr, sizeof s->cerr, "the ring kernel", e, __FILE__, __LINE__);
    return ring_fail(r, RING_EKERNEL, "kernel died: %s%s", s->cerr,
                     e == cudaErrorLaunchTimeout ? " -- killed by the GPU watchdog (on WSL2/Windows: TDR, 2 s "
                                                   "by default on a display GPU); lower --max-lifetime"
                                                 : "");
}

/* --- copies ------------------------------------------------------------------------------------ */

static int copy_failed(ring *r)
{
    cuda_state *s = r->be;
    s->broken = 1;
    return ring_fail(r, RING_ECUDA, "%s", s->cerr);
}

/* Lets a reply stream that still waits for out_tail (replies that will never come: the kernel has
 * exited) run to its end: the host writes the awaited value itself, which it may once no kernel
 * writes the word, and waits for the stream, bounded. A stream left waiting would make the next
 * launch's replies queue behind it, and freeing the rings would wait for it forever. */
static int release_waits(ring *r)
{
    cuda_state *s = r->be;
    if (!s->awaiting)
        return RING_OK;
    s->awaiting = 0;
    if (r->cb_direct)
        atomic_store_explicit((_Atomic uint32_t *)&r->cb_direct->k.out_tail, s->await_max, memory_order_release);
    cudaError_t e = cuda_check_stream_wait(s->d2h, r->cfg.timeout_s);
    if (e == cudaSuccess)
        return RING_OK;
    if (e == cudaErrorNotReady) {
        s->broken = 1;
        return ring_fail(r, RING_ETIMEOUT, "the reply stream still waits for out_tail %u after %.3g s", s->await_max,
                         r->cfg.timeout_s);
    }
    cuda_check_describe(s->cerr, sizeof s->cerr, "the reply stream", e, __FILE__, __LINE__);
    return copy_failed(r);
}

/* One copy per run of slots; the run's completion event is recorded under its last slot. */
static int cuda_put(ring *r, uint32_t first, uint32_t n, size_t bytes, int track)
{
    cuda_state *s = r->be;
    const size_t off = (size_t)first * r->stride;
    if (s->async) {
        CC_COUNT(CC_MEMCPY_ASYNC);
        CUDA_TRY(s->cerr, cudaMemcpyAsync(s->in_dev + off, r->in_stage + off, bytes, cudaMemcpyHostToDevice, s->h2d),
                 failed);
        if (track) {
            CC_COUNT(CC_EVENT_RECORD);
            CUDA_TRY(s->cerr, cudaEventRecord(s->ev_in[first + n - 1], s->h2d), failed);
        }
        return RING_OK;
    }
    CC_COUNT(CC_MEMCPY);
    CUDA_TRY(s->cerr, cudaMemcpy(s->in_dev + off, r->in_stage + off, bytes, cudaMemcpyHostToDevice), failed);
    /* From pageable memory cudaMemcpy may return before the DMA has landed; a control block the host
     * writes directly would then announce bytes the kernel cannot see yet. */
    if (!s->pinned && r->cb_direct) {
        CC_COUNT(CC_STREAM_SYNC);
        CUDA_TRY(s->cerr, cudaStreamSynchronize(0), failed);
    }
    return RING_OK;
failed:
    return copy_failed(r);
}

static int cuda_get(ring *r, uint32_t first, uint32_t n, size_t bytes)
{
    cuda_state *s = r->be;
    const size_t off = (size_t)first * r->stride;
    if (s->async) {
        if (s->get_pending) { /* the run before this one gets its event now */
            CC_COUNT(CC_EVENT_RECORD);
            CUDA_TRY(s->cerr, cudaEventRecord(s->ev_out[s->get_last], s->d2h), failed);
        }
        CC_COUNT(CC_MEMCPY_ASYNC);
        CUDA_TRY(s->cerr, cudaMemcpyAsync(r->out_stage + off, s->out_dev + off, bytes, cudaMemcpyDeviceToHost, s->d2h),
                 failed);
        s->get_pending = 1;
        s->get_last = first + n - 1;
        return RING_OK;
    }
    CC_COUNT(CC_MEMCPY);
    CUDA_TRY(s->cerr, cudaMemcpy(r->out_stage + off, s->out_dev + off, bytes, cudaMemcpyDeviceToHost), failed);
    return RING_OK;
failed:
    return copy_failed(r);
}

static int event_done(ring *r, cudaEvent_t ev)
{
    cuda_state *s = r->be;
    if (!s->async)
        return 1;
    CC_COUNT(CC_EVENT_QUERY);
    cudaError_t e = cudaEventQuery(ev);
    if (e == cudaSuccess)
        return 1;
    if (e == cudaErrorNotReady)
        return 0;
    cuda_check_describe(s->cerr, sizeof s->cerr, "cudaEventQuery", e, __FILE__, __LINE__);
    return copy_failed(r);
}

static int cuda_put_done(ring *r, uint32_t slot) { return event_done(r, ((cuda_state *)r->be)->ev_in[slot]); }
static int cuda_get_done(ring *r, uint32_t slot)
{
    cuda_state *s = r->be;
    if (!s->async)
        return 1;
    if (!s->get_pending || slot != s->get_last)
        return event_done(r, s->ev_out[slot]);
    /* The newest run: complete when everything queued on the reply stream is. */
    CC_COUNT(CC_STREAM_QUERY);
    cudaError_t e = cudaStreamQuery(s->d2h);
    if (e == cudaErrorNotReady)
        return 0;
    if (e != cudaSuccess) {
        cuda_check_describe(s->cerr, sizeof s->cerr, "cudaStreamQuery", e, __FILE__, __LINE__);
        return copy_failed(r);
    }
    s->get_pending = 0;
    return 1;
}

static int cuda_announce(ring *r, uint32_t value)
{
    cuda_state *s = r->be;
    CC_COUNT(CC_OTHER);
    if (stream_ops_write32(s->h2d, &s->cb_dev->h.in_tail, value, s->cerr, sizeof s->cerr) != 0)
        return copy_failed(r);
    return RING_OK;
}

static int cuda_await_reply(ring *r, uint32_t value)
{
    cuda_state *s = r->be;
    CC_COUNT(CC_OTHER);
    if (stream_ops_wait_geq32(s->d2h, &s->cb_dev->k.out_tail, value, s->cerr, sizeof s->cerr) != 0)
        return copy_failed(r);
    s->awaiting = 1;
    s->await_max = value;
    return RING_OK;
}

static int cuda_cb_write(ring *r, uint32_t snap)
{
    cuda_state *s = r->be;
    ring_cb_host *src = &s->snap[snap];
    *src = r->shadow;
    if (s->async) {
        /* On the h2d stream: after every payload copy already queued there. */
        CC_COUNT(CC_MEMCPY_ASYNC);
        CUDA_TRY(s->cerr, cudaMemcpyAsync(&s->cb_dev->h, src, sizeof *src, cudaMemcpyHostToDevice, s->h2d), failed);
        if (snap == r->cfg.capacity) {
            CC_COUNT(CC_STREAM_SYNC);
            CUDA_TRY(s->cerr, cudaStreamSynchronize(s->h2d), failed);
        }
        return RING_OK;
    }
    CC_COUNT(CC_MEMCPY);
    CUDA_TRY(s->cerr, cudaMemcpy(&s->cb_dev->h, src, sizeof *src, cudaMemcpyHostToDevice), failed);
    return RING_OK;
failed:
    return copy_failed(r);
}

static int cuda_cb_read(ring *r)
{
    cuda_state *s = r->be;
    if (s->async) {
        CC_COUNT(CC_MEMCPY_ASYNC);
        CUDA_TRY(s->cerr, cudaMemcpyAsync(s->kstage, &s->cb_dev->k, sizeof *s->kstage, cudaMemcpyDeviceToHost, s->ctl),
                 failed);
        CC_COUNT(CC_STREAM_SYNC);
        CUDA_TRY(s->cerr, cudaStreamSynchronize(s->ctl), failed);
    } else {
        CC_COUNT(CC_MEMCPY);
        CUDA_TRY(s->cerr, cudaMemcpy(s->kstage, &s->cb_dev->k, sizeof *s->kstage, cudaMemcpyDeviceToHost), failed);
    }
    r->kview = *s->kstage;
    return RING_OK;
failed:
    return copy_failed(r);
}

static int cuda_trace_read(ring *r, ring_trace_rec *out)
{
    cuda_state *s = r->be;
    /* The kernel has exited (ring_trace_read's rule), so its stream is idle and the copy is final. */
    CC_COUNT(CC_MEMCPY);
    CUDA_TRY(s->cerr, cudaMemcpy(out, s->trace, RING_TRACE_RECS * sizeof *out, cudaMemcpyDeviceToHost), failed);
    return RING_OK;
failed:
    return copy_failed(r);
}

const ring_ops ring_cuda_ops = {
    .open = cuda_open,
    .close = cuda_close,
    .launch = cuda_launch,
    .status = cuda_status,
    .put = cuda_put,
    .get = cuda_get,
    .put_done = cuda_put_done,
    .get_done = cuda_get_done,
    .cb_write = cuda_cb_write,
    .cb_read = cuda_cb_read,
    .announce = cuda_announce,
    .await_reply = cuda_await_reply,
    .trace_read = cuda_trace_read,
};
