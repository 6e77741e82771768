/* anatomy.c - where the time of one round trip goes (anatomy.h). */
#define _POSIX_C_SOURCE 200809L
#include "anatomy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "timing.h"

void anatomy_quantiles_of(double *v, size_t n, anatomy_quantiles *q)
{
    if (n == 0) {
        q->p10 = q->p50 = q->p90 = NAN;
        return;
    }
    (void)stats_sort(v, n); /* sorts even when its scratch cannot be had */
    q->p10 = stats_percentile_sorted(v, n, 10);
    q->p50 = stats_percentile_sorted(v, n, 50);
    q->p90 = stats_percentile_sorted(v, n, 90);
}

/* The host stamps of one round trip, ns of timing_now_ns. */
typedef struct host_stamps {
    uint64_t start, sent, done;
} host_stamps;

/* Matches every timed round trip with its kernel record and fills out's quantiles. */
static int summarize(const host_stamps *h, uint32_t warmup, uint32_t samples, const ring_trace_rec *trace,
                     anatomy_result *out)
{
    enum { RTT, SEND, POLL, WORK, PUBLISH, OUTSIDE, IDLE, POLLS, NPARTS };
    double *v[NPARTS];
    size_t n[NPARTS] = {0};
    int rc = 0;
    for (int p = 0; p < NPARTS; p++)
        if (!(v[p] = malloc((size_t)samples * sizeof(double))))
            rc = -1;
    /* The record of message m, where a batch carried exactly that message (window 1: every one). */
    const ring_trace_rec *by_msg[RB_ANATOMY_MAX] = {0};
    for (uint32_t b = 0; rc == 0 && b < RING_TRACE_RECS; b++) {
        const ring_trace_rec *t = &trace[b];
        if (t->poll_ns && t->n == 1 && t->first < warmup + samples)
            by_msg[t->first] = t;
    }
    for (uint32_t i = 0; rc == 0 && i < samples; i++) {
        const uint32_t m = warmup + i;
        const host_stamps *s = &h[i];
        v[RTT][n[RTT]++] = (double)(s->done - s->start) * 1e-3;
        v[SEND][n[SEND]++] = (double)(s->sent - s->start) * 1e-3;
        const ring_trace_rec *t = by_msg[m];
        if (!t || !t->seen_ns || !t->written_ns || t->seen_ns < t->poll_ns || t->written_ns < t->seen_ns)
            continue;
        out->traced++;
        out->early += (t->how & RING_TRACE_EARLY) != 0;
        const double kernel = (double)(t->written_ns - t->poll_ns) * 1e-3;
        v[POLL][n[POLL]++] = (double)(t->seen_ns - t->poll_ns) * 1e-3;
        v[WORK][n[WORK]++] = (double)(t->written_ns - t->seen_ns) * 1e-3;
        if (t->published_ns >= t->written_ns)
            v[PUBLISH][n[PUBLISH]++] = (double)(t->published_ns - t->written_ns) * 1e-3;
        v[OUTSIDE][n[OUTSIDE]++] = (double)(s->done - s->start) * 1e-3 - kernel;
        v[POLLS][n[POLLS]++] = t->polls;
        const ring_trace_rec *prev = m ? by_msg[m - 1] : NULL;
        if (prev && prev->published_ns && t->poll_ns >= prev->published_ns)
            v[IDLE][n[IDLE]++] = (double)(t->poll_ns - prev->published_ns) * 1e-3;
    }
    if (rc == 0) {
        anatomy_quantiles *q[NPARTS] = {&out->rtt,     &out->send,    &out->poll, &out->work,
                                        &out->publish, &out->outside, &out->idle, &out->polls};
        for (int p = 0; p < NPARTS; p++)
            anatomy_quantiles_of(v[p], n[p], q[p]);
    }
    for (int p = 0; p < NPARTS; p++)
        free(v[p]);
    return rc;
}

/* 1, with one line in err, when not every reply the ring sent came back verified. */
static int replies_bad(const ring_stats *st, char *err, size_t errlen)
{
    if (!st->lost && !st->duplicated && !st->corrupted && st->verified == st->sent)
        return 0;
    snprintf(err, errlen, "anatomy: %llu of %llu replies verified (lost %llu, duplicated %llu, corrupted %llu)",
             (unsigned long long)st->verified, (unsigned long long)st->sent, (unsigned long long)st->lost,
             (unsigned long long)st->duplicated, (unsigned long long)st->corrupted);
    return 1;
}

