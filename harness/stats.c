/* stats.c - summary statistics of latency samples, the adaptive stopping rule and bootstrap.
 *
 * This is the one place where ringbench turns raw latency samples into numbers: percentiles (type 7
 * linear interpolation, numpy's default), a distribution-free confidence interval of the median, the
 * rule that decides when a cell has measured enough, and a bootstrap of the relative overhead of one
 * configuration over another. Everything here is plain C11 + libm, with no global state, so any
 * thread may call it. Exercised by tests/test_stats.c (ctest -R test_stats).
 *
 * The median CI is exact for every n: the order-statistic ranks come from the Binomial(n, 1/2) CDF,
 * summed in linear space from an accurate log-space starting term, searching from the normal
 * approximation's guess and stepping to the exact boundary. This keeps one definition for all n
 * (there is no switch between an exact and an approximate method that could make the interval jump
 * when n crosses a threshold) and costs O(sqrt(n)) per call, so n = 10^7 is cheap.
 */
#include "stats.h"
#include "stats_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Sorting and selection                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* A total order even with NaN (sorted last), because qsort's behaviour with an inconsistent
 * comparator is undefined and the stopper sorts caller data it has not validated. */
static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

/* Fewer than two values are sorted already; qsort is not called then, because its pointer must be
 * valid even for zero elements and an empty input may come as NULL (a trial without samples). */
void stats_sort_doubles(double *v, size_t n)
{
    if (n < 2)
        return;
    qsort(v, n, sizeof *v, cmp_double);
}

int stats_has_nan(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return 1;
    return 0;
}

/* Wirth's selection: rearranges v[0..n) so that v[k] holds the value it would have if sorted, with
 * nothing larger before it and nothing smaller after it. Average O(n); the pivot is v[k], which is
 * the right choice for both random (resampled) and already sorted input. v must not hold NaN. */
double stats_select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double pivot = v[kk];
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < pivot)
                i++;
            while (pivot < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
    return v[k];
}

/* Median of v[0..n), n >= 1, with the same definition as stats_percentile_sorted(.., 50): the mean
 * of the two middle values when n is even. Reorders v. */
double stats_median_select(double *v, size_t n)
{
    size_t k = (n - 1) / 2;
    double lo = stats_select_kth(v, n, k);
    if (n % 2)
        return lo;
    /* After selection every element past k is >= v[k]; the upper middle value is their minimum. */
    double hi = v[k + 1];
    for (size_t i = k + 2; i < n; i++)
        if (v[i] < hi)
            hi = v[i];
    return lo + 0.5 * (hi - lo);
}

/* ------------------------------------------------------------------------------------------------ */
/* Percentiles and the median's confidence interval                                                 */
/* ------------------------------------------------------------------------------------------------ */

double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (sorted == NULL || n == 0 || isnan(p))
        return NAN;
    if (p < 0.0)
        p = 0.0;
    if (p > 100.0)
        p = 100.0;
    double h = (double)(n - 1) * (p / 100.0);
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = h - (double)lo;
    /* a + f*(b - a) rather than (1-f)*a + f*b: exact at f = 0 and monotone in f. */
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/* Inverse of the standard normal CDF, by Acklam's rational approximation (relative error about
 * 1.15e-9), which is ample here: it only supplies the starting guess of the exact rank search. */
static double normal_quantile(double q)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                               1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double plow = 0.02425;
    if (q <= 0.0)
        return -INFINITY;
    if (q >= 1.0)
        return INFINITY;
    if (q < plow) {
        double t = sqrt(-2.0 * log(q));
        return (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
               ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1.0);
    }
    if (q > 1.0 - plow)
        return -normal_quantile(1.0 - q);
    double t = q - 0.5, r = t * t;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * t /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* ln(k!) - (k ln k - k + ln(2 pi k)/2), the error of Stirling's formula, for k >= 1: directly for
 * small k, by its asymptotic series (error below 1e-14 from k = 16) beyond. */
static double stirling_err(double k)
{
    const double LN_2PI = 1.8378770664093454836;
    if (k < 16.0) {
        double lf = 0.0;
        for (double i = 2.0; i <= k; i += 1.0)
            lf += log(i);
        return lf - (k * log(k) - k + 0.5 * (LN_2PI + log(k)));
    }
    double k2 = k * k;
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * k2)) / k2) / k2) / k;
}

