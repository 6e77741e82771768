/* stats_internal.h - what stats.c lends stats_boot.c: sorting and selection of doubles. Not a public
 * interface: include stats.h.
 */
#ifndef RINGBENCH_STATS_INTERNAL_H
#define RINGBENCH_STATS_INTERNAL_H

#include <stddef.h>

/* Sorts v[0..n) ascending, NaN last, with qsort (n < 2: nothing to do, v may be NULL). */
void stats_sort_doubles(double *v, size_t n);
/* 1 when x[0..n) holds a NaN. */
int stats_has_nan(const double *x, size_t n);
/* Wirth's selection: v[k] as if v were sorted; reorders v, which must not hold NaN. */
double stats_select_kth(double *v, size_t n, size_t k);

#endif
