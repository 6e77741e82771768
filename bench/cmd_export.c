/* cmd_export.c - `ringbench export`: a results file, or the pairs table of `ringbench compare`, as
 * Bencher Metric Format JSON, CSV or JSON (results/export.h), to a file or standard output.
 * Exit status: 0 written, 2 a usage or file error. Exercised by tests/track_cli.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "export.h"
#include "h5in.h"
#include "outfs.h"
#include "report.h"

static void usage_export(FILE *f)
{
    fprintf(f, "usage: ringbench export RUN.h5|compare_pairs.dat --format bmf|csv|json [-o|--output FILE]\n"
               "       ringbench export RUN.h5 --headline --format bmf|csv [-o|--output FILE]\n"
               "Write a results file, or the pairs table of `ringbench compare`, for other tools (default:\n"
               "standard output). `ringbench track --export FILE` exports a judgement.\n"
               "  --headline  only the headline figures of report.md (a dozen cells and their fallback / native\n"
               "              ratios with 95%% intervals), so that a Bencher threshold watches what the report quotes\n"
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

enum { OPT_HEADLINE = CLI_OPT_LONG };

static const struct option export_opts[] = {CLI_OPT_HELP,
                                            {"headline", no_argument, NULL, OPT_HEADLINE},
                                            {"format", required_argument, NULL, 'f'},
                                            {"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};

/* The command line: the input and the format (both needed), the output or NULL for standard output.
 * Returns -1 to go on, else the exit status (0 after --help). */
static int export_parse(int argc, char **argv, const char **run, const char **format, const char **output,
                        int *headline)
{
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("export", argc, argv, ":hf:o:", export_opts)) != -1) {
        switch (c) {
        case 'h': usage_export(stdout); return CLI_EXIT_OK;
        case 'f': *format = optarg; break;
        case 'o': *output = optarg; break;
        case OPT_HEADLINE: *headline = 1; break;
        default: return CLI_EXIT_USAGE;
        }
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "ringbench export: one results file only ('%s' is extra)\n", argv[optind + 1]);
        return CLI_EXIT_USAGE;
    }
    char err[256];
    if (*output && outfs_path_check("-o", *output, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    *run = optind < argc ? argv[optind] : NULL;
    if (!*run || !*format) {
        fprintf(stderr, "ringbench export: needs RUN.h5 and --format bmf|csv|json (see ringbench export --help)\n");
        return CLI_EXIT_USAGE;
    }
    return -1;
}

/* Flushes and closes the export's stream (stdout is flushed only). A write that failed on the way, or
 * now, is said with its errno. Returns 0, or -1 with err set. */
static int export_finish(FILE *out, const char *output, int failed, char *err, size_t errlen)
{
    int e = errno;
    if (fflush(out) != 0) {
        failed = 1;
        e = errno;
    } else if (ferror(out)) {
        failed = 1;
    }
    if (output && fclose(out) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed && (!err[0] || strcmp(err, "write error") == 0))
        snprintf(err, errlen, "cannot write %.900s: %s", output ? output : "standard output",
                 strerror(output ? e : cli_stdout_errno(e)));
    return failed ? -1 : 0;
}

/* Writes the export into out (a temp file renamed to output when complete, or stdout). Returns 0 or -1
 * with err set; err may also hold a warning on success. */
static int export_write(const char *run, int pairs, int headline, h5in *r, export_format f, const char *output,
                        FILE *out, const char *tmp, char *err, size_t errlen)
{
    err[0] = '\0';
    errno = 0;
    int rc = headline ? report_headline_export(run, f == EXPORT_BMF, out, err, errlen)
             : pairs  ? export_compare_pairs(run, f, out, err, errlen)
                      : export_run(r, f, out, err, errlen);
    rc = export_finish(out, output, rc != 0, err, errlen);
    if (output && rc == 0 && rename(tmp, output) != 0) {
        snprintf(err, errlen, "cannot rename %.400s to %.400s: %s", tmp, output, strerror(errno));
        rc = -1;
    }
    if (output && rc != 0)
        remove(tmp);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    const char *run = NULL, *format = NULL, *output = NULL;
    int headline = 0;
    int rc = export_parse(argc, argv, &run, &format, &output, &headline);
    if (rc >= 0)
        return rc;
    int f = export_format_parse(format);
    char err[1024];
    if (f < 0) {
        fprintf(stderr, "ringbench export: --format: '%s' is not bmf, csv or json\n", format);
        return CLI_EXIT_USAGE;
    }
    if (!export_format_available((export_format)f, err, sizeof err)) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    /* A compare_pairs.dat (the table `ringbench compare` writes) is exported the same way. */
    int pairs = export_is_compare_pairs(run);
    if (headline && (f == EXPORT_JSON || pairs)) {
        fprintf(stderr, "ringbench export: --headline %s\n",
                pairs ? "needs a results file (RUN.h5), not a compare_pairs.dat" : "writes bmf or csv, not json");
        return CLI_EXIT_USAGE;
    }
    h5in *r = NULL;
    if (!pairs && h5in_open(run, &r, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    h5in_print_warnings(r, stderr, "ringbench export"); /* damaged rows are exported with status "damaged" */
    FILE *out = stdout;
    char tmp[4200];
    if (output && export_output_open(output, tmp, sizeof tmp, &out, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        if (r)
            h5in_close(r);
        return CLI_EXIT_USAGE;
    }
    rc = export_write(run, pairs, headline, r, (export_format)f, output, out, tmp, err, sizeof err);
    if (r)
        h5in_close(r);
    if (rc != 0) {
        fprintf(stderr, "ringbench export: %s\n", err[0] ? err : "write error");
        return CLI_EXIT_USAGE;
    }
    if (err[0]) /* written, with something escaped or written as text: said, never silent */
        fprintf(stderr, "ringbench export: WARNING: %s\n", err);
    return CLI_EXIT_OK;
}
