/* h5in_check.c - the results reader's checks: raw samples read once at open, and every check of what
 * was read (checksums, lengths, units, signs, one row per cell, one trial per round), which marks a
 * damaged row or trial rather than refusing the file (see h5in.c for the whole reader); and the
 * bimodal columns of files before schema 4, computed from their samples.
 */
#define _POSIX_C_SOURCE 200809L

#include "bimodal.h"
#include "h5in_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- damage: marking, checks of what was read ---------------------------------------------------------

/* "latency/pinned/async/coop/mapped 8 B w1" for messages, every text bounded. */
static void row_label(const rb_row *row, char *buf, size_t n)
{
    snprintf(buf, n, "%.32s/%.32s/%.32s/%.32s/%.32s %llu B w%llu", row->family, row->host_mem, row->xfer, row->launch,
             row->ctrl, (unsigned long long)row->size_bytes, (unsigned long long)row->window);
    for (char *p = buf; *p; p++) /* a file's bytes are not trusted to be printable */
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            *p = '?';
}

void h5in_warn_row(h5in *r, size_t i, const rb_row *row, const char *why)
{
    char label[256];
    row_label(row, label, sizeof label);
    h5in_add_warning(r, "%s: " RB_H5_CELLS " row %zu (%s): %s; marked damaged, left out of every verdict", r->path, i,
                     label, why);
}

void h5in_damage_row(rb_row *row, const char *why)
{
    snprintf(row->status, sizeof row->status, "%s", RB_STATUS_DAMAGED);
    snprintf(row->reason, sizeof row->reason, "damaged: %.*s", (int)(sizeof row->reason - 10), why);
}

/* Marks row i damaged: its status and reason say so, and a warning names it. The first reason is
 * kept; a row already marked is not warned about twice. */
static void mark_row(h5in *r, size_t i, const char *fmt, ...)
{
    rb_row *row = &r->rows[i];
    char why[512];
    va_list ap;
    if (r->row_marked[i]) /* not the row's own status: a file may say "damaged" too */
        return;
    r->row_marked[i] = 1;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    h5in_warn_row(r, i, row, why);
    h5in_damage_row(row, why);
}

/* Marks trial t damaged, and its row with it: a cell that silently lost a trial would change. */
static void mark_trial(h5in *r, size_t t, const char *fmt, ...)
{
    rb_trial *tr = &r->trials[t];
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (r->trial_bad != NULL)
        r->trial_bad[t] = 1;
    snprintf(tr->status, sizeof tr->status, "%s", RB_STATUS_DAMAGED);
    snprintf(tr->reason, sizeof tr->reason, "damaged: %.*s", (int)(sizeof tr->reason - 10), why);
    if (r->trial_rowof != NULL && r->trial_rowof[t] != SIZE_MAX)
        mark_row(r, r->trial_rowof[t], RB_H5_TRIALS " row %zu: %s", t, why);
    else
        h5in_add_warning(r, "%s: " RB_H5_TRIALS " row %zu (of no row in " RB_H5_CELLS "): %s", r->path, t, why);
}

/* The lengths written at close (schema 3) against what the file holds now: rows cut off or added
 * are refused, since which ones cannot be known. A file closed by a crash has no counts. */
static int check_counts(h5in *r, char *err, size_t errlen)
{
    static const struct {
        const char *attr, *what;
    } counts[] = {{RB_H5_ATTR_NROWS, RB_H5_CELLS " rows"}, {RB_H5_ATTR_NTRIALS, RB_H5_TRIALS " rows"}};
    size_t have[] = {r->nrows, r->ntrials};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        long long want;
        if (h5in_root_int(r, counts[k].attr, &want) != 0)
            continue;
        if (want < 0 || (unsigned long long)want != (unsigned long long)have[k]) {
            h5in_put_err(err, errlen, "%s: damaged file: it holds %zu %s, but was closed with %lld (root attribute %s)",
                         r->path, have[k], counts[k].what, want, counts[k].attr);
            return -1;
        }
    }
    return 0;
}

/* Values no measurement can have: a negative time or bandwidth. NaN is "does not apply". The
 * interval is not among them: widened for few trials (stats.h), its lower end may go below 0. */
