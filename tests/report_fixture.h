/* report_fixture.h - synthetic ringbench results files with known answers, for the report and compare
 * tests: every family, sizes 8 B to 4 MiB, all 36 mode combinations (the 10 invalid ones marked
 * invalid, a few unsupported with reasons, the rest ok with seeded samples around known medians).
 */
#ifndef RINGBENCH_REPORT_FIXTURE_H
#define RINGBENCH_REPORT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "modes.h"
#include "schema.h"

#define FIXTURE_NSIZES 7
extern const uint64_t fixture_sizes[FIXTURE_NSIZES]; /* 8 B, 64 B, 512 B, 4 KiB, 32 KiB, 256 KiB, 4 MiB */

typedef struct fixture_opts {
    const char *backend;        /* "cuda" (default when NULL) or "cpu": no baselines then */
    uint64_t seed;              /* samples are drawn per row from this seed: same seed, same samples */
    double fallback_latency;    /* every latency sample of the WSL2 fallback mode is multiplied by it */
    double cb_read;             /* every cb_read sample of every mode is multiplied by it */
    int interrupted;            /* written with complete = 0, interrupted_by = "SIGINT" */
    int managed_unsupported;    /* every ctrl=managed row unsupported (concurrentManagedAccess = 0) */
    unsigned only_families;     /* bit (1u << family) per family to write; 0 = all */
    const char *gpu_name;       /* NULL: "NVIDIA H100 80GB HBM3" */
    const char *driver_version; /* NULL: "580.65.06" */
    /* Schema-2 trials: 0 or 1 writes each ok row with its samples (one trial, as schema 1 read);
     * k >= 2 writes k trials per ok row, rounds 0..k-1, each its own samples scaled by a round factor
     * shared by every row (drift) and a factor of its own, both lognormal with sigma trial_sd. */
    int trials;
    double trial_sd;
    size_t latency_samples; /* samples per latency trial; 0 = the default (300) */
    /* Two modes: this share of the 8 B latency samples of pinned/async/coop/mapped (drawn at random)
     * is FIXTURE_SLOW_MODE times slower; 0 = none. */
    double slow_share;
    /* Slow trials: with trials >= 2, round 0 of every latency row at 256 KiB is this many times slower
     * (0 = none), and recorded with 800 ms of steal in its 1 s (the other trials: none). */
    double slow_trial;
    /* 1: throughput rows at windows 1, 8 and 256 (FIXTURE_WINDOWS), each at sqrt(W) times the rate of
     * window 1; 2: the same without window 1; 3: as 1, but W = 256 15 % slower than W = 8 at the largest
     * size and 1 % slower at 8 B; 0 = one row per cell at window 0. */
    int windows;
    const char *wsl2; /* provenance wsl2: NULL "0" (native); "1" for a file that says it ran on WSL2 */
    /* Provenance for a fleet of machines and nights (NULL: "h100-test-01", "2026-11-22T10:00:00Z",
     * "6.1.0-28-amd64"): the host name, the start time (end_utc then equals it) and the kernel. */
    const char *hostname, *start_utc, *kernel_release;
} fixture_opts;

#define FIXTURE_WINDOWS \
    {                   \
        1, 8, 256       \
    }

#define FIXTURE_SLOW_MODE 3.2

/* The default options: cuda, seed 1, no injected difference, complete. */
fixture_opts fixture_defaults(void);

/* Writes the file (replacing path). Returns 0, or -1 with a message in err. */
int fixture_write(const char *path, const fixture_opts *o, char *err, size_t errlen);

/* The median the samples of (family, mode, size) are drawn around, before any injected factor.
 * For GB/s families it is the bandwidth. */
double fixture_median(rb_family f, const mode_spec *m, uint64_t size);

/* Why the fixture marks a valid mode unsupported (managed_unsupported aside), or NULL. */
const char *fixture_unsupported(const mode_spec *m);

#endif
