/* ring.c - the host side of the ring protocol, common to every backend (see ring.h).
 *
 * Counters (all wrap at 2^32; differences are what matter):
 *   issued    messages whose payload has been written and whose put has started
 *   published messages announced to the kernel through in_tail
 *   fetched   replies whose get has started (the kernel's out_tail said they exist)
 *   consumed  replies verified; the host acknowledges them through out_ack
 *   delivered replies handed to the caller, one per ring_recv (progress made inside ring_send may
 *             verify replies before the caller asks for them)
 * The host never has more than `capacity` messages in flight (issued - consumed), so it never writes
 * an input slot the kernel has not consumed, and the kernel never waits for an output slot as long as
 * the host keeps publishing. That is why a staged control block can carry out_ack lazily, with the
 * next in_tail.
 */
#define _POSIX_C_SOURCE 200809L
#include "ring_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/* One copy covers at most this many bytes of consecutive slots (see run_slots_max). */
#define RUN_MAX_BYTES (1u << 20)

/* Replies up to this size may be taken before out_tail announces them (try_reply). */
#define EARLY_MAX_BYTES 256u

/* ... and only while at most this many messages are in flight. Early replies are a latency
 * shortcut. On the H100 a zero-copy ring at 8 B and the full window moved 21-24 M msg/s with them
 * against 28-40 without (64 B: 16-17 against 20-23; async 8 B: 17 against 21-23) - the host then
 * mostly spins on reply slots the kernel is still writing (inferred, not measured directly) - while
 * at windows of 8 they are a third of the rate (2.7 against 1.9 M msg/s) and up to 64 they made no
 * difference (docs/decisions/0015-windows-in-pieces-and-early-reply-limit.md). */
#define EARLY_MAX_IN_FLIGHT 256u

/* Replies verified together are shared out over the worker pool once their work reaches
 * ring_config.verify_split bytes (verify_range). A reply's work is its payload plus VERIFY_REPLY_BYTES
 * for what it costs whatever its size (its header read from memory the GPU wrote, the sequence and
 * length checks). Counted by payload alone, a zero-copy window of 8-byte replies, posted in pieces of
 * 512, never reached 32 KiB and was checked by one thread: 31 / 22 M msg/s at the full window on the
 * H100, against 44 / 38 split (docs/decisions/0016-replies-verified-over-the-pool.md). A piece of a shared
 * pass is VERIFY_PIECE_BYTES of that work (verify_piece). Counted by payload, a piece was 2 048 replies
 * of 8 bytes, so a post's 512 replies went to one thread while the others woke for nothing, and the
 * full window's rate followed that thread's speed from ring to ring: zero-copy 8 B moved 37-39 M msg/s
 * (33-58 between rings), 120 replies a piece 62-70 (49-93), 64 B 39 against 55, async 8 B 35-37
 * against 43-48 (docs/decisions/0016-replies-verified-over-the-pool.md). From 1 KiB a piece is within a
 * reply of what payload alone gives; at 4 KiB, 3 replies a piece (work, rounded down) instead of 4 cost
 * async 9 %, hence the rounding. */
#define VERIFY_REPLY_BYTES 128u
#define VERIFY_PIECE_BYTES (16u * 1024u)

static uint64_t verify_work(uint64_t n, uint32_t len) { return n * ((uint64_t)len + VERIFY_REPLY_BYTES); }

/* Replies of len bytes per piece of a shared pass: VERIFY_PIECE_BYTES of work, rounded to the
 * nearest reply, at least one. */
static uint32_t verify_piece(uint32_t len)
{
    const uint64_t w = verify_work(1, len), n = (VERIFY_PIECE_BYTES + w / 2) / w;
    return n ? (uint32_t)n : 1u;
}

/* How often (in polls) a waiting loop reads the clock, and how often (in ns) it asks the backend
 * whether the kernel is still alive: a cudaStreamQuery costs about a microsecond, too much for every
 * few polls of a round trip that takes a few microseconds. */
#define STATUS_EVERY 256
#define STATUS_INTERVAL_NS 1000000u

const char *ring_backend_name(ring_backend b)
{
    return b == RING_BACKEND_CUDA ? "cuda" : b == RING_BACKEND_CPU ? "cpu" : "unknown";
}

void ring_config_default(ring_config *c)
{
    memset(c, 0, sizeof *c);
    c->backend = RING_BACKEND_CPU;
    c->mode = mode_native();
    c->capacity = 16;
    c->max_payload = 4096;
    c->timeout_s = 5.0;
    c->max_lifetime_s = 60.0;
    c->seed = 1;
    c->host_workers = -1;
    c->early_replies = -1;
    c->early_take = 1;
    c->leader_reply = 1;
    c->stream_ops = 0;
    c->shortcuts_busy = 0;
    c->post_max = RING_POST_MAX_DEFAULT;
    c->verify_split = RING_VERIFY_SPLIT_DEFAULT;
    c->refill_first = 1;
    c->refill_headers = -1;
}

int ring_fail(ring *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return code;
}

const char *ring_error(const ring *r) { return r->err; }
int ring_trace_read(ring *r, ring_trace_rec *out)
{
    if (!r->cfg.trace)
        return ring_fail(r, RING_ESTATE, "ring_trace_read: the ring was opened without a trace (ring_config.trace)");
    if (r->launched && !r->terminated)
        return ring_fail(r, RING_ESTATE, "ring_trace_read: the kernel still runs (ring_terminate first)");
    return r->ops->trace_read(r, out);
}

const ring_stats *ring_get_stats(const ring *r) { return &r->st; }
const ring_config *ring_get_config(const ring *r) { return &r->cfg; }
uint32_t ring_blocks(const ring *r) { return r->blocks; }
int ring_uses_stream_ops(const ring *r) { return r->stream_ops; }
uint32_t ring_in_flight(const ring *r) { return r->issued - r->delivered; }

/* --- control-block access -------------------------------------------------------------------- */

static inline uint32_t load_acquire(const uint32_t *p)
{
    return atomic_load_explicit((_Atomic uint32_t *)(uintptr_t)p, memory_order_acquire);
}

static inline void store_release(uint32_t *p, uint32_t v)
{
    atomic_store_explicit((_Atomic uint32_t *)(uintptr_t)p, v, memory_order_release);
}

