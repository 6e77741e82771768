/* verdict.h - the decisions made from intervals, beside the statistics they use (stats.h): the
 * interval a cell reports, how two rows are compared (paired or not), and the verdicts on an overhead
 * (its speed: slower, faster or the same within noise; against the claim: inside, below, above or
 * straddling). Verdicts are enums; their words are printed from one table at the edge
 * (plots/report_verdict.c, report_speed_name and report_claim_name).
 *
 * A cell's p50 and interval (verdict_cell_interval) are the median of its trial lower medians with the
 * hierarchical bootstrap over trials, calibrated for their number, with the same method and seed that
 * report and compare use. A rate (GB/s) is bootstrapped as time per byte and turned back. One trial:
 * the order-statistic CI of its samples (method SAMPLES).
 *
 * An overhead of B over A is est(B)/est(A) - 1 with a 95% interval: paired rounds when both rows are
 * one file's rows measured in the same rounds (verdict_pairable), independent hierarchical bootstraps
 * otherwise (verdict_overhead). "slower" or "faster" need an interval that excludes 0 and an overhead
 * of at least the minimum effect; against the claim under test (REFERENCE.md: the WSL2 fallback path is
 * "10-30% slower for control block operations") an interval is inside, below, above or straddling.
 *
 * bench/sweep.c uses the cell interval; plots/report_verdict.c renders the verdicts' words. Tests:
 * tests/test_stats.c (the bootstraps), tests/test_report.c (the verdicts, through the report).
 */
#ifndef RINGBENCH_VERDICT_H
#define RINGBENCH_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* The claim under test: "10-30% slower for control block operations". Its bounds are these two
 * numbers (percent), and every output takes the band from them: VERDICT_CLAIM_LO/HI to judge,
 * VERDICT_CLAIM_LABEL ("10–30 %") to print it, VERDICT_CLAIM_FMT inside a printf format,
 * VERDICT_CLAIM_LO_LABEL / _HI_LABEL ("10 %", "30 %") for one bound (_LO_FMT, _HI_FMT in a format),
 * and verdict_claim_ratio for the band as a ratio of times (1.1–1.3×). */
#define VERDICT_CLAIM_LO_PCT 10
#define VERDICT_CLAIM_HI_PCT 30
#define VERDICT_CLAIM_LO (VERDICT_CLAIM_LO_PCT / 100.0)
#define VERDICT_CLAIM_HI (VERDICT_CLAIM_HI_PCT / 100.0)
#define VERDICT_STR_(x) #x
#define VERDICT_STR(x) VERDICT_STR_(x)
#define VERDICT_CLAIM_LO_LABEL VERDICT_STR(VERDICT_CLAIM_LO_PCT) " %"
#define VERDICT_CLAIM_HI_LABEL VERDICT_STR(VERDICT_CLAIM_HI_PCT) " %"
#define VERDICT_CLAIM_LABEL VERDICT_STR(VERDICT_CLAIM_LO_PCT) "–" VERDICT_CLAIM_HI_LABEL
#define VERDICT_CLAIM_FMT VERDICT_CLAIM_LABEL "%"
#define VERDICT_CLAIM_LO_FMT VERDICT_CLAIM_LO_LABEL "%"
#define VERDICT_CLAIM_HI_FMT VERDICT_CLAIM_HI_LABEL "%"

/* "1.1–1.3×": the claimed band as fallback / native times, from the bounds above, into buf. Returns buf. */
char *verdict_claim_ratio(char *buf, size_t n);
#define VERDICT_CONF 0.95

/* A cell's figures from its ok trials (each a sorted sample set). */
typedef struct verdict_cell {
    double p50, ci_lo, ci_hi;
    stats_ci_method method;              /* TRIALS, or SAMPLES for a single trial */
    double trial_p50_min, trial_p50_max; /* smallest and largest of the trial medians p50 combines: each
                                            trial's lower median (a rate's: of its reciprocals) */
    double trial_cv;                     /* stddev / mean of the trial medians; NaN for fewer than 2 */
} verdict_cell;

/* The interval of a cell of k >= 1 trials (t[i].sorted ascending, t[i].n >= 1). rate: 1 for a
 * bigger-is-better figure (GB/s), bootstrapped as its reciprocal; an upper bound that does not exist
 * is +INFINITY. Returns 0, or -1 with errno set (ENOMEM, or as stats_hboot); k = 0 returns 0 and
 * leaves *out alone. */
int verdict_cell_interval(const stats_trial *t, size_t k, int rate, verdict_cell *out);

/* 1 when two rows can be compared round by round: they are rows of the same file (same_file), have the
 * same number k >= 2 of trials, and each round j was the same round on both sides. */
int verdict_pairable(int same_file, const int32_t *round_a, size_t ka, const int32_t *round_b, size_t kb);

/* The overhead of b over a and its interval at VERDICT_CONF, paired or independent (see above).
 * Returns 0, or -1 with errno set as stats_hboot_ratio / stats_hboot_paired. */
int verdict_overhead(const stats_trial *a, size_t ka, const stats_trial *b, size_t kb, int paired, int reps,
                     uint64_t seed, stats_interval *out);

/* 1 when [lo, hi] excludes 0. */
int verdict_excludes_zero(double lo, double hi);

/* What an overhead's interval says about speed. */
typedef enum verdict_speed {
    VERDICT_SAME = 0,  /* the same within noise */
    VERDICT_SLOWER,    /* the interval is above 0 and the overhead at least the minimum effect */
    VERDICT_FASTER,    /* the interval is below 0 and the saving at least the minimum effect */
    VERDICT_SPEED_NONE /* no overhead to judge: a row missing, not measured or without samples */
} verdict_speed;
#define VERDICT_SPEEDS 4

/* Where an overhead's interval lies against the claim's bounds. */
typedef enum verdict_claim {
    VERDICT_INSIDE = 0,   /* wholly within [VERDICT_CLAIM_LO, VERDICT_CLAIM_HI] */
    VERDICT_BELOW,        /* wholly below VERDICT_CLAIM_LO */
    VERDICT_ABOVE,        /* wholly above VERDICT_CLAIM_HI */
    VERDICT_STRADDLES_LO, /* crosses VERDICT_CLAIM_LO */
    VERDICT_STRADDLES_HI, /* crosses VERDICT_CLAIM_HI (and not the lower bound) */
    VERDICT_MIXED,        /* a set of intervals that do not all lie on one side (a summary: headline.h) */
    VERDICT_CLAIM_NONE    /* no overhead to judge */
} verdict_claim;
#define VERDICT_CLAIMS 7

/* VERDICT_SLOWER when lo > 0 and est >= min_effect, VERDICT_FASTER when hi < 0 and -est >= min_effect,
 * else VERDICT_SAME. */
verdict_speed verdict_speed_of(double est, double lo, double hi, double min_effect);

/* Where [lo, hi] lies against the claim (VERDICT_INSIDE ... VERDICT_STRADDLES_HI). */
verdict_claim verdict_claim_of(double lo, double hi);

#endif
