/* report_verdict.c - renders overheads with trial-level confidence intervals, and the verdict on the
 * claim that the WSL2 fallback path is "10-30% slower for control block operations" than native Linux.
 * The rules (pairing, which bootstrap, the words) are harness/verdict.c's; this file applies them to a
 * report's rows and writes the tables.
 *
 * The overhead of B over A is est(B)/est(A) - 1, est = the median of a row's trial medians, with a 95%
 * interval from the trial-level bootstrap of harness/stats.h: paired rounds when A and B are in one
 * file and were measured in the same rounds, independent hierarchical bootstraps otherwise, each
 * calibrated for the number of trials (a row with one trial, e.g. every row of a schema-1 file, gets
 * a sample-level interval and is labelled so). Each row's trials are sorted once and cached
 * (report_trials), so every bootstrap draw is O(1). Positive means B is slower. For throughput
 * (GB/s, bigger is better) each sample is first turned into time per byte (1/x), so that the sign
 * means the same thing in every family: +25% is always "25% more time per message / per byte".
 * "faster" or "slower" need an interval that excludes 0 and an overhead of at least --min-effect
 * (5%); otherwise "same within noise". Against the claim, an interval wholly inside [10%, 30%] is
 * "inside", wholly below 10% "below", wholly above 30% "above"; one that crosses a bound says which.
 * A row that is missing, unsupported or without samples is said to be so; no number is invented.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_internal.h"
#include "stats.h"
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void ov_fail(report_ov *ov, report_ov_state st, const char *side, const rb_row *row)
{
    ov->state = st;
    if (st == REPORT_OV_MISSING)
        snprintf(ov->why, sizeof ov->why, "%s: not in the file", side);
    else if (st == REPORT_OV_NOT_OK)
        snprintf(ov->why, sizeof ov->why, "%s: %s%s%s", side, row->status, row->reason[0] ? ": " : "", row->reason);
    else
        snprintf(ov->why, sizeof ov->why, "%s: no raw samples", side);
}

void report_overhead(const report_run *ra, long ia, const char *la, const report_run *rb, long ib, const char *lb,
                     const report_opts *o, report_ov *ov)
{
    memset(ov, 0, sizeof *ov);
    ov->p50_a = ov->p50_b = ov->est = ov->lo = ov->hi = NAN;
    ov->min_effect = o->min_effect;
    if (ia < 0 || ib < 0) {
        ov_fail(ov, REPORT_OV_MISSING, ia < 0 ? la : lb, NULL);
        return;
    }
    const rb_row *A = report_row(ra, (size_t)ia), *B = report_row(rb, (size_t)ib);
    ov->p50_a = A->p50;
    ov->p50_b = B->p50;
    if (!report_row_ok(A) || !report_row_ok(B)) {
        ov_fail(ov, REPORT_OV_NOT_OK, report_row_ok(A) ? lb : la, report_row_ok(A) ? B : A);
        return;
    }
    const int32_t *round_a, *round_b;
    const stats_trial *a = report_trials(ra, ia, &ov->ka, &round_a), *b = report_trials(rb, ib, &ov->kb, &round_b);
    if (a == NULL || b == NULL) {
        ov_fail(ov, REPORT_OV_NO_SAMPLES, a == NULL ? la : lb, NULL);
        return;
    }
    /* The pairing rule and the bootstrap it chooses are verdict.h's. */
    stats_interval ci;
    ov->paired = verdict_pairable(ra == rb, round_a, ov->ka, round_b, ov->kb);
    if (verdict_overhead(a, ov->ka, b, ov->kb, ov->paired, o->reps, o->seed, &ci) != 0) {
        ov->state = REPORT_OV_ERROR;
        snprintf(ov->why, sizeof ov->why, "bootstrap refused these samples (a zero median?)");
        return;
    }
    ov->state = REPORT_OV_OK;
    ov->est = ci.est;
    ov->lo = ci.lo;
    ov->hi = ci.hi;
    ov->method = ci.method;
}

int report_ov_excludes_zero(const report_ov *ov)
{
    return ov->state == REPORT_OV_OK && verdict_excludes_zero(ov->lo, ov->hi);
}

/* The words of the verdicts: the one place they are spelled. A speed's token is its name in the pairs
 * table (compare_pairs.dat), one word per verdict. */
