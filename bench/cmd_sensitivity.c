/* sensitivity.c - `ringbench sensitivity run`: what a dearer CUDA call does to the WSL2 fallback
 * against the native paths (issue 21), measured by injecting the cost (run --inject-call-us).
 *
 * It is a subcommand, not a preset: a preset chooses one run's modes, sizes and budgets, but this
 * sweep is a family of runs that differ in the injected cost (the cost is process-wide and recorded
 * per file: one file, one cost, so every file stays an ordinary results file with its own label),
 * and its report reads the whole family (`ringbench sensitivity report DIR`, plots/sensitivity.c).
 *
 * The plan: the three paths (the fallback malloc/sync/noncoop/device, the native
 * pinned/async/coop/mapped and pinned/zerocopy/coop/mapped) at 8 B, 4 KiB and 1 MiB, windows 1 and
 * full, with the quick preset's per-trial budgets; one run without injection, then one per target
 * (all calls, copies only, queries only) and cost (1, 2, 5, 10, 20 us). Each run is a child process
 * (`ringbench run` of this same binary), so every cost starts from a fresh process and CUDA context,
 * and an interrupted sweep resumes: a run whose file exists is kept unless --force.
 * Exercised by tests/inject_cli.sh (sensitivity) on the CPU backend.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "cuda_calls.h"
#include "outfs.h"
#include "plan.h"
#include "report.h"
#include "sweep.h"
#include "timing.h"

/* The sweep's definition: one place (the report reads the same names back from the files). Its modes
 * are sensitivity_modes' (plots/report.h), from the mode table. */
#define SENS_SIZES "8,4K,1M"
#define SENS_WINDOWS "1,cap"
#define SENS_COSTS "0,1,2,5,10,20"
#define SENS_TARGETS "all,copies,queries"
#define SENS_TRIALS 5
#define SENS_MAX_COSTS 16

static void usage(FILE *f)
{
    char modes[256];
    fprintf(f,
            "usage: ringbench sensitivity run [-o DIR] [options] [-- RUN-OPTIONS...]\n"
            "       ringbench sensitivity report DIR [-o OUTDIR] [--no-render]\n"
            "What a dearer CUDA call (as under WSL2) does to the fallback against the native paths: one\n"
            "`ringbench run` per injected per-call cost (--inject-call-us), then a report of latency and\n"
            "throughput against the cost, the arithmetic MODEL beside the measurement, and a break-even table.\n\n"
            "run options:\n"
            "  -o, --output DIR  where the runs go (default results/runs/sensitivity-<host>-<UTC time>)\n"
            "  --costs LIST    injected microseconds per call (default " SENS_COSTS "; 0 = the plain run)\n"
            "  --targets LIST  which calls get the cost: all, copies, queries, or a call kind (default " SENS_TARGETS
            ")\n"
            "  --sizes SPEC    message sizes (default " SENS_SIZES ")\n"
            "  --trials K      trials per cell (default %d)\n"
            "  --backend B     auto | cuda | cpu (default auto)\n"
            "  --dry-run       print the plan (runs and trials) and stop\n"
            "  --force         run again a cost whose file exists (default: keep it, so a sweep resumes)\n"
            "  --report        write the report into DIR/report afterwards\n"
            "  --quiet         no progress from the runs\n"
            "  -- ARGS         passed to every run (e.g. -- --cpu 2-7 --timeout 10)\n"
            "Modes %s, windows " SENS_WINDOWS ", the quick preset's budgets.\n"
            "Exit status: 0 every run ok; 1 a run failed or was interrupted; 2 a usage error.\n",
            SENS_TRIALS, sensitivity_modes(modes, sizeof modes));
}

static int sens_report_cmd(int argc, char **argv);

typedef struct sens_run {
    char spec[64]; /* --inject-call-us value, "" for the plain run */
    char file[64]; /* inside DIR */
} sens_run;

