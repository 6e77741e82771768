/* cmd_track.c - `ringbench track`: add a run to a history, judge it against the same machine's
 * earlier runs (harness/track_night.h), print the night (plots/track.h), export its judgements, and
 * refresh the history page; the index is results/history.h.
 * Exit status: 0 no regression, 1 a regression, 2 a usage or file error (including a build without
 * SQLite, which says what is missing) or an interrupt. Jobs that overlap on one history take turns
 * (history.h). SIGINT and SIGTERM stop it between steps, leaving no temporary file and every output
 * whole (the one before, or the new one). Exercised by tests/track_cli.sh, tests/history_jobs.sh
 * (overlapping and killed jobs) and tests/io_cli.sh (write failures).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "export.h"
#include "h5in.h"
#include "run_label.h"
#ifdef RINGBENCH_HAVE_SQLITE
#include "history.h"
#include "track.h"
#include "track_night.h"
#endif

typedef struct track_args {
    const char *run, *dir, *export_path;
    double window, min_history, z, min_effect;
    int same_env, page, raw, p50, verbose;
    char default_dir[4096]; /* the history when --history is not given (default_history_dir) */
} track_args;

/* The history when --history is not given: $XDG_STATE_HOME/ringbench/history, else
 * $HOME/.local/state/ringbench/history (the XDG base directory rule: an unset, empty or relative
 * XDG_STATE_HOME is ignored). Never a folder of the source tree, so a nightly job leaves the checkout
 * as it was (docs/tracking.md). Returns 0, or -1 after one line on stderr. */
static int default_history_dir(char *buf, size_t n)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int len;
    if (state != NULL && state[0] == '/')
        len = snprintf(buf, n, "%s/ringbench/history", state);
    else if (home != NULL && home[0] == '/')
        len = snprintf(buf, n, "%s/.local/state/ringbench/history", home);
    else {
        fprintf(stderr, "ringbench track: no --history DIR given, and neither XDG_STATE_HOME nor HOME is an "
                        "absolute path to put the default history under\n");
        return -1;
    }
    if (len < 0 || (size_t)len >= n) {
        fprintf(stderr, "ringbench track: the default history path under %s is too long; give --history DIR\n",
                state != NULL && state[0] == '/' ? "XDG_STATE_HOME" : "HOME");
        return -1;
    }
    return 0;
}

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
    fprintf(stderr,
            "ringbench track: %s is %s: not a measurement of the machine as it is, so it is kept out "
            "of the history\n",
            run, label);
    return -1;
}

static void usage_track(FILE *f)
{
    fprintf(
        f,
        "usage: ringbench track RUN.h5 [--history DIR] [options]\n"
        "       ringbench track --history DIR [--page]      (re-scan, rebuild the index if needed, refresh the page)\n"
        "Add a run to a history (copied in, never rewritten; SQLite index DIR/index.sqlite), judge it\n"
        "against the earlier runs of the same machine, and refresh DIR/history.md and its trend plots.\n\n"
        "  --history DIR      the history (default $XDG_STATE_HOME/ringbench/history, where XDG_STATE_HOME\n"
        "                     defaults to ~/.local/state)\n"
        "  --window N         baseline: at most the last N comparable runs (default 20)\n"
        "  --min-history N    judge a cell only with at least N earlier runs (default 5)\n"
        "  --z Z              |z| from which a cell is listed as 'watch' (default 3.5); a regression needs\n"
        "                     the |z| that keeps the night's false-alarm budget at 5%% (shown per cell)\n"
        "  --raw              judge raw figures: do not remove the machine's shift (the same-run memcpy\n"
        "                     references of each size) from the ring cells, nor the host's (host_ref, each\n"
        "                     mode's own) from native control-block reads and writes\n"
        "  --p50              judge throughput, cb_read and cb_write on their p50 like every other cell,\n"
        "                     not on each run's best trial (the highest trial median of a rate, the lowest of a time)\n"
        "  --min-effect PCT   smallest change called, in percent (default 3)\n"
        "  --same-env         compare only with runs of the same environment too (driver, kernel, ...)\n"
        "  --export FILE      write every cell's judgement to FILE (.json: JSON, needs jansson; else CSV);\n"
        "  -o, --output FILE  the same\n"
        "  --no-page          do not refresh history.md and the plots\n"
        "  -v, --verbose      the shifts, the method and its budget, every headline cell's noise and every\n"
        "                     watched cell (the first line is the verdict either way)\n"
        "Method and false-alarm rate: docs/tracking.md.\n"
        "Jobs on one history take turns: a second one waits for the first.\n"
        "Exit status: 0 no regression; 1 a regression; 2 a usage or file error, or an interrupt.\n");
}

