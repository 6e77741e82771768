/* make_night.c - one synthetic nightly run of a quiet machine, for the terminal output, the history page
 * and the exit status of `ringbench track` end to end (tests/track_cli.sh nightly). Not committed data:
 * made when the test runs.
 *
 *   make_night FILE NIGHT [ASYNC_8B [NOISE]]
 *
 * The run is night NIGHT (1-28) of machine "synthetic-nightly": started 2027-03-NIGHT 02:30 UTC, its
 * commit changing on night 10 (an environment change the page marks). It holds what a nightly judges:
 * the machine references (the floor, a launch, pinned memcpy both ways at 8 B, 4 KiB and 4 MiB, the four
 * cudaMemcpy call costs), and for seven modes (the claim's native path, three more native modes, two
 * with a device control block, the WSL2 fallback) the round trip at 8 B, 4 KiB and 4 MiB, throughput at
 * 8 B and 4 MiB at windows 1 and 64 and at 8 B the full window (4096), the control-block read, write and
 * handshake and host_ref, and for the native zero-copy modes the full window measured again in fresh
 * processes (throughput_procs, run --window-procs, as `make nightly` runs). Each figure is 5 trials drawn around a
 * fixed median with NOISE (default 0.01) of lognormal spread per trial, seeded by the night and the cell: a quiet
 * machine. ASYNC_8B (default 1) multiplies the 8 B round trip of every mode with pinned memory and async copies, as
 * `run --no-early-take` slows the async path's round trips. Exit status 0, or 1 with a message.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bimodal.h"
#include "h5out.h"

#define TRIALS 5

static const char *const modes[][4] = {
    {"pinned", "async", "coop", "mapped"},        /* the claim's native path */
    {"pinned", "async", "noncoop", "managed"},    /* native */
    {"pinned", "zerocopy", "coop", "mapped"},     /* native: the fastest round trip */
    {"pinned", "zerocopy", "noncoop", "managed"}, /* native */
    {"pinned", "sync", "coop", "device"},         /* a device control block */
    {"pinned", "zerocopy", "noncoop", "device"},  /* a device control block */
    {"malloc", "sync", "noncoop", "device"},      /* the WSL2 fallback */
};
#define NMODES (sizeof modes / sizeof *modes)
static const char *const none[4] = {"-", "-", "-", "-"};

static double g_noise = 0.01;

/* A deterministic uniform draw in (0, 1) from a state. */
static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal draw (Box-Muller). */
static double normal(uint64_t *s)
{
    const double u = uniform(s), v = uniform(s);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* The seed of a cell on a night: the night and a hash of the cell's fields. */
static uint64_t cell_seed(int night, const char *family, const char *const mode[4], uint64_t size, uint64_t window)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)night * 0x9E3779B97F4A7C15ull;
    const char *parts[5] = {family, mode[0], mode[1], mode[2], mode[3]};
    for (int p = 0; p < 5; p++)
        for (const char *c = parts[p]; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h ^ (size * 31 + window) * 0xBF58476D1CE4E5B9ull;
}

static void set(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s); }

