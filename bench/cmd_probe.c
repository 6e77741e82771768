/* cmd_probe.c - `ringbench probe`: what this machine is (native Linux or WSL2, virtualisation, CPU,
 * kernel) and what its CUDA platform allows, with the error behind every 'no', the cost of each CUDA
 * call, the pinned-memory ceiling and the modes it can run; -o saves it as a results file holding
 * only provenance and capabilities. Exercised by tests/cli_test.sh (and, on a GPU, by `make wsl2`).
 */
#include <stdio.h>
#include <string.h>

#include "baselines.h"
#include "cli.h"
#include "commands.h"
#include "env.h"
#include "h5out.h"
#include "probe.h"
#include "run_header.h"
#include "sweep.h"
#include "wsl.h"

typedef struct probe_args {
    int device, force;
    unsigned long long pinned_max;
    const char *output;
} probe_args;

static void usage_probe(FILE *f)
{
    fprintf(f, "usage: ringbench probe [--device N] [--pinned-max BYTES] [-o|--output FILE.h5 [--force]]\n"
               "Print what this machine is (native Linux or WSL2, virtualisation, CPU, kernel) and what the\n"
               "CUDA platform allows (pinned, mapped and managed allocation, concurrent managed access,\n"
               "cooperative launch...), with the CUDA error behind every 'no', what each CUDA call costs,\n"
               "and the pinned-memory ceiling: the largest single cudaHostAlloc and the total that\n"
               "succeeds, up to --pinned-max (default 8G; each allocation freed right after; not\n"
               "applicable without CUDA). -o also saves it as a results file holding only provenance and\n"
               "capabilities.\n");
}

enum { OPT_DEVICE = CLI_OPT_LONG, OPT_PINNED_MAX, OPT_FORCE };

static const struct option probe_opts[] = {CLI_OPT_HELP,
                                           {"output", required_argument, NULL, 'o'},
                                           {"device", required_argument, NULL, OPT_DEVICE},
                                           {"pinned-max", required_argument, NULL, OPT_PINNED_MAX},
                                           {"force", no_argument, NULL, OPT_FORCE},
                                           {NULL, 0, NULL, 0}};

/* The command line into *a. Returns -1 to go on, else the exit status (0 after --help). */
static int probe_parse(int argc, char **argv, probe_args *a)
{
    *a = (probe_args){.pinned_max = RB_PINNED_DEFAULT_MAX};
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("probe", argc, argv, ":ho:", probe_opts)) != -1) {
        switch (c) {
        case 'h': usage_probe(stdout); return CLI_EXIT_OK;
        case 'o': a->output = optarg; break;
        case OPT_DEVICE: a->device = (int)cli_parse_long("--device", optarg, 0, 1023); break;
        case OPT_PINNED_MAX: a->pinned_max = cli_parse_bytes("--pinned-max", optarg, RB_PINNED_STEP, 1ull << 50); break;
        case OPT_FORCE: a->force = 1; break;
        default: return CLI_EXIT_USAGE;
        }
    }
    return cli_no_operands("probe", argc, argv) ? CLI_EXIT_USAGE : -1;
}

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
static void print_call_costs(const probe_caps *caps, int device)
{
    printf("CUDA call costs (median [95%% CI] of one call, %d-byte copies):\n", RB_CALL_BYTES);
    if (!caps->cuda_usable) {
        printf("  unsupported: no usable CUDA device (%s)\n", caps->cuda_error);
        return;
    }
    const measure_policy pol = {
        .warmup = 200,
        .rule = {
            .min_samples = 500, .min_seconds = 0.05, .max_seconds = 1.0, .max_samples = 200000, .rel_ci_width = 0.01}};
    for (int c = 0; c < RB_CALL_COUNT; c++) {
        measure_samples smp;
        char err[256] = "";
        stats_summary sum;
        int rc =
            baselines_call(RING_BACKEND_CUDA, device, (baselines_call_kind)c, &pol, &smp, err, sizeof err, &cli_stop);
        if (rc == RB_BASE_OK && stats_summarize(smp.us, smp.n, &sum) == 0)
            printf("  %-32s %8.3f us [%.3f, %.3f]  n=%zu\n", baselines_call_family((baselines_call_kind)c), sum.p50,
                   sum.ci_lo, sum.ci_hi, sum.n);
        else
            printf("  %-32s %s: %s\n", baselines_call_family((baselines_call_kind)c),
                   rc == RB_BASE_UNSUPPORTED ? "unsupported" : "failed", err);
        measure_samples_free(&smp);
    }
}

