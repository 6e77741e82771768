/* test_stats.c - harness/stats.c against answers known independently of it.
 *
 * Percentiles are checked against numbers worked out with numpy's type-7 definition in plain Python;
 * the median CI against order-statistic ranks from exact Binomial(n, 1/2) sums in Python integers,
 * and against its promised coverage on simulated exponential data; the stopping rule through the
 * reason and the sample count at which it stops; the bootstrap on data with a known overhead.
 * Trial-level statistics: Student t quantiles against tables; the fast bootstrap-median draw and the
 * naive one against the exact law of a bootstrap median's rank; the fast hierarchical bootstrap
 * against the naive one on fixtures (within 4 Monte Carlo standard errors); and, with the argument
 * "coverage" (test_stats_coverage), the interval's coverage over 2000 simulated cells per k.
 * Run: ctest --test-dir build -R test_stats --output-on-failure
 */
#include "check.h"
#include "rng.h"
#include "stats.h"
#include "verdict.h"

#include <errno.h>
#include <stdint.h>

/* The test's own generator, independent of the one inside stats.c, so a shared bug cannot hide. */
static uint64_t test_rng_state;

static uint64_t test_next(void) { return rng_splitmix64(&test_rng_state); }

/* Exponential(1) by inversion; u is in (0, 1], so the log is finite. */
static double test_exp(void)
{
    double u = ((double)(test_next() >> 11) + 1.0) / 9007199254740992.0;
    return -log(u);
}

/* ln 2, the median of Exponential(1) (M_LN2 is POSIX, not C11). */
static const double LN2 = 0.69314718055994530942;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------------------------------------ */

static void test_percentiles(void)
{
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i + 1;
    /* numpy.percentile(range(1, 101), p) */
    CHECK_NEAR(stats_percentile_sorted(v, 100, 0), 1.0, 0);
    CHECK_NEAR(stats_percentile_sorted(v, 100, 25), 25.75, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(v, 100, 50), 50.5, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(v, 100, 90), 90.1, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(v, 100, 99), 99.01, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(v, 100, 99.9), 99.901, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(v, 100, 100), 100.0, 0);

    const double s5[] = {3.0, 7.0, 8.0, 15.0, 20.0};
    CHECK_NEAR(stats_percentile_sorted(s5, 5, 10), 4.6, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(s5, 5, 33), 7.32, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(s5, 5, 50), 8.0, 0);
    CHECK_NEAR(stats_percentile_sorted(s5, 5, 75), 15.0, 0);
    CHECK_NEAR(stats_percentile_sorted(s5, 5, 95), 19.0, 1e-12);

    const double s4[] = {1.0, 2.0, 3.0, 4.0};
    CHECK_NEAR(stats_percentile_sorted(s4, 4, 25), 1.75, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(s4, 4, 50), 2.5, 1e-12);
    CHECK_NEAR(stats_percentile_sorted(s4, 4, 90), 3.7, 1e-12);

    /* Clamping, a single value, and the NaN answers. */
    CHECK_NEAR(stats_percentile_sorted(s5, 5, -10), 3.0, 0);
    CHECK_NEAR(stats_percentile_sorted(s5, 5, 250), 20.0, 0);
    CHECK_NEAR(stats_percentile_sorted(s5, 1, 73), 3.0, 0);
    CHECK(isnan(stats_percentile_sorted(s5, 0, 50)));
    CHECK(isnan(stats_percentile_sorted(NULL, 5, 50)));
    CHECK(isnan(stats_percentile_sorted(s5, 5, NAN)));
}

/* x_i = i, so the interval's ends are its 1-based ranks. */
static void check_ci_ranks(size_t n, double conf, double want_lo, double want_hi)
{
    double *x = malloc(n * sizeof *x), lo = -1, hi = -1;
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(i + 1);
    CHECK_INT(stats_median_ci(x, n, conf, &lo, &hi), 0);
    CHECK_MSG(lo == want_lo && hi == want_hi, "n=%zu conf=%g: [%g, %g], want [%g, %g]", n, conf, lo, hi, want_lo,
              want_hi);
    free(x);
}

