/* track_detect.c - the regression detector of `ringbench track`: a robust lookback z-score in log
 * space whose noise is the history's own spread with the trial-level intervals as a floor. The
 * method and its rates are described in track_detect.h; tests/test_track_detect.c measures them.
 */
#include "track_detect.h"

#include "stats.h"
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z95 1.959963984540054
#define HALF_PI 1.5707963267948966 /* variance of a median / variance of a mean, large samples */

const char *track_kind_name(track_kind k)
{
    switch (k) {
    case TRACK_UNCHANGED: return "unchanged";
    case TRACK_REGRESSION: return "regression";
    case TRACK_IMPROVEMENT: return "improvement";
    case TRACK_NO_HISTORY: return "no history";
    case TRACK_NO_DATA: return "no data";
    case TRACK_WATCH: return "watch";
    }
    return "?";
}

static int usable(const track_point *p) { return isfinite(p->est) && p->est > 0; }

/* Standard error in log space from a 95% interval; NaN when the interval is absent or unusable. */
static double log_se(const track_point *p)
{
    if (!(isfinite(p->lo) && isfinite(p->hi) && p->lo > 0 && p->hi >= p->lo))
        return NAN;
    return (log(p->hi) - log(p->lo)) / (2 * Z95);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (n > 0); sorts v. */
static double median_sort(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The baseline of the window idx[0..w-1]: median log estimate, robust spread (max of the MAD spread
 * and the median trial-level standard error). tmp holds w doubles. */
static void baseline_of(const track_point *s, const size_t *idx, size_t w, double *tmp, double *b, double *sigma)
{
    for (size_t i = 0; i < w; i++)
        tmp[i] = log(s[idx[i]].est);
    *b = median_sort(tmp, w);
    for (size_t i = 0; i < w; i++)
        tmp[i] = fabs(log(s[idx[i]].est) - *b);
    double mad = 1.482602218505602 * median_sort(tmp, w);
    size_t k = 0;
    for (size_t i = 0; i < w; i++) {
        double se = log_se(&s[idx[i]]);
        if (isfinite(se))
            tmp[k++] = se;
    }
    double se_med = k ? median_sort(tmp, k) : 0;
    *sigma = mad > se_med ? mad : se_med;
}

/* Is point p beyond the thresholds against baseline b, and in which direction (+1 grew, -1 shrank)? */
static int beyond(const track_point *p, double b, double sigma, size_t w, const track_params *prm, double *d_out,
                  double *sd_out)
{
    double d = log(p->est) - b;
    double se = log_se(p);
    if (!isfinite(se) || se < sigma)
        se = sigma;
    double sd = sqrt(se * se + HALF_PI * sigma * sigma / (double)w);
    if (d_out)
        *d_out = d;
    if (sd_out)
        *sd_out = sd;
    if (fabs(expm1(d)) < prm->min_effect)
        return 0;
    if (sd > 0 && fabs(d) / sd < prm->z_min)
        return 0;
    return d > 0 ? 1 : -1;
}

int track_judge(const track_point *series, size_t n, int higher_is_better, const track_params *p, track_result *out)
{
    if (!series || !p || !out || n == 0) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof *out);
    const track_point *newest = &series[n - 1];
    out->newest = newest->est;
    out->first = n - 1;
    out->baseline = out->change = out->change_lo = out->change_hi = out->z = out->sigma = out->sd = NAN;
    if (!usable(newest)) {
        out->kind = TRACK_NO_DATA;
        return 0;
    }
    size_t cap = p->window ? p->window : 1;
    size_t *idx = malloc(cap * sizeof *idx);
    double *tmp = malloc(cap * sizeof *tmp);
    if (!idx || !tmp) {
        free(idx);
        free(tmp);
        return -1;
    }
    /* The window: the last `window` usable points before the newest, oldest first. */
    size_t w = 0;
    for (size_t i = n - 1; i-- > 0 && w < cap;)
        if (usable(&series[i]))
            idx[w++] = i;
    for (size_t a = 0, z = w ? w - 1 : 0; a < z; a++, z--) {
        size_t t = idx[a];
        idx[a] = idx[z];
        idx[z] = t;
    }
    out->n_baseline = w;
    if (w == 0 || w < p->min_history) {
        out->kind = TRACK_NO_HISTORY;
        goto out;
    }
    double b, sigma, d, sd;
    baseline_of(series, idx, w, tmp, &b, &sigma);
    int dir = beyond(newest, b, sigma, w, p, &d, &sd);
    out->baseline = exp(b);
    out->sigma = sigma;
    out->sd = sd;
    out->change = expm1(d);
    out->change_lo = expm1(d - Z95 * sd);
    out->change_hi = expm1(d + Z95 * sd);
    out->z = sd > 0 ? d / sd : (d == 0 ? 0 : copysign(INFINITY, d));
    if (dir == 0) {
        out->kind = TRACK_UNCHANGED;
        goto out;
    }
    int worse = higher_is_better ? dir < 0 : dir > 0;
    out->kind = worse ? TRACK_REGRESSION : TRACK_IMPROVEMENT;
    /* Walk back through the window while earlier runs show the same change. */
    for (size_t k = w; k-- > 0;) {
        if (beyond(&series[idx[k]], b, sigma, w, p, NULL, NULL) != dir)
            break;
        out->first = idx[k];
    }
out:
    free(idx);
    free(tmp);
    return 0;
}

// --- the night's rules ------------------------------------------------------------------------------

double track_family_threshold(double alpha, size_t m, size_t n_baseline)
{
    int df = n_baseline > 2 ? (int)n_baseline - 1 : 1;
    return stats_t_quantile(1.0 - alpha / (2.0 * (double)(m ? m : 1)), df);
}

void track_remove_shift(track_point *s, size_t n, const double *shift, int rate)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(shift[i]))
            continue;
        double f = exp(rate ? shift[i] : -shift[i]);
        s[i].est *= f;
        s[i].lo *= f;
        s[i].hi *= f;
    }
}

int track_best_trial_family(const char *family)
{
    return family &&
           (strcmp(family, "throughput") == 0 || strcmp(family, "cb_read") == 0 || strcmp(family, "cb_write") == 0);
}

void track_unwiden_trials_interval(track_point *p, size_t k)
{
    if (k < 2 || !(p->est > 0 && p->lo > 0 && p->hi > 0 && isfinite(p->hi)))
        return;
    double c = stats_small_k_factor(k, VERDICT_CONF);
    p->lo = p->est * exp(log(p->lo / p->est) / c);
    p->hi = p->est * exp(log(p->hi / p->est) / c);
}

track_point track_floored_point(double est, double floor)
{
    return (track_point){est, est * exp(-Z95 * floor), est * exp(Z95 * floor)};
}

void track_floor_point(track_point *p, double floor)
{
    if (!(p->est > 0 && isfinite(p->est)))
        return;
    const double lo = p->est * exp(-Z95 * floor), hi = p->est * exp(Z95 * floor);
    if (!(p->lo > 0 && p->lo <= lo))
        p->lo = lo;
    if (!(p->hi >= hi && isfinite(p->hi)))
        p->hi = hi;
}

void track_use_best_trial(track_point *p, double best)
{
    if (!(best > 0 && isfinite(best) && p->est > 0))
        return;
    double f = best / p->est;
    p->est = best;
    p->lo *= f;
    p->hi *= f;
}
