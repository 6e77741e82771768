#define _POSIX_C_SOURCE 200809L
/* test_call_counts.c - CUDA calls per message and per control-block operation, per mode, on the CPU
 * backend (which records the calls its CUDA twin makes, harness/ring_cpu.c), against a table derived
 * by hand from harness/ring.c and harness/ring_cuda.c. Label: unit.
 *
 * THE TABLE below is the one place to update when the protocol changes its calls (the batching
 * rewrite of ring.c / ring_cuda.c will): one line per transfer kind x control-block class x operation.
 * A count is "fixed + k x poll": fixed calls every operation makes, plus `poll` for each of the k >= 1
 * reads of a staged control block while waiting (ctrl=device polls by copy; a directly accessible
 * control block polls by loads, k = 0 calls). k depends on timing, the structure does not, so the test
 * finds k from the counts and checks every kind against it. cudaStreamQuery (the liveness check: at
 * most once per millisecond while a message waits, every 256 polls while a handshake waits; and
 * each poll of the newest reply copy) is driven by time and polls, so it is not in the table (the
 * test prints it per mode).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cuda_calls.h"
#include "ring.h"

/* ---- THE TABLE (derived by hand from ring.c + ring_cuda.c, stream ops included) ----------------------
 * Kinds: M cudaMemcpy, A cudaMemcpyAsync, R cudaEventRecord, Q cudaEventQuery, S cudaStreamSynchronize,
 *        L launch, O other. Counts are written as e.g. "A2 R2 Q2".
 *
 *  message, direct ctrl (managed, mapped):
 *  A get records no event while it is the newest run (ring_cuda.c): its completion is the reply
 *  stream's idleness, a cudaStreamQuery, which is not tabled (see below).
 *    async     put: A+R, put_done: Q, get: A, get_done: stream query      -> A2 R1 Q1
 *    async, stream ops (an idle ring's post, ring.h stream_ops, off by default): put: A (no event:
 *              not asked about), announce: O (cuStreamWriteValue32), await: O (cuStreamWaitValue32),
 *              get: A, get_done: stream query                             -> A2 O2
 *    sync      put: M (+S from malloc: pageable copies may return early), get: M -> M2 (+S1)
 *    zerocopy  no copies, no calls                                           -> none
 *  message, ctrl=device (host half written by a staged copy after the put, in stream order; every
 *  wait for the reply reads the kernel half by a staged copy = one poll):
 *    async     put: A, cb_write: A, get: A, get_done: stream query ; poll A+S -> A3 + k(A1 S1)
 *    sync      put: M, cb_write: M, get: M ; poll M                          -> M3 + k(M1)
 *    zerocopy  cb_write: A ; poll A+S                                        -> A1 + k(A1 S1)
 *  cb_read / cb_write: direct: none; device: async and zerocopy A+S, sync M.
 *  cb_handshake: the write, then k >= 1 reads.
 */
typedef struct count_rule {
    int stream_ops;    /* whether the ring uses stream ops (ring_uses_stream_ops): 1, 0, or -1 either */
    const char *xfer;  /* async | sync | zerocopy */
    const char *ctrl;  /* direct | device */
    const char *op;    /* message | cb_read | cb_write | cb_handshake */
    const char *fixed; /* calls every operation makes */
    const char *poll;  /* calls per staged control-block read while waiting ("" none) */
} count_rule;

static const count_rule TABLE[] = {
    {1, "async", "direct", "message", "A2 O2", ""},
    {0, "async", "direct", "message", "A2 R1 Q1", ""},
    {-1, "sync", "direct", "message", "M2", ""}, /* +S1 from malloc: see expected() */
    {-1, "zerocopy", "direct", "message", "", ""},
    {-1, "async", "device", "message", "A3", "A1 S1"},
    {-1, "sync", "device", "message", "M3", "M1"},
    {-1, "zerocopy", "device", "message", "A1", "A1 S1"},
    {-1, "*", "direct", "cb_read", "", ""},
    {-1, "*", "direct", "cb_write", "", ""},
    {-1, "*", "direct", "cb_handshake", "", ""},
    {-1, "async", "device", "cb_read", "A1 S1", ""},
    {-1, "zerocopy", "device", "cb_read", "A1 S1", ""},
    {-1, "sync", "device", "cb_read", "M1", ""},
    {-1, "async", "device", "cb_write", "A1 S1", ""},
    {-1, "zerocopy", "device", "cb_write", "A1 S1", ""},
    {-1, "sync", "device", "cb_write", "M1", ""},
    {-1, "async", "device", "cb_handshake", "A1 S1", "A1 S1"},
    {-1, "zerocopy", "device", "cb_handshake", "A1 S1", "A1 S1"},
    {-1, "sync", "device", "cb_handshake", "M1", "M1"},
};
/* ---- end of THE TABLE ---------------------------------------------------------------------------- */

