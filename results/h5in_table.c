/* h5in_table.c - the results reader's attributes and tables: /, /provenance and /capabilities
 * attributes, and the /cells and /trials tables read by column name (see h5in.c for the whole reader).
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
    r->attrs[r->nattrs++] = (h5in_attr_entry){group, copy, text};
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
        if (H5Tset_size(mem, H5T_VARIABLE) < 0 || H5Tset_cset(mem, H5Tget_cset(type)) < 0 || H5Aread(attr, mem, &s) < 0)
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
    case H5T_STRING: text = attr_string(attr, type); break;
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
    default: text = strdup("(unsupported type, not shown)"); break;
    }
out:
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&type, H5Tclose);
    h5util_close_id(&attr, H5Aclose);
    return text;
}

typedef struct {
    h5in *r;
    const char *group;
} attr_ctx;

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
int h5in_attrs_load(h5in *r, const char *group, char *err, size_t errlen)
{
    hid_t g = H5I_INVALID_HID;
    attr_ctx ctx = {r, group};
    hsize_t idx = 0;
    htri_t exists = 1;
    int rc = -1;

    if (strcmp(group, "/") != 0 && (exists = H5Lexists(r->file, group, H5P_DEFAULT)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "looking up a group");
        goto out;
    }
    if (!exists)
        return 0;
    if ((g = H5Gopen2(r->file, group, H5P_DEFAULT)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "opening a group");
        goto out;
    }
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &ctx) < 0) {
        char what[64];
        snprintf(what, sizeof what, "reading the attributes of %s", group);
        h5in_put_damaged(err, errlen, r->path, what);
        goto out;
    }
    rc = 0;
out:
    h5util_close_id(&g, H5Gclose);
    return rc;
}

/* An integer attribute of the root as int; -1 when absent or not a number. */
int h5in_root_int(const h5in *r, const char *name, long long *value)
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
    static const char *const added[] = {"cell_id",       "window",        "ci_method", "trials",
                                        "trial_p50_min", "trial_p50_max", "trial_cv"};
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

/* Columns of /trials that schema 4 added (RB_TRIAL_COLUMNS_4): the machine's load and the part's
 * own time. Files before it are read without them; rb_trial_columns4_unknown says "unknown". */
static int trial_column_new_since_schema3(const char *name)
{
#define RB_NEW4(kind, field, unit) || strcmp(name, #field) == 0
    return 0 RB_TRIAL_COLUMNS_4(RB_NEW4);
#undef RB_NEW4
}

static int trial_column_new_since_schema2(const char *name)
{
    return column_new_in_schema3(name) || trial_column_new_since_schema3(name);
}

/* Columns of /cells that schema 4 added: the two modes (results/bimodal.h). Files before it are
 * read without them, and the reader computes them from the samples (h5in_check.c). */
static int column_new_since_schema3(const char *name) { return rb_row_column_new_in_schema4(name); }

static int column_new_since_schema2(const char *name)
{
    return column_new_in_schema3(name) || column_new_since_schema3(name);
}

