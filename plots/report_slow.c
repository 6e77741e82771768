/* report_slow.c - report.md's section on slow trials: how many trials of each size ran far from their
 * cell, and what the machine was doing while they ran.
 *
 * A trial is slow when its median is more than REPORT_SLOW_FACTOR times its cell's median trial
 * (for a rate: less than the cell's median divided by it). On the H100, default runs had 4-16 % slow
 * trials at 256 KiB and above in stretches of seconds, in every mode, while memcpy of the same sizes
 * stayed within 1.09x; the schema-4 columns of /trials (docs/schema.md: part_s, payload_s, the
 * steal, interrupt and other processes' CPU time, faults, context switches) are set side by side here
 * for slow and ordinary trials, so a reader sees whether the host, the hypervisor or the ring itself
 * was slow.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#define REPORT_SLOW_FACTOR 1.5

/* The conditions of a group of trials (slow, or the others), as medians over its trials. */
enum { C_STEAL, C_MAXSTEAL, C_OTHERS, C_IRQ, C_PAYLOAD, C_FAULTS, C_CSW, C_T, C_COUNT };

typedef struct slow_group {
    double *v[C_COUNT];
    size_t n, cap;
} slow_group;

typedef struct slow_size {
    uint64_t size;
    int ring; /* 1: ring latency and throughput cells, 0: the memcpy baselines */
    size_t trials;
    size_t stolen[2], stolen_slow[2]; /* trials without [0] and with [1] steal, and of them the slow ones */
    slow_group slow, rest;
} slow_size;

static int group_push(slow_group *g, const rb_trial *t)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        for (int c = 0; c < C_COUNT; c++) {
            double *p = realloc(g->v[c], cap * sizeof *p);
            if (!p)
                return -1;
            g->v[c] = p;
        }
        g->cap = cap;
    }
    const double s = t->elapsed_s > 0 ? t->elapsed_s : NAN;
    g->v[C_STEAL][g->n] = t->steal_ms / s;
    g->v[C_MAXSTEAL][g->n] = t->max_steal_ms / s;
    g->v[C_OTHERS][g->n] = t->others_ms / s;
    g->v[C_IRQ][g->n] = t->irq_ms / s;
    g->v[C_PAYLOAD][g->n] = t->part_s > 0 ? t->payload_s / t->part_s : NAN;
    g->v[C_FAULTS][g->n] = t->minflt >= 0 ? (double)(t->minflt + t->majflt) / s : NAN;
    g->v[C_CSW][g->n] = t->proc_ctx_switches >= 0 ? (double)t->proc_ctx_switches / s : NAN;
    g->v[C_T][g->n] = t->t_start_s;
    g->n++;
    return 0;
}

/* Median of the finite values of g's column c, NaN when none. */
static double group_median(const slow_group *g, int c)
{
    double *f = malloc((g->n ? g->n : 1) * sizeof *f);
    size_t k = 0;
    for (size_t i = 0; f && i < g->n; i++)
        if (isfinite(g->v[c][i]))
            f[k++] = g->v[c][i];
    double m = NAN;
    if (k && stats_sort(f, k) == 0)
        m = stats_percentile_sorted(f, k, 50.0);
    free(f);
    return m;
}

/* The sizes seen so far, one slot per (size, ring or memcpy), grown as needed. */
typedef struct slow_sizes {
    slow_size *v;
    size_t n, cap;
} slow_sizes;

/* The slot of (size, ring), added when new; NULL when out of memory. */
static slow_size *size_slot(slow_sizes *s, uint64_t size, int ring)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].size == size && s->v[i].ring == ring)
            return &s->v[i];
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 16;
        slow_size *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return NULL;
        s->v = v;
        s->cap = cap;
    }
    memset(&s->v[s->n], 0, sizeof s->v[s->n]);
    s->v[s->n].size = size;
    s->v[s->n].ring = ring;
    return &s->v[s->n++];
}

/* The cells whose trials are counted: the ring's latency and throughput, and the memcpy baselines. */
static int slow_kind(const rb_row *r)
{
    const int f = report_row_family(r);
    if (f == RB_FAM_LATENCY || f == RB_FAM_THROUGHPUT)
        return 1;
    if (f == RB_FAM_MEMCPY_H2D_PINNED || f == RB_FAM_MEMCPY_D2H_PINNED || f == RB_FAM_MEMCPY_H2D_PAGEABLE ||
        f == RB_FAM_MEMCPY_D2H_PAGEABLE)
        return 0;
    return -1;
}

