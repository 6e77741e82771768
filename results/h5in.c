/* h5in.c - reads a ringbench results file (the layout of h5out.c, documented in results/SCHEMA.md).
 *
 * The whole /cells table and the attributes of /, /provenance and /capabilities are loaded at open;
 * raw samples are read on demand. The table is read by column NAME into rb_row (HDF5 converts), so
 * a file whose columns are in another order, or have other widths, reads the same. Anything that is
 * not a readable ringbench file of a schema this build knows is refused with one line of text; a
 * damaged file gives an error, never a crash (tests/test_h5_damaged.c feeds it such files under ASan).
 */
#define _POSIX_C_SOURCE 200809L

#include "h5in.h"
#include "h5out.h" /* h5out_row_type: the memory type of rb_row */
#include "h5util.h"

#include <errno.h>
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
#define CLASS_U64 H5T_INTEGER
#define CLASS_F64 H5T_FLOAT

/* Every column of RB_ROW_COLUMNS must be in the file's table with a compatible class; order and
 * widths may differ (H5Dread converts by name). */
static int cells_check_type(const h5in *r, hid_t ftype, char *err, size_t errlen)
{
    int idx;
    if (H5Tget_class(ftype) != H5T_COMPOUND) {
        put_err(err, errlen, "%s: " RB_H5_CELLS " is not a table (compound dataset)", r->path);
        return -1;
    }
#define RB_CHECK_COLUMN(kind, field, unit) \
    if ((idx = H5Tget_member_index(ftype, #field)) < 0) { \
        H5Eclear2(H5E_DEFAULT); \
        put_err(err, errlen, "%s: " RB_H5_CELLS " lacks the column '" #field "' (schema %d)", \
                r->path, r->schema); \
        return -1; \
    } \
    if (H5Tget_member_class(ftype, (unsigned)idx) != CLASS_##kind) { \
        put_err(err, errlen, "%s: " RB_H5_CELLS " column '" #field "' has the wrong type", r->path); \
        return -1; \
    }
    RB_ROW_COLUMNS(RB_CHECK_COLUMN)
#undef RB_CHECK_COLUMN
    return 0;
}

static void terminate_row(rb_row *row)
{
#define RB_TERM_STR(field) row->field[sizeof row->field - 1] = '\0';
#define RB_TERM_I32(field)
#define RB_TERM_U64(field)
#define RB_TERM_F64(field)
#define RB_TERM_COLUMN(kind, field, unit) RB_TERM_##kind(field)
    RB_ROW_COLUMNS(RB_TERM_COLUMN)
#undef RB_TERM_COLUMN
#undef RB_TERM_STR
#undef RB_TERM_I32
#undef RB_TERM_U64
#undef RB_TERM_F64
}

static int cells_read(h5in *r, char *err, size_t errlen)
{
    hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID;
    hid_t mtype = H5I_INVALID_HID;
    hsize_t dims = 0;
    htri_t exists;
    int rc = -1;

    if ((exists = H5Lexists(r->file, RB_H5_CELLS, H5P_DEFAULT)) < 0) {
        put_damaged(err, errlen, r->path, "looking up " RB_H5_CELLS);
        goto out;
    }
    if (!exists) {
        put_err(err, errlen, "%s: not a ringbench results file (no " RB_H5_CELLS " table)", r->path);
        goto out;
    }
    if ((dset = H5Dopen2(r->file, RB_H5_CELLS, H5P_DEFAULT)) < 0 || (ftype = H5Dget_type(dset)) < 0 ||
        (space = H5Dget_space(dset)) < 0) {
        put_damaged(err, errlen, r->path, "opening " RB_H5_CELLS);
        goto out;
    }
    if (cells_check_type(r, ftype, err, errlen) < 0)
        goto out;
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &dims, NULL) < 0 ||
        !plausible(r, dims, H5Tget_size(ftype))) {
        H5Eclear2(H5E_DEFAULT);
        put_err(err, errlen, "%s: damaged file: " RB_H5_CELLS " has an impossible shape", r->path);
        goto out;
    }
    if ((r->rows = calloc(dims ? (size_t)dims : 1, sizeof *r->rows)) == NULL) {
        put_err(err, errlen, "%s: out of memory for %llu rows", r->path, (unsigned long long)dims);
        goto out;
    }
    if ((mtype = h5out_row_type()) < 0) {
        put_damaged(err, errlen, r->path, "building the rb_row type");
        goto out;
    }
    if (dims > 0 && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->rows) < 0) {
        put_damaged(err, errlen, r->path, "reading " RB_H5_CELLS);
        goto out;
    }
    r->nrows = (size_t)dims;
    for (size_t i = 0; i < r->nrows; i++)
        terminate_row(&r->rows[i]);
    rc = 0;
out:
    h5util_close_id(&mtype, H5Tclose);
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&ftype, H5Tclose);
    h5util_close_id(&dset, H5Dclose);
    return rc;
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
    if (cells_read(r, err, errlen) < 0)
        goto out;
    for (size_t g = 1; g < N_ATTR_GROUPS; g++)
        if (attrs_load(r, attr_groups[g], err, errlen) < 0)
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

int h5in_samples(const h5in *r, size_t i, double **out, size_t *n, char *err, size_t errlen)
{
    hid_t dset = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    hsize_t dims = 0;
    htri_t exists;
    char name[64];
    double *buf = NULL;
    int rc = -1;

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
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(name, sizeof name, RB_H5_SAMPLES "/" RB_H5_SAMPLE_FMT, (int)r->rows[i].row_id);
    /* H5Lexists fails, rather than saying no, when /samples itself is missing. */
    if ((exists = H5Lexists(r->file, RB_H5_SAMPLES, H5P_DEFAULT)) > 0)
        exists = H5Lexists(r->file, name, H5P_DEFAULT);
    if (exists < 0) {
        put_damaged(err, errlen, r->path, "looking up samples");
        goto out;
    }
    if (!exists)
        return 0; /* a row without samples (unsupported, failed, or none kept) */
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
