/* hostload.c - the machine's CPU counters around a trial (hostload.h). Used by trial_cond_take
 * (harness/trial.c) for every trial's row; tested by tests/test_hostload.c. */
#define _GNU_SOURCE
#include "hostload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Fields of a "cpu" line: user nice system idle iowait irq softirq steal (guest time is already in
 * user and nice). Returns how many were read. */
static int parse_cpu_fields(const char *p, unsigned long long v[8])
{
    int n = 0;
    char *end;
    for (; n < 8; n++) {
        v[n] = strtoull(p, &end, 10);
        if (end == p)
            break;
        p = end;
    }
    return n;
}

/* Each "cpuN" line: its steal into each_steal (and cpu_steal_ticks for the wanted CPU). */
static void parse_each_cpu(const char *text, int cpu, hostload *out)
{
    unsigned long long v[8];
    for (const char *line = strstr(text, "\ncpu"); line; line = strstr(line + 1, "\ncpu")) {
        char *end;
        const long k = strtol(line + 4, &end, 10);
        if (end == line + 4 || *end != ' ' || k < 0 || parse_cpu_fields(end, v) != 8)
            continue;
        if (k == cpu) {
            out->cpu_steal_ticks = v[7];
            out->cpu = cpu;
        }
        if (k < HOSTLOAD_MAX_CPUS) {
            out->each_steal[k] = v[7];
            out->ncpus = (int)k + 1 > out->ncpus ? (int)k + 1 : out->ncpus;
        }
    }
}

int hostload_parse_stat(const char *text, int cpu, hostload *out)
{
    unsigned long long v[8];
    out->have_stat = 0;
    out->cpu = -1;
    out->ncpus = 0;
    if (strncmp(text, "cpu ", 4) != 0 || parse_cpu_fields(text + 4, v) < 8)
        return -1;
    out->busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
    out->irq_ticks = v[5] + v[6];
    out->steal_ticks = v[7];
    out->have_stat = 1;
    memset(out->each_steal, 0, sizeof out->each_steal);
    parse_each_cpu(text, cpu, out);
    return 0;
}

/* /proc/stat's CPU lines (they come first; 64 KiB holds hundreds of CPUs). Called from the polling
 * thread only (trial_cond_take), hence the one static buffer. */
static void read_stat(int cpu, hostload *out)
{
    static char buf[65536];
    FILE *f = fopen("/proc/stat", "r");
    out->have_stat = 0;
    out->cpu = -1;
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    (void)hostload_parse_stat(buf, cpu, out);
}

void hostload_take(int cpu, hostload *out)
{
    memset(out, 0, sizeof *out);
    read_stat(cpu, out);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        out->own_cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                         (double)ru.ru_stime.tv_usec * 1e-6;
        out->minflt = ru.ru_minflt;
        out->majflt = ru.ru_majflt;
        out->nivcsw = ru.ru_nivcsw;
    } else {
        out->own_cpu_s = NAN;
        out->minflt = out->majflt = out->nivcsw = -1;
    }
}

static double ticks_ms(uint64_t a, uint64_t b)
{
    static long hz;
    if (hz <= 0)
        hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (double)(b - a) * 1000.0 / (double)hz : NAN;
}

static int64_t count_diff(long a, long b) { return a >= 0 && b >= 0 ? (int64_t)(b - a) : -1; }

void hostload_diff(const hostload *a, const hostload *b, hostload_delta *out)
{
    const int stat = a->have_stat && b->have_stat;
    out->steal_ms = stat ? ticks_ms(a->steal_ticks, b->steal_ticks) : NAN;
    out->irq_ms = stat ? ticks_ms(a->irq_ticks, b->irq_ticks) : NAN;
    out->cpu_steal_ms =
        stat && a->cpu >= 0 && a->cpu == b->cpu ? ticks_ms(a->cpu_steal_ticks, b->cpu_steal_ticks) : NAN;
    out->max_steal_ms = NAN;
    if (stat && a->ncpus > 0 && a->ncpus == b->ncpus) {
        uint64_t most = 0;
        for (int k = 0; k < a->ncpus; k++)
            most = b->each_steal[k] - a->each_steal[k] > most ? b->each_steal[k] - a->each_steal[k] : most;
        out->max_steal_ms = ticks_ms(0, most);
    }
    out->others_ms = stat ? ticks_ms(a->busy_ticks, b->busy_ticks) - (b->own_cpu_s - a->own_cpu_s) * 1000.0 : NAN;
    out->minflt = count_diff(a->minflt, b->minflt);
    out->majflt = count_diff(a->majflt, b->majflt);
    out->nivcsw = count_diff(a->nivcsw, b->nivcsw);
}