static void test_median_ci(void)
{
    /* Ranks from exact sums of C(n, j) / 2^n in Python integers: the largest l with
     * P(K <= l-1) <= (1-conf)/2, and n+1-l. */
    check_ci_ranks(100, 0.95, 40, 61);
    check_ci_ranks(100, 0.99, 37, 64);
    check_ci_ranks(10, 0.95, 2, 9);
    check_ci_ranks(9, 0.95, 2, 8);
    check_ci_ranks(6, 0.95, 1, 6);
    check_ci_ranks(5, 0.95, 1, 5); /* [min, max] cannot reach 95%; still [min, max] */
    check_ci_ranks(1, 0.95, 1, 1);
    check_ci_ranks(20, 0.5, 8, 13);
    check_ci_ranks(2000, 0.9, 963, 1038);
    /* n = 1001: P(K <= 469) = 0.024992, just inside the 2.5% tail, so l = 470, where the normal
     * approximation floor(n/2 - z sqrt(n)/2) says 469. The exact answer must win. */
    check_ci_ranks(1001, 0.95, 470, 532);

    size_t l = 0, u = 0;
    CHECK_INT(stats_median_ci_ranks(100001, 0.95, &l, &u), 0);
    CHECK_INT(l, 49691); /* normal approximation: 49690, 50312 */
    CHECK_INT(u, 50311);
    CHECK_INT(stats_median_ci_ranks(100000, 0.99, &l, &u), 0);
    CHECK_INT(l, 49593);
    CHECK_INT(u, 50408);
    /* Too big for Python integers: these ranks were checked with mpmath at 30 digits, summing the
     * binomial terms downward from exp(loggamma(..)): P(K <= l-1) = 0.0249394843 and
     * P(K <= l) = 0.0250563663 for n = 10^6; 0.0249806035 and 0.0250175663 for n = 10^7. */
    CHECK_INT(stats_median_ci_ranks(1000000, 0.95, &l, &u), 0);
    CHECK_INT(l, 499020);
    CHECK_INT(u, 500981);
    CHECK_INT(stats_median_ci_ranks(10000000, 0.95, &l, &u), 0);
    CHECK_INT(l, 4996901); /* normal approximation: 4996900 */
    CHECK_INT(u, 5003100);

    double x[3] = {1, 2, 3}, lo, hi;
    errno = 0;
    CHECK_INT(stats_median_ci(x, 0, 0.95, &lo, &hi), -1);
    CHECK_INT(errno, EINVAL);
    errno = 0;
    CHECK_INT(stats_median_ci(x, 3, 1.0, &lo, &hi), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(stats_median_ci(x, 3, 0.0, &lo, &hi), -1);
    CHECK_INT(stats_median_ci(x, 3, NAN, &lo, &hi), -1);
    CHECK_INT(stats_median_ci(NULL, 3, 0.95, &lo, &hi), -1);
    CHECK_INT(stats_median_ci(x, 3, 0.95, NULL, &hi), -1);
    CHECK_INT(stats_median_ci_ranks(3, 0.95, NULL, &u), -1);
}

/* The promise of the interval: it covers the true median at least conf of the time, whatever the
 * distribution. For n = 101 at 95% (l = 41) the exact coverage is 0.95396; over 2000 trials the
 * standard error is 0.0047, so 93-97% is more than 3 standard errors either way. */
static void test_median_ci_coverage(void)
{
    enum { TRIALS = 2000, N = 101 };
    double x[N];
    int covered = 0;
    test_rng_state = 12345;
    for (int t = 0; t < TRIALS; t++) {
        for (int i = 0; i < N; i++)
            x[i] = test_exp();
        qsort(x, N, sizeof *x, cmp_d);
        double lo, hi;
        CHECK_INT(stats_median_ci(x, N, 0.95, &lo, &hi), 0);
        covered += lo <= LN2 && LN2 <= hi;
    }
    double cov = (double)covered / TRIALS;
    printf("median CI coverage, n=%d, 95%%: %.4f (exact 0.9540)\n", N, cov);
    CHECK_MSG(cov >= 0.93 && cov <= 0.97, "coverage %.4f", cov);
}

static void test_summarize(void)
{
    const double v[] = {5.0, 2.0, 9.0, 4.0, 4.0, 7.0, 4.0, 5.0}; /* unsorted on purpose */
    double copy[8];
    memcpy(copy, v, sizeof v);
    stats_summary s;
    CHECK_INT(stats_summarize(copy, 8, &s), 0);
    CHECK(memcmp(copy, v, sizeof v) == 0); /* input untouched */
    CHECK_INT(s.n, 8);
    CHECK_NEAR(s.min, 2.0, 0);
    CHECK_NEAR(s.max, 9.0, 0);
    CHECK_NEAR(s.p50, 4.5, 1e-12);
    CHECK_NEAR(s.p90, 7.6, 1e-12);    /* numpy: 7.6 */
    CHECK_NEAR(s.p99, 8.86, 1e-12);   /* numpy: 8.86 */
    CHECK_NEAR(s.p999, 8.986, 1e-12); /* numpy: 8.986 */
    CHECK_NEAR(s.mean, 5.0, 1e-12);
    CHECK_NEAR(s.stddev, 2.138089935299395, 1e-12); /* statistics.stdev */
    CHECK_NEAR(s.ci_lo, 2.0, 0);                    /* n = 8 at 95%: ranks 1, 8 */
    CHECK_NEAR(s.ci_hi, 9.0, 0);

    /* 1..100 shuffled: the percentiles above, and ranks 40, 61 for the CI. */
    double w[100];
    for (int i = 0; i < 100; i++)
        w[i] = (double)((i * 37) % 100 + 1);
    CHECK_INT(stats_summarize(w, 100, &s), 0);
    CHECK_NEAR(s.p999, 99.901, 1e-12);
    CHECK_NEAR(s.mean, 50.5, 1e-12);
    CHECK_NEAR(s.stddev, 29.011491975882016, 1e-9); /* statistics.stdev(range(1, 101)) */
    CHECK_NEAR(s.ci_lo, 40.0, 0);
    CHECK_NEAR(s.ci_hi, 61.0, 0);

    /* A tiny spread on a large mean must not lose the stddev to cancellation. */
    double big[3] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    CHECK_INT(stats_summarize(big, 3, &s), 0);
    CHECK_NEAR(s.stddev, 1.0, 1e-9);

    double one = 3.5;
    CHECK_INT(stats_summarize(&one, 1, &s), 0);
    CHECK(isnan(s.stddev));
    CHECK_NEAR(s.p999, 3.5, 0);
    CHECK_NEAR(s.ci_lo, 3.5, 0);

    double bad[3] = {1.0, NAN, 2.0};
    errno = 0;
    CHECK_INT(stats_summarize(bad, 3, &s), -1);
    CHECK_INT(errno, EINVAL);
    errno = 0;
    CHECK_INT(stats_summarize(v, 0, &s), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(stats_summarize(NULL, 3, &s), -1);
    CHECK_INT(stats_summarize(v, 3, NULL), -1);
}

/* ------------------------------------------------------------------------------------------------ */
/* The stopping rule. Time is simulated, dt = 1/1024 s per sample (exact in binary), so the sample
 * count at which each rule fires is known exactly. */

enum { MAXN = 200000 };
static double samples[MAXN];

static void fill_noisy(size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        samples[i] = test_exp();
}

static void fill_steady(size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        samples[i] = 100.0 + 0.001 * (double)(i % 7);
}

/* Feeds samples 1..limit to the rule, from a given stopper; returns the reason and *at the n where
 * it stopped (limit when it did not). */
static stats_stop run_rule(stats_stopper *st, const stats_rule *r, size_t from, size_t limit, size_t *at)
{
    for (size_t n = from; n <= limit; n++) {
        stats_stop s = stats_should_stop(st, r, samples, n, (double)n / 1024.0);
        if (s != STATS_CONTINUE) {
            *at = n;
            return s;
        }
    }
    *at = limit;
    return STATS_CONTINUE;
}

static stats_stop run_fresh(const stats_rule *r, size_t limit, size_t *at)
{
    stats_stopper st;
    stats_stopper_init(&st);
    stats_stop s = run_rule(&st, r, 1, limit, at);
    stats_stopper_free(&st);
    return s;
}

static void test_stopper(void)
{
    size_t at;
    test_rng_state = 777;
    CHECK_STR(stats_stop_name(STATS_CONTINUE), "continue");
    CHECK_STR(stats_stop_name(STATS_CONVERGED), "converged");
    CHECK_STR(stats_stop_name(STATS_TIME_CAP), "time_cap");
    CHECK_STR(stats_stop_name(STATS_COUNT_CAP), "count_cap");

    /* Steady samples converge at the first moment both minimums hold: here min_samples... */
    fill_steady(0, MAXN);
    stats_rule r = {
        .min_samples = 1000, .min_seconds = 0.5, .max_seconds = 60, .max_samples = MAXN, .rel_ci_width = 0.01};
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_CONVERGED);
    CHECK_INT(at, 1000);
    /* ...and here min_seconds (1 s = 1024 samples). */
    r.min_samples = 10;
    r.min_seconds = 1.0;
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_CONVERGED);
    CHECK_INT(at, 1024);

    /* Exponential samples need ~3e5 samples for a 1% CI; the 2 s cap (2048 samples) comes first. */
    fill_noisy(0, MAXN);
    r = (stats_rule){
        .min_samples = 100, .min_seconds = 0.1, .max_seconds = 2.0, .max_samples = MAXN, .rel_ci_width = 0.01};
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_TIME_CAP);
    CHECK_INT(at, 2048);
    r.max_seconds = 1e9;
    r.max_samples = 3000;
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_COUNT_CAP);
    CHECK_INT(at, 3000);
    /* Both caps at once: the time cap is named. */
    r.max_seconds = 2.0;
    r.max_samples = 2048;
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_TIME_CAP);
    CHECK_INT(at, 2048);
    /* The minimums win over a count cap set below them. */
    r.min_samples = 500;
    r.max_samples = 10;
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_COUNT_CAP);
    CHECK_INT(at, 500);
    /* ...but not over the time cap: a cell too slow for its minimums still ends. */
    {
        stats_rule slow = {.min_samples = 1000000,
                           .min_seconds = 0,
                           .max_seconds = 1.0,
                           .max_samples = 100000000,
                           .rel_ci_width = 0.01};
        stats_stopper s2;
        stats_stopper_init(&s2);
        double few[3] = {1, 2, 3};
        CHECK_INT(stats_should_stop(&s2, &slow, few, 3, 0.5), STATS_CONTINUE);
        CHECK_INT(stats_should_stop(&s2, &slow, few, 3, 1.5), STATS_TIME_CAP);
        stats_stopper_free(&s2);
    }

    /* Convergence wins over a cap reached at the same call, even between checkpoints: the first
     * checkpoint is at n = 500 (noisy, not converged), the next ~25% later, but the count cap at
     * 520 forces a last check, which sees the now steady data. */
    r = (stats_rule){
        .min_samples = 500, .min_seconds = 0, .max_seconds = 1e9, .max_samples = 520, .rel_ci_width = 0.01};
    stats_stopper st;
    stats_stopper_init(&st);
    CHECK_INT(run_rule(&st, &r, 1, 500, &at), STATS_CONTINUE);
    fill_steady(0, MAXN);
    CHECK_INT(run_rule(&st, &r, 501, MAXN, &at), STATS_CONVERGED);
    CHECK_INT(at, 520);
    stats_stopper_free(&st);

    /* Checkpoints, seen through behaviour: noisy until n = 1000 (a checkpoint, not converged), then
     * the data become steady. Between checkpoints the data are not looked at, so the stop comes
     * later than n = 1001, but no later than the next checkpoint, ~25% on. */
    r = (stats_rule){
        .min_samples = 1000, .min_seconds = 0, .max_seconds = 1e9, .max_samples = MAXN, .rel_ci_width = 0.01};
    fill_noisy(0, MAXN);
    stats_stopper_init(&st);
    CHECK_INT(run_rule(&st, &r, 1, 1000, &at), STATS_CONTINUE);
    fill_steady(0, MAXN);
    CHECK_INT(run_rule(&st, &r, 1001, MAXN, &at), STATS_CONVERGED);
    CHECK_MSG(at > 1100 && at <= 1300, "stopped at %zu", at);
    stats_stopper_free(&st);
    /* Late on the checkpoints are still no more than ~25% apart (the scratch has grown on the way). */
    fill_noisy(0, MAXN);
    stats_stopper_init(&st);
    CHECK_INT(run_rule(&st, &r, 1, 100000, &at), STATS_CONTINUE);
    fill_steady(0, MAXN);
    CHECK_INT(run_rule(&st, &r, 100001, MAXN, &at), STATS_CONVERGED);
    CHECK_MSG(at >= 100001 && at <= 130000, "stopped at %zu", at);
    /* A stopper can be freed twice and reused after init. */
    stats_stopper_free(&st);
    stats_stopper_free(&st);
    CHECK(st.scratch == NULL);

    /* A median of 0 cannot give a relative width, so no convergence: the cap ends it. */
    for (size_t i = 0; i < 4000; i++)
        samples[i] = 0.0;
    r = (stats_rule){
        .min_samples = 100, .min_seconds = 0, .max_seconds = 1e9, .max_samples = 3000, .rel_ci_width = 0.5};
    CHECK_INT(run_fresh(&r, 4000, &at), STATS_COUNT_CAP);

    errno = 0;
    CHECK_INT(stats_should_stop(NULL, &r, samples, 10, 1.0), STATS_CONTINUE);
    CHECK_INT(errno, EINVAL);
    stats_stopper_init(&st);
    errno = 0;
    CHECK_INT(stats_should_stop(&st, NULL, samples, 10, 1.0), STATS_CONTINUE);
    CHECK_INT(errno, EINVAL);
    errno = 0;
    CHECK_INT(stats_should_stop(&st, &r, NULL, 10, 1.0), STATS_CONTINUE);
    CHECK_INT(errno, EINVAL);
    stats_stopper_free(&st);
}

