/* cmd_track.c - `ringbench track`: add a run to a history, judge it against the same machine's
 * earlier runs (harness/track_night.h), print the night (plots/track.h), store and export its
 * judgements, and refresh the history page; list a history's runs (--list) and write the fleet page
 * of many machines (--page DIR, plots/fleet_page.h). The history is results/history.h: a folder with
 * an SQLite index, or a database on a PostgreSQL server (--history postgresql://...).
 * Exit status: 0 no regression, 1 a regression (of the run, or of a cross-platform ratio on the fleet
 * page), 2 a usage or file error, an interrupt, or a history that cannot be reached (the run file is
 * kept and the command to retry printed; a build without SQLite or libpq says what is missing). Jobs
 * that overlap on one folder history take turns (history.h). SIGINT and SIGTERM stop it between steps,
 * leaving no temporary file and every output whole (the one before, or the new one). Exercised by
 * tests/track_cli.sh, tests/fleet_cli.sh, tests/history_jobs.sh (overlapping and killed jobs) and
 * tests/io_cli.sh (write failures).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "export.h"
#include "h5in.h"
#include "run_label.h"
#ifdef RINGBENCH_HAVE_SQLITE
#include "fleet_page.h"
#include "history.h"
#include "track.h"
#include "track_night.h"
#endif

typedef struct track_args {
    const char *run, *dir, *export_path;
    const char *store;    /* --store DIR: a database history's run files (NULL: the machine's own store) */
    const char *page_dir; /* --page DIR: the fleet page */
    double window, min_history, z, min_effect;
    int same_env, page, raw, p50, verbose, list;
    int argc; /* the command line, for the command to retry */
    char **argv;
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
        "usage: ringbench track RUN.h5 [--history DIR|URI] [options]\n"
        "       ringbench track --history DIR [--page]      (re-scan, rebuild the index if needed, refresh the page)\n"
        "       ringbench track --history DIR|URI --list    (every run: machine, platform, GPU, driver, verdict)\n"
        "       ringbench track --history DIR|URI --page OUT (the fleet page: OUT/fleet.md and its plots)\n"
        "Add a run to a history (copied in, never rewritten; SQLite index DIR/index.sqlite), judge it\n"
        "against the earlier runs of the same machine, and refresh DIR/history.md and its trend plots.\n\n"
        "  --history DIR      the history (default $XDG_STATE_HOME/ringbench/history, where XDG_STATE_HOME\n"
        "                     defaults to ~/.local/state)\n"
        "  --history URI      a history shared by many machines on a PostgreSQL server:\n"
        "                     postgresql://USER@HOST[:PORT]/DATABASE (or postgres://); the password from\n"
        "                     ~/.pgpass or PGPASSWORD, never printed (docs/tracking.md)\n"
        "  --store DIR        with a URI: copy run files into DIR, a folder every machine sees (default:\n"
        "                     this machine's $XDG_STATE_HOME/ringbench/runs); its path and checksum recorded\n"
        "  --list             one line per run of the history, with the night's verdict (runs never judged\n"
        "                     are judged now, with the options given)\n"
        "  --page OUT         write the fleet page into folder OUT: every machine's headline figures and\n"
        "                     verdict, and the WSL2 / native ratio of each pair of one GPU, judged night by\n"
        "                     night (exit 1 when it regressed)\n"
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
        "  --no-page          do not refresh history.md and the plots (a folder history)\n"
        "  -v, --verbose      the shifts, the method and its budget, every headline cell's noise and every\n"
        "                     watched cell (the first line is the verdict either way)\n"
        "Method and false-alarm rate: docs/tracking.md.\n"
        "Jobs on one history take turns: a second one waits for the first.\n"
        "Exit status: 0 no regression; 1 a regression; 2 a usage or file error, an interrupt, or a history\n"
        "that cannot be reached (the run file is kept; the command to retry is printed).\n");
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
    OPT_PAGE,
    OPT_STORE,
    OPT_LIST
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
    {"page", optional_argument, NULL, OPT_PAGE},
    {"store", required_argument, NULL, OPT_STORE},
    {"list", no_argument, NULL, OPT_LIST},
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
    case OPT_PAGE:
        if (v)
            a->page_dir = v;
        else
            a->page = 1;
        return 0;
    case OPT_STORE: a->store = v; return 0;
    case OPT_LIST: a->list = 1; return 0;
    case 'v': a->verbose = 1; return 0;
    default: return -1; /* cli_getopt said why */
    }
}

