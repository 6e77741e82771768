/* test_h5_roundtrip.c - what h5out writes, h5in reads back exactly; and the file's life cycle:
 * refusing to replace PATH without force, interrupted runs, a crash mid-run, a PATH that appears
 * while the run goes on, a table with its columns in another order.
 *
 * Usage: test_h5_roundtrip WORKDIR. Leaves WORKDIR/roundtrip.h5 for the h5dump and h5py tests
 * (tests/results.cmake orders them with a fixture).
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "bimodal.h"
#include "h5in.h"
#include "h5out.h"

#include <errno.h>
#include <float.h>
#include <signal.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NROWS 5
static const size_t sample_counts[NROWS] = {1000, 100000, 0, 1, 8};

static char workdir[4096];

static void path_in(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", workdir, name); }

static void remove_file(const char *path)
{
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    unlink(path);
    unlink(partial);
}

static int file_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int one_line(const char *msg) { return msg[0] != '\0' && strchr(msg, '\n') == NULL; }

// --- rows and samples ------------------------------------------------------------------------------

static void set_str(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src); }

static rb_row make_row(int i)
{
    rb_row r;
    memset(&r, 0, sizeof r);
    bimodal_row_clear(&r);
    r.row_id = 999; /* the writer assigns the real one */
    set_str(r.backend, sizeof r.backend, i % 2 ? "cpu" : "cuda");
    set_str(r.status, sizeof r.status, RB_STATUS_OK);
    set_str(r.stop_rule, sizeof r.stop_rule, "ci_rel_2pct");
    r.min = 1.25 + i;
    r.p50 = 2.5 + i;
    r.p90 = 3.75;
    r.p99 = 4.0625;
    r.p999 = 5.1;
    r.max = 1e300;
    r.mean = 2.6;
    r.stddev = 0.1;
    r.ci_lo = 2.49;
    r.ci_hi = 2.51;
    r.msgs_per_s = NAN;
    r.ratio_floor = NAN;
    r.ratio_memcpy = NAN;
    r.messages = 1000000ull * (uint64_t)(i + 1);
    r.elapsed_s = 0.123456789 * (i + 1);
    r.n = sample_counts[i];
    switch (i) {
    case 0: /* a latency row of the full mode space */
        set_str(r.family, sizeof r.family, rb_family_name(RB_FAM_LATENCY));
        set_str(r.host_mem, sizeof r.host_mem, "pinned");
        set_str(r.xfer, sizeof r.xfer, "async");
        set_str(r.launch, sizeof r.launch, "coop");
        set_str(r.ctrl, sizeof r.ctrl, "managed");
        r.size_bytes = 64;
        r.ratio_floor = 3.5;
        break;
    case 1: /* a throughput row with extreme counters */
        set_str(r.family, sizeof r.family, rb_family_name(RB_FAM_THROUGHPUT));
        set_str(r.host_mem, sizeof r.host_mem, "malloc");
        set_str(r.xfer, sizeof r.xfer, "sync");
        set_str(r.launch, sizeof r.launch, "noncoop");
        set_str(r.ctrl, sizeof r.ctrl, "mapped");
        r.size_bytes = UINT64_MAX;
        r.msgs_per_s = 1.5e6;
        r.ratio_memcpy = 0.875;
        r.lost = UINT64_MAX;
        r.duplicated = 1;
        r.corrupted = 2;
        r.kernel_errors = 3;
        break;
    case 2: /* unsupported: no statistics, and a reason longer than its field, unterminated */
        set_str(r.family, sizeof r.family, rb_family_name(RB_FAM_CB_READ));
        set_str(r.host_mem, sizeof r.host_mem, "pinned");
        set_str(r.xfer, sizeof r.xfer, "async");
        set_str(r.launch, sizeof r.launch, "coop");
        set_str(r.ctrl, sizeof r.ctrl, "device");
        set_str(r.status, sizeof r.status, RB_STATUS_UNSUPPORTED);
        memset(r.reason, 'r', sizeof r.reason);
        r.min = r.p50 = r.p90 = r.p99 = r.p999 = r.max = NAN;
        r.mean = r.stddev = r.ci_lo = r.ci_hi = NAN;
        r.messages = 0;
        break;
    case 3: /* a baseline: modes do not apply */
        set_str(r.family, sizeof r.family, rb_family_name(RB_FAM_BASE_FLOOR));
        set_str(r.host_mem, sizeof r.host_mem, RB_NOT_APPLICABLE);
        set_str(r.xfer, sizeof r.xfer, RB_NOT_APPLICABLE);
        set_str(r.launch, sizeof r.launch, RB_NOT_APPLICABLE);
        set_str(r.ctrl, sizeof r.ctrl, RB_NOT_APPLICABLE);
        set_str(r.stop_rule, sizeof r.stop_rule, "fixed");
        break;
    default: /* failed, with a reason that fits */
        set_str(r.family, sizeof r.family, rb_family_name(RB_FAM_MEMCPY_H2D_PINNED));
        set_str(r.host_mem, sizeof r.host_mem, RB_NOT_APPLICABLE);
        set_str(r.xfer, sizeof r.xfer, RB_NOT_APPLICABLE);
        set_str(r.launch, sizeof r.launch, RB_NOT_APPLICABLE);
        set_str(r.ctrl, sizeof r.ctrl, RB_NOT_APPLICABLE);
        set_str(r.status, sizeof r.status, RB_STATUS_FAILED);
        set_str(r.reason, sizeof r.reason, "timeout: no reply within 5 s (lost=3)");
        r.size_bytes = 1u << 20;
        break;
    }
    set_str(r.unit, sizeof r.unit, rb_family_unit((rb_family)rb_family_parse(r.family)));
    return r;
}

static double *make_samples(int i, size_t n);

/* What the reader must return for a written row: the id the writer gave, the reason truncated. */
static rb_row expected_row(int i)
{
    rb_row r = make_row(i);
    r.row_id = i;
    r.reason[sizeof r.reason - 1] = '\0';
    /* The schema-3 checksums the writer adds: of the samples written, then of the row. */
    double *s = make_samples(i, sample_counts[i]);
    r.samples_check = rb_check_samples(s, sample_counts[i]);
    r.check = rb_row_check(&r);
    free(s);
    return r;
}

