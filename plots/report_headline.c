/* report_headline.c - the first screen of report.md and compare.md: the answer, then the evidence.
 *
 * A reader opening a report wants the verdict on the "10-30%" claim and the few numbers behind it
 * before the environment, capabilities and full tables (which follow, unchanged). This file only
 * picks rows and phrases them: the overheads and their classification come from report_verdict.c
 * (report_overhead, report_claim_word), so the brief and the full verdict cannot disagree.
 * Exercised by tests/test_report.c (the verdict within the first 40 lines of report.md).
 */
#define _POSIX_C_SOURCE 200809L

#include "report_headline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const rb_family cb_ops[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
#define NCB (sizeof cb_ops / sizeof cb_ops[0])

/* p50 of an ok row, NAN otherwise. */
static double p50_of(const report_run *run, rb_family f, const mode_spec *m, uint64_t size)
{
    long i = report_find(run, f, m, size);
    const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
    return r != NULL && report_row_ok(r) ? r->p50 : NAN;
}

/* The smallest (or largest) size a family was measured at, 0 when none. */
static uint64_t size_end(const report_run *run, rb_family f, int largest)
{
    uint64_t *sizes = NULL, s = 0;
    size_t n = report_sizes(run, f, &sizes);
    if (n > 0)
        s = largest ? sizes[n - 1] : sizes[0];
    free(sizes);
    return s;
}

/* The best ok mode row of family f at size (lowest p50, or highest for a rate); -1 when none. */
static long best_row(const report_run *run, rb_family f, uint64_t size)
{
    int rate = report_unit_is_rate(rb_family_unit(f));
    long best = -1;
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        if (report_row_family(r) != (int)f || r->size_bytes != size || !report_row_mode(r, NULL) || !report_row_ok(r))
            continue;
        if (best < 0 ||
            (rate ? r->p50 > report_row(run, (size_t)best)->p50 : r->p50 < report_row(run, (size_t)best)->p50))
            best = (long)i;
    }
    return best;
}

/* The row of the round-trip floor (one size), or -1. */
static long floor_row(const report_run *run)
{
    uint64_t s = size_end(run, RB_FAM_BASE_FLOOR, 0);
    long i = report_find(run, RB_FAM_BASE_FLOOR, NULL, s);
    return i >= 0 && report_row_ok(report_row(run, (size_t)i)) ? i : -1;
}

// --- the paragraph --------------------------------------------------------------------------------------

/* Counts of claim words and the range of estimates over a few overheads. */
typedef struct brief {
    int n, inside, below, above, other, missing;
    double min, max;
} brief;

static void brief_add(brief *b, const report_ov *ov)
{
    if (ov->state != REPORT_OV_OK) {
        b->missing++;
        return;
    }
    const char *w = report_claim_word(ov);
    if (b->n++ == 0)
        b->min = b->max = ov->est;
    b->min = fmin(b->min, ov->est);
    b->max = fmax(b->max, ov->est);
    b->inside += strcmp(w, "inside") == 0;
    b->below += strcmp(w, "below") == 0;
    b->above += strcmp(w, "above") == 0;
    b->other += strncmp(w, "straddles", 9) == 0;
}

/* "+547% to +15500% (against the claimed 10-30%: above in 3 of 3)", or why there is nothing to say. */
static void brief_md(FILE *md, const brief *b, int claim)
{
    if (b->n == 0) {
        fputs("could not be compared (rows missing or not measured)", md);
        return;
    }
    if (b->n == 1 || b->min == b->max)
        fprintf(md, "**%+.0f%%**", 100 * b->min);
    else
        fprintf(md, "**%+.0f%% to %+.0f%%**", 100 * b->min, 100 * b->max);
    if (!claim)
        return;
    if (b->n == 1 && !b->missing) {
        fprintf(md, " (%s the claimed 10–30%%)",
                b->above    ? "**above**"
                : b->inside ? "**inside**"
                : b->below  ? "**below**"
                            : "inconclusive against");
        return;
    }
    fputs(" (against the claimed 10–30%: ", md);
    const char *sep = "";
    if (b->above) {
        fprintf(md, "%s**above** in %d", sep, b->above);
        sep = ", ";
    }
    if (b->inside) {
        fprintf(md, "%s**inside** in %d", sep, b->inside);
        sep = ", ";
    }
    if (b->below) {
        fprintf(md, "%s**below** in %d", sep, b->below);
        sep = ", ";
    }
    if (b->other) {
        fprintf(md, "%sinconclusive in %d", sep, b->other);
        sep = ", ";
    }
    fprintf(md, " of %d%s)", b->n, b->missing ? "; some not measured" : "");
}

