/* bimodal.h - two modes in a cell's samples: the rule, and the schema-4 columns of a row it fills
 * (mode_fast, mode_slow, slow_share, bimodal; docs/schema.md).
 *
 * Some cells switch between two latencies (on the H100 a zero-copy ring with a device control block
 * answers 8 B in ~2.7 or ~8.7 us, the slow share varying from 4% to 86% per trial), and their median
 * then flips between runs with nothing changed. The rule lives here, beside the schema, because it
 * defines what those columns hold: the writer fills them from a cell's samples, and the reader fills
 * them the same way for files written before schema 4.
 */
#ifndef RINGBENCH_BIMODAL_H
#define RINGBENCH_BIMODAL_H

#include <stddef.h>

#include "schema.h"

/* The split is Otsu's on log values (the threshold that maximises the between-class variance); the
 * samples are bimodal when each class holds at least BIMODAL_MIN_SHARE of them, the classes' medians
 * differ by at least BIMODAL_MIN_RATIO, and they are well apart (Ashman's D = sqrt(2)|m1 - m2| /
 * sqrt(s1^2 + s2^2) of the log classes >= BIMODAL_MIN_D). Fewer than BIMODAL_MIN_SAMPLES are not
 * judged. */
#define BIMODAL_MIN_SHARE 0.03
#define BIMODAL_MIN_RATIO 1.5
#define BIMODAL_MIN_D 3.0
#define BIMODAL_MIN_SAMPLES 20

typedef struct bimodal_modes {
    int bimodal;     /* 1 when the rule above holds */
    double lo, hi;   /* medians of the lower and upper class (lo = hi = the median when unimodal) */
    double hi_share; /* share of samples in the upper class (0 when unimodal) */
} bimodal_modes;

/* The modes of sorted[0..n) (ascending, positive values). Returns 0, or -1 (errno EINVAL) when
 * n < BIMODAL_MIN_SAMPLES or a value is not finite and positive (ENOMEM when out of memory). */
int bimodal_split(const double *sorted, size_t n, bimodal_modes *out);

/* The row's bimodal columns as "not bimodal": modes and share NaN, bimodal 0. */
void bimodal_row_clear(rb_row *row);

/* The row's bimodal columns from its samples (all its trials', sorted ascending): set when the row
 * is of a time family (unit "us") and the samples are bimodal, cleared otherwise (a rate family, too
 * few samples, a value that is no time). Returns 0, or -1 only when out of memory (row cleared). */
int bimodal_row_fill(rb_row *row, const double *sorted, size_t n);

/* Whether the row's bimodal columns are consistent: bimodal 0 with NaN modes and share, or bimodal
 * 1 with positive modes, mode_fast <= mode_slow and a share in [0, 1]. NULL when they are, else what
 * is wrong (a static string). */
const char *bimodal_row_invalid(const rb_row *row);

#endif
