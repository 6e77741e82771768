/* ring_cpu.c - the CPU reference backend: the ring protocol with a host thread as the kernel.
 *
 * It exists so that the whole system, and everything built on it (the sweep, the results file, the
 * reports), runs and is tested on machines without a GPU. "Device" memory is ordinary memory; a put
 * or get is a memcpy; a staged control block is copied word by word with atomics. The host-memory
 * and launch axes have no meaning here and are recorded as given; results say backend "cpu".
 *
 * Call counts: every operation records, through the counting layer (cuda_calls.h), the CUDA runtime
 * calls its twin in ring_cuda.c makes for the same mode, so that calls per message are known and
 * tested (tests/test_call_counts.c) on machines without a GPU. The twin's rules are the twin_*
 * functions below; change them together with ring_cuda.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "ring_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_calls.h"
#include "placement.h"
#include "timing.h"

/* A get queued behind a stream-ordered wait (await_reply): done once out_tail reaches `value`. */
typedef struct cpu_deferred {
    uint32_t value, last;
    size_t off, bytes;
} cpu_deferred;

typedef struct cpu_state {
    ring_cb *cb;
    unsigned char *in_ring, *out_ring;
    unsigned char *in_copy, *out_copy; /* staging buffers unless zerocopy */
    pthread_t thread;
    int thread_started;
    atomic_int exited;
    /* The reply stream of the CUDA twin, as far as stream ops need it: the last wait's value, and
     * the gets queued behind a wait not yet satisfied, in order (at most capacity runs). */
    int awaiting;
    uint32_t await_value;
    cpu_deferred *deferred;
    uint32_t def_head, def_tail;
    /* The twin's get events (ring_cuda.c): recorded for a run once another get follows it; the
     * newest run (get_last, while get_pending) has none. */
    int get_pending;
    uint32_t get_last;
    ring_trace_rec *trace; /* RING_TRACE_RECS records (cfg.trace), written by the kernel thread */
} cpu_state;

static inline uint32_t ld(const uint32_t *p)
{
    return atomic_load_explicit((_Atomic uint32_t *)(uintptr_t)p, memory_order_acquire);
}

static inline void st(uint32_t *p, uint32_t v)
{
    atomic_store_explicit((_Atomic uint32_t *)(uintptr_t)p, v, memory_order_release);
}

/* Transforms one message from its input slot into its output slot, as every block of the CUDA
 * kernel does for its share, and seals the reply. Returns 1 when the input failed its checks. */
static int cpu_process(const ring *r, const unsigned char *in, unsigned char *out)
{
    ring_hdr h;
    memcpy(&h, in, sizeof h);
    const int bad_len = ring_check_len(h.len, r->cfg.max_payload) != NULL;
    const uint32_t n = bad_len ? 0 : h.len / 4;
    const uint32_t *iw = (const uint32_t *)(in + sizeof(ring_hdr));
    uint32_t *ow = (uint32_t *)(out + sizeof(ring_hdr));
    uint32_t in_sum = 0, out_sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w = iw[i], o = w ^ ring_key(h.seq, i);
        in_sum += ring_sum_term(w, i);
        out_sum += ring_sum_term(o, i);
        ow[i] = o;
    }
    const int bad = bad_len || ring_seal(in_sum, h.seq, h.len) != h.sum;
    ring_hdr reply = {h.seq, h.len, ring_seal(out_sum, h.seq, h.len), bad ? RING_FLAG_BAD_INPUT : 0u};
    memcpy(out, &reply, sizeof reply);
    return bad;
}

/* Damages a sealed reply the way a broken transport would (tests of the verifier only). */
static void inject_fault(int kind, unsigned char *reply)
{
    ring_hdr h;
    memcpy(&h, reply, sizeof h);
    if (kind == RING_FAULT_CORRUPT && h.len >= 4)
        reply[sizeof h + h.len - 1] ^= 0x10;
    else if (kind == RING_FAULT_DUPLICATE || kind == RING_FAULT_STALE)
        h.seq -= 1;
    else if (kind == RING_FAULT_SKIP)
        h.seq += 1;
    memcpy(reply, &h, sizeof h);
}