/* The costs and targets into the list of runs: the plain run once, then target x nonzero cost. */
static int plan_runs(const char *costs, const char *targets, sens_run *out, size_t max, size_t *n)
{
    double c[SENS_MAX_COSTS];
    size_t nc = 0, k = 0;
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", costs);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (end == t || *end || !(v >= 0) || v > CC_INJECT_MAX_US || nc == SENS_MAX_COSTS) {
            fprintf(stderr, "ringbench sensitivity: --costs: '%s' is not a list of at most %d costs from 0 to %g us\n",
                    costs, SENS_MAX_COSTS, CC_INJECT_MAX_US);
            return -1;
        }
        c[nc++] = v;
    }
    out[0].spec[0] = '\0';
    snprintf(out[0].file, sizeof out[0].file, "inject-none.h5");
    k = 1;
    snprintf(buf, sizeof buf, "%s", targets);
    save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        for (size_t i = 0; i < nc; i++) {
            if (c[i] == 0)
                continue;
            char err[256];
            double us[CC_KIND_COUNT];
            if (k == max) {
                fprintf(stderr, "ringbench sensitivity: more than %zu runs\n", max);
                return -1;
            }
            snprintf(out[k].spec, sizeof out[k].spec, "%s=%g", t, c[i]);
            if (cc_inject_parse(out[k].spec, us, err, sizeof err) != 0) {
                fprintf(stderr, "ringbench sensitivity: --targets: %s\n", err);
                return -1;
            }
            snprintf(out[k].file, sizeof out[k].file, "inject-%s-%gus.h5", t, c[i]);
            k++;
        }
    if (nc == 0 || k == 1) {
        fprintf(stderr, "ringbench sensitivity: --costs and --targets give no injected run\n");
        return -1;
    }
    *n = k;
    return 0;
}

/* Trials of one run: the plan `ringbench run` builds for these modes and sizes (bench/plan.h). */
static size_t trials_per_run(const preset_sizes *sizes, int trials)
{
    mode_set set;
    char err[256], modes[256];
    plan_schedule p;
    if (mode_set_parse(sensitivity_modes(modes, sizeof modes), &set, err, sizeof err) != 0 ||
        plan_build(set.selected, sizes->v, sizes->n, trials, 1, &p) != 0)
        return 0;
    size_t n = p.nsteps;
    plan_free(&p);
    return n;
}

