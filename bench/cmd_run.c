/* cmd_run.c - `ringbench run`: measure every selected mode x message size and write an HDF5 results
 * file. The steps, each its own function: parse the command line (run_parse), decide what it means
 * here (run_policy: preset, modes, sizes, backend, kernel lifetime, platform limits), open the file
 * and write its provenance (run_open), run the sweep and close the file (run_sweep_close).
 * Exercised by tests/cli_test.sh (quick, interrupt, placement, badinput) and tests/inject_cli.sh.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "cuda_calls.h"
#include "env.h"
#include "h5out.h"
#include "lifetime.h"
#include "outfs.h"
#include "placement.h"
#include "platform_faults.h"
#include "platform_limits.h"
#include "report.h"
#include "run_header.h"
#include "run_label.h"
#include "sweep.h"
#include "window_procs.h"
#include "wsl.h"

/* What the command line says, before anything is checked. */
typedef struct run_args {
    const char *preset, *modes, *sizes, *output, *backend, *cpu_list, *windows, *inject, *platform, *procs_keep;
    const char *faults; /* --inject-fault */
    int device, force, quiet, report, trials, lock_clocks, workers, cb_batch, window_procs;
    uint32_t seed;
    double timeout_s, lifetime_s, warmup_s; /* lifetime_s 0: not given */
    unsigned long long pinned_ceiling, pinned_max;
    cli_ring_switches sw;
    char cmdline[2048]; /* as typed, for the provenance */
} run_args;

/* What it means on this machine: the sweep's options and everything the provenance records. */
typedef struct run_plan {
    sweep_opts o;
    probe_caps caps;
    const char *notice;
    double inject_us[CC_KIND_COUNT];
    char inject_text[256];
    platform_limits limits;
    platform_faults faults;
    probe_pinned_ceiling pc;
    int measure_pinned;
    env_limits lim;
    wsl_info wsl;
    lifetime_choice life;
    char *path;                 /* the results file (malloc'd: any length the system takes) */
    char procs_text[16][64];    /* the values of procs_args */
    const char *procs_args[40]; /* what each process of --window-procs gets (run_procs_args), NULL-ended */
} run_plan;

/* Where the host threads run, and the warning when there are too few CPUs for them (placement.h). */
static int write_placement(h5out *w, int quiet)
{
    const placement_cfg *p = placement_get();
    char list[512], workers[128];
    env_format_cpu_list(p->cpus, p->ncpus, list, sizeof list);
    env_format_cpu_list(p->worker_cpus, p->nworkers, workers, sizeof workers);
    if (p->warning[0])
        fprintf(stderr, "ringbench: WARNING: %s\n", p->warning);
    else if (!quiet)
        fprintf(stderr, "ringbench: CPUs %s (%s): poller %d, kernel thread %d, %d workers%s\n", list, p->source,
                p->poller_cpu, p->kernel_cpu, p->nworkers, p->pinned ? ", pinned" : ", not pinned");
    if (h5out_attr_str(w, RB_H5_PROVENANCE, "cpu_list", list) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "cpu_list_source", p->source) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "cpu_poller", p->poller_cpu) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "cpu_kernel_thread", p->kernel_cpu) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "cpu_workers", workers) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "cpu_pinned", p->pinned) != 0)
        return -1;
    return h5out_attr_str(w, RB_H5_PROVENANCE, "placement_warning", p->warning);
}

/* The NVML clock session for per-trial clocks, and --lock-clocks. Records the clock state either way. */
static int open_clocks(h5out *w, sweep_opts *o, const probe_caps *caps, int lock)
{
    char reason[256] = "";
    const char *state = "not locked";
    if (o->backend == RING_BACKEND_CUDA && env_clocks_open(caps->pci_bus_id, &o->clocks, reason, sizeof reason) != 0)
        o->clocks = NULL;
    if (o->backend != RING_BACKEND_CUDA)
        snprintf(reason, sizeof reason, "no GPU clocks: CPU backend");
    if (lock) {
        if (o->clocks && env_clocks_lock(o->clocks, reason, sizeof reason) == 0) {
            state = "locked at the application clock (--lock-clocks)";
        } else {
            fprintf(stderr, "ringbench: WARNING: --lock-clocks: %s; clocks are recorded per trial instead\n", reason);
            state = "lock refused";
        }
    }
    double target = env_clocks_target_sm(o->clocks);
    if (h5out_attr_str(w, RB_H5_PROVENANCE, "clocks_state", state) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "clocks_note",
                       o->clocks   ? reason
                       : reason[0] ? reason
                                   : "no NVML") != 0)
        return -1;
    return h5out_attr_f64(w, RB_H5_PROVENANCE, "clocks_target_sm_mhz", target);
}

/* --platform-limits and the pinned ceiling (issue 21) into the provenance, and said on stderr:
 * platform_limits is what run_label.h labels LIMITS APPLIED. */
