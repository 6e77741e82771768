/* env_limits.c - what this process may use: the CPU affinity mask, the cgroup CPU quota and memory
 * limit, and the nice value (env_usable_cpus, env_limits_detect, env_limits_foreach in env.h). Split
 * from env.c, whose below-the-root file helpers it uses (env_internal.h), so tests/test_env.c points it
 * at fake trees the same way.
 */
#define _GNU_SOURCE /* sched_getaffinity and the CPU_* macros */

#include "env.h"
#include "env_internal.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * What this process may use: affinity mask, cgroup quota and memory limit, nice value.
 * ------------------------------------------------------------------------------------------- */

/* Reads the whole (small) file root+rel into buf[size], NUL-terminated, truncated. Returns 0, or
 * -1 when it cannot be opened. */
static int env_read_small(const char *root, const char *rel, char *buf, size_t size)
{
    FILE *f = env_open(root, rel);
    size_t n;
    if (f == NULL)
        return -1;
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 0;
}

/* Parses a kernel CPU list ("0-3,8,10-11") into cpus[max]. Returns how many CPUs it names (those
 * past max are counted, not stored), or -1 when it is malformed or empty. */
static int env_parse_cpu_list(const char *s, int *cpus, int max)
{
    int n = 0;
    for (;;) {
        char *end;
        long a, b, c;
        while (*s == ',' || isspace((unsigned char)*s))
            s++;
        if (*s == '\0')
            break;
        if (!isdigit((unsigned char)*s))
            return -1;
        a = b = strtol(s, &end, 10);
        s = end;
        if (*s == '-') {
            if (!isdigit((unsigned char)s[1]))
                return -1;
            b = strtol(s + 1, &end, 10);
            s = end;
        }
        if (b < a || b - a > 65536)
            return -1;
        for (c = a; c <= b; c++, n++)
            if (n < max)
                cpus[n] = (int)c;
        if (*s != '\0' && *s != ',' && !isspace((unsigned char)*s))
            return -1;
    }
    return n > 0 ? n : -1;
}

void env_format_cpu_list(const int *cpus, int n, char *buf, size_t size)
{
    int i = 0;
    buf[0] = '\0';
    while (i < n) {
        char item[32];
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        if (j > i)
            snprintf(item, sizeof item, "%s%d-%d", i ? "," : "", cpus[i], cpus[j]);
        else
            snprintf(item, sizeof item, "%s%d", i ? "," : "", cpus[i]);
        env_append(buf, size, item);
        i = j + 1;
    }
}

int env_usable_cpus(const char *root, int *cpus, int max)
{
    char status[8192];
    const char *line;

    if (cpus == NULL && max > 0) {
        errno = EINVAL;
        return -1;
    }
    if (env_is_live(root)) {
        cpu_set_t set;
        int c, n = 0;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) != 0)
            return -1;
        for (c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) {
                if (n < max)
                    cpus[n] = c;
                n++;
            }
        return n > 0 ? n : -1;
    }
    /* A fake tree: the kernel shows the same mask as Cpus_allowed_list in proc/self/status. */
    if (env_read_small(root, "/proc/self/status", status, sizeof status) != 0)
        return -1;
    line = strstr(status, "Cpus_allowed_list:");
    if (line == NULL)
        return -1;
    {
        char list[ENV_LINE_MAX];
        const char *v = line + strlen("Cpus_allowed_list:");
        size_t k = 0;
        while (v[k] != '\0' && v[k] != '\n' && k + 1 < sizeof list) {
            list[k] = v[k];
            k++;
        }
        list[k] = '\0';
        return env_parse_cpu_list(list, cpus, max);
    }
}

/* The nice value: getpriority on the live system, field 19 of proc/self/stat in a fake tree.
 * Returns 0, or -1 when unknown. */
