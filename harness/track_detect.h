/* track_detect.h - is the newest run of a cell different from its recent history, beyond the noise?
 *
 * A pure function over a series of (estimate, 95% interval) points, so that it is tested on synthetic
 * series (tests/test_track_detect.c) and used by `ringbench track` on the history index alike.
 *
 * The method is a robust lookback z-score in log space (as conbench does), whose noise comes from
 * the two measurements the project already has and nothing else:
 *   - the run-to-run spread of the history itself: 1.4826 x the median absolute deviation of
 *     log(estimate) over the lookback window (robust to an earlier step or outlier inside it);
 *   - the trial-level 95% intervals the runs carry (schema 2, ci_method "trials"): a point's
 *     standard error is (log hi - log lo) / (2 x 1.96). The median of the window's standard errors
 *     is a floor under the spread, so a short or lucky-quiet history cannot make the noise look
 *     smaller than the trials measured it; the newest run's own standard error is a floor under
 *     its part of the difference.
 * With b = the median of log(estimate) over the window (W points), s = max(MAD spread, median se)
 * and se_new = max(se of the newest run, s):
 *     d = log(newest) - b,   sigma_d = sqrt(se_new^2 + (pi/2) s^2 / W),   z = d / sigma_d.
 * The newest run differs when |z| >= z_min AND |exp(d) - 1| >= min_effect. Its direction decides
 * regression or improvement (for latency-like figures larger is worse; for throughput smaller).
 * The reported size is exp(d) - 1 with the interval exp(d +- 1.96 sigma_d) - 1. The first run that
 * shows the change is found by walking back from the newest run while earlier runs are beyond the
 * same thresholds in the same direction against the same baseline.
 *
 * Defaults (TRACK_PARAMS_DEFAULT): W = 20, at least 5 history points, z_min = 3.5, min_effect = 3%.
 * Their false-alarm and detection rates are measured by tests/test_track_detect.c and documented in
 * plots/README.md ("Tracking: detection and its false-alarm rate").
 */
#ifndef RINGBENCH_TRACK_DETECT_H
#define RINGBENCH_TRACK_DETECT_H

#include <stddef.h>

/* One run's figure for one cell: the estimate (p50) and its 95% interval in the same unit. lo/hi
 * may be NaN (no interval: the spread of the history alone is used). A point whose estimate is not
 * finite and positive (a failed or missing cell) is ignored. */
typedef struct track_point {
    double est, lo, hi;
} track_point;

typedef struct track_params {
    size_t window;      /* lookback: at most this many history points form the baseline */
    size_t min_history; /* fewer usable history points than this: TRACK_NO_HISTORY */
    double z_min;       /* |z| threshold */
    double min_effect;  /* relative change threshold, e.g. 0.03 for 3% */
} track_params;

#define TRACK_PARAMS_DEFAULT \
    {                        \
        20, 5, 3.5, 0.03     \
    }

typedef enum track_kind {
    TRACK_UNCHANGED = 0,
    TRACK_REGRESSION,
    TRACK_IMPROVEMENT,
    TRACK_NO_HISTORY, /* too few comparable runs before the newest */
    TRACK_NO_DATA,    /* the newest run has no usable estimate for this cell */
    TRACK_WATCH       /* beyond the per-cell thresholds but within the night's false-alarm budget, or a
                         machine reference or a bimodal cell changing modes (set by track_night.c, never by
                         track_judge) */
} track_kind;
#define TRACK_KINDS 6

const char *track_kind_name(track_kind k); /* "unchanged", "regression", ... */

/* --- the night's rules (used by track_night.c, which judges a whole run) ---------------------------- */

/* The night's false-alarm budget (family-wise, docs/decisions/0030-nightly-detector-and-budget.md): the
 * chance that a night with no change calls any regression, split between the headline cells and the
 * other ring cells. */
#define TRACK_ALPHA_HEADLINE 0.045
#define TRACK_ALPHA_RING 0.005

