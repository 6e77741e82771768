/* fuzz_readers.c - libFuzzer targets for everything that reads a results file: the commands
 * `report`, `compare`, `export` and `track` as their entry points run them, on whatever bytes the
 * fuzzer makes. Built once per target with -DFUZZ_TARGET=FUZZ_REPORT|FUZZ_COMPARE|FUZZ_EXPORT|
 * FUZZ_TRACK (tests/fuzz.cmake), under ASan + UBSan, with a seed corpus made from a tiny CPU run.
 *
 * A finding is a sanitizer report, a crash, a hang (libFuzzer's -timeout), or an HDF5 object left
 * open after a file was refused or read (checked after every input: a leak of ids is a bug here).
 * Usage: the libFuzzer command line, e.g. fuzz_report -max_total_time=60 CORPUS_DIR SEED_DIR.
 */
#define _POSIX_C_SOURCE 200809L

/* The targets, before anything compares FUZZ_TARGET with them. */
#define FUZZ_REPORT 1
#define FUZZ_COMPARE 2
#define FUZZ_EXPORT 3
#define FUZZ_TRACK 4

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "h5in.h"
#include "report.h"
#if FUZZ_TARGET == FUZZ_TRACK
#include "history.h"
#include "track.h"
#endif

static char work[256], input[320], outdir[320];

/* HDF5 itself leaks a little when it meets damaged metadata (see test_h5_damaged.c); only its own
 * allocations are ignored, ringbench's stay checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libhdf5\n"; }

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/rb-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(work) == NULL) {
        perror("mkdtemp");
        abort();
    }
    snprintf(input, sizeof input, "%s/input.h5", work);
    snprintf(outdir, sizeof outdir, "%s/out", work);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

static int spill(const uint8_t *data, size_t size)
{
    FILE *f = fopen(input, "wb");
    if (f == NULL)
        return -1;
    size_t done = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && done == size ? 0 : -1;
}

#if FUZZ_TARGET == FUZZ_TRACK
/* A fresh history for each input: tracking it copies the file in. */
static void track_one(void)
{
    char hdir[400], cmd[600], err[1024];
    hist *h = NULL;
    snprintf(hdir, sizeof hdir, "%s/history", work);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", hdir);
    if (system(cmd) != 0)
        abort();
    FILE *sink = fopen("/dev/null", "w");
    if (sink == NULL)
        abort();
    if (hist_open(hdir, sink, &h, err, sizeof err) == 0) {
        long long id = 0;
        int already = 0;
        track_options o = {TRACK_PARAMS_DEFAULT, 0, 0, 0};
        track_night night;
        memset(&night, 0, sizeof night);
        if (hist_add(h, input, &id, &already, err, sizeof err) == 0 &&
            track_night_judge(h, id, &o, &night, err, sizeof err) == 0)
            track_print_night(sink, &night, 1);
        track_night_free(&night);
        hist_close(h);
    }
    fclose(sink);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (spill(data, size) != 0)
        abort();
#if FUZZ_TARGET == FUZZ_REPORT
    report_opts o;
    report_opts_default(&o);
    o.out_dir = outdir, o.render = 0, o.reps = 100;
    report_write(input, &o);
#elif FUZZ_TARGET == FUZZ_COMPARE
    report_opts o;
    report_opts_default(&o);
    o.out_dir = outdir, o.render = 0, o.reps = 100;
    compare_write(input, input, &o);
#elif FUZZ_TARGET == FUZZ_EXPORT
    char err[1024];
    FILE *sink = fopen("/dev/null", "w");
    if (sink == NULL)
        abort();
    if (export_is_compare_pairs(input)) {
        for (int f = EXPORT_CSV; f <= EXPORT_BMF; f++)
            if (export_format_available((export_format)f, err, sizeof err))
                export_compare_pairs(input, (export_format)f, sink, err, sizeof err);
    } else {
        /* The streaming reader of exports, once per format (each export reads the rows once). */
        for (int f = EXPORT_CSV; f <= EXPORT_PROVENANCE; f++) {
            h5in_rows *s = NULL;
            if (export_format_available((export_format)f, err, sizeof err) &&
                h5in_rows_open(input, &s, err, sizeof err) == 0)
                export_run(s, (export_format)f, sink, NULL, err, sizeof err);
            h5in_rows_close(s);
        }
    }
    fclose(sink);
#elif FUZZ_TARGET == FUZZ_TRACK
    track_one();
#else
#error "FUZZ_TARGET must be FUZZ_REPORT, FUZZ_COMPARE, FUZZ_EXPORT or FUZZ_TRACK"
#endif
    /* Whatever the input, every file and object the readers opened is closed again. */
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        abort();
    return 0;
}