static void overhead(const report_run *base, const mode_spec *nat, const report_run *other, rb_family f, uint64_t size,
                     const report_opts *o, report_ov *ov)
{
    mode_spec fb = mode_wsl2_fallback();
    report_overhead(base, report_find(base, f, nat, size), "native", other, report_find(other, f, &fb, size),
                    "fallback", o, ov);
}

static void paragraph_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o)
{
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    report_ov ov;
    brief cb = {0}, small = {0}, large = {0}, thr = {0};
    char sz[32], sz2[32];
    uint64_t s_small = size_end(other, RB_FAM_LATENCY, 0), s_large = size_end(other, RB_FAM_LATENCY, 1);
    uint64_t s_thr = size_end(other, RB_FAM_THROUGHPUT, 1);

    for (size_t k = 0; k < NCB; k++) {
        overhead(base, &nat, other, cb_ops[k], 0, o, &ov);
        brief_add(&cb, &ov);
    }
    overhead(base, &nat, other, RB_FAM_LATENCY, s_small, o, &ov);
    brief_add(&small, &ov);
    overhead(base, &nat, other, RB_FAM_LATENCY, s_large, o, &ov);
    brief_add(&large, &ov);
    overhead(base, &nat, other, RB_FAM_THROUGHPUT, s_thr, o, &ov);
    brief_add(&thr, &ov);

    const int claim = report_claim_applies(base, other);
    if (claim)
        fputs("**Verdict on the claim that the WSL2 fallback is \"10–30% slower for control block "
              "operations\":** ",
              md);
    else
        fputs("**No verdict: these are CPU reference backend numbers.** The CPU backend runs the same ring "
              "protocol with a host thread in the kernel's place, so that the sweep, the results file, the report "
              "and the tests can be run and checked on any machine; what its modes cost says nothing about a GPU, "
              "native CUDA or WSL2. For the record, on this machine ",
              md);
    fprintf(md, "the fallback path `%s`%s against the native path `%s`%s costs ", report_mode_str(&fb),
            base != other ? " (OTHER)" : "", report_mode_str(&nat), base != other ? " (BASE)" : "");
    brief_md(md, &cb, claim);
    fputs(" more time for control-block operations (read, write, handshake). Whole messages: ", md);
    brief_md(md, &small, claim);
    fprintf(md, " round-trip latency at %s, ", report_size_str(s_small, sz, sizeof sz));
    brief_md(md, &large, claim);
    fprintf(md, " at %s; throughput at %s ", report_size_str(s_large, sz2, sizeof sz2),
            report_size_str(s_thr, sz, sizeof sz));
    brief_md(md, &thr, claim);
    fputs(" (on time per byte). Overheads are median(fallback) / median(native) − 1 with 95% bootstrap "
          "intervals; every cell, and the same against a managed control block, is in the full verdict "
          "below.\n\n",
          md);
}

// --- the table ------------------------------------------------------------------------------------------

/* One value cell: p50 with its unit, or "n/a". */
static void value_md(FILE *md, double v, const char *unit)
{
    if (isfinite(v))
        fprintf(md, " %s %s |", report_num(v), unit);
    else
        fputs(" n/a |", md);
}

/* fallback / native as "154×", or n/a. */
static void ratio_md(FILE *md, double fb, double nat)
{
    if (isfinite(fb) && isfinite(nat) && nat > 0)
        fprintf(md, " %s× (%s / %s) |", report_num(fb / nat), report_num(fb), report_num(nat));
    else
        fputs(" n/a |", md);
}

static void row_head(FILE *md, const char *what) { fprintf(md, "| %s |", what); }

