/* cmd_compare.c - `ringbench compare BASE.h5 OTHER.h5`: the command line of compare_write
 * (plots/report.h), with report's options (cmd_report_options). Exercised by tests/test_report.c. */
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "report.h"

static void usage_compare(FILE *f)
{
    fputs("usage: ringbench compare BASE.h5 OTHER.h5 [-o DIR] [--no-render] [--seed N] [--reps N] [--min-effect PCT]\n"
          "                         [--fail-on-change]\n"
          "  Overhead of OTHER over BASE for every (family, mode, size) both measured, with a trial-level\n"
          "  95% CI (slower/faster: the CI excludes 0 and the overhead is >= PCT%, default 5); writes\n"
          "  compare.md, data, scripts and plots into DIR (-o, --output; default: OTHER-compare next to\n"
          "  OTHER.h5) and prints how many cells are the same, slower and faster. --call-overhead SPEC adds\n"
          "  the MODEL section, as for report. Typically BASE = native Linux run, OTHER = WSL2 run.\n"
          "  --fail-on-change: exit 1 when a cell is slower or faster (for CI; with 1600 cells an A/A pair of\n"
          "  one build has a few such cells at 5 %, so CI runs usually raise --min-effect).\n"
          "Exit status: 0 written; 1 a runtime failure, or a changed cell with --fail-on-change; 2 a usage\n"
          "or file error.\n",
          f);
}

int cmd_compare(int argc, char **argv)
{
    report_opts o;
    const char *files[2] = {NULL, NULL};
    int rc = cmd_report_options("compare", argc, argv, &o, files, 2);
    if (rc > 0)
        usage_compare(stdout);
    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    return compare_write(files[0], files[1], &o);
}