static const char *negative_stat(const rb_row *row, double *value)
{
#define NEG(f)                            \
    if (isfinite(row->f) && row->f < 0) { \
        *value = row->f;                  \
        return #f;                        \
    }
    NEG(min)
    NEG(p50)
    NEG(p90)
    NEG(p99)
    NEG(p999)
    NEG(max)
    NEG(mean)
    NEG(stddev)
    NEG(trial_p50_min)
    NEG(trial_p50_max)
    NEG(trial_cv)
    NEG(msgs_per_s)
    NEG(elapsed_s)
#undef NEG
    return NULL;
}

/* What an ok row cannot hold although each value alone is a number (issue 53): a median that is not
 * finite, an infinite statistic (an interval's upper end may be: a rate's, widened for few trials), an
 * interval whose ends are inverted, no trials behind it (nor samples of its own, as a row measured as a
 * whole has). The reason into buf, or NULL. */
static const char *ok_row_lie(const rb_row *row, int schema, char *buf, size_t n)
{
    const double stat[] = {row->min, row->p50, row->p90, row->p99, row->p999, row->max, row->mean, row->stddev};
    static const char *const name[] = {"min", "p50", "p90", "p99", "p999", "max", "mean", "stddev"};
    if (!isfinite(row->p50))
        snprintf(buf, n, "p50 is %g in an ok row, which a measurement never gives", row->p50);
    else if (row->ci_lo > row->ci_hi)
        snprintf(buf, n, "its interval is inverted (ci_lo %g > ci_hi %g)", row->ci_lo, row->ci_hi);
    else if (schema >= 2 && row->trials == 0 &&
             (schema >= 3 ? row->samples_check == rb_check_samples(NULL, 0) : row->n == 0))
        snprintf(buf, n, "an ok row with 0 trials behind it and no samples of its own");
    else
        for (size_t k = 0; k < sizeof stat / sizeof *stat; k++)
            if (isinf(stat[k])) {
                snprintf(buf, n, "%s is %g, which a measurement never gives", name[k], stat[k]);
                return buf;
            }
    return buf[0] ? buf : NULL;
}

/* The checks of one row that need nothing but the row (the streaming reader shares them: h5in_stream.c):
 * its checksum first (before anything here changes it), its place, the values of its text columns, its
 * unit, the signs and the plausibility of its statistics. The reason into buf, or NULL. */
const char *h5in_row_problem(const rb_row *row, size_t i, int schema, char *buf, size_t n)
{
    const char *neg;
    double v = 0;
    buf[0] = '\0';
    if (schema >= 3 && rb_row_check_schema(row, schema) != row->check)
        return "its checksum does not match: the row was changed after it was written";
    if (schema >= 2 && row->row_id != (int32_t)i) /* schema 1: row_id names its samples */
        return snprintf(buf, n, "it says it is row %d", (int)row->row_id), buf;
    if (rb_row_unknown_text(row, buf, n) != NULL)
        return buf;
    int fam = rb_family_parse(row->family);
    if (strcmp(row->unit, rb_family_unit((rb_family)fam)) != 0)
        return snprintf(buf, n, "unit '%.32s' is not the unit of %s ('%s')", row->unit, row->family,
                        rb_family_unit((rb_family)fam)),
               buf;
    if (strcmp(row->status, RB_STATUS_OK) == 0 && (neg = negative_stat(row, &v)) != NULL)
        return snprintf(buf, n, "%s is negative (%g), which no measurement is", neg, v), buf;
    if (strcmp(row->status, RB_STATUS_OK) == 0 && ok_row_lie(row, schema, buf, n) != NULL)
        return buf;
    if (schema >= 4 && (neg = bimodal_row_invalid(row)) != NULL)
        return snprintf(buf, n, "%s (bimodal %d, mode_fast %g, mode_slow %g, slow_share %g)", neg, (int)row->bimodal,
                        row->mode_fast, row->mode_slow, row->slow_share),
               buf;
    return NULL;
}

/* Each row by itself (h5in_row_problem). */
static void validate_rows(h5in *r)
{
    char why[512];
    for (size_t i = 0; i < r->nrows; i++) {
        const char *p = h5in_row_problem(&r->rows[i], i, r->schema, why, sizeof why);
        if (p != NULL)
            mark_row(r, i, "%s", p);
    }
}

/* Rows ordered by what makes a cell (backend, family, mode, size, window); ties by index. */
static const rb_row *dup_rows;