static int write_limits(h5out *w, const platform_limits *l, const probe_pinned_ceiling *pc)
{
    char line[512];
    if (pc) {
        if (probe_pinned_foreach(pc, run_header_put, w) != 0)
            return -1;
        fprintf(stderr, "ringbench: pinned-memory ceiling: %s\n", probe_pinned_str(pc, line, sizeof line));
    }
    if (h5out_attr_str(w, RB_H5_PROVENANCE, RB_PROV_PLATFORM_LIMITS, l ? l->platform : "") != 0)
        return -1;
    if (!l)
        return 0;
    if (platform_limits_foreach(l, run_header_put, w) != 0)
        return -1;
    fprintf(stderr,
            "ringbench: LIMITS APPLIED (%s): ctrl=managed unsupported; pinned ceiling %llu bytes (%s). "
            "Not a %s run.\n",
            l->platform, (unsigned long long)l->pinned_ceiling, l->pinned_source, l->platform);
    return 0;
}

/* --inject-call-us (issue 21): the costs go into the provenance (run_label.h: every output then says
 * INJECTED) with a check of the busy wait, then into the counting layer, before any ring thread runs. */
static int write_injection(h5out *w, const double us[CC_KIND_COUNT], const char *text)
{
    if (h5out_attr_str(w, RB_H5_PROVENANCE, RB_PROV_INJECT_CALL_US, text) != 0)
        return -1;
    if (!text[0])
        return 0;
    double most = 0;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        most = us[k] > most ? us[k] : most;
    const double got = cc_inject_check(most, 200);
    char check[160];
    snprintf(check, sizeof check, "a wait of %g us took %.3f us (mean of 200, busy wait on CLOCK_MONOTONIC)", most,
             got);
    if (h5out_attr_str(w, RB_H5_PROVENANCE, "inject_call_check", check) != 0)
        return -1;
    /* Said even with --quiet: these numbers are not the machine's own. */
    fprintf(stderr, "ringbench: INJECTED per-call cost (us before each counted CUDA call): %s; %s\n", text, check);
    cc_inject_set(us);
    return 0;
}

/* --inject-fault (issue 53): the faults go into the provenance (run_label.h: every output then says
 * FAULTS INJECTED, track refuses the file) and are said even with --quiet. */
static int write_faults(h5out *w, const platform_faults *f)
{
    if (h5out_attr_str(w, RB_H5_PROVENANCE, RB_PROV_INJECT_FAULT, f->text) != 0)
        return -1;
    if (f->text[0])
        fprintf(stderr,
                "ringbench: FAULTS INJECTED (%s): these modes' replies never arrive, arrive after the wait, or "
                "arrive stale, from message %u of every ring on; their cells fail on purpose\n",
                f->text, PLATFORM_FAULT_EVERY);
    return 0;
}

/* The ring's switches: the part of usage_run shared in meaning with anatomy's. */
static void usage_run_switches(FILE *f)
{
    fprintf(f,
            "  --no-early-take     the kernel waits for in_tail before it takes any message (default: a\n"
            "                      lone message of up to 16 B is taken as soon as its sealed header and\n"
            "                      payload are in the input ring); for measuring what the early take saves\n"
            "  --no-leader-reply   such a lone message goes to a warp of the kernel's first block, behind two\n"
            "                      block barriers, instead of being answered by the polling thread itself\n"
            "                      (default: answered by the poller); for measuring what that saves\n"
            "  --no-early-replies  the host takes a reply only once out_tail (zero-copy) or its copy's\n"
            "                      completion (async) says it is there (default: a small reply is taken as\n"
            "                      soon as all of it verifies); for measuring what that saves\n"
            "  --shortcuts-busy    the early take applies to any whole small message (default: only to one\n"
            "                      the host posted alone onto an idle ring; taken early, the first message\n"
            "                      of a batch is split from the rest); for measuring what that rule saves\n"
            "  --stream-ops        async modes with pinned memory and a mapped or managed control block:\n"
            "                      an idle ring queues its whole round trip in stream order (stream memory\n"
            "                      operations, where `ringbench probe` says they work) instead of fetching\n"
            "                      each reply once the host sees out_tail (default: off, slower on the H100)\n"
            "  --post-max N        zero-copy rings: a throughput trial hands the kernel at most N messages\n"
            "                      per post (one in_tail move), so the kernel starts on a window's first\n"
            "                      piece while the host verifies and stages the rest (0 = the window's free\n"
            "                      room at once; default %u; copy rings always post it at once, as a piece\n"
            "                      costs a copy); the file records it (provenance post_max)\n"
            "  --verify-split B    replies the host verifies together (a window's, or a landed copy's) whose\n"
            "                      payloads, plus 128 B each for a reply's fixed costs, add up to B bytes or\n"
            "                      more (K, M suffixes) are shared out over its worker pool instead of checked\n"
            "                      one after another while the kernel waits (0 = one after another, the rule\n"
            "                      before; default %uK); the file records it (provenance verify_split)\n"
            "  --verify-first      zero-copy rings with a mapped or managed control block: a throughput trial\n"
            "                      verifies a window's replies before it posts their refill (the rule before;\n"
            "                      default: the refill is posted once out_tail shows the replies, which are\n"
            "                      verified while the kernel works on it; provenance refill_first)\n"
            "  --refill-on-tail    with refill first: a reply counts as answered only once out_tail announces\n"
            "                      it (default: once its header is in the output ring, while at most 256\n"
            "                      messages are in flight; provenance refill_headers)\n",
            RING_POST_MAX_DEFAULT, RING_VERIFY_SPLIT_DEFAULT / 1024u);
}