/* Deterministic samples, and in the failed row 4 the awkward values too: -0, a denormal, infinities,
 * NaN (the reader marks an ok row whose samples are negative as damaged: no measurement is). */
static double *make_samples(int i, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    for (size_t k = 0; k < n; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s[k] = (double)(x >> 11) * 0x1p-53 * 100.0 + i;
    }
    if (i == 4 && n >= 8) {
        s[1] = -0.0;
        s[2] = DBL_MIN / 4;
        s[3] = INFINITY;
        s[4] = -INFINITY;
        s[5] = NAN;
        s[6] = DBL_MAX;
        s[7] = -1e-300;
    }
    return s;
}

// --- checks ----------------------------------------------------------------------------------------

/* Every column in RB_ROW_COLUMNS, in order, covers rb_row with nothing but alignment padding between:
 * a field missing from the list would leave a hole and fail here. */
static void check_columns_cover_row(void)
{
    size_t end = 0, ncols = 0;
#define COL_ALIGN_STR 1
#define COL_ALIGN_I32 alignof(int32_t)
#define COL_ALIGN_I64 alignof(int64_t)
#define COL_ALIGN_U64 alignof(uint64_t)
#define COL_ALIGN_F64 alignof(double)
#define RB_COVER(kind, field, unit)                                                                 \
    CHECK_MSG(offsetof(COVER_T, field) >= end && offsetof(COVER_T, field) - end < COL_ALIGN_##kind, \
              "column %s is not next in " #field, #field);                                          \
    end = offsetof(COVER_T, field) + sizeof(((COVER_T *)0)->field);                                 \
    ncols++;
#define COVER_T rb_row
    RB_ROW_COLUMNS(RB_COVER)
#undef COVER_T
    CHECK_MSG(sizeof(rb_row) - end < alignof(rb_row), "rb_row has fields after the last column");
    CHECK_INT(ncols, 53);
    end = ncols = 0;
#define COVER_T rb_trial
    RB_TRIAL_COLUMNS(RB_COVER)
#undef COVER_T
#undef RB_COVER
    CHECK_MSG(sizeof(rb_trial) - end < alignof(rb_trial), "rb_trial has fields after the last column");
    CHECK_INT(ncols, 48);
}

static void check_families(void)
{
    CHECK_STR(rb_family_name(RB_FAM_LATENCY), "latency");
    CHECK_STR(rb_family_unit(RB_FAM_THROUGHPUT), "GB/s");
    CHECK_STR(rb_family_name(RB_FAM_MEMCPY_D2H_PAGEABLE), "memcpy_d2h_pageable");
    CHECK(strstr(rb_family_doc(RB_FAM_BASE_GRAPH), "CUDA graph") != NULL);
    for (int f = 0; f < RB_FAM_COUNT; f++)
        CHECK_INT(rb_family_parse(rb_family_name((rb_family)f)), f);
    CHECK_INT(rb_family_parse("no_such_family"), -1);
    CHECK_INT(rb_family_parse(NULL), -1);
    CHECK(rb_family_name(RB_FAM_COUNT) == NULL);
    CHECK(rb_family_unit((rb_family)-1) == NULL);
}

static int same_f64(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Compares every column of RB_ROW_COLUMNS: strings by text, numbers bit for bit (NaN included). */
static void check_row(const rb_row *got, const rb_row *want)
{
    if (got == NULL) {
        CHECK(got != NULL);
        return;
    }
#define CMP_STR(f) \
    CHECK_MSG(strcmp(got->f, want->f) == 0, "row %d %s: '%s' != '%s'", (int)want->row_id, #f, got->f, want->f);
#define CMP_I32(f) \
    CHECK_MSG(got->f == want->f, "row %d %s: %d != %d", (int)want->row_id, #f, (int)got->f, (int)want->f);
#define CMP_U64(f)                                                                                             \
    CHECK_MSG(got->f == want->f, "row %d %s: %llu != %llu", (int)want->row_id, #f, (unsigned long long)got->f, \
              (unsigned long long)want->f);
#define CMP_F64(f) \
    CHECK_MSG(same_f64(got->f, want->f), "row %d %s: %.17g != %.17g", (int)want->row_id, #f, got->f, want->f);
#define CMP_COLUMN(kind, field, unit) CMP_##kind(field)
    RB_ROW_COLUMNS(CMP_COLUMN)
#undef CMP_COLUMN
}

static void check_attr(const h5in *r, const char *group, const char *name, const char *want)
{
    const char *got = h5in_attr(r, group, name);
    CHECK_MSG(got != NULL && strcmp(got, want) == 0, "%s %s: '%s' != '%s'", group, name, got ? got : "(absent)", want);
}

/* The /cells attributes that document the file, read with HDF5 itself (h5in does not load them). */
static void check_cells_attrs(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), cells = H5I_INVALID_HID;
    CHECK(file >= 0);
    if (file < 0)
        return;
    cells = H5Dopen2(file, RB_H5_CELLS, H5P_DEFAULT);
    CHECK(cells >= 0);
    CHECK(H5Aexists(cells, "unit_p50") > 0);
    CHECK(H5Aexists(cells, "unit_msgs_per_s") > 0);
    CHECK(H5Aexists(cells, "unit_size_bytes") > 0);
    CHECK(H5Aexists(cells, "unit_elapsed_s") > 0);
    CHECK(H5Aexists(cells, "unit_mode_fast") > 0); /* schema 4 */
    CHECK(H5Aexists(cells, "unit_bimodal") > 0);
    CHECK(H5Aexists(cells, "unit_backend") == 0); /* text columns have no unit */
    CHECK(H5Aexists(cells, RB_H5_ATTR_FAMILIES) > 0);
    hid_t attr = H5Aopen(cells, RB_H5_ATTR_FAMILIES, H5P_DEFAULT), type = H5Aget_type(attr);
    size_t size = H5Tget_size(type);
    char *text = calloc(1, size + 1);
    CHECK(H5Aread(attr, type, text) >= 0);
    CHECK(strstr(text, "latency: us: round trip of one message") != NULL);
    CHECK(strstr(text, "memcpy_d2h_pageable: GB/s: ") != NULL);
    free(text);
    H5Tclose(type);
    H5Aclose(attr);
    attr = H5Aopen(cells, "unit_ratio_floor", H5P_DEFAULT);
    type = H5Aget_type(attr);
    char unit[64] = "";
    CHECK(H5Tget_size(type) < sizeof unit && H5Aread(attr, type, unit) >= 0);
    CHECK_STR(unit, "ratio");
    H5Tclose(type);
    H5Aclose(attr);
    H5Dclose(cells);
    H5Fclose(file);
}

// --- the tests -------------------------------------------------------------------------------------

static void write_attrs(h5out *w)
{
    CHECK_INT(h5out_attr_str(w, RB_H5_PROVENANCE, "git_commit", "0123456789ab"), 0);
    CHECK_INT(h5out_attr_str(w, RB_H5_PROVENANCE, "cmdline", "ringbench sweep --out \"a b.h5\""), 0);
    CHECK_INT(h5out_attr_str(w, RB_H5_PROVENANCE, "empty", ""), 0);
    CHECK_INT(h5out_attr_i64(w, RB_H5_PROVENANCE, "pid", -42), 0);
    CHECK_INT(h5out_attr_i64(w, RB_H5_PROVENANCE, "i64_max", INT64_MAX), 0);
    CHECK_INT(h5out_attr_i64(w, RB_H5_PROVENANCE, "i64_min", INT64_MIN), 0);
    CHECK_INT(h5out_attr_f64(w, RB_H5_PROVENANCE, "clock_res_s", 1e-9), 0);
    CHECK_INT(h5out_attr_f64(w, RB_H5_PROVENANCE, "third", 1.0 / 3.0), 0);
    CHECK_INT(h5out_attr_i64(w, RB_H5_CAPABILITIES, "cuda_driver", 12040), 0);
    CHECK_INT(h5out_attr_str(w, RB_H5_CAPABILITIES, "nvml_error", "NVML_ERROR_NOT_SUPPORTED"), 0);
    CHECK_INT(h5out_attr_f64(w, RB_H5_CAPABILITIES, "pcie_gbps", 31.5), 0);
    CHECK_INT(h5out_attr_str(w, "/", "host", "first"), 0);
    CHECK_INT(h5out_attr_str(w, "/", "host", "node 1 (replaced)"), 0); /* the last value wins */
    CHECK_INT(h5out_attr_str(w, "/elsewhere", "x", "y"), -1);
    CHECK(one_line(h5out_error(w)));
}

static void check_attrs(const h5in *r)
{
    check_attr(r, RB_H5_PROVENANCE, "git_commit", "0123456789ab");
    check_attr(r, RB_H5_PROVENANCE, "cmdline", "ringbench sweep --out \"a b.h5\"");
    check_attr(r, RB_H5_PROVENANCE, "empty", "");
    check_attr(r, RB_H5_PROVENANCE, "pid", "-42");
    check_attr(r, RB_H5_PROVENANCE, "i64_max", "9223372036854775807");
    check_attr(r, RB_H5_PROVENANCE, "i64_min", "-9223372036854775808");
    check_attr(r, RB_H5_PROVENANCE, "clock_res_s", "1.0000000000000001e-09");
    CHECK(same_f64(strtod(h5in_attr(r, RB_H5_PROVENANCE, "third"), NULL), 1.0 / 3.0));
    CHECK_INT(h5in_attr_count(r, RB_H5_PROVENANCE), 8);
    /* Listed in name order. */
    CHECK_STR(h5in_attr_name(r, RB_H5_PROVENANCE, 0), "clock_res_s");
    CHECK_STR(h5in_attr_name(r, RB_H5_PROVENANCE, 7), "third");
    CHECK(h5in_attr_name(r, RB_H5_PROVENANCE, 8) == NULL);
    check_attr(r, RB_H5_CAPABILITIES, "cuda_driver", "12040");
    check_attr(r, RB_H5_CAPABILITIES, "nvml_error", "NVML_ERROR_NOT_SUPPORTED");
    check_attr(r, RB_H5_CAPABILITIES, "pcie_gbps", "31.5");
    CHECK_INT(h5in_attr_count(r, RB_H5_CAPABILITIES), 3);
    check_attr(r, "/", "host", "node 1 (replaced)");
    check_attr(r, "/", RB_H5_ATTR_TOOL, "ringbench");
    char version[16];
    snprintf(version, sizeof version, "%d", RB_SCHEMA_VERSION);
    check_attr(r, "/", RB_H5_ATTR_SCHEMA, version);
    check_attr(r, "/", RB_H5_ATTR_COMPLETE, "1");
    check_attr(r, "/", RB_H5_ATTR_INTERRUPTED, "");
    /* tool, schema_version, complete, interrupted_by, host, and the three lengths written at close */
    CHECK_INT(h5in_attr_count(r, "/"), 8);
    CHECK(h5in_attr(r, RB_H5_PROVENANCE, "absent") == NULL);
    CHECK(h5in_attr(r, "/nogroup", "x") == NULL);
}

static void test_roundtrip(const char *path)
{
    char err[512] = "";
    h5out *w = NULL;
    h5in *r = NULL;

    remove_file(path);
    CHECK_MSG(h5out_open(path, 0, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    CHECK(file_exists(path) == 0); /* written as .partial until closed */
    write_attrs(w);
    for (int i = 0; i < NROWS; i++) {
        rb_row row = make_row(i);
        double *s = make_samples(i, sample_counts[i]);
        CHECK_MSG(h5out_append(w, &row, s, sample_counts[i]) == 0, "%s", h5out_error(w));
        CHECK_INT(row.row_id, i);
        free(s);
    }
    CHECK_INT(h5out_append(w, NULL, NULL, 0), -1);
    CHECK(one_line(h5out_error(w)));
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    CHECK(file_exists(path));
    CHECK(!file_exists(partial));

    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s", err);
    if (r == NULL)
        return;
    CHECK_INT(h5in_nrows(r), NROWS);
    CHECK_INT(h5in_complete(r), 1);
    CHECK_INT(h5in_schema_version(r), RB_SCHEMA_VERSION);
    for (int i = 0; i < NROWS; i++) {
        rb_row want = expected_row(i);
        check_row(h5in_row(r, (size_t)i), &want);
    }
    /* A few columns by name too, in case the generic comparison were ever wrong. */
    CHECK_STR(h5in_row(r, 0)->family, "latency");
    CHECK_STR(h5in_row(r, 0)->unit, "us");
    CHECK(h5in_row(r, 0)->p50 == 2.5);
    CHECK(h5in_row(r, 1)->lost == UINT64_MAX);
    CHECK(isnan(h5in_row(r, 2)->p50));
    CHECK_INT(strlen(h5in_row(r, 2)->reason), RB_REASON_LEN - 1);
    CHECK_STR(h5in_row(r, 3)->ctrl, "-");
    CHECK(h5in_row(r, NROWS) == NULL);

    for (int i = 0; i < NROWS; i++) {
        double *got = NULL, *want = make_samples(i, sample_counts[i]);
        size_t n = 12345;
        CHECK_MSG(h5in_samples(r, (size_t)i, &got, &n, err, sizeof err) == 0, "%s", err);
        CHECK_INT(n, sample_counts[i]);
        CHECK(n == 0 ? got == NULL : got != NULL && memcmp(got, want, n * sizeof *got) == 0);
        free(got);
        free(want);
    }
    double *none = NULL;
    size_t n = 0;
    CHECK_INT(h5in_samples(r, NROWS, &none, &n, err, sizeof err), -1);
    CHECK(one_line(err));
    check_attrs(r);
    h5in_close(r);
    check_cells_attrs(path);
}

static int write_small(const char *path, int force, int nrows, int complete, const char *why, char *err, size_t errlen)
{
    h5out *w = NULL;
    if (h5out_open(path, force, &w, err, errlen) != 0)
        return -1;
    for (int i = 0; i < nrows; i++) {
        rb_row row = make_row(i);
        double *s = make_samples(i, sample_counts[i]);
        int rc = h5out_append(w, &row, s, sample_counts[i]);
        free(s);
        if (rc != 0) {
            snprintf(err, errlen, "%s", h5out_error(w));
            h5out_close(w, 0, "append failed", NULL, 0);
            return -1;
        }
    }
    return h5out_close(w, complete, why, err, errlen);
}

static size_t rows_in(const char *path, int *complete, char *why, size_t whylen)
{
    char err[512];
    h5in *r = NULL;
    if (h5in_open(path, &r, err, sizeof err) != 0) {
        fprintf(stderr, "reading %s: %s\n", path, err);
        return (size_t)-1;
    }
    size_t n = h5in_nrows(r);
    *complete = h5in_complete(r);
    const char *text = h5in_attr(r, "/", RB_H5_ATTR_INTERRUPTED);
    snprintf(why, whylen, "%s", text ? text : "(absent)");
    h5in_close(r);
    return n;
}

/* An existing PATH is refused without force, replaced with it; a stale .partial likewise. The path
 * has spaces and quotes, as users' paths do. */
static void test_force(void)
{
    char path[4200], partial[4300], err[512] = "", why[64];
    int complete = -1;
    path_in(path, sizeof path, "it's a \"forced\" file.h5");
    snprintf(partial, sizeof partial, "%s.partial", path);
    remove_file(path);

    CHECK_MSG(write_small(path, 0, 2, 1, NULL, err, sizeof err) == 0, "%s", err);
    CHECK_INT(write_small(path, 0, 1, 1, NULL, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "exists; use --force to replace it") != NULL && one_line(err), "%s", err);
    CHECK_INT(rows_in(path, &complete, why, sizeof why), 2); /* untouched */
    CHECK_MSG(write_small(path, 1, 1, 1, NULL, err, sizeof err) == 0, "%s", err);
    CHECK_INT(rows_in(path, &complete, why, sizeof why), 1);
    CHECK_INT(complete, 1);

    /* A .partial left by a crash: refused without force, removed with it. */
    remove_file(path);
    FILE *f = fopen(partial, "w");
    fputs("left by a crash\n", f);
    fclose(f);
    CHECK_INT(write_small(path, 0, 1, 1, NULL, err, sizeof err), -1);
    CHECK_MSG(strstr(err, ".partial exists") != NULL && one_line(err), "%s", err);
    CHECK(file_exists(partial));
    CHECK_MSG(write_small(path, 1, 3, 1, NULL, err, sizeof err) == 0, "%s", err);
    CHECK_INT(rows_in(path, &complete, why, sizeof why), 3);
    CHECK(!file_exists(partial));
    remove_file(path);

    /* Directories that cannot take the file. */
    CHECK_INT(write_small("/nonexistent-ringbench-dir/x.h5", 0, 0, 1, NULL, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "does not exist") != NULL && one_line(err), "%s", err);
    CHECK_INT(write_small(workdir, 1, 0, 1, NULL, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "is a directory") != NULL && one_line(err), "%s", err);
    if (geteuid() != 0) { /* root may write anywhere */
        char ro[4200], inside[4300];
        path_in(ro, sizeof ro, "read-only");
        mkdir(ro, 0755);
        chmod(ro, 0555);
        snprintf(inside, sizeof inside, "%s/x.h5", ro);
        CHECK_INT(write_small(inside, 0, 0, 1, NULL, err, sizeof err), -1);
        CHECK_MSG(strstr(err, "is not writable") != NULL && one_line(err), "%s", err);
        chmod(ro, 0755);
        rmdir(ro);
    }
}

/* An interrupted run is still moved into place, marked incomplete, saying why. */
static void test_interrupted(void)
{
    char path[4200], err[512] = "", why[64];
    int complete = -1;
    path_in(path, sizeof path, "interrupted.h5");
    remove_file(path);
    CHECK_MSG(write_small(path, 0, 2, 0, "SIGINT", err, sizeof err) == 0, "%s", err);
    CHECK_INT(rows_in(path, &complete, why, sizeof why), 2);
    CHECK_INT(complete, 0);
    CHECK_STR(why, "SIGINT");
    CHECK_MSG(write_small(path, 1, 1, 0, NULL, err, sizeof err) == 0, "%s", err);
    CHECK_INT(rows_in(path, &complete, why, sizeof why), 1);
    CHECK_STR(why, "unknown");
    remove_file(path);
}

/* A PATH created by someone else while the run goes on is never replaced without force: the
 * results stay in PATH.partial, complete and readable. */
static void test_path_appears(void)
{
    char path[4200], partial[4300], err[512] = "", why[64], text[64] = "";
    int complete = -1;
    h5out *w = NULL;
    path_in(path, sizeof path, "appears.h5");
    snprintf(partial, sizeof partial, "%s.partial", path);
    remove_file(path);
    CHECK_MSG(h5out_open(path, 0, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    rb_row row = make_row(3);
    CHECK_INT(h5out_append(w, &row, NULL, 0), 0);
    FILE *f = fopen(path, "w");
    fputs("someone else's\n", f);
    fclose(f);
    CHECK_INT(h5out_close(w, 1, NULL, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "appeared") != NULL && one_line(err), "%s", err);
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(text, sizeof text, f) != NULL);
    if (f)
        fclose(f);
    CHECK_STR(text, "someone else's\n");
    CHECK_INT(rows_in(partial, &complete, why, sizeof why), 1);
    CHECK_INT(complete, 1);
    remove_file(path);
}

/* A crash after 3 rows: the child is killed with SIGKILL while the writer is open. Its .partial
 * holds the 3 rows, marked incomplete, and blocks a new run until removed or forced. */
static void test_crash(void)
{
    char path[4200], partial[4300], err[512] = "", why[64];
    int complete = -1, status = 0;
    path_in(path, sizeof path, "crash.h5");
    snprintf(partial, sizeof partial, "%s.partial", path);
    remove_file(path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        h5out *w = NULL;
        if (h5out_open(path, 0, &w, err, sizeof err) != 0)
            _exit(3);
        for (int i = 0; i < 3; i++) {
            rb_row row = make_row(i);
            double *s = make_samples(i, sample_counts[i]);
            if (h5out_append(w, &row, s, sample_counts[i]) != 0)
                _exit(4);
            free(s);
        }
        kill(getpid(), SIGKILL);
        _exit(5);
    }
    CHECK(pid > 0);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child status %d", status);
    CHECK(!file_exists(path));
    CHECK(file_exists(partial));
    CHECK_INT(rows_in(partial, &complete, why, sizeof why), 3);
    CHECK_INT(complete, 0);

    h5in *r = NULL;
    CHECK_MSG(h5in_open(partial, &r, err, sizeof err) == 0, "%s", err);
    if (r != NULL) {
        for (int i = 0; i < 3; i++) {
            rb_row want = expected_row(i);
            check_row(h5in_row(r, (size_t)i), &want);
        }
        double *s = NULL, *want = make_samples(1, sample_counts[1]);
        size_t n = 0;
        CHECK_MSG(h5in_samples(r, 1, &s, &n, err, sizeof err) == 0, "%s", err);
        CHECK(n == sample_counts[1] && s != NULL && memcmp(s, want, n * sizeof *s) == 0);
        free(s);
        free(want);
        h5in_close(r);
    }
    CHECK_INT(write_small(path, 0, 1, 1, NULL, err, sizeof err), -1);
    CHECK_MSG(strstr(err, ".partial exists") != NULL, "%s", err);
    remove_file(path);
}

/* A table written by another tool, columns reversed and with other widths, reads the same: the
 * reader goes by column name and HDF5 converts. */
static void test_other_layout(void)
{
    char path[4200], err[512] = "";
    path_in(path, sizeof path, "other-layout.h5");
    remove_file(path);

    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t str16 = H5Tcopy(H5T_C_S1), str300 = H5Tcopy(H5T_C_S1), strattr = H5Tcopy(H5T_C_S1);
    H5Tset_size(str16, 16);
    H5Tset_size(str300, 300);
    H5Tset_size(strattr, 10);
    /* Columns in reverse order: strings 16 wide (reason 300), ints 64-bit, doubles as float32. */
    size_t size = 0;
#define SIZE_STR(f) size += strcmp(#f, "reason") == 0 ? 300 : 16;
#define SIZE_I32(f) size += 8;
#define SIZE_I64(f) size += 8;
#define SIZE_U64(f) size += 8;
#define SIZE_F64(f) size += 4;
#define SIZE_COLUMN(kind, field, unit) SIZE_##kind(field)
    RB_ROW_COLUMNS(SIZE_COLUMN)
    hid_t type = H5Tcreate(H5T_COMPOUND, size);
    size_t off = size;
#define PUT_STR(f)                                            \
    {                                                         \
        hid_t t = strcmp(#f, "reason") == 0 ? str300 : str16; \
        off -= H5Tget_size(t);                                \
        H5Tinsert(type, #f, off, t);                          \
    }
#define PUT_I32(f)                               \
    {                                            \
        off -= 8;                                \
        H5Tinsert(type, #f, off, H5T_STD_I64BE); \
    }
#define PUT_I64(f)                               \
    {                                            \
        off -= 8;                                \
        H5Tinsert(type, #f, off, H5T_STD_I64BE); \
    }
#define PUT_U64(f)                               \
    {                                            \
        off -= 8;                                \
        H5Tinsert(type, #f, off, H5T_STD_U64BE); \
    }
#define PUT_F64(f)                                \
    {                                             \
        off -= 4;                                 \
        H5Tinsert(type, #f, off, H5T_IEEE_F32BE); \
    }
#define PUT_COLUMN(kind, field, unit) PUT_##kind(field)
    RB_ROW_COLUMNS(PUT_COLUMN)
    CHECK_INT(off, 0);

    /* One row in that layout, written through the row type so HDF5 does the conversion. */
    rb_row row = expected_row(0);
    row.row_id = 7;
    snprintf(row.reason, sizeof row.reason, "%s", "fits in 300");
    /* What the reader gives a schema-1 row in the columns schema 2 added (the file has them, but a
     * schema-1 file's values there mean nothing and are replaced). */
    row.cell_id = 0;
    row.window = 0;
    snprintf(row.ci_method, sizeof row.ci_method, "%s", RB_CI_SAMPLES);
    row.trials = 1;
    row.trial_p50_min = row.trial_p50_max = row.trial_cv = NAN;
    rb_row_calls_clear(&row);
    /* Values that float32 holds exactly, so the comparison can stay bit for bit. */
    row.p999 = 5.125;
    row.max = 1024.5;
    row.mean = 2.625;
    row.stddev = 0.125;
    row.ci_lo = 2.5;
    row.ci_hi = 2.75;
    row.elapsed_s = 0.5;
    row.msgs_per_s = 1000;
    row.ratio_memcpy = 0.25;
    hsize_t one = 1;
    hid_t space = H5Screate_simple(1, &one, NULL), mtype = h5out_row_type();
    hid_t dset = H5Dcreate2(file, RB_H5_CELLS, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row) >= 0);
    hid_t scalar = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(file, RB_H5_ATTR_TOOL, strattr, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, strattr, "ringbench");
    H5Aclose(a);
    int version = 1; /* schema 1 had no /trials table */
    a = H5Acreate2(file, RB_H5_ATTR_SCHEMA, H5T_STD_I16LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, &version);
    H5Aclose(a);
    H5Sclose(scalar);
    H5Dclose(dset);
    H5Sclose(space);
    H5Tclose(mtype);
    H5Tclose(type);
    H5Tclose(str16);
    H5Tclose(str300);
    H5Tclose(strattr);
    H5Fclose(file);

    h5in *r = NULL;
    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s", err);
    if (r != NULL) {
        check_row(h5in_row(r, 0), &row);
        CHECK_INT(h5in_complete(r), 0); /* no complete attribute: not known to be complete */
        double *s = NULL;
        size_t n = 1;
        CHECK_INT(h5in_samples(r, 0, &s, &n, err, sizeof err), 0); /* no /samples at all */
        CHECK(n == 0 && s == NULL);
        h5in_close(r);
    }
    unlink(path);
}

/* Schema 2: trials are written before their cell's row, grouped by cell_id when read back, ordered
 * by round, and a row's samples are its trials' samples concatenated in round order. A trial whose
 * cell row never came (a crash) stays in the file. */
static void test_trials(void)
{
    char path[4200], err[512] = "";
    path_in(path, sizeof path, "trials.h5");
    remove_file(path);
    h5out *w = NULL;
    CHECK_MSG(h5out_open(path, 0, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    /* Cell 5: rounds written out of order (2, 0, 1); cell 9: one trial and no row. */
    const int rounds[4] = {2, 0, 1, 0}, cells[4] = {5, 5, 5, 9};
    const size_t counts[4] = {3, 0, 5, 2};
    for (int k = 0; k < 4; k++) {
        rb_trial t;
        memset(&t, 0, sizeof t);
        t.cell_id = cells[k];
        set_str(t.family, sizeof t.family, "latency");
        set_str(t.host_mem, sizeof t.host_mem, "pinned");
        set_str(t.xfer, sizeof t.xfer, "async");
        set_str(t.launch, sizeof t.launch, "coop");
        set_str(t.ctrl, sizeof t.ctrl, "managed");
        set_str(t.status, sizeof t.status, RB_STATUS_OK);
        t.trial = rounds[k];
        t.seq = k;
        t.n = counts[k];
        t.p50 = 10 + k;
        t.cpu_start = 3;
        t.cpu_end = -1;
        t.ctx_switches = INT64_MIN;
        t.sm_mhz_start = 1980;
        t.sm_mhz_end = NAN;
        t.throttle_end = UINT64_MAX;
        t.part_s = 0.25;
        t.payload_s = NAN;
        t.steal_ms = 30;
        t.cpu_steal_ms = 0;
        t.max_steal_ms = 20;
        t.irq_ms = -0.0;
        t.others_ms = -7.5; /* ticks against microseconds: a little below 0 is legitimate */
        t.minflt = 12;
        t.majflt = -1;
        t.proc_ctx_switches = INT64_MAX;
        double s[5];
        for (size_t i = 0; i < counts[k]; i++)
            s[i] = 100.0 * rounds[k] + (double)i;
        CHECK_MSG(h5out_append_trial(w, &t, s, counts[k]) == 0, "%s", h5out_error(w));
        CHECK_INT(t.trial_id, k);
    }
    rb_row row = make_row(0);
    row.cell_id = 5;
    row.n = 0;
    row.trials = 3;
    set_str(row.ci_method, sizeof row.ci_method, RB_CI_TRIALS);
    CHECK_MSG(h5out_append(w, &row, NULL, 0) == 0, "%s", h5out_error(w));
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);

    h5in *r = NULL;
    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s", err);
    if (r == NULL)
        return;
    CHECK_INT(h5in_schema_version(r), RB_SCHEMA_VERSION);
    CHECK_INT(h5in_ntrials(r), 4);
    const size_t *idx = NULL;
    CHECK_INT(h5in_row_trials(r, 0, &idx), 3);
    if (idx != NULL) {
        CHECK_INT(idx[0], 1); /* round 0 */
        CHECK_INT(idx[1], 2); /* round 1 */
        CHECK_INT(idx[2], 0); /* round 2 */
    }
    const rb_trial *t = h5in_trial(r, 0);
    CHECK(t != NULL && t->cpu_start == 3 && t->cpu_end == -1 && t->ctx_switches == INT64_MIN);
    CHECK(t != NULL && t->sm_mhz_start == 1980 && isnan(t->sm_mhz_end) && t->throttle_end == UINT64_MAX);
    CHECK(t != NULL && strcmp(t->family, "latency") == 0 && t->trial == 2);
    CHECK(t != NULL && t->part_s == 0.25 && isnan(t->payload_s) && t->steal_ms == 30 && t->cpu_steal_ms == 0 &&
          t->max_steal_ms == 20);
    CHECK(t != NULL && t->others_ms == -7.5 && t->minflt == 12 && t->majflt == -1 && t->proc_ctx_switches == INT64_MAX);
    CHECK(h5in_trial(r, 4) == NULL);
    CHECK_STR(h5in_trial(r, 3)->family, "latency"); /* the orphan trial is kept */
    double *all = NULL;
    size_t n = 0;
    CHECK_MSG(h5in_samples(r, 0, &all, &n, err, sizeof err) == 0, "%s", err);
    CHECK_INT(n, 8);
    if (n == 8) /* round 0 (none), round 1 (100..104), round 2 (200..202) */
        CHECK(all[0] == 100 && all[4] == 104 && all[5] == 200 && all[7] == 202);
    free(all);
    CHECK_INT(h5in_trial_samples(r, 1, &all, &n, err, sizeof err), 0);
    CHECK(n == 0 && all == NULL);
    CHECK_INT(h5in_trial_samples(r, 99, &all, &n, err, sizeof err), -1);
    CHECK(one_line(err));
    h5in_close(r);
    unlink(path);
}

/* The H100 run committed in schema 1 (a cut of it, tests/fixtures/README.md) still opens, says so,
 * and presents each row with samples as one trial of its own. A missing fixture is a failure. */
static void test_schema1_file(const char *path)
{
    char err[512] = "";
    h5in *r = NULL;
    CHECK_MSG(access(path, R_OK) == 0, "%s: %s", path, strerror(errno));
    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s", err);
    if (r == NULL)
        return;
    CHECK_INT(h5in_schema_version(r), 1);
    CHECK(h5in_nrows(r) > 0 && h5in_ntrials(r) > 0);
    size_t with_samples = 0;
    for (size_t i = 0; i < h5in_nrows(r); i++) {
        const rb_row *row = h5in_row(r, i);
        const size_t *idx;
        size_t nt = h5in_row_trials(r, i, &idx);
        with_samples += row->n > 0;
        CHECK_INT(nt, row->n > 0 ? 1 : 0);
        CHECK_STR(row->ci_method, RB_CI_SAMPLES);
        if (nt == 1)
            CHECK(h5in_trial(r, idx[0])->n == row->n && h5in_trial(r, idx[0])->cpu_start == -1);
    }
    CHECK_INT(h5in_ntrials(r), with_samples);
    h5in_close(r);
}

// --- two modes (schema 4) --------------------------------------------------------------------------

/* n samples, a mixture of 2.7 and 8.7 us (every tenth sample of three slow: share 30%), 5% jitter. */
static void mixture(double *v, size_t n)
{
    uint64_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
        v[i] = (i % 10 < 3 ? 8.7 : 2.7) * (1.0 + 0.05 * (u - 0.5));
    }
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The rule: a mixture of 2.7 and 8.7 (slow share 30%) is bimodal with both medians and the share
 * found; one mode spread +-20%, or a 1% tail, is not; too few samples are not judged. */
static void test_bimodal_split(void)
{
    enum { N = 2000 };
    static double v[N];
    bimodal_modes m;
    mixture(v, N);
    qsort(v, N, sizeof *v, cmp_f64);
    CHECK(bimodal_split(v, N, &m) == 0);
    CHECK(m.bimodal == 1);
    CHECK(fabs(m.lo - 2.7) < 0.1 && fabs(m.hi - 8.7) < 0.3 && fabs(m.hi_share - 0.3) < 0.01);
    for (size_t i = 0; i < N; i++) /* one mode, 2.7 +- 20% */
        v[i] = 2.7 * (0.8 + 0.4 * (double)i / N);
    CHECK(bimodal_split(v, N, &m) == 0);
    CHECK(m.bimodal == 0 && m.lo == m.hi && m.hi_share == 0);
    for (size_t i = 0; i < N; i++) /* a 1% slow tail is not a mode */
        v[i] = i >= N - 20 ? 9.0 : 2.7 * (1.0 + 0.01 * (double)i / N);
    CHECK(bimodal_split(v, N, &m) == 0);
    CHECK(m.bimodal == 0);
    CHECK(bimodal_split(v, 10, &m) == -1);
}

/* Rows for the two-modes files: 0 a bimodal latency cell, 1 a unimodal one, 2 a throughput cell
 * whose samples split as well (rates are never split), each with its own MIX_N samples and its
 * columns filled as a run's writer fills them. */
#define MIX_ROWS 3
#define MIX_N 2000
static rb_row mix_row(int i, double *s)
{
    rb_row r = make_row(i == 2 ? 1 : 0);
    r.size_bytes = 64u << i;
    r.n = MIX_N;
    mixture(s, MIX_N);
    if (i == 1)
        for (size_t k = 0; k < MIX_N; k++)
            s[k] = 2.7 * (0.8 + 0.4 * (double)k / MIX_N);
    double *sorted = malloc(MIX_N * sizeof *sorted);
    memcpy(sorted, s, MIX_N * sizeof *sorted);
    qsort(sorted, MIX_N, sizeof *sorted, cmp_f64);
    CHECK(bimodal_row_fill(&r, sorted, MIX_N) == 0);
    free(sorted);
    return r;
}

static void write_mix(const char *path, rb_row want[MIX_ROWS])
{
    char err[512] = "";
    h5out *w = NULL;
    double *s = malloc(MIX_N * sizeof *s);
    remove_file(path);
    CHECK_MSG(h5out_open(path, 0, &w, err, sizeof err) == 0, "%s", err);
    for (int i = 0; w != NULL && i < MIX_ROWS; i++) {
        want[i] = mix_row(i, s);
        CHECK_MSG(h5out_append(w, &want[i], s, MIX_N) == 0, "%s", h5out_error(w));
    }
    if (w != NULL)
        CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
    free(s);
}

/* The columns of the three rows as they must read: row 0 two modes, the others none. */
static void check_mix(const h5in *r, const rb_row want[MIX_ROWS], const char *what)
{
    const rb_row *got = h5in_row(r, 0);
    CHECK_MSG(got != NULL && got->bimodal == 1, "%s: row 0 not bimodal", what);
    if (got == NULL)
        return;
    CHECK_STR(got->status, RB_STATUS_OK);
    CHECK_MSG(fabs(got->mode_fast - 2.7) < 0.1 && fabs(got->mode_slow - 8.7) < 0.3 &&
                  fabs(got->slow_share - 0.3) < 0.01,
              "%s: modes %g %g share %g", what, got->mode_fast, got->mode_slow, got->slow_share);
    for (int i = 0; i < MIX_ROWS; i++) {
        got = h5in_row(r, (size_t)i);
        CHECK_MSG(got->bimodal == want[i].bimodal && same_f64(got->mode_fast, want[i].mode_fast) &&
                      same_f64(got->mode_slow, want[i].mode_slow) && same_f64(got->slow_share, want[i].slow_share),
                  "%s: row %d reads bimodal %d %.17g %.17g %.17g", what, i, (int)got->bimodal, got->mode_fast,
                  got->mode_slow, got->slow_share);
    }
    CHECK(h5in_row(r, 1)->bimodal == 0 && isnan(h5in_row(r, 1)->mode_fast) && isnan(h5in_row(r, 1)->slow_share));
    CHECK(h5in_row(r, 2)->bimodal == 0 && isnan(h5in_row(r, 2)->mode_slow)); /* a rate is never split */
}

/* A bimodal cell written with its columns reads back with them, bit for bit. */
static void test_bimodal_roundtrip(void)
{
    char path[4200], err[512] = "";
    rb_row want[MIX_ROWS];
    path_in(path, sizeof path, "two-modes.h5");
    write_mix(path, want);
    CHECK(want[0].bimodal == 1 && want[1].bimodal == 0 && want[2].bimodal == 0);
    h5in *r = NULL;
    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s", err);
    if (r == NULL)
        return;
    CHECK_INT(h5in_ndamaged(r), 0);
    for (int i = 0; i < MIX_ROWS; i++) {
        want[i].row_id = i;
        check_row(h5in_row(r, (size_t)i), &want[i]);
    }
    check_mix(r, want, "schema 4");
    h5in_close(r);
    remove_file(path);
}

/* Rewrites the file at path as schema 3 wrote it: /cells without schema 4's columns, each row's
 * checksum as schema 3 made it, schema_version 3. */
static void rewrite_as_schema3(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), full = h5out_row_type();
    hid_t dset = H5Dopen2(file, RB_H5_CELLS, H5P_DEFAULT), space = H5Dget_space(dset);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, NULL);
    rb_row *rows = calloc((size_t)n, sizeof *rows);
    CHECK(rows != NULL && H5Dread(dset, full, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Dclose(dset);
    CHECK(H5Ldelete(file, RB_H5_CELLS, H5P_DEFAULT) >= 0);
    hid_t old = H5Tcreate(H5T_COMPOUND, sizeof(rb_row));
    for (int i = 0; i < H5Tget_nmembers(full); i++) {
        char *name = H5Tget_member_name(full, (unsigned)i);
        hid_t mt = H5Tget_member_type(full, (unsigned)i);
        if (!rb_row_column_new_in_schema4(name))
            H5Tinsert(old, name, H5Tget_member_offset(full, (unsigned)i), mt);
        H5Tclose(mt);
        H5free_memory(name);
    }
    for (hsize_t i = 0; i < n; i++)
        rows[i].check = rb_row_check_schema(&rows[i], 3);
    H5Sclose(space);
    space = H5Screate_simple(1, &n, NULL); /* the written one was unlimited, which needs chunks */
    dset = H5Dcreate2(file, RB_H5_CELLS, old, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(dset >= 0 && H5Dwrite(dset, old, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    int version = 3;
    hid_t a = H5Aopen(file, RB_H5_ATTR_SCHEMA, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &version) >= 0);
    H5Aclose(a);
    H5Dclose(dset);
    H5Tclose(old);
    H5Sclose(space);
    H5Tclose(full);
    H5Fclose(file);
    free(rows);
}

/* A schema-3 file has no bimodal columns: the reader computes them from the samples, giving what a
 * schema-4 writer records, and the row's schema-3 checksum still holds. */
static void test_schema3_modes(void)
{
    char path[4200], err[512] = "";
    rb_row want[MIX_ROWS];
    path_in(path, sizeof path, "two-modes schema 3.h5");
    write_mix(path, want);
    rewrite_as_schema3(path);
    h5in *r = NULL;
    CHECK_MSG(h5in_open(path, &r, err, sizeof err) == 0, "%s", err);
    if (r == NULL)
        return;
    CHECK_INT(h5in_schema_version(r), 3);
    CHECK_INT(h5in_nrows(r), MIX_ROWS);
    CHECK_INT(h5in_ndamaged(r), 0);
    if (h5in_nrows(r) == MIX_ROWS)
        check_mix(r, want, "schema 3");
    h5in_close(r);
    remove_file(path);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s WORKDIR [SCHEMA1_FILE]\n", argv[0]);
        return 2;
    }
    snprintf(workdir, sizeof workdir, "%s", argv[1]);
    if (mkdir(workdir, 0755) != 0 && errno != EEXIST) {
        perror(workdir);
        return 1;
    }
    char path[4200];
    path_in(path, sizeof path, "roundtrip.h5");

    check_columns_cover_row();
    check_families();
    test_roundtrip(path);
    test_force();
    test_interrupted();
    test_path_appears();
    test_crash();
    test_other_layout();
    test_trials();
    test_bimodal_split();
    test_bimodal_roundtrip();
    test_schema3_modes();
    if (argc == 3)
        test_schema1_file(argv[2]);
    /* Writer and reader closed everything they opened, on every path above. */
    CHECK_INT(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    CHECK_DONE();
}
