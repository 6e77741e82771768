/* measure.h - the one place where ringbench takes samples: warm-up, the clock, the stopping rule.
 *
 * Every latency-like number in a results file comes from measure_run: it runs the operation
 * `warmup` times unrecorded, then repeatedly reads the clock (timing.h), runs the operation once and
 * reads the clock again, keeping every sample in microseconds, until the adaptive rule of stats.h
 * says stop (the median's 95% CI within rel_ci_width, or a time or count cap) or *stop becomes
 * non-zero (an interrupt). README "How measurements are taken" describes the same policy.
 */
#ifndef RINGBENCH_MEASURE_H
#define RINGBENCH_MEASURE_H

#include <signal.h>
#include <stddef.h>

#include "stats.h"

typedef struct measure_policy {
    size_t warmup;   /* operations run and discarded first */
    stats_rule rule; /* when to stop */
    size_t batch;    /* operations per sample, back to back between the two clock reads; the sample is
                        their time divided by batch (0 or 1: one). For operations of tens of ns, whose
                        single sample is mostly the clock pair (~40 ns, moving 29-56 ns from trial to
                        trial on the H100's KVM guest): batch k shares that pair among k operations. */
} measure_policy;

/* One operation; returns 0, or non-zero to abort the measurement (the caller knows why). */
typedef int (*measure_op_fn)(void *ctx);

typedef struct measure_samples {
    double *us; /* samples, microseconds */
    size_t n, cap;
    stats_stop why;   /* why sampling stopped (STATS_CONTINUE when aborted or interrupted) */
    double elapsed_s; /* measuring time, warm-up excluded */
} measure_samples;

/* Measures op (in batches of p->batch per sample). Returns 0 with s filled (the caller frees s->us with
 * measure_samples_free), -1 when op failed (its return value in *op_rc) or memory ran out, and 1 when *stop was raised
 * (s holds what was taken so far). */
int measure_run(const measure_policy *p, measure_op_fn op, void *ctx, measure_samples *s, int *op_rc,
                volatile sig_atomic_t *stop);

/* Times a single call of op (microseconds into *us). Returns op's return value. For sequences such as
 * the lifecycle, where each step depends on the one before and cannot be repeated alone. */
int measure_time_once(measure_op_fn op, void *ctx, double *us);

/* Appends one sample (for measurements that time themselves, such as throughput repetitions). */
int measure_samples_push(measure_samples *s, double v);
void measure_samples_free(measure_samples *s);

#endif