/* How far the figures as measured must confirm a ring cell's change beyond the machine's shift (or,
 * for the pooled figures judged as measured, track_night.c add_pooled_headlines, the figures beyond
 * the shift confirm a change as measured): the same direction, at least min_effect (as every
 * change), and at least this share of the |z| its family needs (track_night.c apply_budget).
 * The shift is one number for the whole machine (the median change of ~30 references) and not every
 * cell follows it: on night 11 of one H100 calibration series the references ran 8.3% faster, CUDA
 * call costs 10-47%, while the 8 B zero-copy round trip stayed where it was (+1.6% as measured);
 * divided by the shift it became +10.6%, z 5.2, a red night. Confirmed at the full z, both ways
 * (an intersection-union test, valid whichever way a cell relates to the machine) the handshake
 * cell pinned/async/coop/mapped on another series, whose figures as measured carry the machine's
 * noise (4.9% against 2.1% beyond it), would catch 19% instead of 8%; at half, 9%. Both series: 0 red
 * nights. (The pooled handshake that is the headline now goes the other way: 1.4% as measured, 5.6%
 * beyond the shift.) docs/decisions/0033-machine-shift-and-confirmation.md. */
#define TRACK_RAW_CONFIRM 0.5

/* The |z| a cell of a family of m cells needs for the family to keep its share alpha of the night's
 * false-alarm budget: Bonferroni over the family, two-sided, on a Student t with df = baseline runs - 1
 * (the noise is estimated from those runs). */
double track_family_threshold(double alpha, size_t m, size_t n_baseline);

/* Removes the machine's movement from a series: shift[i] is run i's common log change of the machine
 * references (NaN: none known); time-like figures are divided by exp(shift), rates (rate = 1, GB/s)
 * multiplied. */
void track_remove_shift(track_point *s, size_t n, const double *shift, int rate);

/* What one run contributes to a ring cell's series (docs/decisions/0031-what-a-run-contributes.md, with
 * the numbers behind these rules from the calibration series and the A/A pairs).
 *
 * Which figure: throughput, control-block reads and writes are judged on the run's best trial (its
 * highest rate or lowest time among the trial medians; the cells columns trial_p50_max / min), every
 * other cell on its p50. Its noise sits between trials, not within them, and is
 * one-sided: a full-window ring lands fast or slow for a whole trial (0.155 or 0.22 GB/s at 8 B on the
 * H100). A trial can be slowed by that, never sped up, while a real slowdown moves every trial, the best
 * among them. Latency cells keep their p50: there the best trial was not steadier, and judging it
 * turned a night of the series red. Control-block reads and writes: a read is ~13 ns and a write ~5 ns
 * of host memory the kernel also writes, timed 16 at a time (run --cb-batch), and a whole trial of them
 * lands slow (between-trial spread 11 % and 22 % in the quick preset against 0.1 % within a trial). In
 * 12 quick runs of one build their run-to-run noise was 9.9 % and 18.3 % on the p50, 3.2 % and 3.1 % on
 * the best trial. (A shorter experiment, 8 B and window 1 only, 10 runs, had found the reverse - 3.2 % /
 * 6.0 % against 7.3 % / 22.2 % - but a night runs the full preset:
 * docs/decisions/0004-control-block-batch-of-16.md.) */
int track_best_trial_family(const char *family);

/* p's interval, when it is a trial-level interval of k >= 2 trials (ci_method "trials"), made the
 * plain percentile interval that the noise floor's standard error needs: the file's is widened by
 * c_k = t(k-1) / z (stats_small_k_factor; 2.19 for 3 trials, 1.42 for 5) so that it covers 95% with so
 * few trials, and read as (log hi - log lo) / (2 z) it overstated the trials' standard error by c_k.
 * Widths are scaled in log space around est; other points are left as they are. */
void track_unwiden_trials_interval(track_point *p, size_t k);

