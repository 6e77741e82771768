/* h5in.c - reads a ringbench results file (the layout of h5out.c, documented in results/SCHEMA.md).
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

#include "h5in.h"
#include "h5out.h" /* h5out_row_type: the memory type of rb_row */
#include "h5util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    unsigned char *trial_bad; /* per trial: its samples are damaged (its row is marked) */
    double **row_samples;     /* per row: its own /samples/row_N (schema 1; schema-2 rows written so) */
    size_t *row_nsamples;
    char **warnings;          /* one line each: what was found damaged, and what was done about it */
    size_t nwarnings, warn_cap, warnings_dropped;
    h5in_attr_entry *attrs;
    size_t nattrs, cap;
    int complete;
    int schema;
};

/* The groups whose attributes are loaded, "/" first: its tool and schema_version are checked
 * before anything else is believed. */
static const char *const attr_groups[] = { "/", RB_H5_PROVENANCE, RB_H5_CAPABILITIES };
#define N_ATTR_GROUPS (sizeof attr_groups / sizeof attr_groups[0])

// --- errors ----------------------------------------------------------------------------------------

static void put_err(char *err, size_t errlen, const char *fmt, ...)
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
static void add_warning(h5in *r, const char *fmt, ...)
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
static void put_damaged(char *err, size_t errlen, const char *path, const char *what)
{
    char detail[256];
    h5util_detail(detail, sizeof detail, ": ");
    put_err(err, errlen, "%s: damaged or truncated file: %s failed%s", path, what, detail);
}

/* Whether n elements of size bytes could really be stored in a file of this size. */
static int plausible(const h5in *r, unsigned long long n, size_t size)
{
    unsigned long long limit = (r->file_size + 4096) * MAX_EXPANSION;
    return size > 0 && n <= limit / size && n <= SIZE_MAX / size;
}

// --- attributes ------------------------------------------------------------------------------------

static int attr_add(h5in *r, const char *group, const char *name, char *text)
{
    if (r->nattrs == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        h5in_attr_entry *a = realloc(r->attrs, cap * sizeof *a);
        if (a == NULL)
            return -1;
        r->attrs = a;
        r->cap = cap;
    }
    char *copy = strdup(name);
    if (copy == NULL)
        return -1;
    r->attrs[r->nattrs++] = (h5in_attr_entry){ group, copy, text };
    return 0;
}

/* A string attribute as malloc'd text, fixed-length (as h5out writes) or variable-length (as h5py
 * writes by default). */
static char *attr_string(hid_t attr, hid_t type)
{
    hid_t mem = H5I_INVALID_HID;
    char *text = NULL;
    htri_t vlen = H5Tis_variable_str(type);

    if (vlen < 0 || (mem = H5Tcopy(H5T_C_S1)) < 0)
        goto out;
    if (vlen) {
        char *s = NULL;
        if (H5Tset_size(mem, H5T_VARIABLE) < 0 || H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
            H5Aread(attr, mem, &s) < 0)
            goto out;
        text = strdup(s != NULL ? s : "");
        H5free_memory(s);
    } else {
        size_t size = H5Tget_size(type);
        if (size == 0 || size > MAX_ATTR_TEXT || H5Tset_size(mem, size + 1) < 0 ||
            H5Tset_strpad(mem, H5T_STR_NULLTERM) < 0 || H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
            (text = calloc(1, size + 2)) == NULL)
            goto out;
        if (H5Aread(attr, mem, text) < 0) {
            free(text);
            text = NULL;
        }
    }
out:
    h5util_close_id(&mem, H5Tclose);
    return text;
}

/* An attribute as text: strings as they are, integers %lld (%llu when unsigned 64-bit), floats
 * %.17g so they read back bit-exact. NULL on error. */
static char *attr_text(hid_t loc, const char *name)
{
    hid_t attr = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    char buf[64], *text = NULL;
    hssize_t npoints;

    if ((attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0 || (type = H5Aget_type(attr)) < 0 ||
        (space = H5Aget_space(attr)) < 0 || (npoints = H5Sget_simple_extent_npoints(space)) < 0)
        goto out;
    if (npoints != 1) {
        snprintf(buf, sizeof buf, "(%lld values, not shown)", (long long)npoints);
        text = strdup(buf);
        goto out;
    }
    switch (H5Tget_class(type)) {
    case H5T_STRING:
        text = attr_string(attr, type);
        break;
    case H5T_INTEGER:
        if (H5Tget_sign(type) == H5T_SGN_NONE && H5Tget_size(type) >= sizeof(long long)) {
            unsigned long long u;
            if (H5Aread(attr, H5T_NATIVE_ULLONG, &u) >= 0 && snprintf(buf, sizeof buf, "%llu", u) > 0)
                text = strdup(buf);
        } else {
            long long v;
            if (H5Aread(attr, H5T_NATIVE_LLONG, &v) >= 0 && snprintf(buf, sizeof buf, "%lld", v) > 0)
                text = strdup(buf);
        }
        break;
    case H5T_FLOAT: {
        double v;
        if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) >= 0 && snprintf(buf, sizeof buf, "%.17g", v) > 0)
            text = strdup(buf);
        break;
    }
    default:
        text = strdup("(unsupported type, not shown)");
        break;
    }
