/* h5in.c - reads a ringbench results file (the layout of h5out.c, documented in docs/schema.md).
 *
 * Everything is loaded at open, each dataset read once: the /cells and /trials tables, the attributes
 * of /, /provenance and /capabilities, and every raw sample. The tables are read by column NAME into
 * rb_row and rb_trial (HDF5 converts), so a file whose columns are in another order, or have other
 * widths, reads the same. Anything that is not a readable ringbench file of a schema this build knows
 * is refused with one line of text; a damaged file gives an error, never a crash
 * (tests/test_h5_damaged.c feeds it such files under ASan).
 *
 * What is read is then checked, so that damage never changes a number silently: the schema-3
 * checksums of every row, trial and trial's samples, the lengths the file was closed with, units
 * against families, signs, one row per cell, one trial per round, and sample counts against the
 * trials table. A row that fails is not refused with the whole file: it is marked RB_STATUS_DAMAGED
 * with the reason, which every output shows and no verdict uses, and a warning line names it
 * (h5in_warning).
 */
#define _POSIX_C_SOURCE 200809L

#include "h5in_internal.h"
#include "h5out.h" /* h5out_row_type: the memory type of rb_row */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The groups whose attributes are loaded, "/" first: its tool and schema_version are checked
 * before anything else is believed. */
static const char *const attr_groups[] = {"/", RB_H5_PROVENANCE, RB_H5_CAPABILITIES};
#define N_ATTR_GROUPS (sizeof attr_groups / sizeof attr_groups[0])

// --- errors ----------------------------------------------------------------------------------------

