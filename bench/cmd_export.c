/* track.c - the `ringbench track` and `ringbench export` commands (their options, usage and exit
 * codes); the work is done by results/history.c, results/export.c and plots/track*.c.
 *
 * Exit status of track: 0 no regression, 1 a regression, 2 a usage or file error (including a build
 * without SQLite, which says what is missing). export: 0 written, 2 a usage or file error.
 */
#include "track_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "h5in.h"
#include "run_label.h"
#ifdef RINGBENCH_HAVE_SQLITE
#include "history.h"
#include "track.h"
#endif

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* "--name value" or "--name=value"; advances *i. Returns 1 when matched (val set), 0 when not,
 * -1 when the value is missing. */
static int opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return 1;
    }
    if (strcmp(argv[*i], name) != 0)
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

static int parse_num(const char *cmd, const char *name, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "ringbench %s: %s: '%s' is not a number from %g to %g\n", cmd, name, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* --- export ------------------------------------------------------------------------------------ */

static void usage_export(FILE *f)
{
    fprintf(f,
        "usage: ringbench export RUN.h5|compare_pairs.dat --format bmf|csv|json [-o FILE]\n"
        "Write a results file, or the pairs table of `ringbench compare`, for other tools (default:\n"
        "standard output). `ringbench track --export FILE` exports a judgement.\n"
        "  bmf    Bencher Metric Format JSON, for `bencher run --adapter json --file FILE` (see README)\n"
        "  csv    one line per row, every column, for spreadsheets and pandas\n"
        "  json   the provenance and every row\n"
        "bmf and json need jansson at build time; csv does not.\n"
        "Exit status: 0 written; 2 a usage or file error.\n");
}

/* Opens OUTPUT.tmp (its name into tmp) for the export that is renamed to output when complete. The
 * output must be a regular file or absent: the rename would replace a FIFO or a device node, and
 * opening a FIFO would wait for a reader. A stale OUTPUT.tmp that is not a regular file is refused
 * for the same reason (opened non-blocking, so even a FIFO there never blocks). Returns 0, or -1 with
 * a one-line message in err. */
static int export_output_open(const char *output, char *tmp, size_t tmplen, FILE **out, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "-o %.900s: not a regular file; write to a file, or leave out -o for standard output",
                 output);
        return -1;
    }
    if ((size_t)snprintf(tmp, tmplen, "%s.tmp", output) >= tmplen) {
        snprintf(err, errlen, "-o: path too long");
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%.900s: %s", tmp, strerror(errno));
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
        (*out = fdopen(fd, "w")) == NULL) {
        snprintf(err, errlen, "%.900s: not a regular file, or cannot be written", tmp);
        close(fd);
        return -1;
    }
    return 0;
}

