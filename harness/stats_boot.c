/* stats_boot.c - the bootstraps of stats.h: the sample-level bootstrap of an overhead
 * (stats_bootstrap_overhead) and the trial-level hierarchical bootstrap with its calibration for few
 * trials (stats_hboot, stats_hboot_ratio, stats_hboot_paired, stats_hboot_replicates). Split from
 * stats.c, whose order statistics and selection it uses (stats_internal.h); every draw comes from the
 * one seeded generator (rng.h). Exercised by tests/test_stats.c.
 */
#include "stats.h"
#include "stats_internal.h"

#include "rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Bootstrap                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

static double resampled_median(rng *r, const double *x, size_t n, double *work)
{
    for (size_t i = 0; i < n; i++)
        work[i] = x[rng_below(r, n)];
    return stats_median_select(work, n);
}

int stats_bootstrap_overhead(const double *a, size_t na, const double *b, size_t nb, int reps, uint64_t seed,
                             double conf, double *est, double *lo, double *hi)
{
    int ret = -1;
    double *work = NULL, *ratios = NULL;
    if (a == NULL || b == NULL || na == 0 || nb == 0 || reps < 1 || !(conf > 0.0 && conf < 1.0) || est == NULL ||
        lo == NULL || hi == NULL || stats_has_nan(a, na) || stats_has_nan(b, nb)) {
        errno = EINVAL;
        goto out;
    }
    work = malloc((na > nb ? na : nb) * sizeof *work);
    ratios = malloc((size_t)reps * sizeof *ratios);
    if (work == NULL || ratios == NULL) {
        errno = ENOMEM;
        goto out;
    }

    memcpy(work, a, na * sizeof *a);
    double med_a = stats_median_select(work, na);
    memcpy(work, b, nb * sizeof *b);
    double med_b = stats_median_select(work, nb);
    /* A zero baseline median has no relative overhead; say so rather than report inf or NaN. */
    if (med_a == 0.0) {
        errno = EDOM;
        goto out;
    }

    rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < reps; i++) {
        double ma = resampled_median(&r, a, na, work);
        double mb = resampled_median(&r, b, nb, work);
        if (ma == 0.0) {
            errno = EDOM;
            goto out;
        }
        ratios[i] = mb / ma - 1.0;
    }
    stats_sort_doubles(ratios, (size_t)reps);
    *est = med_b / med_a - 1.0;
    *lo = stats_percentile_sorted(ratios, (size_t)reps, 100.0 * (1.0 - conf) / 2.0);
    *hi = stats_percentile_sorted(ratios, (size_t)reps, 100.0 * (1.0 + conf) / 2.0);
    ret = 0;
out:
    free(work);
    free(ratios);
    return ret;
}

/* Standard normal by Marsaglia's polar method, one of each pair kept for the next call. */
typedef struct normal_gen {
    rng r;
    int have;
    double spare;
} normal_gen;

static double rng_normal(normal_gen *g)
{
    if (g->have) {
        g->have = 0;
        return g->spare;
    }
    double u, v, s;
    do {
        u = 2.0 * rng_unit(&g->r) - 1.0;
        v = 2.0 * rng_unit(&g->r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    g->spare = v * f;
    g->have = 1;
    return u * f;
}

/* Gamma(a, 1) for a >= 1 by Marsaglia & Tsang (2000): exact, about 1.0x normal variates per draw
 * for the shapes used here (a = n/2, up to ~10^6), where the acceptance rate is nearly 1. */
static double rng_gamma(normal_gen *g, double a)
{
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = rng_normal(g);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = rng_unit(&g->r), x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2)
            return d * v;
        if (log(u) < 0.5 * x2 + d * (1.0 - v + log(v)))
            return d * v;
    }
}

/* The fast draw: the bootstrap median x_(J) of one sorted trial, J = ceil(n U), U ~ Beta(m, n+1-m). */
static double draw_median_fast(normal_gen *g, const stats_trial *t, double *work)
{
    (void)work;
    size_t n = t->n, m = (n + 1) / 2;
    if (n == 1)
        return t->sorted[0];
    double x = rng_gamma(g, (double)m), y = rng_gamma(g, (double)(n + 1 - m));
    double j = ceil((double)n * (x / (x + y)));
    size_t J = j < 1.0 ? 1 : (j > (double)n ? n : (size_t)j);
    return t->sorted[J - 1];
}

/* The naive draw: n values resampled with replacement, their lower median selected. O(n). */
static double draw_median_naive(normal_gen *g, const stats_trial *t, double *work)
{
    size_t n = t->n;
    for (size_t i = 0; i < n; i++)
        work[i] = t->sorted[rng_below(&g->r, n)];
    return stats_select_kth(work, n, (n + 1) / 2 - 1);
}

typedef double (*median_draw)(normal_gen *g, const stats_trial *t, double *work);

