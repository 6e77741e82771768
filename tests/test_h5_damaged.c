/* test_h5_damaged.c - h5in_open refuses what it cannot trust with one line of text, and never
 * crashes: missing, empty and text files, truncated and bit-flipped copies of a valid file, HDF5
 * files that are not ringbench files, a newer schema, a table missing a column. And what used to pass
 * silently (issue 22): rows with a wrong unit, a negative median, a duplicate cell or a wrong count,
 * bimodal columns no split gives (schema 4); and (issue 53) ok rows with a median that is not finite,
 * an inverted interval or no trials, NaN or infinite samples, text columns with values ringbench never
 * writes (backend "CPU", family "latency ");
 * values edited with HDF5's own checksums intact; rows cut off a table; a damaged chunk of
 * /trial_samples; every bit of its chunk index. Run it under -DRINGBENCH_SANITIZE=address to see
 * that no damaged file makes the reader touch bad memory.
 *
 * Every file is also read by the streaming reader of exports (h5in_rows_open), which must refuse the same
 * files and mark the same rows with the same reasons and warnings (same_as_stream).
 *
 * Usage: test_h5_damaged WORKDIR. Its files go in a subdirectory whose name has spaces and quotes.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "bimodal.h"
#include "h5in.h"
#include "h5out.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFLIP_SEEDS 300
#define FLIPS_PER_FILE 8
#define SUPERBLOCK_BYTES 48 /* version 2 superblock, as h5out writes (1.8 file format) */

static char dir[4096];

/* HDF5 1.10.8 itself leaks a few hundred bytes when H5Dopen2 meets an object header whose checksum
 * fails (reproduced with nothing but H5Fopen, H5Dopen2 and H5Fclose on a bit-flipped file), so
 * LeakSanitizer is told to ignore allocations made inside libhdf5. Our own allocations stay checked,
 * and HDF5 objects left open by the reader are caught by the H5Fget_obj_count check in main. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libhdf5\n"; }

static void path_in(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

static int one_line(const char *msg) { return msg[0] != '\0' && strchr(msg, '\n') == NULL; }

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        (buf = malloc((size_t)size + 1)) == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *len = buf ? (size_t)size : 0;
    return buf;
}

static void spill(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(data, 1, len, f) == len);
    if (f)
        fclose(f);
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The streaming reader (h5in_rows_open, for exports) reads path as h5in_open read it into r (NULL: it
 * refused the file): it refuses what h5in_open refuses, and otherwise hands out the same rows, each
 * marked damaged the same way, with the same warnings. */
static void same_as_stream(const char *path, const h5in *r, const char *what)
{
    char err[1024] = "";
    h5in_rows *s = NULL;
    int rc = h5in_rows_open(path, &s, err, sizeof err);
    CHECK_MSG((rc == 0) == (r != NULL), "%s: the streaming reader %s: %s", what, rc == 0 ? "opened it" : "refused it",
              err);
    if (rc != 0 || r == NULL) {
        h5in_rows_close(s);
        return;
    }
    CHECK_MSG(h5in_rows_count(s) == h5in_nrows(r), "%s: %zu rows streamed, %zu read", what, h5in_rows_count(s),
              h5in_nrows(r));
    for (size_t i = 0; i < h5in_nrows(r); i++) {
        const rb_row *a = h5in_row(r, i), *b = h5in_rows_next(s, err, sizeof err);
        CHECK_MSG(b != NULL && memcmp(a, b, sizeof *a) == 0, "%s: row %zu: streamed '%s' (%s), read '%s' (%s)", what, i,
                  b ? b->status : "none", b ? b->reason : err, a->status, a->reason);
    }
    CHECK(h5in_rows_next(s, err, sizeof err) == NULL && err[0] == '\0');
    const h5in *m = h5in_rows_meta(s);
    size_t n = h5in_nwarnings(r);
    CHECK_MSG(h5in_nwarnings(m) == n, "%s: %zu warnings streamed, %zu read", what, h5in_nwarnings(m), n);
    char **x = calloc(n + 1, sizeof *x), **y = calloc(n + 1, sizeof *y);
    for (size_t k = 0; x && y && k < n && k < h5in_nwarnings(m); k++) {
        x[k] = strdup(h5in_warning(r, k));
        y[k] = strdup(h5in_warning(m, k));
    }
    if (x && y && h5in_nwarnings(m) == n) {
        qsort(x, n, sizeof *x, cmp_text);
        qsort(y, n, sizeof *y, cmp_text);
        for (size_t k = 0; k < n; k++)
            CHECK_MSG(strcmp(x[k], y[k]) == 0, "%s: warning streamed '%s', read '%s'", what, y[k], x[k]);
    }
    for (size_t k = 0; x && y && k < n; k++) {
        free(x[k]);
        free(y[k]);
    }
    free(x);
    free(y);
    CHECK_INT(h5in_complete(m), h5in_complete(r));
    h5in_rows_close(s);
}

