/* placement.h - where the host threads of a run execute: the polling thread, the worker pool, and
 * (CPU reference backend) the thread that plays the kernel.
 *
 * The run honours the process's CPU mask (taskset, cgroup cpusets) or an explicit --cpu list. The
 * polling thread gets a core of its own (the first of the set), the kernel-playing thread of the CPU
 * backend the next, and the worker pool the rest (at most 8). When the set leaves fewer cores than a
 * mode needs, placement_init says so in *warning: a loud line for stderr and the provenance, because
 * threads that share a core distort every number (REFERENCE.md: 1 MiB latency 67 -> 1825 us under
 * taskset -c 3). Process-wide state, set once by main before anything starts threads.
 */
#ifndef RINGBENCH_PLACEMENT_H
#define RINGBENCH_PLACEMENT_H

#include <stddef.h>

#define RB_PLACE_MAX_CPUS 1024
#define RB_PLACE_MAX_WORKERS 8

typedef struct placement_cfg {
    int ncpus; /* usable CPUs (the mask, or --cpu) */
    int cpus[RB_PLACE_MAX_CPUS];
    int poller_cpu; /* -1 when not pinned */
    int kernel_cpu; /* CPU backend's kernel thread; -1 when it shares */
    int nworkers;   /* worker-pool threads */
    int worker_cpus[RB_PLACE_MAX_WORKERS];
    int pinned;        /* 1 when threads are pinned to these CPUs */
    char source[32];   /* "mask" (sched_getaffinity) or "--cpu" */
    char warning[256]; /* "" or why this placement will distort the run */
} placement_cfg;

/* Parses a CPU list such as "0-3,8,10-11" into cpus (ascending, no duplicates). Returns the count, or
 * -1 with one line in err. */
int placement_parse_list(const char *list, int *cpus, int max, char *err, size_t errlen);

/* Builds the placement from cpu_list (NULL: the process's affinity mask) and, when pin is non-zero,
 * pins the calling thread (the poller) to its CPU. The CPUs of cpu_list must be in the mask. Returns
 * 0 (see ->warning), or -1 with one line in err. */
int placement_init(const char *cpu_list, int pin, char *err, size_t errlen);

/* Caps the worker pool at max threads (0: none; the polling thread verifies alone). Called by main
 * after placement_init, before anything starts threads (run --workers). */
void placement_limit_workers(int max);

/* The placement in force; a default (the mask, nothing pinned) when placement_init was not called. */
const placement_cfg *placement_get(void);

/* Pins the calling thread to cpu (-1: leaves it alone). Returns 0 or -1 (errno). */
int placement_pin_self(int cpu);

/* Gives the calling thread back the CPU mask it had before placement_init pinned it (nothing when
 * placement_init did not run), so that a process it starts inherits the whole mask, not the poller's
 * one CPU (run --window-procs). Returns 0 or -1 (errno). */
int placement_unpin_self(void);

/* Called first by a thread that plays the kernel on the CPU (the CPU backend's ring thread, the CPU
 * floor's partner): when the run pins, onto kernel_cpu, so it never inherits the poller's CPU from
 * the thread that created it. Both CPU-side partners of a measurement thus share one placement rule. */
void placement_kernel_thread(void);

/* The CPU the calling thread runs on now (-1 unknown) and its involuntary context switches so far. */
int placement_current_cpu(void);
long placement_ctx_switches(void);

#endif