/* ------------------------------------------------------------------------------------------------ */

static void test_bootstrap(void)
{
    enum { N = 10000 };
    static double a[N], b[N];
    double est, lo, hi, est2, lo2, hi2;
    test_rng_state = 4242;
    for (int i = 0; i < N; i++) {
        a[i] = 10.0 + test_exp(); /* latency-like: a floor plus a tail */
        b[i] = a[i] * 1.10;
    }
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 2000, 1, 0.95, &est, &lo, &hi), 0);
    printf("bootstrap a vs 1.10a: est %.6f CI [%.6f, %.6f]\n", est, lo, hi);
    CHECK_NEAR(est, 0.10, 1e-12);
    CHECK(lo <= 0.10 && 0.10 <= hi);
    CHECK(lo > 0.0);
    CHECK(hi - lo < 0.05);

    CHECK_INT(stats_bootstrap_overhead(a, N, a, N, 2000, 1, 0.95, &est, &lo, &hi), 0);
    printf("bootstrap a vs a: est %.6f CI [%.6f, %.6f]\n", est, lo, hi);
    CHECK_NEAR(est, 0.0, 0);
    CHECK(lo < 0.0 && 0.0 < hi);

    /* Same seed, same answer to the bit; another seed, another interval. */
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 500, 99, 0.9, &est, &lo, &hi), 0);
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 500, 99, 0.9, &est2, &lo2, &hi2), 0);
    CHECK(est == est2 && lo == lo2 && hi == hi2);
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 500, 100, 0.9, &est2, &lo2, &hi2), 0);
    CHECK(lo != lo2 || hi != hi2);

    /* Even sizes, unsorted: medians are 2.5 and 7 (means of the middle pair), so est = 1.8. */
    const double sa[] = {4, 1, 3, 2}, sb[] = {10, 2, 6, 8};
    CHECK_INT(stats_bootstrap_overhead(sa, 4, sb, 4, 50, 7, 0.95, &est, &lo, &hi), 0);
    CHECK_NEAR(est, 1.8, 1e-12);
    CHECK(lo <= hi);

    double nan_a[2] = {1.0, NAN}, zeros[3] = {0, 0, 0};
    errno = 0;
    CHECK_INT(stats_bootstrap_overhead(a, 0, b, N, 10, 1, 0.95, &est, &lo, &hi), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(stats_bootstrap_overhead(a, N, b, 0, 10, 1, 0.95, &est, &lo, &hi), -1);
    CHECK_INT(stats_bootstrap_overhead(NULL, N, b, N, 10, 1, 0.95, &est, &lo, &hi), -1);
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 0, 1, 0.95, &est, &lo, &hi), -1);
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 10, 1, 1.0, &est, &lo, &hi), -1);
    CHECK_INT(stats_bootstrap_overhead(a, N, b, N, 10, 1, 0.95, NULL, &lo, &hi), -1);
    errno = 0;
    CHECK_INT(stats_bootstrap_overhead(nan_a, 2, b, N, 10, 1, 0.95, &est, &lo, &hi), -1);
    CHECK_INT(errno, EINVAL);
    errno = 0;
    CHECK_INT(stats_bootstrap_overhead(zeros, 3, b, N, 10, 1, 0.95, &est, &lo, &hi), -1);
    CHECK_INT(errno, EDOM);
}