static void usage_run(FILE *f)
{
    fprintf(f, "usage: ringbench run [options]\n"
               "Measure the ring-kernel system in every selected mode x message size; write an HDF5 results file.\n\n"
               "  --preset NAME       quick | default | full (default: default); see `ringbench list presets`\n"
               "  --modes SPEC        all, or AXIS=V1|V2 terms joined by commas, e.g. host=pinned,ctrl=mapped|managed\n"
               "                      axes: host=pinned|malloc xfer=async|sync|zerocopy launch=coop|noncoop\n"
               "                      ctrl=managed|device|mapped (default: all)\n"
               "  --sizes SPEC        sizes and ranges, e.g. 8,4K,1M or 8..4M (powers of 2) or 16..4M:x4\n"
               "                      (default: the preset's)\n"
               "  --backend B         auto | cuda | cpu (default auto: CUDA if a device is usable, else the CPU\n"
               "                      reference backend, with a notice)\n"
               "  --device N          CUDA device ordinal (default 0)\n"
               "  --seed N            payload generator seed (default 1)\n"
               "  -o, --output FILE   results file (default results/runs/<host>-<UTC time>.h5 in the source tree,\n"
               "                      which git ignores; <host>-<UTC time>.h5 elsewhere)\n"
               "  --force             replace FILE if it exists\n"
               "  --timeout S         bound of any single wait on the kernel (default 5)\n"
               "  --max-lifetime S    a kernel leaves by itself after S seconds (default 60; on WSL2 1.5, below\n"
               "                      the Windows watchdog's 2 s; the file records which applied)\n"
               "  --trials K          independent trials per cell, each a fresh ring and kernel launch (default:\n"
               "                      the preset's: quick 3, default 5, full 10)\n"
               "  --window LIST       throughput windows, messages in flight, e.g. 1,8,64,cap (default: the\n"
               "                      preset's; cap = the ring's capacity at each size)\n"
               "  --cpu LIST          CPUs for the host threads, e.g. 2-5 (default: the process's CPU mask); the\n"
               "                      first polls the ring, the next plays the kernel (CPU backend), the rest verify\n"
               "  --no-pin            do not pin the host threads to their CPUs\n"
               "  --workers N         at most N threads verify and prepare messages of 256 KiB and more, and\n"
               "                      share out replies verified together (--verify-split) (0-8; 0: the polling\n"
               "                      thread does it alone; default: one per spare CPU, up to 8)\n");
    usage_run_switches(f);
    fprintf(f, "  --cb-batch K        time control-block reads and writes K at a time, each sample their time / K\n"
               "                      (default 16: one operation between two clock reads was ~40 ns of a\n"
               "                      ~50 ns read); the file records it (provenance cb_batch)\n"
               "  --warmup S          warm the GPU up to its application clock for at most S seconds before the\n"
               "                      first trial (default 3; 0 = no warm-up)\n"
               "  --lock-clocks       lock the GPU's SM clock at its application clock for the run (needs root and\n"
               "                      NVML; restored at exit). Never on a shared machine.\n"
               "  --inject-call-us KIND=US[,KIND=US...]\n"
               "                      before each counted CUDA call of KIND the calling thread busy-waits US\n"
               "                      microseconds (what a slower driver, e.g. WSL2's, would add per call). KIND:\n"
               "                      memcpy memcpy_async event_record event_query stream_query stream_sync launch\n"
               "                      other, or all, copies (memcpy, memcpy_async), queries (event_query,\n"
               "                      stream_query). The file is labelled INJECTED everywhere; track refuses it\n"
               "  --inject-fault MODE=FAULT[,MODE=FAULT...]\n"
               "                      test a platform that fails (WSL2 can): from the 19th message of every ring\n"
               "                      of MODE (a mode label, or all) replies never arrive (never), arrive after\n"
               "                      the wait (late) or carry an older sequence number (stale); each such cell\n"
               "                      fails with its reason and the sweep goes on. The file is labelled FAULTS\n"
               "                      INJECTED everywhere; track refuses it\n"
               "  --platform-limits wsl2\n"
               "                      apply WSL2's documented limits to this machine (no concurrent managed access:\n"
               "                      ctrl=managed unsupported; a pinned-memory ceiling: modes whose rings need\n"
               "                      more unsupported at that size) and measure the rest. Labelled LIMITS APPLIED\n"
               "                      everywhere, never a WSL2 run; track refuses it\n"
               "  --pinned-ceiling BYTES  the ceiling --platform-limits applies (e.g. 1G; default: measured by the\n"
               "                      probe up to --pinned-max; none on the CPU backend)\n"
               "  --pinned-max BYTES  measure the pinned-memory ceiling up to BYTES first (default 8G when\n"
               "                      --platform-limits needs it) and record it in the provenance\n"
               "  --window-procs K    after the sweep, measure the smallest size's full window again in K fresh\n"
               "                      processes, one after another (a quick run of the four native zero-copy\n"
               "                      modes each, this run's backend, device, CPUs and switches): each process\n"
               "                      draws its own level of that rate, so its cells (throughput_procs) are the\n"
               "                      median of K (default 0: none; `make nightly` uses 24)\n"
               "  --window-procs-keep DIR  keep each of those processes' own results file and log in DIR\n"
               "                      (pNNNN.h5, pNNNN.log; DIR created if missing, files of those names\n"
               "                      replaced): the references they measured in the same seconds as their\n"
               "                      full window (floor, memcpy, host_ref), for analysis (default: removed\n"
               "                      once read)\n"
               "  --report            write the report next to the results file afterwards\n"
               "  --quiet             no progress on stderr\n"
               "Exit status: 0 every cell ok or recorded unsupported/invalid; 1 a failed cell, an error or an\n"
               "interrupt (the file keeps every completed cell, marked incomplete); 2 a usage error.\n");
}