/* "A2 R2 Q1" into counts per kind. */
static void parse_counts(const char *s, int out[CC_KIND_COUNT])
{
    memset(out, 0, sizeof(int) * CC_KIND_COUNT);
    static const char letters[] = "MARQ?SLO"; /* in cc_kind order; '?' = stream query (not tabled) */
    for (const char *p = s; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        const char *l = strchr(letters, *p);
        CHECK_MSG(l && *l != '?', "bad letter in table entry '%s'", s);
        char *end;
        long n = strtol(p + 1, &end, 10);
        if (l && *l != '?')
            out[l - letters] += (int)n;
        p = end;
    }
}

static void expected(const mode_spec *m, int stream_ops, const char *op, int fixed[CC_KIND_COUNT],
                     int poll[CC_KIND_COUNT])
{
    const char *xfer = mode_axis_value(RB_AXIS_XFER, m->v[RB_AXIS_XFER]);
    const char *ctrl = m->v[RB_AXIS_CTRL] == RB_CTRL_DEVICE ? "device" : "direct";
    for (size_t i = 0; i < sizeof TABLE / sizeof *TABLE; i++) {
        const count_rule *t = &TABLE[i];
        if ((strcmp(t->xfer, "*") && strcmp(t->xfer, xfer)) || strcmp(t->ctrl, ctrl) || strcmp(t->op, op) ||
            (t->stream_ops >= 0 && t->stream_ops != stream_ops))
            continue;
        parse_counts(t->fixed, fixed);
        parse_counts(t->poll, poll);
        if (!strcmp(op, "message") && !strcmp(xfer, "sync") && !strcmp(ctrl, "direct") &&
            m->v[RB_AXIS_HOST] == RB_HOST_MALLOC)
            fixed[CC_STREAM_SYNC] += 1;
        return;
    }
    CHECK_MSG(0, "no table entry for %s %s %s", xfer, ctrl, op);
}

/* Checks counts = fixed + k x poll for one k >= 1 (k = 0 when poll is empty), every kind but
 * stream_query. Returns k, or -1 after reporting a mismatch. */
static long check_structure(const char *label, const char *op, const uint64_t got[CC_KIND_COUNT],
                            const int fixed[CC_KIND_COUNT], const int poll[CC_KIND_COUNT])
{
    long k = 0;
    for (int i = 0; i < CC_KIND_COUNT; i++)
        if (poll[i]) {
            k = ((long)got[i] - fixed[i]) / poll[i];
            break;
        }
    int any_poll = 0;
    for (int i = 0; i < CC_KIND_COUNT; i++)
        any_poll |= poll[i] != 0;
    int ok = !any_poll || k >= 1;
    for (int i = 0; i < CC_KIND_COUNT; i++)
        if (i != CC_STREAM_QUERY && (long)got[i] != fixed[i] + k * poll[i])
            ok = 0;
    if (!ok) {
        char buf[256] = "";
        for (int i = 0; i < CC_KIND_COUNT; i++) {
            char one[48];
            snprintf(one, sizeof one, " %s=%llu(want %ld)", cc_kind_name((cc_kind)i), (unsigned long long)got[i],
                     fixed[i] + k * poll[i]);
            strncat(buf, one, sizeof buf - strlen(buf) - 1);
        }
        CHECK_MSG(0, "%s %s: calls%s", label, op, buf);
        return -1;
    }
    check_count++;
    return k;
}

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static void diff_counts(const cc_snapshot *a, const cc_snapshot *b, uint64_t out[CC_KIND_COUNT])
{
    for (int i = 0; i < CC_KIND_COUNT; i++)
        out[i] = cc_diff(a, b, (cc_kind)i);
}

