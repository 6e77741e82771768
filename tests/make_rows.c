/* make_rows.c - a results file of N rows, fast, for the streaming export: the fixture of
 * tests/export_stream.sh (tens of thousands of rows) and of the export benchmark (10^6 rows; how to
 * run it is in docs/schema.md, "Exports"). Not committed data: made when needed.
 *
 *   make_rows FILE N [LIE_EVERY]
 *
 * The file is a real one: h5out writes its provenance, a few trials with their samples and the first
 * rows (each flushed, as a run writes them); the remaining rows are appended to /cells in blocks of
 * 10 000 with their checksums (rb_row_check), and the row count the reader checks is set to N. Every
 * row is a distinct latency cell (its size), ok, with an interval; with LIE_EVERY, every LIE_EVERY-th row
 * from the bulk says p50 = NaN (a lie the reader marks damaged). Exit status 0, or 1 with a message.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bimodal.h"
#include "h5out.h"

#define FIRST 64   /* rows written through h5out, each with 3 trials of 50 samples */
#define BULK 10000 /* rows per block of the bulk */

static void set(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s); }

static rb_row make_row(size_t i, size_t lie_every)
{
    rb_row r;
    memset(&r, 0, sizeof r);
    bimodal_row_clear(&r);
    rb_row_calls_clear(&r);
    r.row_id = (int32_t)i;
    r.cell_id = (int32_t)i;
    set(r.backend, sizeof r.backend, "cpu");
    set(r.family, sizeof r.family, "latency");
    set(r.host_mem, sizeof r.host_mem, "pinned");
    set(r.xfer, sizeof r.xfer, "async");
    set(r.launch, sizeof r.launch, "coop");
    set(r.ctrl, sizeof r.ctrl, "mapped");
    set(r.status, sizeof r.status, RB_STATUS_OK);
    set(r.unit, sizeof r.unit, "us");
    set(r.stop_rule, sizeof r.stop_rule, "fixed");
    set(r.ci_method, sizeof r.ci_method, RB_CI_TRIALS);
    r.size_bytes = 4ull * (i + 1);
    r.window = 1;
    r.trials = 3;
    r.min = 1.0 + (double)(i % 97) * 0.01;
    r.p50 = r.mean = r.min + 0.5;
    r.p90 = r.p99 = r.p999 = r.max = r.p50 + 1;
    r.stddev = 0.1;
    r.ci_lo = r.p50 - 0.05;
    r.ci_hi = r.p50 + 0.05;
    r.trial_p50_min = r.ci_lo;
    r.trial_p50_max = r.ci_hi;
    r.trial_cv = 0.01;
    r.msgs_per_s = r.ratio_floor = r.ratio_memcpy = NAN;
    r.elapsed_s = 0.5;
    if (lie_every && i >= FIRST && i % lie_every == 0)
        r.p50 = NAN;
    return r;
}

/* The first rows through the writer: provenance, each row's three trials with samples, the row. */
static int write_head(const char *path, size_t first, char *err, size_t errlen)
{
    h5out *w = NULL;
    double x[50];
    if (h5out_open(path, 1, &w, err, errlen) != 0)
        return -1;
    h5out_attr_str(w, RB_H5_PROVENANCE, "git_commit", "0123456789abcdef0123456789abcdef01234567");
    h5out_attr_str(w, RB_H5_PROVENANCE, "hostname", "make-rows");
    h5out_attr_str(w, RB_H5_PROVENANCE, "start_utc", "2026-01-01T00:00:00Z");
    h5out_attr_str(w, RB_H5_PROVENANCE, "backend", "cpu");
    for (size_t i = 0; i < first; i++) {
        rb_row r = make_row(i, 0);
        r.n = 3 * 50;
        for (int t = 0; t < 3; t++) {
            rb_trial tr;
            memset(&tr, 0, sizeof tr);
            rb_trial_conditions_unknown(&tr);
            tr.cell_id = r.cell_id;
            set(tr.family, sizeof tr.family, r.family);
            set(tr.host_mem, sizeof tr.host_mem, r.host_mem);
            set(tr.xfer, sizeof tr.xfer, r.xfer);
            set(tr.launch, sizeof tr.launch, r.launch);
            set(tr.ctrl, sizeof tr.ctrl, r.ctrl);
            set(tr.status, sizeof tr.status, RB_STATUS_OK);
            tr.size_bytes = r.size_bytes;
            tr.window = 1;
            tr.trial = t;
            tr.p50 = r.p50;
            for (int k = 0; k < 50; k++)
                x[k] = r.min + 0.01 * k;
            if (h5out_append_trial(w, &tr, x, 50) != 0 || (t == 2 && h5out_append(w, &r, NULL, 0) != 0)) {
                snprintf(err, errlen, "%s", h5out_error(w));
                h5out_close(w, 0, "error", err, errlen);
                return -1;
            }
        }
    }
    return h5out_close(w, 1, NULL, err, errlen);
}

/* Rows [from, n) appended to /cells in blocks, then the count the reader checks. */
static int write_bulk(const char *path, size_t from, size_t n, size_t lie_every)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), dset = H5Dopen2(file, RB_H5_CELLS, H5P_DEFAULT);
    hid_t type = h5out_row_type(), root = H5Gopen2(file, "/", H5P_DEFAULT);
    rb_row *b = malloc(BULK * sizeof *b);
    int rc = file >= 0 && dset >= 0 && type >= 0 && root >= 0 && b != NULL ? 0 : -1;
    for (size_t at = from; rc == 0 && at < n; at += BULK) {
        hsize_t start = at, count = n - at < BULK ? n - at : BULK, extent = at + count;
        for (size_t k = 0; k < count; k++) {
            b[k] = make_row(at + k, lie_every);
            b[k].samples_check = rb_check_samples(NULL, 0);
            b[k].check = rb_row_check(&b[k]);
        }
        hid_t fspace = H5I_INVALID_HID, mspace = H5Screate_simple(1, &count, NULL);
        if (H5Dset_extent(dset, &extent) < 0 || (fspace = H5Dget_space(dset)) < 0 ||
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
            H5Dwrite(dset, type, mspace, fspace, H5P_DEFAULT, b) < 0)
            rc = -1;
        H5Sclose(mspace);
        if (fspace >= 0)
            H5Sclose(fspace);
    }
    int64_t rows = (int64_t)n;
    hid_t attr = rc == 0 ? H5Aopen(root, RB_H5_ATTR_NROWS, H5P_DEFAULT) : H5I_INVALID_HID;
    if (attr < 0 || H5Awrite(attr, H5T_NATIVE_INT64, &rows) < 0)
        rc = -1;
    if (attr >= 0)
        H5Aclose(attr);
    free(b);
    H5Gclose(root);
    H5Tclose(type);
    H5Dclose(dset);
    return H5Fclose(file) < 0 ? -1 : rc;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 3) {
        fprintf(stderr, "usage: make_rows FILE N [LIE_EVERY]\n");
        return 2;
    }
    size_t n = strtoull(argv[2], NULL, 10), lie = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
    size_t first = n < FIRST ? n : FIRST;
    if (write_head(argv[1], first, err, sizeof err) != 0) {
        fprintf(stderr, "make_rows: %s\n", err);
        return 1;
    }
    if (n > first && write_bulk(argv[1], first, n, lie) != 0) {
        fprintf(stderr, "make_rows: %s: the bulk rows could not be written\n", argv[1]);
        return 1;
    }
    return 0;
}