/* Opens path expecting a refusal; returns the message (static) for further checks. */
static const char *refused(const char *path, const char *what)
{
    static char err[1024];
    h5in *r = NULL;
    err[0] = '\0';
    int rc = h5in_open(path, &r, err, sizeof err);
    CHECK_MSG(rc == -1 && r == NULL, "%s: opened", what);
    CHECK_MSG(one_line(err), "%s: message '%s'", what, err);
    printf("%s -> %s\n", what, err);
    if (rc == 0)
        h5in_close(r);
    else
        same_as_stream(path, NULL, what);
    return err;
}

/* A valid results file with a few rows and samples. */
static void write_valid(const char *path)
{
    char err[512] = "";
    h5out *w = NULL;
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    h5out_attr_str(w, RB_H5_PROVENANCE, "git_commit", "0123456789ab");
    h5out_attr_i64(w, RB_H5_CAPABILITIES, "cuda_driver", 12040);
    for (int i = 0; i < 4; i++) {
        rb_row row;
        memset(&row, 0, sizeof row);
        bimodal_row_clear(&row);
        snprintf(row.family, sizeof row.family, "%s", rb_family_name((rb_family)i));
        snprintf(row.status, sizeof row.status, "%s", RB_STATUS_OK);
        row.p50 = i;
        double samples[500];
        for (int k = 0; k < 500; k++)
            samples[k] = k * 0.5 + i;
        CHECK_MSG(h5out_append(w, &row, samples, i == 3 ? 0 : 500) == 0, "%s", h5out_error(w));
    }
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* Reads everything an opened file offers, so damage that open did not notice is met too. */
static void read_all(h5in *r)
{
    char err[512];
    for (size_t i = 0; i < h5in_nrows(r); i++) {
        double *s = NULL;
        size_t n = 0;
        const rb_row *row = h5in_row(r, i);
        CHECK(row != NULL && strlen(row->reason) < sizeof row->reason);
        if (h5in_samples(r, i, &s, &n, err, sizeof err) != 0)
            CHECK_MSG(one_line(err), "samples message '%s'", err);
        free(s);
    }
}

static void test_not_hdf5(void)
{
    char path[4200];
    const char *msg;

    path_in(path, sizeof path, "missing.h5");
    unlink(path);
    msg = refused(path, "missing");
    CHECK_MSG(strstr(msg, "No such file") != NULL, "%s", msg);

    path_in(path, sizeof path, "empty.h5");
    spill(path, "", 0);
    msg = refused(path, "empty");
    CHECK_MSG(strstr(msg, "empty") != NULL, "%s", msg);

    path_in(path, sizeof path, "text \"file\".h5");
    const char *text = "sweep,latency,us\nthis is a CSV, not HDF5\n";
    spill(path, text, strlen(text));
    msg = refused(path, "text");
    CHECK_MSG(strstr(msg, "not an HDF5 file") != NULL, "%s", msg);

    msg = refused(dir, "directory");
    CHECK_MSG(strstr(msg, "directory") != NULL, "%s", msg);
}

static void test_truncated(const unsigned char *data, size_t len)
{
    char path[4200], what[64];
    path_in(path, sizeof path, "truncated 'copy'.h5");
    size_t cuts[] = {1,           7,           8,          47,        48,        100,     512,
                     1024,        2048,        len / 8,    len / 4,   len / 3,   len / 2, 2 * len / 3,
                     3 * len / 4, 7 * len / 8, len - 4096, len - 512, len - 100, len - 8, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        if (cuts[i] == 0 || cuts[i] >= len)
            continue;
        spill(path, data, cuts[i]);
        snprintf(what, sizeof what, "truncated to %zu of %zu bytes", cuts[i], len);
        refused(path, what);
    }
}

/* Random bytes flipped past the superblock. Checksummed metadata and fletcher32 on the chunks catch
 * most such damage; what lands in unused space goes unnoticed, and that is fine: the test asks for
 * no crash, a one-line refusal whenever the file is refused, and readable contents otherwise. */
static void test_flipped(const unsigned char *data, size_t len)
{
    char path[4200], err[1024];
    unsigned char *copy = malloc(len);
    int refused_count = 0;
    uint64_t x = 0x2545F4914F6CDD1Dull;

    path_in(path, sizeof path, "flipped copy.h5");
    for (int seed = 0; seed < NFLIP_SEEDS && copy != NULL; seed++) {
        memcpy(copy, data, len);
        for (int k = 0; k < FLIPS_PER_FILE; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t at = SUPERBLOCK_BYTES + (size_t)(x % (len - SUPERBLOCK_BYTES));
            copy[at] ^= (unsigned char)(1u << (x >> 60 & 7));
        }
        spill(path, copy, len);
        h5in *r = NULL;
        err[0] = '\0';
        if (h5in_open(path, &r, err, sizeof err) == 0) {
            read_all(r);
            same_as_stream(path, r, "a copy with flipped bits");
            h5in_close(r);
        } else {
            same_as_stream(path, NULL, "a copy with flipped bits");
            refused_count++;
            CHECK_MSG(one_line(err), "flip seed %d: message '%s'", seed, err);
        }
    }
    printf("bit flips: %d of %d damaged copies refused at open, the rest read without a crash\n", refused_count,
           NFLIP_SEEDS);
    free(copy);
}

/* Damage inside the /cells chunk itself must be refused: fletcher32 is there to catch it. */
static void test_flipped_cells(const char *valid, const unsigned char *data, size_t len)
{
#if H5_VERSION_GE(1, 10, 5)
    char path[4200];
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    hid_t file = H5Fopen(valid, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = H5Dopen2(file, RB_H5_CELLS, H5P_DEFAULT), space = H5Dget_space(dset);
    hsize_t offset = 0;
    unsigned mask = 0;
    CHECK(H5Dget_chunk_info(dset, space, 0, &offset, &mask, &addr, &size) >= 0);
    H5Sclose(space);
    H5Dclose(dset);
    H5Fclose(file);
    CHECK(addr != HADDR_UNDEF && size > 0 && addr + size <= len);
    if (addr == HADDR_UNDEF || size == 0 || addr + size > len)
        return;
    unsigned char *copy = malloc(len);
    memcpy(copy, data, len);
    copy[addr + size / 2] ^= 0x10;
    path_in(path, sizeof path, "flipped cells.h5");
    spill(path, copy, len);
    const char *msg = refused(path, "a flipped bit in the /cells chunk");
    CHECK_MSG(strstr(msg, "damaged") != NULL, "%s", msg);
    free(copy);
#else
    (void)valid;
    (void)data;
    (void)len;
    printf("HDF5 older than 1.10.5: no H5Dget_chunk_info, /cells chunk damage not targeted\n");
#endif
}

/* HDF5 files that are not (readable) ringbench files, made with the HDF5 API. */
static hid_t new_file(const char *path, const char *tool, int version)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t scalar = H5Screate(H5S_SCALAR), str = H5Tcopy(H5T_C_S1);
    CHECK(file >= 0);
    if (tool != NULL) {
        H5Tset_size(str, strlen(tool) + 1);
        hid_t a = H5Acreate2(file, RB_H5_ATTR_TOOL, str, scalar, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(H5Awrite(a, str, tool) >= 0);
        H5Aclose(a);
    }
    if (version != 0) {
        hid_t a = H5Acreate2(file, RB_H5_ATTR_SCHEMA, H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(H5Awrite(a, H5T_NATIVE_INT, &version) >= 0);
        H5Aclose(a);
    }
    H5Tclose(str);
    H5Sclose(scalar);
    return file;
}

static void test_not_ringbench(void)
{
    char path[4200];
    const char *msg;

    path_in(path, sizeof path, "plain.h5");
    H5Fclose(new_file(path, NULL, 0));
    msg = refused(path, "HDF5 without tool");
    CHECK_MSG(strstr(msg, "not a ringbench results file") != NULL, "%s", msg);

    H5Fclose(new_file(path, "h5py", 1));
    msg = refused(path, "HDF5 of another tool");
    CHECK_MSG(strstr(msg, "not a ringbench results file") != NULL, "%s", msg);

    path_in(path, sizeof path, "no cells.h5");
    H5Fclose(new_file(path, "ringbench", RB_SCHEMA_VERSION));
    msg = refused(path, "no /cells");
    CHECK_MSG(strstr(msg, "no /cells") != NULL, "%s", msg);

    /* /cells with every column but p999. */
    path_in(path, sizeof path, "no p999.h5");
    hid_t file = new_file(path, "ringbench", RB_SCHEMA_VERSION);
    hid_t full = h5out_row_type(), part = H5Tcreate(H5T_COMPOUND, sizeof(rb_row));
    for (int i = 0; i < H5Tget_nmembers(full); i++) {
        char *name = H5Tget_member_name(full, (unsigned)i);
        hid_t t = H5Tget_member_type(full, (unsigned)i);
        if (strcmp(name, "p999") != 0)
            H5Tinsert(part, name, H5Tget_member_offset(full, (unsigned)i), t);
        H5Tclose(t);
        H5free_memory(name);
    }
    hsize_t zero = 0;
    hid_t space = H5Screate_simple(1, &zero, NULL);
    hid_t dset = H5Dcreate2(file, RB_H5_CELLS, part, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(dset >= 0);
    H5Dclose(dset);
    H5Sclose(space);
    H5Tclose(part);
    H5Tclose(full);
    H5Fclose(file);
    msg = refused(path, "/cells without p999");
    CHECK_MSG(strstr(msg, "lacks the column 'p999'") != NULL, "%s", msg);

    /* /cells that is not a table. */
    path_in(path, sizeof path, "cells not a table.h5");
    file = new_file(path, "ringbench", RB_SCHEMA_VERSION);
    hsize_t three = 3;
    space = H5Screate_simple(1, &three, NULL);
    dset = H5Dcreate2(file, RB_H5_CELLS, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(dset);
    H5Sclose(space);
    H5Fclose(file);
    msg = refused(path, "/cells of doubles");
    CHECK_MSG(strstr(msg, "not a table") != NULL, "%s", msg);
}

/* A valid file whose schema_version is rewritten to the next version. */
static void test_newer_schema(const char *valid, const unsigned char *data, size_t len)
{
    char path[4200], want[128];
    (void)valid;
    path_in(path, sizeof path, "newer schema.h5");
    spill(path, data, len);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    int version = RB_SCHEMA_VERSION + 1;
    hid_t a = H5Aopen(file, RB_H5_ATTR_SCHEMA, H5P_DEFAULT);
    CHECK(H5Awrite(a, H5T_NATIVE_INT, &version) >= 0);
    H5Aclose(a);
    H5Fclose(file);
    const char *msg = refused(path, "newer schema");
    snprintf(want, sizeof want, "written by a newer ringbench (schema %d > %d)", RB_SCHEMA_VERSION + 1,
             RB_SCHEMA_VERSION);
    CHECK_MSG(strstr(msg, want) != NULL, "%s", msg);
}

// --- issue 22: damage that used to pass silently ------------------------------------------------------

#define TCELLS 6      /* cells of the trials file */
#define TTRIALS 3     /* trials per cell */
#define TSAMPLES 2000 /* samples per trial: 36 000 in all, three chunks of /trial_samples */

/* What a test changes in the rows it writes: called with each row before it is appended. */
typedef void (*row_edit)(rb_row *row, int cell);

/* One sample the writer is given instead of its usual value (poison_at = its index in the run), for
 * samples no measurement gives; -1: none. */
static long poison_at = -1;
static double poison_value;

static double tsample(int cell, int trial, int k) { return 2.0 + cell + 0.25 * trial + (double)(k % 97) * 0.01; }

/* A schema-3 file of TCELLS latency cells (modes differ by size), each measured in TTRIALS trials of
 * TSAMPLES samples, written through the real writer; edit may change a row before it is written. */
static void write_trials_file(const char *path, row_edit edit)
{
    char err[512] = "";
    h5out *w = NULL;
    double *s = malloc(TSAMPLES * sizeof *s);
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL || s == NULL) {
        free(s);
        return;
    }
    for (int c = 0; c < TCELLS; c++) {
        for (int t = 0; t < TTRIALS; t++) {
            rb_trial tr;
            memset(&tr, 0, sizeof tr);
            tr.cell_id = c;
            snprintf(tr.family, sizeof tr.family, "latency");
            snprintf(tr.host_mem, sizeof tr.host_mem, "pinned");
            snprintf(tr.xfer, sizeof tr.xfer, "async");
            snprintf(tr.launch, sizeof tr.launch, "coop");
            snprintf(tr.ctrl, sizeof tr.ctrl, "mapped");
            tr.size_bytes = 8u << c;
            tr.window = 1;
            tr.trial = t;
            snprintf(tr.status, sizeof tr.status, "%s", RB_STATUS_OK);
            for (int k = 0; k < TSAMPLES; k++)
                s[k] = ((long)c * TTRIALS + t) * TSAMPLES + k == poison_at ? poison_value : tsample(c, t, k);
            CHECK_MSG(h5out_append_trial(w, &tr, s, TSAMPLES) == 0, "%s", h5out_error(w));
        }
        rb_row row;
        memset(&row, 0, sizeof row);
        bimodal_row_clear(&row);
        row.cell_id = c;
        snprintf(row.backend, sizeof row.backend, "cpu");
        snprintf(row.family, sizeof row.family, "latency");
        snprintf(row.host_mem, sizeof row.host_mem, "pinned");
        snprintf(row.xfer, sizeof row.xfer, "async");
        snprintf(row.launch, sizeof row.launch, "coop");
        snprintf(row.ctrl, sizeof row.ctrl, "mapped");
        snprintf(row.status, sizeof row.status, "%s", RB_STATUS_OK);
        snprintf(row.unit, sizeof row.unit, "us");
        snprintf(row.ci_method, sizeof row.ci_method, "%s", RB_CI_TRIALS);
        row.size_bytes = 8u << c;
        row.window = 1;
        row.trials = TTRIALS;
        row.n = TTRIALS * TSAMPLES;
        row.min = 2.0 + c;
        row.p50 = row.mean = 2.5 + c;
        row.ci_lo = 2.4 + c;
        row.ci_hi = 2.6 + c;
        if (edit != NULL)
            edit(&row, c);
        CHECK_MSG(h5out_append(w, &row, NULL, 0) == 0, "%s", h5out_error(w));
    }
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
    free(s);
}

/* Opens path expecting success; the reader (caller closes) or NULL. */
static h5in *opened(const char *path, const char *what)
{
    char err[1024] = "";
    h5in *r = NULL;
    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s: %s", what, err);
    same_as_stream(path, r, what);
    return r;
}

/* The number of rows marked damaged, each checked to have its reason and a warning naming it. */
static size_t damaged_rows(const h5in *r, const char *what, const char *reason_has)
{
    size_t n = 0;
    for (size_t i = 0; i < h5in_nrows(r); i++) {
        const rb_row *row = h5in_row(r, i);
        if (strcmp(row->status, RB_STATUS_DAMAGED) != 0)
            continue;
        char name[64];
        int warned = 0;
        snprintf(name, sizeof name, RB_H5_CELLS " row %zu ", i);
        for (size_t k = 0; k < h5in_nwarnings(r); k++)
            warned |= strstr(h5in_warning(r, k), name) != NULL && one_line(h5in_warning(r, k));
        CHECK_MSG(warned, "%s: row %zu damaged without a warning naming it", what, i);
        CHECK_MSG(strncmp(row->reason, "damaged: ", 9) == 0, "%s: reason '%s'", what, row->reason);
        CHECK_MSG(reason_has == NULL || strstr(row->reason, reason_has) != NULL, "%s: reason '%s' lacks '%s'", what,
                  row->reason, reason_has);
        n++;
    }
    CHECK_INT(h5in_ndamaged(r), n);
    return n;
}

/* Every trial that is not marked damaged reads back exactly the samples written; a marked one is
 * refused with one line. Returns how many trials were marked. */
static size_t check_trial_samples(const h5in *r, const char *what)
{
    char err[1024];
    size_t bad = 0;
    for (size_t t = 0; t < h5in_ntrials(r); t++) {
        const rb_trial *tr = h5in_trial(r, t);
        double *s = NULL;
        size_t n = 0;
        int rc = h5in_trial_samples(r, t, &s, &n, err, sizeof err);
        if (strcmp(tr->status, RB_STATUS_DAMAGED) == 0) {
            bad++;
            CHECK_MSG(rc == -1 && one_line(err), "%s: damaged trial %zu read (%s)", what, t, err);
        } else {
            CHECK_MSG(rc == 0 && n == TSAMPLES, "%s: trial %zu: rc %d n %zu: %s", what, t, rc, n, err);
            int same = rc == 0 && n == TSAMPLES;
            for (size_t k = 0; same && k < n; k++)
                same = s[k] == tsample(tr->cell_id, tr->trial, (int)k);
            CHECK_MSG(same, "%s: trial %zu (not marked damaged) reads other samples than were written", what, t);
        }
        free(s);
    }
    return bad;
}

static void edit_unit(rb_row *row, int cell)
{
    if (cell == 1)
        snprintf(row->unit, sizeof row->unit, "ms");
}
static void edit_negative(rb_row *row, int cell)
{
    if (cell == 2)
        row->p50 = -row->p50;
}
static void edit_duplicate(rb_row *row, int cell)
{
    if (cell == 4)
        row->size_bytes = 8u << 3;
}
static void edit_count(rb_row *row, int cell)
{
    if (cell == 5)
        row->n += 7;
}
static void edit_cell_id(rb_row *row, int cell)
{
    if (cell == 4)
        row->cell_id = 3;
}

/* Schema 4's bimodal columns (results/bimodal.h) with values no split can give. */
static void set_modes(rb_row *row, double fast, double slow, double share)
{
    row->bimodal = 1;
    row->mode_fast = fast;
    row->mode_slow = slow;
    row->slow_share = share;
}
static void edit_share(rb_row *row, int cell)
{
    if (cell == 0)
        set_modes(row, 2.7, 8.7, 1.5);
}
static void edit_modes_order(rb_row *row, int cell)
{
    if (cell == 1)
        set_modes(row, 8.7, 2.7, 0.3);
}
static void edit_mode_negative(rb_row *row, int cell)
{
    if (cell == 2)
        set_modes(row, -2.7, 8.7, 0.3);
}
static void edit_bimodal_flag(rb_row *row, int cell)
{
    if (cell == 3)
        row->bimodal = 2;
}
static void edit_unimodal_with_modes(rb_row *row, int cell)
{
    if (cell == 4) {
        set_modes(row, 2.7, 8.7, 0.3);
        row->bimodal = 0;
    }
}

/* Issue 53: ok rows whose every value is a number, but which no measurement gives. */
static void edit_p50_nan(rb_row *row, int cell)
{
    if (cell == 0)
        row->p50 = NAN;
}
static void edit_p50_inf(rb_row *row, int cell)
{
    if (cell == 1)
        row->p50 = INFINITY;
}
static void edit_ci_inverted(rb_row *row, int cell)
{
    if (cell == 2) {
        row->ci_lo = 3.0 + cell;
        row->ci_hi = 2.0 + cell;
    }
}
static void edit_no_trials(rb_row *row, int cell)
{
    if (cell == 3)
        row->trials = 0;
}
static void edit_max_inf(rb_row *row, int cell)
{
    if (cell == 4)
        row->max = INFINITY;
}
/* Text columns with values ringbench never writes, each once taken for a cell of its own. */
static void edit_backend_upper(rb_row *row, int cell)
{
    if (cell == 1)
        snprintf(row->backend, sizeof row->backend, "CPU");
}
static void edit_family_space(rb_row *row, int cell)
{
    if (cell == 2)
        snprintf(row->family, sizeof row->family, "latency ");
}
static void edit_mode_value(rb_row *row, int cell)
{
    if (cell == 3)
        snprintf(row->ctrl, sizeof row->ctrl, "Mapped");
}
static void edit_status_value(rb_row *row, int cell)
{
    if (cell == 4)
        snprintf(row->status, sizeof row->status, RB_STATUS_DAMAGED);
}

/* Rows whose checksums are right but whose contents cannot be: a wrong unit (which inverted a
 * verdict: GB/s read as time), a negative median, two rows of one cell (counted twice by compare),
 * a count of samples other than its trials hold, bimodal columns no split gives (a slow share of
 * 150%, modes in the wrong order or negative, a flag neither 0 nor 1, modes without the flag). Each
 * is marked, and only it. */
static void test_inconsistent_rows(void)
{
    static const struct {
        row_edit edit;
        const char *name, *reason;
        size_t marked;
    } cases[] = {
        {edit_unit, "a unit not its family's", "unit 'ms'", 1},
        {edit_negative, "a negative p50", "p50 is negative", 1},
        {edit_duplicate, "two rows of one cell", "the same cell as row", 2},
        {edit_count, "n other than its trials'", "its ok trials", 1},
        {edit_cell_id, "two rows of one cell_id", "the same cell_id 3", 2},
        {edit_share, "a slow share of 1.5", "slow_share is outside [0, 1]", 1},
        {edit_modes_order, "mode_fast above mode_slow", "mode_fast is above mode_slow", 1},
        {edit_mode_negative, "a negative mode", "not a positive number", 1},
        {edit_bimodal_flag, "bimodal 2", "neither 0 nor 1", 1},
        {edit_unimodal_with_modes, "modes on a row not bimodal", "bimodal is 0 but", 1},
        {edit_p50_nan, "an ok row with p50 NaN", "p50 is nan", 1},
        {edit_p50_inf, "an ok row with p50 Inf", "p50 is inf", 1},
        {edit_ci_inverted, "an inverted interval", "interval is inverted", 1},
        {edit_no_trials, "an ok row of 0 trials", "0 trials", 1},
        {edit_max_inf, "an infinite max", "max is inf", 1},
        {edit_backend_upper, "backend CPU", "backend 'CPU' is not a value", 1},
        {edit_family_space, "family 'latency '", "family 'latency ' is not a value", 1},
        {edit_mode_value, "ctrl Mapped", "ctrl 'Mapped' is not a value", 1},
        {edit_status_value, "a row that says it is damaged", "status 'damaged' is not a value", 1},
    };
    char path[4200];
    path_in(path, sizeof path, "inconsistent rows.h5");
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        write_trials_file(path, cases[k].edit);
        h5in *r = opened(path, cases[k].name);
        if (r == NULL)
            continue;
        CHECK_MSG(damaged_rows(r, cases[k].name, cases[k].reason) == cases[k].marked, "%s: marked %zu rows",
                  cases[k].name, h5in_ndamaged(r));
        check_trial_samples(r, cases[k].name);
        h5in_close(r);
    }
}

/* Opens path read-write and overwrites element index of dataset name (a table row through its
 * file type, or one float64) with value: an edit HDF5 itself finds nothing wrong with. */
static void overwrite(const char *path, const char *name, hsize_t index, const void *value, int is_row)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), dset = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t space = H5Dget_space(dset), mtype = is_row ? h5out_row_type() : H5Tcopy(H5T_NATIVE_DOUBLE);
    hsize_t one = 1;
    hid_t mspace = H5Screate_simple(1, &one, NULL);
    CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, &index, NULL, &one, NULL) >= 0);
    CHECK(H5Dwrite(dset, mtype, mspace, space, H5P_DEFAULT, value) >= 0);
    H5Sclose(mspace);
    H5Tclose(mtype);
    H5Sclose(space);
    H5Dclose(dset);
    H5Fclose(file);
}

