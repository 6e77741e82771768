/* trial.c - one trial of one unit (see trial.h): a fresh ring or a fresh baseline, sampled once.
 * Exercised by the sweep (bench/sweep.c) and, through it, by tests/cli_test.sh on the CPU backend and
 * by the H100 runs quoted in README.md. */
#include "trial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "cuda_calls.h"
#include "placement.h"
#include "timing.h"

void trial_cond_take(env_clocks *clocks, trial_cond *out)
{
    out->cpu = placement_current_cpu();
    out->ctx_switches = placement_ctx_switches();
    hostload_take(out->cpu, &out->load);
    env_clocks_read(clocks, &out->sm_mhz, &out->mem_mhz, &out->reasons);
    out->t_ns = timing_now_ns();
}

/* Slots per ring: ring_capacity_for (ring.h) - 4096 for small messages, so that the window axis can
 * reach the depths batching needs; fewer for large ones, so that a ring stays within 128 MiB (WSL2
 * limits how much pinned memory a process gets). */

/* --- parts ---------------------------------------------------------------------------------------- */

/* No unit yields more parts than a trial holds (the asserts below), so running out is a bug: it stops
 * the program rather than lose a part. Returning NULL there also let gcc 13 see a write through a
 * null part in trial_control and warn (-Wstringop-overflow) on the GPU machine's Ubuntu 24.04. */
_Static_assert(TRIAL_CONTROL_FAMS <= RB_TRIAL_MAX_PARTS, "a control trial's parts");
_Static_assert(RB_CALL_COUNT <= RB_TRIAL_MAX_PARTS, "a calls trial's parts");
_Static_assert(1 + sizeof((trial_cfg *)0)->windows / sizeof *((trial_cfg *)0)->windows <= RB_TRIAL_MAX_PARTS,
               "a ring trial's parts: latency and every window");
static trial_part *part_add(trial_out *o, rb_family fam, uint64_t size, uint32_t window)
{
    if (o->nparts == RB_TRIAL_MAX_PARTS) {
        fprintf(stderr, "ringbench: internal error: a trial has more than %d parts\n", RB_TRIAL_MAX_PARTS);
        abort();
    }
    trial_part *p = &o->part[o->nparts++];
    memset(p, 0, sizeof *p);
    p->fam = fam;
    p->size = size;
    p->window = window;
    p->status = RB_STATUS_OK;
    p->msgs_per_s = NAN;
    for (int k = 0; k < RB_CALL_KIND_COUNT; k++)
        p->calls[k] = NAN;
    p->payload_s = NAN;
    return p;
}

/* Marks p as not ok with why, cut to the reason column's width. */
static void part_fail(trial_part *p, const char *status, const char *why)
{
    size_t n = why ? strlen(why) : 0;
    if (n >= sizeof p->reason)
        n = sizeof p->reason - 1;
    p->status = status;
    if (n)
        memcpy(p->reason, why, n);
    p->reason[n] = '\0';
}

void trial_out_free(trial_out *o)
{
    for (size_t i = 0; i < o->nparts; i++)
        measure_samples_free(&o->part[i].s);
    o->nparts = 0;
}

/* --- baselines ------------------------------------------------------------------------------------ */

static int nop(void *ctx)
{
    (void)ctx;
    return 0;
}

static void base_status(trial_part *p, int rc, const char *why)
{
    if (rc == RB_BASE_UNSUPPORTED)
        part_fail(p, RB_STATUS_UNSUPPORTED, why);
    else if (rc == RB_BASE_FAILED)
        part_fail(p, RB_STATUS_FAILED, why);
}