/* RING_FAULT_NEVER and _LATE, as the CUDA kernel's rk_fault_hold does them: n pending messages from
 * `done` are cut before the next one the fault selects, which is held for ever (NEVER) or until it has
 * waited RING_FAULT_LATE_NS (LATE; *held_since is when it was first seen, 0 while none is held). */
static uint32_t fault_hold(const ring *r, uint32_t done, uint32_t n, uint64_t now, uint64_t *held_since)
{
    const uint32_t every = r->cfg.fault_every;
    if (!every || (r->cfg.fault_kind != RING_FAULT_NEVER && r->cfg.fault_kind != RING_FAULT_LATE))
        return n;
    const uint32_t next = done + (every - (done + 1u) % every) % every; /* the next seq it selects */
    if (next - done >= n)
        return n;
    if (r->cfg.fault_kind == RING_FAULT_LATE) {
        if (*held_since == 0)
            *held_since = now;
        if (now - *held_since >= RING_FAULT_LATE_NS(r->cfg.timeout_s)) {
            *held_since = 0;
            return next - done + 1; /* released: up to and with it */
        }
    }
    return next - done;
}

/* The "kernel": the same loop as the CUDA leader (kernels/ring_kernel.cu, rk_lead), one thread. Like
 * the CUDA kernel it takes every pending message in one poll (a batch, bounded by the output slots
 * the host has freed), processes them all, and publishes them with one store of out_tail. */
static void *cpu_kernel(void *arg)
{
    ring *r = arg;
    cpu_state *s = r->be;
    ring_cb *cb = s->cb;
    placement_kernel_thread();
    const uint64_t start = timing_now_ns(), lifetime = (uint64_t)(r->cfg.max_lifetime_s * 1e9);
    uint64_t last_beat = start;
    uint32_t beats = 1, state = RING_STATE_IDLE, flag_ack = ld(&cb->k.flag_ack), done = 0, errors = 0;
    unsigned idle_polls = 0;
    uint32_t polls = 0, batches = 0; /* for the trace, as rk_lead counts them */
    uint64_t held_since = 0;         /* RING_FAULT_LATE: when the message it holds was first seen */
    st(&cb->k.blocks, 1);
    st(&cb->k.heartbeat, beats);
    st(&cb->k.state, state);
    for (;;) {
        const uint32_t in_tail = ld(&cb->h.in_tail), out_ack = ld(&cb->h.out_ack);
        const uint32_t flag = ld(&cb->h.flag), cmd = ld(&cb->h.cmd);
        const uint64_t now = timing_now_ns();
        polls++;
        if (now - last_beat >= RING_HEARTBEAT_NS) {
            last_beat = now;
            st(&cb->k.heartbeat, ++beats);
        }
        if (flag != flag_ack)
            st(&cb->k.flag_ack, flag_ack = flag);
        uint32_t exit_reason = RING_EXIT_NONE;
        if (cmd & RING_CMD_TERMINATE)
            exit_reason = RING_EXIT_REQUESTED;
        else if (lifetime && now - start >= lifetime)
            exit_reason = RING_EXIT_LIFETIME;
        if (exit_reason != RING_EXIT_NONE) {
            st(&cb->k.exit_reason, exit_reason);
            break;
        }
        const uint32_t want = (cmd & RING_CMD_ACTIVE) ? RING_STATE_ACTIVE : RING_STATE_IDLE;
        if (want != state)
            st(&cb->k.state, state = want);
        uint32_t n = in_tail - done;
        const uint32_t room = out_ack + r->cfg.capacity - done;
        if (n > r->cfg.capacity)
            n = 0; /* a corrupt count: never trusted */
        if (n > room)
            n = room;
        if (n > ring_batch_max(r->cfg.capacity, r->cfg.max_payload))
            n = ring_batch_max(r->cfg.capacity, r->cfg.max_payload);
        if (state == RING_STATE_ACTIVE)
            n = fault_hold(r, done, n, now, &held_since);
        if (state == RING_STATE_ACTIVE && n != 0) {
            ring_trace_rec *t = s->trace ? &s->trace[batches++ & (RING_TRACE_RECS - 1)] : NULL;
            if (t)
                *t =
                    (ring_trace_rec){.poll_ns = now, .seen_ns = timing_now_ns(), .first = done, .n = n, .polls = polls};
            polls = 0;
            const uint32_t bad_before = errors;
            for (uint32_t i = 0; i < n; i++, done++) {
                const size_t off = (size_t)(done & r->mask) * r->stride;
                if (cpu_process(r, s->in_ring + off, s->out_ring + off))
                    errors++;
                if (r->cfg.fault_every && r->cfg.fault_kind != RING_FAULT_BAD_INPUT &&
                    (done + 1) % r->cfg.fault_every == 0)
                    inject_fault(r->cfg.fault_kind, s->out_ring + off);
            }
            if (t)
                t->written_ns = timing_now_ns();
            if (errors != bad_before)
                st(&cb->k.errors, errors);
            st(&cb->k.in_head, done);
            st(&cb->k.out_tail, done);
            if (t)
                t->published_ns = timing_now_ns();
            idle_polls = 0;
        } else if (++idle_polls > 64) {
            sched_yield(); /* CI machines have two cores: leave one to the host thread */
        }
    }
    st(&cb->k.state, RING_STATE_TERMINATED);
    atomic_store(&s->exited, 1);
    return NULL;
}