static int cmp_cell_identity(const void *a, const void *b)
{
    const rb_row *x = &dup_rows[*(const size_t *)a], *y = &dup_rows[*(const size_t *)b];
    int c;
    if ((c = strcmp(x->family, y->family)) != 0 || (c = strcmp(x->backend, y->backend)) != 0 ||
        (c = strcmp(x->host_mem, y->host_mem)) != 0 || (c = strcmp(x->xfer, y->xfer)) != 0 ||
        (c = strcmp(x->launch, y->launch)) != 0 || (c = strcmp(x->ctrl, y->ctrl)) != 0)
        return c;
    if (x->size_bytes != y->size_bytes)
        return x->size_bytes < y->size_bytes ? -1 : 1;
    if (x->window != y->window)
        return x->window < y->window ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Rows ordered by (cell_id, family), by which trials find their row; ties by index. */
static int cmp_cell_id(const void *a, const void *b)
{
    const rb_row *x = &dup_rows[*(const size_t *)a], *y = &dup_rows[*(const size_t *)b];
    int c;
    if (x->cell_id != y->cell_id)
        return x->cell_id < y->cell_id ? -1 : 1;
    if ((c = strcmp(x->family, y->family)) != 0)
        return c;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int same_cell(const rb_row *x, const rb_row *y)
{
    return strcmp(x->family, y->family) == 0 && strcmp(x->backend, y->backend) == 0 &&
           strcmp(x->host_mem, y->host_mem) == 0 && strcmp(x->xfer, y->xfer) == 0 &&
           strcmp(x->launch, y->launch) == 0 && strcmp(x->ctrl, y->ctrl) == 0 && x->size_bytes == y->size_bytes &&
           x->window == y->window;
}

/* One row per cell: two rows of the same cell cannot both be right, and compare and the history
 * would count it twice, so both are marked. Schema 2 also needs cell_id unique per family (trials
 * find their row by it). */
static int validate_identity(h5in *r, char *err, size_t errlen)
{
    size_t *order = malloc((r->nrows ? r->nrows : 1) * sizeof *order);
    if (order == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", r->path);
        return -1;
    }
    for (size_t i = 0; i < r->nrows; i++)
        order[i] = i;
    dup_rows = r->rows; /* qsort has no context argument; h5in is used from one thread */
    if (r->nrows > 1)
        qsort(order, r->nrows, sizeof *order, cmp_cell_identity);
    for (size_t k = 1; k < r->nrows; k++)
        if (same_cell(&r->rows[order[k - 1]], &r->rows[order[k]])) {
            mark_row(r, order[k - 1], "the same cell as row %zu", order[k]);
            mark_row(r, order[k], "the same cell as row %zu", order[k - 1]);
        }
    if (r->schema >= 2 && r->nrows > 1) {
        qsort(order, r->nrows, sizeof *order, cmp_cell_id);
        for (size_t k = 1; k < r->nrows; k++) {
            const rb_row *x = &r->rows[order[k - 1]], *y = &r->rows[order[k]];
            /* Only where trials are involved: they find their row by (cell_id, family), so two such
             * rows leave it unknown whose trials they are. Rows without trials (invalid ones share
             * cell_id -1; rows written with their own samples) are not ambiguous. */
            int trials = r->row_tstart[order[k - 1] + 1] > r->row_tstart[order[k - 1]] ||
                         r->row_tstart[order[k] + 1] > r->row_tstart[order[k]];
            if (trials && x->cell_id == y->cell_id && strcmp(x->family, y->family) == 0) {
                mark_row(r, order[k - 1], "row %zu has the same cell_id %d", order[k], (int)y->cell_id);
                mark_row(r, order[k], "row %zu has the same cell_id %d", order[k - 1], (int)y->cell_id);
            }
        }
    }
    dup_rows = NULL;
    free(order);
    return 0;
}

const char *h5in_trial_problem(const rb_trial *tr, int schema, uint64_t *next, char *buf, size_t n)
{
    const char *p = NULL;
    if (schema >= 3 && rb_trial_check_schema(tr, schema) != tr->check)
        p = "its checksum does not match: the trial was changed after it was written";
    else if (tr->sample_offset != *next)
        p = (snprintf(buf, n,
                      "its samples start at %llu of " RB_H5_TRIAL_SAMPLES ", not where the trial before ended (%llu)",
                      (unsigned long long)tr->sample_offset, (unsigned long long)*next),
             buf);
    else if (rb_trial_unknown_text(tr, buf, n) != NULL)
        p = buf;
    *next = tr->sample_offset + tr->n;
    if (*next < tr->sample_offset)
        *next = UINT64_MAX;
    return p;
}

/* Each trial: its checksum, its samples where the one before ended (the writer appends them in
 * turn), its text columns; then one trial per round of its row. */
static void validate_trials(h5in *r)
{
    uint64_t next = 0;
    char why[512];
    if (r->schema < 2)
        return;
    for (size_t t = 0; t < r->ntrials; t++) {
        const char *p = h5in_trial_problem(&r->trials[t], r->schema, &next, why, sizeof why);
        if (p != NULL)
            mark_trial(r, t, "%s", p);
    }
    for (size_t i = 0; i < r->nrows; i++)
        for (size_t k = r->row_tstart[i] + 1; k < r->row_tstart[i + 1]; k++)
            if (r->trials[r->row_tidx[k]].trial == r->trials[r->row_tidx[k - 1]].trial)
                mark_row(r, i, "two trials (%zu and %zu) of round %d", r->row_tidx[k - 1], r->row_tidx[k],
                         (int)r->trials[r->row_tidx[k]].trial);
}

size_t h5in_bad_sample(const double *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!(s[k] >= 0) || isinf(s[k])) /* NaN fails the comparison */
            return k;
    return n;
}

// --- samples, read once at open -----------------------------------------------------------------------

/* Reads the float64 dataset name (absent: 0 samples) into a malloc'd buffer. */
int h5in_read_samples(const h5in *r, const char *group, const char *name, double **out, size_t *n, char *err,
                      size_t errlen)
{
    hid_t dset = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    hsize_t dims = 0;
    htri_t exists;
    double *buf = NULL;
    int rc = -1;

    *out = NULL;
    *n = 0;
    /* H5Lexists fails, rather than saying no, when the group itself is missing. */
    exists = strcmp(group, "/") == 0 ? 1 : H5Lexists(r->file, group, H5P_DEFAULT);
    if (exists > 0)
        exists = H5Lexists(r->file, name, H5P_DEFAULT);
    if (exists < 0) {
        h5in_put_damaged(err, errlen, r->path, "looking up samples");
        goto out;
    }
    if (!exists)
        return 0; /* none kept (unsupported, failed, or no samples) */
    if ((dset = H5Dopen2(r->file, name, H5P_DEFAULT)) < 0 || (type = H5Dget_type(dset)) < 0 ||
        (space = H5Dget_space(dset)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "opening a samples dataset");
        goto out;
    }
    if (H5Tget_class(type) != H5T_FLOAT && H5Tget_class(type) != H5T_INTEGER) {
        h5in_put_err(err, errlen, "%s: %s is not numeric", r->path, name);
        goto out;
    }
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &dims, NULL) < 0 ||
        !h5in_plausible(r, dims, sizeof(double))) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: damaged file: %s has an impossible shape", r->path, name);
        goto out;
    }
    if (dims == 0) {
        rc = 0;
        goto out;
    }
    if ((buf = malloc((size_t)dims * sizeof *buf)) == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for %llu samples", r->path, (unsigned long long)dims);
        goto out;
    }
    if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        h5in_put_damaged(err, errlen, r->path, "reading samples");
        goto out;
    }
    *out = buf;
    *n = (size_t)dims;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&type, H5Tclose);
    h5util_close_id(&dset, H5Dclose);
    return rc;
}