static int trial_baseline(const trial_cfg *c, trial_unit_kind kind, uint32_t size, trial_out *o)
{
    char why[320] = "";
    int rc = RB_BASE_OK, op_rc;
    trial_part *p;
    switch (kind) {
    case RB_UNIT_OVERHEAD:
        p = part_add(o, RB_FAM_HARNESS_OVERHEAD, 0, 0);
        rc = measure_run(&c->latency, nop, NULL, &p->s, &op_rc, c->stop) == 1 ? RB_BASE_INTERRUPTED : RB_BASE_OK;
        break;
    case RB_UNIT_FLOOR:
        p = part_add(o, RB_FAM_BASE_FLOOR, 4, 1);
        rc = baselines_floor(c->backend, c->device, &c->latency, &p->s, why, sizeof why, c->stop);
        base_status(p, rc, why);
        break;
    case RB_UNIT_LAUNCH:
    case RB_UNIT_GRAPH:
        p = part_add(o, kind == RB_UNIT_GRAPH ? RB_FAM_BASE_GRAPH : RB_FAM_BASE_LAUNCH, size, 1);
        rc = baselines_launch(c->backend, c->device, size, kind == RB_UNIT_GRAPH, &c->latency, &p->s, why, sizeof why,
                              c->stop);
        base_status(p, rc, why);
        break;
    case RB_UNIT_MEMCPY: {
        static const rb_family fams[2][2] = {{RB_FAM_MEMCPY_D2H_PAGEABLE, RB_FAM_MEMCPY_H2D_PAGEABLE},
                                             {RB_FAM_MEMCPY_D2H_PINNED, RB_FAM_MEMCPY_H2D_PINNED}};
        for (int pinned = 0; pinned < 2 && rc != RB_BASE_INTERRUPTED; pinned++)
            for (int h2d = 0; h2d < 2 && rc != RB_BASE_INTERRUPTED; h2d++) {
                p = part_add(o, fams[pinned][h2d], size, 0);
                rc = baselines_memcpy(c->backend, c->device, size, pinned, h2d, c->memcpy_reps, c->memcpy_rep_seconds,
                                      &p->s, why, sizeof why, c->stop);
                base_status(p, rc, why);
            }
        break;
    }
    case RB_UNIT_CALLS:
        for (int k = 0; k < RB_CALL_COUNT && rc != RB_BASE_INTERRUPTED; k++) {
            int fam = rb_family_parse(baselines_call_family((baselines_call_kind)k));
            if (fam < 0)
                break;
            p = part_add(o, (rb_family)fam, RB_CALL_BYTES, 0);
            rc = baselines_call(c->backend, c->device, (baselines_call_kind)k, &c->latency, &p->s, why, sizeof why,
                                c->stop);
            base_status(p, rc, why);
        }
        break;
    default: break;
    }
    o->interrupted = rc == RB_BASE_INTERRUPTED;
    return o->interrupted;
}

/* --- ring trials ---------------------------------------------------------------------------------- */

typedef struct op_ctx {
    ring *r;
    uint32_t size;
    uint32_t flag;
} op_ctx;

static int op_roundtrip(void *ctx)
{
    op_ctx *c = ctx;
    return ring_send(c->r, c->size) != RING_OK || ring_recv(c->r) != RING_OK;
}
static int op_cb_read(void *ctx)
{
    ring_cb_kern k;
    return ring_cb_read(((op_ctx *)ctx)->r, &k) != RING_OK;
}
static int op_cb_write(void *ctx)
{
    op_ctx *c = ctx;
    return ring_cb_write_flag(c->r, ++c->flag) != RING_OK;
}
static int op_cb_handshake(void *ctx) { return ring_cb_handshake(((op_ctx *)ctx)->r) != RING_OK; }

/* The host's own speed beside a native read and write (family host_ref): a native read's eight
 * acquire loads and a write's release store (ring.c refresh and ring_cb_write_flag), here against a
 * private line of ordinary memory that no device touches, through no ring code. The lent H100 runs
 * whole stretches of seconds with every host operation about 1.5x slower, the clock pair too; a trial's
 * reads and writes are judged against this reference, measured in the same trial. */
static _Alignas(64) uint32_t host_ref_line[16];
static int op_host_ref(void *ctx)
{
    (void)ctx;
    uint32_t sum = 0;
    for (int i = 0; i < 8; i++)
        sum += __atomic_load_n(&host_ref_line[i], __ATOMIC_ACQUIRE);
    __atomic_store_n(&host_ref_line[8], sum + 1u, __ATOMIC_RELEASE);
    return 0;
}
static int op_launch(void *ctx) { return ring_launch(((op_ctx *)ctx)->r) != RING_OK; }
static int op_activate(void *ctx) { return ring_activate(((op_ctx *)ctx)->r) != RING_OK; }
static int op_deactivate(void *ctx) { return ring_deactivate(((op_ctx *)ctx)->r) != RING_OK; }
static int op_terminate(void *ctx) { return ring_terminate(((op_ctx *)ctx)->r) != RING_OK; }

