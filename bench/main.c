/* main.c - the ringbench command line: one table of commands, each in its own file (commands.h).
 *
 * Only the commands print usage and choose exit codes: 0 ok, 1 a failure (a failed cell, a runtime
 * error, an interrupted run, a regression), 2 a usage error (bad option, bad value, output file
 * exists). `ringbench --help` and `ringbench help` print the table below; there is no other list.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "rb_provenance.h" /* generated at every build: RINGBENCH_GIT_COMMIT, _DIRTY, _COMMIT_SOURCE */
#include "ring.h"
#include "schema.h"

#ifndef RINGBENCH_VERSION
#define RINGBENCH_VERSION "0.0.0"
#endif

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "measure every selected mode x message size, write an HDF5 results file"},
    {"probe", cmd_probe, "print the environment (native/WSL2, virtualisation) and CUDA capabilities"},
    {"list", cmd_list, "list modes, presets, sizes and metric families"},
    {"report", cmd_report, "turn a results file into plots and report.md"},
    {"compare", cmd_compare, "compare two results files (e.g. native Linux vs WSL2), with confidence intervals"},
    {"track", cmd_track, "add a run to a history, flag regressions against the same machine's earlier runs"},
    {"export", cmd_export, "write a results file as Bencher Metric Format JSON, CSV or JSON"},
    {"anatomy", cmd_anatomy, "where one round trip's time goes: host and kernel stamps of one mode at one size"},
    {"sensitivity", cmd_sensitivity,
     "the fallback and the native paths against an injected per-call cost (run, report)"},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ringbench COMMAND [options]    (ringbench COMMAND --help for each)\n"
            "What a GPU ring-kernel system costs, mode by mode: native Linux fast paths versus the WSL2 fallbacks.\n\n"
            "commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "options: --help, --version\n");
}

static void version(void)
{
    printf("ringbench %s (git %s, dirty %s, commit from %s, protocol %d, results schema %d, %s)\n", RINGBENCH_VERSION,
           RINGBENCH_GIT_COMMIT, RINGBENCH_GIT_DIRTY, RINGBENCH_GIT_COMMIT_SOURCE, RING_PROTOCOL_VERSION,
           RB_SCHEMA_VERSION,
#ifdef RINGBENCH_HAVE_CUDA
           "CUDA backend built in"
#else
           "CPU reference backend only"
#endif
    );
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "ringbench: a command is needed:");
        for (int i = 0; i < NCOMMANDS; i++)
            fprintf(stderr, " %s%s", commands[i].name, i + 1 < NCOMMANDS ? "," : "");
        fprintf(stderr, " (see ringbench --help)\n");
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        version();
        return CLI_EXIT_OK;
    }
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ringbench: unknown command '%s' (see ringbench --help)\n", cmd);
    return CLI_EXIT_USAGE;
}