/* Runs `ringbench run ... --inject-call-us SPEC -o PATH` as a child; its exit status, or -1. */
static int run_child(const sens_run *r, const char *path, const char *sizes, int trials, const char *backend, int quiet,
                     int nextra, char **extra)
{
    char tr[16], modes[256];
    snprintf(tr, sizeof tr, "%d", trials);
    sensitivity_modes(modes, sizeof modes);
    char *argv[64];
    int a = 0;
    argv[a++] = "ringbench";
    argv[a++] = "run";
    const char *fixed[] = {"--preset", "quick", "--modes",   modes,   "--sizes",  sizes, "--window", SENS_WINDOWS,
                           "--trials", tr,      "--backend", backend, "--warmup", "1",   "-o",       path};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        argv[a++] = (char *)fixed[i];
    if (r->spec[0]) {
        argv[a++] = "--inject-call-us";
        argv[a++] = (char *)r->spec;
    }
    if (quiet)
        argv[a++] = "--quiet";
    for (int i = 0; i < nextra && a < 63; i++)
        argv[a++] = extra[i];
    argv[a] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (quiet && !freopen("/dev/null", "w", stdout)) /* the run's summary table; its file stays */
            _exit(127);
        execv("/proc/self/exe", argv);
        perror("ringbench sensitivity: exec /proc/self/exe");
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void default_dir(char *buf, size_t n)
{
    char stamp[192];
    cli_run_stamp(stamp, sizeof stamp);
    snprintf(buf, n, "results/runs/sensitivity-%s", stamp);
}

typedef struct sens_args {
    const char *dir, *costs, *targets, *sizes, *backend;
    int trials, dry, force, report, quiet, nextra;
    char **extra; /* after --: passed to every run */
} sens_args;

enum {
    OPT_COSTS = CLI_OPT_LONG,
    OPT_TARGETS,
    OPT_SIZES,
    OPT_TRIALS,
    OPT_BACKEND,
    OPT_DRY_RUN,
    OPT_FORCE,
    OPT_REPORT,
    OPT_QUIET
};

static const struct option sens_opts[] = {CLI_OPT_HELP,
                                          {"output", required_argument, NULL, 'o'},
                                          {"costs", required_argument, NULL, OPT_COSTS},
                                          {"targets", required_argument, NULL, OPT_TARGETS},
                                          {"sizes", required_argument, NULL, OPT_SIZES},
                                          {"trials", required_argument, NULL, OPT_TRIALS},
                                          {"backend", required_argument, NULL, OPT_BACKEND},
                                          {"dry-run", no_argument, NULL, OPT_DRY_RUN},
                                          {"force", no_argument, NULL, OPT_FORCE},
                                          {"report", no_argument, NULL, OPT_REPORT},
                                          {"quiet", no_argument, NULL, OPT_QUIET},
                                          {NULL, 0, NULL, 0}};

static int sens_option(int c, const char *v, sens_args *a)
{
    switch (c) {
    case 'o': a->dir = v; break;
    case OPT_COSTS: a->costs = v; break;
    case OPT_TARGETS: a->targets = v; break;
    case OPT_SIZES: a->sizes = v; break;
    case OPT_TRIALS: a->trials = (int)cli_parse_long("--trials", v, 1, 100); break;
    case OPT_BACKEND: a->backend = v; break;
    case OPT_DRY_RUN: a->dry = 1; break;
    case OPT_FORCE: a->force = 1; break;
    case OPT_REPORT: a->report = 1; break;
    case OPT_QUIET: a->quiet = 1; break;
    default: return CLI_EXIT_USAGE; /* cli_getopt said why */
    }
    return 0;
}

/* The command line into *a; options stop at "--", after which every word goes to each run. Returns
 * -1 to go on, else the exit status (0 after --help). */
static int sens_parse(int argc, char **argv, sens_args *a)
{
    *a = (sens_args){
        .costs = SENS_COSTS, .targets = SENS_TARGETS, .sizes = SENS_SIZES, .backend = "auto", .trials = SENS_TRIALS};
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("sensitivity run", argc, argv, "+:ho:", sens_opts)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (sens_option(c, optarg, a) != 0)
            return CLI_EXIT_USAGE;
    }
    if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
        return cli_no_operands("sensitivity run", argc, argv);
    a->extra = argv + optind;
    a->nextra = argc - optind;
    if (cli_backend_check("sensitivity run", a->backend) != 0)
        return CLI_EXIT_USAGE;
    return -1;
}

