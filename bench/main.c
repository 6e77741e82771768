/* main.c - the ringbench command line: run, probe, list, report, compare.
 *
 * Only this file prints usage and chooses exit codes: 0 ok, 1 a failure (a failed cell, a runtime
 * error, an interrupted run), 2 a usage error (bad option, bad value, output file exists).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "anatomy_cmd.h"
#include "baselines.h"
#include "cli.h"
#include "cuda_calls.h"
#include "env.h"
#include "h5out.h"
#include "platform_limits.h"
#include "placement.h"
#include "probe.h"
#include "rb_provenance.h" /* generated at every build: RINGBENCH_GIT_COMMIT, _DIRTY, _COMMIT_SOURCE */
#include "report.h"
#include "run_label.h"
#include "sensitivity_cmd.h"
#include "sweep.h"
#include "track_cmd.h"
#include "wsl.h"

#ifndef RINGBENCH_VERSION
#define RINGBENCH_VERSION "0.0.0"
#endif

enum { EXIT_OK = CLI_EXIT_OK, EXIT_FAIL = CLI_EXIT_FAIL, EXIT_USAGE = CLI_EXIT_USAGE };


/* --- small parsing helpers ---------------------------------------------------------------------- */

static void utc_now(char *buf, size_t n, const char *fmt)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, fmt, &tm);
}

/* --- provenance and capabilities ---------------------------------------------------------------- */

static int put_env(void *ctx, const char *key, const char *value)
{
    return h5out_attr_str(ctx, RB_H5_PROVENANCE, key, value);
}

static int put_cap(void *ctx, const char *key, const char *value, const char *error)
{
    h5out *w = ctx;
    if (h5out_attr_str(w, RB_H5_CAPABILITIES, key, value) != 0)
        return -1;
    if (error && *error) {
        char k[96];
        snprintf(k, sizeof k, "%s_error", key);
        return h5out_attr_str(w, RB_H5_CAPABILITIES, k, error);
    }
    return 0;
}

static int put_nvml(h5out *w, const rb_caps *caps, const char *when)
{
    env_nvml nv;
    env_nvml_query(caps->pci_bus_id, &nv);
    char k[64];
    snprintf(k, sizeof k, "nvml_%s", when);
    if (!nv.available) {
        return h5out_attr_str(w, RB_H5_PROVENANCE, k, nv.reason);
    }
    struct { const char *name; int v; } f[] = {
        {"sm_clock_mhz", nv.sm_clock_mhz}, {"mem_clock_mhz", nv.mem_clock_mhz}, {"pcie_gen", nv.pcie_gen},
        {"pcie_width", nv.pcie_width}, {"pcie_gen_max", nv.pcie_gen_max}, {"pcie_width_max", nv.pcie_width_max}};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        snprintf(k, sizeof k, "nvml_%s_%s", when, f[i].name);
        if (h5out_attr_i64(w, RB_H5_PROVENANCE, k, f[i].v) != 0)
            return -1;
    }
    return h5out_attr_str(w, RB_H5_PROVENANCE, "nvml_driver_version", nv.driver_version);
}

typedef struct run_meta {
    const char *command_line, *preset, *modes, *sizes, *backend_notice;
    ring_backend backend;
    uint32_t seed;
} run_meta;

static int write_header(h5out *w, const env_info *env, const rb_caps *caps, const run_meta *m)
{
    char v[64], pci_id[64];
    wsl_info wsl; /* which kind of WSL, with its evidence (wsl_kind, wsl_evidence, ...) */
    wsl_detect(NULL, NULL, NULL, &wsl);
    if (env_foreach(env, put_env, w) != 0 || wsl_foreach(&wsl, put_env, w) != 0 ||
        rb_caps_foreach(caps, put_cap, w) != 0)
        return -1;
    env_pci_id("/", caps->pci_bus_id, pci_id, sizeof pci_id); /* part of the machine fingerprint */
    utc_now(v, sizeof v, "%Y-%m-%dT%H:%M:%SZ");
    struct { const char *k, *v; } s[] = {
        {"suite_version", RINGBENCH_VERSION}, {"git_commit", RINGBENCH_GIT_COMMIT},
        {"git_dirty", RINGBENCH_GIT_DIRTY}, {"git_commit_source", RINGBENCH_GIT_COMMIT_SOURCE},
        {"command_line", m->command_line}, {"start_utc", v}, {"backend", ring_backend_name(m->backend)},
        {"backend_notice", m->backend_notice}, {"preset", m->preset}, {"modes", m->modes}, {"sizes", m->sizes},
        {"gpu_name", caps->name}, {"pci_bus_id", caps->pci_bus_id}, {"pci_id", pci_id}};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        if (h5out_attr_str(w, RB_H5_PROVENANCE, s[i].k, s[i].v ? s[i].v : "") != 0)
            return -1;
    snprintf(v, sizeof v, "%d.%d", caps->cc_major, caps->cc_minor);
    if (h5out_attr_str(w, RB_H5_PROVENANCE, "compute_capability", v) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "sm_count", caps->sm_count) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "driver_version", caps->driver_version) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "runtime_version", caps->runtime_version) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "seed", m->seed) != 0)
        return -1;
    return caps->cuda_usable ? put_nvml(w, caps, "start") : 0;
}