static int open_ring(const trial_cfg *c, const mode_spec *m, uint32_t size, ring **r, char *why, size_t n)
{
    ring_config rc;
    ring_config_default(&rc);
    rc.backend = c->backend;
    rc.mode = *m;
    rc.device = c->device;
    rc.capacity = ring_capacity_for(size);
    rc.max_payload = size;
    rc.timeout_s = c->timeout_s;
    rc.max_lifetime_s = c->max_lifetime_s;
    rc.seed = c->seed;
    rc.early_take = c->early_take;
    rc.leader_reply = c->leader_reply;
    rc.early_replies = c->no_early_replies ? 0 : -1;
    rc.shortcuts_busy = c->shortcuts_busy;
    rc.stream_ops = c->stream_ops;
    rc.post_max = c->post_max;
    rc.verify_split = c->verify_split;
    rc.refill_first = !c->verify_first;
    rc.refill_headers = c->refill_on_tail ? 0 : -1;
    if ((rc.fault_kind = platform_faults_kind(c->faults, m)) != 0)
        rc.fault_every = PLATFORM_FAULT_EVERY;
    return ring_open(&rc, r, why, n);
}

/* Counts of lost, duplicated and corrupted messages since before, into the part; failed if any. */
static void part_integrity(trial_part *p, ring *r, const ring_stats *before)
{
    const ring_stats *now = ring_get_stats(r);
    ring_cb_kern k;
    p->messages = now->received - before->received;
    p->lost = now->lost - before->lost;
    p->duplicated = now->duplicated - before->duplicated;
    p->corrupted = now->corrupted - before->corrupted;
    p->kernel_errors = ring_cb_read(r, &k) == RING_OK ? k.errors : 0;
    if (p->size >= RING_TIMED_MIN_BYTES)
        p->payload_s = (double)(now->payload_ns - before->payload_ns) * 1e-9;
    if (p->lost || p->duplicated || p->corrupted || p->kernel_errors) {
        char why[RB_REASON_LEN], first[96];
        ring_first_bad(r, first, sizeof first); /* the first reply that failed, in words, first */
        snprintf(why, sizeof why,
                 "%s%sverification failed: %llu lost, %llu duplicated or stale, %llu corrupted, %llu flagged by "
                 "the kernel",
                 first, first[0] ? "; " : "", (unsigned long long)p->lost, (unsigned long long)p->duplicated,
                 (unsigned long long)p->corrupted, (unsigned long long)p->kernel_errors);
        part_fail(p, RB_STATUS_FAILED, why);
    }
}

/* measure_run, counting the CUDA calls its operations made (warm-up included: the same operations). */
static int measure_counted(const trial_cfg *c, const measure_policy *pol, measure_op_fn op, op_ctx *ctx, trial_part *p)
{
    cc_snapshot a, b;
    int op_rc;
    cc_snap(&a);
    int mrc = measure_run(pol, op, ctx, &p->s, &op_rc, c->stop);
    cc_snap(&b);
    cc_per_op(&a, &b, mrc == 0 ? pol->warmup + p->s.n * (pol->batch > 1 ? pol->batch : 1) : 0, p->calls);
    if (mrc < 0)
        part_fail(p, RB_STATUS_FAILED, ring_error(ctx->r));
    return mrc;
}

/* One throughput repetition: keep window messages in flight for seconds, then drain (ring_pump:
 * posting and reaping in batches, every reply verified). */
static int throughput_rep(op_ctx *c, uint32_t window, double seconds, volatile sig_atomic_t *stop, double *gbps,
                          double *mps)
{
    ring_pump_result res;
    if (ring_pump(c->r, c->size, window, seconds, stop, &res) != RING_OK)
        return -1;
    *gbps = res.gbps;
    *mps = res.msgs_per_s;
    return 0;
}

static const rb_family ring_fams[2] = {RB_FAM_LATENCY, RB_FAM_THROUGHPUT};
const rb_family trial_control_fams[TRIAL_CONTROL_FAMS] = {RB_FAM_CB_READ,      RB_FAM_CB_WRITE,    RB_FAM_CB_HANDSHAKE,
                                                          RB_FAM_LC_LAUNCH,    RB_FAM_LC_ACTIVATE, RB_FAM_LC_DEACTIVATE,
                                                          RB_FAM_LC_TERMINATE, RB_FAM_HOST_REF};

size_t trial_windows(const trial_cfg *c, uint32_t cap, uint32_t *w)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nwindows; i++) {
        uint32_t v = c->windows[i] > cap ? cap : c->windows[i];
        int dup = 0;
        for (size_t k = 0; k < n; k++)
            dup |= w[k] == v;
        if (!dup)
            w[n++] = v;
    }
    return n;
}