/* An ok row of family and mode at size and window whose TRIALS trial medians are drawn around median. */
static int add(h5out *w, int night, const char *family, const char *const mode[4], uint64_t size, uint64_t window,
               const char *unit, double median)
{
    rb_row r;
    memset(&r, 0, sizeof r);
    bimodal_row_clear(&r);
    rb_row_calls_clear(&r);
    set(r.backend, sizeof r.backend, "cuda");
    set(r.family, sizeof r.family, family);
    set(r.host_mem, sizeof r.host_mem, mode[0]);
    set(r.xfer, sizeof r.xfer, mode[1]);
    set(r.launch, sizeof r.launch, mode[2]);
    set(r.ctrl, sizeof r.ctrl, mode[3]);
    set(r.status, sizeof r.status, RB_STATUS_OK);
    set(r.unit, sizeof r.unit, unit);
    set(r.stop_rule, sizeof r.stop_rule, "fixed");
    set(r.ci_method, sizeof r.ci_method, RB_CI_TRIALS);
    r.size_bytes = size;
    r.window = window;
    r.trials = TRIALS;
    r.n = 1000;
    uint64_t s = cell_seed(night, family, mode, size, window);
    double t[TRIALS], sum = 0, sq = 0;
    for (int k = 0; k < TRIALS; k++) {
        t[k] = median * exp(g_noise * normal(&s));
        for (int j = k; j > 0 && t[j] < t[j - 1]; j--) {
            const double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    }
    for (int k = 0; k < TRIALS; k++) {
        sum += log(t[k]);
        sq += log(t[k]) * log(t[k]);
    }
    const double sd = sqrt(fmax(0, (sq - sum * sum / TRIALS) / (TRIALS - 1)));
    r.p50 = r.mean = t[TRIALS / 2];
    r.min = r.trial_p50_min = t[0];
    r.max = r.p90 = r.p99 = r.p999 = r.trial_p50_max = t[TRIALS - 1];
    r.ci_lo = r.p50 * exp(-2.776 * sd / sqrt(TRIALS)); /* t(4): a trial-level interval of 5 trials */
    r.ci_hi = r.p50 * exp(2.776 * sd / sqrt(TRIALS));
    r.trial_cv = sd;
    r.stddev = sd * r.p50;
    r.msgs_per_s = strcmp(unit, "GB/s") == 0 ? r.p50 * 1e9 / (double)size : NAN;
    r.ratio_floor = r.ratio_memcpy = NAN;
    return h5out_append(w, &r, NULL, 0);
}

static void provenance(h5out *w, int night)
{
    char when[32], commit[48];
    snprintf(when, sizeof when, "2027-03-%02dT02:30:00Z", night);
    snprintf(commit, sizeof commit, "%s", night < 10 ? "synthetic-a" : "synthetic-b");
    const char *kv[][2] = {{"hostname", "synthetic-nightly"},
                           {"backend", "cuda"},
                           {"gpu_name", "NVIDIA H100 80GB HBM3"},
                           {"pci_bus_id", "0000:00:06.0"},
                           {"wsl2", "0"},
                           {"kernel_release", "6.1.0"},
                           {"suite_version", "0.1.0"},
                           {"git_commit", commit},
                           {"nvml_driver_version", "580.95"},
                           {"start_utc", when},
                           {"runtime_version", "13000"},
                           {"preset", "default"},
                           {"trials", "5"}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        h5out_attr_str(w, RB_H5_PROVENANCE, kv[i][0], kv[i][1]);
}

/* The machine references: floor, launch, pinned memcpy both ways, the four cudaMemcpy call costs. */
static int references(h5out *w, int night)
{
    static const char *const calls[] = {"call_memcpy_h2d_pinned", "call_memcpy_d2h_pinned", "call_memcpy_h2d_pageable",
                                        "call_memcpy_d2h_pageable"};
    static const uint64_t sizes[] = {8, 4096, 4194304};
    int rc = add(w, night, "base_floor", none, 4, 1, "us", 1.9) | add(w, night, "base_launch", none, 8, 1, "us", 9.0);
    for (size_t k = 0; k < 3; k++) {
        const double gbs = sizes[k] < 4096 ? 0.002 : sizes[k] < 4194304 ? 0.9 : 48.0;
        rc |= add(w, night, "memcpy_h2d_pinned", none, sizes[k], 1, "GB/s", gbs);
        rc |= add(w, night, "memcpy_d2h_pinned", none, sizes[k], 1, "GB/s", gbs * 1.04);
    }
    for (int k = 0; k < 4; k++)
        rc |= add(w, night, calls[k], none, 64, 1, "us", 6.0 + k);
    return rc;
}

/* One mode's ring cells; f8 multiplies its 8 B round trip. */
static int ring(h5out *w, int night, size_t m, double f8)
{
    const char *const *mode = modes[m];
    const int fallback = strcmp(mode[3], "device") == 0, zc = strcmp(mode[1], "zerocopy") == 0;
    const double base = zc ? 2.4 : fallback ? 27.0 : 11.7, rate = fallback ? 3.5 : zc ? 30.0 : 45.0;
    int rc = add(w, night, "latency", mode, 8, 1, "us", base * f8);
    rc |= add(w, night, "latency", mode, 4096, 1, "us", base * 1.8);
    rc |= add(w, night, "latency", mode, 4194304, 1, "us", fallback ? 1150.0 : 256.0);
    rc |= add(w, night, "throughput", mode, 8, 1, "GB/s", 8e-9 / (base * 1e-6) * 1e0);
    rc |= add(w, night, "throughput", mode, 8, 64, "GB/s", 0.2 * (zc ? 2 : 1));
    rc |= add(w, night, "throughput", mode, 8, 4096, "GB/s", zc ? 0.78 : 0.17);
    rc |= add(w, night, "throughput", mode, 4194304, 1, "GB/s", rate * 0.6);
    rc |= add(w, night, "throughput", mode, 4194304, 64, "GB/s", rate);
    rc |= add(w, night, "cb_read", mode, 0, 0, "us", fallback ? 8.9 : 0.0125);
    rc |= add(w, night, "cb_write", mode, 0, 0, "us", fallback ? 6.0 : 0.0040);
    rc |= add(w, night, "cb_handshake", mode, 0, 0, "us", fallback ? 13.0 : 2.0);
    if (!fallback)
        rc |= add(w, night, "host_ref", mode, 0, 0, "us", 0.0065);
    if (zc && !fallback) /* the full window again in fresh processes (run --window-procs), as make nightly runs it */
        rc |= add(w, night, "throughput_procs", mode, 8, 4096, "GB/s", 0.80);
    return rc;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 3) {
        fprintf(stderr, "usage: make_night FILE NIGHT [ASYNC_8B [NOISE]]\n");
        return 2;
    }
    const int night = atoi(argv[2]);
    const double async8 = argc > 3 ? strtod(argv[3], NULL) : 1.0;
    g_noise = argc > 4 ? strtod(argv[4], NULL) : 0.01;
    h5out *w = NULL;
    if (night < 1 || night > 28 || !(async8 > 0) || !(g_noise >= 0)) {
        fprintf(stderr, "make_night: NIGHT 1-28, ASYNC_8B > 0, NOISE >= 0\n");
        return 2;
    }
    if (h5out_open(argv[1], 1, &w, err, sizeof err) != 0) {
        fprintf(stderr, "make_night: %s\n", err);
        return 1;
    }
    provenance(w, night);
    int rc = references(w, night);
    for (size_t m = 0; m < NMODES; m++)
        rc |= ring(w, night, m, strcmp(modes[m][0], "pinned") == 0 && strcmp(modes[m][1], "async") == 0 ? async8 : 1.0);
    if (rc != 0)
        fprintf(stderr, "make_night: %s\n", h5out_error(w));
    if (h5out_close(w, rc == 0, rc == 0 ? NULL : "error", err, sizeof err) != 0) {
        fprintf(stderr, "make_night: %s\n", err);
        return 1;
    }
    return rc == 0 ? 0 : 1;
}