int anatomy_run(const ring_config *cfg, uint32_t size, uint32_t warmup, uint32_t samples, volatile sig_atomic_t *stop,
                anatomy_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (samples == 0 || (uint64_t)warmup + samples > RB_ANATOMY_MAX) {
        snprintf(err, errlen, "anatomy: %u + %u round trips: from 1 to %u in all", warmup, samples, RB_ANATOMY_MAX);
        return -1;
    }
    ring_config rc = *cfg;
    rc.trace = 1;
    if (rc.max_payload < size)
        rc.max_payload = size;
    ring *r = NULL;
    host_stamps *h = calloc(samples, sizeof *h);
    ring_trace_rec *trace = calloc(RING_TRACE_RECS, sizeof *trace);
    int result = -1;
    if (!h || !trace) {
        snprintf(err, errlen, "anatomy: out of memory");
        goto done;
    }
    if (ring_open(&rc, &r, err, errlen) != RING_OK)
        goto done;
    out->blocks = ring_blocks(r);
    if (ring_launch(r) != RING_OK || ring_activate(r) != RING_OK)
        goto ring_failed;
    uint32_t i = 0;
    for (uint32_t w = 0; w < warmup && !(stop && *stop); w++)
        if (ring_send(r, size) != RING_OK || ring_recv(r) != RING_OK)
            goto ring_failed;
    for (; i < samples && !(stop && *stop); i++) {
        h[i].start = timing_now_ns();
        if (ring_send(r, size) != RING_OK)
            goto ring_failed;
        h[i].sent = timing_now_ns();
        if (ring_recv(r) != RING_OK)
            goto ring_failed;
        h[i].done = timing_now_ns();
    }
    if (ring_terminate(r) != RING_OK || ring_trace_read(r, trace) != RING_OK)
        goto ring_failed;
    out->st = *ring_get_stats(r);
    out->messages = i;
    if (replies_bad(&out->st, err, errlen))
        goto done;
    if (i == 0 || summarize(h, warmup, i, trace, out) != 0) {
        snprintf(err, errlen, i ? "anatomy: out of memory" : "anatomy: interrupted before the first round trip");
        result = i ? -1 : 1;
        goto done;
    }
    result = i < samples ? 1 : 0;
    goto done;
ring_failed:
    snprintf(err, errlen, "%s", ring_error(r));
done:
    ring_close(r);
    free(h);
    free(trace);
    return result;
}

/* --- windows ------------------------------------------------------------------------------------ */

static int by_first(const void *a, const void *b)
{
    const ring_trace_rec *x = a, *y = b;
    return ring_diff(x->first, y->first) < 0 ? -1 : ring_diff(x->first, y->first) > 0;
}

/* Keeps the records of batches from message `from` on, in message order; returns how many. */
static size_t window_records(ring_trace_rec *t, uint32_t from)
{
    size_t n = 0;
    for (size_t i = 0; i < RING_TRACE_RECS; i++)
        if (t[i].poll_ns && t[i].n && ring_diff(t[i].first, from) >= 0)
            t[n++] = t[i];
    qsort(t, n, sizeof *t, by_first);
    return n;
}

/* The kernel's side of a window from its batch records (in message order). */
static int window_kernel(const ring_trace_rec *t, size_t n, anatomy_window *out)
{
    enum { BATCH, POLLS, POLL, WORK, PUBLISH, GAP, NPARTS };
    double *v[NPARTS];
    size_t k[NPARTS] = {0};
    int rc = 0;
    for (int p = 0; p < NPARTS; p++)
        if (!(v[p] = malloc((n ? n : 1) * sizeof(double))))
            rc = -1;
    uint64_t msgs = 0, single = 0, early = 0, leader = 0, busy = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const ring_trace_rec *x = &t[i];
        msgs += x->n;
        single += x->n == 1;
        early += (x->how & RING_TRACE_EARLY) != 0;
        leader += (x->how & RING_TRACE_LEADER) != 0;
        v[BATCH][k[BATCH]++] = x->n;
        v[POLLS][k[POLLS]++] = x->polls;
        v[POLL][k[POLL]++] = (double)(x->seen_ns - x->poll_ns) * 1e-3;
        if (x->written_ns >= x->seen_ns)
            v[WORK][k[WORK]++] = (double)(x->written_ns - x->seen_ns) * 1e-3;
        if (!x->published_ns || x->published_ns < x->written_ns)
            continue; /* published by another block (ordinary launch): no stamp */
        v[PUBLISH][k[PUBLISH]++] = (double)(x->published_ns - x->written_ns) * 1e-3;
        busy += x->published_ns - x->poll_ns;
        if (i + 1 < n && t[i + 1].poll_ns >= x->published_ns)
            v[GAP][k[GAP]++] = (double)(t[i + 1].poll_ns - x->published_ns) * 1e-3;
    }
    if (rc == 0) {
        out->batches = n;
        out->per_batch = n ? (double)msgs / (double)n : NAN;
        out->single_share = msgs ? (double)single / (double)msgs : NAN;
        out->early_share = n ? (double)early / (double)n : NAN;
        out->leader_share = n ? (double)leader / (double)n : NAN;
        const uint64_t span = n > 1 && t[n - 1].published_ns > t[0].poll_ns ? t[n - 1].published_ns - t[0].poll_ns : 0;
        out->kernel_busy = span ? (double)busy / (double)span : NAN;
        anatomy_quantiles *q[NPARTS] = {&out->batch, &out->polls, &out->poll, &out->work, &out->publish, &out->gap};
        for (int p = 0; p < NPARTS; p++)
            anatomy_quantiles_of(v[p], k[p], q[p]);
    }
    for (int p = 0; p < NPARTS; p++)
        free(v[p]);
    return rc;
}