/* The parts a ring trial yields, each marked with status and why (a mode that could not run). */
static void ring_parts_skipped(const trial_cfg *c, trial_unit_kind kind, uint32_t size, trial_out *o,
                               const char *status, const char *why)
{
    if (kind == RB_UNIT_CONTROL) {
        for (int f = 0; f < TRIAL_CONTROL_FAMS; f++)
            part_fail(part_add(o, trial_control_fams[f], 0, 0), status, why);
        return;
    }
    uint32_t w[8];
    size_t nw = trial_windows(c, ring_capacity_for(size), w);
    part_fail(part_add(o, ring_fams[0], size, 1), status, why);
    for (size_t i = 0; i < nw; i++)
        part_fail(part_add(o, ring_fams[1], size, w[i]), status, why);
}

/* A mode at a size: latency with one message in flight, then throughput at each window. */
static int trial_size(const trial_cfg *c, op_ctx *x, trial_out *o)
{
    uint32_t w[8];
    size_t nw = trial_windows(c, o->capacity, w);
    trial_part *lat = part_add(o, RB_FAM_LATENCY, x->size, 1);
    ring_stats before = *ring_get_stats(x->r);
    int mrc = measure_counted(c, &c->latency, op_roundtrip, x, lat);
    if (mrc == 1)
        return 1;
    if (mrc == 0)
        part_integrity(lat, x->r, &before);
    for (size_t i = 0; i < nw; i++) {
        trial_part *t = part_add(o, RB_FAM_THROUGHPUT, x->size, w[i]);
        if (mrc != 0) {
            part_fail(t, RB_STATUS_FAILED, "not measured: the latency phase failed");
            continue;
        }
        before = *ring_get_stats(x->r);
        double mps_sum = 0;
        const uint64_t t0 = timing_now_ns();
        cc_snapshot a, b;
        cc_snap(&a);
        for (int rep = 0; rep < c->tput_reps; rep++) {
            double gbps, mps;
            if (throughput_rep(x, w[i], c->tput_rep_seconds, c->stop, &gbps, &mps) != 0) {
                part_fail(t, RB_STATUS_FAILED, ring_error(x->r));
                mrc = -1;
                break;
            }
            measure_samples_push(&t->s, gbps);
            mps_sum += mps;
            if (c->stop && *c->stop)
                break;
        }
        cc_snap(&b);
        t->s.elapsed_s = timing_seconds_since(t0);
        if (t->s.n)
            t->msgs_per_s = mps_sum / (double)t->s.n;
        if (mrc == 0) {
            part_integrity(t, x->r, &before);
            cc_per_op(&a, &b, t->messages, t->calls);
        }
        if (c->stop && *c->stop)
            return 1;
    }
    if (mrc == 0 && ring_terminate(x->r) != RING_OK)
        fprintf(stderr, "ringbench: terminate failed: %s\n", ring_error(x->r));
    return 0;
}

/* A mode's control-block operations on a running, active kernel (reads, writes, the host's reference
 * right after them, handshakes), then lifecycle cycles (launch, activate, one message, deactivate,
 * terminate), each step timed once per cycle. */
static int trial_control(const trial_cfg *c, op_ctx *x, trial_out *o)
{
    static const measure_op_fn cb_ops[3] = {op_cb_read, op_cb_write, op_cb_handshake};
    static const measure_op_fn lc_ops[4] = {op_launch, op_activate, op_deactivate, op_terminate};
    trial_part *parts[TRIAL_CONTROL_FAMS];
    for (int f = 0; f < TRIAL_CONTROL_FAMS; f++)
        parts[f] = part_add(o, trial_control_fams[f], 0, 0);
    trial_part **cb = parts, **lc = parts + 3, *ref = parts[7];
    char why[RB_REASON_LEN] = "";
    int failed = 0, cb_done = 0;
    for (int cycle = 0; cycle < c->lifecycle_cycles && !failed; cycle++) {
        for (int step = 0; step < 4 && !failed; step++) {
            double us;
            if (measure_time_once(lc_ops[step], x, &us) != 0 || (step == 1 && op_roundtrip(x) != 0)) {
                failed = 1;
                snprintf(why, sizeof why, "%s", ring_error(x->r));
                break;
            }
            measure_samples_push(&lc[step]->s, us);
            lc[step]->s.elapsed_s += us * 1e-6; /* each step is timed once: its own time is its sample */
            if (step == 1 && !cb_done) {
                /* Reads and writes take tens of ns, mostly the clock pair's: timed in batches when
                 * asked (--cb-batch); a handshake (~2 us) is timed alone. */
                measure_policy batched = c->cb;
                batched.batch = c->cb_batch;
                for (int f = 0; f < 3; f++)
                    if (measure_counted(c, f < 2 ? &batched : &c->cb, cb_ops[f], x, cb[f]) == 1 ||
                        (f == 1 && measure_counted(c, &batched, op_host_ref, x, ref) == 1))
                        return 1;
                cb_done = 1;
            }
        }
        if (c->stop && *c->stop)
            return 1;
    }
    for (int f = 0; f < 3 && !cb_done; f++)
        part_fail(cb[f], RB_STATUS_FAILED, why);
    if (!cb_done)
        part_fail(ref, RB_STATUS_FAILED, why);
    for (int f = 0; f < 4 && failed; f++)
        part_fail(lc[f], RB_STATUS_FAILED, why);
    return 0;
}

