/* test_stats.c - harness/stats.c against answers known independently of it.
 *
 * Percentiles are checked against numbers worked out with numpy's type-7 definition in plain Python;
 * the median CI against order-statistic ranks from exact Binomial(n, 1/2) sums in Python integers,
 * and against its promised coverage on simulated exponential data; the stopping rule through the
 * reason and the sample count at which it stops; the bootstrap on data with a known overhead.
 * Run: ctest --test-dir build -R test_stats --output-on-failure
 */
#include "check.h"
#include "stats.h"

#include <errno.h>
#include <stdint.h>

/* The test's own generator, independent of the one inside stats.c, so a shared bug cannot hide. */
static uint64_t test_rng_state;

static uint64_t test_next(void) {
    uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Exponential(1) by inversion; u is in (0, 1], so the log is finite. */
static double test_exp(void) {
    double u = ((double)(test_next() >> 11) + 1.0) / 9007199254740992.0;
    return -log(u);
}

/* ln 2, the median of Exponential(1) (M_LN2 is POSIX, not C11). */
static const double LN2 = 0.69314718055994530942;

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------------------------------------ */

static void test_percentiles(void) {
    double v[100];
    for (int i = 0; i < 100; i++) v[i] = i + 1;
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
static void check_ci_ranks(size_t n, double conf, double want_lo, double want_hi) {
    double *x = malloc(n * sizeof *x), lo = -1, hi = -1;
    for (size_t i = 0; i < n; i++) x[i] = (double)(i + 1);
    CHECK_INT(stats_median_ci(x, n, conf, &lo, &hi), 0);
    CHECK_MSG(lo == want_lo && hi == want_hi, "n=%zu conf=%g: [%g, %g], want [%g, %g]", n, conf, lo,
              hi, want_lo, want_hi);
    free(x);
}

static void test_median_ci(void) {
    /* Ranks from exact sums of C(n, j) / 2^n in Python integers: the largest l with
     * P(K <= l-1) <= (1-conf)/2, and n+1-l. */
    check_ci_ranks(100, 0.95, 40, 61);
    check_ci_ranks(100, 0.99, 37, 64);
    check_ci_ranks(10, 0.95, 2, 9);
    check_ci_ranks(9, 0.95, 2, 8);
    check_ci_ranks(6, 0.95, 1, 6);
    check_ci_ranks(5, 0.95, 1, 5);   /* [min, max] cannot reach 95%; still [min, max] */
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
static void test_median_ci_coverage(void) {
    enum { TRIALS = 2000, N = 101 };
    double x[N];
    int covered = 0;
    test_rng_state = 12345;
    for (int t = 0; t < TRIALS; t++) {
        for (int i = 0; i < N; i++) x[i] = test_exp();
        qsort(x, N, sizeof *x, cmp_d);
        double lo, hi;
        CHECK_INT(stats_median_ci(x, N, 0.95, &lo, &hi), 0);
        covered += lo <= LN2 && LN2 <= hi;
    }
    double cov = (double)covered / TRIALS;
    printf("median CI coverage, n=%d, 95%%: %.4f (exact 0.9540)\n", N, cov);
    CHECK_MSG(cov >= 0.93 && cov <= 0.97, "coverage %.4f", cov);
}

static void test_summarize(void) {
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
    CHECK_NEAR(s.p90, 7.6, 1e-12);     /* numpy: 7.6 */
    CHECK_NEAR(s.p99, 8.86, 1e-12);    /* numpy: 8.86 */
    CHECK_NEAR(s.p999, 8.986, 1e-12);  /* numpy: 8.986 */
    CHECK_NEAR(s.mean, 5.0, 1e-12);
    CHECK_NEAR(s.stddev, 2.138089935299395, 1e-12); /* statistics.stdev */
    CHECK_NEAR(s.ci_lo, 2.0, 0);       /* n = 8 at 95%: ranks 1, 8 */
    CHECK_NEAR(s.ci_hi, 9.0, 0);

    /* 1..100 shuffled: the percentiles above, and ranks 40, 61 for the CI. */
    double w[100];
    for (int i = 0; i < 100; i++) w[i] = (double)((i * 37) % 100 + 1);
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

static void fill_noisy(size_t from, size_t to) {
    for (size_t i = from; i < to; i++) samples[i] = test_exp();
}

static void fill_steady(size_t from, size_t to) {
    for (size_t i = from; i < to; i++) samples[i] = 100.0 + 0.001 * (double)(i % 7);
}

/* Feeds samples 1..limit to the rule, from a given stopper; returns the reason and *at the n where
 * it stopped (limit when it did not). */
static stats_stop run_rule(stats_stopper *st, const stats_rule *r, size_t from, size_t limit,
                           size_t *at) {
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

static stats_stop run_fresh(const stats_rule *r, size_t limit, size_t *at) {
    stats_stopper st;
    stats_stopper_init(&st);
    stats_stop s = run_rule(&st, r, 1, limit, at);
    stats_stopper_free(&st);
    return s;
}

static void test_stopper(void) {
    size_t at;
    test_rng_state = 777;
    CHECK_STR(stats_stop_name(STATS_CONTINUE), "continue");
    CHECK_STR(stats_stop_name(STATS_CONVERGED), "converged");
    CHECK_STR(stats_stop_name(STATS_TIME_CAP), "time_cap");
    CHECK_STR(stats_stop_name(STATS_COUNT_CAP), "count_cap");

    /* Steady samples converge at the first moment both minimums hold: here min_samples... */
    fill_steady(0, MAXN);
    stats_rule r = {.min_samples = 1000, .min_seconds = 0.5, .max_seconds = 60, .max_samples = MAXN,
                    .rel_ci_width = 0.01};
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_CONVERGED);
    CHECK_INT(at, 1000);
    /* ...and here min_seconds (1 s = 1024 samples). */
    r.min_samples = 10;
    r.min_seconds = 1.0;
    CHECK_INT(run_fresh(&r, MAXN, &at), STATS_CONVERGED);
    CHECK_INT(at, 1024);

    /* Exponential samples need ~3e5 samples for a 1% CI; the 2 s cap (2048 samples) comes first. */
    fill_noisy(0, MAXN);
    r = (stats_rule){.min_samples = 100, .min_seconds = 0.1, .max_seconds = 2.0, .max_samples = MAXN,
                     .rel_ci_width = 0.01};
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
        stats_rule slow = {.min_samples = 1000000, .min_seconds = 0, .max_seconds = 1.0,
                           .max_samples = 100000000, .rel_ci_width = 0.01};
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
    r = (stats_rule){.min_samples = 500, .min_seconds = 0, .max_seconds = 1e9, .max_samples = 520,
                     .rel_ci_width = 0.01};
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
    r = (stats_rule){.min_samples = 1000, .min_seconds = 0, .max_seconds = 1e9, .max_samples = MAXN,
                     .rel_ci_width = 0.01};
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
    for (size_t i = 0; i < 4000; i++) samples[i] = 0.0;
    r = (stats_rule){.min_samples = 100, .min_seconds = 0, .max_seconds = 1e9, .max_samples = 3000,
                     .rel_ci_width = 0.5};
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

static void test_bootstrap(void) {
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

int main(void) {
    test_percentiles();
    test_median_ci();
    test_median_ci_coverage();
    test_summarize();
    test_stopper();
    test_bootstrap();
    CHECK_DONE();
}