static int env_read_nice(const char *root, int *nice_out)
{
    char stat_text[2048];
    const char *p;
    int field;

    if (env_is_live(root)) {
        int v;
        errno = 0;
        v = getpriority(PRIO_PROCESS, 0);
        if (v == -1 && errno != 0)
            return -1;
        *nice_out = v;
        return 0;
    }
    if (env_read_small(root, "/proc/self/stat", stat_text, sizeof stat_text) != 0)
        return -1;
    /* The command name (field 2) is in parentheses and may hold spaces and ')': count from the
     * last ')'. Field 3 follows it; nice is field 19. */
    p = strrchr(stat_text, ')');
    if (p == NULL)
        return -1;
    p++;
    for (field = 3; field < 19; field++) {
        while (*p == ' ')
            p++;
        while (*p != '\0' && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    if (*p != '-' && !isdigit((unsigned char)*p))
        return -1;
    *nice_out = atoi(p);
    return 0;
}

/* dir + "/" + file into rel[size]. Returns 0, or -1 when it does not fit. */
static int env_join(const char *dir, const char *file, char *rel, size_t size)
{
    size_t a = strlen(dir), b = strlen(file);
    if (a + 1 + b + 1 > size)
        return -1;
    memcpy(rel, dir, a);
    rel[a] = '/';
    memcpy(rel + a + 1, file, b + 1);
    return 0;
}

/* A description of where a limit came from into what[wsize]; truncation only shortens the words. */
static void env_describe(char *what, size_t wsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void env_describe(char *what, size_t wsize, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, wsize, fmt, ap);
    va_end(ap);
}

/* One limit file in one cgroup directory. Returns 1 with *val set for a limit, 0 for "no limit",
 * -1 when the file is missing or unreadable. */
typedef int (*env_cg_reader)(const char *root, const char *dir, double *val, char *what, size_t wsize);

static int env_cg_cpu_max(const char *root, const char *dir, double *val, char *what, size_t wsize)
{
    char rel[ENV_PATH_MAX], text[128], quota[64];
    double period = 0;
    if (env_join(dir, "cpu.max", rel, sizeof rel) != 0)
        return -1;
    if (env_read_small(root, rel, text, sizeof text) != 0)
        return -1;
    if (sscanf(text, "%63s %lf", quota, &period) < 1)
        return -1;
    if (strcmp(quota, "max") == 0)
        return 0;
    if (!(period > 0))
        period = 100000;
    *val = atof(quota) / period;
    env_rtrim(text);
    env_describe(what, wsize, "cgroup v2 cpu.max '%s' in %s", text, dir);
    return 1;
}

static int env_cg_v1_quota(const char *root, const char *dir, double *val, char *what, size_t wsize)
{
    char rel[ENV_PATH_MAX], text[64];
    double quota, period = 100000;
    if (env_join(dir, "cpu.cfs_quota_us", rel, sizeof rel) != 0)
        return -1;
    if (env_read_small(root, rel, text, sizeof text) != 0)
        return -1;
    quota = atof(text);
    if (quota <= 0)
        return 0; /* -1: no quota */
    if (env_join(dir, "cpu.cfs_period_us", rel, sizeof rel) == 0 && env_read_small(root, rel, text, sizeof text) == 0 &&
        atof(text) > 0)
        period = atof(text);
    *val = quota / period;
    env_describe(what, wsize, "cgroup v1 cpu.cfs_quota_us %.0f / cpu.cfs_period_us %.0f in %s", quota, period, dir);
    return 1;
}

static int env_cg_mem(const char *root, const char *dir, const char *file, double *val, char *what, size_t wsize)
{
    char rel[ENV_PATH_MAX], text[64];
    if (env_join(dir, file, rel, sizeof rel) != 0)
        return -1;
    if (env_read_small(root, rel, text, sizeof text) != 0)
        return -1;
    env_rtrim(text);
    if (strcmp(text, "max") == 0)
        return 0;
    if (!isdigit((unsigned char)text[0]))
        return -1;
    *val = atof(text);
    if (*val >= 4.0e18)
        return 0; /* v1 says "no limit" with a page-rounded LLONG_MAX */
    env_describe(what, wsize, "%s %s in %s", file, text, dir);
    return 1;
}

static int env_cg_mem_v2(const char *root, const char *dir, double *val, char *what, size_t wsize)
{
    return env_cg_mem(root, dir, "memory.max", val, what, wsize);
}

static int env_cg_mem_v1(const char *root, const char *dir, double *val, char *what, size_t wsize)
{
    return env_cg_mem(root, dir, "memory.limit_in_bytes", val, what, wsize);
}

/* Reads a limit in mount+path and each ancestor up to mount itself, keeping the tightest. Inside a
 * container the path of proc/self/cgroup may not exist below the mount (the host's path, without
 * a cgroup namespace): the walk then ends at the mount, which is the container's own cgroup.
 * Returns the limit (> 0), 0 when files were read and none limits, -1 when no file was there. */
static double env_cg_walk(const char *root, const char *mount, const char *path, env_cg_reader rd, char *what,
                          size_t wsize)
{
    char dir[ENV_PATH_MAX], w[ENV_STR];
    double best = -1, v;
    size_t mlen = strlen(mount);
    if (snprintf(dir, sizeof dir, "%s%s", mount, strcmp(path, "/") == 0 ? "" : path) >= (int)sizeof dir)
        return -1;
    for (;;) {
        int rc = rd(root, dir, &v, w, sizeof w);
        if (rc == 0 && best < 0)
            best = 0;
        if (rc == 1 && v > 0 && (best <= 0 || v < best)) {
            best = v;
            env_copy(what, wsize, w);
        }
        if (strlen(dir) <= mlen)
            break;
        *strrchr(dir, '/') = '\0';
    }
    return best;
}

/* Finds, in proc/self/cgroup, the v2 path ("0::/path") or the v1 path of the hierarchy whose
 * controller list holds ctrl ("4:cpu,cpuacct:/path"), with that list in mount_name. Returns 0 or
 * -1. */
static int env_cg_path(const char *text, const char *ctrl, char *path, size_t psize, char *mount_name, size_t msize)
{
    const char *line = text;
    while (line != NULL && *line != '\0') {
        const char *nl = strchr(line, '\n');
        size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
        char buf[ENV_LINE_MAX], *c1, *c2;
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = nl != NULL ? nl + 1 : NULL;
        c1 = strchr(buf, ':');
        c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c1 = *c2 = '\0';
        if (ctrl == NULL ? (strcmp(buf, "0") == 0 && c1[1] == '\0') : 0) {
            env_copy(path, psize, c2 + 1);
            return 0;
        }
        if (ctrl != NULL) {
            char list[ENV_LINE_MAX], *tok, *save = NULL;
            env_copy(list, sizeof list, c1 + 1);
            for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
                if (strcmp(tok, ctrl) == 0) {
                    env_copy(path, psize, c2 + 1);
                    env_copy(mount_name, msize, c1 + 1);
                    return 0;
                }
        }
    }
    return -1;
}

static void env_read_cgroup(const char *root, env_limits *out)
{
    char text[4096], path[ENV_PATH_MAX], name[ENV_STR], mount[ENV_PATH_MAX];
    double mem;
    out->cpu_quota = -1;
    out->mem_limit = -1;
    env_copy(out->cpu_quota_src, sizeof out->cpu_quota_src, ENV_UNKNOWN);
    env_copy(out->mem_limit_src, sizeof out->mem_limit_src, ENV_UNKNOWN);
    if (env_read_small(root, "/proc/self/cgroup", text, sizeof text) != 0) {
        env_copy(out->cgroup, sizeof out->cgroup, "none");
        return;
    }
    if (env_exists(root, "/sys/fs/cgroup/cgroup.controllers") &&
        env_cg_path(text, NULL, path, sizeof path, NULL, 0) == 0) {
        env_copy(out->cgroup, sizeof out->cgroup, "v2");
        out->cpu_quota =
            env_cg_walk(root, "/sys/fs/cgroup", path, env_cg_cpu_max, out->cpu_quota_src, sizeof out->cpu_quota_src);
        mem = env_cg_walk(root, "/sys/fs/cgroup", path, env_cg_mem_v2, out->mem_limit_src, sizeof out->mem_limit_src);
    } else {
        env_copy(out->cgroup, sizeof out->cgroup, "v1");
        if (env_cg_path(text, "cpu", path, sizeof path, name, sizeof name) == 0) {
            snprintf(mount, sizeof mount, "/sys/fs/cgroup/%s", name);
            if (!env_exists(root, mount))
                env_copy(mount, sizeof mount, "/sys/fs/cgroup/cpu");
            out->cpu_quota =
                env_cg_walk(root, mount, path, env_cg_v1_quota, out->cpu_quota_src, sizeof out->cpu_quota_src);
        }
        mem = -1;
        if (env_cg_path(text, "memory", path, sizeof path, name, sizeof name) == 0) {
            snprintf(mount, sizeof mount, "/sys/fs/cgroup/%s", name);
            mem = env_cg_walk(root, mount, path, env_cg_mem_v1, out->mem_limit_src, sizeof out->mem_limit_src);
        }
    }
    out->mem_limit = mem < 0 ? -1 : (long long)mem;
    if (out->cpu_quota == 0)
        env_copy(out->cpu_quota_src, sizeof out->cpu_quota_src, "none");
    if (out->mem_limit == 0)
        env_copy(out->mem_limit_src, sizeof out->mem_limit_src, "none");
}

static void env_limits_warn(env_limits *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void env_limits_warn(env_limits *l, const char *fmt, ...)
{
    va_list ap;
    if (l->nwarnings >= (int)(sizeof l->warnings / sizeof l->warnings[0]))
        return;
    va_start(ap, fmt);
    vsnprintf(l->warnings[l->nwarnings++], sizeof l->warnings[0], fmt, ap);
    va_end(ap);
}

int env_limits_detect(const char *root, env_limits *out)
{
    int online[ENV_MAX_CPUS];
    char text[ENV_LINE_MAX];

    if (out == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (root == NULL || root[0] == '\0')
        root = "/";
    memset(out, 0, sizeof *out);
    out->cpu_warning = -1;
    if (env_read_first_line(root, "/sys/devices/system/cpu/online", text, sizeof text) == 0) {
        int n = env_parse_cpu_list(text, online, ENV_MAX_CPUS);
        out->cpus_online = n > 0 ? n : 0;
    }
    out->ncpus = env_usable_cpus(root, out->cpus, ENV_MAX_CPUS);
    if (out->ncpus < 0)
        out->ncpus = 0;
    if (out->ncpus > 0)
        env_format_cpu_list(out->cpus, out->ncpus < ENV_MAX_CPUS ? out->ncpus : ENV_MAX_CPUS, out->cpu_list,
                            sizeof out->cpu_list);
    else
        env_copy(out->cpu_list, sizeof out->cpu_list, ENV_UNKNOWN);
    env_read_cgroup(root, out);
    out->nice_known = env_read_nice(root, &out->nice) == 0;

    if (out->ncpus > 0 && out->ncpus < ENV_MIN_CPUS) {
        out->cpu_warning = out->nwarnings;
        env_limits_warn(out,
                        "only %d CPU%s usable (affinity %s%s): the host thread, the CPU backend's "
                        "kernel thread and the verification pool will take turns, and latencies "
                        "include that",
                        out->ncpus, out->ncpus == 1 ? "" : "s", out->cpu_list,
                        out->cpus_online > out->ncpus ? ", fewer than the machine has online" : "");
    }
    if (out->cpu_quota > 0 && out->cpu_quota < ENV_MIN_CPU_QUOTA)
        env_limits_warn(out,
                        "a CPU quota of %.2f CPUs (%s): spinning threads use it up and the "
                        "process is throttled mid-measurement",
                        out->cpu_quota, out->cpu_quota_src);
    if (out->mem_limit > 0 && out->mem_limit < ENV_MIN_MEMORY)
        env_limits_warn(out, "a memory limit of %.0f MiB (%s): large messages may fail or page",
                        (double)out->mem_limit / (1 << 20), out->mem_limit_src);
    if (out->nice_known && out->nice > 0)
        env_limits_warn(out, "running at nice %d: other processes get the CPU first; run at nice 0", out->nice);
    return 0;
}

int env_limits_foreach(const env_limits *l, int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
    char count[24], online[24], quota[ENV_STR + 48], mem[ENV_STR + 48], nice[24], warn[1200];
    size_t i;

    if (l == NULL || fn == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (l->ncpus > 0)
        snprintf(count, sizeof count, "%d", l->ncpus);
    else
        env_copy(count, sizeof count, ENV_UNKNOWN);
    if (l->cpus_online > 0)
        snprintf(online, sizeof online, "%d", l->cpus_online);
    else
        env_copy(online, sizeof online, ENV_UNKNOWN);
    if (l->cpu_quota > 0)
        snprintf(quota, sizeof quota, "%.2f CPUs (%s)", l->cpu_quota, l->cpu_quota_src);
    else
        env_copy(quota, sizeof quota, l->cpu_quota == 0 ? "none" : ENV_UNKNOWN);
    if (l->mem_limit > 0)
        snprintf(mem, sizeof mem, "%lld bytes (%s)", l->mem_limit, l->mem_limit_src);
    else
        env_copy(mem, sizeof mem, l->mem_limit == 0 ? "none" : ENV_UNKNOWN);
    if (l->nice_known)
        snprintf(nice, sizeof nice, "%d", l->nice);
    else
        env_copy(nice, sizeof nice, ENV_UNKNOWN);
    warn[0] = '\0';
    for (i = 0; i < (size_t)l->nwarnings; i++)
        env_append_item(warn, sizeof warn, l->warnings[i]);
    if (warn[0] == '\0')
        env_copy(warn, sizeof warn, "none");

    const struct {
        const char *key;
        const char *value;
    } fields[] = {
        {"cpu_affinity", l->cpu_list},
        {"cpu_affinity_count", count},
        {"cpus_online", online},
        {"cgroup", l->cgroup},
        {"cpu_quota", quota},
        {"memory_limit", mem},
        {"nice", nice},
        {"limits_warnings", warn},
    };
    for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int rc = fn(ctx, fields[i].key, fields[i].value);
        if (rc != 0)
            return rc;
    }
    return 0;
}