/* ------------------------------------------------------------------------------------------------ */
/* Trial-level statistics. Sanitizer builds run the same checks with fewer seeds and replicates (they
 * are 5-20x slower); their coverage band is widened by the larger binomial error of fewer seeds. */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_SANITIZED 1
#else
#define TEST_SANITIZED 0
#endif

static double test_unit(void) { return ((double)(test_next() >> 11) + 0.5) / 9007199254740992.0; }

/* Standard normal by Box-Muller (the test's own, independent of the polar method in stats.c). */
static double test_normal(void)
{
    const double TWO_PI = 6.28318530717958647692;
    return sqrt(-2.0 * log(test_unit())) * cos(TWO_PI * test_unit());
}

static void test_t_quantile(void)
{
    /* Student t quantiles from standard tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), 4-5
     * significant digits, and the two closed forms df = 1 (tan) and df = 2. */
    static const struct {
        double p;
        int df;
        double t;
    } tab[] = {
        {0.975, 1, 12.7062}, {0.975, 2, 4.3027},   {0.975, 3, 3.1824},    {0.975, 4, 2.7764},      {0.975, 5, 2.5706},
        {0.975, 9, 2.2622},  {0.975, 10, 2.2281},  {0.975, 30, 2.0423},   {0.95, 4, 2.1318},       {0.995, 10, 3.1693},
        {0.90, 20, 1.3253},  {0.975, 100, 1.9840}, {0.975, 1000, 1.9623}, {0.975, 100000, 1.9600},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        double t = stats_t_quantile(tab[i].p, tab[i].df);
        CHECK_MSG(fabs(t - tab[i].t) <= 1e-4 * fmax(1.0, tab[i].t / 10), "t(%g, %d) = %.6f, want %.4f", tab[i].p,
                  tab[i].df, t, tab[i].t);
        CHECK_NEAR(stats_t_quantile(1.0 - tab[i].p, tab[i].df), -t, 1e-12);
    }
    const double PI = 3.14159265358979323846;
    CHECK_NEAR(stats_t_quantile(0.9, 1), tan(PI * 0.4), 1e-9);
    CHECK_NEAR(stats_t_quantile(0.99, 2), 0.98 / sqrt(2 * 0.99 * 0.01), 1e-9);
    /* The series (df <= 1000) and the expansion (df > 1000) meet without a step. */
    CHECK_NEAR(stats_t_quantile(0.975, 1000), stats_t_quantile(0.975, 1001), 1e-5);
    CHECK_NEAR(stats_t_quantile(0.5, 7), 0.0, 0);
    CHECK(isnan(stats_t_quantile(0.0, 3)));
    CHECK(isnan(stats_t_quantile(1.0, 3)));
    CHECK(isnan(stats_t_quantile(0.9, 0)));
    /* The small-k factor: t_{k-1}/z (for the median of the trial medians; see stats.h). */
    CHECK_NEAR(stats_small_k_factor(5, 0.95), 2.7764 / 1.95996, 1e-4);
    CHECK_NEAR(stats_small_k_factor(1, 0.95), 1.0, 0);
}

/* The fast within-trial draw against the exact law of a bootstrap median's rank: for x_i = i, a
 * bootstrap lower median is J with P(J <= j) = P(Binomial(n, j/n) >= m), m = ceil(n/2). The naive
 * draw (real resampling) is held to the same exact law, so both are shown right, not just alike. */
static double binom_ge(int n, double p, int m)
{
    double sum = 0.0;
    for (int i = m; i <= n; i++) {
        double c = 1.0; /* C(n, i), in doubles: n is small here */
        for (int j = 1; j <= i; j++)
            c = c * (double)(n - i + j) / (double)j;
        sum += c * pow(p, i) * pow(1.0 - p, n - i);
    }
    return sum;
}