/* The results file when -o is not given, malloc'd (NULL when out of memory). */
static char *default_output(void)
{
    char stamp[192];
    cli_run_stamp(stamp, sizeof stamp);
    /* Run from the source tree (a results/ folder here): results/runs/, which git ignores, so a
     * user's runs never land among the sources or the committed reference runs. */
    struct stat st;
    int have_dir = stat("results", &st) == 0 && S_ISDIR(st.st_mode);
    if (have_dir && mkdir("results/runs", 0777) != 0 && errno != EEXIST)
        have_dir = 0;
    return outfs_path("%s%s.h5", have_dir ? "results/runs/" : "", stamp);
}

enum {
    OPT_PRESET = CLI_OPT_LONG,
    OPT_MODES,
    OPT_SIZES,
    OPT_BACKEND,
    OPT_DEVICE,
    OPT_SEED,
    OPT_TIMEOUT,
    OPT_LIFETIME,
    OPT_TRIALS,
    OPT_WINDOW,
    OPT_CPU,
    OPT_WORKERS,
    OPT_WARMUP,
    OPT_INJECT,
    OPT_FAULT,
    OPT_PLATFORM,
    OPT_PINNED_CEILING,
    OPT_PINNED_MAX,
    OPT_LOCK_CLOCKS,
    OPT_FORCE,
    OPT_QUIET,
    OPT_REPORT,
    OPT_CB_BATCH,
    OPT_WINDOW_PROCS,
    OPT_WINDOW_PROCS_KEEP
};

static const struct option run_opts[] = {CLI_OPT_HELP,
                                         {"output", required_argument, NULL, 'o'},
                                         {"preset", required_argument, NULL, OPT_PRESET},
                                         {"modes", required_argument, NULL, OPT_MODES},
                                         {"sizes", required_argument, NULL, OPT_SIZES},
                                         {"backend", required_argument, NULL, OPT_BACKEND},
                                         {"device", required_argument, NULL, OPT_DEVICE},
                                         {"seed", required_argument, NULL, OPT_SEED},
                                         {"timeout", required_argument, NULL, OPT_TIMEOUT},
                                         {"max-lifetime", required_argument, NULL, OPT_LIFETIME},
                                         {"trials", required_argument, NULL, OPT_TRIALS},
                                         {"window", required_argument, NULL, OPT_WINDOW},
                                         {"cpu", required_argument, NULL, OPT_CPU},
                                         {"workers", required_argument, NULL, OPT_WORKERS},
                                         {"warmup", required_argument, NULL, OPT_WARMUP},
                                         {"inject-call-us", required_argument, NULL, OPT_INJECT},
                                         {"inject-fault", required_argument, NULL, OPT_FAULT},
                                         {"platform-limits", required_argument, NULL, OPT_PLATFORM},
                                         {"pinned-ceiling", required_argument, NULL, OPT_PINNED_CEILING},
                                         {"pinned-max", required_argument, NULL, OPT_PINNED_MAX},
                                         {"lock-clocks", no_argument, NULL, OPT_LOCK_CLOCKS},
                                         {"force", no_argument, NULL, OPT_FORCE},
                                         {"quiet", no_argument, NULL, OPT_QUIET},
                                         {"report", no_argument, NULL, OPT_REPORT},
                                         {"cb-batch", required_argument, NULL, OPT_CB_BATCH},
                                         {"window-procs", required_argument, NULL, OPT_WINDOW_PROCS},
                                         {"window-procs-keep", required_argument, NULL, OPT_WINDOW_PROCS_KEEP},
                                         CLI_RING_SWITCH_OPTS,
                                         {NULL, 0, NULL, 0}};