/* A range of /trial_samples that could not be read, and HDF5's reason. */
typedef struct bad_range {
    size_t lo, hi;
    char why[160];
} bad_range;

void h5in_chunk_index_check(const h5in *r, hid_t dset, hid_t space, hsize_t dims, hsize_t block, size_t elem,
                            unsigned char *bad)
{
    size_t nblocks = (size_t)((dims + block - 1) / block);
#if H5_VERSION_GE(1, 10, 5)
    hsize_t nchunks = 0, raw = block * elem;
    unsigned char *seen = calloc(nblocks ? nblocks : 1, 1);
    if (seen == NULL || H5Dget_num_chunks(dset, space, &nchunks) < 0) {
        H5Eclear2(H5E_DEFAULT);
        memset(bad, 1, nblocks);
        free(seen);
        return;
    }
    for (hsize_t i = 0; i < nchunks; i++) {
        hsize_t offset = 0, size = 0;
        haddr_t addr = HADDR_UNDEF;
        unsigned mask = 0;
        if (H5Dget_chunk_info(dset, space, i, &offset, &mask, &addr, &size) < 0 || offset % block != 0 ||
            offset / block >= nblocks) {
            H5Eclear2(H5E_DEFAULT);
            memset(bad, 1, nblocks); /* an entry that names no block: nothing in the index is sure */
            break;
        }
        size_t k = (size_t)(offset / block);
        if (seen[k]++ || size == 0 || addr == HADDR_UNDEF || addr > r->file_size || size > r->file_size - addr ||
            size > 2 * raw + 4096 || (mask != 0 && size < raw))
            bad[k] = 1;
    }
    for (size_t k = 0; k < nblocks; k++)
        if (seen[k] != 1) /* the writer writes every chunk once: a missing one reads as 0.0 */
            bad[k] = 1;
    free(seen);
#else
    (void)r;
    (void)dset;
    (void)space;
    (void)elem;
    memset(bad, 0, nblocks);
#endif
}

