/* cmd_export.c - `ringbench export`: a results file, or the pairs table of `ringbench compare`, as
 * Bencher Metric Format JSON, CSV, JSON or its provenance (results/export.h), to a file or standard
 * output. Exit status: 0 written, 1 interrupted, 2 a usage or file error. Exercised by tests/track_cli.sh
 * and tests/export_stream.sh.
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
    fprintf(f, "usage: ringbench export RUN.h5|compare_pairs.dat --format bmf|csv|json|provenance [-o FILE]\n"
               "       ringbench export RUN.h5 --headline --format bmf|csv [-o|--output FILE]\n"
               "Write a results file, or the pairs table of `ringbench compare`, for other tools (default:\n"
               "standard output). `ringbench track --export FILE` exports a judgement.\n"
               "  --headline  only the headline figures of report.md (a dozen cells and their fallback / native\n"
               "              ratios with 95%% intervals), so that a Bencher threshold watches what the report quotes\n"
               "  bmf         Bencher Metric Format JSON, for `bencher run --adapter json --file FILE` (see README)\n"
               "  csv         one line per row, every column, with the run's id and commit, for spreadsheets\n"
               "              and pandas\n"
               "  provenance  the run's provenance once, as CSV (run_id,group,name,value): join it with the\n"
               "              rows' CSV on run_id\n"
               "  json        the provenance and every row\n"
               "Rows are written as they are read: a file of any length in bounded memory. bmf and json\n"
               "need jansson at build time; csv and provenance do not.\n"
               "Exit status: 0 written; 1 interrupted; 2 a usage or file error.\n");
}

/* The export's output when -o names one: it must be a regular file or absent (the rename would replace
 * a FIFO or a device node, and opening a FIFO would wait for a reader); the export goes to OUTPUT.tmp-PID,
 * renamed to OUTPUT when complete (results/outfs.h). Returns 0, or -1 with a one-line message in err. */
static int export_output_open(const char *output, outfs_file *o, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "-o %.900s: not a regular file; write to a file, or leave out -o for standard output",
                 output);
        return -1;
    }
    return outfs_file_open(o, output, err, errlen);
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

/* The errno of the export's failed write, said with where it went, when the writer said only "write
 * error" (it has no errno to give). */
static void export_write_error(FILE *out, const char *output, char *err, size_t errlen)
{
    int e = outfs_stream_errno(out);
    if (!err[0] || strcmp(err, "write error") == 0)
        snprintf(err, errlen, "cannot write %.900s: %s", output ? output : "standard output",
                 strerror(output ? (e ? e : EIO) : cli_stdout_errno(e ? e : EIO)));
}

/* Writes the export (a results file as it streams, its headline figures, or a compare_pairs.dat) to the
 * temporary file of -o, renamed into place when complete, or to stdout. Returns 0 or -1 with err set;
 * err may also hold a warning on success. */
static int export_write(const char *run, h5in_rows *s, int headline, export_format f, const char *output, outfs_file *o,
                        char *err, size_t errlen)
{
    FILE *out = output ? o->f : stdout;
    err[0] = '\0';
    int rc = headline ? report_headline_export(run, f == EXPORT_BMF, out, err, errlen)
             : s      ? export_run(s, f, out, &cli_stop, err, errlen)
                      : export_compare_pairs(run, f, out, err, errlen);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = -1;
    if (rc != 0 && strcmp(err, "interrupted") != 0)
        export_write_error(out, output, err, errlen);
    if (output && rc == 0)
        return outfs_file_commit(o, err, errlen);
    if (output)
        outfs_file_discard(o);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    const char *run = NULL, *format = NULL, *output = NULL;
    int headline = 0;
    int rc = export_parse(argc, argv, &run, &format, &output, &headline);
    if (rc >= 0)
        return rc;
    /* An interrupt, even while the file is being read, ends the export and removes its temporary file. */
    cli_install_signals();
    int f = export_format_parse(format);
    char err[1024];
    if (f < 0) {
        fprintf(stderr, "ringbench export: --format: '%s' is not bmf, csv, json or provenance\n", format);
        return CLI_EXIT_USAGE;
    }
    /* A compare_pairs.dat (the table `ringbench compare` writes) is exported the same way. What
     * --headline cannot write is said first, whatever this build has: the answer does not depend on it. */
    int pairs = export_is_compare_pairs(run);
    if (headline && (f == EXPORT_JSON || f == EXPORT_PROVENANCE || pairs)) {
        fprintf(stderr, "ringbench export: --headline %s\n",
                pairs ? "needs a results file (RUN.h5), not a compare_pairs.dat" : "writes bmf or csv only");
        return CLI_EXIT_USAGE;
    }
    if (!export_format_available((export_format)f, err, sizeof err)) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    h5in_rows *s = NULL;
    if (!pairs && h5in_rows_open(run, &s, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    if (s == NULL && f == EXPORT_PROVENANCE) {
        fprintf(stderr, "ringbench export: %s is a comparison's pairs table: it has no provenance\n", run);
        return CLI_EXIT_USAGE;
    }
    h5in_print_warnings(h5in_rows_meta(s), stderr, "ringbench export"); /* damaged rows: status "damaged" */
    outfs_file o = {NULL, NULL, NULL};
    if (output && export_output_open(output, &o, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench export: %s\n", err);
        h5in_rows_close(s);
        return CLI_EXIT_USAGE;
    }
    rc = export_write(run, s, headline, (export_format)f, output, &o, err, sizeof err);
    h5in_rows_close(s);
    if (rc != 0) {
        fprintf(stderr, "ringbench export: %s\n", err[0] ? err : "write error");
        return strcmp(err, "interrupted") == 0 ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
    }
    if (err[0]) /* written, with something escaped or written as text: said, never silent */
        fprintf(stderr, "ringbench export: WARNING: %s\n", err);
    return CLI_EXIT_OK;
}
