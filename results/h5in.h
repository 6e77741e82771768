/* h5in.h - reads a ringbench results file for reports, comparisons and tests.
 *
 * Opening checks that the file is HDF5, is a ringbench file, and has a schema version this build
 * understands; anything else is refused with one line of text, never a crash (a truncated or
 * corrupt file included).
 */
#ifndef RINGBENCH_H5IN_H
#define RINGBENCH_H5IN_H

#include <stddef.h>
#include "schema.h"

typedef struct h5in h5in;

/* Returns 0 and sets *out, or -1 with a one-line message in err. */
int h5in_open(const char *path, h5in **out, char *err, size_t errlen);
void h5in_close(h5in *r);

size_t h5in_nrows(const h5in *r);
const rb_row *h5in_row(const h5in *r, size_t i);   /* NULL when out of range */

/* Raw samples of row i (malloc'd, caller frees). n = 0 and *out = NULL when the row has none.
 * Returns 0, or -1 with a message in err. */
int h5in_samples(const h5in *r, size_t i, double **out, size_t *n, char *err, size_t errlen);

/* Attribute of a group as text (numbers formatted with %lld / %.17g); NULL when absent. */
const char *h5in_attr(const h5in *r, const char *group, const char *name);
/* Number of attributes of a group and the i-th name (in creation or name order), for listing. */
size_t h5in_attr_count(const h5in *r, const char *group);
const char *h5in_attr_name(const h5in *r, const char *group, size_t i);

int h5in_complete(const h5in *r);        /* root "complete" attribute */
int h5in_schema_version(const h5in *r);

#endif