/* Reads /trial_samples block by block into r->tsamples; a block whose chunk index entry is damaged,
 * or whose read fails, becomes NaN and a bad range (bad[*nbad]) saying why. */
static void read_sample_blocks(h5in *r, hid_t dset, hid_t space, hsize_t dims, hsize_t block,
                               const unsigned char *index_bad, bad_range *bad, size_t *nbad)
{
    hid_t mspace = H5I_INVALID_HID;
    for (hsize_t at = 0; at < dims; at += block) {
        hsize_t count = dims - at < block ? dims - at : block;
        if (index_bad[at / block]) {
            bad_range *b = &bad[(*nbad)++];
            b->lo = (size_t)at;
            b->hi = (size_t)(at + count);
            snprintf(b->why, sizeof b->why, "HDF5's chunk index entry of their chunk is damaged or missing");
            for (hsize_t k = 0; k < count; k++)
                r->tsamples[at + k] = NAN;
            continue;
        }
        herr_t ok = (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
                            H5Sselect_hyperslab(space, H5S_SELECT_SET, &at, NULL, &count, NULL) >= 0 &&
                            H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, space, H5P_DEFAULT, r->tsamples + at) >= 0
                        ? 0
                        : -1;
        bad_range *b = ok == 0 ? NULL : &bad[(*nbad)++];
        if (b != NULL) /* before any other HDF5 call, which would clear the error stack */
            h5util_detail(b->why, sizeof b->why, "");
        h5util_close_id(&mspace, H5Sclose);
        if (b == NULL)
            continue;
        b->lo = (size_t)at;
        b->hi = (size_t)(at + count);
        for (hsize_t k = 0; k < count; k++)
            r->tsamples[at + k] = NAN;
    }
}

/* Reads /trial_samples whole, one chunk per read, so that a chunk that cannot be read (its Fletcher-32
 * fails, its index entry is damaged) costs its own range only: that range is NaN in r->tsamples and
 * listed in *bad. Returns 0, or -1 with a message for a dataset that cannot be opened at all. */
static int tsamples_load(h5in *r, bad_range **bad, size_t *nbad, char *err, size_t errlen)
{
    hid_t dset = H5I_INVALID_HID, space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hsize_t dims = 0, block = SAMPLES_BLOCK;
    htri_t exists;
    unsigned char *index_bad = NULL;
    int rc = -1;

    *bad = NULL;
    *nbad = 0;
    if ((exists = H5Lexists(r->file, RB_H5_TRIAL_SAMPLES, H5P_DEFAULT)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "looking up " RB_H5_TRIAL_SAMPLES);
        goto out;
    }
    if (!exists) {
        rc = 0;
        goto out;
    }
    if ((dset = H5Dopen2(r->file, RB_H5_TRIAL_SAMPLES, H5P_DEFAULT)) < 0 || (space = H5Dget_space(dset)) < 0 ||
        (dcpl = H5Dget_create_plist(dset)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "opening " RB_H5_TRIAL_SAMPLES);
        goto out;
    }
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &dims, NULL) < 0 ||
        !h5in_plausible(r, dims, sizeof(double))) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: damaged file: " RB_H5_TRIAL_SAMPLES " has an impossible shape", r->path);
        goto out;
    }
    if (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &block) != 1)
        block = SAMPLES_BLOCK;
    H5Eclear2(H5E_DEFAULT);
    if (block == 0 || block > dims)
        block = dims ? dims : 1;
    if ((r->tsamples = malloc((dims ? (size_t)dims : 1) * sizeof *r->tsamples)) == NULL ||
        (*bad = calloc(dims / block + 1, sizeof **bad)) == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for %llu samples", r->path, (unsigned long long)dims);
        goto out;
    }
    r->ntsamples = (size_t)dims;
    if ((index_bad = calloc((size_t)(dims / block) + 1, 1)) == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", r->path);
        goto out;
    }
    if (H5Pget_layout(dcpl) == H5D_CHUNKED)
        h5in_chunk_index_check(r, dset, space, dims, block, sizeof(double), index_bad);
    read_sample_blocks(r, dset, space, dims, block, index_bad, *bad, nbad);
    rc = 0;