out:
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&type, H5Tclose);
    h5util_close_id(&attr, H5Aclose);
    return text;
}

typedef struct { h5in *r; const char *group; } attr_ctx;

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    attr_ctx *c = data;
    char *text = attr_text(loc, name);
    (void)info;
    if (text == NULL || attr_add(c->r, c->group, name, text) < 0) {
        free(text);
        return -1;
    }
    return 0;
}

/* Loads every attribute of group into r (in name order); a group that is absent has none. */
static int attrs_load(h5in *r, const char *group, char *err, size_t errlen)
{
    hid_t g = H5I_INVALID_HID;
    attr_ctx ctx = { r, group };
    hsize_t idx = 0;
    htri_t exists = 1;
    int rc = -1;

    if (strcmp(group, "/") != 0 && (exists = H5Lexists(r->file, group, H5P_DEFAULT)) < 0) {
        put_damaged(err, errlen, r->path, "looking up a group");
        goto out;
    }
    if (!exists)
        return 0;
    if ((g = H5Gopen2(r->file, group, H5P_DEFAULT)) < 0) {
        put_damaged(err, errlen, r->path, "opening a group");
        goto out;
    }
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &ctx) < 0) {
        char what[64];
        snprintf(what, sizeof what, "reading the attributes of %s", group);
        put_damaged(err, errlen, r->path, what);
        goto out;
    }
    rc = 0;
out:
    h5util_close_id(&g, H5Gclose);
    return rc;
}

/* An integer attribute of the root as int; -1 when absent or not a number. */
static int root_int(const h5in *r, const char *name, long long *value)
{
    const char *text = h5in_attr(r, "/", name);
    char *end;
    if (text == NULL)
        return -1;
    errno = 0;
    *value = strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' ? 0 : -1;
}

// --- the table -------------------------------------------------------------------------------------

#define CLASS_STR H5T_STRING
#define CLASS_I32 H5T_INTEGER
#define CLASS_I64 H5T_INTEGER
#define CLASS_U64 H5T_INTEGER
#define CLASS_F64 H5T_FLOAT

/* Columns of /cells that schema 1 did not have: a schema-1 file is read without them and they get
 * the values that say "one trial, sample-level interval" (row_defaults). */
static int column_new_in_schema2(const char *name)
{
    static const char *const added[] = {"cell_id", "window", "ci_method", "trials", "trial_p50_min",
                                        "trial_p50_max", "trial_cv"};
    if (rb_row_calls_column(name)) /* every calls_<kind> column (call_kinds.h) */
        return 1;
    for (size_t i = 0; i < sizeof added / sizeof *added; i++)
        if (strcmp(added[i], name) == 0)
            return 1;
    return 0;
}

/* Columns of /cells and /trials that schema 3 added: the checksums. Files before it are read
 * without them (and said to have no end-to-end check). */
static int column_new_in_schema3(const char *name)
{
    return strcmp(name, "samples_check") == 0 || strcmp(name, "check") == 0;
}

static int column_new_since_schema1(const char *name)
{
    return column_new_in_schema2(name) || column_new_in_schema3(name);
}

/* Checks one column of a file's table against its kind; on success inserts it into *mtype (the
 * memory type being built from the columns the file has). Returns 1 inserted, 0 absent but allowed,
 * -1 with a message. */
static int column_take(const h5in *r, const char *table, hid_t ftype, hid_t mtype, hid_t full, const char *name,
                       H5T_class_t cls, int required, char *err, size_t errlen)
{
    int idx = H5Tget_member_index(ftype, name);
    if (idx < 0) {
        H5Eclear2(H5E_DEFAULT);
        if (!required)
            return 0;
        put_err(err, errlen, "%s: %s lacks the column '%s' (schema %d)", r->path, table, name, r->schema);
        return -1;
    }
    if (H5Tget_member_class(ftype, (unsigned)idx) != cls) {
        put_err(err, errlen, "%s: %s column '%s' has the wrong type", r->path, table, name);
        return -1;
    }
    int fidx = H5Tget_member_index(full, name);
    hid_t mt = fidx >= 0 ? H5Tget_member_type(full, (unsigned)fidx) : H5I_INVALID_HID;
    int ok = mt >= 0 && H5Tinsert(mtype, name, H5Tget_member_offset(full, (unsigned)fidx), mt) >= 0;
    h5util_close_id(&mt, H5Tclose);
    if (!ok) {
        put_damaged(err, errlen, r->path, "building a memory type");
        return -1;
    }
    return 1;
}

/* The memory type for reading table (a compound dataset of type ftype) into structs laid out as
 * full: only the columns the file has, each checked; a column the file lacks is an error unless
 * optional(name) says it may be absent. H5I_INVALID_HID with a message on error. */