/* Values changed inside the file with every HDF5 checksum recomputed (what h5py or a chunk index
 * pointing at other data does): the schema-3 checksums catch them. */
static void test_checksums(void)
{
    char path[4200];
    path_in(path, sizeof path, "edited values.h5");
    write_trials_file(path, NULL);
    h5in *r = opened(path, "intact trials file");
    if (r == NULL)
        return;
    CHECK_INT(h5in_ndamaged(r), 0);
    CHECK_INT(h5in_nwarnings(r), 0);
    CHECK_INT(check_trial_samples(r, "intact"), 0);
    rb_row row = *h5in_row(r, 3);
    h5in_close(r);

    row.p50 *= 10; /* a verdict-changing edit of one row */
    overwrite(path, RB_H5_CELLS, 3, &row, 1);
    r = opened(path, "an edited row");
    if (r != NULL) {
        CHECK_INT(damaged_rows(r, "an edited row", "checksum"), 1);
        CHECK_STR(h5in_row(r, 3)->status, RB_STATUS_DAMAGED);
        h5in_close(r);
    }

    write_trials_file(path, NULL);
    double zero = 0.0; /* one sample of trial 4 (cell 1) */
    overwrite(path, RB_H5_TRIAL_SAMPLES, 4 * TSAMPLES + 17, &zero, 0);
    r = opened(path, "an edited sample");
    if (r != NULL) {
        CHECK_INT(damaged_rows(r, "an edited sample", "do not match their checksum"), 1);
        CHECK_STR(h5in_row(r, 1)->status, RB_STATUS_DAMAGED);
        CHECK_INT(check_trial_samples(r, "an edited sample"), 1);
        h5in_close(r);
    }

    /* Rows cut off the end of /cells: refused, since which rows are gone cannot be known. */
    write_trials_file(path, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), dset = H5Dopen2(file, RB_H5_CELLS, H5P_DEFAULT);
    hsize_t fewer = TCELLS - 1;
    CHECK(H5Dset_extent(dset, &fewer) >= 0);
    H5Dclose(dset);
    H5Fclose(file);
    const char *msg = refused(path, "a row cut off /cells");
    CHECK_MSG(strstr(msg, "closed with") != NULL, "%s", msg);
}