/* One option into *a. Returns 0, or CLI_EXIT_USAGE for an option getopt refused. */
static int run_option(int c, const char *v, run_args *a)
{
    switch (c) {
    case 'o': a->output = v; break;
    case OPT_PRESET: a->preset = v; break;
    case OPT_MODES: a->modes = v; break;
    case OPT_SIZES: a->sizes = v; break;
    case OPT_BACKEND: a->backend = v; break;
    case OPT_DEVICE: a->device = (int)cli_parse_long("--device", v, 0, 1023); break;
    case OPT_SEED: a->seed = (uint32_t)cli_parse_long("--seed", v, 0, 0xFFFFFFFFL); break;
    case OPT_TIMEOUT: a->timeout_s = cli_parse_seconds("--timeout", v); break;
    case OPT_LIFETIME: a->lifetime_s = cli_parse_seconds("--max-lifetime", v); break;
    case OPT_TRIALS: a->trials = (int)cli_parse_long("--trials", v, 1, 1000); break;
    case OPT_WINDOW: a->windows = v; break;
    case OPT_CPU: a->cpu_list = v; break;
    case OPT_WORKERS: a->workers = (int)cli_parse_long("--workers", v, 0, RB_PLACE_MAX_WORKERS); break;
    case OPT_WARMUP: a->warmup_s = strcmp(v, "0") == 0 ? 0 : cli_parse_seconds("--warmup", v); break;
    case OPT_INJECT: a->inject = v; break;
    case OPT_FAULT: a->faults = v; break;
    case OPT_PLATFORM: a->platform = v; break;
    case OPT_PINNED_CEILING: a->pinned_ceiling = cli_parse_bytes("--pinned-ceiling", v, 1, 1ull << 50); break;
    case OPT_PINNED_MAX: a->pinned_max = cli_parse_bytes("--pinned-max", v, RB_PINNED_STEP, 1ull << 50); break;
    case OPT_LOCK_CLOCKS: a->lock_clocks = 1; break;
    case OPT_FORCE: a->force = 1; break;
    case OPT_QUIET: a->quiet = 1; break;
    case OPT_REPORT: a->report = 1; break;
    case OPT_CB_BATCH: a->cb_batch = (int)cli_parse_long("--cb-batch", v, 1, 1024); break;
    case OPT_WINDOW_PROCS: a->window_procs = (int)cli_parse_long("--window-procs", v, 0, WINDOW_PROCS_MAX); break;
    case OPT_WINDOW_PROCS_KEEP: a->procs_keep = v; break;
    default:
        if (!cli_ring_switch(c, &a->sw))
            return CLI_EXIT_USAGE;
    }
    return 0;
}

/* The command line into *a. Returns -1 to go on, else the exit status (0 after --help). */
static int run_parse(int argc, char **argv, run_args *a)
{
    *a = (run_args){.preset = "default",
                    .modes = "all",
                    .backend = "auto",
                    .seed = 1,
                    .timeout_s = 5,
                    .warmup_s = 3,
                    .workers = -1,
                    .cb_batch = 16,
                    .sw = CLI_RING_SWITCHES_DEFAULT};
    /* Kept as typed, before getopt reorders argv. */
    for (int i = 0; i < argc + 1 && strlen(a->cmdline) < sizeof a->cmdline - 64; i++) {
        strncat(a->cmdline, i == 0 ? "ringbench" : argv[i - 1], sizeof a->cmdline - strlen(a->cmdline) - 2);
        strcat(a->cmdline, " ");
    }
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("run", argc, argv, ":ho:", run_opts)) != -1) {
        if (c == 'h') {
            usage_run(stdout);
            return CLI_EXIT_OK;
        }
        if (c == CLI_OPT_BAD || run_option(c, optarg, a) != 0)
            return CLI_EXIT_USAGE;
    }
    return cli_no_operands("run", argc, argv) ? CLI_EXIT_USAGE : -1;
}

/* Prints "ringbench run: MSG" and returns CLI_EXIT_USAGE. */
static int run_usage_error(const char *msg)
{
    fprintf(stderr, "ringbench run: %s\n", msg);
    return CLI_EXIT_USAGE;
}

/* Preset, modes, sizes, windows, injection and limits: the grammar of every value. */
static int run_check_values(run_args *a, run_plan *p)
{
    char err[512];
    sweep_opts *o = &p->o;
    if (!(o->preset = preset_find(a->preset))) {
        fprintf(stderr, "ringbench run: unknown preset '%s' (quick, default or full)\n", a->preset);
        return CLI_EXIT_USAGE;
    }
    if (!a->sizes)
        a->sizes = o->preset->sizes;
    if (mode_set_parse(a->modes, &o->modes, err, sizeof err) != 0 ||
        preset_sizes_parse(a->sizes, &o->sizes, err, sizeof err) != 0)
        return run_usage_error(err);
    if (cli_backend_check("run", a->backend) != 0)
        return CLI_EXIT_USAGE;
    if (a->inject && cc_inject_parse(a->inject, p->inject_us, err, sizeof err) != 0)
        return run_usage_error(err);
    cc_inject_format(p->inject_us, p->inject_text, sizeof p->inject_text);
    if (a->faults && platform_faults_parse(a->faults, &p->faults, err, sizeof err) != 0)
        return run_usage_error(err);
    o->faults = a->faults ? &p->faults : NULL;
    if (a->platform && platform_limits_parse(a->platform, &p->limits, err, sizeof err) != 0)
        return run_usage_error(err);
    if (a->pinned_ceiling && !a->platform)
        return run_usage_error("--pinned-ceiling is the ceiling --platform-limits applies: give both");
    if (a->procs_keep && (a->window_procs <= 0 || !a->procs_keep[0]))
        return run_usage_error("--window-procs-keep DIR keeps the files of --window-procs K (K > 0): give both");
    if ((a->output && outfs_path_check("-o", a->output, err, sizeof err) != 0) ||
        (a->procs_keep && outfs_path_check("--window-procs-keep", a->procs_keep, err, sizeof err) != 0))
        return run_usage_error(err);
    char *keep_dir = NULL; /* made now: a folder that cannot be made is said before the sweep, not after */
    if (a->procs_keep && window_procs_dir(a->procs_keep, &keep_dir, err, sizeof err) != 0)
        return run_usage_error(err);
    free(keep_dir);
    if (!a->windows)
        a->windows = o->preset->windows;
    if (preset_windows_parse(a->windows, o->windows, sizeof o->windows / sizeof *o->windows, &o->nwindows, err,
                             sizeof err) != 0)
        return run_usage_error(err);
    /* The limits are read before the polling thread is pinned: pinning narrows the thread's own CPU
     * mask, which the affinity check would otherwise take for a taskset. */
    env_limits_detect(NULL, &p->lim);
    if (placement_init(a->cpu_list, a->sw.pin, err, sizeof err) != 0)
        return run_usage_error(err);
    if (a->workers >= 0)
        placement_limit_workers(a->workers); /* recorded as cpu_workers with the placement */
    return 0;
}