/* ln P(K = j) for K ~ Binomial(n, 1/2). Written as Stirling's formula with the large terms already
 * cancelled (j ln(n/2j) + (n-j) ln(n/2(n-j)), by log1p), in the manner of Loader's dbinom, so it
 * stays accurate to about 1e-14 even for n = 10^7, where ln(n!) alone is 1.5e8 and lgamma would lose
 * eight digits. It also avoids lgamma, which writes the global signgam and so is not thread-safe. */
static double binom_half_logpmf(size_t n, size_t j)
{
    const double LN2 = 0.69314718055994530942, LN_2PI = 1.8378770664093454836;
    double dn = (double)n, dj = (double)j, dk = dn - dj;
    if (j == 0 || j == n)
        return -dn * LN2;
    double d = dn - 2.0 * dj; /* exact: n < 2^53 */
    return stirling_err(dn) - stirling_err(dj) - stirling_err(dk) + 0.5 * (log(dn / (dj * dk)) - LN_2PI) +
           dj * log1p(d / (2.0 * dj)) + dk * log1p(-d / (2.0 * dk));
}

/* P(K <= j) for K ~ Binomial(n, 1/2), j < n. The sum runs downward from j, each term the previous
 * times k/(n-k+1), until the remaining terms cannot change the result. Near the median that takes
 * O(sqrt(n)) terms; far in the tail, fewer. */
static double binom_half_cdf(size_t n, size_t j)
{
    double dn = (double)n, term = exp(binom_half_logpmf(n, j)), sum = 0.0;
    for (size_t k = j + 1; k-- > 0;) {
        sum += term;
        term *= (double)k / (dn - (double)k + 1.0);
        if (term <= sum * 1e-17)
            break;
    }
    return sum;
}

int stats_median_ci_ranks(size_t n, double conf, size_t *lo_rank, size_t *hi_rank)
{
    if (n < 1 || !(conf > 0.0 && conf < 1.0) || lo_rank == NULL || hi_rank == NULL) {
        errno = EINVAL;
        return -1;
    }
    /* The interval [x_(l), x_(n+1-l)] misses the median exactly when fewer than l samples fall on
     * one side of it, so its coverage is 1 - 2*P(K <= l-1). We want the largest l (the narrowest
     * interval) with P(K <= l-1) <= (1-conf)/2; j below stands for l-1. l may not exceed (n+1)/2,
     * where the two ranks meet. */
    double tail = (1.0 - conf) / 2.0;
    size_t jmax = (n - 1) / 2;
    double z = normal_quantile(1.0 - tail);
    double guess = floor((double)n / 2.0 - z * sqrt((double)n) / 2.0) - 1.0;
    size_t j = guess <= 0.0 ? 0 : (guess >= (double)jmax ? jmax : (size_t)guess);

    int found;
    if (binom_half_cdf(n, j) <= tail) {
        while (j < jmax && binom_half_cdf(n, j + 1) <= tail)
            j++;
        found = 1;
    } else {
        found = 0;
        while (j > 0) {
            j--;
            if (binom_half_cdf(n, j) <= tail) {
                found = 1;
                break;
            }
        }
    }
    /* When not even [min, max] reaches conf (n <= 5 at 95%), [min, max] is still the widest honest
     * answer the data can give, so the contract reports it rather than failing. */
    size_t l = found ? j + 1 : 1;
    *lo_rank = l;
    *hi_rank = n + 1 - l;
    return 0;
}

