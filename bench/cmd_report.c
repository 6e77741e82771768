/* cmd_report.c - `ringbench report RUN.h5`: the command line of report_write (plots/report.h), and
 * the options that report, compare and sensitivity report share (cmd_report_options). Exercised by
 * tests/test_report.c and tests/cli_test.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "outfs.h"
#include "report.h"

enum { OPT_NO_RENDER = CLI_OPT_LONG, OPT_SEED, OPT_REPS, OPT_MIN_EFFECT, OPT_CALL_OVERHEAD, OPT_ANSWER, OPT_FAIL };

static const struct option report_long_opts[] = {CLI_OPT_HELP,
                                                 {"output", required_argument, NULL, 'o'},
                                                 {"no-render", no_argument, NULL, OPT_NO_RENDER},
                                                 {"seed", required_argument, NULL, OPT_SEED},
                                                 {"reps", required_argument, NULL, OPT_REPS},
                                                 {"min-effect", required_argument, NULL, OPT_MIN_EFFECT},
                                                 {"call-overhead", required_argument, NULL, OPT_CALL_OVERHEAD},
                                                 {"answer", no_argument, NULL, OPT_ANSWER},
                                                 {"fail-on-change", no_argument, NULL, OPT_FAIL},
                                                 {NULL, 0, NULL, 0}};

/* --seed N (any unsigned number) and --reps N (100 to 1000000). Returns 0, or -1 after one line. */
static int count_value(const char *cmd, const char *name, const char *v, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0 || n < lo || n > hi) {
        fprintf(stderr, "ringbench %s: %s '%s': expected a number%s\n", cmd, name, v,
                hi < ~0ull ? " from 100 to 1000000" : "");
        return -1;
    }
    *out = n;
    return 0;
}

/* One option into *o. Returns 0, or -1 after one line on stderr. */
static int report_option(const char *cmd, int c, const char *v, report_opts *o)
{
    unsigned long long n;
    switch (c) {
    case 'o': o->out_dir = v; return 0;
    case OPT_NO_RENDER: o->render = 0; return 0;
    case OPT_CALL_OVERHEAD: o->call_overhead = v; return 0; /* checked where it is used (attr_parse_overhead) */
    case OPT_ANSWER:
    case OPT_FAIL:
        /* each belongs to one command: report prints the answer, compare fails on a change */
        if (strcmp(cmd, c == OPT_ANSWER ? "report" : "compare") != 0) {
            fprintf(stderr, "ringbench %s: %s is an option of ringbench %s only\n", cmd,
                    c == OPT_ANSWER ? "--answer" : "--fail-on-change", c == OPT_ANSWER ? "report" : "compare");
            return -1;
        }
        *(c == OPT_ANSWER ? &o->answer : &o->fail_on_change) = 1;
        return 0;
    case OPT_SEED:
        if (count_value(cmd, "--seed", v, 0, ~0ull, &n) != 0)
            return -1;
        o->seed = n;
        return 0;
    case OPT_REPS:
        if (count_value(cmd, "--reps", v, 100, 1000000, &n) != 0)
            return -1;
        o->reps = (int)n;
        return 0;
    case OPT_MIN_EFFECT: {
        double pct;
        if (cli_number(cmd, "--min-effect (percent)", v, 0, 1000, &pct) != 0)
            return -1;
        o->min_effect = pct / 100.0;
        return 0;
    }
    default: return -1; /* cli_getopt said why */
    }
}

int cmd_report_options(const char *cmd, int argc, char **argv, report_opts *o, const char **files, int nfiles)
{
    report_opts_default(o);
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt(cmd, argc, argv, ":ho:", report_long_opts)) != -1) {
        if (c == 'h')
            return 1;
        if (report_option(cmd, c, optarg, o) != 0)
            return -1;
    }
    int got = argc - optind;
    if (got > nfiles) {
        fprintf(stderr, "ringbench %s: too many files: '%s' (see --help)\n", cmd, argv[optind + nfiles]);
        return -1;
    }
    if (got != nfiles) {
        fprintf(stderr, "ringbench %s: expected %d results file%s (see --help)\n", cmd, nfiles, nfiles > 1 ? "s" : "");
        return -1;
    }
    for (int i = 0; i < nfiles; i++)
        files[i] = argv[optind + i];
    if (o->out_dir && o->out_dir[0] == '\0') {
        fprintf(stderr, "ringbench %s: -o needs a directory name\n", cmd);
        return -1;
    }
    char err[256];
    if (o->out_dir && outfs_path_check("-o", o->out_dir, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench %s: %s\n", cmd, err);
        return -1;
    }
    /* An interrupt ends gnuplot and leaves the report before in place (report.h). A run that was itself
     * interrupted still gets its report (run --report): its own signal is not this one. */
    cli_stop = 0;
    cli_install_signals();
    o->stop = &cli_stop;
    return 0;
}

static void usage_report(FILE *f)
{
    fputs("usage: ringbench report RUN.h5 [-o DIR] [--no-render] [--seed N] [--reps N] [--min-effect PCT]\n"
          "       ringbench report RUN.h5 --answer\n"
          "  Writes gnuplot data (*.dat), scripts (*.gp), plots (*.png, *.svg) and report.md into DIR\n"
          "  (-o, --output; default: RUN-report next to RUN.h5). --no-render writes data and scripts only;\n"
          "  --seed and --reps set the bootstrap of the verdict (default seed 20261122, 2000 resamples);\n"
          "  --min-effect PCT: an overhead is called slower/faster only when its 95% interval excludes 0\n"
          "  and it is at least PCT% (default 5).\n"
          "  --call-overhead 'memcpy=12us,query=3us,...' (or a file of KEY=VALUE lines) adds a MODEL section:\n"
          "  each mode's latency if every CUDA call it makes cost that much more (see README).\n"
          "  --answer prints the answer table (the headline figures, fallback / native with 95% intervals) on\n"
          "  standard output and writes nothing: README.md's table is this output on the reference run.\n",
          f);
}

int cmd_report(int argc, char **argv)
{
    report_opts o;
    const char *file = NULL;
    int rc = cmd_report_options("report", argc, argv, &o, &file, 1);
    if (rc > 0)
        usage_report(stdout);
    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    return o.answer ? report_answer_print(file, &o) : report_write(file, &o);
}