/* The backend, and whether every size fits the device. */
static int run_check_device(const run_args *a, run_plan *p)
{
    int brc = cli_backend_choose("run", a->backend, a->device, &p->caps, &p->o.backend, &p->notice);
    if (brc != 0 || p->o.backend != RING_BACKEND_CUDA)
        return brc;
    for (size_t i = 0; i < p->o.sizes.n; i++) {
        /* Two rings of up to 16 slots plus the baselines' buffers must fit comfortably. */
        uint64_t need = 4ull * 16 * ring_slot_stride(p->o.sizes.v[i]);
        if (need > p->caps.total_mem / 2) {
            char name[32];
            fprintf(stderr, "ringbench run: --sizes: %s is too large for %s (%.1f GiB)\n",
                    preset_size_name(p->o.sizes.v[i], name, sizeof name), p->caps.name,
                    p->caps.total_mem / 1073741824.0);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

/* The pinned ceiling: measured when asked (--pinned-max) or when the limits need it and none was
 * given; on the CPU backend it does not apply. */
static void run_pinned_policy(const run_args *a, run_plan *p)
{
    probe_pinned_ceiling *pc = &p->pc;
    p->measure_pinned = a->pinned_max || (a->platform && !a->pinned_ceiling);
    if (p->measure_pinned) {
        if (p->o.backend == RING_BACKEND_CUDA)
            probe_pinned(a->device, a->pinned_max, pc);
        else
            snprintf(pc->note, sizeof pc->note, "not applicable: CPU reference backend");
    }
    platform_limits *l = &p->limits;
    if (a->platform && a->pinned_ceiling) {
        l->pinned_ceiling = a->pinned_ceiling;
        snprintf(l->pinned_source, sizeof l->pinned_source, "--pinned-ceiling");
    } else if (a->platform && pc->measured) {
        l->pinned_ceiling = pc->total; /* what the process can pin at once; a ring is several allocations */
        snprintf(l->pinned_source, sizeof l->pinned_source, "measured: total pinned up to %llu bytes%s", pc->bound,
                 pc->total_hit_bound ? " (the bound: the real ceiling is higher)" : "");
    } else if (a->platform) {
        snprintf(l->pinned_source, sizeof l->pinned_source, "none applied: %s",
                 pc->note[0] ? pc->note : "not measured");
    }
    p->o.limits = a->platform ? l : NULL;
}

/* The options each process of --window-procs gets: what this run was told that changes what the ring
 * measures (the backend as resolved, device, timeouts, CPUs, workers, the ring's switches, injected
 * costs, platform limits and their ceiling, warm-up); the leg adds preset, modes, size, window, trials,
 * seed and file (bench/window_procs.c). Not --lock-clocks: this process holds the lock meanwhile. */
static void run_procs_args(const run_args *a, run_plan *p)
{
    size_t n = 0, v = 0;
    const char **out = p->procs_args;
#define ARG(s) (out[n++] = (s))
#define VAL(...) (snprintf(p->procs_text[v], sizeof p->procs_text[v], __VA_ARGS__), out[n++] = p->procs_text[v++])
    ARG("--backend");
    ARG(ring_backend_name(p->o.backend));
    ARG("--device");
    VAL("%d", a->device);
    ARG("--timeout");
    VAL("%.17g", a->timeout_s);
    ARG("--warmup");
    VAL("%.17g", a->warmup_s);
    if (a->lifetime_s > 0) {
        ARG("--max-lifetime");
        VAL("%.17g", a->lifetime_s);
    }
    if (a->cpu_list) {
        ARG("--cpu");
        ARG(a->cpu_list);
    }
    if (a->workers >= 0) {
        ARG("--workers");
        VAL("%d", a->workers);
    }
    if (!a->sw.pin)
        ARG("--no-pin");
    if (!a->sw.early_take)
        ARG("--no-early-take");
    if (!a->sw.leader_reply)
        ARG("--no-leader-reply");
    if (a->sw.stream_ops)
        ARG("--stream-ops");
    if (!a->sw.early_replies)
        ARG("--no-early-replies");
    if (a->sw.shortcuts_busy)
        ARG("--shortcuts-busy");
    if (a->sw.post_max >= 0) {
        ARG("--post-max");
        VAL("%ld", a->sw.post_max);
    }
    if (a->sw.verify_split >= 0) {
        ARG("--verify-split");
        VAL("%ld", a->sw.verify_split);
    }
    if (a->sw.verify_first)
        ARG("--verify-first");
    if (a->sw.refill_on_tail)
        ARG("--refill-on-tail");
    if (a->inject) {
        ARG("--inject-call-us");
        ARG(a->inject);
    }
    if (a->faults) {
        ARG("--inject-fault");
        ARG(a->faults);
    }
    if (a->platform) {
        ARG("--platform-limits");
        ARG(a->platform);
        if (p->limits.pinned_ceiling) { /* as this run applied it: measured once, not by each process */
            ARG("--pinned-ceiling");
            VAL("%llu", (unsigned long long)p->limits.pinned_ceiling);
        }
    }
#undef ARG
#undef VAL
    out[n] = NULL;
    p->o.window_procs = a->window_procs;
    p->o.window_procs_args = p->procs_args;
    p->o.window_procs_keep = a->procs_keep;
}

/* What the command line means here. Returns 0, or the exit status. */
static int run_policy(run_args *a, run_plan *p)
{
    memset(p, 0, sizeof *p);
    int rc = run_check_values(a, p);
    if (rc != 0)
        return rc;
    sweep_opts *o = &p->o;
    o->trials = a->trials ? a->trials : o->preset->trials;
    o->warmup_timeout_s = a->warmup_s;
    o->device = a->device;
    o->seed = a->seed;
    o->timeout_s = a->timeout_s;
    wsl_detect(NULL, NULL, NULL, &p->wsl);
    p->life = lifetime_choose(a->lifetime_s, p->wsl.kind);
    o->max_lifetime_s = p->life.seconds;
    o->quiet = a->quiet;
    o->early_take = a->sw.early_take;
    o->leader_reply = a->sw.leader_reply;
    o->stream_ops = a->sw.stream_ops;
    o->no_early_replies = !a->sw.early_replies;
    o->shortcuts_busy = a->sw.shortcuts_busy;
    o->cb_batch = (size_t)a->cb_batch;
    o->post_max = cli_post_max(&a->sw);
    o->verify_split = cli_verify_split(&a->sw);
    o->verify_first = a->sw.verify_first;
    o->refill_on_tail = a->sw.refill_on_tail;
    if ((rc = run_check_device(a, p)) != 0)
        return rc;
    run_pinned_policy(a, p);
    run_procs_args(a, p);
    if ((p->path = a->output ? strdup(a->output) : default_output()) == NULL)
        return run_usage_error("out of memory");
    return 0;
}

/* Said once the arguments and the output file are known to be good, so that a usage error stays one
 * line: the CPU backend's notice, and what distorts every number (taskset, nice, container limits). */
static void run_notices(const run_args *a, const run_plan *p)
{
    if (p->o.backend == RING_BACKEND_CPU && strcmp(a->backend, "cpu") == 0)
        fprintf(stderr, "ringbench: CPU REFERENCE BACKEND (--backend cpu): a host thread plays the kernel; "
                        "these are not GPU measurements\n");
    else if (p->o.backend == RING_BACKEND_CPU)
        fprintf(
            stderr,
            "ringbench: NOTICE: no usable CUDA device (%s).\n"
            "ringbench: NOTICE: running the CPU REFERENCE BACKEND: a host thread plays the kernel. Its numbers\n"
            "ringbench: NOTICE: exercise the protocol, the sweep and the results file; they are NOT GPU measurements.\n",
            p->caps.cuda_error);
    for (int i = 0; i < p->lim.nwarnings; i++) {
        /* Too few CPUs is said once, by the placement (write_placement), which also knows --cpu;
         * the limits keep the sentence in the provenance. */
        if (i == p->lim.cpu_warning)
            continue;
        fprintf(stderr, "ringbench: WARNING: %s\n", p->lim.warnings[i]);
    }
}

/* The provenance of the run: header, environment limits, the ring's switches, lifetime, injection
 * and platform limits, placement and clocks. Returns 0, or -1 when the file could not be written. */
static int run_write_provenance(h5out *w, const run_args *a, run_plan *p)
{
    env_info env;
    env_detect(NULL, &env);
    run_meta meta = {a->cmdline, p->o.preset->name, a->modes, a->sizes, p->notice, p->o.backend, a->seed};
    if (run_header_write(w, &env, &p->caps, &meta) != 0 || env_limits_foreach(&p->lim, run_header_put, w) != 0)
        return -1;
    if (h5out_attr_f64(w, RB_H5_PROVENANCE, "max_lifetime_s", p->life.seconds) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "max_lifetime_source", p->life.source) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "early_take", a->sw.early_take ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "leader_reply", a->sw.leader_reply ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "stream_ops", a->sw.stream_ops ? "on" : "off") != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "cb_batch", (double)a->cb_batch) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "window_procs", a->window_procs) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "post_max", (double)cli_post_max(&a->sw)) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "verify_split", (double)cli_verify_split(&a->sw)) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "early_replies", a->sw.early_replies ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "refill_first", a->sw.verify_first ? "off" : "on") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "refill_headers",
                       a->sw.refill_on_tail || a->sw.verify_first ? "off" : "on") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "early_take_of", a->sw.shortcuts_busy ? "any message" : "lone messages") !=
            0)
        return -1;
    if (write_injection(w, p->inject_us, p->inject_text) != 0 || write_faults(w, &p->faults) != 0 ||
        write_limits(w, a->platform ? &p->limits : NULL, p->measure_pinned ? &p->pc : NULL) != 0)
        return -1;
    if (env.is_wsl2 && !a->quiet)
        fprintf(stderr, "ringbench: WSL2 detected (%s)\n", env.wsl2_evidence);
    if (!a->quiet && wsl_kind_has_tdr(p->wsl.kind))
        fprintf(stderr, "ringbench: %s: --max-lifetime %.3g s (%s)\n", wsl_kind_name(p->wsl.kind), p->life.seconds,
                p->life.source);
    return write_placement(w, a->quiet) != 0 || open_clocks(w, &p->o, &p->caps, a->lock_clocks) != 0 ? -1 : 0;
}