enum {
    OPT_HISTORY = CLI_OPT_LONG,
    OPT_EXPORT,
    OPT_WINDOW,
    OPT_MIN_HISTORY,
    OPT_Z,
    OPT_MIN_EFFECT,
    OPT_SAME_ENV,
    OPT_RAW,
    OPT_P50,
    OPT_NO_PAGE,
    OPT_PAGE
};

static const struct option track_opts[] = {
    CLI_OPT_HELP,
    {"history", required_argument, NULL, OPT_HISTORY},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"output", required_argument, NULL, 'o'}, /* the one file track writes: -o as everywhere */
    {"window", required_argument, NULL, OPT_WINDOW},
    {"min-history", required_argument, NULL, OPT_MIN_HISTORY},
    {"z", required_argument, NULL, OPT_Z},
    {"min-effect", required_argument, NULL, OPT_MIN_EFFECT},
    {"same-env", no_argument, NULL, OPT_SAME_ENV},
    {"raw", no_argument, NULL, OPT_RAW},
    {"p50", no_argument, NULL, OPT_P50},
    {"no-page", no_argument, NULL, OPT_NO_PAGE},
    {"page", no_argument, NULL, OPT_PAGE},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0}};

/* One option into *a. Returns 0, or -1 after one line on stderr. */
static int track_option(int c, const char *v, track_args *a)
{
    switch (c) {
    case OPT_HISTORY: a->dir = v; return 0;
    case 'o':
    case OPT_EXPORT: a->export_path = v; return 0;
    case OPT_WINDOW: return cli_number("track", "--window", v, 1, 10000, &a->window);
    case OPT_MIN_HISTORY: return cli_number("track", "--min-history", v, 1, 10000, &a->min_history);
    case OPT_Z: return cli_number("track", "--z", v, 0.5, 100, &a->z);
    case OPT_MIN_EFFECT: return cli_number("track", "--min-effect", v, 0, 1000, &a->min_effect);
    case OPT_SAME_ENV: a->same_env = 1; return 0;
    case OPT_RAW: a->raw = 1; return 0;
    case OPT_P50: a->p50 = 1; return 0;
    case OPT_NO_PAGE: a->page = 0; return 0;
    case OPT_PAGE: a->page = 1; return 0;
    case 'v': a->verbose = 1; return 0;
    default: return -1; /* cli_getopt said why */
    }
}

/* The command line into *a. Returns -1 to go on, else the exit status (0 after --help). */
static int track_parse(int argc, char **argv, track_args *a)
{
    *a = (track_args){.window = 20, .min_history = 5, .z = 3.5, .min_effect = 3, .page = 1};
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("track", argc, argv, ":ho:v", track_opts)) != -1) {
        if (c == 'h') {
            usage_track(stdout);
            return CLI_EXIT_OK;
        }
        if (track_option(c, optarg, a) != 0)
            return CLI_EXIT_USAGE;
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "ringbench track: one results file at a time ('%s' is extra)\n", argv[optind + 1]);
        return CLI_EXIT_USAGE;
    }
    a->run = optind < argc ? argv[optind] : NULL;
    if (a->export_path && !a->run) {
        fprintf(stderr, "ringbench track: --export %s needs a run to judge: ringbench track RUN.h5 --export FILE\n",
                a->export_path);
        return CLI_EXIT_USAGE;
    }
    if (a->dir == NULL) {
        if (default_history_dir(a->default_dir, sizeof a->default_dir) != 0)
            return CLI_EXIT_USAGE;
        a->dir = a->default_dir;
    }
    return -1;
}