/* The host's side of a window: the timed pump's counters, end minus start. */
static void window_host(const ring_stats *a, const ring_stats *b, const ring_pump_result *p, anatomy_window *out)
{
    ring_stats d = {
        .sent = b->sent - a->sent,
        .received = b->received - a->received,
        .verified = b->verified - a->verified,
        .lost = b->lost - a->lost,
        .duplicated = b->duplicated - a->duplicated,
        .corrupted = b->corrupted - a->corrupted,
        .kernel_errors = b->kernel_errors - a->kernel_errors,
        .early = b->early - a->early,
        .ordered = b->ordered - a->ordered,
        .posts = b->posts - a->posts,
        .announces = b->announces - a->announces,
        .fetches = b->fetches - a->fetches,
        .split = b->split - a->split,
        .headers_seen = b->headers_seen - a->headers_seen,
        .post_ns = b->post_ns - a->post_ns,
        .reap_ns = b->reap_ns - a->reap_ns,
    };
    out->st = d;
    out->messages = p->messages;
    out->seconds = p->seconds;
    out->msgs_per_s = p->msgs_per_s;
    out->per_post = d.posts ? (double)d.sent / (double)d.posts : NAN;
    out->per_announce = d.announces ? (double)d.sent / (double)d.announces : NAN;
    out->per_fetch = d.fetches ? (double)d.sent / (double)d.fetches : NAN;
    out->early_replies = d.verified ? (double)d.early / (double)d.verified : NAN;
    out->split_replies = d.received ? (double)d.split / (double)d.received : NAN;
    out->header_replies = d.received ? (double)d.headers_seen / (double)d.received : NAN;
    out->post_us = d.posts ? (double)d.post_ns * 1e-3 / (double)d.posts : NAN;
    out->reap_us = d.received ? (double)d.reap_ns * 1e-3 / (double)d.received : NAN;
    out->host_busy = p->seconds > 0 ? (double)(d.post_ns + d.reap_ns) * 1e-9 / p->seconds : NAN;
}

int anatomy_window_run(const ring_config *cfg, uint32_t size, uint32_t window, double seconds,
                       volatile sig_atomic_t *stop, anatomy_window *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->window = window;
    ring_config rc = *cfg;
    rc.trace = 1;
    if (rc.max_payload < size)
        rc.max_payload = size;
    ring *r = NULL;
    ring_trace_rec *trace = calloc(RING_TRACE_RECS, sizeof *trace);
    ring_pump_result warm, timed;
    int result = -1;
    if (!trace) {
        snprintf(err, errlen, "anatomy: out of memory");
        goto done;
    }
    if (ring_open(&rc, &r, err, errlen) != RING_OK)
        goto done;
    if (ring_launch(r) != RING_OK || ring_activate(r) != RING_OK ||
        ring_pump(r, size, window, seconds / 10, stop, &warm) != RING_OK)
        goto ring_failed;
    const ring_stats before = *ring_get_stats(r);
    if (ring_pump(r, size, window, seconds, stop, &timed) != RING_OK)
        goto ring_failed;
    const ring_stats after = *ring_get_stats(r);
    if (ring_terminate(r) != RING_OK || ring_trace_read(r, trace) != RING_OK)
        goto ring_failed;
    window_host(&before, &after, &timed, out);
    if (replies_bad(&after, err, errlen))
        goto done;
    if (window_kernel(trace, window_records(trace, (uint32_t)before.sent), out) != 0) {
        snprintf(err, errlen, "anatomy: out of memory");
        goto done;
    }
    result = stop && *stop ? 1 : 0;
    goto done;
ring_failed:
    snprintf(err, errlen, "%s", ring_error(r));
done:
    ring_close(r);
    free(trace);
    return result;
}