/* Opens the results file and writes its provenance into *w. Returns 0, or the exit status. */
static int run_open(const run_args *a, run_plan *p, h5out **w)
{
    char err[512];
    if (h5out_open(p->path, a->force, w, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    run_notices(a, p);
    if (run_write_provenance(*w, a, p) != 0) {
        fprintf(stderr, "ringbench run: writing %s: %s\n", p->path, h5out_error(*w));
        env_clocks_close(p->o.clocks);
        h5out_close(*w, 0, "write error", err, sizeof err);
        return CLI_EXIT_FAIL;
    }
    return 0;
}

/* What the sweep did into the provenance, then the file closed: complete, or marked incomplete with
 * the reason (why). Returns 0, or -1 after one line on stderr. */
static int run_close(h5out *w, const run_plan *p, const sweep_result *res, int rc, const char *why)
{
    if (h5out_attr_i64(w, RB_H5_PROVENANCE, "trials", p->o.trials) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "warmup_s", res->warmup_s) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "warmup_sm_mhz", res->warmup_sm_mhz) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "warmup_target_sm_mhz", res->warmup_target_mhz) != 0)
        fprintf(stderr, "ringbench run: writing %s: %s\n", p->path, h5out_error(w));
    char end[64], cerr[512];
    run_header_utc(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ");
    h5out_attr_str(w, RB_H5_PROVENANCE, "end_utc", end);
    if (p->caps.cuda_usable)
        run_header_nvml(w, &p->caps, "end");
    if (h5out_close(w, rc == 0, why, cerr, sizeof cerr) != 0) {
        fprintf(stderr, "ringbench run: %s\n", cerr);
        return -1;
    }
    return 0;
}