out:
    free(index_bad);
    h5util_close_id(&dcpl, H5Pclose);
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&dset, H5Dclose);
    return rc;
}

/* Every trial's samples: readable, where its row says, matching their checksum, measurements. */
static int validate_tsamples(h5in *r, char *err, size_t errlen)
{
    bad_range *bad = NULL;
    size_t nbad = 0;
    long long want;
    if (tsamples_load(r, &bad, &nbad, err, errlen) != 0) {
        free(bad);
        return -1;
    }
    if (h5in_root_int(r, RB_H5_ATTR_NSAMPLES, &want) == 0 && (want < 0 || (unsigned long long)want != r->ntsamples))
        h5in_add_warning(r, "%s: " RB_H5_TRIAL_SAMPLES " holds %zu samples, but the file was closed with %lld", r->path,
                         r->ntsamples, want);
    for (size_t t = 0; t < r->ntrials; t++) {
        const rb_trial *tr = &r->trials[t];
        if (r->trial_bad[t])
            continue;
        if (tr->sample_offset > r->ntsamples || tr->n > r->ntsamples - tr->sample_offset) {
            mark_trial(r, t, "its samples [%llu, +%llu) lie outside " RB_H5_TRIAL_SAMPLES " (%zu samples)",
                       (unsigned long long)tr->sample_offset, (unsigned long long)tr->n, r->ntsamples);
            continue;
        }
        size_t lo = (size_t)tr->sample_offset, hi = lo + (size_t)tr->n, k;
        for (k = 0; k < nbad && (bad[k].hi <= lo || bad[k].lo >= hi); k++)
            ;
        const double *s = r->tsamples + lo;
        if (k < nbad)
            mark_trial(r, t, "its samples in " RB_H5_TRIAL_SAMPLES " [%zu, %zu) cannot be read (%s)", lo, hi,
                       bad[k].why[0] ? bad[k].why : "HDF5 gave no reason");
        else if (r->schema >= 3 && rb_check_samples(s, hi - lo) != tr->samples_check)
            mark_trial(r, t, "its samples in " RB_H5_TRIAL_SAMPLES " [%zu, %zu) do not match their checksum", lo, hi);
        else if (strcmp(tr->status, RB_STATUS_OK) == 0 && (k = h5in_bad_sample(s, hi - lo)) < hi - lo)
            mark_trial(r, t, "sample %zu is %g, which no measurement is", k, s[k]);
    }
    free(bad);
    return 0;
}

/* Each row's own samples dataset (schema 1: every row's; later, rows written with samples), read,
 * counted and checked. A schema-1 row without its dataset has no raw samples, as docs/schema.md allows. */
static void validate_row_samples(h5in *r)
{
    char name[64], why[512];
    for (size_t i = 0; i < r->nrows; i++) {
        rb_row *row = &r->rows[i];
        size_t n = 0, k;
        if (r->schema >= 2 && row->row_id != (int32_t)i)
            continue; /* marked: its dataset name cannot be trusted */
        snprintf(name, sizeof name, RB_H5_SAMPLES "/" RB_H5_SAMPLE_FMT, (int)row->row_id);
        why[0] = '\0';
        if (h5in_read_samples(r, RB_H5_SAMPLES, name, &r->row_samples[i], &n, why, sizeof why) != 0) {
            /* The path is already in the warning's head: keep only what follows it. */
            const char *tail = strncmp(why, r->path, strlen(r->path)) == 0 ? why + strlen(r->path) : why;
            mark_row(r, i, "its samples %s cannot be read%s", name, tail);
            continue;
        }
        r->row_nsamples[i] = n;
        if (n == 0) {
            if (r->schema >= 3 && rb_check_samples(NULL, 0) != row->samples_check)
                mark_row(r, i, "its samples %s are missing (their checksum says some were written)", name);
            continue;
        }
        if (r->schema >= 3 && rb_check_samples(r->row_samples[i], n) != row->samples_check)
            mark_row(r, i, "its samples %s do not match their checksum", name);
        else if (row->n != (uint64_t)n)
            mark_row(r, i, "n = %llu, but %s holds %zu samples", (unsigned long long)row->n, name, n);
        else if (strcmp(row->status, RB_STATUS_OK) == 0 && (k = h5in_bad_sample(r->row_samples[i], n)) < n)
            mark_row(r, i, "sample %zu of %s is %g, which no measurement is", k, name, r->row_samples[i][k]);
    }
}