#ifdef RINGBENCH_HAVE_SQLITE
/* Whether SIGINT or SIGTERM stopped the command: says so on stderr, with what was left as it was. */
static int track_interrupted(const char *left)
{
    if (!cli_stop)
        return 0;
    fprintf(stderr, "ringbench track: interrupted by %s: %s\n", cli_signal == SIGTERM ? "SIGTERM" : "SIGINT", left);
    return 1;
}

/* Judges run id of h, prints the night on stdout and exports its judgements when asked (export_json:
 * as JSON). Returns the exit status. */
static int judge_night(hist *h, long long id, const track_args *a, const track_options *o, int export_json)
{
    char err[1024];
    track_night night;
    int rc = CLI_EXIT_USAGE;
    if (track_night_judge(h, id, o, &night, err, sizeof err) == 0) {
        track_print_night(stdout, &night, a->verbose);
        if (!a->export_path || track_night_export(&night, a->export_path, export_json, err, sizeof err) == 0)
            rc = night.count[TRACK_REGRESSION] ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    if (rc == CLI_EXIT_USAGE)
        fprintf(stderr, "ringbench track: %s\n", err);
    track_night_free(&night);
    return rc;
}

/* The run into the open history and judged. Returns the exit status. */
static int track_add(hist *h, const track_args *a, const track_options *o, int export_json)
{
    char err[1024];
    long long id;
    int already;
    if (hist_add(h, a->run, &id, &already, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench track: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    if (already)
        fprintf(stderr, "ringbench track: %s is already in %s (same bytes): judged again, not copied\n", a->run,
                a->dir);
    if (track_interrupted("the run is in the history, not judged"))
        return CLI_EXIT_USAGE;
    return judge_night(h, id, a, o, export_json);
}

/* Judges a->run (when given) in the history and refreshes the page. Returns the exit status. */
static int track_history(const track_args *a)
{
    track_options o = {
        {(size_t)a->window, (size_t)a->min_history, a->z, a->min_effect / 100}, a->same_env, a->raw, a->p50};
    int export_json = 0;
    if (a->export_path) {
        size_t n = strlen(a->export_path);
        export_json = n >= 5 && strcmp(a->export_path + n - 5, ".json") == 0;
        char why[256];
        if (export_json && !export_format_available(EXPORT_JSON, why, sizeof why)) {
            fprintf(stderr, "ringbench track: --export %s: %s\n", a->export_path, why);
            return CLI_EXIT_USAGE;
        }
    }
    char err[1024];
    hist *h = NULL;
    /* An interrupt stops a wait for another job, a scan, a copy-in and the page (gnuplot ended). */
    hist_watch(&cli_stop);
    track_page_watch(&cli_stop);
    if (hist_open(a->dir, stderr, &h, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench track: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    int rc = CLI_EXIT_OK;
    if (a->run) {
        rc = track_add(h, a, &o, export_json);
        if (rc == CLI_EXIT_USAGE) {
            hist_close(h);
            return rc;
        }
    } else {
        printf("history %s: %lld runs indexed\n", a->dir, hist_nruns(h));
    }
    if (a->page && !cli_stop && track_history_page(h, &o, err, sizeof err) != 0) {
        if (!cli_stop)
            fprintf(stderr, "ringbench track: %s\n", err);
        rc = CLI_EXIT_USAGE;
    } else if (a->page && !cli_stop) {
        fprintf(stderr, "ringbench track: wrote %s/history.md\n", a->dir);
    }
    if (track_interrupted("the page before is left as it was"))
        rc = CLI_EXIT_USAGE;
    hist_close(h);
    return rc;
}
#endif

int cmd_track(int argc, char **argv)
{
    track_args a;
    int rc = track_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.run && refuse_labelled(a.run) != 0)
        return CLI_EXIT_USAGE;
    cli_install_signals();
#ifndef RINGBENCH_HAVE_SQLITE
    fprintf(stderr, "ringbench track: this ringbench was built without SQLite, which the history index needs "
                    "(install libsqlite3-dev, then re-run cmake and rebuild)\n");
    return CLI_EXIT_USAGE;
#else
    return track_history(&a);
#endif
}
