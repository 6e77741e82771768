/* compare_internal.h - what compare.c (the pairs and compare.md) and compare_plots.c (its plots) share. */
#ifndef RINGBENCH_COMPARE_INTERNAL_H
#define RINGBENCH_COMPARE_INTERNAL_H

#include "report_internal.h"

typedef struct pair {
    long ia, ib;  /* rows in BASE and OTHER */
    report_ov ov; /* overhead of OTHER over BASE */
} pair;

typedef struct compare_ctx {
    report_run base, other;
    pair *pairs;
    size_t npairs;
    char warnings[1024]; /* the loud lines, also written at the top of compare.md */
    int platform;        /* 1: the files differ in platform (native against WSL2, or limits in one only) */
} compare_ctx;

/* "slower", "faster", "same" (within noise) or "n/a". */
const char *compare_token(const report_ov *ov);
/* 1 when the pair is slower or faster. */
int compare_changed(const report_ov *ov);
/* The pair of family f, mode m (NULL: a baseline) and size, or NULL. */
const pair *compare_find(const compare_ctx *c, rb_family f, const mode_spec *m, uint64_t size);
/* Sizes of family f that have at least one pair, malloc'd into *out; their count. */
size_t compare_sizes(const compare_ctx *c, rb_family f, uint64_t **out);
/* The indices of the changed pairs, largest change first (on a log scale of the ratio), malloc'd into
 * *out; their count. */
size_t compare_changed_pairs(const compare_ctx *c, size_t **out);
/* The noise between the two runs: the 95th percentile of |ratio - 1| over the pairs that are the same
 * within noise (NaN when none). */
double compare_noise(const compare_ctx *c);

/* The plots (compare_plots.c): each writes NAME.dat and NAME.gp into dir. Returns 0 or -1 with err. */
int compare_plot_changes(const compare_ctx *c, const char *dir, char *err, size_t errlen);
int compare_plot_heatmap(const compare_ctx *c, const char *dir, char *err, size_t errlen);
int compare_plot_ops(const compare_ctx *c, const char *dir, char *err, size_t errlen);

#endif
