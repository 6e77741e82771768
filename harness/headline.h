/* headline.h - the headline figures: the few numbers that answer ringbench's question, defined once.
 *
 * report.md's first screen, the README's answer table (`ringbench report FILE --answer`), `ringbench
 * export --headline` and nightly tracking all read these figures from here, so they name the same
 * cells and compute the same ratios. Each figure is one cell measured on two sides:
 *
 *   side 0  a native reference: the claim's native path (mode_native(), pinned/async/coop/mapped), or,
 *           for the figures marked "fastest", the fastest mode on pinned host memory at that size
 *   side 1  the WSL2 fallback path (mode_wsl2_fallback(), malloc/sync/noncoop/device)
 *
 * and the ratio fallback / native on time (a rate's cells on time per byte or per message, so > 1
 * always means the fallback is slower). ONE estimator throughout: the ratio of the two cells' estimates
 * (each the median of its trial medians, the p50 a row reports), with the 95 % interval of the
 * trial-level bootstrap of verdict_overhead (paired rounds when both sides are one file's rows measured
 * in the same rounds, independent hierarchical bootstraps otherwise; docs/decisions/0130-one-ratio.md).
 *
 * The sizes are the file's own: "small" is the smallest size the file measured, "large" the largest;
 * the full window is the widest window measured at the smallest throughput size. Pure computation over
 * rows and their trials (a headline_source); plots/ renders, bench/ exports. Tests:
 * tests/test_headline.c (the list and the estimator against known ratios), tests/test_report.c.
 */
#ifndef RINGBENCH_HEADLINE_H
#define RINGBENCH_HEADLINE_H

#include <stddef.h>
#include <stdint.h>

#include "modes.h"
#include "schema.h"
#include "stats.h"
#include "verdict.h"

/* The headline figures, in the order every output lists them. */
typedef enum headline_id {
    HL_RT_SMALL = 0, /* round trip at the smallest size: the claim's native path against the fallback */
    HL_RT_FASTEST,   /* round trip at the smallest size: the fastest pinned mode against the fallback */
    HL_RT_LARGE,     /* round trip at the largest size */
    HL_THR_LARGE,    /* throughput at the largest size, the ring kept full (widest window) */
    HL_CB_READ,      /* control-block read, write and handshake (the claim's subject) */
    HL_CB_WRITE,
    HL_CB_HANDSHAKE,
    HL_FULL_WINDOW, /* messages per second at the smallest size's widest window: the fastest pinned mode */
    HL_COUNT
} headline_id;

enum { HL_NATIVE = 0, HL_FALLBACK = 1 };

typedef enum headline_size { HL_SIZE_NONE = 0, HL_SIZE_SMALLEST, HL_SIZE_LARGEST } headline_size;

typedef struct headline_def {
    const char *key;   /* stable snake_case name: BMF benchmark names, tracking */
    const char *label; /* what it is, for a table: "round trip", "control-block read", ... */
    rb_family family;
    headline_size size;
    int fastest;     /* 1: side 0 is the fastest mode on pinned host memory, not the claim's native path */
    int full_window; /* 1: shown as messages per second at the widest window */
    int claim;       /* 1: the claim's subject (a control-block operation), judged against 10-30 % */
} headline_def;

extern const headline_def headline_defs[HL_COUNT];

/* Where the rows come from: a results file as its reader holds it. row(ctx, i) for i < nrows; trials
 * gives row i's ok trials sorted ascending (a rate's as time per byte, 1/x), k their count, *round
 * each trial's round (may be NULL), NULL when none. */
typedef struct headline_source {
    void *ctx;
    size_t nrows;
    const rb_row *(*row)(void *ctx, size_t i);
    const stats_trial *(*trials)(void *ctx, size_t i, size_t *k, const int32_t **round);
} headline_source;

#define HEADLINE_WHY_LEN (RB_REASON_LEN + 96)

/* One side of a figure: its cell and the figures of its row. */
typedef struct headline_side {
    long row;       /* index in its source, -1 when there is no such cell */
    mode_spec mode; /* the mode of the cell (for "fastest": the one found) */
    int ok;         /* 1 when the cell was measured (status ok, a finite p50) */
    double value;   /* p50 in the family's unit (us, or GB/s for a rate) */
    double lo, hi;  /* its 95 % interval (NaN when the file has none) */
    double spread;  /* run-to-run spread: the CV of the trial medians (NaN for fewer than 2 trials) */
    size_t trials;
    double msgs_per_s;          /* a rate's messages per second (NaN otherwise) */
    char why[HEADLINE_WHY_LEN]; /* when !ok: why there is no figure */
} headline_side;

typedef struct headline_fig {
    const headline_def *def;
    uint64_t size, window; /* the cell's size (0 for control-block operations) and window (0: none) */
    headline_side side[2]; /* HL_NATIVE, HL_FALLBACK */
    int ratio_ok;
    double ratio, ratio_lo, ratio_hi; /* fallback / native on time, and its 95 % interval */
    stats_ci_method method;           /* TRIALS, or SAMPLES when a side had one trial */
    int paired;
    char why[HEADLINE_WHY_LEN]; /* when !ratio_ok: why there is no ratio */
} headline_fig;

/* The figures: side 0 from native, side 1 from fallback (the same source for one file, whose rows
 * measured in the same rounds are then paired). reps and seed set the bootstrap (STATS_HBOOT_REPS,
 * STATS_HBOOT_SEED for the report's). Every figure is filled: a missing cell or ratio says why. */
void headline_compute(const headline_source *native, const headline_source *fallback, int reps, uint64_t seed,
                      headline_fig out[HL_COUNT]);

/* Where a figure's ratio lies against the claimed 10-30 % (verdict.h): VERDICT_ABOVE, _INSIDE,
 * _BELOW, _STRADDLES_LO or _HI; VERDICT_CLAIM_NONE without a ratio. */
verdict_claim headline_claim(const headline_fig *f);

/* The verdict over the claim's figures (the control-block operations): VERDICT_ABOVE when every
 * measured one is above 10-30 %, VERDICT_INSIDE or VERDICT_BELOW likewise, VERDICT_MIXED otherwise,
 * VERDICT_CLAIM_NONE when none was measured; *lo and *hi get the smallest and largest of their ratios. */
verdict_claim headline_verdict(const headline_fig f[HL_COUNT], double *lo, double *hi);

/* The smallest (largest: 1) size of family f among the source's rows; 0 when none. */
uint64_t headline_size_end(const headline_source *s, rb_family f, int largest);

#endif