/* "--page DIR" as "--page=DIR" in argv (its optional value is written apart, as --history's is): the
 * word after a bare --page is its folder unless it is an option or a run file (.h5). The words are
 * allocated for the life of the process. */
static void join_page_value(int *argc, char **argv)
{
    for (int i = 1; i + 1 < *argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return;
        const char *next = argv[i + 1];
        size_t n = strlen(next);
        if (strcmp(argv[i], "--page") != 0 || next[0] == '-' || (n >= 3 && strcmp(next + n - 3, ".h5") == 0))
            continue;
        char *joined = malloc(n + 8);
        if (!joined)
            return;
        snprintf(joined, n + 8, "--page=%s", next);
        argv[i] = joined;
        memmove(&argv[i + 1], &argv[i + 2], (size_t)(*argc - i - 2) * sizeof *argv);
        argv[--*argc] = NULL;
    }
}

/* The command line into *a. Returns -1 to go on, else the exit status (0 after --help). */
static int track_parse(int argc, char **argv, track_args *a)
{
    *a = (track_args){.window = 20, .min_history = 5, .z = 3.5, .min_effect = 3, .page = 1, .argc = argc, .argv = argv};
    join_page_value(&argc, argv);
    a->argc = argc;
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

/* The word of argv, single-quoted for a POSIX shell where it needs it, onto out. */
static void put_shell_word(FILE *out, const char *w)
{
    if (w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+") == strlen(w)) {
        fputs(w, out);
        return;
    }
    fputc('\'', out);
    for (; *w; w++)
        fputs(*w == '\'' ? "'\\''" : (char[2]){*w, 0}, out);
    fputc('\'', out);
}

/* After a failure to reach or write a database history: the one line that says so, that the run file
 * is kept, and the command to retry (the run's path made absolute, the history's password masked). */
static void say_retry(const track_args *a, const char *why)
{
    char shown[4096], abs[PATH_MAX + 1];
    fprintf(stderr, "ringbench track: %s; %s is kept: retry with: ringbench track", why, a->run);
    for (int i = 1; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (a->run && strcmp(w, a->run) == 0 && w[0] != '/' && getcwd(abs, sizeof abs) &&
            strlen(abs) + strlen(w) + 2 < sizeof abs) {
            strcat(strcat(abs, "/"), w);
            w = abs;
        } else if (hist_is_database(w) || strncmp(w, "--history=", 10) == 0) {
            w = hist_mask_location(w, shown, sizeof shown);
        }
        fputc(' ', stderr);
        put_shell_word(stderr, w);
    }
    fputc('\n', stderr);
}

/* A failure of the history: one line, with the command to retry where a run was given to a database
 * history (then the server is what failed, and the same command will do once it answers). */
static int history_failed(const track_args *a, const char *err)
{
    if (a->run && hist_is_database(a->dir))
        say_retry(a, err);
    else
        fprintf(stderr, "ringbench track: %s\n", err);
    return CLI_EXIT_USAGE;
}

/* The night's verdict and counts into the history (what --list and the fleet page show). */
static int store_verdict(hist *h, long long id, const track_night *night)
{
    hist_judgement j = {.regressions = (int)night->count[TRACK_REGRESSION],
                        .improvements = (int)night->count[TRACK_IMPROVEMENT],
                        .watch = (int)night->count[TRACK_WATCH]};
    time_t t = time(NULL);
    struct tm tm;
    snprintf(j.verdict, sizeof j.verdict, "%s", track_night_verdict(night));
    gmtime_r(&t, &tm);
    strftime(j.judged_utc, sizeof j.judged_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return hist_judgement_put(h, id, &j);
}

/* Judges run id of h, prints the night on stdout, stores its verdict and exports its judgements when
 * asked (export_json: as JSON). Returns the exit status. */
static int judge_night(hist *h, long long id, const track_args *a, const track_options *o, int export_json)
{
    char err[1024];
    track_night night;
    int rc = CLI_EXIT_USAGE;
    if (track_night_judge(h, id, o, &night, err, sizeof err) == 0) {
        track_print_night(stdout, &night, a->verbose);
        /* The export the user asked for first: a failed write is said as that file's, and the verdict
         * not stored then is judged again by the next --list. */
        if (a->export_path && track_night_export(&night, a->export_path, export_json, err, sizeof err) != 0)
            rc = CLI_EXIT_USAGE;
        else if (store_verdict(h, id, &night) != 0)
            snprintf(err, sizeof err, "storing the verdict: %s", hist_error(h));
        else
            rc = night.count[TRACK_REGRESSION] ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    track_night_free(&night);
    return rc == CLI_EXIT_USAGE ? history_failed(a, err) : rc;
}

/* The run into the open history and judged. Returns the exit status. */
static int track_add(hist *h, const track_args *a, const track_options *o, int export_json)
{
    char err[1024];
    long long id;
    int already;
    if (hist_add(h, a->run, &id, &already, err, sizeof err) != 0)
        return history_failed(a, err);
    if (already)
        fprintf(stderr, "ringbench track: %s is already in %s (same bytes): judged again, not copied\n", a->run,
                hist_location(h));
    if (track_interrupted("the run is in the history, not judged"))
        return CLI_EXIT_USAGE;
    return judge_night(h, id, a, o, export_json);
}

/* --list: every run of the history on one line; a run without a stored verdict is judged now (with
 * the command's options) and its verdict stored. Returns the exit status. */
static int track_list(hist *h, const track_args *a, const track_options *o)
{
    hist_listed *runs = NULL;
    size_t n = 0;
    char err[1024];
    if (hist_list(h, &runs, &n) != 0)
        return history_failed(a, hist_error(h));
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < n && rc == CLI_EXIT_OK; i++) {
        if (runs[i].j.verdict[0])
            continue;
        track_night night;
        if (track_night_judge(h, runs[i].run.id, o, &night, err, sizeof err) != 0)
            rc = history_failed(a, err);
        else if (store_verdict(h, runs[i].run.id, &night) != 0)
            rc = history_failed(a, hist_error(h));
        else {
            snprintf(runs[i].j.verdict, sizeof runs[i].j.verdict, "%s", track_night_verdict(&night));
            runs[i].j.regressions = (int)night.count[TRACK_REGRESSION];
            runs[i].j.improvements = (int)night.count[TRACK_IMPROVEMENT];
        }
        track_night_free(&night);
    }
    if (rc == CLI_EXIT_OK)
        fleet_print_list(stdout, runs, n);
    free(runs);
    return rc;
}

/* The pages: a folder history's history.md (unless --no-page), and the fleet page with --page DIR.
 * Returns the exit status: rc, or 1 for a regressed cross-platform ratio, or 2 on a failure. */
static int track_pages(hist *h, const track_args *a, const track_options *o, int rc)
{
    char err[1024];
    /* history.md: a folder history's page, refreshed by a run added or a bare --page, not by --list
     * or the fleet page alone. */
    if (a->page && !hist_is_database(a->dir) && !a->list && (a->run || !a->page_dir)) {
        if (track_history_page(h, o, err, sizeof err) != 0)
            return cli_stop ? CLI_EXIT_USAGE : history_failed(a, err); /* an interrupt: said once, by the caller */
        fprintf(stderr, "ringbench track: wrote %s/history.md\n", a->dir);
    }
    if (!a->page_dir)
        return rc;
    fleet_page_summary sum;
    if (fleet_page_write(h, a->page_dir, &sum, err, sizeof err) != 0)
        return cli_stop ? CLI_EXIT_USAGE : history_failed(a, err);
    printf("fleet page %s/fleet.md: %zu machines, %zu runs, %zu WSL2 / native pair%s: %s\n", a->page_dir, sum.machines,
           sum.runs, sum.pairs, sum.pairs == 1 ? "" : "s",
           sum.regressions ? "REGRESSION of a cross-platform ratio (see the page)"
           : sum.pairs     ? "no cross-platform ratio moved beyond noise"
                           : "no cross-platform ratio to judge");
    return sum.regressions && rc == CLI_EXIT_OK ? CLI_EXIT_FAIL : rc;
}

/* Judges a->run (when given) in the history, lists it, and writes its pages. Returns the exit status. */
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
    const hist_open_options ho = {.notes = stderr, .store = a->store, .summarise = fleet_summarise};
    if (hist_open_with(a->dir, &ho, &h, err, sizeof err) != 0)
        return history_failed(a, err);
    int rc = CLI_EXIT_OK;
    if (a->run)
        rc = track_add(h, a, &o, export_json);
    if (rc != CLI_EXIT_USAGE && a->list && !cli_stop)
        rc = track_list(h, a, &o) == CLI_EXIT_USAGE ? CLI_EXIT_USAGE : rc;
    else if (!a->run && !a->page_dir)
        printf("history %s: %lld runs indexed\n", hist_location(h), hist_nruns(h));
    if (rc != CLI_EXIT_USAGE && !cli_stop)
        rc = track_pages(h, a, &o, rc);
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