/* --- the calls the CUDA twin would make (ring_cuda.c, same mode) ------------------------------- */

/* Staged control-block copies use the async path unless xfer=sync (ring_cuda.c: s->async). */
static int twin_async(const ring *r) { return r->cfg.mode.v[RB_AXIS_XFER] != RB_XFER_SYNC; }

/* A put or get of a slot: cudaMemcpyAsync (+ cudaEventRecord for a tracked put; a get's event is
 * counted by cpu_get), or cudaMemcpy (a put from pageable memory with a directly written control
 * block adds cudaStreamSynchronize(0)). */
static void twin_copy(const ring *r, int put, int track)
{
    if (twin_async(r)) {
        CC_COUNT(CC_MEMCPY_ASYNC);
        if (put && track)
            CC_COUNT(CC_EVENT_RECORD);
        return;
    }
    CC_COUNT(CC_MEMCPY);
    if (put && r->cfg.mode.v[RB_AXIS_HOST] == RB_HOST_MALLOC && r->cb_direct)
        CC_COUNT(CC_STREAM_SYNC);
}

static void *alloc_aligned(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, RING_SLOT_ALIGN, bytes ? bytes : RING_SLOT_ALIGN) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

static int cpu_open(ring *r)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return ring_fail(r, RING_ENOMEM, "out of memory");
    r->be = s;
    const size_t ring_bytes = (size_t)r->cfg.capacity * r->stride;
    s->cb = alloc_aligned(sizeof(ring_cb));
    s->deferred = calloc(r->cfg.capacity, sizeof *s->deferred);
    s->in_ring = alloc_aligned(ring_bytes);
    s->out_ring = alloc_aligned(ring_bytes);
    if (!s->cb || !s->in_ring || !s->out_ring || !s->deferred)
        return ring_fail(r, RING_ENOMEM, "out of memory for %zu-byte rings", ring_bytes);
    if (r->cfg.mode.v[RB_AXIS_XFER] == RB_XFER_ZEROCOPY) {
        r->in_stage = s->in_ring;
        r->out_stage = s->out_ring;
    } else {
        s->in_copy = alloc_aligned(ring_bytes);
        s->out_copy = alloc_aligned(ring_bytes);
        if (!s->in_copy || !s->out_copy)
            return ring_fail(r, RING_ENOMEM, "out of memory for %zu-byte staging", ring_bytes);
        r->in_stage = s->in_copy;
        r->out_stage = s->out_copy;
    }
    r->cb_direct = r->cfg.mode.v[RB_AXIS_CTRL] == RB_CTRL_DEVICE ? NULL : s->cb;
    if (r->cfg.trace && !(s->trace = calloc(RING_TRACE_RECS, sizeof *s->trace)))
        return ring_fail(r, RING_ENOMEM, "out of memory for the trace");
    r->blocks = 1;
    return RING_OK;
}