static int xfer_is(const ring *r, mode_xfer x) { return r->cfg.mode.v[RB_AXIS_XFER] == (int)x; }

/* Writes the host half. Directly: only the fields that changed, each with a release store (the
 * payload stores before it are ordered by it). Staged: the whole half as one copy; snap names the
 * snapshot buffer the backend copies from (an input slot, or capacity for a synchronous write). */
static int publish(ring *r, uint32_t snap)
{
    if (!r->cb_direct)
        return r->ops->cb_write(r, snap);
    ring_cb_host *h = &r->cb_direct->h, *w = &r->written;
    if (w->out_ack != r->shadow.out_ack)
        store_release(&h->out_ack, w->out_ack = r->shadow.out_ack);
    if (w->flag != r->shadow.flag)
        store_release(&h->flag, w->flag = r->shadow.flag);
    if (w->cmd != r->shadow.cmd)
        store_release(&h->cmd, w->cmd = r->shadow.cmd);
    if (w->in_tail != r->shadow.in_tail)
        store_release(&h->in_tail, w->in_tail = r->shadow.in_tail);
    return RING_OK;
}

/* Refreshes r->kview. The hot path (full = 0) needs only out_tail, and reads only that when the
 * control block is directly accessible: with managed memory every extra read can move the page. */
static int refresh(ring *r, int full)
{
    if (!r->cb_direct)
        return r->ops->cb_read(r);
    const ring_cb_kern *k = &r->cb_direct->k;
    r->kview.out_tail = load_acquire(&k->out_tail);
    if (full) {
        r->kview.state = load_acquire(&k->state);
        r->kview.exit_reason = load_acquire(&k->exit_reason);
        r->kview.in_head = load_acquire(&k->in_head);
        r->kview.errors = load_acquire(&k->errors);
        r->kview.heartbeat = load_acquire(&k->heartbeat);
        r->kview.flag_ack = load_acquire(&k->flag_ack);
        r->kview.blocks = load_acquire(&k->blocks);
    }
    return RING_OK;
}

/* --- open / close ------------------------------------------------------------------------------ */

static void fill_slots(ring *r);

static void free_arrays(ring *r)
{
    free(r->lens);
    free(r->slot_len);
    free(r->slot_sum);
    free(r->put_runs);
    free(r->get_runs);
}

uint32_t ring_capacity_for(uint32_t max_payload)
{
    uint32_t cap = RING_CAPACITY_SMALL;
    while (cap > 2 && (uint64_t)cap * ring_slot_stride(max_payload) > RING_BYTES_BUDGET)
        cap /= 2;
    return cap;
}

/* A switch that -1 turns on for the CUDA backend only (early_replies, refill_headers): 1 on, 0 off. */
static int cuda_default(int v, const ring_config *cfg) { return v > 0 || (v < 0 && cfg->backend == RING_BACKEND_CUDA); }

/* The host's side of slot `slot` in a ring laid out from base (r->in_stage or r->out_stage). */
static unsigned char *slot_at(unsigned char *base, const ring *r, uint32_t slot)
{
    return base + (size_t)slot * r->stride;
}

int ring_open(const ring_config *cfg, ring **out, char *err, size_t errlen)
{
    *out = NULL;
    const char *why = ring_check_geometry(cfg->capacity, cfg->max_payload);
    if (!why)
        why = mode_invalid_reason(&cfg->mode);
    if (!why && !(cfg->timeout_s > 0))
        why = "timeout must be positive";
    if (why) {
        snprintf(err, errlen, "%s", why);
        return RING_EARG;
    }
    const ring_ops *ops = NULL;
    if (cfg->backend == RING_BACKEND_CPU)
        ops = &ring_cpu_ops;
#ifdef RINGBENCH_HAVE_CUDA
    else if (cfg->backend == RING_BACKEND_CUDA)
        ops = &ring_cuda_ops;
#endif
    if (!ops) {
        snprintf(err, errlen, "backend '%s' is not built into this ringbench", ring_backend_name(cfg->backend));
        return RING_EUNSUPPORTED;
    }
    ring *r = calloc(1, sizeof *r);
    if (!r || !(r->lens = calloc(cfg->capacity, sizeof *r->lens)) ||
        !(r->slot_len = calloc(cfg->capacity, sizeof *r->slot_len)) ||
        !(r->slot_sum = calloc(cfg->capacity, sizeof *r->slot_sum)) ||
        !(r->put_runs = calloc(cfg->capacity, sizeof *r->put_runs)) ||
        !(r->get_runs = calloc(cfg->capacity, sizeof *r->get_runs))) {
        if (r)
            free_arrays(r);
        free(r);
        snprintf(err, errlen, "out of memory");
        return RING_ENOMEM;
    }
    r->cfg = *cfg;
    r->ops = ops;
    int workers = cfg->host_workers < 0 ? pool_default_workers() : cfg->host_workers;
    /* A pool when a message is large enough for it, or a full ring's replies could be split. */
    const int pooled = cfg->max_payload >= RING_POOL_MIN_BYTES ||
                       (cfg->verify_split && verify_work(cfg->capacity, cfg->max_payload) >= cfg->verify_split);
    if (pooled && workers > 0 && pool_create(workers, &r->pool) != 0)
        r->pool = NULL; /* no pool: the host work runs on the calling thread */
    r->stride = ring_slot_stride(cfg->max_payload);
    r->mask = cfg->capacity - 1;
    /* Requested here; the backend's open clears it when the platform refuses stream memory ops.
     * Pinned staging only: a cudaMemcpyAsync into pageable memory returns only once the copy is
     * done, so a copy queued behind a wait for the reply would hold the host thread until then. */
    r->stream_ops = cfg->stream_ops && xfer_is(r, RB_XFER_ASYNC) && cfg->mode.v[RB_AXIS_CTRL] != RB_CTRL_DEVICE &&
                    cfg->mode.v[RB_AXIS_HOST] == RB_HOST_PINNED && ops->announce && ops->await_reply;
    int rc = ops->open(r);
    if (rc != RING_OK) {
        snprintf(err, errlen, "%s", r->err);
        ops->close(r);
        pool_destroy(r->pool);
        free_arrays(r);
        free(r);
        return rc;
    }
    r->early = (xfer_is(r, RB_XFER_ZEROCOPY) || xfer_is(r, RB_XFER_ASYNC)) && cuda_default(cfg->early_replies, cfg);
    r->refill = cfg->refill_first && xfer_is(r, RB_XFER_ZEROCOPY) && r->cb_direct;
    r->refill_hdr = r->refill && cuda_default(cfg->refill_headers, cfg);
    fill_slots(r);
    *out = r;
    return RING_OK;
}