static int column_new_since_schema1(const char *name)
{
    return column_new_in_schema2(name) || column_new_since_schema2(name);
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
        h5in_put_err(err, errlen, "%s: %s lacks the column '%s' (schema %d)", r->path, table, name, r->schema);
        return -1;
    }
    if (H5Tget_member_class(ftype, (unsigned)idx) != cls) {
        h5in_put_err(err, errlen, "%s: %s column '%s' has the wrong type", r->path, table, name);
        return -1;
    }
    int fidx = H5Tget_member_index(full, name);
    hid_t mt = fidx >= 0 ? H5Tget_member_type(full, (unsigned)fidx) : H5I_INVALID_HID;
    int ok = mt >= 0 && H5Tinsert(mtype, name, H5Tget_member_offset(full, (unsigned)fidx), mt) >= 0;
    h5util_close_id(&mt, H5Tclose);
    if (!ok) {
        h5in_put_damaged(err, errlen, r->path, "building a memory type");
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
        h5in_put_err(err, errlen, "%s: %s is not a table (compound dataset)", r->path, table);
        return H5I_INVALID_HID;
    }
    hid_t mtype = H5Tcreate(H5T_COMPOUND, H5Tget_size(full));
    int n = H5Tget_nmembers(full);
    if (mtype < 0 || n < 0) {
        h5in_put_damaged(err, errlen, r->path, "building a memory type");
        h5util_close_id(&mtype, H5Tclose);
        return H5I_INVALID_HID;
    }
    for (int i = 0; i < n; i++) {
        char *name = H5Tget_member_name(full, (unsigned)i);
        H5T_class_t cls = H5Tget_member_class(full, (unsigned)i);
        int rc = name ? column_take(r, table, ftype, mtype, full, name, cls, !(optional && optional(name)), err, errlen)
                      : -1;
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
void h5in_row_terminate(rb_row *row) { RB_ROW_COLUMNS(RB_TERM_COLUMN) }
void h5in_trial_terminate(rb_trial *row) { RB_TRIAL_COLUMNS(RB_TERM_COLUMN) }
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

/* Whether HDF5's chunk index of a table (a 1-D chunked dataset of dims records of rec bytes) is sane
 * (h5in_chunk_index_check): a table is read whole, so one bad chunk refuses it. 1 sane or not chunked. */
static int table_chunks_sane(const h5in *r, hid_t dset, hid_t space, hsize_t dims, size_t rec)
{
    hid_t dcpl = H5Dget_create_plist(dset);
    hsize_t block = 0;
    int sane = 1;
    if (dcpl < 0 || (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &block) != 1)) {
        sane = 0;
    } else if (H5Pget_layout(dcpl) == H5D_CHUNKED && dims > 0 && block > 0) {
        unsigned char *bad = calloc((size_t)(dims / block) + 1, 1);
        if (bad == NULL)
            sane = 0;
        else {
            h5in_chunk_index_check(r, dset, space, dims, block, rec, bad);
            for (size_t k = 0; k < (size_t)((dims + block - 1) / block); k++)
                sane &= !bad[k];
        }
        free(bad);
    }
    H5Eclear2(H5E_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return sane;
}

int h5in_table_open(const h5in *r, const char *name, hid_t full, int (*optional)(const char *), h5in_table *t,
                    char *err, size_t errlen)
{
    hid_t ftype = H5I_INVALID_HID;
    hsize_t dims = 0;
    int rc = -1;
    t->dset = t->mtype = t->space = H5I_INVALID_HID;
    t->count = 0;
    if ((t->dset = H5Dopen2(r->file, name, H5P_DEFAULT)) < 0 || (ftype = H5Dget_type(t->dset)) < 0 ||
        (t->space = H5Dget_space(t->dset)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "opening a table");
        goto out;
    }
    if ((t->mtype = table_mtype(r, name, ftype, full, optional, err, errlen)) < 0)
        goto out;
    if (H5Sget_simple_extent_ndims(t->space) != 1 || H5Sget_simple_extent_dims(t->space, &dims, NULL) < 0 ||
        !h5in_plausible(r, dims, H5Tget_size(ftype))) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: damaged file: %s has an impossible shape", r->path, name);
        goto out;
    }
    if (!table_chunks_sane(r, t->dset, t->space, dims, H5Tget_size(ftype))) {
        h5in_put_err(err, errlen, "%s: damaged file: HDF5's chunk index of %s is damaged", r->path, name);
        goto out;
    }
    t->count = (size_t)dims;
    rc = 0;
out:
    h5util_close_id(&ftype, H5Tclose);
    if (rc != 0)
        h5in_table_close(t);
    return rc;
}