static const struct {
    const char *name, *token;
} speed_words[VERDICT_SPEEDS] = {
    [VERDICT_SAME] = {"same within noise", "same"},
    [VERDICT_SLOWER] = {"slower", "slower"},
    [VERDICT_FASTER] = {"faster", "faster"},
    [VERDICT_SPEED_NONE] = {"n/a", "n/a"},
};
static const char *const claim_words[VERDICT_CLAIMS] = {
    [VERDICT_INSIDE] = "inside",
    [VERDICT_BELOW] = "below",
    [VERDICT_ABOVE] = "above",
    [VERDICT_STRADDLES_LO] = "straddles " VERDICT_STR(VERDICT_CLAIM_LO_PCT) "%",
    [VERDICT_STRADDLES_HI] = "straddles " VERDICT_STR(VERDICT_CLAIM_HI_PCT) "%",
    [VERDICT_MIXED] = "mixed",
    [VERDICT_CLAIM_NONE] = "n/a",
};

const char *report_speed_name(verdict_speed v)
{
    return speed_words[(unsigned)v < VERDICT_SPEEDS ? v : VERDICT_SPEED_NONE].name;
}

const char *report_speed_token(verdict_speed v)
{
    return speed_words[(unsigned)v < VERDICT_SPEEDS ? v : VERDICT_SPEED_NONE].token;
}

const char *report_claim_name(verdict_claim v)
{
    return claim_words[(unsigned)v < VERDICT_CLAIMS ? v : VERDICT_CLAIM_NONE];
}

verdict_speed report_speed(const report_ov *ov)
{
    return ov->state != REPORT_OV_OK ? VERDICT_SPEED_NONE : verdict_speed_of(ov->est, ov->lo, ov->hi, ov->min_effect);
}

verdict_claim report_claim(const report_ov *ov)
{
    return ov->state != REPORT_OV_OK ? VERDICT_CLAIM_NONE : verdict_claim_of(ov->lo, ov->hi);
}

const char *report_speed_word(const report_ov *ov) { return report_speed_name(report_speed(ov)); }

const char *report_ov_method_str(const report_ov *ov, char *buf, size_t n)
{
    if (ov->state != REPORT_OV_OK)
        snprintf(buf, n, "-");
    else if (ov->method == STATS_CI_SAMPLES)
        snprintf(buf, n, "samples (k=%zu/%zu)", ov->ka, ov->kb);
    else
        snprintf(buf, n, "trials k=%zu/%zu%s", ov->ka, ov->kb, ov->paired ? " paired" : "");
    return buf;
}

const char *report_claim_word(const report_ov *ov) { return report_claim_name(report_claim(ov)); }

int report_claim_applies(const report_run *base, const report_run *other)
{
    return strcmp(base->backend, "cuda") == 0 && strcmp(other->backend, "cuda") == 0;
}

char *report_ov_str(const report_ov *ov, char *buf, size_t n)
{
    if (ov->state != REPORT_OV_OK)
        snprintf(buf, n, "n/a (%s)", ov->why);
    else if (ov->est >= 1.0) /* twice the time or more: a ratio, never thousands of percent */
        snprintf(buf, n, "%s [%s, %s]", report_times(1 + ov->est), report_times(1 + ov->lo), report_times(1 + ov->hi));
    else
        snprintf(buf, n, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * ov->est, 100 * ov->lo, 100 * ov->hi);
    return buf;
}

// --- the claim's comparison: fallback path against the native path -----------------------------------

/* One comparison target: a mode of one file that the fallback is measured against. */
typedef struct target {
    const report_run *run;
    mode_spec mode;
    const char *name; /* e.g. "native (ctrl mapped)" */
} target;

/* Tally of verdicts over a set of cells, for the one-line summaries. */
typedef struct tally {
    int n, inside, below, above, straddle, missing;
    double min, max;
    char min_at[32], max_at[32];
} tally;