void ring_close(ring *r)
{
    if (!r)
        return;
    if (r->launched && !r->terminated)
        (void)ring_terminate(r);
    r->ops->close(r);
    pool_destroy(r->pool);
    free_arrays(r);
    free(r);
}

/* --- waiting ----------------------------------------------------------------------------------- */

typedef enum { WAIT_STATE, WAIT_FLAG_ACK } wait_kind;

static const char *state_name(uint32_t s)
{
    switch (s) {
    case RING_STATE_NONE: return "not started";
    case RING_STATE_IDLE: return "idle";
    case RING_STATE_ACTIVE: return "active";
    case RING_STATE_TERMINATED: return "terminated";
    default: return "corrupt";
    }
}

static const char *exit_name(uint32_t e)
{
    return e == RING_EXIT_REQUESTED ? "on request" : e == RING_EXIT_LIFETIME ? "at its maximum lifetime" : "";
}

/* Asks the backend whether the kernel still runs; turns an exit into RING_EKERNEL with a message. */
static int check_alive(ring *r, const char *waiting_for)
{
    int s = r->ops->status(r);
    if (s == 0)
        return RING_OK;
    if (s == 1) {
        (void)refresh(r, 1);
        r->terminated = 1;
        return ring_fail(r, RING_EKERNEL, "kernel exited %s while waiting for %s",
                         r->kview.exit_reason ? exit_name(r->kview.exit_reason) : "unexpectedly", waiting_for);
    }
    r->terminated = 1;
    return s; /* the backend wrote why it died */
}

static int wait_for(ring *r, wait_kind kind, uint32_t value, const char *what)
{
    const uint64_t t0 = timing_now_ns();
    for (uint64_t polls = 1;; polls++) {
        int rc = refresh(r, 1);
        if (rc != RING_OK)
            return rc;
        if ((kind == WAIT_STATE && r->kview.state == value) || (kind == WAIT_FLAG_ACK && r->kview.flag_ack == value))
            return RING_OK;
        if (polls % STATUS_EVERY == 0 || kind == WAIT_STATE) {
            if ((rc = check_alive(r, what)) != RING_OK)
                return rc;
        }
        if (timing_seconds_since(t0) > r->cfg.timeout_s)
            return ring_fail(r, RING_ETIMEOUT, "timed out after %.3g s waiting for %s (kernel state %s, heartbeat %u)",
                             r->cfg.timeout_s, what, state_name(r->kview.state), r->kview.heartbeat);
    }
}

/* --- lifecycle --------------------------------------------------------------------------------- */

/* Before a relaunch of a ring that carried messages: every slot the host sees gets a header no message
 * of the new launch has (seq one lap behind its slot, an impossible length, no check word). Counters
 * restart at 0, and payloads are the same function of seed, slot and seq, so a reply of the last
 * launch left in place would verify as the new message of the same index: taken early (try_reply) it
 * would answer a message the kernel never saw, and hide one it lost; a stale lone input of up to 16 B
 * in a zero-copy ring could be taken early by the new kernel. A copy mode's input ring in device memory
 * keeps the last launch's messages just the same; the backend's launch copies these headers over them
 * (ring_ops.launch's forgot). Not done for a ring that carried none, so that launches timed back to back (lifecycle
 * trials) cost what they did. */
static void forget_slots(ring *r)
{
    for (uint32_t slot = 0; slot < r->cfg.capacity; slot++) {
        const ring_hdr h = {.seq = slot - r->cfg.capacity, .len = UINT32_MAX, .sum = 0, .flags = 0};
        memcpy(slot_at(r->in_stage, r, slot), &h, sizeof h);
        memcpy(slot_at(r->out_stage, r, slot), &h, sizeof h);
    }
}

int ring_launch(ring *r)
{
    if (r->launched && !r->terminated)
        return ring_fail(r, RING_ESTATE, "ring_launch: the kernel is already running");
    const int forgot = r->issued != 0;
    if (forgot)
        forget_slots(r);
    memset(&r->shadow, 0, sizeof r->shadow);
    memset(&r->written, 0, sizeof r->written);
    memset(&r->kview, 0, sizeof r->kview);
    r->issued = r->published = r->fetched = r->consumed = r->delivered = r->hseen = 0;
    r->put_head = r->put_tail = r->get_head = r->get_tail = 0;
    r->launched = 0;
    r->terminated = 0;
    int rc = r->ops->launch(r, forgot);
    if (rc != RING_OK)
        return rc;
    r->launched = 1;
    return wait_for(r, WAIT_STATE, RING_STATE_IDLE, "the kernel's first heartbeat");
}

static int set_cmd(ring *r, uint32_t cmd, uint32_t state, const char *what)
{
    if (!r->launched || r->terminated)
        return ring_fail(r, RING_ESTATE, "%s: the kernel is not running", what);
    r->shadow.cmd = cmd;
    r->shadow.out_ack = r->consumed;
    int rc = publish(r, r->cfg.capacity);
    if (rc != RING_OK)
        return rc;
    return wait_for(r, WAIT_STATE, state, what);
}

int ring_activate(ring *r) { return set_cmd(r, RING_CMD_ACTIVE, RING_STATE_ACTIVE, "activation"); }

int ring_deactivate(ring *r) { return set_cmd(r, 0, RING_STATE_IDLE, "deactivation"); }

