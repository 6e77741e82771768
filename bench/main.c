/* main.c - the ringbench command line: one table of commands, each in its own file (commands.h).
 *
 * Only the commands print usage and choose exit codes: 0 ok, 1 a failure (a failed cell, a runtime
 * error, an interrupted run, a regression), 2 a usage error (bad option, bad value, output file
 * exists). `ringbench --help` and `ringbench help` print the table below; there is no other list.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The command named by argv[1], run; its exit status. */
static int dispatch(int argc, char **argv)
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

/* A standard stream the caller closed (`ringbench list >&-`) would hand its number to the next file
 * opened: a results file opened as fd 1 would then receive what printf prints. Each closed one is
 * filled first: stdin and stderr with /dev/null, stdout with /dev/full, so that anything printed fails
 * and finish_stdout says so. Returns 1 when stdout was closed. */
static int fill_closed_streams(void)
{
    int closed = 0;
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open(fd == STDOUT_FILENO ? "/dev/full" : "/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (got < 0 && fd == STDOUT_FILENO)
            got = open("/dev/null", O_WRONLY);
        if (got >= 0 && got != fd) { /* a lower one was closed too and took its place: filled in turn */
            dup2(got, fd);
            close(got);
        }
        closed |= fd == STDOUT_FILENO;
    }
    return closed;
}

/* What a command printed must have reached stdout: a full disk, a closed stdout or a write error is a
 * failure (exit 1) with one line, unless the command failed already and said why. The errno of a write
 * that failed before (a fflush before fork, say) is gone by now: one more byte is written to learn it,
 * on an output that is incomplete already. */
static int finish_stdout(const char *cmd, int rc)
{
    int failed = fflush(stdout) != 0, e = errno;
    if (!failed && ferror(stdout)) {
        clearerr(stdout);
        failed = 1;
        e = fputc('\n', stdout) == EOF || fflush(stdout) != 0 ? errno : 0;
    }
    if (!failed)
        return rc;
    e = cli_stdout_errno(e);
    if (rc == CLI_EXIT_OK)
        fprintf(stderr, "ringbench%s%s: cannot write to standard output: %s\n", cmd ? " " : "", cmd ? cmd : "",
                e ? strerror(e) : "an earlier write failed");
    return rc == CLI_EXIT_OK ? CLI_EXIT_FAIL : rc;
}

int main(int argc, char **argv)
{
    cli_stdout_closed = fill_closed_streams();
    /* Past a file-size limit (ulimit -f) a write then fails with EFBIG, which is reported like any
     * other write error, instead of SIGXFSZ killing the process in the middle of a file. */
    signal(SIGXFSZ, SIG_IGN);
    const char *cmd = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    return finish_stdout(cmd, dispatch(argc, argv));
}