static void tally_add(tally *t, const report_ov *ov, const char *where)
{
    if (t->n == 0 && t->missing == 0) {
        t->min = INFINITY;
        t->max = -INFINITY;
    }
    if (ov->state != REPORT_OV_OK) {
        t->missing++;
        return;
    }
    t->n++;
    const verdict_claim v = report_claim(ov);
    t->inside += v == VERDICT_INSIDE;
    t->below += v == VERDICT_BELOW;
    t->above += v == VERDICT_ABOVE;
    t->straddle += v == VERDICT_STRADDLES_LO || v == VERDICT_STRADDLES_HI;
    if (ov->est < t->min) {
        t->min = ov->est;
        snprintf(t->min_at, sizeof t->min_at, "%s", where);
    }
    if (ov->est > t->max) {
        t->max = ov->est;
        snprintf(t->max_at, sizeof t->max_at, "%s", where);
    }
}

/* An overhead alone: "+25.3%", or from +100 % on the ratio "188×". */
static const char *ov_short(double est)
{
    static char bufs[4][32];
    static unsigned next;
    char *b = bufs[next++ % 4];
    if (est >= 1.0)
        snprintf(b, sizeof bufs[0], "%s", report_times(1 + est));
    else
        snprintf(b, sizeof bufs[0], "%+.1f%%", 100 * est);
    return b;
}

static void tally_md(FILE *md, const tally *t, const char *what, const char *against, int claim)
{
    fprintf(md, "- **%s, fallback against %s:** ", what, against);
    if (t->n == 0) {
        fprintf(md, "no verdict: no cell could be compared (%d missing or not measured; see the table).\n", t->missing);
        return;
    }
    if (t->n == 1)
        fprintf(md, "overhead %s", ov_short(t->min));
    else
        fprintf(md, "overhead from %s (%s) to %s (%s)", ov_short(t->min), t->min_at, ov_short(t->max), t->max_at);
    if (claim)
        fprintf(md,
                "; against the claimed " VERDICT_CLAIM_FMT ": **inside** in %d, **below** in %d, **above** in %d, "
                "inconclusive (CI crosses a bound) in %d of %d cells",
                t->inside, t->below, t->above, t->straddle, t->n);
    else
        fprintf(md, " over %d cells (CPU reference backend: not judged against the claim)", t->n);
    if (t->missing)
        fprintf(md, "; %d cells could not be compared", t->missing);
    fputs(".\n", md);
}

static void ov_row_md(FILE *md, const char *cell, const char *against, const report_ov *ov, int claim, const char *unit)
{
    char buf[RB_REASON_LEN + 160];
    fprintf(md, "| %s | %s | %s | %s | ", cell, against, report_value(ov->p50_a, unit), report_value(ov->p50_b, unit));
    report_md_text(md, report_ov_str(ov, buf, sizeof buf));
    fprintf(md, " | %s | %s | %s |\n", report_speed_word(ov), claim ? report_claim_word(ov) : "n/a (CPU backend)",
            report_ov_method_str(ov, buf, sizeof buf));
}

static void ov_table_head(FILE *md, const char *first)
{
    fprintf(
        md,
        "\n| %s | fallback against | reference p50 | fallback p50 | overhead [95%% CI] | "
        "fallback is | against the claimed %s | interval from |\n| --- | --- | ---: | ---: | --- | --- | --- | --- |\n",
        first, VERDICT_CLAIM_LABEL);
}

