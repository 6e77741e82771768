/* test_attribution.c - calls x cost attribution (harness/attribution.h) on synthetic pairs of files
 * whose per-call costs differ by known deltas: the explained part, its split into cost and count
 * changes, and the remainder are recovered; per-kind deltas are recovered from single-kind modes;
 * the --call-overhead parser and the MODEL prediction. Label: unit. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attribution.h"
#include "check.h"

static rb_row base_row(const char *family, double p50)
{
    rb_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.family, sizeof r.family, "%s", family);
    snprintf(r.status, sizeof r.status, "%s", RB_STATUS_OK);
    r.p50 = p50;
    return r;
}

/* A file's call_* rows for per-kind costs: memcpy pinned h2d/d2h = m, async+query = a + q, ... */
static size_t cost_rows(rb_row *rows, double m, double a, double q, double sq, double ss, double l)
{
    size_t n = 0;
    rows[n++] = base_row("call_memcpy_h2d_pinned", m - 0.5);
    rows[n++] = base_row("call_memcpy_d2h_pinned", m + 0.5);
    rows[n++] = base_row("call_memcpy_h2d_pageable", 2 * m);
    rows[n++] = base_row("call_memcpy_d2h_pageable", 2 * m);
    rows[n++] = base_row("call_memcpy_async_query", a + q);
    rows[n++] = base_row("call_event_query_done", q);
    rows[n++] = base_row("call_stream_query_idle", sq);
    rows[n++] = base_row("call_stream_sync_idle", ss);
    rows[n++] = base_row("call_launch_empty", l);
    return n;
}

static rb_row mode_row(double p50, const double c[CC_KIND_COUNT])
{
    rb_row r = base_row("latency", p50);
    rb_row_calls_set(&r, c);
    return r;
}

static double dot(const double a[CC_KIND_COUNT], const double b[CC_KIND_COUNT])
{
    double s = 0;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        s += a[k] * b[k];
    return s;
}