int track_cmd_export(int argc, char **argv)
{
    const char *run = NULL, *format = NULL, *output = NULL, *v;
    for (int i = 1; i < argc; i++) {
        int m;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_export(stdout);
            return EXIT_OK;
        }
        if ((m = opt(argc, argv, &i, "--format", &v)) || (m = opt(argc, argv, &i, "-f", &v))) {
            if (m < 0)
                goto missing;
            format = v;
        } else if ((m = opt(argc, argv, &i, "--output", &v)) || (m = opt(argc, argv, &i, "-o", &v))) {
            if (m < 0)
                goto missing;
            output = v;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "ringbench export: unknown option '%s' (see ringbench export --help)\n", argv[i]);
            return EXIT_USAGE;
        } else if (!run) {
            run = argv[i];
        } else {
            fprintf(stderr, "ringbench export: one results file only ('%s' is extra)\n", argv[i]);
            return EXIT_USAGE;
        }
        continue;
    missing:
        fprintf(stderr, "ringbench export: %s needs a value\n", argv[i]);
        return EXIT_USAGE;
    }
    if (!run || !format) {
        fprintf(stderr, "ringbench export: needs RUN.h5 and --format bmf|csv|json (see ringbench export --help)\n");
        return EXIT_USAGE;
    }
    int f = export_format_parse(format);
    char err[1024];
    if (f < 0) {
        fprintf(stderr, "ringbench export: --format: '%s' is not bmf, csv or json\n", format);
        return EXIT_USAGE;
    }
    if (!export_format_available((export_format)f, err, sizeof err)) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return EXIT_USAGE;
    }
    /* A compare_pairs.dat (the table `ringbench compare` writes) is exported the same way. */
    int pairs = export_is_compare_pairs(run);
    h5in *r = NULL;
    if (!pairs && h5in_open(run, &r, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return EXIT_USAGE;
    }
    h5in_print_warnings(r, stderr, "ringbench export"); /* damaged rows are exported with status "damaged" */
    FILE *out = stdout;
    char tmp[4200];
    if (output && export_output_open(output, tmp, sizeof tmp, &out, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        if (r)
            h5in_close(r);
        return EXIT_USAGE;
    }
    err[0] = '\0';
    int rc = pairs ? export_compare_pairs(run, (export_format)f, out, err, sizeof err)
                   : export_run(r, (export_format)f, out, err, sizeof err);
    if (r)
        h5in_close(r);
    if (output) {
        if (fclose(out) != 0)
            rc = -1;
        if (rc == 0 && rename(tmp, output) != 0)
            rc = -1;
        if (rc != 0)
            remove(tmp);
    } else if (fflush(stdout) != 0) {
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "ringbench export: %s\n", err[0] ? err : "write error");
        return EXIT_USAGE;
    }
    if (err[0]) /* written, with something escaped or written as text: said, never silent */
        fprintf(stderr, "ringbench export: WARNING: %s\n", err);
    return EXIT_OK;
}

/* --- track ------------------------------------------------------------------------------------- */

/* An injected or limits-applied run (run_label.h) is not a measurement of its machine as it is: it
 * never enters a history, where it would pass for one. A file that cannot be read is left to the
 * history's own checks. Returns 0 to go on, -1 after one line on stderr. */
static int refuse_labelled(const char *run)
{
    h5in *r = NULL;
    char err[512], label[512];
    if (h5in_open(run, &r, err, sizeof err) != 0)
        return 0;
    rb_run_label_h5(r, label, sizeof label);
    h5in_close(r);
    if (!label[0])
        return 0;
    fprintf(stderr, "ringbench track: %s is %s: not a measurement of the machine as it is, so it is kept out "
                    "of the history\n", run, label);
    return -1;
}

static void usage_track(FILE *f)
{
    fprintf(f,
        "usage: ringbench track RUN.h5 [--history DIR] [options]\n"
        "       ringbench track --history DIR [--page]      (re-scan, rebuild the index if needed, refresh the page)\n"
        "Add a run to a history (copied in, never rewritten; SQLite index DIR/index.sqlite), judge it\n"
        "against the earlier runs of the same machine, and refresh DIR/history.md and its trend plots.\n\n"
        "  --history DIR      the history (default results/history)\n"
        "  --window N         baseline: at most the last N comparable runs (default 20)\n"
        "  --min-history N    judge a cell only with at least N earlier runs (default 5)\n"
        "  --z Z              |z| from which a cell is listed as 'watch' (default 3.5); a regression needs\n"
        "                     the |z| that keeps the night's false-alarm budget at 5%% (shown per cell)\n"
        "  --raw              judge raw figures: do not remove the machine's shift (the same-run memcpy\n"
        "                     references of each size) from the ring cells\n"
        "  --min-effect PCT   smallest change called, in percent (default 3)\n"
        "  --same-env         compare only with runs of the same environment too (driver, kernel, ...)\n"
        "  --export FILE      write every cell's judgement to FILE (.json: JSON, needs jansson; else CSV)\n"
        "  --no-page          do not refresh history.md and the plots\n"
        "Method and false-alarm rate: plots/README.md, \"Tracking\".\n"
        "Exit status: 0 no regression; 1 a regression; 2 a usage or file error.\n");
}