/* The control-block operations (size 0): one row per operation and target. */
static void verdict_cb(FILE *md, const report_run *fb_run, const target *tg, size_t ntg, const report_opts *o,
                       int claim)
{
    static const rb_family ops[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
    mode_spec fb = mode_wsl2_fallback();
    tally t[8];
    report_ov ov;
    memset(t, 0, sizeof t);
    fputs("\n### (i) Control-block operations\n", md);
    ov_table_head(md, "operation");
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (size_t g = 0; g < ntg; g++) {
            report_overhead(tg[g].run, report_find(tg[g].run, ops[k], &tg[g].mode, 0), tg[g].name, fb_run,
                            report_find(fb_run, ops[k], &fb, 0), mode_path_name(MODE_PATH_FALLBACK), o, &ov);
            tally_add(&t[g], &ov, rb_family_name(ops[k]));
            ov_row_md(md, rb_family_name(ops[k]), tg[g].name, &ov, claim, rb_family_unit(ops[k]));
        }
    fputs("\n", md);
    for (size_t g = 0; g < ntg; g++)
        tally_md(md, &t[g], "Control-block operations", tg[g].name, claim);
}

/* Latency or throughput per size: one row per size and target. */
static void verdict_sized(FILE *md, rb_family fam, const char *number, const char *what, const report_run *fb_run,
                          const target *tg, size_t ntg, const report_opts *o, int claim)
{
    mode_spec fb = mode_wsl2_fallback();
    uint64_t *sizes = NULL;
    size_t ns = report_sizes(fb_run, fam, &sizes);
    tally t[8];
    report_ov ov;
    char sz[32];
    memset(t, 0, sizeof t);
    fprintf(md, "\n### %s %s\n", number, what);
    if (report_unit_is_rate(rb_family_unit(fam)))
        fputs("\nThroughput overheads are on time per byte (1/GB/s): +25% means the fallback moves the same "
              "bytes in 25% more time.\n",
              md);
    if (ns == 0) {
        fprintf(md, "\nNo %s rows in the file: no verdict.\n", rb_family_name(fam));
        free(sizes);
        return;
    }
    ov_table_head(md, "size");
    for (size_t i = 0; i < ns; i++)
        for (size_t g = 0; g < ntg; g++) {
            report_overhead(tg[g].run, report_find(tg[g].run, fam, &tg[g].mode, sizes[i]), tg[g].name, fb_run,
                            report_find(fb_run, fam, &fb, sizes[i]), mode_path_name(MODE_PATH_FALLBACK), o, &ov);
            report_size_str(sizes[i], sz, sizeof sz);
            tally_add(&t[g], &ov, sz);
            ov_row_md(md, sz, tg[g].name, &ov, claim, rb_family_unit(fam));
        }
    fputs("\n", md);
    for (size_t g = 0; g < ntg; g++)
        tally_md(md, &t[g], what, tg[g].name, claim);
    free(sizes);
}

// --- one axis at a time -----------------------------------------------------------------------------

typedef struct step {
    mode_axis axis;
    mode_spec from, to;
    int moved_start; /* 1 when the start is the native path with ctrl managed (the change was invalid) */
} step;

/* The steps from the native path towards the fallback, one axis each, from the two modes in modes.h. */
static size_t make_steps(step *st)
{
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    size_t n = 0;
    for (int a = 0; a < RB_AXIS_COUNT; a++) {
        if (nat.v[a] == fb.v[a])
            continue;
        step s = {(mode_axis)a, nat, nat, 0};
        s.to.v[a] = fb.v[a];
        if (mode_invalid_reason(&s.to) != NULL) {
            /* e.g. malloc with a mapped control block cannot exist: start from ctrl managed instead. */
            s.from.v[RB_AXIS_CTRL] = RB_CTRL_MANAGED;
            s.to.v[RB_AXIS_CTRL] = RB_CTRL_MANAGED;
            s.moved_start = 1;
        }
        st[n++] = s;
    }
    return n;
}

static void step_name(const step *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s→%s", mode_axis_name(s->axis), mode_axis_value(s->axis, s->from.v[s->axis]),
             mode_axis_value(s->axis, s->to.v[s->axis]));
}

/* A table of steps (rows) against cells (columns: families at size 0, or one family over sizes), and
 * the mean overhead per step for "which axis costs most". */
static void steps_table(FILE *md, const report_run *run, const step *st, size_t nst, const rb_family *fams,
                        const uint64_t *sizes, size_t ncells, const report_opts *o, double *mean)
{
    char name[96], buf[RB_REASON_LEN + 160], sz[32];
    report_ov ov;
    fputs("\n| step (from → to) |", md);
    for (size_t c = 0; c < ncells; c++)
        fprintf(md, " %s |", sizes ? report_size_str(sizes[c], sz, sizeof sz) : rb_family_name(fams[c]));
    fputs("\n| --- |", md);
    for (size_t c = 0; c < ncells; c++)
        fputs(" --- |", md);
    fputs("\n", md);
    for (size_t s = 0; s < nst; s++) {
        double sum = 0;
        int cnt = 0;
        step_name(&st[s], name, sizeof name);
        fprintf(md, "| %s (%s → %s) |", name, report_mode_str(&st[s].from), report_mode_str(&st[s].to));
        for (size_t c = 0; c < ncells; c++) {
            rb_family f = sizes ? fams[0] : fams[c];
            uint64_t size = sizes ? sizes[c] : 0;
            report_overhead(run, report_find(run, f, &st[s].from, size), "from", run,
                            report_find(run, f, &st[s].to, size), "to", o, &ov);
            fputc(' ', md);
            report_md_text(md, report_ov_str(&ov, buf, sizeof buf));
            if (ov.state == REPORT_OV_OK)
                fprintf(md, " %s", report_speed_word(&ov));
            fputs(" |", md);
            if (ov.state == REPORT_OV_OK) {
                sum += ov.est;
                cnt++;
            }
        }
        fputs("\n", md);
        mean[s] = cnt ? sum / cnt : NAN;
    }
}