static void cpu_join(cpu_state *s)
{
    if (s->thread_started) {
        pthread_join(s->thread, NULL);
        s->thread_started = 0;
    }
}

static void cpu_close(ring *r)
{
    cpu_state *s = r->be;
    if (!s)
        return;
    /* ring_close terminated the kernel (bounded); if that failed, stop it outright. */
    if (s->thread_started && !atomic_load(&s->exited))
        st(&s->cb->h.cmd, RING_CMD_TERMINATE);
    cpu_join(s);
    free(s->cb);
    free(s->in_ring);
    free(s->out_ring);
    free(s->in_copy);
    free(s->out_copy);
    free(s->deferred);
    free(s->trace);
    free(s);
    r->be = NULL;
}

static int cpu_launch(ring *r, int forgot)
{
    (void)forgot; /* its "device" rings are the host's slots, which ring.c forgot */
    cpu_state *s = r->be;
    cpu_join(s);
    uint32_t *w = (uint32_t *)s->cb;
    for (size_t i = 0; i < sizeof(ring_cb) / 4; i++)
        st(&w[i], 0);
    atomic_store(&s->exited, 0);
    s->awaiting = 0; /* the twin's release_waits: what a dead kernel never answered is dropped */
    s->def_head = s->def_tail = 0;
    s->get_pending = 0;
    if (s->trace)
        memset(s->trace, 0, RING_TRACE_RECS * sizeof *s->trace);
    if (pthread_create(&s->thread, NULL, cpu_kernel, r) != 0)
        return ring_fail(r, RING_EKERNEL, "pthread_create failed for the CPU kernel thread");
    s->thread_started = 1;
    if (!r->cb_direct)
        CC_COUNT(CC_OTHER); /* cudaMemsetAsync of the device control block */
    CC_COUNT(CC_OTHER);     /* cudaMemsetAsync of the scratch */
    if (s->trace)
        CC_COUNT(CC_OTHER); /* cudaMemsetAsync of the trace */
    CC_COUNT(CC_LAUNCH);
    return RING_OK;
}

static int cpu_status(ring *r)
{
    cpu_state *s = r->be;
    if (!s->thread_started)
        return 1;
    CC_COUNT(CC_STREAM_QUERY);
    if (!atomic_load(&s->exited))
        return 0;
    cpu_join(s);
    return 1;
}

static int cpu_put(ring *r, uint32_t first, uint32_t n, size_t bytes, int track)
{
    (void)n;
    cpu_state *s = r->be;
    const size_t off = (size_t)first * r->stride;
    memcpy(s->in_ring + off, r->in_stage + off, bytes);
    twin_copy(r, 1, track);
    return RING_OK;
}

/* The reply stream: runs the queued gets whose wait out_tail now satisfies, in order. */
static void run_deferred(ring *r)
{
    cpu_state *s = r->be;
    while (s->def_head != s->def_tail) {
        const cpu_deferred *d = &s->deferred[s->def_head % r->cfg.capacity];
        if (ring_diff(ld(&s->cb->k.out_tail), d->value) < 0)
            return;
        memcpy(r->out_stage + d->off, s->out_ring + d->off, d->bytes);
        s->def_head++;
    }
    s->awaiting = 0;
}

static int cpu_get(ring *r, uint32_t first, uint32_t n, size_t bytes)
{
    cpu_state *s = r->be;
    const size_t off = (size_t)first * r->stride;
    if (twin_async(r)) {
        if (s->get_pending)
            CC_COUNT(CC_EVENT_RECORD);
        s->get_pending = 1;
        s->get_last = first + n - 1;
    }
    twin_copy(r, 0, 1);
    if (s->awaiting) { /* behind a wait of the reply stream: copied once out_tail allows */
        s->deferred[s->def_tail++ % r->cfg.capacity] = (cpu_deferred){s->await_value, first + n - 1, off, bytes};
        run_deferred(r);
        return RING_OK;
    }
    memcpy(r->out_stage + off, s->out_ring + off, bytes);
    return RING_OK;
}

