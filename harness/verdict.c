/* verdict.c - the decisions made from intervals: a cell's interval, pairing, and the verdicts on an
 * overhead (see verdict.h). */
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Fills out's trial spread (min, max, cv) from the trial medians the cell's p50 combines: each trial's
 * lower median of t (for a rate, t holds the reciprocals, so its median is the reciprocal's lower
 * median). Taken from the rate's own samples instead, an even-sized trial's median would be the other
 * middle sample, and a rate's p50 could lie above its trial_p50_max. */
static void trial_spread(const stats_trial *t, size_t k, int rate, verdict_cell *out)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0, sum2 = 0;
    for (size_t i = 0; i < k; i++) {
        const double lm = stats_lower_median(t[i].sorted, t[i].n), m = rate ? 1.0 / lm : lm;
        lo = m < lo ? m : lo;
        hi = m > hi ? m : hi;
        sum += m;
        sum2 += m * m;
    }
    out->trial_p50_min = lo;
    out->trial_p50_max = hi;
    out->trial_cv = NAN;
    if (k >= 2) {
        const double mean = sum / (double)k, var = (sum2 - k * mean * mean) / (double)(k - 1);
        out->trial_cv = mean != 0 ? sqrt(var > 0 ? var : 0) / fabs(mean) : NAN;
    }
}

int verdict_cell_interval(const stats_trial *t, size_t k, int rate, verdict_cell *out)
{
    if (k == 0)
        return 0;
    stats_trial *tr = malloc(k * sizeof *tr);
    double **inv = calloc(k, sizeof *inv);
    int rc = -1;
    if (tr == NULL || inv == NULL)
        goto out;
    for (size_t i = 0; i < k; i++) {
        tr[i] = t[i];
        if (!rate)
            continue;
        /* 1/x reverses the order: fill from the end to keep it ascending */
        if (!(inv[i] = malloc(t[i].n * sizeof *inv[i])))
            goto out;
        for (size_t j = 0; j < t[i].n; j++)
            inv[i][t[i].n - 1 - j] = 1.0 / t[i].sorted[j];
        tr[i].sorted = inv[i];
    }
    stats_interval iv;
    if (stats_hboot(tr, k, STATS_HBOOT_REPS, STATS_HBOOT_SEED, VERDICT_CONF, &iv) != 0)
        goto out;
    out->p50 = rate ? 1.0 / iv.est : iv.est;
    out->ci_lo = rate ? 1.0 / iv.hi : iv.lo;
    out->ci_hi = rate ? 1.0 / iv.lo : iv.hi;
    if (rate && !(iv.lo > 0)) /* a time-per-byte bound at or below 0 means no upper bound on the rate */
        out->ci_hi = INFINITY;
    out->method = iv.method;
    trial_spread(tr, k, rate, out);
    rc = 0;
out:
    if (inv != NULL)
        for (size_t i = 0; i < k; i++)
            free(inv[i]);
    free(inv);
    free(tr);
    return rc;
}

int verdict_pairable(int same_file, const int32_t *round_a, size_t ka, const int32_t *round_b, size_t kb)
{
    /* Rows of one file measured in the same rounds were measured back to back: paired rounds remove
     * what the rounds share (drift, clocks, placement) from the comparison. */
    if (!same_file || ka != kb || ka < 2 || round_a == NULL || round_b == NULL)
        return 0;
    for (size_t j = 0; j < ka; j++)
        if (round_a[j] != round_b[j])
            return 0;
    return 1;
}

int verdict_overhead(const stats_trial *a, size_t ka, const stats_trial *b, size_t kb, int paired, int reps,
                     uint64_t seed, stats_interval *out)
{
    return paired ? stats_hboot_paired(a, b, ka, reps, seed, VERDICT_CONF, out)
                  : stats_hboot_ratio(a, ka, b, kb, reps, seed, VERDICT_CONF, out);
}

int verdict_excludes_zero(double lo, double hi) { return lo > 0 || hi < 0; }

char *verdict_claim_ratio(char *buf, size_t n)
{
    snprintf(buf, n, "%.1f–%.1f×", 1 + VERDICT_CLAIM_LO, 1 + VERDICT_CLAIM_HI);
    return buf;
}

verdict_speed verdict_speed_of(double est, double lo, double hi, double min_effect)
{
    /* A difference must be both real (the interval excludes 0) and large enough to matter: with
     * hundreds of cells, a few tiny but "significant" differences are what noise looks like. */
    if (lo > 0 && est >= min_effect)
        return VERDICT_SLOWER;
    if (hi < 0 && -est >= min_effect)
        return VERDICT_FASTER;
    return VERDICT_SAME;
}

verdict_claim verdict_claim_of(double lo, double hi)
{
    if (hi < VERDICT_CLAIM_LO)
        return VERDICT_BELOW;
    if (lo > VERDICT_CLAIM_HI)
        return VERDICT_ABOVE;
    if (lo >= VERDICT_CLAIM_LO && hi <= VERDICT_CLAIM_HI)
        return VERDICT_INSIDE;
    return lo < VERDICT_CLAIM_LO ? VERDICT_STRADDLES_LO : VERDICT_STRADDLES_HI;
}
