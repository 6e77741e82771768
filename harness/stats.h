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

/* Percentile p in [0,100] (clamped to it) of an ascending array, type 7: linear interpolation at
 * rank (n-1)*p/100. Returns NAN when n is 0, sorted is NULL or p is NaN. */
double stats_percentile_sorted(const double *sorted, size_t n, double p);

/* Distribution-free confidence interval (conf in (0,1), e.g. 0.95) of the median of an ascending
 * array, from binomial order statistics. Returns 0, or -1 (errno EINVAL) when n < 1 or conf is out of
 * range; for very small n the interval is [min, max]. */
int stats_median_ci(const double *sorted, size_t n, double conf, double *lo, double *hi);

/* The 1-based order-statistic ranks [*lo_rank, *hi_rank] that stats_median_ci uses for n samples:
 * the narrowest symmetric pair x_(l), x_(n+1-l) whose coverage 1 - 2 P(Binomial(n, 1/2) <= l-1) is
 * at least conf, computed exactly for every n (n = 100 at 0.95 gives 40, 61). When no pair reaches
 * conf (n <= 5 at 0.95) it is 1, n: [min, max]. Needs no data, so a run can be planned or a report
 * can name the ranks. Returns 0, or -1 (errno EINVAL) when n < 1, conf is not in (0,1) or a pointer
 * is NULL. */
int stats_median_ci_ranks(size_t n, double conf, size_t *lo_rank, size_t *hi_rank);

/* Summarises x[0..n) (not modified; a sorted copy is made). Returns 0, or -1 with errno set
 * (EINVAL for n == 0 or NULL, ENOMEM). NaN samples are rejected with EINVAL. With n == 1 the
 * stddev is NaN (undefined), the CI is [x0, x0]. */
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

/* State of the stopping rule for one cell: a scratch copy of the samples it sorts at checkpoints. */
typedef struct stats_stopper {
    double *scratch;
    size_t cap;
    size_t next_check;
} stats_stopper;
/* Makes *st an empty stopper (no scratch yet; the first call past the minimums is a checkpoint). */
void stats_stopper_init(stats_stopper *st);
/* Releases the scratch and leaves *st as after init, so it may be reused or freed again. */
void stats_stopper_free(stats_stopper *st);
/* Decides whether to stop after n samples and elapsed_s seconds. Cheap to call every sample: it
 * re-sorts (a scratch copy it owns in *st) only every so often, at checkpoints ~25% apart, and
 * otherwise costs O(1); x[0..n) is read only at a checkpoint.
 *
 * The order of the rule: (1) never stop while n < min_samples or elapsed_s < min_seconds, unless
 * elapsed_s >= max_seconds (the time cap bounds every cell, so a sweep always ends; the count cap
 * does not override the minimums); (2) at a checkpoint, or at any call
 * where a cap is reached, check convergence of the 95% median CI, (ci_hi - ci_lo) / median <=
 * rel_ci_width with median > 0, and return STATS_CONVERGED if it holds; (3) else STATS_TIME_CAP if
 * elapsed_s >= max_seconds; (4) else STATS_COUNT_CAP if n >= max_samples; (5) else STATS_CONTINUE.
 * Caps are taken literally: 0 is not "no cap". With st or rule NULL (or x NULL with n > 0) it
 * returns STATS_CONTINUE and sets errno EINVAL; if the scratch cannot grow it skips that convergence
 * check (errno ENOMEM) and the caps still end the cell. */
stats_stop stats_should_stop(stats_stopper *st, const stats_rule *rule, const double *x, size_t n,
                             double elapsed_s);

/* Bootstrap (reps resamples with a seeded generator) of median(b)/median(a) - 1, the overhead of b
 * over a. *est is the point estimate from the full samples; [*lo, *hi] the percentile interval at
 * level conf. Returns 0, or -1 with errno set (EINVAL for empty or NULL inputs, NaN samples, reps < 1
 * or conf outside (0,1); EDOM when a median of a, full or resampled, is 0; ENOMEM). Deterministic
 * for a given seed (xoshiro256**, not rand()); medians by selection, O((na + nb) * reps). */
int stats_bootstrap_overhead(const double *a, size_t na, const double *b, size_t nb, int reps,
                             uint64_t seed, double conf, double *est, double *lo, double *hi);

#endif
