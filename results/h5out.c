/* h5out.c - writes a ringbench results file (HDF5) so that a crash loses at most the row being run.
 *
 * Layout (docs/schema.md documents it for readers):
 *   /                 attributes tool, schema_version, complete, interrupted_by
 *   /cells            chunked, unlimited 1-D compound dataset, one rb_row per row (RB_ROW_COLUMNS),
 *                     with "unit_<column>" and "families" attributes so the file documents itself
 *   /samples/row_N    float64 raw samples of row N (absent when a row has none; schema 2 keeps
 *                     samples per trial instead)
 *   /trials           like /cells, one rb_trial per trial (RB_TRIAL_COLUMNS)
 *   /trial_samples    one chunked, unlimited float64 dataset: every trial's samples, appended
 *   /provenance, /capabilities   groups of scalar attributes, created on first use
 *
 * The table follows HDF5's H5TBmake_table: a C struct per row, a compound type built field by field
 * with HOFFSET, a chunked dataset extended by one row per append, deflate only when this HDF5 can
 * encode it. The file is created as PATH.partial, flushed and fsync'd after every row, and moved to
 * PATH by h5out_close (redis-style: never a half-written PATH). Exercised by tests/test_h5_roundtrip.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "h5out_internal.h"
#include "outfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

// --- errors ----------------------------------------------------------------------------------------

static void put_err(char *err, size_t errlen, const char *msg)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s", msg);
}

void h5out_fail(h5out *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
}

/* A failed HDF5 call: what we were doing, on which file, and HDF5's own innermost reason. A write
 * that the system refused (HDF5's file driver puts "errno = N" in its message) is said with that
 * errno's text alone: "No space left on device", not HDF5's line of buffer addresses. */
void h5out_fail_h5(h5out *w, const char *what)
{
    char detail[512];
    h5util_detail(detail, sizeof detail, "");
    const char *at = strstr(detail, "errno = ");
    int e = at ? atoi(at + 8) : 0;
    if (e > 0) {
        h5out_fail(w, "%s: %s failed: %s", w->partial, what, strerror(e));
        w->failed = H5OUT_FAILED_WRITE;
    } else
        h5out_fail(w, "%s: %s failed%s%s", w->partial, what, detail[0] ? ": " : "", detail);
}

// --- the row type ----------------------------------------------------------------------------------