/* One mode: per message (one in flight, as the latency cell), then each control-block operation. */
static void test_mode(const mode_spec *m, int stream_ops)
{
    char label[64];
    mode_label(m, label, sizeof label);
    if (stream_ops)
        strncat(label, " (stream ops)", sizeof label - strlen(label) - 1);
    ring_config c;
    ring_config_default(&c);
    c.backend = RING_BACKEND_CPU;
    c.mode = *m;
    c.stream_ops = stream_ops;
    c.capacity = 16;
    c.max_payload = 256;
    c.timeout_s = 20;
    char err[256] = "";
    ring *r = NULL;
    if (ring_open(&c, &r, err, sizeof err) != RING_OK) {
        CHECK_MSG(0, "%s: ring_open: %s", label, err);
        return;
    }
    int rc = ring_launch(r);
    if (rc == RING_OK)
        rc = ring_activate(r);
    CHECK_MSG(rc == RING_OK, "%s: start: %s", label, ring_error(r));
    int fixed[CC_KIND_COUNT], poll[CC_KIND_COUNT];
    uint64_t got[CC_KIND_COUNT], status_calls = 0, ops = 0;
    cc_snapshot a, b;
    /* Stream ops where asked for and the mode allows them (pinned, async, direct control block). */
    const int used = ring_uses_stream_ops(r);
    CHECK_MSG(used == (stream_ops && m->v[RB_AXIS_HOST] == RB_HOST_PINNED && m->v[RB_AXIS_XFER] == RB_XFER_ASYNC &&
                       m->v[RB_AXIS_CTRL] != RB_CTRL_DEVICE),
              "%s: stream ops %s", label, used ? "used" : "not used");
    expected(m, used, "message", fixed, poll);
    for (int i = 0; rc == RING_OK && i < 12; i++) {
        cc_snap(&a);
        rc = ring_send(r, 64);
        nap_us(i % 2 ? 0 : 500); /* with and without the reply ready at the first poll */
        if (rc == RING_OK)
            rc = ring_recv(r);
        cc_snap(&b);
        CHECK_MSG(rc == RING_OK, "%s: message %d: %s", label, i, ring_error(r));
        diff_counts(&a, &b, got);
        status_calls += got[CC_STREAM_QUERY];
        ops++;
        check_structure(label, "message", got, fixed, poll);
    }
    static const char *const cb_ops[] = {"cb_read", "cb_write", "cb_handshake"};
    for (int o = 0; rc == RING_OK && o < 3; o++) {
        expected(m, used, cb_ops[o], fixed, poll);
        for (int i = 0; rc == RING_OK && i < 8; i++) {
            ring_cb_kern k;
            cc_snap(&a);
            rc = o == 0   ? ring_cb_read(r, &k)
                 : o == 1 ? ring_cb_write_flag(r, 100u + (uint32_t)i)
                          : ring_cb_handshake(r);
            cc_snap(&b);
            CHECK_MSG(rc == RING_OK, "%s: %s: %s", label, cb_ops[o], ring_error(r));
            diff_counts(&a, &b, got);
            check_structure(label, cb_ops[o], got, fixed, poll);
        }
    }
    /* While a message waits, liveness is checked at most once per millisecond of waiting; how many
     * milliseconds a message waits on a busy CI machine is not the protocol's, so this is reported. */
    printf("%-28s stream queries (liveness, newest reply copy) per message: %.2f\n", label,
           (double)status_calls / (double)ops);
    const ring_stats *st = ring_get_stats(r);
    CHECK_MSG(st->verified == 12, "%s: %llu verified", label, (unsigned long long)st->verified);
    ring_close(r);
}

/* The launch itself: one launch and its memsets (ctrl=device zeroes the control block by a copy). */
static void test_launch_calls(void)
{
    static const int ctrls[] = {RB_CTRL_MAPPED, RB_CTRL_DEVICE};
    for (int i = 0; i < 2; i++) {
        mode_spec m = mode_native();
        m.v[RB_AXIS_CTRL] = ctrls[i];
        ring_config c;
        ring_config_default(&c);
        c.mode = m;
        char err[256];
        ring *r = NULL;
        CHECK(ring_open(&c, &r, err, sizeof err) == RING_OK);
        if (!r)
            continue;
        cc_snapshot a, b;
        cc_snap(&a);
        CHECK(ring_launch(r) == RING_OK);
        cc_snap(&b);
        CHECK_INT(cc_diff(&a, &b, CC_LAUNCH), 1);
        CHECK_INT(cc_diff(&a, &b, CC_OTHER), ctrls[i] == RB_CTRL_DEVICE ? 2 : 1);
        ring_close(r);
    }
}

int main(void)
{
    int modes = 0;
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        if (mode_invalid_reason(&m))
            continue;
        test_mode(&m, 0);
        modes++;
        /* The stream-ordered path, where a mode can take it (ring_config.stream_ops, off by default). */
        if (m.v[RB_AXIS_XFER] == RB_XFER_ASYNC && m.v[RB_AXIS_CTRL] != RB_CTRL_DEVICE &&
            m.v[RB_AXIS_HOST] == RB_HOST_PINNED)
            test_mode(&m, 1);
    }
    CHECK_INT(modes, 26);
    test_launch_calls();
    CHECK_DONE();
}