static hid_t table_mtype(const h5in *r, const char *table, hid_t ftype, hid_t full, int (*optional)(const char *),
                         char *err, size_t errlen)
{
    if (H5Tget_class(ftype) != H5T_COMPOUND) {
        put_err(err, errlen, "%s: %s is not a table (compound dataset)", r->path, table);
        return H5I_INVALID_HID;
    }
    hid_t mtype = H5Tcreate(H5T_COMPOUND, H5Tget_size(full));
    int n = H5Tget_nmembers(full);
    if (mtype < 0 || n < 0) {
        put_damaged(err, errlen, r->path, "building a memory type");
        h5util_close_id(&mtype, H5Tclose);
        return H5I_INVALID_HID;
    }
    for (int i = 0; i < n; i++) {
        char *name = H5Tget_member_name(full, (unsigned)i);
        H5T_class_t cls = H5Tget_member_class(full, (unsigned)i);
        int rc = name ? column_take(r, table, ftype, mtype, full, name, cls, !(optional && optional(name)),
                                    err, errlen) : -1;
        if (name)
            H5free_memory(name);
        if (rc < 0) {
            h5util_close_id(&mtype, H5Tclose);
            return H5I_INVALID_HID;
        }
    }
    return mtype;
}

#define RB_TERM_STR(field) row->field[sizeof row->field - 1] = '\0';
#define RB_TERM_I32(field)
#define RB_TERM_I64(field)
#define RB_TERM_U64(field)
#define RB_TERM_F64(field)
#define RB_TERM_COLUMN(kind, field, unit) RB_TERM_##kind(field)
static void terminate_row(rb_row *row) { RB_ROW_COLUMNS(RB_TERM_COLUMN) }
static void terminate_trial(rb_trial *row) { RB_TRIAL_COLUMNS(RB_TERM_COLUMN) }
#undef RB_TERM_COLUMN
#undef RB_TERM_STR
#undef RB_TERM_I32
#undef RB_TERM_I64
#undef RB_TERM_U64
#undef RB_TERM_F64

/* What a schema-1 row holds in the columns schema 2 added: it is one trial with a sample-level
 * interval, calls were not counted, and a latency row had one message in flight. */
static void row_defaults(rb_row *row, size_t i)
{
    row->cell_id = (int32_t)i;
    row->window = 0;
    snprintf(row->ci_method, sizeof row->ci_method, "%s", RB_CI_SAMPLES);
    row->trials = 1;
    row->trial_p50_min = row->trial_p50_max = NAN;
    row->trial_cv = NAN;
    rb_row_calls_clear(row);
}

/* Reads the 1-D compound table name into a calloc'd array of count records of size rec (memory type
 * from table_mtype with full and optional). *count = 0 and *out = NULL when absent and !required. */
static int table_read(h5in *r, const char *name, hid_t full, int (*optional)(const char *), int required,
                      void **out, size_t *count, char *err, size_t errlen)
{
    hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID;
    hid_t mtype = H5I_INVALID_HID;
    hsize_t dims = 0;
    htri_t exists;
    void *buf = NULL;
    size_t rec = H5Tget_size(full);
    int rc = -1;

    *out = NULL;
    *count = 0;
    if ((exists = H5Lexists(r->file, name, H5P_DEFAULT)) < 0) {
        put_damaged(err, errlen, r->path, "looking up a table");
        goto out;
    }
    if (!exists) {
        if (required)
            put_err(err, errlen, "%s: not a ringbench results file of schema %d (no %s table)", r->path,
                    r->schema, name);
        rc = required ? -1 : 0;
        goto out;
    }
    if ((dset = H5Dopen2(r->file, name, H5P_DEFAULT)) < 0 || (ftype = H5Dget_type(dset)) < 0 ||
        (space = H5Dget_space(dset)) < 0) {
        put_damaged(err, errlen, r->path, "opening a table");
        goto out;
    }
    if ((mtype = table_mtype(r, name, ftype, full, optional, err, errlen)) < 0)
        goto out;
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &dims, NULL) < 0 ||
        !plausible(r, dims, H5Tget_size(ftype))) {
        H5Eclear2(H5E_DEFAULT);
        put_err(err, errlen, "%s: damaged file: %s has an impossible shape", r->path, name);
        goto out;
    }
    if ((buf = calloc(dims ? (size_t)dims : 1, rec)) == NULL) {
        put_err(err, errlen, "%s: out of memory for %llu records of %s", r->path, (unsigned long long)dims, name);
        goto out;
    }
    if (dims > 0 && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        char what[64];
        snprintf(what, sizeof what, "reading %s", name);
        put_damaged(err, errlen, r->path, what);
        goto out;
    }
    *out = buf;
    *count = (size_t)dims;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    h5util_close_id(&mtype, H5Tclose);
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&ftype, H5Tclose);
    h5util_close_id(&dset, H5Dclose);
    return rc;
}

static int cells_read(h5in *r, char *err, size_t errlen)
{
    hid_t full = h5out_row_type();
    void *rows = NULL;
    int rc;

    if (full < 0) {
        put_damaged(err, errlen, r->path, "building the rb_row type");
        return -1;
    }
    if (!H5Lexists(r->file, RB_H5_CELLS, H5P_DEFAULT)) {
        H5Eclear2(H5E_DEFAULT);
        put_err(err, errlen, "%s: not a ringbench results file (no " RB_H5_CELLS " table)", r->path);
        H5Tclose(full);
        return -1;
    }
    rc = table_read(r, RB_H5_CELLS, full,
                    r->schema < 2 ? column_new_since_schema1 : r->schema < 3 ? column_new_in_schema3 : NULL, 1,
                    &rows, &r->nrows, err, errlen);
    H5Tclose(full);
    r->rows = rows;
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < r->nrows; i++) {
        terminate_row(&r->rows[i]);
        if (r->schema < 2)
            row_defaults(&r->rows[i], i);
    }
    return 0;
}