static int cpu_put_done(ring *r, uint32_t slot)
{
    (void)slot;
    if (twin_async(r))
        CC_COUNT(CC_EVENT_QUERY); /* the twin asks the slot's event; a sync copy has none */
    return 1;                     /* puts complete before put returns */
}

static int cpu_get_done(ring *r, uint32_t slot)
{
    cpu_state *s = r->be;
    const int by_event = twin_async(r) && (!s->get_pending || slot != s->get_last);
    if (twin_async(r))
        CC_COUNT(by_event ? CC_EVENT_QUERY : CC_STREAM_QUERY); /* the newest run: the stream's state */
    run_deferred(r);
    for (uint32_t i = s->def_head; i != s->def_tail; i++)
        if (s->deferred[i % r->cfg.capacity].last == slot)
            return 0;
    if (twin_async(r) && !by_event)
        s->get_pending = 0;
    return 1;
}

/* Stream-ordered control (ring_internal.h). The put before it has already completed (a memcpy),
 * so the stream's write of in_tail happens now. */
static int cpu_announce(ring *r, uint32_t value)
{
    cpu_state *s = r->be;
    CC_COUNT(CC_OTHER); /* cuStreamWriteValue32 */
    st(&s->cb->h.in_tail, value);
    return RING_OK;
}

static int cpu_await_reply(ring *r, uint32_t value)
{
    cpu_state *s = r->be;
    CC_COUNT(CC_OTHER); /* cuStreamWaitValue32 */
    s->awaiting = 1;
    s->await_value = value;
    return RING_OK;
}

static int cpu_cb_write(ring *r, uint32_t snap)
{
    cpu_state *s = r->be;
    st(&s->cb->h.out_ack, r->shadow.out_ack);
    st(&s->cb->h.flag, r->shadow.flag);
    st(&s->cb->h.cmd, r->shadow.cmd);
    st(&s->cb->h.in_tail, r->shadow.in_tail);
    if (!twin_async(r)) {
        CC_COUNT(CC_MEMCPY);
    } else {
        CC_COUNT(CC_MEMCPY_ASYNC);
        if (snap == r->cfg.capacity) /* a write that completes before cb_write returns */
            CC_COUNT(CC_STREAM_SYNC);
    }
    return RING_OK;
}

static int cpu_cb_read(ring *r)
{
    cpu_state *s = r->be;
    const uint32_t *src = (const uint32_t *)&s->cb->k;
    uint32_t *dst = (uint32_t *)&r->kview;
    for (size_t i = 0; i < sizeof(ring_cb_kern) / 4; i++)
        dst[i] = ld(&src[i]);
    if (twin_async(r)) {
        CC_COUNT(CC_MEMCPY_ASYNC);
        CC_COUNT(CC_STREAM_SYNC);
    } else {
        CC_COUNT(CC_MEMCPY);
    }
    return RING_OK;
}

static int cpu_trace_read(ring *r, ring_trace_rec *out)
{
    cpu_state *s = r->be;
    memcpy(out, s->trace, RING_TRACE_RECS * sizeof *out); /* the thread has exited and been joined */
    CC_COUNT(CC_MEMCPY);
    return RING_OK;
}

const ring_ops ring_cpu_ops = {
    .open = cpu_open,
    .close = cpu_close,
    .launch = cpu_launch,
    .status = cpu_status,
    .put = cpu_put,
    .get = cpu_get,
    .put_done = cpu_put_done,
    .get_done = cpu_get_done,
    .cb_write = cpu_cb_write,
    .cb_read = cpu_cb_read,
    .announce = cpu_announce,
    .await_reply = cpu_await_reply,
    .trace_read = cpu_trace_read,
};