/* The sweep into the open file, the file closed, the summary printed. Returns the exit status. */
static int run_sweep_close(const run_args *a, run_plan *p, h5out *w)
{
    char err[512];
    cli_install_signals();
    sweep_result res;
    int rc = sweep_run(&p->o, &p->caps, w, &cli_stop, &res, err, sizeof err);
    env_clocks_close(p->o.clocks); /* restores locked clocks */
    if (rc < 0)                    /* the cause first: closing the file after it may fail too */
        fprintf(stderr, "ringbench run: %s\n", err);
    const char *why = rc == 1 ? (cli_signal == SIGTERM ? "SIGTERM" : "SIGINT") : rc < 0 ? err : "";
    if (run_close(w, p, &res, rc, why) != 0) {
        sweep_result_free(&res);
        return CLI_EXIT_FAIL;
    }
    char label[512]; /* an injected or limits-applied run says so above its figures too */
    rb_run_label(p->inject_text, a->platform ? p->limits.platform : "", label, sizeof label);
    rb_run_label_faults(p->faults.text, label, sizeof label);
    if (label[0])
        printf("\n%s: the figures below are not this machine as it is\n", label);
    char serr[1024];
    if (res.nrows > 0 && report_summary_print(stdout, p->path, serr, sizeof serr) != 0)
        printf("\nno headline figures: %s\n", serr);
    sweep_summary(&res, stdout);
    int code = CLI_EXIT_OK;
    if (rc < 0) {
        fprintf(stderr, "ringbench run: the rows measured before are kept in %s, marked incomplete\n", p->path);
        code = CLI_EXIT_FAIL;
    } else if (rc == 1) {
        fprintf(stderr, "ringbench run: interrupted by %s: %zu rows kept in %s, marked incomplete\n", why, res.nrows,
                p->path);
        code = CLI_EXIT_FAIL;
    } else if (res.failed) {
        fprintf(stderr, "ringbench run: %zu rows FAILED (see their reason column)\n", res.failed);
        code = CLI_EXIT_FAIL;
    }
    printf("results: %s\n", p->path);
    sweep_result_free(&res);
    if (a->report && rc != -1) {
        char *rargv[] = {"report", p->path, NULL};
        if (cmd_report(2, rargv) != 0 && code == CLI_EXIT_OK)
            code = CLI_EXIT_FAIL;
    }
    return code;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    run_plan p;
    h5out *w = NULL;
    int rc = run_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if ((rc = run_policy(&a, &p)) == 0 && (rc = run_open(&a, &p, &w)) == 0)
        rc = run_sweep_close(&a, &p, w);
    free(p.path);
    return rc;
}