int ring_terminate(ring *r)
{
    if (!r->launched)
        return ring_fail(r, RING_ESTATE, "ring_terminate: the kernel was never launched");
    int rc = RING_OK;
    if (!r->terminated) {
        r->shadow.cmd |= RING_CMD_TERMINATE;
        rc = publish(r, r->cfg.capacity);
        const uint64_t t0 = timing_now_ns();
        while (rc == RING_OK) {
            int s = r->ops->status(r);
            if (s == 1)
                break;
            if (s < 0) {
                rc = s;
                break;
            }
            if (timing_seconds_since(t0) > r->cfg.timeout_s)
                rc = ring_fail(r, RING_ETIMEOUT, "timed out after %.3g s waiting for the kernel to exit",
                               r->cfg.timeout_s);
        }
        r->terminated = 1;
    }
    /* Whatever is still in flight will never be answered. */
    r->st.lost += (uint32_t)(r->issued - r->consumed);
    r->consumed = r->fetched = r->delivered = r->published = r->issued;
    r->put_head = r->put_tail = r->get_head = r->get_tail = 0;
    if (rc == RING_OK) {
        (void)refresh(r, 1);
        r->st.kernel_errors = r->kview.errors;
    }
    return rc;
}

/* --- messages ---------------------------------------------------------------------------------- */

/* Gives every input slot its payload once. Producing payloads is the application's work, not the
 * ring's, so it stays out of the measured path; a reply still differs for every message because the
 * kernel's transform is keyed by the sequence number, so verification catches stale, lost,
 * duplicated and corrupted replies all the same. */
static void fill_slots(ring *r)
{
    for (uint32_t slot = 0; slot < r->cfg.capacity; slot++) {
        unsigned char *base = slot_at(r->in_stage, r, slot);
        (void)ring_payload_pass(r, RING_PASS_GENERATE, (uint32_t *)(base + sizeof(ring_hdr)), r->cfg.max_payload / 4,
                                slot, 0, NULL);
        r->slot_len[slot] = 0;
    }
}

/* Whether message seq is one whose input the host damages on purpose (RING_FAULT_BAD_INPUT). */
static int input_fault(const ring *r, uint32_t seq)
{
    return r->cfg.fault_kind == RING_FAULT_BAD_INPUT && r->cfg.fault_every && (seq + 1) % r->cfg.fault_every == 0;
}

/* Makes slot carry message seq of len bytes: only the sealed header changes. */
static void stage_message(ring *r, uint32_t slot, uint32_t seq, uint32_t len, int lone)
{
    unsigned char *base = slot_at(r->in_stage, r, slot);
    if (r->slot_len[slot] != len) {
        r->slot_sum[slot] =
            ring_payload_pass(r, RING_PASS_SUM, (uint32_t *)(base + sizeof(ring_hdr)), len / 4, slot, 0, NULL);
        r->slot_len[slot] = len;
    }
    /* RING_FAULT_BAD_INPUT: a wrong checksum under a header whose check word is right, so the kernel
     * reads the message as landed and must flag it (RING_FLAG_BAD_INPUT). */
    const uint32_t sum = ring_seal(r->slot_sum[slot], seq, len) ^ (uint32_t)input_fault(r, seq);
    ring_hdr h = {seq, len, sum, lone ? ring_hdr_check_lone(seq, len, sum) : ring_hdr_check(seq, len, sum)};
    memcpy(base, &h, sizeof h);
}

/* REPLY_BAD_INPUT: a reply to an input damaged on purpose (input_fault), flagged by the kernel as it
 * must be and otherwise exact. */
typedef enum {
    REPLY_VERIFIED,
    REPLY_CORRUPTED,
    REPLY_LOST,
    REPLY_DUPLICATED,
    REPLY_BAD_INPUT,
    REPLY_OUTCOMES
} reply_outcome;

/* Judges reply `index` in its output slot. Reads the ring, writes nothing: several threads may judge
 * different replies at once (verify_range). Large payloads go through ring_payload_pass (the pool,
 * and the payload timer) only when pooled is 0. */
/* Keeps the first reply that did not verify (ring_first_bad): the first thread to find one takes it. */
static reply_outcome note_bad(ring *r, uint32_t index, uint32_t seq, reply_outcome o)
{
    if (o != REPLY_VERIFIED && o != REPLY_BAD_INPUT &&
        !atomic_exchange_explicit(&r->bad_taken, 1, memory_order_relaxed)) {
        r->bad_index = index;
        r->bad_seq = seq;
        r->bad_outcome = (int)o;
    }
    return o;
}

static reply_outcome judge_reply(ring *r, uint32_t index, int pooled)
{
    const uint32_t slot = index & r->mask;
    const unsigned char *base = slot_at(r->out_stage, r, slot);
    ring_hdr h;
    memcpy(&h, base, sizeof h);
    if (h.seq != index)
        return note_bad(r, index, h.seq, ring_diff(h.seq, index) < 0 ? REPLY_DUPLICATED : REPLY_LOST);
    const int damaged = input_fault(r, index);
    if (h.len != r->lens[slot] || h.flags != (damaged ? RING_FLAG_BAD_INPUT : 0u))
        return note_bad(r, index, h.seq, REPLY_CORRUPTED);
    uint32_t bad = 0, sum;
    uint32_t *w = (uint32_t *)(base + sizeof(ring_hdr));
    if (pooled)
        bad = ring_check_words(w, 0, h.len / 4, r->cfg.seed, slot, index, &sum);
    else
        sum = ring_payload_pass(r, RING_PASS_CHECK, w, h.len / 4, slot, index, &bad);
    return note_bad(r, index, h.seq,
                    bad || ring_seal(sum, index, h.len) != h.sum ? REPLY_CORRUPTED
                    : damaged                                    ? REPLY_BAD_INPUT
                                                                 : REPLY_VERIFIED);
}

static void count_outcome(ring_stats *st, reply_outcome o, uint64_t n)
{
    st->received += n;
    switch (o) {
    case REPLY_VERIFIED: st->verified += n; break;
    case REPLY_CORRUPTED: st->corrupted += n; break;
    case REPLY_LOST: st->lost += n; break;
    case REPLY_DUPLICATED: st->duplicated += n; break;
    case REPLY_BAD_INPUT: st->bad_input += n; break;
    case REPLY_OUTCOMES: break;
    }
}

/* Checks reply `index` in its output slot and counts the outcome. */
static void verify_reply(ring *r, uint32_t index) { count_outcome(&r->st, judge_reply(r, index, 0), 1); }