static void costliest_md(FILE *md, const char *what, const step *st, size_t nst, const double *mean)
{
    size_t best = nst;
    char name[96];
    for (size_t s = 0; s < nst; s++)
        if (isfinite(mean[s]) && (best == nst || mean[s] > mean[best]))
            best = s;
    fprintf(md, "- **%s:** ", what);
    if (best == nst) {
        fputs("no step could be measured.\n", md);
        return;
    }
    step_name(&st[best], name, sizeof name);
    fprintf(md, "the costliest single axis is **%s**, mean overhead %s over its cells (others:", name,
            ov_short(mean[best]));
    const char *sep = " ";
    for (size_t s = 0; s < nst; s++) {
        if (s == best)
            continue;
        step_name(&st[s], name, sizeof name);
        if (isfinite(mean[s]))
            fprintf(md, "%s%s %s", sep, name, ov_short(mean[s]));
        else
            fprintf(md, "%s%s n/a", sep, name);
        sep = "; ";
    }
    fputs(").\n", md);
}

static void verdict_axes(FILE *md, const report_run *run, const char *which, const report_opts *o)
{
    static const rb_family ops[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
    step st[RB_AXIS_COUNT];
    size_t nst = make_steps(st);
    double mean_cb[RB_AXIS_COUNT], mean_lat[RB_AXIS_COUNT], mean_thr[RB_AXIS_COUNT];
    char name[96];
    mode_spec nat = mode_native();

    fprintf(md, "\n### (iv) Which single axis costs the most%s\n\n", which);
    fprintf(md,
            "Each step starts from the native path %s and changes one axis to its fallback value; "
            "the overhead is the changed mode against the start, within this file.",
            report_mode_str(&nat));
    for (size_t s = 0; s < nst; s++) {
        if (!st[s].moved_start)
            continue;
        mode_spec bad = nat;
        bad.v[st[s].axis] = st[s].to.v[st[s].axis];
        step_name(&st[s], name, sizeof name);
        fprintf(md,
                " For **%s** the one-axis change from %s is invalid (%s), so that step starts from %s "
                "(the native path with ctrl managed).",
                name, report_mode_str(&nat), mode_invalid_reason(&bad), report_mode_str(&st[s].from));
    }
    fputs("\n\nControl-block operations:\n", md);
    steps_table(md, run, st, nst, ops, NULL, 3, o, mean_cb);

    static const rb_family lat[] = {RB_FAM_LATENCY}, thr[] = {RB_FAM_THROUGHPUT};
    uint64_t *sizes = NULL;
    size_t ns = report_sizes(run, RB_FAM_LATENCY, &sizes);
    fputs("\nEnd-to-end latency per size:\n", md);
    steps_table(md, run, st, nst, lat, sizes, ns, o, mean_lat);
    free(sizes);
    ns = report_sizes(run, RB_FAM_THROUGHPUT, &sizes);
    fputs("\nThroughput per size (overhead on time per byte):\n", md);
    steps_table(md, run, st, nst, thr, sizes, ns, o, mean_thr);
    free(sizes);
    fputs("\n", md);
    costliest_md(md, "Control-block operations", st, nst, mean_cb);
    costliest_md(md, "End-to-end latency", st, nst, mean_lat);
    costliest_md(md, "Throughput", st, nst, mean_thr);
}

void report_method_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o)
{
    fputs("## Method\n\n", md);
    for (int k = 0; k < 1 + (base != other); k++) {
        const report_run *r = k ? other : base;
        fprintf(md, "%s`", base != other ? (k ? "OTHER: " : "BASE: ") : "File: ");
        report_md_text(md, r->path);
        fprintf(md, "` — schema %d, %zu rows, complete = %d, backend %s; environment and capabilities at the end.\n\n",
                h5in_schema_version(r->in), report_nrows(r), r->complete, r->backend);
    }
    fprintf(md,
            "Every figure is a cell's p50: the median of its trials' medians (each trial a fresh ring and kernel "
            "launch). A ratio or overhead of B over A is est(B) / est(A), the ratio of the two p50s (overhead = "
            "ratio − 1; positive = B is slower; rates on time per byte, so that holds there too). Its 95%% "
            "interval is a hierarchical bootstrap over trials (trials resampled, each trial's median redrawn from "
            "its samples; %d resamples, seed %llu), widened for the small number of trials (a t quantile) so that "
            "it covers what another run would see; rows of one file measured in the same rounds are resampled "
            "round by round (\"paired\"). A row with a single trial (every row of a schema-1 file) only has a "
            "sample-level interval, labelled \"samples\", which does not cover run-to-run variation. "
            "\"slower\"/\"faster\" need an interval that excludes 0 and an overhead of at least %.0f%% "
            "(--min-effect); otherwise \"same within noise\". Against the claim, an interval wholly within "
            "%s is inside, wholly under %s below, wholly over %s above. An overhead of 100%% or more (twice "
            "the time) is written as a ratio (×). docs/method.md has the whole method.\n",
            o->reps, (unsigned long long)o->seed, 100 * o->min_effect, VERDICT_CLAIM_LABEL, VERDICT_CLAIM_LO_LABEL,
            VERDICT_CLAIM_HI_LABEL);
}