/* Schema 1: every ok row with samples is presented as its own single trial. */
static int trials_present_rows(h5in *r, char *err, size_t errlen)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nrows; i++)
        n += r->rows[i].n > 0;
    r->trials = calloc(n ? n : 1, sizeof *r->trials);
    r->trial_row = calloc(n ? n : 1, sizeof *r->trial_row);
    if (r->trials == NULL || r->trial_row == NULL) {
        put_err(err, errlen, "%s: out of memory", r->path);
        return -1;
    }
    for (size_t i = 0; i < r->nrows; i++) {
        const rb_row *row = &r->rows[i];
        if (row->n == 0)
            continue;
        rb_trial *t = &r->trials[r->ntrials];
        t->trial_id = (int32_t)r->ntrials;
        t->cell_id = row->cell_id;
        memcpy(t->family, row->family, sizeof t->family);
        memcpy(t->host_mem, row->host_mem, sizeof t->host_mem);
        memcpy(t->xfer, row->xfer, sizeof t->xfer);
        memcpy(t->launch, row->launch, sizeof t->launch);
        memcpy(t->ctrl, row->ctrl, sizeof t->ctrl);
        memcpy(t->status, row->status, sizeof t->status);
        t->size_bytes = row->size_bytes;
        t->window = row->window;
        t->seq = (int32_t)r->ntrials;
        t->n = row->n;
        t->p50 = row->p50;
        t->ci_lo = row->ci_lo;
        t->ci_hi = row->ci_hi;
        t->mean = row->mean;
        t->msgs_per_s = row->msgs_per_s;
        t->messages = row->messages;
        t->lost = row->lost;
        t->duplicated = row->duplicated;
        t->corrupted = row->corrupted;
        t->kernel_errors = row->kernel_errors;
        t->t_start_s = NAN;
        t->elapsed_s = row->elapsed_s;
        t->cpu_start = t->cpu_end = -1;
        t->ctx_switches = -1;
        t->sm_mhz_start = t->sm_mhz_end = t->mem_mhz_start = t->mem_mhz_end = NAN;
        r->trial_row[r->ntrials++] = i;
    }
    return 0;
}

static int trials_read(h5in *r, char *err, size_t errlen)
{
    hid_t full;
    void *trials = NULL;
    int rc;

    if (r->schema < 2)
        return trials_present_rows(r, err, errlen);
    if ((full = h5out_trial_type()) < 0) {
        put_damaged(err, errlen, r->path, "building the rb_trial type");
        return -1;
    }
    rc = table_read(r, RB_H5_TRIALS, full, r->schema < 3 ? column_new_in_schema3 : NULL, 1, &trials, &r->ntrials,
                    err, errlen);
    H5Tclose(full);
    r->trials = trials;
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < r->ntrials; i++) {
        terminate_trial(&r->trials[i]);
        if (r->trials[i].trial_id != (int32_t)i) {
            put_err(err, errlen, "%s: damaged file: " RB_H5_TRIALS " row %zu says it is trial %d", r->path, i,
                    (int)r->trials[i].trial_id);
            return -1;
        }
    }
    return 0;
}

/* The row of each trial (by cell_id), grouped per row and ordered by round. */
typedef struct { size_t row, round, idx; } trial_key;

