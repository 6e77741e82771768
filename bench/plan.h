/* plan.h - which trials a run measures, and in which order.
 *
 * Units (what one trial measures, harness/trial.h) fall into groups: group 0 holds what has no
 * message size (the sampler's overhead, the floor, the per-call costs, every mode's control cell),
 * group 1 + s the baselines and every mode at size s. A run is `trials` rounds; each round runs every
 * group in turn, and within a group every unit once, in an order shuffled with a seeded generator,
 * so slow drift falls on every mode alike. Rounds are the outer loop, so a cell's trials are spread
 * over the whole run: a machine-wide slowdown of a minute (seen on the H100, 8-25x for 20-80 s)
 * lands on one or two of a cell's trials, which the median of the trial medians rejects, instead of
 * on all of them. The WSL2 fallback and the native modes form one block in the shuffle: they run
 * back to back in every round (in shuffled order among themselves), which makes their trials pairs.
 */
#ifndef RINGBENCH_PLAN_H
#define RINGBENCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "modes.h"
#include "trial.h"

typedef struct plan_unit {
    trial_unit_kind kind;
    int mode;      /* mode_at index for CONTROL and RING; -1 for baselines */
    uint32_t size; /* 0 where no size applies */
    int group;
} plan_unit;

typedef struct plan_step {
    size_t unit;
    int round;
} plan_step;

typedef struct plan_schedule {
    plan_unit *units;
    size_t nunits;
    plan_step *steps; /* the order of trials: round 0 of every group, then round 1, ... */
    size_t nsteps;
    int ngroups;
} plan_schedule;

/* Whether mode (an mode_at index; -1 for none) is one of the pair block: the WSL2 fallback and
 * the native path with a mapped or a managed control block. */
int plan_is_paired(int mode);

/* Builds the plan for the modes in runnable (mode_at order), sizes, trials rounds and the order
 * seed. Returns 0, or -1 (out of memory). */
int plan_build(const unsigned char *runnable, const uint32_t *sizes, size_t nsizes, int trials, uint64_t seed,
               plan_schedule *out);
void plan_free(plan_schedule *p);

#endif
