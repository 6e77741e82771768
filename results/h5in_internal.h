/* h5in_internal.h - what the parts of the results reader share (h5in.c: open, close, queries and
 * messages; h5in_table.c: attributes and the /cells and /trials tables; h5in_check.c: the raw samples
 * and every check of what was read). Not a public interface: include h5in.h.
 */
#ifndef RINGBENCH_H5IN_INTERNAL_H
#define RINGBENCH_H5IN_INTERNAL_H

#include "h5in.h"
#include "h5util.h"

#include <stddef.h>

/* No stored dataset can hold more than this many times its share of the file: deflate's largest
 * ratio is about 1032:1. A larger element count is a damaged dataspace, refused before it turns
 * into a huge allocation. */
#define MAX_EXPANSION 1100
#define MAX_ATTR_TEXT (1u << 20) /* longest string attribute read, against damaged sizes */
#define MAX_WARNINGS 1000        /* more lines than this are counted, not kept */
#define SAMPLES_BLOCK 16384      /* doubles per read of /trial_samples when it is not chunked */

typedef struct h5in_attr_entry {
    const char *group; /* one of attr_groups[] */
    char *name;
    char *text;
} h5in_attr_entry;

struct h5in {
    char *path;
    hid_t file;
    unsigned long long file_size;
    rb_row *rows;
    size_t nrows;
    rb_trial *trials;
    size_t ntrials;
    size_t *trial_row;   /* schema 1: the row whose samples each presented trial is */
    size_t *row_tidx;    /* trial indices grouped by row, ascending by round within a row */
    size_t *row_tstart;  /* row i's trials: row_tidx[row_tstart[i] .. row_tstart[i+1]) */
    size_t *trial_rowof; /* the row of each trial, SIZE_MAX for a trial whose row was never written */
    double *tsamples;    /* /trial_samples, read whole at open, block by block (a run's is ~10 MB) */
    size_t ntsamples;
    unsigned char *trial_bad;  /* per trial: its samples are damaged (its row is marked) */
    unsigned char *row_marked; /* per row: marked damaged by the reader */
    double **row_samples;      /* per row: its own /samples/row_N (schema 1; schema-2 rows written so) */
    size_t *row_nsamples;
    char **warnings; /* one line each: what was found damaged, and what was done about it */
    size_t nwarnings, warn_cap, warnings_dropped;
    h5in_attr_entry *attrs;
    size_t nattrs, cap;
    int complete;
    int schema;
};

// --- shared by the parts -------------------------------------------------------------------------------

/* One line of text into err (h5in.c). */
void h5in_put_err(char *err, size_t errlen, const char *fmt, ...);
/* Adds a warning line to r (h5in_warning); past MAX_WARNINGS they are counted only (h5in.c). */
void h5in_add_warning(h5in *r, const char *fmt, ...);
/* "PATH: damaged or truncated file: WHAT failed" (and HDF5's own message) into err (h5in.c). */
void h5in_put_damaged(char *err, size_t errlen, const char *path, const char *what);
/* Whether n elements of size bytes could really be stored in a file of this size (h5in.c). */
int h5in_plausible(const h5in *r, unsigned long long n, size_t size);
/* Which blocks (chunks of `block` elements of `elem` bytes) of a 1-D chunked dataset HDF5's chunk index
 * describes sanely: each exactly once, at an offset that starts a chunk, inside the file, with every
 * filter applied as the writer applies them. A damaged index can otherwise make HDF5 return fill values
 * (0.0) for a chunk it no longer finds, or, with a filter mask that says "not compressed" on a
 * compressed chunk, copy past the end of its own buffer (HDF5 1.10.8, found by tests/test_h5_damaged.c
 * under ASan, in /trial_samples first and in /cells once schema 4 moved its chunks). Blocks not sane are
 * set in bad[] (dims / block + 1 entries) and must not be read. Without H5Dget_chunk_info (HDF5 <
 * 1.10.5) every block is trusted. (h5in_check.c) */
void h5in_chunk_index_check(const h5in *r, hid_t dset, hid_t space, hsize_t dims, hsize_t block, size_t elem,
                            unsigned char *bad);
/* Loads the attributes of group into r (h5in_table.c). */
int h5in_attrs_load(h5in *r, const char *group, char *err, size_t errlen);
/* An integer attribute of the root, parsed (h5in_table.c). Returns 0, or -1. */
int h5in_root_int(const h5in *r, const char *name, long long *value);
/* A table (/cells, /trials) opened for reading in blocks (h5in_table.c): its dataset, the memory type of
 * the columns the file has (by name, as h5in_cells_read reads them) and its length; its chunk index is
 * checked sane first. h5in_table_block reads records [at, at + n) into buf. Return 0, or -1 with err. */
typedef struct h5in_table {
    hid_t dset, mtype, space;
    size_t count;
} h5in_table;
int h5in_table_open(const h5in *r, const char *name, hid_t full, int (*optional)(const char *), h5in_table *t,
                    char *err, size_t errlen);
int h5in_table_block(const h5in *r, const h5in_table *t, const char *name, size_t at, size_t n, void *buf, char *err,
                     size_t errlen);
void h5in_table_close(h5in_table *t);
/* Which columns of /cells and /trials a file of this schema may lack (NULL: none). */
int (*h5in_cells_optional(int schema))(const char *);
int (*h5in_trials_optional(int schema))(const char *);
/* A record's strings terminated, whatever the file held. */
void h5in_row_terminate(rb_row *row);
void h5in_trial_terminate(rb_trial *t);
/* Opens path, loads the root's attributes and checks that it is a ringbench file of a schema this build
 * reads (h5in.c): what h5in_open and h5in_rows_open do first. Returns 0 with *out set, or -1 with err. */
int h5in_open_head(const char *path, h5in **out, char *err, size_t errlen);
/* Loads the attributes of /provenance and /capabilities (h5in.c). */
int h5in_groups_load(h5in *r, char *err, size_t errlen);
/* Reads the float64 dataset name of group (absent: 0 samples) into a malloc'd buffer (h5in_check.c). */
int h5in_read_samples(const h5in *r, const char *group, const char *name, double **out, size_t *n, char *err,
                      size_t errlen);
/* Reads /cells, /trials and indexes trials by row (h5in_table.c). */
int h5in_cells_read(h5in *r, char *err, size_t errlen);
int h5in_trials_read(h5in *r, char *err, size_t errlen);
int h5in_trials_index(h5in *r, char *err, size_t errlen);
/* The checks of one row, or one trial, that need nothing else (h5in_check.c, shared with the streaming
 * reader): NULL when none fails, else the reason (in buf, or a constant). Row i of a file of schema;
 * *next is where the trial's samples must start, moved past them. */
const char *h5in_row_problem(const rb_row *row, size_t i, int schema, char *buf, size_t n);
const char *h5in_trial_problem(const rb_trial *tr, int schema, uint64_t *next, char *buf, size_t n);
/* Row i of /cells found damaged for why: the warning naming it (h5in_warn_row) and its status and
 * reason (h5in_damage_row), as every reader of a file says it (h5in_check.c). */
void h5in_warn_row(h5in *r, size_t i, const rb_row *row, const char *why);
void h5in_damage_row(rb_row *row, const char *why);
/* The index of the first sample no measurement can be (negative, NaN or infinite), or n: the statistics
 * take finite samples only, so such a sample would be dropped while n still counts it. */
size_t h5in_bad_sample(const double *s, size_t n);
/* Reads the samples and checks everything read, marking damaged rows and trials (h5in_check.c). */
int h5in_validate(h5in *r, char *err, size_t errlen);

#endif
