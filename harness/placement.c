/* placement.c - CPU placement of the host threads (see placement.h). Exercised by
 * tests/cli_test.sh (its "placement" case runs with a one-core --cpu list) and by every run. */
#define _GNU_SOURCE /* CPU_SET, sched_getcpu, pthread_setaffinity_np, RUSAGE_THREAD */
#include "placement.h"
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static placement_cfg g_place;
static int g_place_set;   /* placement_init ran (main, before any thread starts) */
static cpu_set_t g_mask0; /* the calling thread's mask before placement_init pinned it */
static int g_mask0_set;
static pthread_once_t g_place_once = PTHREAD_ONCE_INIT;

static void place_default(void);

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

int placement_parse_list(const char *list, int *cpus, int max, char *err, size_t errlen)
{
    int n = 0;
    const char *p = list;
    if (list == NULL || *list == '\0') {
        snprintf(err, errlen, "--cpu: empty list");
        return -1;
    }
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto bad;
        long lo = strtol(p, &end, 10), hi = lo;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                goto bad;
            hi = strtol(p + 1, &end, 10);
            p = end;
        }
        if (lo < 0 || hi < lo || hi >= RB_PLACE_MAX_CPUS)
            goto bad;
        for (long c = lo; c <= hi; c++) {
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= cpus[i] == c;
            if (dup)
                continue;
            if (n == max) {
                snprintf(err, errlen, "--cpu: more than %d CPUs", max);
                return -1;
            }
            cpus[n++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p)
            goto bad;
    }
    qsort(cpus, (size_t)n, sizeof *cpus, cmp_int);
    return n;
bad:
    snprintf(err, errlen, "--cpu: '%s' is not a CPU list (e.g. 0-3,8)", list);
    return -1;
}

/* The process's affinity mask as a list (env.h reads it for the limits too), at most max CPUs. */
static int mask_cpus(int *cpus, int max)
{
    int n = env_usable_cpus(NULL, cpus, max);
    return n > max ? max : n;
}

int placement_pin_self(int cpu)
{
    cpu_set_t set;
    if (cpu < 0)
        return 0;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

int placement_unpin_self(void)
{
    if (!g_mask0_set)
        return 0;
    int rc = pthread_setaffinity_np(pthread_self(), sizeof g_mask0, &g_mask0);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

void placement_limit_workers(int max)
{
    pthread_once(&g_place_once, place_default);
    if (max >= 0 && max < g_place.nworkers)
        g_place.nworkers = max;
}

void placement_kernel_thread(void)
{
    const placement_cfg *p = placement_get();
    if (p->pinned && p->kernel_cpu >= 0)
        (void)placement_pin_self(p->kernel_cpu); /* a refusal leaves the inherited mask: still correct */
}

/* Fills the roles from the CPU list: poller, then the CPU backend's kernel thread, then workers. */
static void assign(placement_cfg *p)
{
    int next = 0;
    p->poller_cpu = p->ncpus > 0 ? p->cpus[next++] : -1;
    p->kernel_cpu = next < p->ncpus ? p->cpus[next++] : -1;
    /* One CPU stays for the CUDA driver's own threads and the OS when the machine has CPUs to spare. */
    int spare = p->ncpus - next > 2 ? 1 : 0;
    p->nworkers = 0;
    while (next < p->ncpus - spare && p->nworkers < RB_PLACE_MAX_WORKERS)
        p->worker_cpus[p->nworkers++] = p->cpus[next++];
    /* Fewer than three CPUs: the poller, the kernel thread (CPU backend) or the driver, and at least
     * one worker for large messages cannot each have a core. */
    if (p->ncpus < 3) {
        char list[64];
        env_format_cpu_list(p->cpus, p->ncpus, list, sizeof list);
        snprintf(p->warning, sizeof p->warning,
                 "only %d usable CPU%s (%s from %s): the polling thread, the driver or kernel thread and the "
                 "verification pool share cores, which distorts latency and throughput",
                 p->ncpus, p->ncpus == 1 ? "" : "s", list, p->source);
    }
}

int placement_init(const char *cpu_list, int pin, char *err, size_t errlen)
{
    placement_cfg p;
    int mask[RB_PLACE_MAX_CPUS];
    memset(&p, 0, sizeof p);
    if (!g_mask0_set && pthread_getaffinity_np(pthread_self(), sizeof g_mask0, &g_mask0) == 0)
        g_mask0_set = 1;
    int nmask = mask_cpus(mask, RB_PLACE_MAX_CPUS);
    if (cpu_list != NULL) {
        p.ncpus = placement_parse_list(cpu_list, p.cpus, RB_PLACE_MAX_CPUS, err, errlen);
        if (p.ncpus < 0)
            return -1;
        for (int i = 0; i < p.ncpus && nmask > 0; i++) {
            int found = 0;
            for (int k = 0; k < nmask; k++)
                found |= mask[k] == p.cpus[i];
            if (!found) {
                char list[256];
                env_format_cpu_list(mask, nmask, list, sizeof list);
                snprintf(err, errlen, "--cpu: CPU %d is not in this process's CPU mask (%s)", p.cpus[i], list);
                return -1;
            }
        }
        snprintf(p.source, sizeof p.source, "--cpu");
    } else {
        if (nmask <= 0) {
            snprintf(err, errlen, "sched_getaffinity failed: %s", strerror(errno));
            return -1;
        }
        memcpy(p.cpus, mask, (size_t)nmask * sizeof *mask);
        p.ncpus = nmask;
        snprintf(p.source, sizeof p.source, "mask");
    }
    assign(&p);
    if (pin) {
        if (placement_pin_self(p.poller_cpu) != 0) {
            snprintf(err, errlen, "cannot pin the polling thread to CPU %d: %s", p.poller_cpu, strerror(errno));
            return -1;
        }
        p.pinned = 1;
    }
    g_place = p;
    g_place_set = 1;
    pthread_once(&g_place_once, place_default); /* keeps this placement: the default sees it set */
    return 0;
}

/* The default when placement_init was not called (tests, library use): the mask, nothing pinned.
 * Built once even when pool workers ask for it at the same time. */
static void place_default(void)
{
    if (g_place_set)
        return;
    memset(&g_place, 0, sizeof g_place);
    int n = mask_cpus(g_place.cpus, RB_PLACE_MAX_CPUS);
    g_place.ncpus = n > 0 ? n : 0;
    snprintf(g_place.source, sizeof g_place.source, "mask");
    assign(&g_place);
}

const placement_cfg *placement_get(void)
{
    pthread_once(&g_place_once, place_default);
    return &g_place;
}

int placement_current_cpu(void) { return sched_getcpu(); }

long placement_ctx_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
}
