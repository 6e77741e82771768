/* h5in.h - reads a ringbench results file for reports, comparisons and tests.
 *
 * Opening checks that the file is HDF5, is a ringbench file, and has a schema version this build
 * understands; anything else is refused with one line of text, never a crash (a truncated or
 * corrupt file included). It then reads every dataset once and checks what it read (docs/schema.md,
 * "Integrity"): what cannot be trusted is marked, row by row, and said (h5in_warning). A file
 * before schema 4 gets its rows' bimodal columns computed from their samples (results/bimodal.h), so
 * every caller sees them as a schema-4 writer records them.
 */
#ifndef RINGBENCH_H5IN_H
#define RINGBENCH_H5IN_H

#include <stddef.h>
#include <stdio.h>
#include "schema.h"

typedef struct h5in h5in;

/* Returns 0 and sets *out, or -1 with a one-line message in err. */
int h5in_open(const char *path, h5in **out, char *err, size_t errlen);
void h5in_close(h5in *r);

size_t h5in_nrows(const h5in *r);
const rb_row *h5in_row(const h5in *r, size_t i); /* NULL when out of range */

/* Raw samples of row i (malloc'd, caller frees): schema 1 its samples dataset, schema 2 the samples
 * of all its trials concatenated in round order. n = 0 and *out = NULL when the row has none.
 * Returns 0, or -1 with a message in err (a row marked damaged: its reason). */
int h5in_samples(const h5in *r, size_t i, double **out, size_t *n, char *err, size_t errlen);

/* Attribute of a group as text (numbers formatted with %lld / %.17g); NULL when absent. */
const char *h5in_attr(const h5in *r, const char *group, const char *name);
/* Number of attributes of a group and the i-th name (in creation or name order), for listing. */
size_t h5in_attr_count(const h5in *r, const char *group);
const char *h5in_attr_name(const h5in *r, const char *group, size_t i);

/* Trials (schema 2). A schema-1 file has no /trials table: the reader presents every row that has
 * samples as one trial of its own (trial 0, its samples, conditions unknown), and marks such rows
 * ci_method = RB_CI_SAMPLES, trials = 1, so report and compare treat both schemas alike. */
size_t h5in_ntrials(const h5in *r);                  /* trials in the file */
const rb_trial *h5in_trial(const h5in *r, size_t t); /* NULL when out of range */
/* The trials of row i, ascending by round: *idx points at n indices for h5in_trial (owned by the
 * reader, valid until close). Returns n (0 for a row without trials). */
size_t h5in_row_trials(const h5in *r, size_t i, const size_t **idx);
/* Raw samples of trial t (malloc'd, caller frees); n = 0 and *out = NULL when it has none.
 * Returns 0, or -1 with a message in err (a trial whose samples are damaged: why). Every sample is
 * read and checked at open, so this only copies. */
int h5in_trial_samples(const h5in *r, size_t t, double **out, size_t *n, char *err, size_t errlen);

/* Damage found at open that did not refuse the file: every row, trial or sample that could not be
 * trusted is named in one warning line (naming the file, the dataset and the row), and its row is
 * marked status RB_STATUS_DAMAGED with the reason ("damaged: ...") in `reason`, so it is shown as
 * damaged and used by no verdict. A file of a schema without checksums has a warning saying so.
 * h5in_warning(r, i) for i < h5in_nwarnings(r); the last may say how many more were not kept. */
size_t h5in_nwarnings(const h5in *r);
const char *h5in_warning(const h5in *r, size_t i);
size_t h5in_ndamaged(const h5in *r); /* rows marked RB_STATUS_DAMAGED */
/* Each warning as "PREFIX: WARNING: LINE" on f: what every command that reads a file prints. */
void h5in_print_warnings(const h5in *r, FILE *f, const char *prefix);

/* A file read row by row in bounded memory (h5in_rows.c), for exports of files of any length: open runs
 * every check h5in_open runs, in one pass over the file a block at a time, and keeps a few dozen bytes
 * per row; next hands out the rows in order, each marked damaged as h5in_open marks it. The file's
 * attributes, schema, completeness and warnings are those of h5in_rows_meta (an h5in without rows:
 * use it for them only). h5in_rows_open returns 0 with *out set, or -1 with a one-line message (what
 * h5in_open refuses, it refuses). h5in_rows_next returns NULL at the end, or on a read error with err
 * set (err[0] is '\0' at the end). */
typedef struct h5in_rows h5in_rows;
int h5in_rows_open(const char *path, h5in_rows **out, char *err, size_t errlen);
const rb_row *h5in_rows_next(h5in_rows *s, char *err, size_t errlen);
size_t h5in_rows_count(const h5in_rows *s);
const h5in *h5in_rows_meta(const h5in_rows *s);
void h5in_rows_close(h5in_rows *s);

int h5in_complete(const h5in *r);       /* root "complete" attribute */
int h5in_schema_version(const h5in *r); /* the schema the file was written with (1 to RB_SCHEMA_VERSION) */

#endif