/* verify_range over the pool: replies are taken a piece at a time by whichever thread runs. */
typedef struct verify_job {
    ring *r;
    uint32_t from, n, per_piece;
    atomic_uint next;
    atomic_uint count[REPLY_OUTCOMES];
} verify_job;

/* The job's fields are read once, into locals: every thread's atomic add on `next` takes the job's
 * line away from the others, and judge_reply's call (the job's address has escaped) made the compiler
 * read r and from again for every reply, a miss whenever they shared that line. Where the poller's
 * stack put the job against line boundaries then set a fifth of the full window's rate
 * (docs/decisions/0017-verify-job-fields.md). */
static void verify_pieces(void *ctx)
{
    verify_job *j = ctx;
    ring *const r = j->r;
    const uint32_t from = j->from, n = j->n, per_piece = j->per_piece;
    uint32_t count[REPLY_OUTCOMES] = {0};
    for (;;) {
        const uint32_t lo = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed) * per_piece;
        if (lo >= n)
            break;
        const uint32_t hi = n - lo < per_piece ? n : lo + per_piece;
        for (uint32_t i = lo; i < hi; i++)
            count[judge_reply(r, from + i, 1)]++;
    }
    for (int k = 0; k < REPLY_OUTCOMES; k++)
        if (count[k])
            atomic_fetch_add_explicit(&j->count[k], count[k], memory_order_relaxed);
}

/* Verifies replies [from, to) and counts them: shared out over the pool when their work reaches
 * ring_config.verify_split (verify_work), else one after another; a reply large enough for the pool on
 * its own (RING_POOL_MIN_BYTES) is split within itself instead, one at a time. */
static void verify_range(ring *r, uint32_t from, uint32_t to)
{
    const uint32_t n = to - from;
    uint64_t work = 0;
    uint32_t len_max = 0;
    const int may_share = n >= 2 && r->pool && r->cfg.verify_split;
    for (uint32_t i = from; may_share && i != to; i++) {
        const uint32_t len = r->lens[i & r->mask];
        work += verify_work(1, len);
        len_max = len > len_max ? len : len_max;
    }
    if (!may_share || work < r->cfg.verify_split || len_max >= RING_POOL_MIN_BYTES) {
        while (from != to)
            verify_reply(r, from++);
        return;
    }
    const uint32_t len = len_max ? len_max : 4;
    verify_job j = {.r = r, .from = from, .n = n, .per_piece = verify_piece(len)};
    atomic_init(&j.next, 0);
    for (int k = 0; k < REPLY_OUTCOMES; k++)
        atomic_init(&j.count[k], 0);
    const uint64_t t0 = len >= RING_TIMED_MIN_BYTES ? timing_now_ns() : 0;
    pool_run(r->pool, verify_pieces, &j); /* the pool's wait orders the threads' adds before these loads */
    if (t0)
        r->st.payload_ns += timing_now_ns() - t0;
    for (int k = 0; k < REPLY_OUTCOMES; k++)
        count_outcome(&r->st, (reply_outcome)k, atomic_load(&j.count[k]));
    r->st.split += n;
}

/* The most slots one copy run holds: a run stops growing at RUN_MAX_BYTES. A copy has a fixed cost
 * of microseconds, so small messages go in as few copies as possible; but a run is announced only
 * once all of it has landed, so large messages keep one copy each and the kernel starts on the
 * first while the next is still in flight. */
static uint32_t run_slots_max(const ring *r)
{
    const size_t k = RUN_MAX_BYTES / r->stride;
    return k == 0 ? 1 : k > r->cfg.capacity ? r->cfg.capacity : (uint32_t)k;
}

/* Starts the copies of messages [from, to): one per contiguous run of slots, so one copy per batch,
 * or two when the batch wraps around the end of the ring (or more past RUN_MAX_BYTES). When track,
 * each run's end goes into the put or get FIFO, for put_done/get_done. */
static int copy_runs(ring *r, int put, uint32_t from, uint32_t to, int track)
{
    const uint32_t kmax = run_slots_max(r);
    while (from != to) {
        const uint32_t first = from & r->mask;
        uint32_t k = to - from;
        if (k > r->cfg.capacity - first)
            k = r->cfg.capacity - first;
        if (k > kmax)
            k = kmax;
        const uint32_t last = first + k - 1;
        /* Every slot's header and payload lie within its stride: up to the last slot's payload. */
        const size_t bytes = (size_t)(k - 1) * r->stride + sizeof(ring_hdr) + r->lens[last];
        int rc = put ? r->ops->put(r, first, k, bytes, track) : r->ops->get(r, first, k, bytes);
        if (rc != RING_OK)
            return rc;
        from += k;
        if (track && put)
            r->put_runs[r->put_tail++ & r->mask] = from;
        else if (track)
            r->get_runs[r->get_tail++ & r->mask] = from;
    }
    return RING_OK;
}

/* The latency path of zero-copy and async rings. The output ring (zero-copy) or the staging buffer a
 * reply's copy lands in (async) is host memory, so the host can see a reply land without waiting
 * for what announces it: out_tail (zero-copy: the kernel writes reply words and header, then one
 * system fence, then out_tail, and the fence is most of what separates the reply's arrival from
 * out_tail's), or the copy's completion (async: the runtime reports a finished copy microseconds
 * after its bytes are in place). A reply is taken early only when all of it already verifies -
 * sequence number, length, flags, every word against the generator and key, the sealed checksum -
 * which a stale reply (seq - capacity) or one still landing cannot do. Anything else is left alone
 * and judged, and counted, the ordinary way once out_tail covers it, so a damaged reply is still
 * counted exactly once. Small replies only: the check reads the whole payload on every poll. */
static int try_reply(ring *r, uint32_t index)
{
    const uint32_t slot = index & r->mask, len = r->lens[slot];
    if (len > EARLY_MAX_BYTES)
        return 0;
    const unsigned char *base = slot_at(r->out_stage, r, slot);
    /* A compiler barrier too: the words are re-read on every poll, never kept from an earlier one. */
    atomic_thread_fence(memory_order_acquire);
    ring_hdr h;
    memcpy(&h, base, sizeof h);
    if (h.seq != index || h.len != len || h.flags)
        return 0;
    uint32_t words[EARLY_MAX_BYTES / 4], sum = 0;
    memcpy(words, base + sizeof h, len);
    if (ring_check_words(words, 0, len / 4, r->cfg.seed, slot, index, &sum) || ring_seal(sum, index, len) != h.sum)
        return 0;
    r->st.received++;
    r->st.verified++;
    r->st.early++;
    return 1;
}

