/* env.h - what machine is this: native Linux or WSL2, virtualisation, kernel, distribution, CPU.
 *
 * Everything is read below a root directory so that tests can point the detection at a fake tree
 * (tests/test_env.c builds a WSL2-looking one). NVML is loaded at run time, when present, for clocks
 * and the PCIe link; its absence is a normal answer, not an error.
 */
#ifndef RINGBENCH_ENV_H
#define RINGBENCH_ENV_H

#include <stddef.h>

#define ENV_STR 256

typedef struct env_info {
    char hostname[ENV_STR];
    char os_pretty[ENV_STR];      /* PRETTY_NAME of etc/os-release, or "unknown" */
    char kernel_release[ENV_STR]; /* proc/sys/kernel/osrelease */
    char kernel_version[ENV_STR]; /* first line of proc/version */
    int is_wsl2;                  /* 1 when the signs say WSL2, else 0 */
    char wsl2_evidence[512];      /* which signs were seen, in words; "none" when none */
    char virt[ENV_STR];           /* "none", or hypervisor flag + DMI vendor/product in words;
                                     "unknown" when proc/cpuinfo was unreadable and DMI said nothing */
    char cpu_model[ENV_STR];
    int cpu_count; /* logical CPUs listed in proc/cpuinfo; 0 when unreadable */
} env_info;

/* Fills *out from the tree under root ("/" or NULL for the live system). Missing files give
 * "unknown" fields, never an error. Returns 0, or -1 with errno set when out is NULL. */
int env_detect(const char *root, env_info *out);

/* Calls fn(ctx, key, value) for every field, with stable snake_case keys (the HDF5 provenance
 * attribute names): hostname, os, kernel_release, kernel_version, wsl2 ("1"/"0"), wsl2_evidence,
 * virtualization, cpu_model, cpu_count ("unknown" when 0). Stops and returns fn's value when it is
 * non-zero; otherwise returns 0. Returns -1 with errno EINVAL when e or fn is NULL. */