int stats_median_ci(const double *sorted, size_t n, double conf, double *lo, double *hi)
{
    size_t l, u;
    if (sorted == NULL || lo == NULL || hi == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (stats_median_ci_ranks(n, conf, &l, &u) != 0)
        return -1;
    *lo = sorted[l - 1];
    *hi = sorted[u - 1];
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* Summary                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

int stats_summarize(const double *x, size_t n, stats_summary *out)
{
    if (x == NULL || n == 0 || out == NULL || stats_has_nan(x, n)) {
        errno = EINVAL;
        return -1;
    }
    double *s = malloc(n * sizeof *s);
    if (s == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(s, x, n * sizeof *s);
    stats_sort_doubles(s, n);

    stats_summary r = {0};
    r.n = n;
    r.min = s[0];
    r.max = s[n - 1];
    r.p50 = stats_percentile_sorted(s, n, 50.0);
    r.p90 = stats_percentile_sorted(s, n, 90.0);
    r.p99 = stats_percentile_sorted(s, n, 99.0);
    r.p999 = stats_percentile_sorted(s, n, 99.9);

    /* Two passes: the mean first, then squared deviations from it, which does not suffer the
     * cancellation of sum(x^2) - n*mean^2 when the spread is tiny next to the mean (a typical
     * latency distribution). */
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    r.mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (s[i] - r.mean) * (s[i] - r.mean);
    /* The sample standard deviation of one value is undefined; NaN says so rather than a made-up 0. */
    r.stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;

    stats_median_ci(s, n, 0.95, &r.ci_lo, &r.ci_hi); /* cannot fail: n >= 1, conf valid */
    free(s);
    *out = r;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* The adaptive stopping rule                                                                       */
/* ------------------------------------------------------------------------------------------------ */

const char *stats_stop_name(stats_stop s)
{
    switch (s) {
    case STATS_CONTINUE: return "continue";
    case STATS_CONVERGED: return "converged";
    case STATS_TIME_CAP: return "time_cap";
    case STATS_COUNT_CAP: return "count_cap";
    }
    return "unknown";
}

void stats_stopper_init(stats_stopper *st)
{
    if (st == NULL)
        return;
    st->scratch = NULL;
    st->cap = 0;
    st->next_check = 0; /* the first call past the minimums is a checkpoint */
}

void stats_stopper_free(stats_stopper *st)
{
    if (st == NULL)
        return;
    free(st->scratch);
    stats_stopper_init(st);
}

/* Sorts a copy of x[0..n) into the stopper's scratch and says whether the median's 95% CI is
 * narrow enough. Returns 1 converged, 0 not, -1 (errno ENOMEM) when the scratch cannot grow. */
static int stopper_converged(stats_stopper *st, const stats_rule *rule, const double *x, size_t n)
{
    if (st->cap < n) {
        /* Grow by half again so that a steadily growing n reallocates O(log n) times. */
        size_t cap = st->cap + st->cap / 2;
        if (cap < n)
            cap = n;
        double *p = realloc(st->scratch, cap * sizeof *p);
        if (p == NULL) {
            errno = ENOMEM;
            return -1;
        }
        st->scratch = p;
        st->cap = cap;
    }
    memcpy(st->scratch, x, n * sizeof *x);
    stats_sort_doubles(st->scratch, n);
    double med = stats_percentile_sorted(st->scratch, n, 50.0), lo, hi;
    if (stats_median_ci(st->scratch, n, 0.95, &lo, &hi) != 0)
        return 0;
    /* A relative width needs a positive median; NaN anywhere makes every comparison false. */
    return med > 0.0 && (hi - lo) / med <= rule->rel_ci_width;
}

stats_stop stats_should_stop(stats_stopper *st, const stats_rule *rule, const double *x, size_t n, double elapsed_s)
{
    if (st == NULL || rule == NULL || (x == NULL && n > 0)) {
        errno = EINVAL;
        return STATS_CONTINUE;
    }
    if (n == 0)
        return STATS_CONTINUE;
    int time_cap = elapsed_s >= rule->max_seconds;
    /* The time cap bounds every cell, even one too slow to reach its minimums: a sweep must end. */
    if (!time_cap && (n < rule->min_samples || elapsed_s < rule->min_seconds))
        return STATS_CONTINUE;

    int count_cap = n >= rule->max_samples;
    /* Sorting is the only costly step, so it happens only at checkpoints, each ~25% further on than
     * the last (total cost O(n log n), amortised O(log n) per sample), and at the final call when a
     * cap is reached, so that a cell which has in fact converged is reported as converged. */
    if (n >= st->next_check || time_cap || count_cap) {
        st->next_check = n + n / 4 + 1;
        if (stopper_converged(st, rule, x, n) == 1)
            return STATS_CONVERGED;
    }
    if (time_cap)
        return STATS_TIME_CAP;
    if (count_cap)
        return STATS_COUNT_CAP;
    return STATS_CONTINUE;
}

/* ------------------------------------------------------------------------------------------------ */
/* Student t quantile                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* P(T_df <= t) for integer df >= 1, t >= 0, by the finite series of Abramowitz & Stegun 26.7.3-4 in
 * theta = atan(t / sqrt(df)): exact up to rounding, no special functions beyond atan and sin/cos. */
static double t_cdf_upper_half(double t, int df)
{
    const double PI = 3.14159265358979323846;
    double th = atan(t / sqrt((double)df)), s = sin(th), c2 = cos(th) * cos(th), sum, term;
    if (df % 2 == 0) {
        /* 1/2 + sin(th)/2 * [1 + (1/2)c^2 + (1*3)/(2*4)c^4 + ... up to c^(df-2)] */
        sum = term = 1.0;
        for (int j = 2; j <= df - 2; j += 2) {
            term *= c2 * (double)(j - 1) / (double)j;
            sum += term;
        }
        return 0.5 + 0.5 * s * sum;
    }
    /* 1/2 + (th + sin(th) cos(th) [1 + (2/3)c^2 + ... up to c^(df-3)]) / pi */
    if (df == 1)
        return 0.5 + th / PI;
    sum = term = 1.0;
    for (int j = 3; j <= df - 2; j += 2) {
        term *= c2 * (double)(j - 1) / (double)j;
        sum += term;
    }
    return 0.5 + (th + s * cos(th) * sum) / PI;
}

double stats_t_quantile(double p, int df)
{
    if (!(p > 0.0 && p < 1.0) || df < 1)
        return NAN;
    if (p < 0.5)
        return -stats_t_quantile(1.0 - p, df);
    if (p == 0.5)
        return 0.0;
    if (df > 1000) {
        /* Cornish-Fisher expansion in 1/df around the normal quantile (A&S 26.7.5); its error at
         * df = 1000 is far below 1e-9, and the series above would cost O(df) per evaluation. */
        double z = normal_quantile(p), z2 = z * z, v = (double)df;
        double g1 = (z2 + 1.0) * z / 4.0;
        double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
        double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
        return z + g1 / v + g2 / (v * v) + g3 / (v * v * v);
    }
    /* Bisection on the exact CDF: bracket by doubling, then halve to double precision. */
    double lo = 0.0, hi = 2.0;
    while (t_cdf_upper_half(hi, df) < p && hi < 1e300) {
        lo = hi;
        hi *= 2.0;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (t_cdf_upper_half(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double stats_small_k_factor(size_t k, double conf)
{
    if (k < 2 || !(conf > 0.0 && conf < 1.0))
        return 1.0;
    double q = (1.0 + conf) / 2.0;
    return stats_t_quantile(q, (int)(k - 1)) / normal_quantile(q);
}

/* ------------------------------------------------------------------------------------------------ */
/* Trials: the CI method's name, sorting a trial's samples, its lower median                           */
/* ------------------------------------------------------------------------------------------------ */

const char *stats_ci_method_name(stats_ci_method m) { return m == STATS_CI_TRIALS ? "trials" : "samples"; }

/* The IEEE bits of a double mapped so that unsigned order is numeric order: negatives have all bits
 * flipped, non-negatives only the sign bit. */
static uint64_t sort_key(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : u | 0x8000000000000000ULL;
}

int stats_sort(double *v, size_t n)
{
    enum { BITS = 11, BUCKETS = 1 << BITS, PASSES = (64 + BITS - 1) / BITS };
    if (n < 64) {
        stats_sort_doubles(v, n);
        return 0;
    }
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    size_t(*count)[BUCKETS] = calloc(PASSES, sizeof *count);
    if (a == NULL || b == NULL || count == NULL) {
        free(a);
        free(b);
        free(count);
        stats_sort_doubles(v, n);
        errno = ENOMEM;
        return -1;
    }
    /* One pass counts every digit; then one scatter per digit that is not the same for all keys
     * (samples of one trial share their sign, exponent and more, so most high digits are skipped). */
    for (size_t i = 0; i < n; i++) {
        a[i] = sort_key(v[i]);
        for (int p = 0; p < PASSES; p++)
            count[p][(a[i] >> (p * BITS)) & (BUCKETS - 1)]++;
    }
    for (int p = 0; p < PASSES; p++) {
        if (count[p][(a[0] >> (p * BITS)) & (BUCKETS - 1)] == n)
            continue;
        size_t sum = 0;
        for (int d = 0; d < BUCKETS; d++) {
            size_t c = count[p][d];
            count[p][d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            b[count[p][(a[i] >> (p * BITS)) & (BUCKETS - 1)]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = (a[i] >> 63) ? a[i] & 0x7fffffffffffffffULL : ~a[i];
        memcpy(&v[i], &u, sizeof u);
    }
    free(a);
    free(b);
    free(count);
    return 0;
}

double stats_lower_median(const double *sorted, size_t n)
{
    if (sorted == NULL || n == 0)
        return NAN;
    return sorted[(n + 1) / 2 - 1];
}
