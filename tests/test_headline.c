/* test_headline.c - the headline figures (harness/headline.h) on rows whose answers are known: which
 * cell each figure reads (the claim's native path, the fastest pinned mode, the smallest and largest
 * size, the widest window), the one estimator (fallback / native = the ratio of the two p50s, paired
 * when the rows share rounds, the same estimate unpaired), rates on time per byte, the claim's words,
 * and a missing or unsupported cell said with its reason. No file, no GPU: rows and trials in memory.
 */
#include "check.h"
#include "headline.h"

#define MAXROWS 32
#define K 3 /* trials per row */
#define N 5 /* samples per trial */

typedef struct fake {
    rb_row rows[MAXROWS];
    double samples[MAXROWS][K][N];
    stats_trial trials[MAXROWS][K];
    int32_t rounds[MAXROWS][K];
    size_t n;
} fake;

static const rb_row *fake_row(void *ctx, size_t i) { return &((fake *)ctx)->rows[i]; }

static const stats_trial *fake_trials(void *ctx, size_t i, size_t *k, const int32_t **round)
{
    fake *f = ctx;
    *k = strcmp(f->rows[i].status, RB_STATUS_OK) == 0 ? K : 0;
    if (round)
        *round = f->rounds[i];
    return *k ? f->trials[i] : NULL;
}

/* A row of mode m (NULL: the fallback path) whose K trials have lower medians p50 * {1, 1.05, 0.95}
 * (so its p50 is p50); a rate's samples are stored as time per byte, as report_trials gives them. */
static rb_row *add(fake *f, rb_family fam, const mode_spec *m, uint64_t size, uint64_t window, double p50)
{
    static const double spread[K] = {1.0, 1.05, 0.95};
    mode_spec fb = mode_wsl2_fallback();
    const mode_spec *mm = m ? m : &fb;
    size_t i = f->n++;
    rb_row *r = &f->rows[i];
    const int rate = strcmp(rb_family_unit(fam), "GB/s") == 0;
    memset(r, 0, sizeof *r);
    snprintf(r->family, sizeof r->family, "%s", rb_family_name(fam));
    snprintf(r->host_mem, sizeof r->host_mem, "%s", mode_axis_value(RB_AXIS_HOST, mm->v[RB_AXIS_HOST]));
    snprintf(r->xfer, sizeof r->xfer, "%s", mode_axis_value(RB_AXIS_XFER, mm->v[RB_AXIS_XFER]));
    snprintf(r->launch, sizeof r->launch, "%s", mode_axis_value(RB_AXIS_LAUNCH, mm->v[RB_AXIS_LAUNCH]));
    snprintf(r->ctrl, sizeof r->ctrl, "%s", mode_axis_value(RB_AXIS_CTRL, mm->v[RB_AXIS_CTRL]));
    snprintf(r->status, sizeof r->status, "%s", RB_STATUS_OK);
    snprintf(r->unit, sizeof r->unit, "%s", rb_family_unit(fam));
    r->size_bytes = size;
    r->window = window;
    r->p50 = p50;
    r->ci_lo = 0.9 * p50;
    r->ci_hi = 1.1 * p50;
    r->trials = K;
    r->trial_cv = 0.04;
    r->msgs_per_s = rate ? p50 * 1e9 / (double)size : NAN;
    for (int t = 0; t < K; t++) {
        const double med = rate ? 1.0 / (p50 * spread[t]) : p50 * spread[t];
        for (int j = 0; j < N; j++) /* ascending, the lower median (j = 2) is med */
            f->samples[i][t][j] = med * (1.0 + 0.01 * (j - 2));
        f->trials[i][t] = (stats_trial){f->samples[i][t], N};
        f->rounds[i][t] = t;
    }
    return r;
}

static headline_source source(fake *f) { return (headline_source){f, f->n, fake_row, fake_trials}; }

/* A file of native, fallback and a faster zero-copy mode at 8 B and 4 KiB (latency), at 8 B over
 * windows 1 and 64 and at 4 KiB (throughput), and the control-block read and handshake; no write. */
static void fill(fake *f, double fb_factor)
{
    mode_spec nat = mode_native(), zc = nat;
    zc.v[RB_AXIS_XFER] = RB_XFER_ZEROCOPY;
    memset(f, 0, sizeof *f);
    add(f, RB_FAM_LATENCY, &nat, 8, 1, 12.0);
    add(f, RB_FAM_LATENCY, NULL, 8, 1, 12.0 * 2.5 * fb_factor);
    add(f, RB_FAM_LATENCY, &zc, 8, 1, 3.0);
    add(f, RB_FAM_LATENCY, &nat, 4096, 1, 20.0);
    add(f, RB_FAM_LATENCY, NULL, 4096, 1, 30.0);
    add(f, RB_FAM_THROUGHPUT, &nat, 8, 1, 0.5);
    add(f, RB_FAM_THROUGHPUT, &nat, 8, 64, 2.0);
    add(f, RB_FAM_THROUGHPUT, &zc, 8, 64, 4.0);
    add(f, RB_FAM_THROUGHPUT, NULL, 8, 64, 1.0);
    add(f, RB_FAM_THROUGHPUT, &nat, 4096, 64, 40.0);
    add(f, RB_FAM_THROUGHPUT, NULL, 4096, 64, 10.0);
    add(f, RB_FAM_CB_READ, &nat, 0, 0, 0.05);
    add(f, RB_FAM_CB_READ, NULL, 0, 0, 10.0);
    add(f, RB_FAM_CB_HANDSHAKE, &nat, 0, 0, 2.0);
    rb_row *hs = add(f, RB_FAM_CB_HANDSHAKE, NULL, 0, 0, 2.4);
    snprintf(hs->status, sizeof hs->status, "unsupported");
    snprintf(hs->reason, sizeof hs->reason, "cudaErrorNotSupported from cudaMallocManaged");
}