/* ring_progress, step 0: replies that already verify - zero-copy before out_tail announces them,
 * async before their copy reports done (only replies whose copy was started: fetched) - while at
 * most EARLY_MAX_IN_FLIGHT messages are in flight. Not in a pump that counts reply headers
 * (refill_headers): its refill already goes out on a reply's header, and its replies are checked
 * together once out_tail covers them. Taken early one by one as well, at W = 64 8 B and 64 B moved
 * 10-14 % less (docs/decisions/0019-refill-before-check-and-on-headers.md). */
static void take_early(ring *r, int zc)
{
    const uint32_t last = zc ? r->issued : r->fetched; /* the replies that may have landed */
    if (!r->early || (r->pumping && r->refill_hdr) || (zc && r->fetched != r->consumed) || r->consumed == last)
        return;
    if (r->issued - r->consumed > EARLY_MAX_IN_FLIGHT) {
        r->st.early_held++;
        return;
    }
    const uint32_t c0 = r->consumed;
    while (r->consumed != last && try_reply(r, r->consumed)) {
        r->consumed++;
        if (zc)
            r->fetched = r->consumed;
    }
    if (r->consumed != c0) {
        r->shadow.out_ack = r->consumed;
        if (r->cb_direct)
            store_release(&r->cb_direct->h.out_ack, r->written.out_ack = r->consumed);
    }
}

/* Step 1: announce the messages whose copies have landed, with one store of in_tail for all of them
 * (direct control block; a staged one was written in stream order by post). */
static int announce_landed(ring *r, int zc)
{
    if (!r->cb_direct || r->published == r->issued)
        return RING_OK;
    int rc;
    uint32_t p = zc ? r->issued : r->published;
    while (!zc && r->put_head != r->put_tail) {
        const uint32_t end = r->put_runs[r->put_head & r->mask];
        if ((rc = r->ops->put_done(r, (end - 1) & r->mask)) < 0)
            return rc;
        if (rc == 0)
            break;
        p = end;
        r->put_head++;
    }
    if (p == r->published)
        return RING_OK;
    r->published = p;
    r->st.announces++;
    r->shadow.in_tail = p;
    r->shadow.out_ack = r->consumed;
    return publish(r, r->cfg.capacity);
}

/* Step 2: learn which replies exist and start fetching them, one copy per run. A staged control block
 * costs a copy per read, so it is polled less often while the ring is busy: only once every reply
 * already fetched has been verified (while copies of replies are still landing, the host has other
 * work), and each read reaps every reply it shows - one read per batch of replies, not one per
 * message. */
static int fetch_replies(ring *r, int zc)
{
    if (r->fetched == r->issued || (!r->cb_direct && r->get_head != r->get_tail))
        return RING_OK;
    int rc;
    if ((rc = refresh(r, 0)) != RING_OK)
        return rc;
    uint32_t t = r->kview.out_tail;
    if (ring_diff(t, r->issued) > 0)
        t = r->issued; /* never trust a count beyond what was sent */
    if (ring_diff(t, r->fetched) > 0) {
        r->st.fetches++;
        if (!zc && (rc = copy_runs(r, 0, r->fetched, t, 1)) != RING_OK)
            return rc;
        r->fetched = t;
    }
    return RING_OK;
}

/* Step 3: verify fetched replies in order, a landed run at a time, then acknowledge them all. */
static int verify_fetched(ring *r, int zc)
{
    int rc;
    uint32_t c = r->consumed;
    if (zc && c != r->fetched) {
        verify_range(r, c, r->fetched);
        c = r->fetched;
    }
    while (!zc && r->get_head != r->get_tail) {
        const uint32_t end = r->get_runs[r->get_head & r->mask];
        if ((rc = r->ops->get_done(r, (end - 1) & r->mask)) < 0)
            return rc;
        if (rc == 0)
            break;
        if (ring_diff(end, c) > 0) { /* a run's replies may already be taken early */
            verify_range(r, c, end);
            c = end;
        }
        r->get_head++;
    }
    if (c != r->consumed) {
        r->consumed = c;
        r->shadow.out_ack = c;
        if (r->cb_direct)
            store_release(&r->cb_direct->h.out_ack, r->written.out_ack = c);
    }
    return RING_OK;
}

/* A refilling ring (refill_first): the replies known to be answered, those out_tail announced or
 * (refill_headers) whose header a pump saw. hseen counts only between fetched and issued; outside a
 * pump it falls behind, which the unsigned distances tell apart for 2^32 - capacity messages. */
static uint32_t answered(const ring *r)
{
    return r->hseen - r->fetched <= r->issued - r->fetched ? r->hseen : r->fetched;
}

/* ring_pump of a refilling ring, after its read of out_tail: moves hseen past the replies whose header -
 * sequence number and length - is in the output ring, while at most EARLY_MAX_IN_FLIGHT messages are
 * unverified. The kernel writes a reply after it has read its message and before its system fence and
 * out_tail, so these messages are answered; the pump counts the window from them and posts the refill
 * early. They are verified only once out_tail covers them (the room for a post is still counted from
 * the replies verified), so a damaged header only stops the scan. A stale header (seq - capacity)
 * never matches. */
static void see_headers(ring *r)
{
    r->hseen = answered(r);
    if (!r->refill_hdr || r->issued - r->consumed > EARLY_MAX_IN_FLIGHT)
        return;
    const uint32_t h0 = r->hseen;
    while (r->hseen != r->issued) {
        const uint32_t slot = r->hseen & r->mask;
        const volatile uint32_t *h = (const volatile uint32_t *)(const void *)slot_at(r->out_stage, r, slot);
        /* A compiler barrier too: the header is re-read on every pass. */
        atomic_thread_fence(memory_order_acquire);
        if (h[0] != r->hseen || h[1] != r->lens[slot])
            break;
        r->hseen++;
    }
    r->st.headers_seen += r->hseen - h0;
}