static void table_md(FILE *md, const report_run *const *runs, size_t nruns)
{
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    const report_run *last = runs[nruns - 1];
    uint64_t s_small = size_end(last, RB_FAM_LATENCY, 0), s_large = size_end(last, RB_FAM_LATENCY, 1);
    uint64_t s_thr = size_end(last, RB_FAM_THROUGHPUT, 1);
    char what[160], sz[32];

    fputs(
        nruns == 1
            ? "| headline figure | p50 |\n| --- | --- |\n"
            : "| headline figure (fallback / native within each file) | BASE p50 | OTHER p50 |\n| --- | --- | --- |\n",
        md);
    row_head(md, "floor: one-word ping-pong through mapped pinned memory");
    for (size_t r = 0; r < nruns; r++) {
        long i = floor_row(runs[r]);
        value_md(md, i >= 0 ? report_row(runs[r], (size_t)i)->p50 : NAN, "us");
    }
    fputs("\n", md);
    snprintf(what, sizeof what, "best ring round trip at %s (mode; × floor)", report_size_str(s_small, sz, sizeof sz));
    row_head(md, what);
    for (size_t r = 0; r < nruns; r++) {
        long b = best_row(runs[r], RB_FAM_LATENCY, s_small), f = floor_row(runs[r]);
        mode_spec m;
        if (b < 0) {
            fputs(" n/a |", md);
            continue;
        }
        const rb_row *B = report_row(runs[r], (size_t)b);
        report_row_mode(B, &m);
        fprintf(md, " %s us (`%s`", report_num(B->p50), report_mode_str(&m));
        if (f >= 0 && report_row(runs[r], (size_t)f)->p50 > 0)
            fprintf(md, "; %s× floor", report_num(B->p50 / report_row(runs[r], (size_t)f)->p50));
        fputs(") |", md);
    }
    fputs("\n", md);
    for (size_t k = 0; k < NCB; k++) {
        snprintf(what, sizeof what, "control block %s, fallback / native (us)", rb_family_name(cb_ops[k]) + 3);
        row_head(md, what);
        for (size_t r = 0; r < nruns; r++)
            ratio_md(md, p50_of(runs[r], cb_ops[k], &fb, 0), p50_of(runs[r], cb_ops[k], &nat, 0));
        fputs("\n", md);
    }
    uint64_t lat_sizes[2] = {s_small, s_large};
    for (size_t s = 0; s < (s_large != s_small ? 2u : 1u); s++) {
        snprintf(what, sizeof what, "round trip at %s, fallback / native (us)",
                 report_size_str(lat_sizes[s], sz, sizeof sz));
        row_head(md, what);
        for (size_t r = 0; r < nruns; r++)
            ratio_md(md, p50_of(runs[r], RB_FAM_LATENCY, &fb, lat_sizes[s]),
                     p50_of(runs[r], RB_FAM_LATENCY, &nat, lat_sizes[s]));
        fputs("\n", md);
    }
    snprintf(what, sizeof what, "throughput ceiling at %s (best mode; × pinned cudaMemcpy H2D)",
             report_size_str(s_thr, sz, sizeof sz));
    row_head(md, what);
    for (size_t r = 0; r < nruns; r++) {
        long b = best_row(runs[r], RB_FAM_THROUGHPUT, s_thr);
        double memcpy_bw = p50_of(runs[r], RB_FAM_MEMCPY_H2D_PINNED, NULL, s_thr);
        mode_spec m;
        if (b < 0) {
            fputs(" n/a |", md);
            continue;
        }
        const rb_row *B = report_row(runs[r], (size_t)b);
        report_row_mode(B, &m);
        fprintf(md, " %s GB/s (`%s`", report_num(B->p50), report_mode_str(&m));
        if (isfinite(memcpy_bw) && memcpy_bw > 0)
            fprintf(md, "; %s× of %s GB/s", report_num(B->p50 / memcpy_bw), report_num(memcpy_bw));
        fputs(") |", md);
    }
    snprintf(what, sizeof what, "throughput at %s, fallback / native (GB/s)", report_size_str(s_thr, sz, sizeof sz));
    fputs("\n", md);
    row_head(md, what);
    for (size_t r = 0; r < nruns; r++)
        ratio_md(md, p50_of(runs[r], RB_FAM_THROUGHPUT, &fb, s_thr), p50_of(runs[r], RB_FAM_THROUGHPUT, &nat, s_thr));
    fputs("\n\n", md);
}

void report_headline_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o,
                        const char *plot)
{
    const report_run *runs[2] = {base, other};
    fputs(report_claim_applies(base, other) ? "## Verdict in brief\n\n" : "## In brief (CPU reference backend)\n\n",
          md);
    paragraph_md(md, base, other, o);
    table_md(md, runs, base != other ? 2 : 1);
    if (plot != NULL)
        fprintf(md, "![the answer](%s.png)\n\n", plot);
}