static void check_rank_law(int n, int reps, int naive)
{
    double *x = malloc((size_t)n * sizeof *x), *rep = malloc((size_t)reps * sizeof *rep);
    for (int i = 0; i < n; i++)
        x[i] = i + 1;
    stats_trial t = {x, (size_t)n};
    CHECK_INT(stats_hboot_replicates(&t, 1, reps, 1000 + (uint64_t)n, naive, rep), 0);
    int m = (n + 1) / 2;
    double worst = 0.0;
    for (int j = 1; j < n; j++) {
        double want = binom_ge(n, (double)j / n, m), got = 0.0;
        for (int r = 0; r < reps; r++)
            got += rep[r] <= j;
        got /= reps;
        /* 5 binomial standard errors: a false alarm about once in 10^6 comparisons. */
        double tol = 5.0 * sqrt(want * (1.0 - want) / reps) + 1e-12, z = fabs(got - want) / (tol / 5.0);
        if (z > worst)
            worst = z;
        CHECK_MSG(fabs(got - want) <= tol, "%s n=%d: P(J<=%d) = %.5f, exact %.5f", naive ? "naive" : "fast", n, j, got,
                  want);
    }
    printf("bootstrap median rank law, %s, n=%d, %d draws: worst |error| %.2f standard errors\n",
           naive ? "naive" : "fast", n, reps, worst);
    free(x);
    free(rep);
}

static void test_fast_draw_law(void)
{
    static const int ns[] = {1, 2, 3, 4, 5, 8, 9, 20, 51};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        check_rank_law(ns[i], TEST_SANITIZED ? 20000 : 100000, 0);
        check_rank_law(ns[i], TEST_SANITIZED ? 5000 : 20000, 1);
    }
}

/* Fixtures: k trials of n samples each, of one shape, shifted per trial so the trials differ. */
typedef enum { SHAPE_NORMAL, SHAPE_LOGNORMAL, SHAPE_BIMODAL, SHAPE_TIES } shape;

static double shape_draw(shape s)
{
    switch (s) {
    case SHAPE_NORMAL: return 10.0 + test_normal();
    case SHAPE_LOGNORMAL: return 5.0 * exp(0.6 * test_normal());
    case SHAPE_BIMODAL: return test_unit() < 0.55 ? 7.1 + 0.1 * test_normal() : 9.0 + 0.2 * test_normal();
    case SHAPE_TIES: return floor(4.0 * test_exp()); /* many equal values */
    }
    return 0.0;
}

static const char *shape_name(shape s)
{
    static const char *const names[] = {"normal", "lognormal", "bimodal", "ties"};
    return names[s];
}

static int cmp_d(const void *a, const void *b);

/* Makes k sorted trials; trial j is scaled by 1 + 0.02 * (j - k/2), a between-trial spread. */
static stats_trial *make_trials(size_t k, size_t n, shape s, double **store)
{
    stats_trial *t = malloc(k * sizeof *t);
    *store = malloc(k * n * sizeof **store);
    for (size_t j = 0; j < k; j++) {
        double *x = *store + j * n, f = 1.0 + 0.02 * ((double)j - (double)k / 2.0);
        for (size_t i = 0; i < n; i++)
            x[i] = f * shape_draw(s);
        qsort(x, n, sizeof *x, cmp_d);
        t[j] = (stats_trial){x, n};
    }
    return t;
}

/* Density of the replicates at their q-quantile, from a sorted sample of them, for the Monte Carlo
 * standard error of a percentile: se = sqrt(q(1-q)/R) / f(q). */
static double quantile_se(const double *sorted, size_t big, double q, int reps)
{
    double d = 0.02;
    double a = stats_percentile_sorted(sorted, big, 100.0 * (q - d)),
           b = stats_percentile_sorted(sorted, big, 100.0 * (q + d));
    if (b <= a)
        return 0.0;
    return sqrt(q * (1.0 - q) / reps) * (b - a) / (2.0 * d);
}