/* Steps 0-3, with step 1 first in a zero-copy ring (where it acts only on a direct control block): a
 * post's in_tail then goes out before the host tries to take a reply early (a read of a reply slot the
 * kernel may not have written yet), on the latency path as in a pump. Not measured on its own: it came
 * with refill_first (docs/decisions/0019-refill-before-check-and-on-headers.md), and every default run
 * since has it. A refilling pump (ring_config.refill_first) reads out_tail itself before it decides to
 * post, and calls this with fetch = 0, so that the replies out_tail announced are not verified before
 * the refill they made room for is posted. */
static int progress(ring *r, int fetch)
{
    int rc;
    const int zc = xfer_is(r, RB_XFER_ZEROCOPY);
    if (zc && (rc = announce_landed(r, zc)) != RING_OK)
        return rc;
    take_early(r, zc);
    if ((!zc && (rc = announce_landed(r, zc)) != RING_OK) || (fetch && (rc = fetch_replies(r, zc)) != RING_OK))
        return rc;
    return verify_fetched(r, zc);
}

int ring_progress(ring *r) { return progress(r, 1); }

/* Posts n messages of len bytes as one batch: their headers, the copies of their slots (one per
 * contiguous run), then one control-block write announcing all of them. */
static int post(ring *r, uint32_t len, uint32_t n, const char *what)
{
    if (!r->launched || r->terminated)
        return ring_fail(r, RING_ESTATE, "%s: the kernel is not running", what);
    const char *why = ring_check_len(len, r->cfg.max_payload);
    if (why)
        return ring_fail(r, RING_EARG, "%s: %s (%u bytes, slot holds %u)", what, why, len, r->cfg.max_payload);
    if (n == 0 || n > r->cfg.capacity)
        return ring_fail(r, RING_EARG, "%s: %u messages (1 to the capacity, %u)", what, n, r->cfg.capacity);
    if (r->issued - r->delivered + n > r->cfg.capacity)
        return ring_fail(r, RING_EFULL, "%s: %u messages already in flight, capacity %u", what,
                         r->issued - r->delivered, r->cfg.capacity);
    const uint32_t from = r->issued;
    /* One message onto an idle ring is marked lone: the kernel's shortcuts are for it alone
     * (RING_HDR_LONE; ring_config.shortcuts_busy lets them take any message). Idle: every reply is in,
     * which a refilling ring (refill_first) knows from out_tail or their headers before it has
     * verified them. */
    const int lone = n == 1 && (r->refill ? answered(r) : r->consumed) == from;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t slot = (from + i) & r->mask;
        stage_message(r, slot, from + i, len, lone);
        r->lens[slot] = len;
    }
    int rc;
    /* An idle ring with stream ops queues the whole round trip in stream order (ring_config
     * stream_ops). Idle: nothing in flight, so every earlier reply is fetched and every earlier
     * message announced, and the reply stream's wait is the next thing it does (the wait's
     * comparison is cyclic, like ring_diff, so counters may wrap). */
    const uint32_t to = from + n;
    if (r->stream_ops && r->consumed == from && r->fetched == from && r->published == from) {
        /* Each call takes microseconds, and the reply's wait and copy must be queued before the
         * reply exists. A message the kernel takes early (a lone one of up to 16 bytes) does not
         * need in_tail to start, so its announcement is queued last. */
        const int announce_last = r->cfg.early_take && n == 1 && len <= 16;
        if ((rc = copy_runs(r, 1, from, to, 0)) != RING_OK ||
            (!announce_last && (rc = r->ops->announce(r, to)) != RING_OK) ||
            (rc = r->ops->await_reply(r, to)) != RING_OK || (rc = copy_runs(r, 0, from, to, 1)) != RING_OK ||
            (announce_last && (rc = r->ops->announce(r, to)) != RING_OK))
            return rc;
        r->issued = r->published = r->fetched = to;
        r->shadow.in_tail = r->written.in_tail = to; /* the copy stream writes it, not the host */
        r->st.sent += n;
        r->st.ordered += n;
        r->st.posts++;
        r->st.announces++;
        return ring_progress(r);
    }
    if (!xfer_is(r, RB_XFER_ZEROCOPY) && (rc = copy_runs(r, 1, from, from + n, r->cb_direct != NULL)) != RING_OK)
        return rc;
    r->st.refills += r->refill && answered(r) != r->consumed;
    r->issued += n;
    r->st.sent += n;
    r->st.posts++;
    if (!r->cb_direct) {
        r->st.announces++;
        /* Staged control block: the in_tail copy follows the payload copies in stream order. */
        r->shadow.in_tail = r->issued;
        r->shadow.out_ack = r->consumed;
        if ((rc = publish(r, (r->issued - 1) & r->mask)) != RING_OK)
            return rc;
        r->published = r->issued;
        return RING_OK;
    }
    return ring_progress(r);
}

int ring_send(ring *r, uint32_t len) { return post(r, len, 1, "ring_send"); }

int ring_send_batch(ring *r, uint32_t len, uint32_t n) { return post(r, len, n, "ring_send_batch"); }

/* Fails with RING_ETIMEOUT and the kernel's counters when no reply came for timeout_s: "no reply within
 * 2 s" first, the words a failed cell's reason starts with (a platform that never answers, issue 53). */
static int stalled(ring *r, const char *what)
{
    (void)refresh(r, 1);
    return ring_fail(r, RING_ETIMEOUT,
                     "no reply within %.3g s: waiting for %s %u (kernel state %s, in_head %u, out_tail %u, "
                     "heartbeat %u)",
                     r->cfg.timeout_s, what, r->consumed, state_name(r->kview.state), r->kview.in_head,
                     r->kview.out_tail, r->kview.heartbeat);
}

