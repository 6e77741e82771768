/* hostload.h - what the rest of the machine was doing around a trial, read from the kernel's own
 * counters: CPU time stolen by the hypervisor, spent in interrupts, and used by other processes
 * (/proc/stat), and this process's page faults and involuntary context switches (getrusage, every
 * thread: the worker pool's too). A trial that ran slow for its whole length while one of these rose
 * points at the host, not at the ring; one that ran slow while none moved points elsewhere.
 *
 * /proc/stat counts in clock ticks (USER_HZ, usually 100 per second): differences finer than 10 ms
 * are not resolved, which is why these are per trial (hundreds of milliseconds), not per sample.
 * Where /proc/stat cannot be read (not Linux) the CPU times are NaN and the counts -1.
 */
#ifndef RINGBENCH_HOSTLOAD_H
#define RINGBENCH_HOSTLOAD_H

#include <stdint.h>

#define HOSTLOAD_MAX_CPUS 256

typedef struct hostload {
    int have_stat;            /* /proc/stat was read */
    int cpu;                  /* the CPU whose own line was read (cpu_steal_ticks); -1 none */
    uint64_t busy_ticks;      /* all CPUs: user + nice + system + irq + softirq (not steal, not idle) */
    uint64_t steal_ticks;     /* all CPUs: time the hypervisor ran something else */
    uint64_t irq_ticks;       /* all CPUs: irq + softirq */
    uint64_t cpu_steal_ticks; /* steal of CPU `cpu` */
    int ncpus;                /* CPUs 0..ncpus-1 whose steal is in each_steal (a CPU not listed: 0) */
    uint64_t each_steal[HOSTLOAD_MAX_CPUS];
    double own_cpu_s;    /* this process: user + system time, every thread */
    long minflt, majflt; /* this process's page faults; -1 unknown */
    long nivcsw;         /* this process's involuntary context switches, every thread; -1 unknown */
} hostload;

/* Takes the counters now; cpu is the CPU whose own steal is wanted (the polling thread's), or -1. */
void hostload_take(int cpu, hostload *out);

/* What happened between a and b (taken in that order), in milliseconds and counts; NaN or -1 where
 * either snapshot lacks it. others_ms: busy CPU time of everything but this process, all CPUs;
 * max_steal_ms: the steal of the one CPU that lost most (a pool pass waits for its slowest worker, so
 * one stolen CPU can hold up every pass). */
typedef struct hostload_delta {
    double steal_ms, cpu_steal_ms, max_steal_ms, irq_ms, others_ms;
    int64_t minflt, majflt, nivcsw;
} hostload_delta;

void hostload_diff(const hostload *a, const hostload *b, hostload_delta *out);

/* Parses /proc/stat text (the part that matters: the "cpu" line and the "cpuN" lines) into *out's
 * tick fields; returns 0, or -1 when the aggregate line is missing or malformed. CPUs from
 * HOSTLOAD_MAX_CPUS on are counted in the totals only. For the tests. */
int hostload_parse_stat(const char *text, int cpu, hostload *out);

#endif