static void print_environment(const env_info *env, const probe_caps *caps, int device)
{
    env_limits lim;
    env_limits_detect(NULL, &lim);
    printf("environment:\n");
    env_foreach(env, print_kv, NULL);
    env_limits_foreach(&lim, print_kv, NULL);
    wsl_info wsl;
    wsl_detect(NULL, NULL, NULL, &wsl);
    wsl_foreach(&wsl, print_kv, NULL);
    printf("capabilities (device %d):\n", device);
    probe_caps_foreach(caps, print_cap, NULL);
    env_nvml nv;
    env_nvml_query(caps->pci_bus_id, &nv);
    if (nv.available)
        printf("nvml:\n  sm clock %d MHz, memory clock %d MHz, PCIe gen %d x%d (max gen %d x%d), driver %s\n",
               nv.sm_clock_mhz, nv.mem_clock_mhz, nv.pcie_gen, nv.pcie_width, nv.pcie_gen_max, nv.pcie_width_max,
               nv.driver_version);
    else
        printf("nvml: not available: %s\n", nv.reason);
}

/* The pinned-memory ceiling into *pc, printed; not applicable without CUDA. */
static void print_pinned(const probe_caps *caps, const probe_args *a, probe_pinned_ceiling *pc)
{
    char pline[512];
    if (caps->cuda_usable)
        probe_pinned(a->device, a->pinned_max, pc);
    else {
        memset(pc, 0, sizeof *pc);
        pc->bound = a->pinned_max;
        snprintf(pc->note, sizeof pc->note, "not applicable: no usable CUDA device (CPU backend)");
    }
    printf("pinned-memory ceiling (up to %llu bytes):\n  %s\n", pc->bound, probe_pinned_str(pc, pline, sizeof pline));
}

static void print_modes(const probe_caps *caps)
{
    printf("modes this platform can run:\n");
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        char label[64], why[256];
        const char *reason = mode_invalid_reason(&m);
        const char *status = reason ? "invalid" : "ok";
        if (!reason && (reason = probe_caps_unsupported_reason(caps, &m, why, sizeof why)))
            status = "unsupported";
        printf("  %-30s %-11s %s\n", mode_label(&m, label, sizeof label), status, reason ? reason : "");
    }
}

/* -o: the probe as a results file of provenance and capabilities only. Returns the exit status. */
static int probe_save(const probe_args *a, const env_info *env, const probe_caps *caps, const probe_pinned_ceiling *pc)
{
    char err[512];
    h5out *w;
    if (h5out_open(a->output, a->force, &w, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench probe: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    run_meta meta = {"ringbench probe", "", "", "", "", RING_BACKEND_CUDA, 0};
    int bad = run_header_write(w, env, caps, &meta) != 0 || probe_pinned_foreach(pc, run_header_put, w) != 0;
    if (h5out_close(w, !bad, bad ? "write error" : "", err, sizeof err) != 0 || bad) {
        fprintf(stderr, "ringbench probe: writing %s failed: %s\n", a->output, err);
        return CLI_EXIT_FAIL;
    }
    printf("saved: %s\n", a->output);
    return CLI_EXIT_OK;
}

int cmd_probe(int argc, char **argv)
{
    probe_args a;
    int rc = probe_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    env_info env;
    env_detect(NULL, &env);
    probe_caps caps;
    probe_run(a.device, &caps);
    print_environment(&env, &caps, a.device);
    print_call_costs(&caps, a.device);
    probe_pinned_ceiling pc;
    print_pinned(&caps, &a, &pc);
    print_modes(&caps);
    return a.output ? probe_save(&a, &env, &caps, &pc) : CLI_EXIT_OK;
}