/* ring_pump's loop: keeps the window full until `seconds` (or *stop), then drains. */
static int pump_loop(ring *r, uint32_t len, uint32_t window, double seconds, volatile sig_atomic_t *stop, uint64_t t0)
{
    uint64_t now = t0, last_move = t0, last_status = t0;
    uint32_t seen = r->consumed;
    int draining = 0, rc;
    const uint32_t piece = xfer_is(r, RB_XFER_ZEROCOPY) ? r->cfg.post_max : 0;
    const int timed = r->cfg.trace;
    for (uint64_t polls = 1;; polls++) {
        /* The window holds the messages the kernel has not answered: a refilling ring counts the
         * replies out_tail announced (fetched), read here before deciding, or whose headers it saw
         * (see_headers), the other those verified (consumed). Either way no more than `capacity`
         * are unverified (room). With the trace on, the pass is timed from before that read; a
         * refilling ring checks a window's replies inside the post that refills it, so its time
         * counts as posting, not as taking replies. */
        const uint64_t p0 = timed ? timing_now_ns() : 0;
        if (r->refill && (rc = fetch_replies(r, 1)) != RING_OK)
            return rc;
        if (r->refill)
            see_headers(r);
        const uint32_t in_flight = r->issued - (r->refill ? answered(r) : r->consumed), c0 = r->consumed;
        const uint32_t room = r->cfg.capacity - (r->issued - r->consumed);
        int posted = 0;
        if (!draining && in_flight < window && room > 0) {
            uint32_t n = window - in_flight;
            if (piece && n > piece)
                n = piece;
            if (n > room)
                n = room;
            rc = post(r, len, n, "ring_pump");
            posted = 1;
        } else
            rc = progress(r, !r->refill);
        if (rc != RING_OK)
            return rc;
        if (timed && (posted || r->consumed != c0))
            *(posted ? &r->st.post_ns : &r->st.reap_ns) += timing_now_ns() - p0;
        r->delivered = r->consumed;
        if (draining && r->consumed == r->issued)
            return RING_OK;
        if (polls % 8 && r->consumed == seen)
            continue; /* read the clock every few idle polls, or after progress */
        now = timing_now_ns();
        if (r->consumed != seen) {
            seen = r->consumed;
            last_move = now;
        }
        if (!draining && ((double)(now - t0) * 1e-9 >= seconds || (stop && *stop)))
            draining = 1;
        if (now - last_status >= STATUS_INTERVAL_NS) {
            last_status = now;
            if ((rc = check_alive(r, "a reply")) != RING_OK)
                return rc;
        }
        if ((double)(now - last_move) * 1e-9 > r->cfg.timeout_s)
            return stalled(r, "reply");
    }
}

int ring_pump(ring *r, uint32_t len, uint32_t window, double seconds, volatile sig_atomic_t *stop,
              ring_pump_result *out)
{
    memset(out, 0, sizeof *out);
    if (!r->launched || r->terminated)
        return ring_fail(r, RING_ESTATE, "ring_pump: the kernel is not running");
    if (window == 0 || window > r->cfg.capacity)
        return ring_fail(r, RING_EARG, "ring_pump: window %u (1 to the capacity, %u)", window, r->cfg.capacity);
    if (r->issued != r->delivered)
        return ring_fail(r, RING_ESTATE, "ring_pump: %u messages already in flight", r->issued - r->delivered);
    const uint64_t t0 = timing_now_ns();
    const uint32_t start = r->consumed;
    r->pumping = 1;
    const int rc = pump_loop(r, len, window, seconds, stop, t0);
    r->pumping = 0;
    if (rc != RING_OK)
        return rc;
    out->seconds = timing_seconds_since(t0);
    out->messages = r->consumed - start;
    out->bytes = out->messages * len;
    out->msgs_per_s = out->seconds > 0 ? (double)out->messages / out->seconds : 0;
    out->gbps = out->seconds > 0 ? (double)out->bytes / out->seconds * 1e-9 : 0;
    return RING_OK;
}

int ring_recv(ring *r)
{
    if (!r->launched)
        return ring_fail(r, RING_ESTATE, "ring_recv: the kernel was never launched");
    if (r->delivered == r->issued)
        return ring_fail(r, RING_ESTATE, "ring_recv: no message in flight");
    const uint64_t t0 = timing_now_ns();
    uint64_t last_status = t0;
    for (uint64_t polls = 1;; polls++) {
        if (r->delivered != r->consumed) {
            r->delivered++;
            return RING_OK;
        }
        int rc = ring_progress(r);
        if (rc != RING_OK)
            return rc;
        if (polls % STATUS_EVERY == 0) {
            const uint64_t now = timing_now_ns();
            if (now - last_status >= STATUS_INTERVAL_NS) {
                last_status = now;
                if ((rc = check_alive(r, "a reply")) != RING_OK)
                    return rc;
            }
            if (timing_seconds_since(t0) > r->cfg.timeout_s)
                return stalled(r, "reply");
        }
    }
}

char *ring_first_bad(const ring *r, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    buf[0] = '\0';
    if (!atomic_load_explicit(&r->bad_taken, memory_order_relaxed))
        return buf;
    switch ((reply_outcome)r->bad_outcome) {
    case REPLY_DUPLICATED: snprintf(buf, n, "stale reply: sequence %u expected %u", r->bad_seq, r->bad_index); break;
    case REPLY_LOST: snprintf(buf, n, "reply out of order: sequence %u expected %u", r->bad_seq, r->bad_index); break;
    default: snprintf(buf, n, "corrupted reply %u", r->bad_index); break;
    }
    return buf;
}

/* --- control-block operations ------------------------------------------------------------------ */

int ring_cb_read(ring *r, ring_cb_kern *out)
{
    int rc = refresh(r, 1);
    if (rc == RING_OK)
        *out = r->kview;
    return rc;
}

int ring_cb_write_flag(ring *r, uint32_t value)
{
    if (!r->launched || r->terminated)
        return ring_fail(r, RING_ESTATE, "ring_cb_write_flag: the kernel is not running");
    r->shadow.flag = value;
    if (!r->cb_direct)
        return publish(r, r->cfg.capacity);
    store_release(&r->cb_direct->h.flag, r->written.flag = value);
    return RING_OK;
}

int ring_cb_handshake(ring *r)
{
    const uint32_t v = r->shadow.flag + 1;
    int rc = ring_cb_write_flag(r, v);
    if (rc != RING_OK)
        return rc;
    return wait_for(r, WAIT_FLAG_ACK, v, "the flag acknowledgement");
}