/* Checks a set of trials; returns the largest n (for the naive draw's scratch), 0 when invalid. */
static size_t trials_valid(const stats_trial *t, size_t k)
{
    size_t maxn = 0;
    if (t == NULL || k == 0)
        return 0;
    for (size_t i = 0; i < k; i++) {
        if (t[i].sorted == NULL || t[i].n == 0)
            return 0;
        if (t[i].n > maxn)
            maxn = t[i].n;
    }
    return maxn;
}

/* How a cell's trial values become one estimate: their median (the middle one; the mean of the two
 * middle ones for even k). Not their mean: on the H100 a time-localised slowdown of the machine
 * (~10x for ~15 s, every mode alike) can hit one or two of a cell's five trials, and one such trial
 * moved a mean by up to 5x between two otherwise identical runs
 * (docs/decisions/0001-trials-spread-over-the-run.md). */
static double combine(double *v, size_t k)
{
    for (size_t i = 1; i < k; i++) /* insertion sort: k is a handful of trials */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

#define COMBINE_MAX 256

static double trials_estimate(const stats_trial *t, size_t k)
{
    double v[COMBINE_MAX];
    if (k > COMBINE_MAX)
        k = COMBINE_MAX;
    for (size_t i = 0; i < k; i++)
        v[i] = stats_lower_median(t[i].sorted, t[i].n);
    return combine(v, k);
}

/* One replicate of a cell: k trials drawn with replacement (or, with k_draw = 1, the same trial
 * kept), each trial's median redrawn. resample_trials = 0 keeps the trials as they are and redraws
 * only within them. */
static double replicate(normal_gen *g, const stats_trial *t, size_t k, int resample_trials, median_draw draw,
                        double *work)
{
    double v[COMBINE_MAX];
    if (k > COMBINE_MAX)
        k = COMBINE_MAX;
    for (size_t i = 0; i < k; i++) {
        const stats_trial *tr = resample_trials ? &t[rng_below(&g->r, k)] : &t[i];
        v[i] = draw(g, tr, work);
    }
    return combine(v, k);
}

static void gen_seed(normal_gen *g, uint64_t seed)
{
    rng_seed(&g->r, seed);
    g->have = 0;
}

/* Widens one side of an interval about est by scale. A ratio's overhead (est = r - 1, r > 0) is
 * widened on the scale of log r, so its bounds stay above -100% however wide the interval gets:
 * widened linearly, a skewed small-k interval once reached -150%, which no ratio can be. */
static double widen(double bound, double est, double scale, int ratio)
{
    if (ratio)
        return bound > -1.0 && est > -1.0 ? expm1(log1p(est) + scale * (log1p(bound) - log1p(est)))
                                          : est + scale * (bound - est);
    /* A positive quantity (a latency, a rate) likewise on the log scale, so that a wide interval
     * of few trials never reaches 0 or below (seen at 1 MiB with three trials on the H100). */
    return bound > 0 && est > 0 ? exp(log(est) + scale * (log(bound) - log(est))) : est + scale * (bound - est);
}

/* Sorts the replicates and fills the interval: percentile bounds, then the small-k widening about
 * est with df = units - 1 when method is TRIALS (on the log scale when ratio: est and the replicates
 * are r - 1 of a ratio r > 0). */
static void finish_interval(double *rep, int reps, double est, double conf, size_t units, stats_ci_method method,
                            int ratio, stats_interval *out)
{
    stats_sort_doubles(rep, (size_t)reps);
    out->est = est;
    out->raw_lo = stats_percentile_sorted(rep, (size_t)reps, 100.0 * (1.0 - conf) / 2.0);
    out->raw_hi = stats_percentile_sorted(rep, (size_t)reps, 100.0 * (1.0 + conf) / 2.0);
    out->method = method;
    out->scale = method == STATS_CI_TRIALS ? stats_small_k_factor(units, conf) : 1.0;
    out->df = method == STATS_CI_TRIALS ? (int)units - 1 : 0;
    /* Each side is widened on its own, so a skewed replicate distribution stays skewed. The raw
     * bounds normally straddle est; if one does not (a very skewed cell), it is kept as is. */
    out->lo = out->raw_lo < est ? widen(out->raw_lo, est, out->scale, ratio) : out->raw_lo;
    out->hi = out->raw_hi > est ? widen(out->raw_hi, est, out->scale, ratio) : out->raw_hi;
}

static int hboot_args_ok(int reps, double conf, const void *out)
{
    if (reps < 1 || !(conf > 0.0 && conf < 1.0) || out == NULL) {
        errno = EINVAL;
        return 0;
    }
    return 1;
}

int stats_hboot_replicates(const stats_trial *t, size_t k, int reps, uint64_t seed, int naive, double *out)
{
    size_t maxn = trials_valid(t, k);
    if (maxn == 0 || reps < 1 || out == NULL) {
        errno = EINVAL;
        return -1;
    }
    double *work = NULL;
    if (naive && (work = malloc(maxn * sizeof *work)) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    normal_gen g;
    gen_seed(&g, seed);
    for (int i = 0; i < reps; i++)
        out[i] = replicate(&g, t, k, 1, naive ? draw_median_naive : draw_median_fast, work);
    free(work);
    return 0;
}

static int hboot_with(const stats_trial *t, size_t k, int reps, uint64_t seed, double conf, int naive,
                      stats_interval *out)
{
    if (trials_valid(t, k) == 0 || !hboot_args_ok(reps, conf, out)) {
        errno = EINVAL;
        return -1;
    }
    if (k == 1) {
        /* No between-trial information: the order-statistic CI of the one trial's median. */
        double lo, hi;
        if (stats_median_ci(t[0].sorted, t[0].n, conf, &lo, &hi) != 0)
            return -1;
        *out = (stats_interval){.est = stats_lower_median(t[0].sorted, t[0].n),
                                .lo = lo,
                                .hi = hi,
                                .raw_lo = lo,
                                .raw_hi = hi,
                                .scale = 1.0,
                                .df = 0,
                                .method = STATS_CI_SAMPLES};
        return 0;
    }
    double *rep = malloc((size_t)reps * sizeof *rep);
    if (rep == NULL) {
        errno = ENOMEM;
        return -1;
    }
    if (stats_hboot_replicates(t, k, reps, seed, naive, rep) != 0) {
        free(rep);
        return -1;
    }
    finish_interval(rep, reps, trials_estimate(t, k), conf, k, STATS_CI_TRIALS, 0, out);
    free(rep);
    return 0;
}

int stats_hboot(const stats_trial *t, size_t k, int reps, uint64_t seed, double conf, stats_interval *out)
{
    return hboot_with(t, k, reps, seed, conf, 0, out);
}

int stats_hboot_naive(const stats_trial *t, size_t k, int reps, uint64_t seed, double conf, stats_interval *out)
{
    return hboot_with(t, k, reps, seed, conf, 1, out);
}

int stats_hboot_ratio(const stats_trial *a, size_t ka, const stats_trial *b, size_t kb, int reps, uint64_t seed,
                      double conf, stats_interval *out)
{
    if (trials_valid(a, ka) == 0 || trials_valid(b, kb) == 0 || !hboot_args_ok(reps, conf, out)) {
        errno = EINVAL;
        return -1;
    }
    double ea = trials_estimate(a, ka), eb = trials_estimate(b, kb);
    if (ea == 0.0) {
        errno = EDOM;
        return -1;
    }
    double *rep = malloc((size_t)reps * sizeof *rep);
    if (rep == NULL) {
        errno = ENOMEM;
        return -1;
    }
    /* With a single trial on either side there is no between-trial spread to resample on that side,
     * and a calibration with df = 0 does not exist: both sides redraw within trials only. */
    size_t kmin = ka < kb ? ka : kb;
    int by_trials = kmin >= 2;
    normal_gen g;
    gen_seed(&g, seed);
    for (int i = 0; i < reps; i++) {
        double ra = replicate(&g, a, ka, by_trials, draw_median_fast, NULL);
        double rb = replicate(&g, b, kb, by_trials, draw_median_fast, NULL);
        if (ra == 0.0) {
            free(rep);
            errno = EDOM;
            return -1;
        }
        rep[i] = rb / ra - 1.0;
    }
    finish_interval(rep, reps, eb / ea - 1.0, conf, kmin, by_trials ? STATS_CI_TRIALS : STATS_CI_SAMPLES, 1, out);
    free(rep);
    return 0;
}

int stats_hboot_paired(const stats_trial *a, const stats_trial *b, size_t k, int reps, uint64_t seed, double conf,
                       stats_interval *out)
{
    if (trials_valid(a, k) == 0 || trials_valid(b, k) == 0 || !hboot_args_ok(reps, conf, out)) {
        errno = EINVAL;
        return -1;
    }
    if (k > COMBINE_MAX)
        k = COMBINE_MAX;
    /* The estimate is stats_hboot_ratio's, the ratio of the two cells' estimates, so that a paired and
     * an unpaired comparison of the same two cells report the same number (docs/decisions/0130-one-ratio.md);
     * the pairing is in the replicates, which draw the same rounds on both sides. */
    const double ea = trials_estimate(a, k), eb = trials_estimate(b, k);
    if (ea == 0.0) {
        errno = EDOM;
        return -1;
    }
    double *rep = malloc((size_t)reps * sizeof *rep);
    if (rep == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int by_rounds = k >= 2;
    double va[COMBINE_MAX], vb[COMBINE_MAX];
    normal_gen g;
    gen_seed(&g, seed);
    for (int i = 0; i < reps; i++) {
        for (size_t j = 0; j < k; j++) {
            size_t r = by_rounds ? rng_below(&g.r, k) : j;
            va[j] = draw_median_fast(&g, &a[r], NULL);
            vb[j] = draw_median_fast(&g, &b[r], NULL);
        }
        const double ra = combine(va, k);
        if (ra == 0.0) {
            free(rep);
            errno = EDOM;
            return -1;
        }
        rep[i] = combine(vb, k) / ra - 1.0;
    }
    finish_interval(rep, reps, eb / ea - 1.0, conf, k, by_rounds ? STATS_CI_TRIALS : STATS_CI_SAMPLES, 1, out);
    free(rep);
    return 0;
}