/* Issue 53: a NaN or infinite sample, written with its checksum, was dropped by the statistics while n
 * still counted it. Its trial and row are marked now, and only they. */
static void test_bad_samples(void)
{
    static const double bad[] = {NAN, INFINITY, -INFINITY};
    char path[4200], what[64];
    path_in(path, sizeof path, "bad samples.h5");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        poison_at = 4L * TSAMPLES + 17; /* trial 4: cell 1, round 1 */
        poison_value = bad[i];
        write_trials_file(path, NULL);
        poison_at = -1;
        snprintf(what, sizeof what, "a sample of %g", bad[i]);
        h5in *r = opened(path, what);
        if (r == NULL)
            continue;
        CHECK_INT(damaged_rows(r, what, "sample 17 is"), 1);
        CHECK_STR(h5in_row(r, 1)->status, RB_STATUS_DAMAGED);
        CHECK_STR(h5in_trial(r, 4)->status, RB_STATUS_DAMAGED);
        h5in_close(r);
    }
}

/* The address and size of chunk k of dataset name. */
static int chunk_at(const char *path, const char *name, hsize_t k, haddr_t *addr, hsize_t *size)
{
#if H5_VERSION_GE(1, 10, 5)
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), dset = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t space = H5Dget_space(dset);
    hsize_t offset = 0;
    unsigned mask = 0;
    int rc = H5Dget_chunk_info(dset, space, k, &offset, &mask, addr, size) >= 0 ? 0 : -1;
    H5Sclose(space);
    H5Dclose(dset);
    H5Fclose(file);
    return rc;