/* Adds row i's ok trials to its size's groups. Returns 0, or -1 when out of memory. */
static int add_row(const report_run *run, size_t i, slow_sizes *s)
{
    const rb_row *r = report_row(run, i);
    const int kind = slow_kind(r);
    const size_t *idx = NULL;
    const size_t k = kind >= 0 && report_row_ok(r) ? h5in_row_trials(run->in, i, &idx) : 0;
    if (k < 3)
        return 0;
    double *p = malloc(k * sizeof *p);
    if (!p)
        return -1;
    size_t m = 0;
    for (size_t j = 0; j < k; j++) {
        const rb_trial *t = h5in_trial(run->in, idx[j]);
        if (t && strcmp(t->status, RB_STATUS_OK) == 0 && isfinite(t->p50) && t->p50 > 0)
            p[m++] = t->p50;
    }
    slow_size *z = NULL;
    if (m >= 3 && (z = size_slot(s, r->size_bytes, kind)) == NULL) {
        free(p);
        return -1;
    }
    if (!z) {
        free(p);
        return 0;
    }
    stats_sort(p, m);
    const double med = stats_percentile_sorted(p, m, 50.0), rate = report_unit_is_rate(r->unit);
    free(p);
    for (size_t j = 0; j < k; j++) {
        const rb_trial *t = h5in_trial(run->in, idx[j]);
        if (!t || strcmp(t->status, RB_STATUS_OK) != 0 || !isfinite(t->p50) || t->p50 <= 0)
            continue;
        const int slow = rate ? t->p50 * REPORT_SLOW_FACTOR < med : t->p50 > med * REPORT_SLOW_FACTOR;
        z->trials++;
        if (isfinite(t->steal_ms)) { /* NaN: a file before schema 4 */
            const int stolen = t->steal_ms > 0;
            z->stolen[stolen]++;
            z->stolen_slow[stolen] += (size_t)slow;
        }
        if (group_push(slow ? &z->slow : &z->rest, t) != 0)
            return -1;
    }
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    const slow_size *x = a, *y = b;
    if (x->ring != y->ring)
        return y->ring - x->ring;
    return x->size < y->size ? -1 : x->size > y->size;
}

static void row_md(FILE *md, const slow_size *z)
{
    char sz[32];
    const double share = z->trials ? (double)z->slow.n / (double)z->trials : 0;
    fprintf(md, "| %s | %s | %zu | %zu | %s%.1f%%%s |", z->ring ? "ring" : "memcpy",
            report_size_str(z->size, sz, sizeof sz), z->trials, z->slow.n, share > 0.01 ? "**" : "", 100 * share,
            share > 0.01 ? "**" : "");
    for (int k = 1; k >= 0; k--) {
        if (z->stolen[k])
            fprintf(md, " %.1f%% of %zu", 100.0 * (double)z->stolen_slow[k] / (double)z->stolen[k], z->stolen[k]);
        else
            fputs(" -", md);
        fputs(k ? " /" : " |", md);
    }
    for (int c = 0; c < C_T; c++) {
        const double a = group_median(&z->slow, c), b = group_median(&z->rest, c);
        const double ka = c == C_PAYLOAD ? 100 * a : a, kb = c == C_PAYLOAD ? 100 * b : b;
        fprintf(md, " %s / %s |", z->slow.n ? report_num(ka) : "-", report_num(kb));
    }
    if (z->slow.n) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < z->slow.n; i++) {
            lo = z->slow.v[C_T][i] < lo ? z->slow.v[C_T][i] : lo;
            hi = z->slow.v[C_T][i] > hi ? z->slow.v[C_T][i] : hi;
        }
        fprintf(md, " %.0f–%.0f s |\n", lo, hi);
    } else {
        fputs(" - |\n", md);
    }
}

static void slow_free(slow_sizes *s)
{
    for (size_t i = 0; i < s->n; i++)
        for (int c = 0; c < C_COUNT; c++) {
            free(s->v[i].slow.v[c]);
            free(s->v[i].rest.v[c]);
        }
    free(s->v);
}

void report_slow_md(FILE *md, const report_run *run)
{
    slow_sizes s = {NULL, 0, 0};
    int rc = 0;
    for (size_t i = 0; i < report_nrows(run) && rc == 0; i++)
        rc = add_row(run, i, &s);
    fputs("\n## Slow trials\n\n", md);
    if (rc != 0 || s.n == 0) {
        fputs(rc ? "Not computed: out of memory.\n" : "None counted: no cell has three or more ok trials.\n", md);
        slow_free(&s);
        return;
    }
    qsort(s.v, s.n, sizeof *s.v, cmp_size);
    fprintf(
        md,
        "A trial is slow when its median is more than %.1fx its cell's median trial (a rate: below the median "
        "divided by %.1f). The goal is at most 1 %% of trials at every size (bold above it). Each condition is "
        "the median over the slow trials / over the others, per second of trial: CPU time the hypervisor stole "
        "(all CPUs, and the one CPU that lost most: a pool pass used to wait for its slowest worker), other "
        "processes' CPU time and interrupt time (ms/s, all CPUs; counted in 10 ms ticks per CPU, so in a trial of "
        "a fraction of a second only differences of hundreds of ms/s mean anything, and others can read below 0), "
        "the host's share of the part in payload passes (messages of 64 KiB or more), page faults and involuntary "
        "context switches of this process. n/a: not recorded (a file before schema 4). The share is also given "
        "apart for the trials during which the hypervisor stole any CPU time from this machine (`/proc/stat` "
        "steal, in ticks of 10 ms) and for those during which it stole none: on lent H100s, trials with steal "
        "were slow 1.7-10.5 %% of the time and those without 0-3.4 %% "
        "(docs/decisions/0006-slow-trials-follow-the-machine.md).\n\n"
        "| cells | size | trials | slow | share | share with steal / without | steal ms/s | most-stolen CPU | others ms/s | irq ms/s | payload %% | faults/s "
        "| ctx sw/s | slow trials started |\n"
        "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        REPORT_SLOW_FACTOR, REPORT_SLOW_FACTOR);
    for (size_t i = 0; i < s.n; i++)
        row_md(md, &s.v[i]);
    slow_free(&s);
}