void h5in_put_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    for (char *p = err; *p; p++) /* one line, whatever a path or HDF5 put in it */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* Keeps one warning line (newlines replaced); past MAX_WARNINGS only counts them. */
void h5in_add_warning(h5in *r, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    if (r->nwarnings == MAX_WARNINGS) {
        r->warnings_dropped++;
        return;
    }
    if (r->nwarnings == r->warn_cap) {
        size_t cap = r->warn_cap ? 2 * r->warn_cap : 16;
        char **w = realloc(r->warnings, cap * sizeof *w);
        if (w == NULL) {
            r->warnings_dropped++;
            return;
        }
        r->warnings = w;
        r->warn_cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if ((r->warnings[r->nwarnings] = strdup(line)) != NULL)
        r->nwarnings++;
    else
        r->warnings_dropped++;
}

/* A failed HDF5 call on a file that passed the signature check: it is damaged or truncated. */
void h5in_put_damaged(char *err, size_t errlen, const char *path, const char *what)
{
    char detail[256];
    h5util_detail(detail, sizeof detail, ": ");
    h5in_put_err(err, errlen, "%s: damaged or truncated file: %s failed%s", path, what, detail);
}

/* Whether n elements of size bytes could really be stored in a file of this size. */
int h5in_plausible(const h5in *r, unsigned long long n, size_t size)
{
    unsigned long long limit = (r->file_size + 4096) * MAX_EXPANSION;
    return size > 0 && n <= limit / size && n <= SIZE_MAX / size;
}

// --- open and close --------------------------------------------------------------------------------

/* Refuses, with the reason, what is not an HDF5 file at all; fills r->file_size. */
static int check_file(h5in *r, char *err, size_t errlen)
{
    struct stat st;
    htri_t is_hdf5;

    if (stat(r->path, &st) != 0) {
        h5in_put_err(err, errlen, "%s: %s", r->path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        h5in_put_err(err, errlen, "%s: is a directory, not a results file", r->path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) { /* a FIFO or a device: HDF5 would wait on it or read it forever */
        h5in_put_err(err, errlen, "%s: not a regular file (a FIFO, socket or device), not a results file", r->path);
        return -1;
    }
    if (access(r->path, R_OK) != 0) {
        h5in_put_err(err, errlen, "%s: %s", r->path, strerror(errno));
        return -1;
    }
    if (st.st_size == 0) {
        h5in_put_err(err, errlen, "%s: empty file, not an HDF5 results file", r->path);
        return -1;
    }
    r->file_size = (unsigned long long)st.st_size;
    /* H5Fis_accessible replaced H5Fis_hdf5 in 1.12; Debian 12 ships 1.10, which has only the latter. */
#if H5_VERSION_GE(1, 12, 0)
    is_hdf5 = H5Fis_accessible(r->path, H5P_DEFAULT);
#else
    is_hdf5 = H5Fis_hdf5(r->path);
#endif
    H5Eclear2(H5E_DEFAULT);
    if (is_hdf5 <= 0) {
        h5in_put_err(err, errlen, "%s: not an HDF5 file", r->path);
        return -1;
    }
    return 0;
}

/* The reader does not take HDF5's file lock, so the .partial of a sweep still running can be
 * looked at; it only reads what the writer has flushed. */
static hid_t reader_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if (H5_VERSION_GE(1, 10, 7) && !H5_VERSION_GE(1, 11, 0)) || H5_VERSION_GE(1, 12, 1)
    if (fapl >= 0 && H5Pset_file_locking(fapl, 0, 1) < 0) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
#endif
    return fapl;
}

int h5in_open_head(const char *path, h5in **out, char *err, size_t errlen)
{
    h5in *r = NULL;
    hid_t fapl = H5I_INVALID_HID;
    long long version = -1;
    const char *tool;
    int rc = -1;

    *out = NULL;
    /* HDF5 would print its whole error stack to stderr; every failure becomes one line instead. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if ((r = calloc(1, sizeof *r)) == NULL || (r->path = strdup(path)) == NULL) {
        h5in_put_err(err, errlen, "h5in_open: out of memory");
        goto out;
    }
    r->file = H5I_INVALID_HID;
    if (check_file(r, err, errlen) < 0)
        goto out;
    if ((fapl = reader_fapl()) < 0) {
        h5in_put_damaged(err, errlen, path, "H5Pcreate");
        goto out;
    }
    if ((r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0) {
        h5in_put_damaged(err, errlen, path, "opening it");
        goto out;
    }
    if (h5in_attrs_load(r, "/", err, errlen) < 0)
        goto out;
    tool = h5in_attr(r, "/", RB_H5_ATTR_TOOL);
    if (tool == NULL || strcmp(tool, "ringbench") != 0) {
        h5in_put_err(err, errlen, "%s: not a ringbench results file (no " RB_H5_ATTR_TOOL "=\"ringbench\" attribute)",
                     path);
        goto out;
    }
    if (h5in_root_int(r, RB_H5_ATTR_SCHEMA, &version) < 0 || version < 1) {
        h5in_put_err(err, errlen, "%s: not a ringbench results file (no valid " RB_H5_ATTR_SCHEMA ")", path);
        goto out;
    }
    if (version > RB_SCHEMA_VERSION) {
        h5in_put_err(err, errlen,
                     "%s: written by a newer ringbench (schema %lld > %d); update ringbench "
                     "to read it",
                     path, version, RB_SCHEMA_VERSION);
        goto out;
    }
    r->schema = (int)version;
    rc = 0;
out:
    h5util_close_id(&fapl, H5Pclose);
    if (rc != 0) {
        h5in_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

int h5in_groups_load(h5in *r, char *err, size_t errlen)
{
    for (size_t g = 1; g < N_ATTR_GROUPS; g++)
        if (h5in_attrs_load(r, attr_groups[g], err, errlen) < 0)
            return -1;
    return 0;
}

int h5in_open(const char *path, h5in **out, char *err, size_t errlen)
{
    h5in *r = NULL;
    long long complete = 0;

    if (out != NULL)
        *out = NULL;
    if (path == NULL || path[0] == '\0' || out == NULL) {
        h5in_put_err(err, errlen, "h5in_open: no path");
        return -1;
    }
    if (h5in_open_head(path, &r, err, errlen) != 0)
        return -1;
    if (h5in_cells_read(r, err, errlen) < 0 || h5in_trials_read(r, err, errlen) < 0 ||
        h5in_trials_index(r, err, errlen) < 0)
        goto fail;
    if (h5in_groups_load(r, err, errlen) < 0 || h5in_validate(r, err, errlen) < 0)
        goto fail;
    r->complete = h5in_root_int(r, RB_H5_ATTR_COMPLETE, &complete) == 0 && complete != 0;
    *out = r;
    return 0;
fail:
    h5in_close(r);
    return -1;
}

void h5in_close(h5in *r)
{
    if (r == NULL)
        return;
    h5util_close_id(&r->file, H5Fclose);
    for (size_t i = 0; i < r->nattrs; i++) {
        free(r->attrs[i].name);
        free(r->attrs[i].text);
    }
    free(r->attrs);
    free(r->rows);
    free(r->trials);
    free(r->trial_row);
    free(r->row_tidx);
    free(r->row_tstart);
    free(r->trial_rowof);
    free(r->tsamples);
    free(r->trial_bad);
    free(r->row_marked);
    for (size_t i = 0; r->row_samples != NULL && i < r->nrows; i++)
        free(r->row_samples[i]);
    free(r->row_samples);
    free(r->row_nsamples);
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    free(r->path);
    free(r);
}

// --- queries ---------------------------------------------------------------------------------------

size_t h5in_nrows(const h5in *r) { return r != NULL ? r->nrows : 0; }

const rb_row *h5in_row(const h5in *r, size_t i) { return r != NULL && i < r->nrows ? &r->rows[i] : NULL; }

/* A copy of n samples at src (n may be 0: *out = NULL). */
static int copy_samples(const h5in *r, const double *src, size_t n, double **out, size_t *nout, char *err,
                        size_t errlen)
{
    if (n == 0)
        return 0;
    if ((*out = malloc(n * sizeof **out)) == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for samples", r->path);
        return -1;
    }
    memcpy(*out, src, n * sizeof **out);
    *nout = n;
    return 0;
}

int h5in_trial_samples(const h5in *r, size_t t, double **out, size_t *n, char *err, size_t errlen)
{
    if (out == NULL || n == NULL) {
        h5in_put_err(err, errlen, "h5in_trial_samples: no output");
        return -1;
    }
    *out = NULL;
    *n = 0;
    if (r == NULL || t >= r->ntrials) {
        h5in_put_err(err, errlen, "h5in_trial_samples: trial %zu out of range (%zu trials)", t, h5in_ntrials(r));
        return -1;
    }
    if (r->trial_bad[t]) {
        h5in_put_err(err, errlen, "%s: " RB_H5_TRIALS " row %zu: %s", r->path, t, r->trials[t].reason);
        return -1;
    }
    if (r->trial_row != NULL) { /* schema 1: the row's own samples */
        size_t i = r->trial_row[t];
        return copy_samples(r, r->row_samples[i], r->row_nsamples[i], out, n, err, errlen);
    }
    const rb_trial *tr = &r->trials[t]; /* validated at open: inside /trial_samples */
    return copy_samples(r, r->tsamples + tr->sample_offset, (size_t)tr->n, out, n, err, errlen);
}

int h5in_samples(const h5in *r, size_t i, double **out, size_t *n, char *err, size_t errlen)
{
    if (out == NULL || n == NULL) {
        h5in_put_err(err, errlen, "h5in_samples: no output");
        return -1;
    }
    *out = NULL;
    *n = 0;
    if (r == NULL || i >= r->nrows) {
        h5in_put_err(err, errlen, "h5in_samples: row %zu out of range (%zu rows)", i, h5in_nrows(r));
        return -1;
    }
    if (strcmp(r->rows[i].status, RB_STATUS_DAMAGED) == 0) {
        h5in_put_err(err, errlen, "%s: " RB_H5_CELLS " row %zu: %s", r->path, i, r->rows[i].reason);
        return -1;
    }
    /* A row's own dataset (schema 1, and schema-2 rows written with samples), else its trials'. */
    if (r->row_nsamples[i] > 0 || r->trial_row != NULL)
        return copy_samples(r, r->row_samples[i], r->row_nsamples[i], out, n, err, errlen);
    size_t total = 0;
    for (size_t k = r->row_tstart[i]; k < r->row_tstart[i + 1]; k++)
        total += (size_t)r->trials[r->row_tidx[k]].n;
    if (total == 0)
        return 0;
    double *all = malloc(total * sizeof *all);
    if (all == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for samples", r->path);
        return -1;
    }
    total = 0;
    for (size_t k = r->row_tstart[i]; k < r->row_tstart[i + 1]; k++) {
        const rb_trial *tr = &r->trials[r->row_tidx[k]];
        memcpy(all + total, r->tsamples + tr->sample_offset, (size_t)tr->n * sizeof *all);
        total += (size_t)tr->n;
    }
    *out = all;
    *n = total;
    return 0;
}

size_t h5in_nwarnings(const h5in *r) { return r != NULL ? r->nwarnings + (r->warnings_dropped > 0) : 0; }

const char *h5in_warning(const h5in *r, size_t i)
{
    static char more[128];
    if (r == NULL || i > r->nwarnings || (i == r->nwarnings && r->warnings_dropped == 0))
        return NULL;
    if (i < r->nwarnings)
        return r->warnings[i];
    snprintf(more, sizeof more, "... and %zu more warnings like these", r->warnings_dropped);
    return more;
}

size_t h5in_ndamaged(const h5in *r)
{
    size_t n = 0;
    for (size_t i = 0; r != NULL && i < r->nrows; i++)
        n += strcmp(r->rows[i].status, RB_STATUS_DAMAGED) == 0;
    return n;
}

void h5in_print_warnings(const h5in *r, FILE *f, const char *prefix)
{
    for (size_t i = 0; i < h5in_nwarnings(r); i++)
        fprintf(f, "%s: WARNING: %s\n", prefix, h5in_warning(r, i));
}

size_t h5in_ntrials(const h5in *r) { return r != NULL ? r->ntrials : 0; }

const rb_trial *h5in_trial(const h5in *r, size_t t) { return r != NULL && t < r->ntrials ? &r->trials[t] : NULL; }

size_t h5in_row_trials(const h5in *r, size_t i, const size_t **idx)
{
    if (idx != NULL)
        *idx = NULL;
    if (r == NULL || i >= r->nrows || r->row_tstart == NULL)
        return 0;
    if (idx != NULL)
        *idx = r->row_tidx + r->row_tstart[i];
    return r->row_tstart[i + 1] - r->row_tstart[i];
}

const char *h5in_attr(const h5in *r, const char *group, const char *name)
{
    if (r == NULL || group == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < r->nattrs; i++)
        if (strcmp(r->attrs[i].group, group) == 0 && strcmp(r->attrs[i].name, name) == 0)
            return r->attrs[i].text;
    return NULL;
}

size_t h5in_attr_count(const h5in *r, const char *group)
{
    size_t count = 0;
    if (r == NULL || group == NULL)
        return 0;
    for (size_t i = 0; i < r->nattrs; i++)
        count += strcmp(r->attrs[i].group, group) == 0;
    return count;
}

const char *h5in_attr_name(const h5in *r, const char *group, size_t i)
{
    if (r == NULL || group == NULL)
        return NULL;
    for (size_t k = 0; k < r->nattrs; k++)
        if (strcmp(r->attrs[k].group, group) == 0 && i-- == 0)
            return r->attrs[k].name;
    return NULL;
}

int h5in_complete(const h5in *r) { return r != NULL && r->complete; }

int h5in_schema_version(const h5in *r) { return r != NULL ? r->schema : 0; }