int trial_run(const trial_cfg *c, trial_unit_kind kind, const mode_spec *m, uint32_t size, trial_out *o)
{
    memset(o, 0, sizeof *o);
    if (kind != RB_UNIT_CONTROL && kind != RB_UNIT_RING)
        return trial_baseline(c, kind, size, o);
    char why[320];
    op_ctx x = {NULL, kind == RB_UNIT_CONTROL ? 64 : size, 0};
    if (platform_limits_size_reason(c->limits, m, x.size, why, sizeof why)) { /* e.g. WSL2's pinned ceiling */
        ring_parts_skipped(c, kind, size, o, RB_STATUS_UNSUPPORTED, why);
        return 0;
    }
    int rc = open_ring(c, m, x.size, &x.r, why, sizeof why);
    if (rc == RING_OK && kind == RB_UNIT_RING && (ring_launch(x.r) != RING_OK || ring_activate(x.r) != RING_OK)) {
        snprintf(why, sizeof why, "%s", ring_error(x.r));
        rc = RING_EKERNEL;
    }
    if (rc != RING_OK) {
        ring_parts_skipped(c, kind, size, o, rc == RING_EUNSUPPORTED ? RB_STATUS_UNSUPPORTED : RB_STATUS_FAILED, why);
        ring_close(x.r);
        return 0;
    }
    o->capacity = ring_get_config(x.r)->capacity;
    int irc = kind == RB_UNIT_RING ? trial_size(c, &x, o) : trial_control(c, &x, o);
    ring_close(x.r);
    o->interrupted = irc == 1;
    return o->interrupted;
}

void trial_warmup(const trial_cfg *c, env_clocks *clocks, double timeout_s, double *seconds, double *sm_mhz,
                  double *target_mhz)
{
    *seconds = *sm_mhz = *target_mhz = NAN;
    if (c->backend != RING_BACKEND_CUDA || timeout_s <= 0)
        return;
    mode_spec m = mode_native();
    m.v[RB_AXIS_XFER] = RB_XFER_ZEROCOPY; /* no copies: the warm-up is the kernel's work alone */
    char why[320];
    op_ctx x = {NULL, 4096, 0};
    const uint64_t t0 = timing_now_ns();
    const double target = env_clocks_target_sm(clocks);
    double since_ok = -1, mem, sm = NAN, gbps, mps;
    unsigned long long reasons;
    if (open_ring(c, &m, x.size, &x.r, why, sizeof why) == RING_OK && ring_launch(x.r) == RING_OK &&
        ring_activate(x.r) == RING_OK) {
        while (timing_seconds_since(t0) < timeout_s && !(c->stop && *c->stop)) {
            if (throughput_rep(&x, ring_get_config(x.r)->capacity, 0.02, c->stop, &gbps, &mps) != 0)
                break;
            env_clocks_read(clocks, &sm, &mem, &reasons);
            if (!(target > 0))
                continue;
            if (sm >= 0.95 * target) {
                if (since_ok < 0)
                    since_ok = timing_seconds_since(t0);
                else if (timing_seconds_since(t0) - since_ok >= 0.2)
                    break;
            } else {
                since_ok = -1;
            }
        }
        ring_terminate(x.r);
    }
    ring_close(x.r);
    *seconds = timing_seconds_since(t0);
    *sm_mhz = sm;
    *target_mhz = target;
}