int track_cmd_track(int argc, char **argv)
{
    const char *run = NULL, *dir = "results/history", *export_path = NULL, *v;
    double window = 20, min_history = 5, z = 3.5, min_effect = 3;
    int same_env = 0, page = 1, raw = 0;
    for (int i = 1; i < argc; i++) {
        int m = 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_track(stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[i], "--same-env") == 0) {
            same_env = 1;
        } else if (strcmp(argv[i], "--raw") == 0) {
            raw = 1;
        } else if (strcmp(argv[i], "--no-page") == 0) {
            page = 0;
        } else if (strcmp(argv[i], "--page") == 0) {
            page = 1;
        } else if ((m = opt(argc, argv, &i, "--history", &v))) {
            dir = v;
        } else if ((m = opt(argc, argv, &i, "--export", &v))) {
            export_path = v;
        } else if ((m = opt(argc, argv, &i, "--window", &v))) {
            if (m > 0 && parse_num("track", "--window", v, 1, 10000, &window) != 0)
                return EXIT_USAGE;
        } else if ((m = opt(argc, argv, &i, "--min-history", &v))) {
            if (m > 0 && parse_num("track", "--min-history", v, 1, 10000, &min_history) != 0)
                return EXIT_USAGE;
        } else if ((m = opt(argc, argv, &i, "--z", &v))) {
            if (m > 0 && parse_num("track", "--z", v, 0.5, 100, &z) != 0)
                return EXIT_USAGE;
        } else if ((m = opt(argc, argv, &i, "--min-effect", &v))) {
            if (m > 0 && parse_num("track", "--min-effect", v, 0, 1000, &min_effect) != 0)
                return EXIT_USAGE;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "ringbench track: unknown option '%s' (see ringbench track --help)\n", argv[i]);
            return EXIT_USAGE;
        } else if (!run) {
            run = argv[i];
        } else {
            fprintf(stderr, "ringbench track: one results file at a time ('%s' is extra)\n", argv[i]);
            return EXIT_USAGE;
        }
        if (m < 0) {
            fprintf(stderr, "ringbench track: %s needs a value\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (run && refuse_labelled(run) != 0)
        return EXIT_USAGE;
#ifndef RINGBENCH_HAVE_SQLITE
    (void)run, (void)dir, (void)export_path, (void)same_env, (void)page, (void)raw;
    fprintf(stderr, "ringbench track: this ringbench was built without SQLite, which the history index needs "
                    "(install libsqlite3-dev, then re-run cmake and rebuild)\n");
    return EXIT_USAGE;
#else
    track_options o = {{(size_t)window, (size_t)min_history, z, min_effect / 100}, same_env, export_path, 0, raw};
    if (export_path) {
        size_t n = strlen(export_path);
        o.export_json = n >= 5 && strcmp(export_path + n - 5, ".json") == 0;
        char why[256];
        if (o.export_json && !export_format_available(EXPORT_JSON, why, sizeof why)) {
            fprintf(stderr, "ringbench track: --export %s: %s\n", export_path, why);
            return EXIT_USAGE;
        }
    }
    char err[1024];
    hist *h = NULL;
    if (hist_open_modes(dir, stderr, track_sample_modes, &h, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench track: %s\n", err);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    if (run) {
        long long id;
        int already, regressions = 0;
        if (hist_add(h, run, &id, &already, err, sizeof err) != 0) {
            fprintf(stderr, "ringbench track: %s\n", err);
            hist_close(h);
            return EXIT_USAGE;
        }
        if (already)
            fprintf(stderr, "ringbench track: %s is already in %s (same bytes): judged again, not copied\n", run, dir);
        if (track_judge_run(h, id, &o, stdout, &regressions, err, sizeof err) != 0) {
            fprintf(stderr, "ringbench track: %s\n", err);
            hist_close(h);
            return EXIT_USAGE;
        }
        rc = regressions ? EXIT_FAIL : EXIT_OK;
    } else {
        printf("history %s: %lld runs indexed\n", dir, hist_nruns(h));
    }
    if (page && track_history_page(h, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench track: %s\n", err);
        rc = EXIT_USAGE;
    } else if (page) {
        fprintf(stderr, "ringbench track: wrote %s/history.md\n", dir);
    }
    hist_close(h);
    return rc;
#endif
}
