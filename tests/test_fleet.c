/* test_fleet.c - the fleet's reading of a history (harness/fleet.h) on its pure functions: a night's
 * cross-platform ratio (a time's and a rate's, on time; its interval from the two sides' in log
 * space), the native run nearest in time (ties: the earlier), and the start times it parses. The whole
 * of it, on a history of two machines, is tests/fleet_cli.sh's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fleet.h"

static hist_headline fig(int rate, double native, double nlo, double nhi, double fallback, double flo, double fhi)
{
    hist_headline x;
    memset(&x, 0, sizeof x);
    snprintf(x.key, sizeof x.key, "cb_read");
    x.rate = rate;
    x.value[HL_NATIVE] = native, x.lo[HL_NATIVE] = nlo, x.hi[HL_NATIVE] = nhi;
    x.value[HL_FALLBACK] = fallback, x.lo[HL_FALLBACK] = flo, x.hi[HL_FALLBACK] = fhi;
    return x;
}

static void test_ratio(void)
{
    double est, lo, hi;
    /* A time: WSL2's fallback 30 us over native's native 10 us is 3x; the native machine's fallback
     * (999) and the WSL2 machine's native side (1) are not part of it. */
    const double e = exp(1.0);
    hist_headline w = fig(0, 1, 0.9, 1.1, 30, 30 / e, 30 * e), n = fig(0, 10, 10 / e, 10 * e, 999, 900, 1100);
    CHECK(fleet_cross_ratio(&w, &n, &est, &lo, &hi) == 0);
    CHECK_MSG(fabs(est - 3) < 1e-12, "time ratio %g", est);
    /* Each side +-1 in log space at 95 %: se = 1 / 1.96 each, sqrt(2) / 1.96 together. */
    CHECK_MSG(fabs(log(hi / est) - sqrt(2)) < 1e-9 && fabs(log(est / lo) - sqrt(2)) < 1e-9, "interval [%g, %g]", lo,
              hi);
    /* A rate: native 40 GB/s, WSL2 fallback 10 GB/s: 4x as long per byte. */
    w = fig(1, NAN, NAN, NAN, 10, 9, 11);
    n = fig(1, 40, 38, 42, NAN, NAN, NAN);
    CHECK(fleet_cross_ratio(&w, &n, &est, &lo, &hi) == 0);
    CHECK_MSG(fabs(est - 4) < 1e-12 && lo < 4 && hi > 4, "rate ratio %g [%g, %g]", est, lo, hi);
    /* No interval on a side: the ratio, without one. */
    w = fig(0, NAN, NAN, NAN, 6, NAN, NAN);
    n = fig(0, 2, 1.9, 2.1, NAN, NAN, NAN);
    CHECK(fleet_cross_ratio(&w, &n, &est, &lo, &hi) == 0 && fabs(est - 3) < 1e-12 && isnan(lo) && isnan(hi));
    /* A side not measured: no ratio. */
    w = fig(0, 1, 1, 1, NAN, NAN, NAN);
    CHECK(fleet_cross_ratio(&w, &n, &est, &lo, &hi) == -1 && isnan(est));
}

static void test_nearest_and_times(void)
{
    CHECK(fleet_parse_utc("1970-01-01T00:00:00Z") == 0);
    CHECK(fleet_parse_utc("2026-08-01T00:00:00Z") == 1785542400);
    CHECK(fleet_parse_utc("2024-02-29T12:30:15Z") == 1709209815);
    CHECK(fleet_parse_utc("2026-08-01 00:00") == 0 && fleet_parse_utc("") == 0);
    fleet_run runs[4];
    memset(runs, 0, sizeof runs);
    const time_t day = 86400;
    runs[0].start = 10 * day, runs[1].start = 11 * day, runs[2].start = 12 * day, runs[3].start = 20 * day;
    const size_t idx[4] = {0, 1, 2, 3};
    CHECK(fleet_nearest(runs, idx, 4, 11 * day + 3600) == 1);
    CHECK(fleet_nearest(runs, idx, 4, 11 * day + day / 2) == 1); /* a tie: the earlier */
    CHECK(fleet_nearest(runs, idx, 4, 30 * day) == 3);
    CHECK(fleet_nearest(runs, idx, 4, 0) == 0);
    const size_t some[2] = {0, 3}; /* only the machine's complete runs are candidates */
    CHECK(fleet_nearest(runs, some, 2, 12 * day) == 0);
}

int main(void)
{
    test_ratio();
    test_nearest_and_times();
    CHECK_DONE();
}
