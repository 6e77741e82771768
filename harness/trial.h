/* trial.h - one trial of one unit of the sweep: open a fresh ring (fresh buffers), launch a fresh
 * kernel, take the samples, close; or one run of a baseline. Every trial is independent of the one
 * before, which is what lets a cell's interval cover run-to-run variation (bench/ decides which
 * trials run in which order; results/ writes what they produce).
 *
 * The conditions of a trial are taken around it (trial_cond_take): the CPU of the polling thread, its
 * involuntary context switches, the machine's stolen, interrupt and other processes' CPU time and this
 * process's faults (hostload.h), and the GPU's SM and memory clocks with NVML's throttle reasons.
 */
#ifndef RINGBENCH_TRIAL_H
#define RINGBENCH_TRIAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "hostload.h"
#include "platform_faults.h"
#include "platform_limits.h"
#include "measure.h"
#include "modes.h"
#include "ring.h"
#include "schema.h"

/* What the host and the GPU were doing around a trial. */
typedef struct trial_cond {
    int cpu;                    /* sched_getcpu of the polling thread; -1 unknown */
    hostload load;              /* the machine's CPU counters (hostload.h) */
    long ctx_switches;          /* its involuntary context switches so far; -1 unknown */
    double sm_mhz, mem_mhz;     /* NaN when unknown */
    unsigned long long reasons; /* NVML clock-event (throttle) reason bits */
    uint64_t t_ns;              /* timing_now_ns() */
} trial_cond;

void trial_cond_take(env_clocks *clocks, trial_cond *out);

/* How a trial is taken: the preset's per-trial budgets and the run's options. */
typedef struct trial_cfg {
    ring_backend backend;
    int device;
    uint32_t seed;
    double timeout_s, max_lifetime_s;
    measure_policy latency; /* latency samples per trial */
    measure_policy cb;      /* samples per control-block operation per trial */
    size_t cb_batch;        /* cb_read and cb_write: operations per sample (measure_policy.batch; 0 or 1:
                               one, the default; --cb-batch) */
    int tput_reps;          /* throughput repetitions per window per trial */
    double tput_rep_seconds;
    int memcpy_reps;
    double memcpy_rep_seconds;
    int lifecycle_cycles;
    int early_take;        /* ring_config.early_take */
    int leader_reply;      /* ring_config.leader_reply */
    int no_early_replies;  /* 1: ring_config.early_replies = 0; 0: its default (-1) */
    int shortcuts_busy;    /* ring_config.shortcuts_busy */
    int stream_ops;        /* ring_config.stream_ops */
    uint32_t post_max;     /* ring_config.post_max */
    uint32_t verify_split; /* ring_config.verify_split */
    int verify_first;      /* 1: ring_config.refill_first = 0; 0: its default (1) */
    int refill_on_tail;    /* 1: ring_config.refill_headers = 0; 0: its default (-1) */
    uint32_t windows[8];   /* throughput windows; RB_WINDOW_CAP = the ring's capacity */
    size_t nwindows;
    const platform_limits *limits; /* a platform's limits applied (platform_limits.h), or NULL */
    const platform_faults *faults; /* a failing platform played on purpose (platform_faults.h), or NULL */
    volatile sig_atomic_t *stop;
} trial_cfg;

#define RB_WINDOW_CAP 0xFFFFFFFFu

/* The windows a ring trial of capacity cap measures, into w[8]: the configured ones, capped at the
 * capacity, without repeats. Returns how many. */
size_t trial_windows(const trial_cfg *cfg, uint32_t cap, uint32_t *w);

/* One family's result within a trial (a trial of a mode at one size yields latency and one
 * throughput part per window; a control trial yields cb_* and lc_*; a baseline trial one part). */
typedef struct trial_part {
    rb_family fam;
    uint64_t size;
    uint32_t window;    /* messages in flight; 0 where it does not apply */
    const char *status; /* RB_STATUS_OK, _FAILED or _UNSUPPORTED */
    char reason[RB_REASON_LEN];
    measure_samples s; /* samples in the family's unit */
    double msgs_per_s; /* throughput parts: messages per second; else NaN */
    uint64_t messages, lost, duplicated, corrupted, kernel_errors;
    double calls[RB_CALL_KIND_COUNT]; /* CUDA calls per operation by cuda_calls.h kind; NaN not counted */
    double payload_s; /* ring parts of at least RING_TIMED_MIN_BYTES: host time in payload passes; else NaN */
} trial_part;

#define RB_TRIAL_MAX_PARTS 16

typedef struct trial_out {
    trial_part part[RB_TRIAL_MAX_PARTS];
    size_t nparts;
    uint32_t capacity; /* slots of the ring the trial used (0 for baselines) */
    int interrupted;   /* *stop was raised: parts may be partial */
} trial_out;

/* The units a trial can measure. */
typedef enum trial_unit_kind {
    RB_UNIT_OVERHEAD, /* the sampler's own cost: an empty operation */
    RB_UNIT_FLOOR,    /* baseline: ping-pong floor */
    RB_UNIT_LAUNCH,   /* baseline: a kernel launch per message (size) */
    RB_UNIT_GRAPH,    /* baseline: a graph launch per message (size) */
    RB_UNIT_MEMCPY,   /* baseline: cudaMemcpy bandwidth, 4 kinds (size) */
    RB_UNIT_CALLS,    /* baseline: the cost of each kind of CUDA call (cuda_calls.h) */
    RB_UNIT_CONTROL,  /* a mode's control-block operations and lifecycle cycles */
    RB_UNIT_RING      /* a mode at a size: latency, then throughput per window */
} trial_unit_kind;

/* Runs one trial of unit kind (mode m for CONTROL and RING; size for sized units) and fills *out
 * (free with trial_out_free). Every part has a status: a mode the platform refuses gives
 * unsupported parts with the reason, a failure failed parts. Returns 0, or 1 when interrupted. */
int trial_run(const trial_cfg *cfg, trial_unit_kind kind, const mode_spec *m, uint32_t size, trial_out *out);
void trial_out_free(trial_out *out);

/* The families a CONTROL trial yields, in the order of its parts: the control block's read, write and
 * handshake, the lifecycle's launch, activate, deactivate and terminate, then host_ref. */
#define TRIAL_CONTROL_FAMS 8
extern const rb_family trial_control_fams[TRIAL_CONTROL_FAMS];

/* Warms the GPU before the first measured trial: an idle H100 reads 375 MHz and takes a while to
 * reach its application clock, so the first trials of a run were measured on a slower GPU than the
 * rest. Runs the ring (native mode, the window full) until NVML reports an SM clock within 5% of the
 * target (the application clock, else the maximum) for 200 ms, or timeout_s passes. Without NVML
 * it runs for timeout_s. Sets what it did (NaN where unknown). CPU backend: does nothing. */
void trial_warmup(const trial_cfg *cfg, env_clocks *clocks, double timeout_s, double *seconds, double *sm_mhz,
                  double *target_mhz);

#endif