int env_foreach(const env_info *e, int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* ---------------------------------------------------------------------------------------------
 * What this process may use: affinity mask (taskset, cpuset), cgroup CPU quota and memory limit
 * (containers, systemd slices), nice value. Read below a root like env_detect: on the live system
 * the mask comes from sched_getaffinity and nice from getpriority; in a fake tree from
 * proc/self/status (Cpus_allowed_list) and proc/self/stat. The cgroup of proc/self/cgroup is looked
 * up in sys/fs/cgroup (v2 unified, or v1 cpu / memory hierarchies); the tightest limit of the cgroup
 * and its ancestors counts.
 * ------------------------------------------------------------------------------------------- */

#define ENV_MAX_CPUS 1024

typedef struct env_limits {
    int cpus_online;             /* from sys/devices/system/cpu/online; 0 unknown */
    int ncpus;                   /* CPUs in the affinity mask; 0 unknown */
    int cpus[ENV_MAX_CPUS];      /* their numbers, ascending */
    char cpu_list[ENV_STR];      /* the mask as a list, "0-3,8"; "unknown" */
    char cgroup[16];             /* "v2", "v1", "none" (no cgroup file) */
    double cpu_quota;            /* CPUs the cgroup quota allows (1.5 = 150 ms per 100 ms);
                                    0 = no quota, -1 = unknown */
    char cpu_quota_src[ENV_STR]; /* which file said so, e.g. "cpu.max 150000 100000 at /a/b" */
    long long mem_limit;         /* bytes; 0 = no limit, -1 = unknown */
    char mem_limit_src[ENV_STR];
    int nice;       /* the process's nice value */
    int nice_known; /* 0 when it could not be read */
    int nwarnings;  /* what will distort a run, one sentence each */
    char warnings[4][ENV_STR];
    int cpu_warning; /* index in warnings of "too few CPUs usable"; -1 when none */
} env_limits;

/* Warn below these: the ring's host thread, the CPU backend's kernel thread and the verification
 * pool need three CPUs to run without taking turns. */
#define ENV_MIN_CPUS 3
#define ENV_MIN_CPU_QUOTA 2.0
#define ENV_MIN_MEMORY (2LL << 30)

/* Fills *out from the tree under root ("/" or NULL for the live system) and its warnings.
 * Missing files give unknown fields, never an error. Returns 0, or -1 with errno EINVAL when out
 * is NULL. */
int env_limits_detect(const char *root, env_limits *out);

/* The CPUs this process may run on (the affinity mask), ascending, into cpus[max]. Returns how many
 * there are (more than max are counted but not stored), or -1 when the mask cannot be read or cpus
 * is NULL with max > 0. For sizing thread pools and pinning. */
int env_usable_cpus(const char *root, int *cpus, int max);

/* Writes cpus[0..n) (ascending) as a kernel CPU list, "0-3,8", into buf[size]. */
void env_format_cpu_list(const int *cpus, int n, char *buf, size_t size);

/* Calls fn(ctx, key, value) for the provenance keys: cpu_affinity, cpu_affinity_count, cpus_online,
 * cgroup, cpu_quota, memory_limit, nice, limits_warnings ("none" when none); unknown values are
 * "unknown". Returns like env_foreach. */
int env_limits_foreach(const env_limits *l, int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* The PCI vendor:device id ("10de:2330") of the device at bus_id ("0000:41:00.0"), read from
 * sys/bus/pci under root; "unknown" where that is absent (WSL2 has no PCI tree for the GPU).
 * Returns 0, or -1 with errno EINVAL when out or bus_id is NULL or size is 0. */
int env_pci_id(const char *root, const char *bus_id, char *out, size_t size);

/* NVML, loaded with dlopen. available is 0 (with reason) when the library or the device is absent. */
typedef struct env_nvml {
    int available;
    char reason[ENV_STR];
    char driver_version[64];
    int sm_clock_mhz, mem_clock_mhz;  /* -1 when not told */
    int pcie_gen, pcie_width;         /* current link; -1 when not told */
    int pcie_gen_max, pcie_width_max; /* -1 when not told */
} env_nvml;

/* Queries the device with PCI bus id pci_bus_id ("0000:41:00.0"). Returns 0 and fills *out;
 * out->available says whether the device was found. driver_version is filled whenever NVML itself
 * loads, even without a device ("unknown" otherwise). Returns -1 with errno EINVAL only when out is
 * NULL. */
int env_nvml_query(const char *pci_bus_id, env_nvml *out);

/* A GPU clock session: NVML kept open for the whole run, so that the clocks and the throttle
 * reasons can be read at the start and the end of every trial (a read costs microseconds; opening
 * NVML costs milliseconds). */
typedef struct env_clocks env_clocks;

/* Opens the session for the device at pci_bus_id. Returns 0, or -1 with the reason in reason (no
 * NVML, no such device): then every trial records its clocks as unknown. */
int env_clocks_open(const char *pci_bus_id, env_clocks **out, char *reason, size_t len);
/* Current SM and memory clocks (MHz, NaN when not told) and the clock-event (throttle) reason bits
 * (0 none; see NVML's nvmlClocksEventReason*: 0x1 GPU idle, 0x2 application clocks setting, 0x4 SW
 * power cap, 0x8 HW slowdown, 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake). */
void env_clocks_read(env_clocks *c, double *sm_mhz, double *mem_mhz, unsigned long long *reasons);
/* The SM clock a busy GPU should reach: the application clock, else the maximum; NaN unknown. */
double env_clocks_target_sm(env_clocks *c);
/* Locks the SM clock at the target (nvmlDeviceSetGpuLockedClocks; needs root). Returns 0, or -1
 * with NVML's reason. env_clocks_close undoes it. */
int env_clocks_lock(env_clocks *c, char *reason, size_t len);
int env_clocks_locked(const env_clocks *c);
/* Restores locked clocks, shuts NVML down, frees c (NULL is fine). */
void env_clocks_close(env_clocks *c);

#endif