/* The standard error given to each point of a pooled headline figure (track_night.c load_pooled), so
 * that it is the floor under its noise. The best trial of many cells carries no interval of its own,
 * and the MAD of a short history of it looks smaller than its spread: control-block writes are timed
 * in steps of 1/16 ns, 1.7 % of a 3.7 ns write, and 12 quick runs of one build on one H100 held 4
 * values, MAD 1.6-1.9 % where the standard deviation was 2.4-2.8 % (the pooled reads and writes); with
 * a 1 % floor one of those nights (+5 %, +7 % beyond the machine shift) was a regression. 2.5 %: a
 * pooled figure catches 9 % with 11 earlier runs (docs/decisions/0032-pooled-headline-figures.md). */
#define TRACK_POOL_FLOOR 0.025

/* The same floor for the pooled throughput at the smallest size's full window. That rate is the
 * host's (its check of the replies) and a whole run of it can land slow with no machine reference
 * moving: on night 11 of one H100 calibration series every native zero-copy trial at 8 B and the full
 * window was slow, and the figure track judges (the best trial of 16 native cells) fell 22.5 % as
 * measured, 24.5 % beyond the machine shift. With 6 % (the value before, set from that night's trial
 * medians, -17 %) that was z -4.4, a red night of one unchanged build; with 10 % it is z -2.6 against
 * the 3.4 a headline needs. The cost: the pool catches 43 % on that series. On a later series the
 * figure's own MAD is 14.7 % and sets the line itself (a 69 % catch): the full window's night-to-night
 * spread on a lent machine, not the floor, is what bounds it (docs/decisions/0032-pooled-headline-figures.md;
 * runs with the leg of fresh processes are judged on it instead, 0035). */
#define TRACK_POOL_FLOOR_WINDOW 0.10

/* The floor under each point's standard error of a headline cell judged on its own (one cell of the
 * file that report.md quotes, harness/headline.h: the claim's native and the fallback's round trips,
 * the fallback's control-block operations, throughputs and full window). One cell's short history can
 * claim less noise than it has: on one H100 series the best 8 B round-trip cell's 7 nights held 0.9 %
 * and a +5.3 % night went red (docs/decisions/0032-pooled-headline-figures.md); with the pools' 2.5 %
 * the seven calibration series with run files keep their red nights where they were
 * (docs/decisions/0140-report-figures-are-headline-cells.md). */
#define TRACK_HEADLINE_FLOOR TRACK_POOL_FLOOR

/* A point est whose interval is +- floor in log space as a 95% interval's standard error. */
track_point track_floored_point(double est, double floor);

/* p's interval widened, where it is narrower, to +- floor in log space as a 95% interval's standard
 * error around its estimate (an interval it lacks is set so): a floor under one cell's noise, as
 * TRACK_POOL_FLOOR is under a pool's (track_night.c, the headline cells of harness/headline.h). A
 * point without a positive finite estimate is left as it is. */
void track_floor_point(track_point *p, double floor);

/* The figure replaced by best (> 0; else p is left as it is), its interval moved with it (same log
 * widths around the new figure). */
void track_use_best_trial(track_point *p, double best);

typedef struct track_result {
    track_kind kind;
    size_t n_baseline;           /* history points in the baseline */
    double baseline;             /* exp(median log estimate) of the baseline, in the figure's unit */
    double newest;               /* the newest estimate */
    double change;               /* newest / baseline - 1 (positive: the figure grew) */
    double change_lo, change_hi; /* 95% interval of change */
    double z;                    /* d / sigma_d */
    double sigma;                /* s: the run-to-run noise (log space, ~ relative) the decision used */
    double sd;                   /* sigma_d: the standard error of d = log(newest) - baseline (z = d / sd) */
    size_t first;                /* index in the series of the first run that shows the change; the newest
                                    run's index when only it does (meaningful for REGRESSION/IMPROVEMENT) */
} track_result;

/* Judges series[n-1] (the newest run) against series[0 .. n-2] (its history, oldest first).
 * higher_is_better: 1 for throughput-like figures, 0 for latency-like ones.
 * Returns 0 and fills *out; -1 (errno EINVAL) when series, p or out is NULL or n is 0. */
int track_judge(const track_point *series, size_t n, int higher_is_better, const track_params *p, track_result *out);

#endif
