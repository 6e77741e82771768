/* bimodal.c - the two-modes rule (Otsu's split of the log samples, Ashman's D) and the schema-4
 * columns of a row it fills (see bimodal.h). Used by the sweep when it writes a row and by the reader
 * for files before schema 4. Exercised by tests/test_h5_roundtrip.c (the rule, a bimodal row written
 * and read back, a schema-3 file read with its columns computed) and tests/test_h5_damaged.c (values
 * no split can have, marked damaged).
 */
#include "bimodal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The median of sorted[0..n), n > 0: linear interpolation at rank (n - 1) / 2, the same value as
 * harness/stats.h's 50th percentile, so the modes agree with the row's p50 of one mode. */
static double median_sorted(const double *sorted, size_t n)
{
    double h = (double)(n - 1) * 0.5;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/* Otsu on log values lg[0..n) (ascending): the split k (lower class = [0, k)) maximising
 * w0 w1 (m0 - m1)^2, from prefix sums, between distinct values only; 0 when there is none. */
static size_t otsu_split(const double *lg, size_t n, double sum)
{
    size_t best = 0;
    double best_v = -1, pre = 0;
    for (size_t k = 1; k < n; k++) {
        pre += lg[k - 1];
        if (lg[k] == lg[k - 1])
            continue;
        double w0 = (double)k / (double)n, w1 = 1.0 - w0;
        double m0 = pre / (double)k, m1 = (sum - pre) / (double)(n - k);
        double v = w0 * w1 * (m0 - m1) * (m0 - m1);
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    return best;
}

/* Ashman's D of the two log classes [0, k) and [k, n). */
static double ashman_d(const double *lg, size_t n, size_t k)
{
    double s0 = 0, q0 = 0, s1 = 0, q1 = 0;
    for (size_t i = 0; i < n; i++) {
        if (i < k) {
            s0 += lg[i];
            q0 += lg[i] * lg[i];
        } else {
            s1 += lg[i];
            q1 += lg[i] * lg[i];
        }
    }
    const double n0 = (double)k, n1 = (double)(n - k);
    const double m0 = s0 / n0, m1 = s1 / n1;
    const double v0 = fmax(q0 / n0 - m0 * m0, 0), v1 = fmax(q1 / n1 - m1 * m1, 0);
    return sqrt(2.0) * fabs(m1 - m0) / sqrt(fmax(v0 + v1, 1e-300));
}

int bimodal_split(const double *sorted, size_t n, bimodal_modes *out)
{
    if (sorted == NULL || out == NULL || n < BIMODAL_MIN_SAMPLES) {
        errno = EINVAL;
        return -1;
    }
    double *lg = malloc(n * sizeof *lg);
    if (lg == NULL)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(sorted[i]) && sorted[i] > 0)) {
            free(lg);
            errno = EINVAL;
            return -1;
        }
        lg[i] = log(sorted[i]);
        sum += lg[i];
    }
    const size_t best = otsu_split(lg, n, sum);
    const double med = median_sorted(sorted, n);
    *out = (bimodal_modes){.bimodal = 0, .lo = med, .hi = med, .hi_share = 0};
    if (best == 0) {
        free(lg);
        return 0;
    }
    const double d = ashman_d(lg, n, best);
    free(lg);
    const double n0 = (double)best, n1 = (double)(n - best);
    const double lo = median_sorted(sorted, best), hi = median_sorted(sorted + best, n - best);
    if (fmin(n0, n1) / (double)n >= BIMODAL_MIN_SHARE && hi / lo >= BIMODAL_MIN_RATIO && d >= BIMODAL_MIN_D)
        *out = (bimodal_modes){.bimodal = 1, .lo = lo, .hi = hi, .hi_share = n1 / (double)n};
    return 0;
}

void bimodal_row_clear(rb_row *row)
{
    row->mode_fast = row->mode_slow = row->slow_share = NAN;
    row->bimodal = 0;
}

int bimodal_row_fill(rb_row *row, const double *sorted, size_t n)
{
    bimodal_modes m;
    bimodal_row_clear(row);
    if (strcmp(row->unit, "us") != 0 || n < BIMODAL_MIN_SAMPLES)
        return 0;
    if (bimodal_split(sorted, n, &m) != 0)
        return errno == EINVAL ? 0 : -1;
    if (m.bimodal) {
        row->mode_fast = m.lo;
        row->mode_slow = m.hi;
        row->slow_share = m.hi_share;
        row->bimodal = 1;
    }
    return 0;
}

const char *bimodal_row_invalid(const rb_row *row)
{
    if (row->bimodal == 0)
        return isnan(row->mode_fast) && isnan(row->mode_slow) && isnan(row->slow_share)
                   ? NULL
                   : "bimodal is 0 but mode_fast, mode_slow or slow_share is not NaN";
    if (row->bimodal != 1)
        return "bimodal is neither 0 nor 1";
    if (!(isfinite(row->mode_fast) && row->mode_fast > 0 && isfinite(row->mode_slow) && row->mode_slow > 0))
        return "a bimodal row's mode_fast or mode_slow is not a positive number";
    if (!(row->mode_fast <= row->mode_slow))
        return "mode_fast is above mode_slow";
    if (!(row->slow_share >= 0 && row->slow_share <= 1))
        return "slow_share is outside [0, 1]";
    return NULL;
}
