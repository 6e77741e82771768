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
    size_t min_samples;  /* never stop before this many */
    double min_seconds;  /* nor before this much measuring time */
    double max_seconds;  /* stop at this time whatever the CI: the per-cell cap */
    size_t max_samples;  /* stop at this count whatever the CI */
    double rel_ci_width; /* converged when (ci_hi - ci_lo) / median <= this, e.g. 0.01 */
} stats_rule;

typedef enum stats_stop {
    STATS_CONTINUE = 0,
    STATS_CONVERGED, /* the CI of the median is narrow enough */
    STATS_TIME_CAP,  /* max_seconds reached first */
    STATS_COUNT_CAP  /* max_samples reached first */
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
stats_stop stats_should_stop(stats_stopper *st, const stats_rule *rule, const double *x, size_t n, double elapsed_s);

/* Bootstrap (reps resamples with a seeded generator) of median(b)/median(a) - 1, the overhead of b
 * over a. *est is the point estimate from the full samples; [*lo, *hi] the percentile interval at
 * level conf. Returns 0, or -1 with errno set (EINVAL for empty or NULL inputs, NaN samples, reps < 1
 * or conf outside (0,1); EDOM when a median of a, full or resampled, is 0; ENOMEM). Deterministic
 * for a given seed (xoshiro256**, not rand()); medians by selection, O((na + nb) * reps). */
int stats_bootstrap_overhead(const double *a, size_t na, const double *b, size_t nb, int reps, uint64_t seed,
                             double conf, double *est, double *lo, double *hi);

/* ------------------------------------------------------------------------------------------------
 * Trial-level statistics.
 *
 * A cell is measured in k independent trials (fresh ring, fresh kernel launch), each with its own
 * samples. The statistic of a trial is its lower median x_(m), m = ceil(n/2) of its n sorted samples
 * (an order statistic, so that a bootstrap draw of it is exact and O(1), below). The cell's estimate
 * is the MEDIAN of its trial medians (the mean of the middle two for even k). Not their mean: on the
 * H100 a time-localised slowdown of the whole machine (~10x for ~15 s) can hit one or two of a
 * cell's five trials, and with the mean one such trial moved a cell by up to 5x between two
 * otherwise identical runs (docs/decisions/0001-trials-spread-over-the-run.md; the median of the trials
 * moved it by 2%).
 *
 * Its interval is a hierarchical bootstrap: each replicate draws k trials with replacement, redraws
 * the median of each drawn trial from that trial's own samples, and takes the median of those; the
 * interval is the percentile interval of the replicates at level conf, then CALIBRATED for the small
 * k: widened about the estimate (each side separately) by
 *     c_k = t_{k-1, (1+conf)/2} / z_{(1+conf)/2}   (c_3 = 2.20, c_5 = 1.42, c_10 = 1.15).
 * Why: a percentile bootstrap over a handful of units under-covers: uncalibrated, a nominal 95%
 * interval covers the truth 81% of the time at k = 3, 93% at k = 5, 94% at k = 10
 * (test_stats_coverage, normal trial effects of 5%); calibrated, the same study measures 94.1%,
 * 96.7% and 95.6%. (For the mean of the trials the factor would carry a further sqrt(k/(k-1)); for
 * their median that over-covers, 97.5% at k = 5, because the bootstrap of a median of k already
 * spreads wider than that of their mean.) The factor was checked by simulation, not derived.
 * The within-trial redraw counts within-trial noise a second time (it is already in the spread of the
 * trial medians), so the interval is conservative (wider than 95%) when one trial's median is about
 * as uncertain as the trials disagree; when trials disagree much more, the situation it exists for
 * (runs differing by 10% while each trial's median is known to 1%), coverage is nominal.
 *
 * The fast within-trial draw: the median of a bootstrap resample of n sorted values is x_(J) with
 * J = ceil(n U), U ~ Beta(m, n+1-m) (the m-th order statistic of n uniforms: the resample draws index
 * ceil(n V_i) for n uniforms V_i, and ceil is monotone). A Beta variate is two Gamma variates
 * (Marsaglia-Tsang) from the seeded xoshiro256** generator, so each draw is O(1) after one sort, and
 * the result has exactly the distribution of the naive draw (stats_hboot_naive resamples n values and
 * selects, the slow reference the test compares against).
 *
 * With k = 1 there is no between-trial information: the interval is then the within-trial
 * order-statistic CI of the median (stats_median_ci), method STATS_CI_SAMPLES, which says nothing
 * about what another run would see; the comparisons below fall back in the same way.
 * ------------------------------------------------------------------------------------------------ */

/* One trial: its samples ascending, no NaN (the caller sorts once and keeps them). */
typedef struct stats_trial {
    const double *sorted;
    size_t n;
} stats_trial;

typedef enum stats_ci_method {
    STATS_CI_TRIALS = 0, /* hierarchical bootstrap over trials, calibrated */
    STATS_CI_SAMPLES     /* one trial: within-trial (sample-level) interval only */
} stats_ci_method;

/* "trials" or "samples": the same words as the results schema's ci_method column. */
const char *stats_ci_method_name(stats_ci_method m);

/* The replicates and seed every trial-level interval of ringbench is made with: the runner's rows
 * and the reports use the same, so a row's interval and the report's agree. */
#define STATS_HBOOT_REPS 2000
#define STATS_HBOOT_SEED 20261122u

typedef struct stats_interval {
    double est;            /* the point estimate */
    double lo, hi;         /* the interval at level conf (calibrated when method is TRIALS) */
    double raw_lo, raw_hi; /* the percentile bootstrap bounds before calibration (= lo, hi when
                            * no calibration applied) */
    double scale;          /* the calibration factor c applied (1 when none) */
    int df;                /* degrees of freedom of the calibration (0 when none) */
    stats_ci_method method;
} stats_interval;

/* Sorts v[0..n) ascending (no NaN; -0.0 before +0.0) by an LSD radix sort on the IEEE bits, O(n):
 * the one sort of every trial that report and compare need, several times faster than qsort for the
 * ~10^7 samples of a run. Returns 0, or -1 (errno ENOMEM) when its scratch cannot be allocated, in
 * which case it falls back to qsort and v is still sorted. */
int stats_sort(double *v, size_t n);

/* Lower median x_(ceil(n/2)) of an ascending array; NAN when n is 0 or sorted is NULL. */
double stats_lower_median(const double *sorted, size_t n);

/* The median of v[0..n), n >= 1, no NaN (the mean of the middle two when n is even), by selection:
 * reorders v, sorts nothing. */
double stats_median_select(double *v, size_t n);

/* Student t quantile: the x with P(T_df <= x) = p, for p in (0,1) and df >= 1; accurate to 1e-6
 * (exact CDF series and bisection up to df 1000, a Cornish-Fisher expansion beyond). NAN for p
 * outside (0,1) or df < 1. */
double stats_t_quantile(double p, int df);

/* The calibration factor c_k above for k units at level conf (1 for k < 2). */
double stats_small_k_factor(size_t k, double conf);

/* Hierarchical bootstrap of a cell's k trials (see above): reps replicates, seeded (xoshiro256**),
 * deterministic for a given seed. Every trial must have n >= 1. Returns 0, or -1 with errno set
 * (EINVAL for NULL or empty input, k = 0, reps < 1 or conf outside (0,1); ENOMEM). With k = 1 the
 * result is the within-trial CI (method SAMPLES, est the lower median) and reps is not used. */
int stats_hboot(const stats_trial *t, size_t k, int reps, uint64_t seed, double conf, stats_interval *out);

/* The same with the naive within-trial draw (n values resampled, the lower median selected): the
 * slow reference, O(n) per draw, for tests. Same contract. */
int stats_hboot_naive(const stats_trial *t, size_t k, int reps, uint64_t seed, double conf, stats_interval *out);

/* The raw replicates of the hierarchical bootstrap (fast draw when naive is 0), unsorted, into
 * out[0..reps), for tests and diagnostics. With k = 1 they are bootstrap medians of the one trial.
 * Returns 0, or -1 with errno set as stats_hboot. */
int stats_hboot_replicates(const stats_trial *t, size_t k, int reps, uint64_t seed, int naive, double *out);

/* Two independent runs (or cells) a and b: est = est(b) / est(a) - 1 (positive: b is larger), with
 * the percentile interval of replicate ratios from independent hierarchical bootstraps of both sides,
 * calibrated with df = min(ka, kb) - 1. When min(ka, kb) = 1 the replicates redraw only within
 * trials and no calibration is applied (method SAMPLES): the interval then reflects sample noise
 * only. Returns 0, or -1 with errno set (as stats_hboot; EDOM when est(a) or a replicate of it is 0). */
int stats_hboot_ratio(const stats_trial *a, size_t ka, const stats_trial *b, size_t kb, int reps, uint64_t seed,
                      double conf, stats_interval *out);

/* Paired rounds within one run: a[j] and b[j] were measured back to back in round j. est = est(b) /
 * est(a) - 1, the same estimate as stats_hboot_ratio (each side the median of its trial medians); the
 * replicates resample round pairs with replacement, redraw both medians of each drawn pair, and take
 * the ratio of the two sides' medians, so what the rounds share cancels; calibrated with df = k - 1.
 * k = 1: within-trial redraws only, no calibration (method SAMPLES). Returns 0, or -1 with errno as
 * stats_hboot_ratio. */
int stats_hboot_paired(const stats_trial *a, const stats_trial *b, size_t k, int reps, uint64_t seed, double conf,
                       stats_interval *out);

#endif