int main(void)
{
    rb_row nat[16], wsl[16];
    /* Native: memcpy 10 us, async copy 4, event query 0.5, stream query 0.6, sync 1, launch 3.
     * "WSL2": memcpy +20, async +6, query +2, stream query +2.5, sync +4, launch +5. */
    size_t nn = cost_rows(nat, 10, 4, 0.5, 0.6, 1, 3), nw = cost_rows(wsl, 30, 10, 2.5, 3.1, 5, 8);
    double pn[CC_KIND_COUNT], pw[CC_KIND_COUNT], pageable[CC_KIND_COUNT];
    CHECK_INT(attr_costs(nat, nn, 1, pn), 7);
    CHECK_INT(attr_costs(wsl, nw, 1, pw), 7);
    CHECK_INT(attr_costs(nat, nn, 0, pageable), 7);
    CHECK_NEAR(pn[CC_MEMCPY], 10, 1e-12);
    CHECK_NEAR(pageable[CC_MEMCPY], 20, 1e-12);
    CHECK_NEAR(pn[CC_MEMCPY_ASYNC], 4, 1e-12);
    CHECK_NEAR(pw[CC_EVENT_QUERY], 2.5, 1e-12);
    CHECK_NEAR(pn[CC_EVENT_RECORD], 0, 0);
    const double delta[CC_KIND_COUNT] = {20, 6, 0, 2, 2.5, 4, 5, 0};

    /* Same counts on both sides (the table of tests/test_call_counts.c: async/device, k = 1 poll),
     * a known remainder of 7 us (the "PCIe" part). */
    const double c[CC_KIND_COUNT] = {0, 4, 2, 1, 0, 1, 0, 0};
    const double work = 5, remainder = 7;
    rb_row b = mode_row(work + dot(c, pn), c), o = mode_row(work + remainder + dot(c, pw), c);
    attr_result a;
    CHECK(attr_compute(&b, pn, &o, pw, &a) == 0);
    CHECK_NEAR(a.explained_us, dot(c, delta), 1e-9);
    CHECK_NEAR(a.by_cost_us, dot(c, delta), 1e-9);
    CHECK_NEAR(a.by_count_us, 0, 1e-9);
    CHECK_NEAR(a.remainder_us, remainder, 1e-9);
    CHECK_NEAR(a.by_kind_us[CC_MEMCPY_ASYNC], 4 * 6, 1e-9);

    /* Per-kind deltas recovered from modes that make one kind of call each. */
    for (int k = 0; k < CC_KIND_COUNT; k++) {
        if (k == CC_EVENT_RECORD || k == CC_OTHER)
            continue; /* costed at 0: folded into memcpy_async / off the per-message path */
        double one[CC_KIND_COUNT] = {0};
        one[k] = 3;
        rb_row bb = mode_row(2 + dot(one, pn), one), oo = mode_row(2 + dot(one, pw), one);
        CHECK(attr_compute(&bb, pn, &oo, pw, &a) == 0);
        CHECK_MSG(fabs(a.explained_us / 3 - delta[k]) < 1e-9, "kind %s: recovered %g, want %g",
                  cc_kind_name((cc_kind)k), a.explained_us / 3, delta[k]);
        CHECK_NEAR(a.remainder_us, 0, 1e-9);
    }

    /* Counts change too (more polls on the slower side): the split adds up, the remainder stays. */
    const double c2[CC_KIND_COUNT] = {0, 6, 2, 1, 0, 3, 0, 0};
    o = mode_row(work + remainder + dot(c2, pw), c2);
    CHECK(attr_compute(&b, pn, &o, pw, &a) == 0);
    CHECK_NEAR(a.by_cost_us + a.by_count_us, a.explained_us, 1e-9);
    CHECK_NEAR(a.remainder_us, remainder, 1e-9);
    CHECK(a.by_count_us > 0);

    /* Within one file: fallback (sync copies from pageable memory) against native (async, pinned). */
    const double cf[CC_KIND_COUNT] = {4, 0, 0, 0, 0, 0, 0, 0};
    rb_row fb = mode_row(work + dot(cf, pageable), cf);
    CHECK(attr_compute(&b, pn, &fb, pageable, &a) == 0);
    CHECK_NEAR(a.explained_us, 4 * 20 - dot(c, pn), 1e-9);
    CHECK_NEAR(a.remainder_us, 0, 1e-9);

    /* Missing: no counts (CPU-backend file of schema 1), or a needed cost unknown. */
    rb_row nocount = base_row("latency", 10);
    nocount.calls_memcpy = NAN;
    CHECK(attr_compute(&nocount, pn, &o, pw, &a) == -1);
    double holes[CC_KIND_COUNT];
    memcpy(holes, pw, sizeof holes);
    holes[CC_STREAM_SYNC] = NAN;
    CHECK(attr_compute(&b, pn, &o, holes, &a) == -1);
    holes[CC_STREAM_SYNC] = pw[CC_STREAM_SYNC];
    holes[CC_LAUNCH] = NAN; /* no launches on either side: not needed */
    CHECK(attr_compute(&b, pn, &o, holes, &a) == 0);

    /* --call-overhead and the MODEL. */
    double ov[CC_KIND_COUNT];
    char err[256];
    CHECK(attr_parse_overhead("memcpy=12us,query=3,launch=500ns,sync=0.002ms", ov, err, sizeof err) == 0);
    CHECK_NEAR(ov[CC_MEMCPY], 12, 1e-12);
    CHECK_NEAR(ov[CC_EVENT_QUERY], 3, 1e-12);
    CHECK_NEAR(ov[CC_STREAM_QUERY], 3, 1e-12);
    CHECK_NEAR(ov[CC_LAUNCH], 0.5, 1e-12);
    CHECK_NEAR(ov[CC_STREAM_SYNC], 2, 1e-12);
    CHECK_NEAR(ov[CC_MEMCPY_ASYNC], 0, 0);
    CHECK(attr_parse_overhead("memcpy=fast", ov, err, sizeof err) == -1 && strstr(err, "memcpy=fast"));
    CHECK(attr_parse_overhead("memcopy=1us", ov, err, sizeof err) == -1 && strstr(err, "unknown call kind"));
    CHECK(attr_parse_overhead("memcpy=-1us", ov, err, sizeof err) == -1);
    CHECK(attr_parse_overhead("/nonexistent/overheads.txt", ov, err, sizeof err) == -1);
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/ringbench-overhead-%d.txt", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("# per-call overheads\nmemcpy = 7us\nmemcpy_async=2us  # async copies\n\nstream_sync=1us\n", f);
        fclose(f);
        CHECK_MSG(attr_parse_overhead(path, ov, err, sizeof err) == 0, "%s", err);
        CHECK_NEAR(ov[CC_MEMCPY], 7, 1e-12);
        CHECK_NEAR(ov[CC_MEMCPY_ASYNC], 2, 1e-12);
        CHECK_NEAR(ov[CC_STREAM_SYNC], 1, 1e-12);
        remove(path);
    }
    double added;
    double pred = attr_predict(&b, delta, &added);
    CHECK_NEAR(added, dot(c, delta), 1e-9);
    CHECK_NEAR(pred, b.p50 + dot(c, delta), 1e-9);
    /* The model with the true deltas predicts the synthetic "WSL2" row up to its remainder. */
    rb_row o1 = mode_row(work + remainder + dot(c, pw), c);
    CHECK_NEAR(o1.p50 - pred, remainder, 1e-9);
    CHECK(isnan(attr_predict(&nocount, delta, NULL)));
    CHECK_DONE();
}