/* Each insert checks that the column's KIND in RB_ROW_COLUMNS matches the size of the struct field. */
static int insert_STR(hid_t type, const char *name, size_t offset, size_t size)
{
    hid_t str = H5I_INVALID_HID;
    int rc = -1;
    if ((str = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(str, size) < 0 || H5Tset_strpad(str, H5T_STR_NULLTERM) < 0 ||
        H5Tinsert(type, name, offset, str) < 0)
        goto out;
    rc = 0;
out:
    h5util_close_id(&str, H5Tclose);
    return rc;
}

static int insert_I32(hid_t type, const char *name, size_t offset, size_t size)
{
    return size == sizeof(int32_t) && H5Tinsert(type, name, offset, H5T_NATIVE_INT32) >= 0 ? 0 : -1;
}

static int insert_I64(hid_t type, const char *name, size_t offset, size_t size)
{
    return size == sizeof(int64_t) && H5Tinsert(type, name, offset, H5T_NATIVE_INT64) >= 0 ? 0 : -1;
}

static int insert_U64(hid_t type, const char *name, size_t offset, size_t size)
{
    return size == sizeof(uint64_t) && H5Tinsert(type, name, offset, H5T_NATIVE_UINT64) >= 0 ? 0 : -1;
}

static int insert_F64(hid_t type, const char *name, size_t offset, size_t size)
{
    return size == sizeof(double) && H5Tinsert(type, name, offset, H5T_NATIVE_DOUBLE) >= 0 ? 0 : -1;
}

hid_t h5out_row_type(void)
{
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(rb_row));
    if (type < 0)
        return H5I_INVALID_HID;
#define RB_INSERT_COLUMN(kind, field, unit)                                                    \
    if (insert_##kind(type, #field, HOFFSET(rb_row, field), sizeof(((rb_row *)0)->field)) < 0) \
        goto fail;
    RB_ROW_COLUMNS(RB_INSERT_COLUMN)
#undef RB_INSERT_COLUMN
    return type;
fail:
    H5Tclose(type);
    return H5I_INVALID_HID;
}

hid_t h5out_trial_type(void)
{
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(rb_trial));
    if (type < 0)
        return H5I_INVALID_HID;
#define RB_INSERT_COLUMN(kind, field, unit)                                                        \
    if (insert_##kind(type, #field, HOFFSET(rb_trial, field), sizeof(((rb_trial *)0)->field)) < 0) \
        goto fail;
    RB_TRIAL_COLUMNS(RB_INSERT_COLUMN)
#undef RB_INSERT_COLUMN
    return type;
fail:
    H5Tclose(type);
    return H5I_INVALID_HID;
}

/* Terminates a fixed string field and zeroes what follows the terminator, so a row written twice
 * gives the same bytes and no stale memory reaches the file. */
static void tidy_str(char *s, size_t size)
{
    s[size - 1] = '\0';
    size_t len = strlen(s);
    memset(s + len, 0, size - len);
}

#define RB_TIDY_STR(field) tidy_str(r->field, sizeof r->field);
#define RB_TIDY_I32(field)
#define RB_TIDY_I64(field)
#define RB_TIDY_U64(field)
#define RB_TIDY_F64(field)
#define RB_TIDY_COLUMN(kind, field, unit) RB_TIDY_##kind(field)
static void tidy_row(rb_row *r) { RB_ROW_COLUMNS(RB_TIDY_COLUMN) }
static void tidy_trial(rb_trial *r) { RB_TRIAL_COLUMNS(RB_TIDY_COLUMN) }
#undef RB_TIDY_COLUMN
#undef RB_TIDY_STR
#undef RB_TIDY_I32
#undef RB_TIDY_I64
#undef RB_TIDY_U64
#undef RB_TIDY_F64

// --- datasets --------------------------------------------------------------------------------------

/* The creation list of every dataset: chunked, deflated when this HDF5 can encode it, and
 * checksummed (fletcher32) so that a damaged chunk is reported on read instead of returned. */
static hid_t chunked_dcpl(h5out *w, hsize_t chunk)
{
    hid_t dcpl = H5I_INVALID_HID;

    H5_CHECK(w, dcpl = H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
    H5_CHECK(w, H5Pset_chunk(dcpl, 1, &chunk), "H5Pset_chunk");
    if (w->deflate)
        H5_CHECK(w, H5Pset_deflate(dcpl, DEFLATE_LEVEL), "H5Pset_deflate");
    if (w->fletcher32)
        H5_CHECK(w, H5Pset_fletcher32(dcpl), "H5Pset_fletcher32");
    return dcpl;
out:
    h5util_close_id(&dcpl, H5Pclose);
    return H5I_INVALID_HID;
}

static int filter_can_encode(H5Z_filter_t filter)
{
    unsigned int info = 0;
    if (H5Zfilter_avail(filter) <= 0 || H5Zget_filter_info(filter, &info) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    return (info & H5Z_FILTER_CONFIG_ENCODE_ENABLED) && (info & H5Z_FILTER_CONFIG_DECODE_ENABLED);
}

/* Creates an empty chunked, unlimited table named name of memory type mem_type (the file type is the
 * same without the struct's padding: no holes of stale bytes on disk, and readers such as h5py and
 * h5dump see exactly the columns). */
static hid_t table_create(h5out *w, const char *name, hid_t mem_type)
{
    hid_t file_type = H5I_INVALID_HID, space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hid_t dset = H5I_INVALID_HID;
    hsize_t dims = 0, maxdims = H5S_UNLIMITED;

    H5_CHECK(w, file_type = H5Tcopy(mem_type), "H5Tcopy");
    H5_CHECK(w, H5Tpack(file_type), "H5Tpack");
    H5_CHECK(w, space = H5Screate_simple(1, &dims, &maxdims), "H5Screate_simple");
    if ((dcpl = chunked_dcpl(w, CELLS_CHUNK_ROWS)) < 0)
        goto out;
    if ((dset = H5Dcreate2(w->file, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        h5out_fail_h5(w, name);
out:
    h5util_close_id(&dcpl, H5Pclose);
    h5util_close_id(&space, H5Sclose);
    h5util_close_id(&file_type, H5Tclose);
    return dset;
}

static int tables_create(h5out *w)
{
    if ((w->row_type = h5out_row_type()) < 0 || (w->trial_type = h5out_trial_type()) < 0) {
        h5out_fail_h5(w, "building the rb_row and rb_trial types");
        return -1;
    }
    if ((w->cells = table_create(w, RB_H5_CELLS, w->row_type)) < 0 ||
        (w->trials = table_create(w, RB_H5_TRIALS, w->trial_type)) < 0)
        return -1;
    /* Every trial's samples in one dataset: chunks of SAMPLES_CHUNK doubles, extended per trial. */
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hsize_t dims = 0, maxdims = H5S_UNLIMITED;
    int rc = -1;
    H5_CHECK(w, space = H5Screate_simple(1, &dims, &maxdims), "H5Screate_simple");
    if ((dcpl = chunked_dcpl(w, SAMPLES_CHUNK)) < 0)
        goto out;
    H5_CHECK(w,
             w->tsamples =
                 H5Dcreate2(w->file, RB_H5_TRIAL_SAMPLES, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
             "creating " RB_H5_TRIAL_SAMPLES);
    rc = h5out_cells_describe(w);
out:
    h5util_close_id(&dcpl, H5Pclose);
    h5util_close_id(&space, H5Sclose);
    return rc;
}

/* Appends one record of mem_type at index start of table dset. */
static int table_append(h5out *w, hid_t dset, hid_t mem_type, hsize_t start, const void *record, const char *what)
{
    hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
    hsize_t one = 1, extent = start + 1;
    int rc = -1;

    H5_CHECK(w, H5Dset_extent(dset, &extent), what);
    H5_CHECK(w, fspace = H5Dget_space(dset), "H5Dget_space");
    H5_CHECK(w, H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &one, NULL), "H5Sselect_hyperslab");
    H5_CHECK(w, mspace = H5Screate_simple(1, &one, NULL), "H5Screate_simple");
    H5_CHECK(w, H5Dwrite(dset, mem_type, mspace, fspace, H5P_DEFAULT, record), what);
    rc = 0;
out:
    h5util_close_id(&mspace, H5Sclose);
    h5util_close_id(&fspace, H5Sclose);
    return rc;
}

/* Writes samples as the dataset name (RB_H5_SAMPLES/row_N). */
static int samples_write(h5out *w, const char *name, const char *unit, const double *samples, size_t n)
{
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    hsize_t dims = n, chunk = n < SAMPLES_CHUNK ? n : SAMPLES_CHUNK;
    htri_t exists;
    int rc = -1;

    /* A previous append of this row may have failed after its samples were written. */
    H5_CHECK(w, exists = H5Lexists(w->file, name, H5P_DEFAULT), "H5Lexists");
    if (exists)
        H5_CHECK(w, H5Ldelete(w->file, name, H5P_DEFAULT), "H5Ldelete");
    H5_CHECK(w, space = H5Screate_simple(1, &dims, NULL), "H5Screate_simple");
    if ((dcpl = chunked_dcpl(w, chunk)) < 0)
        goto out;
    H5_CHECK(w, dset = H5Dcreate2(w->file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
             "creating the samples dataset");
    H5_CHECK(w, H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, samples), "writing samples");
    rc = h5out_attr_write_str(w, dset, RB_H5_ATTR_SAMPLE_UNIT, unit);
out:
    h5util_close_id(&dset, H5Dclose);
    h5util_close_id(&dcpl, H5Pclose);
    h5util_close_id(&space, H5Sclose);
    return rc;
}

/* Pushes everything written so far to the disk: HDF5's caches to the file, then the file to the
 * device, so that neither a crash of this process nor of the machine loses a completed row. */
static int flush_to_disk(h5out *w)
{
    void *handle = NULL;
    int rc = -1;

    H5_CHECK(w, H5Fflush(w->file, H5F_SCOPE_GLOBAL), "H5Fflush");
    H5_CHECK(w, H5Fget_vfd_handle(w->file, H5P_DEFAULT, &handle), "H5Fget_vfd_handle");
    if (handle != NULL && fsync(*(int *)handle) != 0) {
        h5out_fail(w, "%s: fsync failed: %s", w->partial, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    return rc;
}

// --- room on the disk, and giving up on a file -----------------------------------------------------------

/* The file descriptor under the file (HDF5's sec2 driver), or -1. */
static int vfd_of(h5out *w)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(w->file, H5P_DEFAULT, &handle) < 0 || handle == NULL)
        return -1;
    return *(const int *)handle;
}

/* What closing writes (the root's counts and flags, the run's last provenance, the tables' last
 * metadata), kept free from the first flush to the close. */
#define CLOSE_ROOM (256u * 1024u)

/* The most an append of one record of rec bytes with n samples can make the file grow: its chunk
 * of the table and the last chunk of the samples rewritten whole (compressed data is not updated in
 * place), the samples themselves, and HDF5's metadata. */
static unsigned long long append_room(size_t rec, size_t n)
{
    return 2ull * (CELLS_CHUNK_ROWS * rec + SAMPLES_CHUNK * sizeof(double)) + 2ull * n * sizeof(double) + 64u * 1024u;
}

/* Takes room for `need` bytes and the close beyond them before anything is written, so that a full
 * disk or a file-size limit stops the writer between two flushes, with the file whole (outfs.h; why:
 * docs/decisions/0120-room-before-rows.md). */
static int take_room(h5out *w, unsigned long long need, const char *what)
{
    char why[256];
    int fd = vfd_of(w);
    if (fd < 0) {
        h5out_fail_h5(w, "H5Fget_vfd_handle");
        return -1;
    }
    if (outfs_reserve(fd, need + CLOSE_ROOM, why, sizeof why) == 0)
        return 0;
    h5out_fail(w, "%s: no room for %s: %s", w->partial, what, why);
    w->failed = H5OUT_FAILED_ROOM;
    return -1;
}

/* HDF5 1.10 cannot close a file whose close failed part-way (H5F__dest has freed half of it): its
 * exit handler runs into what is left and crashes (SIGSEGV), after the command has said why it failed.
 * Registered after HDF5's own handler, this one runs before it and ends the process first, with
 * stdio flushed and exit status 1 (such a file is always a failure of the command). */
static void leave_before_hdf5(void)
{
    fflush(NULL);
    _exit(1);
}

/* Closes a file HDF5 may not write into any more (a write failed part-way): its descriptor is
 * replaced by a scratch one first, so HDF5's last writes and the close itself land there and the
 * file on disk stays as it was. The scratch file is in memory, so a full disk does not stop the
 * close; a file-size limit does (it applies to memory files too), hence the soft limit is raised to
 * the hard one for the close where it can be. */
static void abandon(h5out *w)
{
    struct rlimit was, up;
    if (w->file < 0)
        return;
    int fd = vfd_of(w), scratch = fd >= 0 ? outfs_scratch_fd() : -1;
    if (scratch >= 0) {
        dup2(scratch, fd);
        close(scratch);
    }
    int limited = getrlimit(RLIMIT_FSIZE, &was) == 0 && was.rlim_cur != was.rlim_max;
    up = was;
    up.rlim_cur = up.rlim_max;
    if (limited)
        setrlimit(RLIMIT_FSIZE, &up);
    H5Eclear2(H5E_DEFAULT);
    h5util_close_id(&w->cells, H5Dclose);
    h5util_close_id(&w->row_type, H5Tclose);
    h5util_close_id(&w->trials, H5Dclose);
    h5util_close_id(&w->trial_type, H5Tclose);
    h5util_close_id(&w->tsamples, H5Dclose);
    if (H5Fclose(w->file) < 0)
        atexit(leave_before_hdf5);
    w->file = H5I_INVALID_HID;
    H5Eclear2(H5E_DEFAULT);
    if (limited)
        setrlimit(RLIMIT_FSIZE, &was);
}

// --- open, append, close ---------------------------------------------------------------------------

/* The directory of path, malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    char *dir = malloc((size_t)(slash - path) + 1);
    if (dir != NULL) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
    return dir;
}

/* Everything that can be said before HDF5 is involved: a writable directory, no PATH unless force,
 * no stale PATH.partial unless force (then it is removed). */
static int check_paths(h5out *w)
{
    struct stat st;
    char *dir = dir_of(w->path);
    int rc = -1;

    if (dir == NULL) {
        h5out_fail(w, "%s: out of memory", w->path);
        goto out;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        h5out_fail(w, "cannot write '%s': directory '%s' %s", w->path, dir,
                   errno == ENOENT       ? "does not exist"
                   : S_ISDIR(st.st_mode) ? strerror(errno)
                                         : "is not a directory");
        goto out;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        h5out_fail(w, "cannot write '%s': directory '%s' is not writable (%s)", w->path, dir, strerror(errno));
        goto out;
    }
    if (lstat(w->path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            h5out_fail(w, "%s is a directory", w->path);
            goto out;
        }
        if (!w->force) {
            h5out_fail(w, "%s exists; use --force to replace it", w->path);
            goto out;
        }
    }
    if (lstat(w->partial, &st) == 0) {
        if (!w->force) {
            h5out_fail(w,
                       "%s exists, left by a ringbench that crashed or is still running; "
                       "look at it with h5dump, remove it, or use --force",
                       w->partial);
            goto out;
        }
        if (unlink(w->partial) != 0) {
            h5out_fail(w, "cannot remove the stale %s: %s", w->partial, strerror(errno));
            goto out;
        }
    }
    rc = 0;
out:
    free(dir);
    return rc;
}

/* Creates PATH.partial, refusing to take over one that appears meanwhile (H5F_ACC_EXCL opens with
 * O_EXCL). The file format is pinned to the 1.8 layout: its metadata is checksummed, so damage is
 * detected on read, and unlike the 1.10 superblock it carries no "open for writing" flag that would
 * make the .partial of a crashed run unreadable without h5clear. */
static int file_create(h5out *w)
{
    hid_t fapl = H5I_INVALID_HID;
    int rc = -1;

    H5_CHECK(w, fapl = H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate");
    H5_CHECK(w, H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18), "H5Pset_libver_bounds");
    /* Closing the file closes whatever is still open in it, so nothing keeps it open past close. */
    H5_CHECK(w, H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "H5Pset_fclose_degree");
    errno = 0;
    w->file = H5Fcreate(w->partial, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    if (w->file < 0) {
        int saved = errno;
        struct stat st;
        if (lstat(w->partial, &st) == 0)
            h5out_fail(w, "%s appeared while opening it: is another ringbench writing here?", w->partial);
        else if (saved != 0)
            h5out_fail(w, "cannot create %s: %s", w->partial, strerror(saved));
        else
            h5out_fail_h5(w, "H5Fcreate");
        H5Eclear2(H5E_DEFAULT);
        goto out;
    }
    rc = 0;
out:
    h5util_close_id(&fapl, H5Pclose);
    return rc;
}

static void writer_free(h5out *w)
{
    if (w == NULL)
        return;
    h5util_close_id(&w->cells, H5Dclose);
    h5util_close_id(&w->row_type, H5Tclose);
    h5util_close_id(&w->trials, H5Dclose);
    h5util_close_id(&w->trial_type, H5Tclose);
    h5util_close_id(&w->tsamples, H5Dclose);
    h5util_close_id(&w->file, H5Fclose);
    free(w->path);
    free(w->partial);
    free(w);
}

int h5out_open(const char *path, int force, h5out **out, char *err, size_t errlen)
{
    h5out *w = NULL;
    hid_t root = H5I_INVALID_HID, samples = H5I_INVALID_HID;
    int32_t version = RB_SCHEMA_VERSION, complete = 0;
    int rc = -1;

    if (out != NULL)
        *out = NULL;
    if (path == NULL || path[0] == '\0' || out == NULL) {
        put_err(err, errlen, "h5out_open: no output path");
        return -1;
    }
    if (outfs_path_check("results file", path, err, errlen) != 0)
        return -1;
    /* HDF5 would print its whole error stack to stderr; every failure becomes one line instead. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if ((w = calloc(1, sizeof *w)) == NULL) {
        put_err(err, errlen, "h5out_open: out of memory");
        return -1;
    }
    w->file = w->cells = w->row_type = w->trials = w->trial_type = w->tsamples = H5I_INVALID_HID;
    w->force = force;
    w->path = strdup(path);
    w->partial = malloc(strlen(path) + sizeof ".partial");
    if (w->path == NULL || w->partial == NULL) {
        put_err(err, errlen, "h5out_open: out of memory");
        writer_free(w);
        return -1;
    }
    sprintf(w->partial, "%s.partial", path);
    w->deflate = filter_can_encode(H5Z_FILTER_DEFLATE);
    w->fletcher32 = filter_can_encode(H5Z_FILTER_FLETCHER32);

    if (check_paths(w) < 0 || file_create(w) < 0)
        goto out;
    H5_CHECK(w, root = H5Gopen2(w->file, "/", H5P_DEFAULT), "H5Gopen2 /");
    if (h5out_attr_write_str(w, root, RB_H5_ATTR_TOOL, "ringbench") < 0 ||
        h5out_attr_write(w, root, RB_H5_ATTR_SCHEMA, H5T_NATIVE_INT32, &version) < 0 ||
        h5out_attr_write(w, root, RB_H5_ATTR_COMPLETE, H5T_NATIVE_INT32, &complete) < 0 ||
        h5out_attr_write_str(w, root, RB_H5_ATTR_INTERRUPTED, "") < 0)
        goto out;
    H5_CHECK(w, samples = H5Gcreate2(w->file, RB_H5_SAMPLES, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             "creating " RB_H5_SAMPLES);
    if (tables_create(w) < 0 || flush_to_disk(w) < 0 || take_room(w, 0, "the run's provenance") < 0)
        goto out;
    rc = 0;
out:
    h5util_close_id(&samples, H5Gclose);
    h5util_close_id(&root, H5Gclose);
    if (rc != 0) {
        put_err(err, errlen, w->err);
        /* The .partial is ours and holds nothing yet: remove it so it is not taken for a crash. */
        if (w->file >= 0) {
            abandon(w);
            unlink(w->partial);
        }
        writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

/* A write of an append failed part-way: the writer writes nothing more (see h5out_close). */
static int write_failed(h5out *w)
{
    w->failed = H5OUT_FAILED_WRITE;
    return -1;
}

/* Appends n samples to /trial_samples (none: nothing). */
static int tsamples_append(h5out *w, const double *samples, size_t n)
{
    hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
    hsize_t start = w->nsamples, count = n, extent = w->nsamples + n;
    int rc = -1;
    if (n == 0)
        return 0;
    H5_CHECK(w, H5Dset_extent(w->tsamples, &extent), "extending " RB_H5_TRIAL_SAMPLES);
    H5_CHECK(w, fspace = H5Dget_space(w->tsamples), "H5Dget_space");
    H5_CHECK(w, H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL), "H5Sselect_hyperslab");
    H5_CHECK(w, mspace = H5Screate_simple(1, &count, NULL), "H5Screate_simple");
    H5_CHECK(w, H5Dwrite(w->tsamples, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, samples),
             "writing " RB_H5_TRIAL_SAMPLES);
    w->nsamples += n;
    rc = 0;
out:
    h5util_close_id(&mspace, H5Sclose);
    h5util_close_id(&fspace, H5Sclose);
    return rc;
}

int h5out_append(h5out *w, rb_row *row, const double *samples, size_t n)
{
    rb_row copy;
    char name[64];

    if (w == NULL)
        return -1;
    if (w->file < 0 || w->cells < 0) {
        h5out_fail(w, "%s: the writer is closed", w->partial);
        return -1;
    }
    if (row == NULL || (n > 0 && samples == NULL)) {
        h5out_fail(w, "%s: h5out_append without a row or with %zu samples at NULL", w->partial, n);
        return -1;
    }
    if (w->nrows == INT32_MAX) {
        h5out_fail(w, "%s: the table is full (%d rows)", w->partial, (int)INT32_MAX);
        return -1;
    }
    if (w->failed != H5OUT_OK || take_room(w, append_room(sizeof(rb_row), n), "the next row") < 0)
        return -1;
    memcpy(&copy, row, sizeof copy);
    copy.row_id = w->nrows;
    tidy_row(&copy);
    /* The checksums are of exactly what is written: the tidied row and the samples as given. */
    copy.samples_check = rb_check_samples(samples, n);
    copy.check = rb_row_check(&copy);

    /* Samples first: a row that made it into the table always has its samples. */
    snprintf(name, sizeof name, RB_H5_SAMPLES "/" RB_H5_SAMPLE_FMT, (int)copy.row_id);
    if ((n > 0 && samples_write(w, name, copy.unit, samples, n) < 0) ||
        table_append(w, w->cells, w->row_type, (hsize_t)w->nrows, &copy, "writing a row of " RB_H5_CELLS) < 0 ||
        flush_to_disk(w) < 0)
        return write_failed(w);
    w->nrows++;
    row->row_id = copy.row_id;
    row->samples_check = copy.samples_check;
    row->check = copy.check;
    return 0;
}

int h5out_append_trial(h5out *w, rb_trial *t, const double *samples, size_t n)
{
    rb_trial copy;

    if (w == NULL)
        return -1;
    if (w->file < 0 || w->trials < 0) {
        h5out_fail(w, "%s: the writer is closed", w->partial);
        return -1;
    }
    if (t == NULL || (n > 0 && samples == NULL)) {
        h5out_fail(w, "%s: h5out_append_trial without a trial or with %zu samples at NULL", w->partial, n);
        return -1;
    }
    if (w->ntrials == INT32_MAX) {
        h5out_fail(w, "%s: the trials table is full", w->partial);
        return -1;
    }
    if (w->failed != H5OUT_OK || take_room(w, append_room(sizeof(rb_trial), n), "the next trial") < 0)
        return -1;
    memcpy(&copy, t, sizeof copy);
    copy.trial_id = w->ntrials;
    copy.n = n;
    copy.sample_offset = w->nsamples;
    tidy_trial(&copy);
    copy.samples_check = rb_check_samples(samples, n);
    copy.check = rb_trial_check(&copy);

    /* Samples first: a trial in the table always has its samples. */
    if (tsamples_append(w, samples, n) < 0 ||
        table_append(w, w->trials, w->trial_type, (hsize_t)w->ntrials, &copy, "writing a row of " RB_H5_TRIALS) < 0 ||
        flush_to_disk(w) < 0)
        return write_failed(w);
    w->ntrials++;
    t->trial_id = copy.trial_id;
    t->sample_offset = copy.sample_offset;
    t->n = copy.n;
    t->samples_check = copy.samples_check;
    t->check = copy.check;
    return 0;
}

/* Makes the file's rename durable: the directory entry is on disk too. Best effort: some
 * filesystems refuse fsync on a directory, and the data itself is already safe. */
static void sync_dir(const char *path)
{
    char *dir = dir_of(path);
    int fd = dir ? open(dir, O_RDONLY) : -1;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

/* Moves PATH.partial to PATH. Without force, link()+unlink() so that a PATH created meanwhile by
 * someone else is never replaced (rename() would silently clobber it). */
static int publish(h5out *w)
{
    struct stat st;

    if (!w->force) {
        if (link(w->partial, w->path) == 0) {
            if (unlink(w->partial) != 0) {
                h5out_fail(w, "%s written, but cannot remove %s: %s", w->path, w->partial, strerror(errno));
                return -1;
            }
            return 0;
        }
        if (errno == EEXIST && w->failed != H5OUT_OK) {
            char first[256];
            snprintf(first, sizeof first, "%.255s", w->err);
            h5out_fail(w, "%s; %s is kept, not replaced by a run that could not be written whole (that run is in %s)",
                       first, w->path, w->partial);
            return -1;
        }
        if (errno == EEXIST) {
            h5out_fail(w, "%s appeared while ringbench ran; not replacing it (results are in %s)", w->path, w->partial);
            return -1;
        }
        /* Filesystems without hard links (some FUSE and Windows mounts): check, then rename; the
         * window between the two is the best such a filesystem allows. */
        if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != ENOSYS) {
            h5out_fail(w, "cannot link %s to %s: %s", w->partial, w->path, strerror(errno));
            return -1;
        }
        if (lstat(w->path, &st) == 0) {
            h5out_fail(w, "%s appeared while ringbench ran; not replacing it (results are in %s)", w->path, w->partial);
            return -1;
        }
    }
    if (rename(w->partial, w->path) != 0) {
        h5out_fail(w, "cannot rename %s to %s: %s", w->partial, w->path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The root's flag, reason and counts, then every id closed and the file closed by HDF5. */
static int close_file(h5out *w, int complete, const char *why)
{
    hid_t root = H5I_INVALID_HID;
    int32_t flag = complete ? 1 : 0;
    ssize_t left;
    int rc = -1;

    H5_CHECK(w, root = H5Gopen2(w->file, "/", H5P_DEFAULT), "H5Gopen2 /");
    /* The lengths of the tables and of the samples, so a reader sees rows cut off or added later. */
    int64_t nrows = w->nrows, ntrials = w->ntrials, nsamples = (int64_t)w->nsamples;
    if (h5out_attr_write(w, root, RB_H5_ATTR_COMPLETE, H5T_NATIVE_INT32, &flag) < 0 ||
        h5out_attr_write_str(w, root, RB_H5_ATTR_INTERRUPTED, complete ? "" : why) < 0 ||
        h5out_attr_write(w, root, RB_H5_ATTR_NROWS, H5T_NATIVE_INT64, &nrows) < 0 ||
        h5out_attr_write(w, root, RB_H5_ATTR_NTRIALS, H5T_NATIVE_INT64, &ntrials) < 0 ||
        h5out_attr_write(w, root, RB_H5_ATTR_NSAMPLES, H5T_NATIVE_INT64, &nsamples) < 0)
        goto out;
    h5util_close_id(&root, H5Gclose);
    h5util_close_id(&w->cells, H5Dclose);
    h5util_close_id(&w->row_type, H5Tclose);
    h5util_close_id(&w->trials, H5Dclose);
    h5util_close_id(&w->trial_type, H5Tclose);
    h5util_close_id(&w->tsamples, H5Dclose);
    /* Everything this module opened is closed by now; anything left is a leak to fix. */
    H5_CHECK(w, left = H5Fget_obj_count(w->file, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR),
             "H5Fget_obj_count");
    if (left != 0) {
        h5out_fail(w, "%s: internal error: %zd HDF5 objects left open", w->partial, left);
        goto out;
    }
    H5_CHECK(w, H5Fclose(w->file), "H5Fclose");
    w->file = H5I_INVALID_HID;
    rc = 0;
out:
    h5util_close_id(&root, H5Gclose);
    return rc;
}

int h5out_close(h5out *w, int complete, const char *why, char *err, size_t errlen)
{
    int fd, rc = -1;

    if (w == NULL) {
        put_err(err, errlen, "h5out_close: no writer");
        return -1;
    }
    if (w->file < 0) {
        h5out_fail(w, "%s: the writer is closed", w->partial);
        goto out;
    }
    if (!complete && (why == NULL || why[0] == '\0'))
        why = "unknown";
    /* After a write that failed part-way, nothing more is written: the file stays as its last flush
     * left it, readable up to the last complete row, under its .partial name. */
    if (w->failed == H5OUT_FAILED_WRITE || close_file(w, complete, why) != 0) {
        char first[sizeof w->err];
        snprintf(first, sizeof first, "%s", w->err);
        abandon(w);
        h5out_fail(w, "%.400s; what was written before is kept in %s", first, w->partial);
        goto out;
    }
    outfs_release(w->partial); /* the room kept for rows that never came */
    /* A run that could not be written whole never replaces a file that was there (--force): it is
     * published only where nothing is. */
    if (w->failed != H5OUT_OK)
        w->force = 0;
    if ((fd = open(w->partial, O_RDONLY)) < 0 || fsync(fd) != 0) {
        h5out_fail(w, "%s: fsync failed: %s", w->partial, strerror(errno));
        if (fd >= 0)
            close(fd);
        goto out;
    }
    close(fd);
    if (publish(w) < 0)
        goto out;
    sync_dir(w->path);
    rc = 0;
out:
    if (rc != 0)
        put_err(err, errlen, w->err);
    writer_free(w);
    return rc;
}

const char *h5out_error(const h5out *w) { return w != NULL ? w->err : "no writer"; }