/* Prints the plan; runs[] and *nruns from the costs and targets. Returns 0, or the exit status. */
static int sens_plan(sens_args *a, char *dbuf, size_t dlen, sens_run *runs, size_t max, size_t *nruns)
{
    preset_sizes sz;
    char err[256], modes[256];
    if (preset_sizes_parse(a->sizes, &sz, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench sensitivity run: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    if (plan_runs(a->costs, a->targets, runs, max, nruns) != 0)
        return CLI_EXIT_USAGE;
    if (!a->dir) {
        default_dir(dbuf, dlen);
        a->dir = dbuf;
    }
    const size_t per = trials_per_run(&sz, a->trials), n = *nruns;
    printf("sensitivity plan: %zu runs (1 plain + %zu injected) x %zu trials = %zu trials; modes %s, sizes %s, "
           "windows %s, %d trials per cell, the quick preset's budgets; into %s\n",
           n, n - 1, per, n * per, sensitivity_modes(modes, sizeof modes), a->sizes, SENS_WINDOWS, a->trials, a->dir);
    for (size_t i = 0; i < n; i++)
        printf("  %-28s --inject-call-us %s\n", runs[i].file, runs[i].spec[0] ? runs[i].spec : "(none)");
    return 0;
}

/* Creates the output folder: the default lands in results/runs/ (git ignores it); only that default
 * creates results/runs. Returns 0, or the exit status. */
static int sens_mkdir(const char *dir, int is_default)
{
    if (is_default &&
        ((mkdir("results", 0777) != 0 && errno != EEXIST) || (mkdir("results/runs", 0777) != 0 && errno != EEXIST))) {
        fprintf(stderr, "ringbench sensitivity run: cannot create results/runs: %s\n", strerror(errno));
        return CLI_EXIT_FAIL;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ringbench sensitivity run: cannot create %s: %s\n", dir, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Every run of the plan as a child, in order; a run whose file exists is kept unless --force.
 * Returns the exit status. */
static int sens_runs(const sens_args *a, const sens_run *runs, size_t nruns)
{
    int code = CLI_EXIT_OK;
    const uint64_t t0 = timing_now_ns();
    for (size_t i = 0; i < nruns && !cli_stop; i++) {
        struct stat st;
        char *path = outfs_path("%s/%s", a->dir, runs[i].file);
        if (path == NULL) {
            fprintf(stderr, "ringbench sensitivity: out of memory\n");
            return CLI_EXIT_FAIL;
        }
        if (!a->force && stat(path, &st) == 0) {
            fprintf(stderr, "ringbench sensitivity: %s exists: kept (--force runs it again)\n", path);
            free(path);
            continue;
        }
        if (a->force)
            unlink(path);
        fprintf(stderr, "ringbench sensitivity: run %zu/%zu (%s), %.0f s so far\n", i + 1, nruns,
                runs[i].spec[0] ? runs[i].spec : "no injection", timing_seconds_since(t0));
        int rc = run_child(&runs[i], path, a->sizes, a->trials, a->backend, a->quiet, a->nextra, a->extra);
        free(path);
        if (rc != 0) {
            fprintf(stderr, "ringbench sensitivity: run %s exited %d\n", runs[i].file, rc);
            code = CLI_EXIT_FAIL;
            if (rc == 2 || rc >= 128) /* a usage error repeats for every run; a signal stops the sweep */
                break;
        }
    }
    printf("sensitivity: %zu runs in %s, %.0f s\n", nruns, a->dir, timing_seconds_since(t0));
    return code;
}

static int sens_run_cmd(int argc, char **argv)
{
    sens_args a;
    int rc = sens_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    sens_run runs[128];
    size_t nruns = 0;
    char dbuf[512];
    if ((rc = sens_plan(&a, dbuf, sizeof dbuf, runs, sizeof runs / sizeof *runs, &nruns)) != 0)
        return rc;
    if (a.dry)
        return CLI_EXIT_OK;
    if ((rc = sens_mkdir(a.dir, a.dir == dbuf)) != 0)
        return rc;
    cli_install_signals();
    int code = sens_runs(&a, runs, nruns);
    if (cli_stop)
        return CLI_EXIT_FAIL;
    if (a.report) {
        char *rargv[] = {"report", (char *)a.dir, NULL};
        if (sens_report_cmd(2, rargv) != 0 && code == CLI_EXIT_OK)
            code = CLI_EXIT_FAIL;
    }
    return code;
}

/* `ringbench sensitivity report DIR`: the command line of sensitivity_report_write (plots/report.h). */
static int sens_report_cmd(int argc, char **argv)
{
    report_opts o;
    const char *in = NULL;
    int rc = cmd_report_options("sensitivity report", argc, argv, &o, &in, 1);
    if (rc > 0)
        printf("usage: ringbench sensitivity report DIR [-o OUTDIR] [--no-render]\n"
               "Plots and break-even tables of the runs `ringbench sensitivity run` wrote into DIR\n"
               "(-o, --output; default OUTDIR: DIR/report). Takes report's options (--seed, --reps, ...).\n");
    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    return sensitivity_report_write(in, &o);
}

int cmd_sensitivity(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "ringbench sensitivity: an action is needed: run or report (see ringbench sensitivity --help)\n");
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "run") == 0)
        return sens_run_cmd(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return sens_report_cmd(argc - 1, argv + 1);
    fprintf(stderr, "ringbench sensitivity: unknown action '%s' (run or report)\n", argv[1]);
    return CLI_EXIT_USAGE;
}
