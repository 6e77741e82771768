/* h5out.h - writes a ringbench results file (HDF5) so that nothing is lost.
 *
 * The file is written as PATH.partial and every appended row is flushed to disk before
 * h5out_append returns, so a crash leaves a readable PATH.partial holding every completed row.
 * h5out_close renames it to PATH (never replacing an existing PATH unless force was given at open)
 * with the root attribute "complete" = 1, or 0 for an interrupted run (which is still renamed into
 * place, marked incomplete, with "interrupted_by" saying why).
 */
#ifndef RINGBENCH_H5OUT_H
#define RINGBENCH_H5OUT_H

#include <stddef.h>
#include <stdint.h>
#include <hdf5.h>
#include "schema.h"

typedef struct h5out h5out;

/* Creates the file. Fails when PATH exists and force is 0, when PATH.partial cannot be created, or
 * when the directory is not writable. Returns 0 and sets *out, or -1 with a one-line message in err. */
int h5out_open(const char *path, int force, h5out **out, char *err, size_t errlen);

/* Attributes on a group (RB_H5_PROVENANCE, RB_H5_CAPABILITIES or "/"), created on first use.
 * Return 0, or -1 with the message in the writer (h5out_error). */
int h5out_attr_str(h5out *w, const char *group, const char *name, const char *value);
int h5out_attr_i64(h5out *w, const char *group, const char *name, int64_t value);
int h5out_attr_f64(h5out *w, const char *group, const char *name, double value);

/* Appends a row (row->row_id is assigned here) and its raw samples (n may be 0), then flushes.
 * Returns 0, or -1 with the message in the writer. */
int h5out_append(h5out *w, rb_row *row, const double *samples, size_t n);

/* Appends a trial (t->trial_id is assigned here) and its raw samples (n may be 0), then flushes:
 * a trial is on disk before the next one starts. Returns 0, or -1 with the message in the writer. */
int h5out_append_trial(h5out *w, rb_trial *t, const double *samples, size_t n);

/* Marks the file complete (complete = 1) or interrupted (complete = 0, interrupted_by = why), closes
 * it and moves PATH.partial to PATH. Frees w in every case. Returns 0, or -1 with the message in err. */
int h5out_close(h5out *w, int complete, const char *why, char *err, size_t errlen);

/* The last error message of the writer. */
const char *h5out_error(const h5out *w);

/* The HDF5 compound type of rb_row (native types, fixed-size NUL-terminated strings), built field
 * by field from RB_ROW_COLUMNS. The writer stores /cells with it and the reader uses it as its memory
 * type, reading by field name, so both sides share one definition. Returns a type the caller closes
 * with H5Tclose, or H5I_INVALID_HID. */
hid_t h5out_row_type(void);
/* The same for rb_trial, from RB_TRIAL_COLUMNS. */
hid_t h5out_trial_type(void);

#endif