static void test_fast_vs_naive(void)
{
    static const struct {
        size_t k, n;
        shape s;
    } fx[] = {
        {5, 7, SHAPE_NORMAL},       {5, 8, SHAPE_LOGNORMAL},  {3, 101, SHAPE_BIMODAL},  {5, 1000, SHAPE_TIES},
        {3, 2000, SHAPE_LOGNORMAL}, {5, 5000, SHAPE_BIMODAL}, {10, 2000, SHAPE_NORMAL}, {3, 50000, SHAPE_LOGNORMAL},
    };
    const int fast_reps = TEST_SANITIZED ? 20000 : 100000;
    test_rng_state = 31337;
    for (size_t f = 0; f < sizeof fx / sizeof fx[0]; f++) {
        double *store;
        stats_trial *t = make_trials(fx[f].k, fx[f].n, fx[f].s, &store);
        /* The naive draw costs O(n) each: fewer replicates for big n, the tolerance grows to match. */
        int naive_reps = fx[f].n >= 20000 ? 1500 : 5000;
        if (TEST_SANITIZED)
            naive_reps /= 5;
        stats_interval fi, ni;
        CHECK_INT(stats_hboot(t, fx[f].k, fast_reps, 11, 0.95, &fi), 0);
        CHECK_INT(stats_hboot_naive(t, fx[f].k, naive_reps, 12, 0.95, &ni), 0);
        CHECK(fi.est == ni.est);
        CHECK(fi.method == STATS_CI_TRIALS && ni.method == STATS_CI_TRIALS);
        CHECK(fi.scale == ni.scale);

        /* The stated tolerance: 4 Monte Carlo standard errors of the difference of the two bounds
         * (each bound's error from the replicates' density), which at these replicate counts is
         * 3-9% of the width; it must stay under 10% (25% in sanitizer builds, with 5x fewer naive
         * replicates), so that the comparison cannot pass by being vague. The differences seen are
         * printed (at most ~2% of the width in the optimised build). */
        double *rep = malloc((size_t)fast_reps * sizeof *rep);
        CHECK_INT(stats_hboot_replicates(t, fx[f].k, fast_reps, 11, 0, rep), 0);
        qsort(rep, (size_t)fast_reps, sizeof *rep, cmp_d);
        double width = fi.raw_hi - fi.raw_lo, worst = 0.0;
        if (fx[f].s == SHAPE_TIES || fx[f].n < 1000) {
            /* Tied samples, or few of them, make the replicates (medians of k trial medians) take a
             * handful of values, so a bound jumps between them and its standard error from a
             * density estimate is meaningless: compare the two replicate distributions instead.
             * Kolmogorov-Smirnov distance at every value the fast replicates take, against 0.035
             * (the 0.1% critical value for these counts is 0.028; 0.07 with the sanitizers' 5x
             * fewer naive replicates, whose critical value is 0.063). */
            double *nrep = malloc((size_t)naive_reps * sizeof *nrep);
            CHECK_INT(stats_hboot_replicates(t, fx[f].k, naive_reps, 12, 1, nrep), 0);
            qsort(nrep, (size_t)naive_reps, sizeof *nrep, cmp_d);
            double ks = 0.0;
            for (size_t i = 0, j = 0; i < (size_t)fast_reps; i++) {
                if (i + 1 < (size_t)fast_reps && rep[i + 1] == rep[i])
                    continue;
                while (j < (size_t)naive_reps && nrep[j] <= rep[i])
                    j++;
                double d = fabs((double)(i + 1) / fast_reps - (double)j / naive_reps);
                ks = d > ks ? d : ks;
            }
            CHECK_MSG(ks <= (TEST_SANITIZED ? 0.07 : 0.035), "fixture %zu (%s n=%zu): KS distance %.4f", f,
                      shape_name(fx[f].s), fx[f].n, ks);
            printf("fast vs naive, %-9s k=%2zu n=%5zu: KS distance of the replicates %.4f\n", shape_name(fx[f].s),
                   fx[f].k, fx[f].n, ks);
            free(nrep);
            free(rep);
            free(t);
            free(store);
            continue;
        }
        for (int side = 0; side < 2; side++) {
            double q = side ? 0.975 : 0.025, fb = side ? fi.raw_hi : fi.raw_lo, nb = side ? ni.raw_hi : ni.raw_lo;
            double se = sqrt(pow(quantile_se(rep, (size_t)fast_reps, q, fast_reps), 2) +
                             pow(quantile_se(rep, (size_t)fast_reps, q, naive_reps), 2));
            double tol = 4.0 * se;
            CHECK_MSG(tol <= (TEST_SANITIZED ? 0.25 : 0.10) * width,
                      "fixture %zu: tolerance %.3g is %.1f%% of the width", f, tol, 100 * tol / width);
            CHECK_MSG(fabs(fb - nb) <= tol, "fixture %zu (%s k=%zu n=%zu) %s bound: fast %.6g naive %.6g, tol %.3g", f,
                      shape_name(fx[f].s), fx[f].k, fx[f].n, side ? "upper" : "lower", fb, nb, tol);
            if (fabs(fb - nb) / width > worst)
                worst = fabs(fb - nb) / width;
        }
        printf("fast vs naive, %-9s k=%2zu n=%5zu: raw [%.5g, %.5g] vs [%.5g, %.5g], worst bound "
               "difference %.2f%% of the width\n",
               shape_name(fx[f].s), fx[f].k, fx[f].n, fi.raw_lo, fi.raw_hi, ni.raw_lo, ni.raw_hi, 100 * worst);
        free(rep);
        free(t);
        free(store);
    }
}

/* Coverage: a cell whose trials' true medians are mu * (1 + sigma_b N(0,1)), samples lognormal
 * (sigma sigma_w) around each trial's median. Returns the fraction of seeds whose interval covers mu;
 * *raw the same for the uncalibrated percentile interval, *mean_width the mean width / mu. */
static double coverage(size_t k, size_t n, double sigma_b, double sigma_w, int seeds, int reps, double *raw,
                       double *mean_width)
{
    const double mu = 10.0;
    double *store = malloc(k * n * sizeof *store);
    stats_trial *t = malloc(k * sizeof *t);
    int covered = 0, raw_covered = 0;
    *mean_width = 0;
    for (int s = 0; s < seeds; s++) {
        for (size_t j = 0; j < k; j++) {
            double *x = store + j * n, med = mu * (1.0 + sigma_b * test_normal());
            for (size_t i = 0; i < n; i++)
                x[i] = med * exp(sigma_w * test_normal());
            qsort(x, n, sizeof *x, cmp_d);
            t[j] = (stats_trial){x, n};
        }
        stats_interval ci;
        CHECK_INT(stats_hboot(t, k, reps, (uint64_t)s + 1, 0.95, &ci), 0);
        covered += ci.lo <= mu && mu <= ci.hi;
        raw_covered += ci.raw_lo <= mu && mu <= ci.raw_hi;
        *mean_width += (ci.hi - ci.lo) / mu / seeds;
    }
    *raw = (double)raw_covered / seeds;
    free(store);
    free(t);
    return (double)covered / seeds;
}

static void test_hboot_coverage(void)
{
    const int seeds = TEST_SANITIZED ? 300 : 2000, reps = TEST_SANITIZED ? 400 : 500;
    /* 93-97% at 2000 seeds is about +-4 binomial standard errors around 95%; 300 seeds get about
     * the same number of standard errors, 90-99%. (At 1000 seeds k = 3 drew 97.3% once: the band
     * is then only 2.9 standard errors wide.) */
    const double lo = TEST_SANITIZED ? 0.90 : 0.93, hi = TEST_SANITIZED ? 0.99 : 0.97;
    static const size_t ks[] = {3, 5, 10};
    double raw, width, cov;
    test_rng_state = 2026;
    /* The case the method is for: trials disagree (sd 5%) far more than one trial's median is
     * uncertain (lognormal sigma 0.2, n = 2000: sd of a trial median about 0.56%). */
    for (size_t i = 0; i < 3; i++) {
        cov = coverage(ks[i], 2000, 0.05, 0.2, seeds, reps, &raw, &width);
        printf("hierarchical bootstrap coverage, k=%2zu n=2000, between-trial sd 5%%, within 0.56%%: %.3f "
               "(uncalibrated %.3f) over %d seeds, mean width %.1f%% of mu\n",
               ks[i], cov, raw, seeds, 100 * width);
        CHECK_MSG(cov >= lo && cov <= hi, "k=%zu coverage %.3f", ks[i], cov);
    }
    /* Within-trial noise comparable to or larger than the between-trial spread is counted twice
     * (stats.h), so the interval is conservative there: it must not under-cover. */
    cov = coverage(5, 2000, 0.05, 0.5, seeds / 2, reps, &raw, &width);
    printf("hierarchical bootstrap coverage, k= 5 n=2000, between-trial sd 5%%, within 1.4%%: %.3f "
           "(conservative by design)\n",
           cov);
    CHECK_MSG(cov >= lo, "coverage %.3f", cov);
    cov = coverage(5, 2000, 0.0, 0.5, seeds / 2, reps, &raw, &width);
    printf("hierarchical bootstrap coverage, k= 5 n=2000, no between-trial variation: %.3f "
           "(conservative by design)\n",
           cov);
    CHECK_MSG(cov >= lo, "coverage %.3f", cov);
}