/* Where the host threads run, and the warning when there are too few CPUs for them (placement.h). */
static int write_placement(h5out *w, int quiet)
{
    const rb_placement *p = rb_place_get();
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
static int open_clocks(h5out *w, rb_sweep_opts *o, const rb_caps *caps, int lock)
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
        h5out_attr_str(w, RB_H5_PROVENANCE, "clocks_note", o->clocks ? reason : reason[0] ? reason : "no NVML") != 0)
        return -1;
    return h5out_attr_f64(w, RB_H5_PROVENANCE, "clocks_target_sm_mhz", target);
}

/* --- run ---------------------------------------------------------------------------------------- */

static int put_kv(void *ctx, const char *key, const char *value)
{
    return h5out_attr_str(ctx, RB_H5_PROVENANCE, key, value);
}

/* --platform-limits and the pinned ceiling (issue 21) into the provenance, and said on stderr:
 * platform_limits is what run_label.h labels LIMITS APPLIED. */
static int write_limits(h5out *w, const rb_limits *l, const rb_pinned_ceiling *pc)
{
    char line[512];
    if (pc) {
        if (rb_pinned_foreach(pc, put_kv, w) != 0)
            return -1;
        fprintf(stderr, "ringbench: pinned-memory ceiling: %s\n", rb_pinned_str(pc, line, sizeof line));
    }
    if (h5out_attr_str(w, RB_H5_PROVENANCE, RB_PROV_PLATFORM_LIMITS, l ? l->platform : "") != 0)
        return -1;
    if (!l)
        return 0;
    if (rb_limits_foreach(l, put_kv, w) != 0)
        return -1;
    fprintf(stderr, "ringbench: LIMITS APPLIED (%s): ctrl=managed unsupported; pinned ceiling %llu bytes (%s). "
                    "Not a %s run.\n", l->platform, (unsigned long long)l->pinned_ceiling, l->pinned_source, l->platform);
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

static void usage_run(FILE *f)
{
    fprintf(f,
        "usage: ringbench run [options]\n"
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
        "  --workers N         at most N threads verify and prepare messages of 256 KiB and more (0-8;\n"
        "                      0: the polling thread does it alone; default: one per spare CPU, up to 8)\n"
        "  --no-early-take     the kernel waits for in_tail before it takes any message (default: a\n"
        "                      lone message of up to 16 B is taken as soon as its sealed header and\n"
        "                      payload are in the input ring); for measuring what the early take saves\n"
        "  --no-leader-reply   such a lone message goes to a warp of the kernel's first block, behind two\n"
        "                      block barriers, instead of being answered by the polling thread itself\n"
        "                      (default: answered by the poller); for measuring what that saves\n"
        "  --no-early-replies  the host takes a reply only once out_tail (zero-copy) or its copy's\n"
        "                      completion (async) says it is there (default: a lone small reply is\n"
        "                      taken as soon as all of it verifies); for measuring what that saves\n"
        "  --shortcuts-busy    the early take applies to any whole small message (default: only to one\n"
        "                      the host posted alone onto an idle ring; taken early, the first message\n"
        "                      of a batch is split from the rest); for measuring what that rule saves\n"
        "  --stream-ops        async modes with pinned memory and a mapped or managed control block:\n"
        "                      an idle ring queues its whole round trip in stream order (stream memory\n"
        "                      operations, where `ringbench probe` says they work) instead of fetching\n"
        "                      each reply once the host sees out_tail (default: off, slower on the H100)\n"
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
        "  --platform-limits wsl2\n"
        "                      apply WSL2's documented limits to this machine (no concurrent managed access:\n"
        "                      ctrl=managed unsupported; a pinned-memory ceiling: modes whose rings need\n"
        "                      more unsupported at that size) and measure the rest. Labelled LIMITS APPLIED\n"
        "                      everywhere, never a WSL2 run; track refuses it\n"
        "  --pinned-ceiling BYTES  the ceiling --platform-limits applies (e.g. 1G; default: measured by the\n"
        "                      probe up to --pinned-max; none on the CPU backend)\n"
        "  --pinned-max BYTES  measure the pinned-memory ceiling up to BYTES first (default 8G when\n"
        "                      --platform-limits needs it) and record it in the provenance\n"
        "  --report            write the report next to the results file afterwards\n"
        "  --quiet             no progress on stderr\n"
        "Exit status: 0 every cell ok or recorded unsupported/invalid; 1 a failed cell, an error or an\n"
        "interrupt (the file keeps every completed cell, marked incomplete); 2 a usage error.\n");
}

static void default_output(char *buf, size_t n)
{
    char stamp[192];
    cli_run_stamp(stamp, sizeof stamp);
    /* Run from the source tree (a results/ folder here): results/runs/, which git ignores, so a
     * user's runs never land among the sources or the committed reference runs. */
    struct stat st;
    int have_dir = stat("results", &st) == 0 && S_ISDIR(st.st_mode);
    if (have_dir && mkdir("results/runs", 0777) != 0 && errno != EEXIST)
        have_dir = 0;
    snprintf(buf, n, "%s%s.h5", have_dir ? "results/runs/" : "", stamp);
}

static int cmd_run(int argc, char **argv)
{
    const char *preset_name = "default", *modes = "all", *sizes = NULL, *output = NULL, *backend = "auto";
    int device = 0, force = 0, quiet = 0, report = 0;
    uint32_t seed = 1;
    double timeout_s = 5, lifetime_s = 60, warmup_s = 3;
    const char *lifetime_source = "default", *cpu_list = NULL, *windows = NULL;
    int trials = 0, lock_clocks = 0, workers = -1;
    const char *inject = NULL, *platform = NULL;
    unsigned long long pinned_ceiling = 0, pinned_max = 0;
    cli_ring_switches sw = CLI_RING_SWITCHES_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_run(stdout);
            return EXIT_OK;
        } else if (cli_opt_value(argc, argv, &i, "--preset", NULL, &v)) {
            preset_name = v;
        } else if (cli_opt_value(argc, argv, &i, "--modes", NULL, &v)) {
            modes = v;
        } else if (cli_opt_value(argc, argv, &i, "--sizes", NULL, &v)) {
            sizes = v;
        } else if (cli_opt_value(argc, argv, &i, "--backend", NULL, &v)) {
            backend = v;
        } else if (cli_opt_value(argc, argv, &i, "--device", NULL, &v)) {
            device = (int)cli_parse_long("--device", v, 0, 1023);
        } else if (cli_opt_value(argc, argv, &i, "--seed", NULL, &v)) {
            seed = (uint32_t)cli_parse_long("--seed", v, 0, 0xFFFFFFFFL);
        } else if (cli_opt_value(argc, argv, &i, "--output", "-o", &v)) {
            output = v;
        } else if (cli_opt_value(argc, argv, &i, "--timeout", NULL, &v)) {
            timeout_s = cli_parse_seconds("--timeout", v);
        } else if (cli_opt_value(argc, argv, &i, "--max-lifetime", NULL, &v)) {
            lifetime_s = cli_parse_seconds("--max-lifetime", v);
            lifetime_source = "--max-lifetime";
        } else if (cli_opt_value(argc, argv, &i, "--trials", NULL, &v)) {
            trials = (int)cli_parse_long("--trials", v, 1, 1000);
        } else if (cli_opt_value(argc, argv, &i, "--window", NULL, &v)) {
            windows = v;
        } else if (cli_opt_value(argc, argv, &i, "--cpu", NULL, &v)) {
            cpu_list = v;
        } else if (cli_opt_value(argc, argv, &i, "--workers", NULL, &v)) {
            workers = (int)cli_parse_long("--workers", v, 0, RB_PLACE_MAX_WORKERS);
        } else if (cli_opt_value(argc, argv, &i, "--warmup", NULL, &v)) {
            warmup_s = strcmp(v, "0") == 0 ? 0 : cli_parse_seconds("--warmup", v);
        } else if (cli_opt_value(argc, argv, &i, "--inject-call-us", NULL, &v)) {
            inject = v;
        } else if (cli_opt_value(argc, argv, &i, "--platform-limits", NULL, &v)) {
            platform = v;
        } else if (cli_opt_value(argc, argv, &i, "--pinned-ceiling", NULL, &v)) {
            pinned_ceiling = cli_parse_bytes("--pinned-ceiling", v, 1, 1ull << 50);
        } else if (cli_opt_value(argc, argv, &i, "--pinned-max", NULL, &v)) {
            pinned_max = cli_parse_bytes("--pinned-max", v, RB_PINNED_STEP, 1ull << 50);
        } else if (cli_ring_switch(argv[i], &sw)) {
            /* --no-pin, --no-early-take, --no-leader-reply, --stream-ops: set in sw */
        } else if (strcmp(argv[i], "--lock-clocks") == 0) {
            lock_clocks = 1;
        } else if (strcmp(argv[i], "--force") == 0) {
            force = 1;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--report") == 0) {
            report = 1;
        } else {
            fprintf(stderr, "ringbench run: unknown option '%s' (see ringbench run --help)\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    rb_sweep_opts o;
    memset(&o, 0, sizeof o);
    char err[512];
    if (!(o.preset = rb_preset_find(preset_name))) {
        fprintf(stderr, "ringbench run: unknown preset '%s' (quick, default or full)\n", preset_name);
        return EXIT_USAGE;
    }
    if (!sizes)
        sizes = o.preset->sizes;
    if (rb_mode_set_parse(modes, &o.modes, err, sizeof err) != 0 || rb_sizes_parse(sizes, &o.sizes, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return EXIT_USAGE;
    }
    if (cli_backend_check("run", backend) != 0)
        return EXIT_USAGE;
    double inject_us[CC_KIND_COUNT] = {0};
    char inject_text[256] = "";
    if (inject && cc_inject_parse(inject, inject_us, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return EXIT_USAGE;
    }
    cc_inject_format(inject_us, inject_text, sizeof inject_text);
    rb_limits limits;
    memset(&limits, 0, sizeof limits);
    if (platform && rb_limits_parse(platform, &limits, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return EXIT_USAGE;
    }
    if (pinned_ceiling && !platform) {
        fprintf(stderr, "ringbench run: --pinned-ceiling is the ceiling --platform-limits applies: give both\n");
        return EXIT_USAGE;
    }
    if (!windows)
        windows = o.preset->windows;
    if (rb_windows_parse(windows, o.windows, sizeof o.windows / sizeof *o.windows, &o.nwindows, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return EXIT_USAGE;
    }
    /* The limits are read before the polling thread is pinned: pinning narrows the thread's own CPU
     * mask, which the affinity check would otherwise take for a taskset. */
    env_limits lim;
    env_limits_detect(NULL, &lim);
    if (rb_place_init(cpu_list, sw.pin, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return EXIT_USAGE;
    }
    if (workers >= 0)
        rb_place_limit_workers(workers); /* recorded as cpu_workers with the placement */
    o.trials = trials ? trials : o.preset->trials;
    o.warmup_timeout_s = warmup_s;
    o.device = device;
    o.seed = seed;
    o.timeout_s = timeout_s;
    /* On WSL2 a kernel longer than the Windows watchdog (TDR, 2 s on a display GPU) is killed: keep
     * below it unless the user chose. */
    wsl_info wsl;
    wsl_detect(NULL, NULL, NULL, &wsl);
    if (!strcmp(lifetime_source, "default") && wsl_kind_has_tdr(wsl.kind)) {
        lifetime_s = WSL_TDR_SAFE_LIFETIME_S;
        lifetime_source = "WSL2 default: below the Windows TDR watchdog (2 s)";
    }
    o.max_lifetime_s = lifetime_s;
    o.quiet = quiet;
    o.early_take = sw.early_take;
    o.leader_reply = sw.leader_reply;
    o.no_early_replies = !sw.early_replies;
    o.shortcuts_busy = sw.shortcuts_busy;
    o.stream_ops = sw.stream_ops;

    rb_caps caps;
    const char *notice;
    int brc = cli_backend_choose("run", backend, device, &caps, &o.backend, &notice);
    if (brc != 0)
        return brc;
    if (o.backend == RING_BACKEND_CUDA) {
        for (size_t i = 0; i < o.sizes.n; i++) {
            /* Two rings of up to 16 slots plus the baselines' buffers must fit comfortably. */
            uint64_t need = 4ull * 16 * ring_slot_stride(o.sizes.v[i]);
            if (need > caps.total_mem / 2) {
                char name[32];
                fprintf(stderr, "ringbench run: --sizes: %s is too large for %s (%.1f GiB)\n",
                        rb_size_name(o.sizes.v[i], name, sizeof name), caps.name, caps.total_mem / 1073741824.0);
                return EXIT_USAGE;
            }
        }
    }

    /* The pinned ceiling: measured when asked (--pinned-max) or when the limits need it and none was
     * given; on the CPU backend it does not apply. */
    rb_pinned_ceiling pc;
    memset(&pc, 0, sizeof pc);
    const int measure_pinned = pinned_max || (platform && !pinned_ceiling);
    if (measure_pinned) {
        if (o.backend == RING_BACKEND_CUDA)
            rb_probe_pinned(device, pinned_max, &pc);
        else
            snprintf(pc.note, sizeof pc.note, "not applicable: CPU reference backend");
    }
    if (platform && pinned_ceiling) {
        limits.pinned_ceiling = pinned_ceiling;
        snprintf(limits.pinned_source, sizeof limits.pinned_source, "--pinned-ceiling");
    } else if (platform && pc.measured) {
        limits.pinned_ceiling = pc.total; /* what the process can pin at once; a ring is several allocations */
        snprintf(limits.pinned_source, sizeof limits.pinned_source, "measured: total pinned up to %llu bytes%s",
                 pc.bound, pc.total_hit_bound ? " (the bound: the real ceiling is higher)" : "");
    } else if (platform) {
        snprintf(limits.pinned_source, sizeof limits.pinned_source, "none applied: %s",
                 pc.note[0] ? pc.note : "not measured");
    }
    o.limits = platform ? &limits : NULL;

    char path[1024], cmdline[2048] = "";
    if (output)
        snprintf(path, sizeof path, "%s", output);
    else
        default_output(path, sizeof path);
    for (int i = 0; i < argc + 1 && strlen(cmdline) < sizeof cmdline - 64; i++) {
        const char *a = i == 0 ? "ringbench" : argv[i - 1];
        strncat(cmdline, a, sizeof cmdline - strlen(cmdline) - 2);
        strcat(cmdline, " ");
    }
    h5out *w = NULL;
    if (h5out_open(path, force, &w, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        return EXIT_USAGE;
    }
    /* Said once the arguments and the output file are known to be good, so that a usage error stays
     * one line. */
    if (o.backend == RING_BACKEND_CPU && strcmp(backend, "cpu") == 0)
        fprintf(stderr, "ringbench: CPU REFERENCE BACKEND (--backend cpu): a host thread plays the kernel; "
                        "these are not GPU measurements\n");
    else if (o.backend == RING_BACKEND_CPU)
        fprintf(stderr,
                "ringbench: NOTICE: no usable CUDA device (%s).\n"
                "ringbench: NOTICE: running the CPU REFERENCE BACKEND: a host thread plays the kernel. Its numbers\n"
                "ringbench: NOTICE: exercise the protocol, the sweep and the results file; they are NOT GPU measurements.\n",
                caps.cuda_error);
    env_info env;
    env_detect(NULL, &env);
    /* taskset, nice and container limits distort every number of the run: said before it starts, and
     * recorded with the provenance so that a report can say it too. */
    for (int i = 0; i < lim.nwarnings; i++) {
        /* Too few CPUs is said once, by the placement (write_placement), which also knows --cpu;
         * the limits keep the sentence in the provenance. */
        if (i == lim.cpu_warning)
            continue;
        fprintf(stderr, "ringbench: WARNING: %s\n", lim.warnings[i]);
    }
    run_meta meta = {cmdline, o.preset->name, modes, sizes, notice, o.backend, seed};
    if (write_header(w, &env, &caps, &meta) != 0 || env_limits_foreach(&lim, put_env, w) != 0) {
        fprintf(stderr, "ringbench run: writing %s: %s\n", path, h5out_error(w));
        h5out_close(w, 0, "write error", err, sizeof err);
        return EXIT_FAIL;
    }
    if (h5out_attr_f64(w, RB_H5_PROVENANCE, "max_lifetime_s", lifetime_s) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "max_lifetime_source", lifetime_source) != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "early_take", sw.early_take ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "leader_reply", sw.leader_reply ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "stream_ops", sw.stream_ops ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "early_replies", sw.early_replies ? "on" : "off") != 0 ||
        h5out_attr_str(w, RB_H5_PROVENANCE, "early_take_of", sw.shortcuts_busy ? "any message" : "lone messages") != 0) {
        fprintf(stderr, "ringbench run: writing %s: %s\n", path, h5out_error(w));
        h5out_close(w, 0, "write error", err, sizeof err);
        return EXIT_FAIL;
    }
    if (write_injection(w, inject_us, inject_text) != 0 || write_limits(w, platform ? &limits : NULL, measure_pinned ? &pc : NULL) != 0) {
        fprintf(stderr, "ringbench run: writing %s: %s\n", path, h5out_error(w));
        h5out_close(w, 0, "write error", err, sizeof err);
        return EXIT_FAIL;
    }
    if (env.is_wsl2 && !quiet)
        fprintf(stderr, "ringbench: WSL2 detected (%s)\n", env.wsl2_evidence);
    if (!quiet && wsl_kind_has_tdr(wsl.kind))
        fprintf(stderr, "ringbench: %s: --max-lifetime %.3g s (%s)\n", wsl_kind_name(wsl.kind), lifetime_s,
                lifetime_source);

    if (write_placement(w, quiet) != 0 || open_clocks(w, &o, &caps, lock_clocks) != 0) {
        fprintf(stderr, "ringbench run: writing %s: %s\n", path, h5out_error(w));
        env_clocks_close(o.clocks);
        h5out_close(w, 0, "write error", err, sizeof err);
        return EXIT_FAIL;
    }

    cli_install_signals();
    rb_sweep_result res;
    int rc = rb_sweep_run(&o, &caps, w, &cli_stop, &res, err, sizeof err);
    env_clocks_close(o.clocks); /* restores locked clocks */
    if (h5out_attr_i64(w, RB_H5_PROVENANCE, "trials", o.trials) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "warmup_s", res.warmup_s) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "warmup_sm_mhz", res.warmup_sm_mhz) != 0 ||
        h5out_attr_f64(w, RB_H5_PROVENANCE, "warmup_target_sm_mhz", res.warmup_target_mhz) != 0)
        fprintf(stderr, "ringbench run: writing %s: %s\n", path, h5out_error(w));
    char end[64];
    utc_now(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ");
    h5out_attr_str(w, RB_H5_PROVENANCE, "end_utc", end);
    if (caps.cuda_usable)
        put_nvml(w, &caps, "end");
    const char *why = rc == 1 ? (cli_signal == SIGTERM ? "SIGTERM" : "SIGINT") : rc < 0 ? "error" : "";
    char cerr[512];
    if (h5out_close(w, rc == 0, why, cerr, sizeof cerr) != 0) {
        fprintf(stderr, "ringbench run: %s\n", cerr);
        rb_sweep_result_free(&res);
        return EXIT_FAIL;
    }
    char label[512]; /* an injected or limits-applied run says so above its figures too */
    rb_run_label(inject_text, platform ? limits.platform : "", label, sizeof label);
    if (label[0])
        printf("\n%s: the figures below are not this machine as it is\n", label);
    rb_sweep_summary(&res, stdout);
    int code = EXIT_OK;
    if (rc < 0) {
        fprintf(stderr, "ringbench run: %s\n", err);
        code = EXIT_FAIL;
    } else if (rc == 1) {
        fprintf(stderr, "ringbench run: interrupted by %s: %zu rows kept in %s, marked incomplete\n", why, res.nrows, path);
        code = EXIT_FAIL;
    } else if (res.failed) {
        fprintf(stderr, "ringbench run: %zu rows FAILED (see their reason column)\n", res.failed);
        code = EXIT_FAIL;
    }
    printf("results: %s\n", path);
    rb_sweep_result_free(&res);
    if (report && rc != -1) {
        char *rargv[] = {"report", path, NULL};
        int r = report_cmd(2, rargv);
        if (r != 0 && code == EXIT_OK)
            code = EXIT_FAIL;
    }
    return code;
}

/* --- probe -------------------------------------------------------------------------------------- */

static int print_kv(void *ctx, const char *key, const char *value)
{
    (void)ctx;
    printf("  %-32s %s\n", key, value);
    return 0;
}

static int print_cap(void *ctx, const char *key, const char *value, const char *error)
{
    (void)ctx;
    printf("  %-32s %s", key, value);
    if (error && *error)
        printf("   (%s)", error);
    printf("\n");
    return 0;
}

/* The per-call costs (the call_* baselines every run records), each with its median's 95% CI: the
 * numbers that differ most between native Linux and WSL2. */
static void print_call_costs(const rb_caps *caps, int device)
{
    printf("CUDA call costs (median [95%% CI] of one call, %d-byte copies):\n", RB_CALL_BYTES);
    if (!caps->cuda_usable) {
        printf("  unsupported: no usable CUDA device (%s)\n", caps->cuda_error);
        return;
    }
    const rb_policy pol = {.warmup = 200,
                           .rule = {.min_samples = 500, .min_seconds = 0.05, .max_seconds = 1.0,
                                    .max_samples = 200000, .rel_ci_width = 0.01}};
    for (int c = 0; c < RB_CALL_COUNT; c++) {
        rb_samples smp;
        char err[256] = "";
        stats_summary sum;
        int rc = rb_base_call(RING_BACKEND_CUDA, device, (rb_call_base)c, &pol, &smp, err, sizeof err, &cli_stop);
        if (rc == RB_BASE_OK && stats_summarize(smp.us, smp.n, &sum) == 0)
            printf("  %-32s %8.3f us [%.3f, %.3f]  n=%zu\n", rb_call_base_family((rb_call_base)c), sum.p50, sum.ci_lo,
                   sum.ci_hi, sum.n);
        else
            printf("  %-32s %s: %s\n", rb_call_base_family((rb_call_base)c),
                   rc == RB_BASE_UNSUPPORTED ? "unsupported" : "failed", err);
        rb_samples_free(&smp);
    }
}

static int cmd_probe(int argc, char **argv)
{
    int device = 0, force = 0;
    unsigned long long pinned_max = RB_PINNED_DEFAULT_MAX;
    const char *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: ringbench probe [--device N] [--pinned-max BYTES] [-o FILE.h5 [--force]]\n"
                   "Print what this machine is (native Linux or WSL2, virtualisation, CPU, kernel) and what the\n"
                   "CUDA platform allows (pinned, mapped and managed allocation, concurrent managed access,\n"
                   "cooperative launch...), with the CUDA error behind every 'no', what each CUDA call costs,\n"
                   "and the pinned-memory ceiling: the largest single cudaHostAlloc and the total that\n"
                   "succeeds, up to --pinned-max (default 8G; each allocation freed right after; not\n"
                   "applicable without CUDA). -o also saves it as a results file holding only provenance and\n"
                   "capabilities.\n");
            return EXIT_OK;
        } else if (cli_opt_value(argc, argv, &i, "--pinned-max", NULL, &v)) {
            pinned_max = cli_parse_bytes("--pinned-max", v, RB_PINNED_STEP, 1ull << 50);
        } else if (cli_opt_value(argc, argv, &i, "--device", NULL, &v)) {
            device = (int)cli_parse_long("--device", v, 0, 1023);
        } else if (cli_opt_value(argc, argv, &i, "--output", "-o", &v)) {
            output = v;
        } else if (strcmp(argv[i], "--force") == 0) {
            force = 1;
        } else {
            fprintf(stderr, "ringbench probe: unknown option '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    env_info env;
    env_detect(NULL, &env);
    rb_caps caps;
    rb_probe(device, &caps);
    env_limits lim;
    env_limits_detect(NULL, &lim);
    printf("environment:\n");
    env_foreach(&env, print_kv, NULL);
    env_limits_foreach(&lim, print_kv, NULL);
    wsl_info wsl;
    wsl_detect(NULL, NULL, NULL, &wsl);
    wsl_foreach(&wsl, print_kv, NULL);
    printf("capabilities (device %d):\n", device);
    rb_caps_foreach(&caps, print_cap, NULL);
    env_nvml nv;
    env_nvml_query(caps.pci_bus_id, &nv);
    if (nv.available)
        printf("nvml:\n  sm clock %d MHz, memory clock %d MHz, PCIe gen %d x%d (max gen %d x%d), driver %s\n",
               nv.sm_clock_mhz, nv.mem_clock_mhz, nv.pcie_gen, nv.pcie_width, nv.pcie_gen_max, nv.pcie_width_max,
               nv.driver_version);
    else
        printf("nvml: not available: %s\n", nv.reason);
    print_call_costs(&caps, device);
    rb_pinned_ceiling pc;
    char pline[512];
    if (caps.cuda_usable)
        rb_probe_pinned(device, pinned_max, &pc);
    else {
        memset(&pc, 0, sizeof pc);
        pc.bound = pinned_max;
        snprintf(pc.note, sizeof pc.note, "not applicable: no usable CUDA device (CPU backend)");
    }
    printf("pinned-memory ceiling (up to %llu bytes):\n  %s\n", pc.bound, rb_pinned_str(&pc, pline, sizeof pline));
    printf("modes this platform can run:\n");
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        rb_mode m = rb_mode_at(i);
        char label[64], why[256];
        const char *reason = rb_mode_invalid_reason(&m);
        const char *status = reason ? "invalid" : "ok";
        if (!reason && (reason = rb_caps_unsupported_reason(&caps, &m, why, sizeof why)))
            status = "unsupported";
        printf("  %-30s %-11s %s\n", rb_mode_label(&m, label, sizeof label), status, reason ? reason : "");
    }
    if (output) {
        char err[512];
        h5out *w;
        if (h5out_open(output, force, &w, err, sizeof err) != 0) {
            fprintf(stderr, "ringbench probe: %s\n", err);
            return EXIT_USAGE;
        }
        run_meta meta = {"ringbench probe", "", "", "", "", RING_BACKEND_CUDA, 0};
        int bad = write_header(w, &env, &caps, &meta) != 0 || rb_pinned_foreach(&pc, put_kv, w) != 0;
        if (h5out_close(w, !bad, bad ? "write error" : "", err, sizeof err) != 0 || bad) {
            fprintf(stderr, "ringbench probe: writing %s failed: %s\n", output, err);
            return EXIT_FAIL;
        }
        printf("saved: %s\n", output);
    }
    return EXIT_OK;
}

/* --- list --------------------------------------------------------------------------------------- */

static int cmd_list(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    int all = strcmp(what, "all") == 0, shown = 0;
    if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
        printf("usage: ringbench list [modes|presets|sizes|families|all]\n");
        return EXIT_OK;
    }
    if (all || strcmp(what, "modes") == 0) {
        shown = 1;
        printf("Mode axes (--modes AXIS=V1|V2,...):\n");
        for (int a = 0; a < RB_AXIS_COUNT; a++)
            for (size_t v = 0; v < rb_axis_size((rb_axis)a); v++)
                printf("  %-7s %-9s %s\n", rb_axis_name((rb_axis)a), rb_axis_value((rb_axis)a, (int)v),
                       rb_axis_doc((rb_axis)a, (int)v));
        printf("Combinations (%d):\n", RB_MODE_COUNT);
        for (size_t i = 0; i < RB_MODE_COUNT; i++) {
            rb_mode m = rb_mode_at(i);
            char label[64];
            const char *why = rb_mode_invalid_reason(&m);
            printf("  %-30s %s%s\n", rb_mode_label(&m, label, sizeof label), why ? "invalid: " : "valid", why ? why : "");
        }
    }
    if (all || strcmp(what, "presets") == 0) {
        shown = 1;
        printf("Presets (--preset):\n");
        for (size_t i = 0; i < rb_preset_count(); i++) {
            const rb_preset *p = rb_preset_at(i);
            printf("  %-8s sizes %-12s latency: >= %zu samples and %.2g s, at most %.2g s per cell, CI of the median "
                   "within %.0f%%; throughput: %d x %.2g s\n           %s\n",
                   p->name, p->sizes, p->latency.rule.min_samples, p->latency.rule.min_seconds,
                   p->latency.rule.max_seconds, p->latency.rule.rel_ci_width * 100, p->tput_reps, p->tput_rep_seconds,
                   p->doc);
        }
    }
    if (all || strcmp(what, "sizes") == 0) {
        shown = 1;
        printf("Sizes (--sizes): comma-separated sizes (8, 4K, 16M) and ranges: LO..HI = every power of two\n"
               "between, LO..HI:xF = LO, LO*F, ... up to HI. Multiples of 4 from 4 B to 1 GiB.\n");
        for (size_t i = 0; i < rb_preset_count(); i++) {
            rb_sizes s;
            char err[128], name[32];
            rb_sizes_parse(rb_preset_at(i)->sizes, &s, err, sizeof err);
            printf("  %-8s", rb_preset_at(i)->name);
            for (size_t k = 0; k < s.n; k++)
                printf(" %s%s", rb_size_name(s.v[k], name, sizeof name), k + 1 < s.n ? "," : "\n");
        }
    }
    if (all || strcmp(what, "families") == 0) {
        shown = 1;
        printf("Metric families (results file column 'family'):\n");
        for (int f = 0; f < RB_FAM_COUNT; f++)
            printf("  %-20s %-5s %s\n", rb_family_name((rb_family)f), rb_family_unit((rb_family)f),
                   rb_family_doc((rb_family)f));
    }
    if (!shown) {
        fprintf(stderr, "ringbench list: unknown topic '%s' (modes, presets, sizes, families, all)\n", what);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* --- main --------------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: ringbench COMMAND [options]    (ringbench COMMAND --help for each)\n"
        "What a GPU ring-kernel system costs, mode by mode: native Linux fast paths versus the WSL2 fallbacks.\n\n"
        "commands:\n"
        "  run       measure every selected mode x message size, write an HDF5 results file\n"
        "  probe     print the environment (native/WSL2, virtualisation) and CUDA capabilities\n"
        "  list      list modes, presets, sizes and metric families\n"
        "  report    turn a results file into plots and report.md\n"
        "  compare   compare two results files (e.g. native Linux vs WSL2), with confidence intervals\n"
        "  track     add a run to a history, flag regressions against the same machine's earlier runs\n"
        "  export    write a results file as Bencher Metric Format JSON, CSV or JSON\n"
        "  anatomy   where one round trip's time goes: host and kernel stamps of one mode at one size\n"
        "  sensitivity  the fallback and the native paths against an injected per-call cost (run, report)\n"
        "options: --help, --version\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "ringbench: a command is needed: run, probe, list, report, compare, track, export, anatomy or sensitivity (see ringbench --help)\n");
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("ringbench %s (git %s, dirty %s, commit from %s, protocol %d, results schema %d, %s)\n",
               RINGBENCH_VERSION, RINGBENCH_GIT_COMMIT, RINGBENCH_GIT_DIRTY, RINGBENCH_GIT_COMMIT_SOURCE,
               RING_PROTOCOL_VERSION, RB_SCHEMA_VERSION,
#ifdef RINGBENCH_HAVE_CUDA
               "CUDA backend built in"
#else
               "CPU reference backend only"
#endif
        );
        return EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "probe") == 0)
        return cmd_probe(argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return report_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return compare_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "track") == 0)
        return track_cmd_track(argc - 1, argv + 1);
    if (strcmp(cmd, "export") == 0)
        return track_cmd_export(argc - 1, argv + 1);
    if (strcmp(cmd, "anatomy") == 0)
        return anatomy_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "sensitivity") == 0)
        return sensitivity_cmd(argc - 1, argv + 1);
    fprintf(stderr, "ringbench: unknown command '%s' (see ringbench --help)\n", cmd);
    return EXIT_USAGE;
}