int h5in_table_block(const h5in *r, const h5in_table *t, const char *name, size_t at, size_t n, void *buf, char *err,
                     size_t errlen)
{
    hid_t mspace = H5I_INVALID_HID;
    hsize_t start = at, count = n;
    int ok = n == 0 || ((mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
                        H5Sselect_hyperslab(t->space, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
                        H5Dread(t->dset, t->mtype, mspace, t->space, H5P_DEFAULT, buf) >= 0);
    if (!ok) {
        char what[64];
        snprintf(what, sizeof what, "reading %s", name);
        h5in_put_damaged(err, errlen, r->path, what);
    }
    h5util_close_id(&mspace, H5Sclose);
    return ok ? 0 : -1;
}

void h5in_table_close(h5in_table *t)
{
    h5util_close_id(&t->mtype, H5Tclose);
    h5util_close_id(&t->space, H5Sclose);
    h5util_close_id(&t->dset, H5Dclose);
}

/* Reads the 1-D compound table name into a calloc'd array of count records of size rec (memory type
 * from table_mtype with full and optional). *count = 0 and *out = NULL when absent and !required. */
static int table_read(h5in *r, const char *name, hid_t full, int (*optional)(const char *), int required, void **out,
                      size_t *count, char *err, size_t errlen)
{
    h5in_table t = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, 0};
    htri_t exists;
    void *buf = NULL;
    size_t rec = H5Tget_size(full);
    int rc = -1;

    *out = NULL;
    *count = 0;
    if ((exists = H5Lexists(r->file, name, H5P_DEFAULT)) < 0) {
        h5in_put_damaged(err, errlen, r->path, "looking up a table");
        goto out;
    }
    if (!exists) {
        if (required)
            h5in_put_err(err, errlen, "%s: not a ringbench results file of schema %d (no %s table)", r->path, r->schema,
                         name);
        rc = required ? -1 : 0;
        goto out;
    }
    if (h5in_table_open(r, name, full, optional, &t, err, errlen) != 0)
        goto out;
    if ((buf = calloc(t.count ? t.count : 1, rec)) == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for %zu records of %s", r->path, t.count, name);
        goto out;
    }
    if (t.count > 0 && H5Dread(t.dset, t.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        char what[64];
        snprintf(what, sizeof what, "reading %s", name);
        h5in_put_damaged(err, errlen, r->path, what);
        goto out;
    }
    *out = buf;
    *count = t.count;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    h5in_table_close(&t);
    return rc;
}

int (*h5in_cells_optional(int schema))(const char *)
{
    return schema < 2   ? column_new_since_schema1
           : schema < 3 ? column_new_since_schema2
           : schema < 4 ? column_new_since_schema3
                        : NULL;
}

int (*h5in_trials_optional(int schema))(const char *)
{
    return schema < 3 ? trial_column_new_since_schema2 : schema < 4 ? trial_column_new_since_schema3 : NULL;
}

int h5in_cells_read(h5in *r, char *err, size_t errlen)
{
    hid_t full = h5out_row_type();
    void *rows = NULL;
    int rc;

    if (full < 0) {
        h5in_put_damaged(err, errlen, r->path, "building the rb_row type");
        return -1;
    }
    if (!H5Lexists(r->file, RB_H5_CELLS, H5P_DEFAULT)) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: not a ringbench results file (no " RB_H5_CELLS " table)", r->path);
        H5Tclose(full);
        return -1;
    }
    rc = table_read(r, RB_H5_CELLS, full, h5in_cells_optional(r->schema), 1, &rows, &r->nrows, err, errlen);
    H5Tclose(full);
    r->rows = rows;
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < r->nrows; i++) {
        h5in_row_terminate(&r->rows[i]);
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
        h5in_put_err(err, errlen, "%s: out of memory", r->path);
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
        rb_trial_conditions_unknown(t);
        r->trial_row[r->ntrials++] = i;
    }
    return 0;
}

int h5in_trials_read(h5in *r, char *err, size_t errlen)
{
    hid_t full;
    void *trials = NULL;
    int rc;

    if (r->schema < 2)
        return trials_present_rows(r, err, errlen);
    if ((full = h5out_trial_type()) < 0) {
        h5in_put_damaged(err, errlen, r->path, "building the rb_trial type");
        return -1;
    }
    rc = table_read(r, RB_H5_TRIALS, full, h5in_trials_optional(r->schema), 1, &trials, &r->ntrials, err, errlen);
    H5Tclose(full);
    r->trials = trials;
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < r->ntrials; i++) {
        h5in_trial_terminate(&r->trials[i]);
        if (r->schema < 4)
            rb_trial_columns4_unknown(&r->trials[i]);
        if (r->trials[i].trial_id != (int32_t)i) {
            h5in_put_err(err, errlen, "%s: damaged file: " RB_H5_TRIALS " row %zu says it is trial %d", r->path, i,
                         (int)r->trials[i].trial_id);
            return -1;
        }
    }
    return 0;
}

/* The row of each trial (by cell_id), grouped per row and ordered by round. */
typedef struct {
    size_t row, round, idx;
} trial_key;

static int cmp_trial_key(const void *a, const void *b)
{
    const trial_key *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int h5in_trials_index(h5in *r, char *err, size_t errlen)
{
    trial_key *keys = calloc(r->ntrials ? r->ntrials : 1, sizeof *keys);
    r->row_tidx = calloc(r->ntrials ? r->ntrials : 1, sizeof *r->row_tidx);
    r->row_tstart = calloc(r->nrows + 1, sizeof *r->row_tstart);
    r->trial_rowof = calloc(r->ntrials ? r->ntrials : 1, sizeof *r->trial_rowof);
    size_t nk = 0;
    int rc = -1;
    if (keys == NULL || r->row_tidx == NULL || r->row_tstart == NULL || r->trial_rowof == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", r->path);
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
