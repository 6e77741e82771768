/* sweep.h - what `ringbench run` measures: presets, the --sizes and --window grammars, and the sweep
 * over every selected mode x message size, written trial by trial and row by row to a results file.
 *
 * A run is a plan of independent trials (bench/plan.c): every cell is measured `trials` times, each
 * time on a fresh ring with a fresh kernel launch (harness/trial.c). The trials of all modes at one
 * size are interleaved in a seeded random order, round by round, so that slow drift (clocks, the
 * machine's other work) falls on every mode alike; the WSL2 fallback and the native modes run back to
 * back in each round, so the verdict can compare them pair by pair. Baselines are trials too. After
 * a size's last round, its cells' rows are written: p50 and the 95% interval from the trial level.
 */
#ifndef RINGBENCH_SWEEP_H
#define RINGBENCH_SWEEP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "env.h"
#include "h5out.h"
#include "measure.h"
#include "modes.h"
#include "probe.h"
#include "ring.h"
#include "trial.h"

typedef struct preset_def {
    const char *name;
    const char *doc;
    const char *sizes;       /* in the --sizes grammar */
    const char *windows;     /* in the --window grammar */
    int trials;              /* independent trials per cell */
    measure_policy latency;  /* per latency trial */
    measure_policy cb;       /* per control-block operation per trial */
    int tput_reps;           /* throughput repetitions per window per trial */
    double tput_rep_seconds; /* each keeps the window full this long, then drains */
    int memcpy_reps;
    double memcpy_rep_seconds;
    int lifecycle_cycles; /* launch..terminate cycles per control trial */
} preset_def;

size_t preset_count(void);
const preset_def *preset_at(size_t i);
const preset_def *preset_find(const char *name); /* NULL when unknown */

/* Message sizes, ascending, without duplicates. */
typedef struct preset_sizes {
    uint32_t v[64];
    size_t n;
} preset_sizes;

/* Parses the --sizes grammar: comma-separated terms, each a size or a range.
 *   size   = digits with an optional binary suffix K, M or G (KiB, MiB, GiB): 8, 4K, 16M
 *   range  = LO..HI       every power of two from LO to HI (LO itself kept even if not a power)
 *          | LO..HI:xF    LO, LO*F, LO*F^2, ... up to HI (F an integer >= 2), then HI if missed
 * Sizes must be multiples of 4 between 4 B and 1 GiB. Returns 0, or -1 with one line in err. */
int preset_sizes_parse(const char *spec, preset_sizes *out, char *err, size_t errlen);

/* Parses the --window grammar: comma-separated message counts (1..65536) or `cap` (the ring's
 * capacity at each size; a larger window is capped to it). Returns 0, or -1 with one line in err. */
int preset_windows_parse(const char *spec, uint32_t *out, size_t max, size_t *n, char *err, size_t errlen);

/* "8 B", "4 KiB", "16 MiB". Returns buf. */
char *preset_size_name(uint64_t bytes, char *buf, size_t n);

typedef struct sweep_opts {
    ring_backend backend;
    int device;
    const preset_def *preset;
    mode_set modes;
    preset_sizes sizes;
    uint32_t windows[8];
    size_t nwindows;
    int trials;    /* trials per cell (the preset's unless --trials) */
    uint32_t seed; /* payload seed; also seeds the order of trials */
    double timeout_s;
    double max_lifetime_s;
    env_clocks *clocks;            /* NVML clock session, or NULL: trial clocks unknown */
    double warmup_timeout_s;       /* GPU warm-up before the first trial; 0 = none */
    int quiet;                     /* no progress on stderr */
    int early_take;                /* ring_config.early_take (--no-early-take sets 0) */
    int leader_reply;              /* ring_config.leader_reply (--no-leader-reply sets 0) */
    int no_early_replies;          /* 1: ring_config.early_replies = 0 (--no-early-replies); 0: the backend's default */
    int shortcuts_busy;            /* ring_config.shortcuts_busy (--shortcuts-busy sets 1) */
    int stream_ops;                /* ring_config.stream_ops (--no-stream-ops sets 0) */
    uint32_t post_max;             /* ring_config.post_max (--post-max) */
    uint32_t verify_split;         /* ring_config.verify_split (--verify-split) */
    int verify_first;              /* 1: ring_config.refill_first = 0 (--verify-first) */
    int refill_on_tail;            /* 1: ring_config.refill_headers = 0 (--refill-on-tail) */
    size_t cb_batch;               /* trial_cfg.cb_batch (--cb-batch; 0 or 1: one operation per sample) */
    const platform_limits *limits; /* --platform-limits (harness/platform_limits.h), or NULL */
    const platform_faults *faults; /* --inject-fault (harness/platform_faults.h), or NULL */
    int window_procs;              /* --window-procs: processes of the full-window leg (window_procs.h); 0 none */
    const char *const *window_procs_args; /* the options each of them gets, NULL-terminated */
    const char *window_procs_keep;        /* --window-procs-keep: the folder their files stay in; NULL none */
} sweep_opts;

typedef struct sweep_result {
    size_t units_done, units_total;          /* trials */
    size_t ok, unsupported, invalid, failed; /* rows by status */
    int interrupted;
    rb_row *rows; /* every row written, for the summary */
    size_t nrows, caprows;
    double floor_p50;                                  /* NaN when not measured */
    double warmup_s, warmup_sm_mhz, warmup_target_mhz; /* what the GPU warm-up did; NaN if none */
} sweep_result;

/* Runs the sweep, appending trials and rows to w; then, with o->window_procs, the full-window leg
 * (window_procs.h), its trials and rows appended the same way. Returns 0 when it ran to the end (some rows may
 * be failed: see res), 1 when *stop was raised (every completed trial and the rows of every cell
 * with one are written), -1 when the results file could not be written (err says why). */
int sweep_run(const sweep_opts *o, const probe_caps *caps, h5out *w, volatile sig_atomic_t *stop, sweep_result *res,
              char *err, size_t errlen);

/* Prints the run's rows by status in one line (the headline figures are report.h's
 * report_summary_print, read back from the file). */
void sweep_summary(const sweep_result *res, FILE *out);

void sweep_result_free(sweep_result *res);

#endif