/* An ok row measured in trials holds the samples of its ok trials: n counts them. */
static void validate_row_counts(h5in *r)
{
    if (r->schema < 2)
        return;
    for (size_t i = 0; i < r->nrows; i++) {
        const rb_row *row = &r->rows[i];
        uint64_t sum = 0;
        if (strcmp(row->status, RB_STATUS_OK) != 0 || row->n == 0 || r->row_nsamples[i] > 0 ||
            r->row_tstart[i] == r->row_tstart[i + 1])
            continue;
        for (size_t k = r->row_tstart[i]; k < r->row_tstart[i + 1]; k++) {
            const rb_trial *tr = &r->trials[r->row_tidx[k]];
            if (strcmp(tr->status, RB_STATUS_OK) == 0)
                sum += tr->n;
        }
        if (sum != row->n)
            mark_row(r, i, "n = %llu, but its ok trials in " RB_H5_TRIALS " hold %llu samples",
                     (unsigned long long)row->n, (unsigned long long)sum);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Files before schema 4 lack the bimodal columns: each ok row gets them from its samples, as the
 * writer of schema 4 fills them (bimodal.h), so old and new files read alike. A row whose samples
 * are gone or damaged has none. */
static int fill_modes(h5in *r, char *err, size_t errlen)
{
    for (size_t i = 0; i < r->nrows; i++) {
        rb_row *row = &r->rows[i];
        double *all = NULL;
        size_t n = 0;
        char why[256];
        bimodal_row_clear(row);
        if (strcmp(row->status, RB_STATUS_OK) != 0 || strcmp(row->unit, "us") != 0 ||
            h5in_samples(r, i, &all, &n, why, sizeof why) != 0 || n < BIMODAL_MIN_SAMPLES) {
            free(all);
            continue;
        }
        qsort(all, n, sizeof *all, cmp_double);
        int rc = bimodal_row_fill(row, all, n);
        free(all);
        if (rc != 0) {
            h5in_put_err(err, errlen, "%s: out of memory finding the modes of row %zu", r->path, i);
            return -1;
        }
    }
    return 0;
}

/* Everything after the tables are loaded, in an order where each check can trust the ones before. */
int h5in_validate(h5in *r, char *err, size_t errlen)
{
    r->trial_bad = calloc(r->ntrials ? r->ntrials : 1, 1);
    r->row_samples = calloc(r->nrows ? r->nrows : 1, sizeof *r->row_samples);
    r->row_nsamples = calloc(r->nrows ? r->nrows : 1, sizeof *r->row_nsamples);
    r->row_marked = calloc(r->nrows ? r->nrows : 1, 1);
    if (r->trial_bad == NULL || r->row_samples == NULL || r->row_nsamples == NULL || r->row_marked == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", r->path);
        return -1;
    }
    if (check_counts(r, err, errlen) != 0)
        return -1;
    validate_rows(r);
    if (validate_identity(r, err, errlen) != 0)
        return -1;
    validate_trials(r);
    if (r->schema >= 2 && validate_tsamples(r, err, errlen) != 0)
        return -1;
    validate_row_samples(r);
    validate_row_counts(r);
    if (r->schema < 4 && fill_modes(r, err, errlen) != 0)
        return -1;
    if (r->schema < 3)
        h5in_add_warning(r,
                         "%s: a schema-%d file has no checksums: damage to its samples or to HDF5's chunk index "
                         "can go unnoticed (schema 3 files are checked end to end)",
                         r->path, r->schema);
    return 0;
}