static int cmp_trial_key(const void *a, const void *b)
{
    const trial_key *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int trials_index(h5in *r, char *err, size_t errlen)
{
    trial_key *keys = calloc(r->ntrials ? r->ntrials : 1, sizeof *keys);
    r->row_tidx = calloc(r->ntrials ? r->ntrials : 1, sizeof *r->row_tidx);
    r->row_tstart = calloc(r->nrows + 1, sizeof *r->row_tstart);
    r->trial_rowof = calloc(r->ntrials ? r->ntrials : 1, sizeof *r->trial_rowof);
    size_t nk = 0;
    int rc = -1;
    if (keys == NULL || r->row_tidx == NULL || r->row_tstart == NULL || r->trial_rowof == NULL) {
        put_err(err, errlen, "%s: out of memory", r->path);
        goto out;
    }
    /* cell_id -> row: rows are few (hundreds), trials a few thousand; a sorted lookup would be
     * faster, but a linear pass per distinct cell keeps this simple and it runs once per open. */
    for (size_t t = 0; t < r->ntrials; t++) {
        size_t row = SIZE_MAX;
        if (r->trial_row != NULL) {
            row = r->trial_row[t];
        } else {
            for (size_t i = 0; i < r->nrows; i++)
                if (r->rows[i].cell_id == r->trials[t].cell_id && strcmp(r->rows[i].family, r->trials[t].family) == 0) {
                    row = i;
                    break;
                }
        }
        r->trial_rowof[t] = row;
        if (row == SIZE_MAX)
            continue; /* a trial whose cell row was never written (a crash): kept in the file, not shown */
        keys[nk++] = (trial_key){row, (size_t)(r->trials[t].trial < 0 ? 0 : r->trials[t].trial), t};
    }
    if (nk > 1)
        qsort(keys, nk, sizeof *keys, cmp_trial_key);
    for (size_t k = 0; k < nk; k++) {
        r->row_tidx[k] = keys[k].idx;
        r->row_tstart[keys[k].row + 1]++;
    }
    for (size_t i = 0; i < r->nrows; i++)
        r->row_tstart[i + 1] += r->row_tstart[i];
    rc = 0;
out:
    free(keys);
    return rc;
}

// --- damage: marking, checks of what was read ---------------------------------------------------------

/* "latency/pinned/async/coop/mapped 8 B w1" for messages, every text bounded. */
static void row_label(const rb_row *row, char *buf, size_t n)
{
    snprintf(buf, n, "%.32s/%.32s/%.32s/%.32s/%.32s %llu B w%llu", row->family, row->host_mem, row->xfer,
             row->launch, row->ctrl, (unsigned long long)row->size_bytes, (unsigned long long)row->window);
    for (char *p = buf; *p; p++) /* a file's bytes are not trusted to be printable */
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            *p = '?';
}

/* Marks row i damaged: its status and reason say so, and a warning names it. The first reason is
 * kept; a row already marked is not warned about twice. */
static void mark_row(h5in *r, size_t i, const char *fmt, ...)
{
    rb_row *row = &r->rows[i];
    char why[512], label[256];
    va_list ap;
    if (strcmp(row->status, RB_STATUS_DAMAGED) == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    row_label(row, label, sizeof label);
    add_warning(r, "%s: " RB_H5_CELLS " row %zu (%s): %s; marked damaged, left out of every verdict", r->path, i,
                label, why);
    snprintf(row->status, sizeof row->status, "%s", RB_STATUS_DAMAGED);
    snprintf(row->reason, sizeof row->reason, "damaged: %.*s", (int)(sizeof row->reason - 10), why);
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
        add_warning(r, "%s: " RB_H5_TRIALS " row %zu (of no row in " RB_H5_CELLS "): %s", r->path, t, why);
}

/* The lengths written at close (schema 3) against what the file holds now: rows cut off or added
 * are refused, since which ones cannot be known. A file closed by a crash has no counts. */
static int check_counts(h5in *r, char *err, size_t errlen)
{
    static const struct { const char *attr, *what; } counts[] = {
        { RB_H5_ATTR_NROWS, RB_H5_CELLS " rows" }, { RB_H5_ATTR_NTRIALS, RB_H5_TRIALS " rows" } };
    size_t have[] = { r->nrows, r->ntrials };
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        long long want;
        if (root_int(r, counts[k].attr, &want) != 0)
            continue;
        if (want < 0 || (unsigned long long)want != (unsigned long long)have[k]) {
            put_err(err, errlen, "%s: damaged file: it holds %zu %s, but was closed with %lld (root attribute %s)",
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
#define NEG(f) if (isfinite(row->f) && row->f < 0) { *value = row->f; return #f; }
    NEG(min) NEG(p50) NEG(p90) NEG(p99) NEG(p999) NEG(max) NEG(mean) NEG(stddev)
    NEG(trial_p50_min) NEG(trial_p50_max) NEG(trial_cv) NEG(msgs_per_s) NEG(elapsed_s)
#undef NEG
    return NULL;
}

/* Each row by itself: its checksum first (before anything here changes it), its place, its unit,
 * the signs of its statistics. */
static void validate_rows(h5in *r)
{
    for (size_t i = 0; i < r->nrows; i++) {
        rb_row *row = &r->rows[i];
        int fam = rb_family_parse(row->family);
        const char *neg;
        double v = 0;
        if (r->schema >= 3 && rb_row_check(row) != row->check)
            mark_row(r, i, "its checksum does not match: the row was changed after it was written");
        else if (r->schema >= 2 && row->row_id != (int32_t)i) /* schema 1: row_id names its samples */
            mark_row(r, i, "it says it is row %d", (int)row->row_id);
        else if (fam >= 0 && strcmp(row->unit, rb_family_unit((rb_family)fam)) != 0)
            mark_row(r, i, "unit '%.32s' is not the unit of %s ('%s')", row->unit, row->family,
                     rb_family_unit((rb_family)fam));
        else if (strcmp(row->status, RB_STATUS_OK) == 0 && (neg = negative_stat(row, &v)) != NULL)
            mark_row(r, i, "%s is negative (%g), which no measurement is", neg, v);
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
        put_err(err, errlen, "%s: out of memory", r->path);
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

/* Each trial: its checksum, its samples where the one before ended (the writer appends them in
 * turn), one trial per round of its row. */
static void validate_trials(h5in *r)
{
    uint64_t next = 0;
    if (r->schema < 2)
        return;
    for (size_t t = 0; t < r->ntrials; t++) {
        rb_trial *tr = &r->trials[t];
        if (r->schema >= 3 && rb_trial_check(tr) != tr->check)
            mark_trial(r, t, "its checksum does not match: the trial was changed after it was written");
        else if (tr->sample_offset != next)
            mark_trial(r, t, "its samples start at %llu of " RB_H5_TRIAL_SAMPLES ", not where the trial before "
                       "ended (%llu)", (unsigned long long)tr->sample_offset, (unsigned long long)next);
        next = tr->sample_offset + tr->n;
        if (next < tr->sample_offset)
            next = UINT64_MAX;
    }
    for (size_t i = 0; i < r->nrows; i++)
        for (size_t k = r->row_tstart[i] + 1; k < r->row_tstart[i + 1]; k++)
            if (r->trials[r->row_tidx[k]].trial == r->trials[r->row_tidx[k - 1]].trial)
                mark_row(r, i, "two trials (%zu and %zu) of round %d", r->row_tidx[k - 1], r->row_tidx[k],
                         (int)r->trials[r->row_tidx[k]].trial);
}

/* The index of a sample no measurement can be (a negative time or bandwidth), or n. NaN and +inf
 * are left to the statistics, which take finite samples only. */
static size_t bad_sample(const double *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (s[k] < 0)
            return k;
    return n;
}

// --- samples, read once at open -----------------------------------------------------------------------

/* Reads the float64 dataset name (absent: 0 samples) into a malloc'd buffer. */
static int read_samples(const h5in *r, const char *group, const char *name, double **out, size_t *n, char *err,
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
        put_damaged(err, errlen, r->path, "looking up samples");
        goto out;
    }
    if (!exists)
        return 0; /* none kept (unsupported, failed, or no samples) */
    if ((dset = H5Dopen2(r->file, name, H5P_DEFAULT)) < 0 || (type = H5Dget_type(dset)) < 0 ||
        (space = H5Dget_space(dset)) < 0) {
        put_damaged(err, errlen, r->path, "opening a samples dataset");
        goto out;
    }
    if (H5Tget_class(type) != H5T_FLOAT && H5Tget_class(type) != H5T_INTEGER) {
        put_err(err, errlen, "%s: %s is not numeric", r->path, name);
        goto out;
    }
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &dims, NULL) < 0 ||
        !plausible(r, dims, sizeof(double))) {
        H5Eclear2(H5E_DEFAULT);
        put_err(err, errlen, "%s: damaged file: %s has an impossible shape", r->path, name);
        goto out;
    }
    if (dims == 0) {
        rc = 0;
        goto out;
    }
    if ((buf = malloc((size_t)dims * sizeof *buf)) == NULL) {
        put_err(err, errlen, "%s: out of memory for %llu samples", r->path, (unsigned long long)dims);
        goto out;
    }
    if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        put_damaged(err, errlen, r->path, "reading samples");
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
typedef struct bad_range { size_t lo, hi; char why[160]; } bad_range;

/* Which blocks (chunks) of /trial_samples HDF5's chunk index describes sanely: each exactly once, at
 * an offset that starts a chunk, inside the file, with every filter applied as the writer applies
 * them. A damaged index can otherwise make HDF5 return fill values (0.0) for a chunk it no longer
 * finds, or, with a filter mask that says "not compressed" on a compressed chunk, copy past the end of
 * its own buffer (HDF5 1.10.8, found by tests/test_h5_damaged.c under ASan). Blocks not sane are
 * set in bad[] and never read. Without H5Dget_chunk_info (HDF5 < 1.10.5) every block is trusted. */
static void chunk_index_check(const h5in *r, hid_t dset, hid_t space, hsize_t dims, hsize_t block,
                              unsigned char *bad)
{
    size_t nblocks = (size_t)((dims + block - 1) / block);
#if H5_VERSION_GE(1, 10, 5)
    hsize_t nchunks = 0, raw = block * sizeof(double);
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
    (void)r; (void)dset; (void)space;
    memset(bad, 0, nblocks);
#endif
}

/* Reads /trial_samples whole, one chunk per read, so that a chunk that cannot be read (its Fletcher-32
 * fails, its index entry is damaged) costs its own range only: that range is NaN in r->tsamples and
 * listed in *bad. Returns 0, or -1 with a message for a dataset that cannot be opened at all. */
static int tsamples_load(h5in *r, bad_range **bad, size_t *nbad, char *err, size_t errlen)
{
    hid_t dset = H5I_INVALID_HID, space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
    hsize_t dims = 0, block = SAMPLES_BLOCK;
    htri_t exists;
    unsigned char *index_bad = NULL;
    int rc = -1;

    *bad = NULL;
    *nbad = 0;
    if ((exists = H5Lexists(r->file, RB_H5_TRIAL_SAMPLES, H5P_DEFAULT)) < 0) {
        put_damaged(err, errlen, r->path, "looking up " RB_H5_TRIAL_SAMPLES);
        goto out;
    }
    if (!exists) {
        rc = 0;
        goto out;
    }
    if ((dset = H5Dopen2(r->file, RB_H5_TRIAL_SAMPLES, H5P_DEFAULT)) < 0 || (space = H5Dget_space(dset)) < 0 ||
        (dcpl = H5Dget_create_plist(dset)) < 0) {
        put_damaged(err, errlen, r->path, "opening " RB_H5_TRIAL_SAMPLES);
        goto out;
    }
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &dims, NULL) < 0 ||
        !plausible(r, dims, sizeof(double))) {
        H5Eclear2(H5E_DEFAULT);
        put_err(err, errlen, "%s: damaged file: " RB_H5_TRIAL_SAMPLES " has an impossible shape", r->path);
        goto out;
    }
    if (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &block) != 1)
        block = SAMPLES_BLOCK;
    H5Eclear2(H5E_DEFAULT);
    if (block == 0 || block > dims)
        block = dims ? dims : 1;
    if ((r->tsamples = malloc((dims ? (size_t)dims : 1) * sizeof *r->tsamples)) == NULL ||
        (*bad = calloc(dims / block + 1, sizeof **bad)) == NULL) {
        put_err(err, errlen, "%s: out of memory for %llu samples", r->path, (unsigned long long)dims);
        goto out;
    }
    r->ntsamples = (size_t)dims;
    if ((index_bad = calloc((size_t)(dims / block) + 1, 1)) == NULL) {
        put_err(err, errlen, "%s: out of memory", r->path);
        goto out;
    }
    if (H5Pget_layout(dcpl) == H5D_CHUNKED)
        chunk_index_check(r, dset, space, dims, block, index_bad);
    for (hsize_t at = 0; at < dims; at += block) {
        hsize_t count = dims - at < block ? dims - at : block;
        if (index_bad[at / block]) {
            bad_range *b = &(*bad)[(*nbad)++];
            b->lo = (size_t)at;
            b->hi = (size_t)(at + count);
            snprintf(b->why, sizeof b->why, "HDF5's chunk index entry of their chunk is damaged or missing");
            for (hsize_t k = 0; k < count; k++)
                r->tsamples[at + k] = NAN;
            continue;
        }
        herr_t ok = (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
                    H5Sselect_hyperslab(space, H5S_SELECT_SET, &at, NULL, &count, NULL) >= 0 &&
                    H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, space, H5P_DEFAULT, r->tsamples + at) >= 0 ? 0 : -1;
        bad_range *b = ok == 0 ? NULL : &(*bad)[(*nbad)++];
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
    rc = 0;
out:
    free(index_bad);
    h5util_close_id(&mspace, H5Sclose);
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
    if (root_int(r, RB_H5_ATTR_NSAMPLES, &want) == 0 && (want < 0 || (unsigned long long)want != r->ntsamples))
        add_warning(r, "%s: " RB_H5_TRIAL_SAMPLES " holds %zu samples, but the file was closed with %lld", r->path,
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
        else if (strcmp(tr->status, RB_STATUS_OK) == 0 && (k = bad_sample(s, hi - lo)) < hi - lo)
            mark_trial(r, t, "sample %zu is %g, which no measurement is", k, s[k]);
    }
    free(bad);
    return 0;
}

/* Each row's own samples dataset (schema 1: every row's; later, rows written with samples), read,
 * counted and checked. A schema-1 row without its dataset has no raw samples, as SCHEMA.md allows. */
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
        if (read_samples(r, RB_H5_SAMPLES, name, &r->row_samples[i], &n, why, sizeof why) != 0) {
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
        else if (strcmp(row->status, RB_STATUS_OK) == 0 && (k = bad_sample(r->row_samples[i], n)) < n)
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

/* Everything after the tables are loaded, in an order where each check can trust the ones before. */
static int validate(h5in *r, char *err, size_t errlen)
{
    r->trial_bad = calloc(r->ntrials ? r->ntrials : 1, 1);
    r->row_samples = calloc(r->nrows ? r->nrows : 1, sizeof *r->row_samples);
    r->row_nsamples = calloc(r->nrows ? r->nrows : 1, sizeof *r->row_nsamples);
    if (r->trial_bad == NULL || r->row_samples == NULL || r->row_nsamples == NULL) {
        put_err(err, errlen, "%s: out of memory", r->path);
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
    if (r->schema < 3)
        add_warning(r, "%s: a schema-%d file has no checksums: damage to its samples or to HDF5's chunk index "
                    "can go unnoticed (schema 3 files are checked end to end)", r->path, r->schema);
    return 0;
}

// --- open and close --------------------------------------------------------------------------------

/* Refuses, with the reason, what is not an HDF5 file at all; fills r->file_size. */
static int check_file(h5in *r, char *err, size_t errlen)
{
    struct stat st;
    htri_t is_hdf5;

    if (stat(r->path, &st) != 0) {
        put_err(err, errlen, "%s: %s", r->path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        put_err(err, errlen, "%s: is a directory, not a results file", r->path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) { /* a FIFO or a device: HDF5 would wait on it or read it forever */
        put_err(err, errlen, "%s: not a regular file (a FIFO, socket or device), not a results file", r->path);
        return -1;
    }
    if (access(r->path, R_OK) != 0) {
        put_err(err, errlen, "%s: %s", r->path, strerror(errno));
        return -1;
    }
    if (st.st_size == 0) {
        put_err(err, errlen, "%s: empty file, not an HDF5 results file", r->path);
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
        put_err(err, errlen, "%s: not an HDF5 file", r->path);
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

int h5in_open(const char *path, h5in **out, char *err, size_t errlen)
{
    h5in *r = NULL;
    hid_t fapl = H5I_INVALID_HID;
    long long version = -1, complete = 0;
    const char *tool;
    int rc = -1;

    if (out != NULL)
        *out = NULL;
    if (path == NULL || path[0] == '\0' || out == NULL) {
        put_err(err, errlen, "h5in_open: no path");
        return -1;
    }
    /* HDF5 would print its whole error stack to stderr; every failure becomes one line instead. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if ((r = calloc(1, sizeof *r)) == NULL || (r->path = strdup(path)) == NULL) {
        put_err(err, errlen, "h5in_open: out of memory");
        goto out;
    }
    r->file = H5I_INVALID_HID;
    if (check_file(r, err, errlen) < 0)
        goto out;
    if ((fapl = reader_fapl()) < 0) {
        put_damaged(err, errlen, path, "H5Pcreate");
        goto out;
    }
    if ((r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0) {
        put_damaged(err, errlen, path, "opening it");
        goto out;
    }
    if (attrs_load(r, "/", err, errlen) < 0)
        goto out;
    tool = h5in_attr(r, "/", RB_H5_ATTR_TOOL);
    if (tool == NULL || strcmp(tool, "ringbench") != 0) {
        put_err(err, errlen, "%s: not a ringbench results file (no " RB_H5_ATTR_TOOL
                "=\"ringbench\" attribute)", path);
        goto out;
    }
    if (root_int(r, RB_H5_ATTR_SCHEMA, &version) < 0 || version < 1) {
        put_err(err, errlen, "%s: not a ringbench results file (no valid " RB_H5_ATTR_SCHEMA ")", path);
        goto out;
    }
    if (version > RB_SCHEMA_VERSION) {
        put_err(err, errlen, "%s: written by a newer ringbench (schema %lld > %d); update ringbench "
                "to read it", path, version, RB_SCHEMA_VERSION);
        goto out;
    }
    r->schema = (int)version;
    if (cells_read(r, err, errlen) < 0 || trials_read(r, err, errlen) < 0 || trials_index(r, err, errlen) < 0)
        goto out;
    for (size_t g = 1; g < N_ATTR_GROUPS; g++)
        if (attrs_load(r, attr_groups[g], err, errlen) < 0)
            goto out;
    if (validate(r, err, errlen) < 0)
        goto out;
    r->complete = root_int(r, RB_H5_ATTR_COMPLETE, &complete) == 0 && complete != 0;
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

size_t h5in_nrows(const h5in *r)
{
    return r != NULL ? r->nrows : 0;
}

const rb_row *h5in_row(const h5in *r, size_t i)
{
    return r != NULL && i < r->nrows ? &r->rows[i] : NULL;
}

/* A copy of n samples at src (n may be 0: *out = NULL). */
static int copy_samples(const h5in *r, const double *src, size_t n, double **out, size_t *nout, char *err,
                        size_t errlen)
{
    if (n == 0)
        return 0;
    if ((*out = malloc(n * sizeof **out)) == NULL) {
        put_err(err, errlen, "%s: out of memory for samples", r->path);
        return -1;
    }
    memcpy(*out, src, n * sizeof **out);
    *nout = n;
    return 0;
}

int h5in_trial_samples(const h5in *r, size_t t, double **out, size_t *n, char *err, size_t errlen)
{
    if (out == NULL || n == NULL) {
        put_err(err, errlen, "h5in_trial_samples: no output");
        return -1;
    }
    *out = NULL;
    *n = 0;
    if (r == NULL || t >= r->ntrials) {
        put_err(err, errlen, "h5in_trial_samples: trial %zu out of range (%zu trials)", t, h5in_ntrials(r));
        return -1;
    }
    if (r->trial_bad[t]) {
        put_err(err, errlen, "%s: " RB_H5_TRIALS " row %zu: %s", r->path, t, r->trials[t].reason);
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
        put_err(err, errlen, "h5in_samples: no output");
        return -1;
    }
    *out = NULL;
    *n = 0;
    if (r == NULL || i >= r->nrows) {
        put_err(err, errlen, "h5in_samples: row %zu out of range (%zu rows)", i, h5in_nrows(r));
        return -1;
    }
    if (strcmp(r->rows[i].status, RB_STATUS_DAMAGED) == 0) {
        put_err(err, errlen, "%s: " RB_H5_CELLS " row %zu: %s", r->path, i, r->rows[i].reason);
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
        put_err(err, errlen, "%s: out of memory for samples", r->path);
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

size_t h5in_nwarnings(const h5in *r)
{
    return r != NULL ? r->nwarnings + (r->warnings_dropped > 0) : 0;
}

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

size_t h5in_ntrials(const h5in *r)
{
    return r != NULL ? r->ntrials : 0;
}

const rb_trial *h5in_trial(const h5in *r, size_t t)
{
    return r != NULL && t < r->ntrials ? &r->trials[t] : NULL;
}

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

int h5in_complete(const h5in *r)
{
    return r != NULL && r->complete;
}

int h5in_schema_version(const h5in *r)
{
    return r != NULL ? r->schema : 0;
}
