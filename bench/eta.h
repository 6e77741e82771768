/* eta.h - how long the rest of a run will take: a cost model of its steps, learnt while it runs.
 *
 * A run's steps (plan.h) cost very different times: a control-block trial a few hundredths of a
 * second, a ring trial at 16 KiB or more several tenths, because every ring trial opens a fresh ring
 * of capacity x slot-stride bytes (harness/ring.h: 256 KiB for 8 B messages, 33 MiB from 16 KiB up)
 * and allocating it is most of a large trial. The plan runs what has no size first and the sizes in
 * ascending order within each round, so the share of steps done said little about the time done: the
 * first ETA of a default run on an H100 said 1m46s for 3m27s. Instead every step left is costed:
 *   - a unit measured in an earlier round: the mean of its own trials;
 *   - a ring unit not measured yet: its throughput budget (windows x repetitions x seconds, known from
 *     the plan) plus the rest, `a + b x ring bytes`, fitted (least squares, b >= 0) over every ring
 *     trial so far (the mean of those trials where its ring bytes were measured already);
 *   - any other unit: the mean of its kind so far;
 *   - a process of the full-window leg (run --window-procs): the mean of those done; before the first,
 *     the same model applied to its own quick run, plus ETA_PROC_START_S for starting a process.
 * The rest of a ring trial grows less than linearly with its bytes on an H100, so the fit is trusted
 * only once a whole size group of rings with at least half the plan's largest ring bytes has been
 * measured (under a tenth of a default run): until then eta_left says it does not know, and the
 * progress line shows "ETA --". Measured against runs on an H100 and on the CPU backend:
 * docs/decisions/0100-first-eta.md. Exercised by every run's progress line and tests/test_eta.c.
 */
#ifndef RINGBENCH_ETA_H
#define RINGBENCH_ETA_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "trial.h"

/* A process of the full-window leg costs, beyond the trials of its own quick run, about this much to
 * start (exec, the probe, the CUDA context): a model's constant, replaced by the measured mean once
 * one process has run. */
#define ETA_PROC_START_S 0.5

/* What a run's child process of the full-window leg runs (window_procs.h): its per-trial budgets. */
typedef struct eta_child {
    int trials;    /* its rounds */
    int modes;     /* ring and control units per round */
    double tput_s; /* one window's throughput budget per ring trial: repetitions x seconds */
} eta_child;

typedef struct eta {
    const plan_schedule *plan;
    const trial_cfg *cfg; /* the budgets: windows, throughput repetitions and seconds */
    double *unit_sum;     /* per plan unit: seconds of its trials so far, and how many */
    int *unit_n;
    double kind_sum[RB_UNIT_RING + 1];
    int kind_n[RB_UNIT_RING + 1];
    /* The ring trials' seconds beyond their throughput budget, by ring bytes: the fit's points. */
    double n, sx, sy, sxx, sxy;
    struct eta_class {
        uint64_t bytes;
        double sum;
        int n;
        int units, units_seen; /* ring units of the plan with these bytes, and how many measured */
    } cls[64];
    int ncls;
    uint64_t max_bytes; /* the plan's largest ring */
    int ready;          /* the fit is trusted (latched) */
    int procs;          /* processes of the leg */
    eta_child child;
    double procs_sum;
    int procs_n;
} eta;

/* Sets up e for plan (whose units run with cfg's budgets) and a leg of procs processes (0: none) each
 * running child. e keeps pointers to plan and cfg. Returns 0, or -1 when out of memory. */
int eta_init(eta *e, const plan_schedule *plan, const trial_cfg *cfg, int procs, const eta_child *child);
void eta_free(eta *e);

/* Step `step` of the plan took seconds. */
void eta_step_done(eta *e, size_t step, double seconds);

/* A process of the leg took seconds. */
void eta_proc_done(eta *e, double seconds);

/* The seconds that steps next_step.. and the leg's processes from procs_done on will take, into
 * *seconds. Returns 0, or -1 while the model cannot tell yet (*seconds untouched). */
int eta_left(const eta *e, size_t next_step, int procs_done, double *seconds);

/* The ring bytes of a ring trial at size (capacity x slot stride). */
uint64_t eta_ring_bytes(uint32_t size);

#endif