#else
    (void)path;
    (void)name;
    (void)k;
    (void)addr;
    (void)size;
    return -1;
#endif
}

/* D5: a damaged chunk of /trial_samples (its Fletcher-32 fails) was swallowed by the report (exit
 * 0, verdicts on "no raw samples") and re-read once per trial. Now the trials in that chunk, and
 * their rows, are marked and named; every other trial reads back exactly. */
static void test_damaged_samples_chunk(void)
{
    char path[4200];
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    path_in(path, sizeof path, "damaged samples chunk.h5");
    write_trials_file(path, NULL);
    if (chunk_at(path, RB_H5_TRIAL_SAMPLES, 1, &addr, &size) != 0) {
        printf("no H5Dget_chunk_info: damaged samples chunk not targeted\n");
        return;
    }
    size_t len = 0;
    unsigned char *data = slurp(path, &len);
    CHECK(data != NULL && addr + size <= len);
    if (data == NULL || addr + size > len) {
        free(data);
        return;
    }
    data[addr + size / 3] ^= 0x04;
    spill(path, data, len);
    free(data);
    h5in *r = opened(path, "a damaged samples chunk");
    if (r == NULL)
        return;
    /* Chunk 1 holds samples [16384, 32768): trials 8 to 16, so cells 2 to 5. */
    size_t rows = damaged_rows(r, "a damaged samples chunk", "cannot be read");
    CHECK_MSG(rows == 4, "%zu rows marked", rows);
    size_t trials = check_trial_samples(r, "a damaged samples chunk");
    CHECK_MSG(trials == 9, "%zu trials marked", trials);
    int named = 0;
    for (size_t k = 0; k < h5in_nwarnings(r); k++)
        named |= strstr(h5in_warning(r, k), RB_H5_TRIAL_SAMPLES) != NULL;
    CHECK_MSG(named, "no warning names " RB_H5_TRIAL_SAMPLES);
    h5in_close(r);
}