static void test_sort(void)
{
    static const size_t ns[] = {0, 1, 5, 63, 64, 1000, 100000};
    test_rng_state = 5150;
    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        size_t n = ns[c];
        double *v = malloc((n + 1) * sizeof *v), *w = malloc((n + 1) * sizeof *w);
        for (size_t i = 0; i < n; i++) {
            /* Mixed signs and magnitudes, infinities, zeros of both signs and many ties. */
            double u = test_unit();
            v[i] = u < 0.05   ? 0.0
                   : u < 0.08 ? -0.0
                   : u < 0.09 ? INFINITY
                   : u < 0.10 ? -INFINITY
                   : u < 0.40 ? floor(10 * test_normal())
                              : test_normal() * exp(20 * test_normal());
            w[i] = v[i];
        }
        CHECK_INT(stats_sort(v, n), 0);
        qsort(w, n, sizeof *w, cmp_d);
        int same = 1;
        for (size_t i = 0; i < n; i++)
            same &= v[i] == w[i];
        CHECK_MSG(same, "stats_sort differs from qsort at n=%zu", n);
        free(v);
        free(w);
    }
}

static void test_hboot_contracts(void)
{
    double x[] = {1, 2, 3, 4, 5, 6, 7}, y[] = {2, 4, 6, 8, 10, 12, 14};
    stats_trial a1 = {x, 7}, b1 = {y, 7}, a[3] = {{x, 7}, {x, 6}, {x + 1, 6}}, b[3] = {{y, 7}, {y, 6}, {y + 1, 6}};
    stats_interval ci, ci2;
    CHECK_NEAR(stats_lower_median(x, 7), 4.0, 0);
    CHECK_NEAR(stats_lower_median(x, 6), 3.0, 0); /* lower median, not the mean of 3 and 4 */
    CHECK(isnan(stats_lower_median(x, 0)));
    CHECK_STR(stats_ci_method_name(STATS_CI_TRIALS), "trials");
    CHECK_STR(stats_ci_method_name(STATS_CI_SAMPLES), "samples");

    /* k = 1: the order-statistic CI of the median, said so. */
    CHECK_INT(stats_hboot(&a1, 1, 100, 1, 0.95, &ci), 0);
    CHECK_INT(ci.method, STATS_CI_SAMPLES);
    CHECK_NEAR(ci.est, 4.0, 0);
    CHECK_NEAR(ci.lo, 1.0, 0); /* n = 7 at 95%: ranks 1, 7 */
    CHECK_NEAR(ci.hi, 7.0, 0);
    /* k = 3: estimate = median of the lower medians (4, 3, 4); deterministic per seed; calibrated. */
    CHECK_INT(stats_hboot(a, 3, 500, 5, 0.95, &ci), 0);
    CHECK_INT(stats_hboot(a, 3, 500, 5, 0.95, &ci2), 0);
    CHECK_NEAR(ci.est, 4.0, 1e-12);
    CHECK(ci.lo == ci2.lo && ci.hi == ci2.hi);
    CHECK_INT(ci.method, STATS_CI_TRIALS);
    CHECK_INT(ci.df, 2);
    CHECK(ci.lo <= ci.raw_lo && ci.raw_hi <= ci.hi);

    /* Ratio: b = 2a exactly, trial by trial: est 1, and every replicate ratio near 1 too. */
    CHECK_INT(stats_hboot_ratio(a, 3, b, 3, 500, 7, 0.95, &ci), 0);
    CHECK_NEAR(ci.est, 1.0, 1e-12);
    CHECK(ci.lo <= 1.0 && 1.0 <= ci.hi);
    CHECK_INT(ci.df, 2);
    CHECK_INT(stats_hboot_ratio(&a1, 1, b, 3, 500, 7, 0.95, &ci), 0);
    CHECK_INT(ci.method, STATS_CI_SAMPLES);
    /* Paired: the same rounds, b = 2a: every round's ratio is exactly 2 only when both redraws pick
     * the same rank, so the interval is around 1 but not a point. */
    CHECK_INT(stats_hboot_paired(a, b, 3, 500, 7, 0.95, &ci), 0);
    CHECK_NEAR(ci.est, 1.0, 1e-12);
    CHECK(ci.lo <= 1.0 && 1.0 <= ci.hi);
    CHECK_INT(stats_hboot_paired(a, b, 1, 500, 7, 0.95, &ci), 0);
    CHECK_INT(ci.method, STATS_CI_SAMPLES);

    double zero[3] = {0, 0, 0};
    stats_trial z = {zero, 3};
    errno = 0;
    CHECK_INT(stats_hboot_ratio(&z, 1, &b1, 1, 10, 1, 0.95, &ci), -1);
    CHECK_INT(errno, EDOM);
    errno = 0;
    CHECK_INT(stats_hboot(a, 0, 10, 1, 0.95, &ci), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(stats_hboot(NULL, 3, 10, 1, 0.95, &ci), -1);
    CHECK_INT(stats_hboot(a, 3, 0, 1, 0.95, &ci), -1);
    CHECK_INT(stats_hboot(a, 3, 10, 1, 1.0, &ci), -1);
    CHECK_INT(stats_hboot(a, 3, 10, 1, 0.95, NULL), -1);
    stats_trial empty = {x, 0};
    CHECK_INT(stats_hboot(&empty, 1, 10, 1, 0.95, &ci), -1);
    CHECK_INT(stats_hboot_paired(a, NULL, 3, 10, 1, 0.95, &ci), -1);
}

/* With the argument "coverage" only the coverage study runs (its own CTest entry, test_stats_coverage,
 * so that each stays well under 20 s); without arguments everything else. */
/* A ratio's interval is widened on the log scale: however skewed the rounds and however few, its
 * lower bound stays above -100% (widened linearly, a k = 2 paired pair once reached -329%); a
 * positive quantity's stays above 0. */
static void test_ratio_interval_bounds(void)
{
    double a1[] = {9.9, 10.0, 10.1}, a2[] = {9.9, 10.0, 10.1};
    double b1[] = {0.4, 0.5, 0.6}, b2[] = {8.9, 9.0, 9.1};
    stats_trial a[] = {{a1, 3}, {a2, 3}}, b[] = {{b1, 3}, {b2, 3}};
    stats_interval iv;
    CHECK(stats_hboot_paired(a, b, 2, 2000, 7, 0.95, &iv) == 0);
    CHECK(iv.method == STATS_CI_TRIALS && iv.scale > 2.0);
    CHECK_MSG(iv.lo > -1.0 && iv.lo <= iv.raw_lo && iv.raw_lo < iv.est, "lo %g raw_lo %g est %g", iv.lo, iv.raw_lo,
              iv.est);
    CHECK(iv.hi >= iv.raw_hi && iv.raw_hi > iv.est);
    CHECK(stats_hboot_ratio(a, 2, b, 2, 2000, 7, 0.95, &iv) == 0);
    CHECK_MSG(iv.lo > -1.0 && iv.lo <= iv.raw_lo, "lo %g raw_lo %g", iv.lo, iv.raw_lo);
    /* A positive quantity likewise: two trials far apart (a slow stretch at 1 MiB) once gave a
     * latency interval below 0. */
    CHECK(stats_hboot(b, 2, 2000, 7, 0.95, &iv) == 0);
    CHECK_MSG(iv.lo > 0 && iv.lo <= iv.raw_lo && iv.hi >= iv.raw_hi, "lo %g raw_lo %g", iv.lo, iv.raw_lo);
}

/* A cell's trial spread comes from the trial medians its p50 combines. For a rate those are the lower
 * medians of each trial's reciprocals; a trial of two samples has the faster one as its median, so the
 * p50 lies within [trial_p50_min, trial_p50_max] (before, the spread took the slower sample of each
 * trial and a rate's p50 could exceed its trial_p50_max). Times keep the lower median of the samples. */
static void test_trial_spread(void)
{
    double a[2] = {1.0, 1.2}, b[2] = {1.1, 1.3}, c[2] = {0.9, 1.05}; /* GB/s, two samples a trial */
    const stats_trial t[3] = {{a, 2}, {b, 2}, {c, 2}};
    verdict_cell rate, time;
    CHECK(verdict_cell_interval(t, 3, 1, &rate) == 0);
    CHECK_MSG(rate.trial_p50_min == 1.05 && rate.trial_p50_max == 1.3, "rate spread %g - %g, not 1.05 - 1.3",
              rate.trial_p50_min, rate.trial_p50_max);
    CHECK_MSG(rate.p50 >= rate.trial_p50_min && rate.p50 <= rate.trial_p50_max, "rate p50 %g outside %g - %g", rate.p50,
              rate.trial_p50_min, rate.trial_p50_max);
    CHECK_MSG(fabs(rate.p50 - 1.2) < 1e-12, "rate p50 %g, not the median of the trial medians 1.2", rate.p50);
    CHECK(verdict_cell_interval(t, 3, 0, &time) == 0);
    CHECK_MSG(time.trial_p50_min == 0.9 && time.trial_p50_max == 1.1, "time spread %g - %g, not 0.9 - 1.1",
              time.trial_p50_min, time.trial_p50_max);
    CHECK_MSG(time.p50 >= time.trial_p50_min && time.p50 <= time.trial_p50_max, "time p50 %g outside %g - %g", time.p50,
              time.trial_p50_min, time.trial_p50_max);
}

/* The verdicts on an overhead are decided from its interval alone (verdict.h): speed needs an interval
 * clear of 0 and an effect of at least the minimum; the claim's verdict places the interval against
 * the bounds, and the printed band is made from the same two numbers. */
static void test_verdicts(void)
{
    CHECK_INT(verdict_speed_of(0.20, 0.10, 0.30, 0.05), VERDICT_SLOWER);
    CHECK_INT(verdict_speed_of(0.03, 0.01, 0.05, 0.05), VERDICT_SAME);  /* real but under the minimum effect */
    CHECK_INT(verdict_speed_of(0.20, -0.01, 0.40, 0.05), VERDICT_SAME); /* large but the interval holds 0 */
    CHECK_INT(verdict_speed_of(-0.20, -0.30, -0.10, 0.05), VERDICT_FASTER);
    CHECK_INT(verdict_speed_of(-0.04, -0.06, -0.02, 0.05), VERDICT_SAME);
    CHECK_INT(verdict_claim_of(0.12, 0.28), VERDICT_INSIDE);
    CHECK_INT(verdict_claim_of(0.01, 0.09), VERDICT_BELOW);
    CHECK_INT(verdict_claim_of(0.31, 5.00), VERDICT_ABOVE);
    CHECK_INT(verdict_claim_of(0.05, 0.20), VERDICT_STRADDLES_LO);
    CHECK_INT(verdict_claim_of(0.05, 0.50), VERDICT_STRADDLES_LO);
    CHECK_INT(verdict_claim_of(0.20, 0.40), VERDICT_STRADDLES_HI);
    CHECK_INT(verdict_claim_of(VERDICT_CLAIM_LO, VERDICT_CLAIM_HI), VERDICT_INSIDE); /* the bounds belong to it */
    CHECK(VERDICT_CLAIM_LO == 0.10 && VERDICT_CLAIM_HI == 0.30);
    CHECK_STR(VERDICT_CLAIM_LABEL, "10–30 %");
    CHECK_STR(VERDICT_CLAIM_LO_LABEL, "10 %");
    CHECK_STR(VERDICT_CLAIM_HI_LABEL, "30 %");
    char band[32];
    CHECK_STR(verdict_claim_ratio(band, sizeof band), "1.1–1.3×"); /* the same band as fallback / native */
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "coverage") == 0) {
        test_hboot_coverage();
        CHECK_DONE();
    }
    test_percentiles();
    test_median_ci();
    test_median_ci_coverage();
    test_summarize();
    test_stopper();
    test_bootstrap();
    test_t_quantile();
    test_sort();
    test_hboot_contracts();
    test_fast_draw_law();
    test_fast_vs_naive();
    test_ratio_interval_bounds();
    test_trial_spread();
    test_verdicts();
    CHECK_DONE();
}
