/* stats.h - summary statistics of latency samples, the adaptive stopping rule and bootstrap.
 *
 * Every measurement in ringbench is summarised here, so percentiles, confidence intervals and the
 * rule that decides when a cell has enough samples are defined once (see README "How measurements
 * are taken"). Percentiles use linear interpolation between order statistics (type 7, as numpy's
 * default). The median's confidence interval is distribution-free, from binomial order statistics.
 */
#ifndef RINGBENCH_STATS_H
#define RINGBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct stats_summary {
    size_t n;
    double min, p50, p90, p99, p999, max, mean, stddev; /* stddev: sample (n-1) */
    double ci_lo, ci_hi;                                /* 95% CI of the median */
} stats_summary;

/* Percentile p in [0,100] of an ascending array. Returns NAN when n is 0. */
double stats_percentile_sorted(const double *sorted, size_t n, double p);

/* Distribution-free confidence interval (conf in (0,1), e.g. 0.95) of the median of an ascending
 * array, from binomial order statistics. Returns 0, or -1 (errno EINVAL) when n < 1 or conf is out of
 * range; for very small n the interval is [min, max]. */
int stats_median_ci(const double *sorted, size_t n, double conf, double *lo, double *hi);

/* Summarises x[0..n) (not modified; a sorted copy is made). Returns 0, or -1 with errno set
 * (EINVAL for n == 0 or NULL, ENOMEM). NaN samples are rejected with EINVAL. */
int stats_summarize(const double *x, size_t n, stats_summary *out);

/* The adaptive stopping rule of every latency cell. */
typedef struct stats_rule {
    size_t min_samples;   /* never stop before this many */
    double min_seconds;   /* nor before this much measuring time */
    double max_seconds;   /* stop at this time whatever the CI: the per-cell cap */
    size_t max_samples;   /* stop at this count whatever the CI */
    double rel_ci_width;  /* converged when (ci_hi - ci_lo) / median <= this, e.g. 0.01 */
} stats_rule;

typedef enum stats_stop {
    STATS_CONTINUE = 0,
    STATS_CONVERGED,      /* the CI of the median is narrow enough */
    STATS_TIME_CAP,       /* max_seconds reached first */
    STATS_COUNT_CAP       /* max_samples reached first */
} stats_stop;

/* Stable names for the stop reasons ("converged", "time_cap", "count_cap", "continue"). */
const char *stats_stop_name(stats_stop s);

/* Decides whether to stop after n samples and elapsed_s seconds. Cheap to call every sample: it
 * re-sorts (a scratch copy it owns in *st) only every so often, at doubling-ish checkpoints. */
typedef struct stats_stopper {
    double *scratch;
    size_t cap;
    size_t next_check;
} stats_stopper;
void stats_stopper_init(stats_stopper *st);
void stats_stopper_free(stats_stopper *st);
stats_stop stats_should_stop(stats_stopper *st, const stats_rule *rule, const double *x, size_t n,
                             double elapsed_s);

/* Bootstrap (reps resamples with a seeded generator) of median(b)/median(a) - 1, the overhead of b
 * over a. *est is the point estimate from the full samples; [*lo, *hi] the percentile interval at
 * level conf. Returns 0, or -1 with errno set (EINVAL for empty inputs, ENOMEM). Deterministic for a
 * given seed. */
int stats_bootstrap_overhead(const double *a, size_t na, const double *b, size_t nb, int reps,
                             uint64_t seed, double conf, double *est, double *lo, double *hi);

#endif