/* D6: HDF5's chunk index (a version-1 B-tree: no checksum) of /trial_samples, damaged one bit at a
 * time. A damaged key can make a chunk "not allocated", read back as 0.0 with no error. Every flip
 * must be refused, marked, or read back the samples that were written. */
static void test_chunk_index(void)
{
    char path[4200];
    path_in(path, sizeof path, "chunk index.h5");
    write_trials_file(path, NULL);
    size_t len = 0;
    unsigned char *data = slurp(path, &len), *copy = data ? malloc(len) : NULL;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    if (data == NULL || copy == NULL || chunk_at(path, RB_H5_TRIAL_SAMPLES, 0, &addr, &size) != 0) {
        free(data);
        free(copy);
        return;
    }
    /* The B-tree node whose first child is chunk 0: "TREE", type 1 (raw data), level 0, then keys
     * (4-byte size, 4-byte filter mask, two 8-byte offsets) and 8-byte child addresses in turn. */
    size_t node = len, used = 0;
    for (size_t at = 0; at + 56 <= len; at++) {
        if (memcmp(data + at, "TREE", 4) != 0 || data[at + 4] != 1 || data[at + 5] != 0)
            continue;
        uint64_t child = 0;
        for (int b = 0; b < 8; b++)
            child |= (uint64_t)data[at + 48 + b] << (8 * b);
        if (child == addr) {
            node = at;
            used = (size_t)data[at + 6] | (size_t)data[at + 7] << 8;
            break;
        }
    }
    CHECK_MSG(node < len && used >= 2, "the chunk index of " RB_H5_TRIAL_SAMPLES " was not found");
    size_t from = node + 24, to = from + (used + 1) * 24 + used * 8;
    int refused_n = 0, marked_n = 0, same_n = 0;
    for (size_t at = from; at < to && to <= len; at++)
        for (int bit = 0; bit < 8; bit++) {
            char err[1024] = "";
            memcpy(copy, data, len);
            copy[at] ^= (unsigned char)(1u << bit);
            spill(path, copy, len);
            h5in *r = NULL;
            if (h5in_open(path, &r, err, sizeof err) != 0) {
                refused_n++;
                CHECK_MSG(one_line(err), "index flip at %zu: '%s'", at, err);
                same_as_stream(path, NULL, "a flipped bit in the chunk index");
                continue;
            }
            same_as_stream(path, r, "a flipped bit in the chunk index");
            size_t bad = check_trial_samples(r, "a flipped bit in the chunk index");
            damaged_rows(r, "a flipped bit in the chunk index", NULL);
            marked_n += bad > 0;
            same_n += bad == 0;
            h5in_close(r);
        }
    printf("chunk index: %zu bits flipped: %d refused, %d marked damaged, %d read back the same samples\n",
           (to - from) * 8, refused_n, marked_n, same_n);
    free(copy);
    free(data);
}

int main(int argc, char **argv)
{
    char valid[4200], err[512];
    if (argc != 2) {
        fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
        perror(argv[1]);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/damaged files, \"quoted\" and 'single'", argv[1]);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the test's own HDF5 calls: failures are CHECKed */

    path_in(valid, sizeof valid, "valid \"file\".h5");
    write_valid(valid);
    h5in *r = NULL;
    CHECK_MSG(h5in_open(valid, &r, err, sizeof err) == 0, "%s", err);
    CHECK_INT(h5in_nrows(r), 4);
    h5in_close(r);

    size_t len = 0;
    unsigned char *data = slurp(valid, &len);
    CHECK(data != NULL && len > 4096);
    if (data == NULL || len <= 4096)
        CHECK_DONE();

    test_not_hdf5();
    test_truncated(data, len);
    test_flipped(data, len);
    test_flipped_cells(valid, data, len);
    test_not_ringbench();
    test_newer_schema(valid, data, len);
    free(data);
    test_inconsistent_rows();
    test_bad_samples();
    test_checksums();
    test_damaged_samples_chunk();
    test_chunk_index();
    /* Every refusal closed what it had opened: no file or object of HDF5 is left open. */
    CHECK_INT(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    CHECK_DONE();
}