void report_verdict_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o)
{
    mode_spec fb = mode_wsl2_fallback(), nat = mode_native();
    int across = base != other;
    target tg[3];
    size_t ntg = 0;
    tg[ntg++] = (target){base, mode_native(), across ? "BASE native (ctrl mapped)" : "native (ctrl mapped)"};
    tg[ntg] = (target){base, mode_native(), across ? "BASE native (ctrl managed)" : "native (ctrl managed)"};
    tg[ntg++].mode.v[RB_AXIS_CTRL] = RB_CTRL_MANAGED;
    if (across)
        tg[ntg++] = (target){base, fb, "BASE fallback (same mode)"};

    const int claim = report_claim_applies(base, other);
    if (claim) {
        fputs("\n## Verdict: the WSL2 fallback path against the native path\n\n", md);
    } else {
        fputs("\n## The fallback path against the native path (CPU reference backend: no verdict)\n\n", md);
        fputs("**No verdict on the WSL2 claim is drawn from these rows:** the CPU reference backend plays the "
              "kernel with a host thread and the copies with memcpy, so its fallback and native modes differ only "
              "in host-side bookkeeping. The tables below check that the comparison works end to end; the "
              "\"against the claimed " VERDICT_CLAIM_LABEL "\" column is n/a.\n\n",
              md);
    }
    fprintf(md,
            "The claim under test: the WSL2 fallback is \"" VERDICT_CLAIM_FMT " slower for control block operations "
            "compared to native Linux with pinned memory\". Fallback path: **%s**. Native path: **%s**, and "
            "the same with ctrl **managed**; both are shown.\n\n",
            report_mode_str(&fb), report_mode_str(&nat));
    if (across)
        fputs("Across two files: the fallback rows come from OTHER, the native rows from BASE (typically BASE = "
              "native Linux, OTHER = WSL2); \"BASE fallback\" compares the identical path on both machines.\n\n",
              md);
    verdict_cb(md, other, tg, ntg, o, claim);
    verdict_sized(md, RB_FAM_LATENCY, "(ii)", "End-to-end latency per message size", other, tg, ntg, o, claim);
    verdict_sized(md, RB_FAM_THROUGHPUT, "(iii)", "End-to-end throughput per message size", other, tg, ntg, o, claim);
    if (across) {
        verdict_axes(md, other, " (in OTHER)", o);
        verdict_axes(md, base, " (in BASE)", o);
    } else {
        verdict_axes(md, other, "", o);
    }
}