static void test_one_file(void)
{
    static fake f;
    headline_fig fig[HL_COUNT];
    fill(&f, 1.0);
    headline_source s = source(&f);
    headline_compute(&s, &s, 500, 7, fig);

    /* the cells each figure reads */
    CHECK_INT(fig[HL_RT_SMALL].size, 8);
    CHECK_INT(fig[HL_RT_LARGE].size, 4096);
    CHECK_INT(fig[HL_THR_LARGE].size, 4096);
    CHECK_INT(fig[HL_FULL_WINDOW].size, 8);
    CHECK_INT(fig[HL_FULL_WINDOW].window, 64);
    CHECK_INT(fig[HL_RT_SMALL].side[HL_NATIVE].row, 0);
    CHECK_INT(fig[HL_RT_SMALL].side[HL_FALLBACK].row, 1);
    CHECK_INT(fig[HL_RT_FASTEST].side[HL_NATIVE].row, 2); /* zero-copy, 3 us */
    CHECK_INT(fig[HL_RT_FASTEST].side[HL_NATIVE].mode.v[RB_AXIS_XFER], RB_XFER_ZEROCOPY);
    CHECK_INT(fig[HL_FULL_WINDOW].side[HL_NATIVE].row, 7); /* the fastest at the widest window */
    CHECK_NEAR(fig[HL_FULL_WINDOW].side[HL_NATIVE].msgs_per_s, 4.0e9 / 8, 1);

    /* the one estimator: the ratio of the two p50s, on time; paired within one file */
    CHECK_NEAR(fig[HL_RT_SMALL].ratio, 2.5, 1e-9);
    CHECK(fig[HL_RT_SMALL].paired && fig[HL_RT_SMALL].method == STATS_CI_TRIALS);
    CHECK(fig[HL_RT_SMALL].ratio_lo <= 2.5 && 2.5 <= fig[HL_RT_SMALL].ratio_hi);
    CHECK_NEAR(fig[HL_RT_FASTEST].ratio, 10.0, 1e-9);
    CHECK_NEAR(fig[HL_RT_LARGE].ratio, 1.5, 1e-9);
    CHECK_NEAR(fig[HL_THR_LARGE].ratio, 4.0, 1e-9);   /* 40 GB/s against 10: four times the time per byte */
    CHECK_NEAR(fig[HL_FULL_WINDOW].ratio, 4.0, 1e-9); /* 4 GB/s against 1 */
    CHECK_NEAR(fig[HL_CB_READ].ratio, 200.0, 1e-6);
    CHECK_INT(headline_claim(&fig[HL_CB_READ]), VERDICT_ABOVE);

    /* missing and unsupported cells: no ratio, and why */
    CHECK(!fig[HL_CB_WRITE].ratio_ok && !fig[HL_CB_WRITE].side[HL_NATIVE].ok);
    CHECK_MSG(strstr(fig[HL_CB_WRITE].why, "pinned/async/coop/mapped: not in this file") != NULL, "%s",
              fig[HL_CB_WRITE].why);
    CHECK(fig[HL_CB_HANDSHAKE].side[HL_NATIVE].ok && !fig[HL_CB_HANDSHAKE].side[HL_FALLBACK].ok);
    CHECK_MSG(strstr(fig[HL_CB_HANDSHAKE].why, "unsupported: cudaErrorNotSupported from cudaMallocManaged") != NULL,
              "%s", fig[HL_CB_HANDSHAKE].why);
    CHECK_INT(headline_claim(&fig[HL_CB_HANDSHAKE]), VERDICT_CLAIM_NONE);
    double lo, hi;
    CHECK_INT(headline_verdict(fig, &lo, &hi), VERDICT_ABOVE); /* the one measured claim figure */
    CHECK_NEAR(lo, 200.0, 1e-6);
}

/* Two files: not paired, and the same estimate as within one. */
static void test_two_files(void)
{
    static fake a, b;
    headline_fig one[HL_COUNT], two[HL_COUNT];
    fill(&a, 1.0);
    fill(&b, 1.0);
    headline_source sa = source(&a), sb = source(&b);
    headline_compute(&sa, &sa, 500, 7, one);
    headline_compute(&sa, &sb, 500, 7, two);
    CHECK(!two[HL_RT_SMALL].paired && two[HL_RT_SMALL].ratio_ok);
    CHECK_NEAR(two[HL_RT_SMALL].ratio, one[HL_RT_SMALL].ratio, 1e-12);
    CHECK_NEAR(two[HL_CB_READ].ratio, one[HL_CB_READ].ratio, 1e-9);
    /* every definition has a key, a label and a family */
    for (int k = 0; k < HL_COUNT; k++)
        CHECK(headline_defs[k].key && headline_defs[k].label && rb_family_name(headline_defs[k].family));
    CHECK_INT(headline_size_end(&sa, RB_FAM_LATENCY, 0), 8);
    CHECK_INT(headline_size_end(&sa, RB_FAM_LATENCY, 1), 4096);
}

int main(void)
{
    test_one_file();
    test_two_files();
    CHECK_DONE();
}
