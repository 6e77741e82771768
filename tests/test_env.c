/* test_env.c - env_detect against fake machine trees, env_foreach's keys, env_nvml_query's answer.
 *
 * Each case builds a tree under a mkdtemp directory that looks like one kind of machine from the
 * inside (a WSL2 guest, a native host, a KVM guest, nothing at all, files with absurdly long lines)
 * and checks what env_detect makes of it. NVML is whatever this machine has, so only the invariants
 * of its answer are checked. Label: unit. Run: ctest -R test_env.
 */
#define _XOPEN_SOURCE 700

#include "check.h"
#include "env.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Building fake trees.
 * ------------------------------------------------------------------------------------------- */

/* Creates every directory of root/rel's parent, like mkdir -p. Returns 0 or -1. */
static int mkparents(const char *root, const char *rel)
{
    char path[4096];
    char *p;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", root, rel) >= sizeof path)
        return -1;
    for (p = path + strlen(root) + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

/* Writes text to root/rel, creating directories on the way. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[4096];
    FILE *f;
    CHECK(mkparents(root, rel) == 0);
    snprintf(path, sizeof path, "%s/%s", root, rel);
    f = fopen(path, "w");
    CHECK_MSG(f != NULL, "cannot create %s", path);
    if (f == NULL)
        return;
    fputs(text, f);
    fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes the tree at root, depth first, without following links. */
static void rm_tree(const char *root) { CHECK(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0); }

/* A fresh empty directory for one case; the caller removes it with rm_tree. */
static char *new_root(char *buf, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/ringbench-env-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(buf) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    return buf;
}

/* A cpuinfo of n processors; the hypervisor flag, when asked, sits mid-line as on real guests. */
static void put_cpuinfo(const char *root, int n, const char *model, int hypervisor)
{
    char text[8192];
    size_t used = 0;
    int i;
    text[0] = '\0';
    for (i = 0; i < n; i++) {
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "processor\t: %d\nvendor_id\t: GenuineIntel\nmodel name\t: %s\n"
                                 "flags\t\t: fpu vme de pse tsc msr %s sse sse2 avx2\n\n",
                                 i, model, hypervisor ? "hypervisor" : "hypervisorx xhypervisor");
        CHECK(used < sizeof text);
    }
    put(root, "proc/cpuinfo", text);
}

/* ---------------------------------------------------------------------------------------------
 * Cases.
 * ------------------------------------------------------------------------------------------- */

static void test_wsl2(void)
{
    char root[256];
    env_info e;
    new_root(root, sizeof root);
    put(root, "proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    put(root, "proc/version",
        "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0) "
        "#1 SMP Fri Mar 29 23:14:13 UTC 2024\n");
    put(root, "proc/sys/kernel/hostname", "DESKTOP-R1NG\n");
    put(root, "dev/dxg", "");
    put(root, "usr/lib/wsl/lib/libcuda.so", "");
    put(root, "proc/sys/fs/binfmt_misc/WSLInterop", "enabled\n");
    put(root, "etc/os-release",
        "NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nPRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nID=ubuntu\n");
    put_cpuinfo(root, 4, "AMD Ryzen 9 7950X 16-Core Processor", 1);
    put(root, "sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n");
    put(root, "sys/class/dmi/id/product_name", "Virtual Machine\n");

    CHECK_INT(env_detect(root, &e), 0);
    CHECK_INT(e.is_wsl2, 1);
    CHECK_STR(e.hostname, "DESKTOP-R1NG");
    CHECK_STR(e.os_pretty, "Ubuntu 22.04.4 LTS");
    CHECK_STR(e.kernel_release, "5.15.153.1-microsoft-standard-WSL2");
    CHECK(strncmp(e.kernel_version, "Linux version 5.15.153.1-microsoft", 34) == 0);
    CHECK_STR(e.cpu_model, "AMD Ryzen 9 7950X 16-Core Processor");
    CHECK_INT(e.cpu_count, 4);
    CHECK_MSG(strstr(e.wsl2_evidence, "osrelease contains 'microsoft-standard-WSL2'") != NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.wsl2_evidence, "/dev/dxg present") != NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.wsl2_evidence, "/usr/lib/wsl/lib present") != NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.wsl2_evidence, "libcuda.so") != NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.wsl2_evidence, "WSLInterop") != NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.wsl2_evidence, "WSL1") == NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.virt, "hypervisor (cpuinfo flag)") != NULL, "%s", e.virt);
    CHECK_MSG(strstr(e.virt, "Hyper-V") != NULL, "%s", e.virt);
    CHECK_MSG(strstr(e.virt, "Microsoft Corporation") != NULL, "%s", e.virt);
    rm_tree(root);
}

/* Real WSL2 hides DMI: the virtualisation must still be named, from WSL2 itself. Also /dev/dxg
 * alone is enough, for custom kernels that do not call themselves microsoft. */
static void test_wsl2_dxg_only(void)
{
    char root[256];
    env_info e;
    new_root(root, sizeof root);
    put(root, "proc/sys/kernel/osrelease", "6.6.36-custom\n");
    put(root, "dev/dxg", "");
    put_cpuinfo(root, 2, "Intel(R) Core(TM) i7", 1);
    CHECK_INT(env_detect(root, &e), 0);
    CHECK_INT(e.is_wsl2, 1);
    CHECK_STR(e.wsl2_evidence, "/dev/dxg present");
    CHECK_MSG(strstr(e.virt, "Hyper-V") != NULL, "%s", e.virt);
    rm_tree(root);
}

static void test_wsl1(void)
{
    char root[256];
    env_info e;
    new_root(root, sizeof root);
    put(root, "proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");
    put(root, "proc/version", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)\n");
    CHECK_INT(env_detect(root, &e), 0);
    CHECK_INT(e.is_wsl2, 0);
    CHECK_MSG(strstr(e.wsl2_evidence, "osrelease contains 'Microsoft'") != NULL, "%s", e.wsl2_evidence);
    CHECK_MSG(strstr(e.wsl2_evidence, "WSL1") != NULL, "%s", e.wsl2_evidence);
    rm_tree(root);
}

static void test_native(void)
{
    char root[256];
    env_info e;
    new_root(root, sizeof root);
    put(root, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
    put(root, "proc/version", "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP\n");
    put(root, "proc/sys/kernel/hostname", "rig\n");
    put(root, "etc/os-release", "PRETTY_NAME='Ubuntu 24.04.1 LTS'\n");
    put_cpuinfo(root, 3, "AMD EPYC 9654 96-Core Processor", 0);
    put(root, "sys/class/dmi/id/sys_vendor", "Supermicro\n");
    put(root, "sys/class/dmi/id/product_name", "AS -2125HS-TNR\n");
    CHECK_INT(env_detect(root, &e), 0);
    CHECK_INT(e.is_wsl2, 0);
    CHECK_STR(e.wsl2_evidence, "none");
    CHECK_STR(e.virt, "none");
    CHECK_STR(e.os_pretty, "Ubuntu 24.04.1 LTS");
    CHECK_STR(e.hostname, "rig");
    CHECK_INT(e.cpu_count, 3);
    rm_tree(root);
}

static void test_kvm_guest(void)
{
    char root[256];
    env_info e;
    new_root(root, sizeof root);
    put(root, "proc/sys/kernel/osrelease", "6.8.0-1015-nvidia\n");
    put(root, "etc/os-release", "NAME=Ubuntu\nPRETTY_NAME=\"Ubuntu 22.04 \\\"Jammy\\\"\"\n");
    put_cpuinfo(root, 16, "Intel(R) Xeon(R) Platinum 8480+", 1);
    put(root, "sys/class/dmi/id/sys_vendor", "QEMU\n");
    put(root, "sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
    CHECK_INT(env_detect(root, &e), 0);
    CHECK_INT(e.is_wsl2, 0);
    CHECK_STR(e.wsl2_evidence, "none");
    CHECK_STR(e.os_pretty, "Ubuntu 22.04 \"Jammy\"");
    CHECK_INT(e.cpu_count, 16);
    CHECK_MSG(strstr(e.virt, "hypervisor (cpuinfo flag)") != NULL, "%s", e.virt);
    CHECK_MSG(strstr(e.virt, "dmi: QEMU Standard PC (Q35 + ICH9, 2009)") != NULL, "%s", e.virt);
    CHECK_MSG(strstr(e.virt, "KVM") != NULL, "%s", e.virt);
    CHECK_MSG(strstr(e.virt, "Hyper-V") == NULL, "%s", e.virt);
    rm_tree(root);
}

static void test_empty(void)
{
    char root[256];
    env_info e;
    new_root(root, sizeof root);
    CHECK_INT(env_detect(root, &e), 0);
    CHECK_STR(e.hostname, "unknown"); /* not this machine's name: the tree is not the live system */
    CHECK_STR(e.os_pretty, "unknown");
    CHECK_STR(e.kernel_release, "unknown");
    CHECK_STR(e.kernel_version, "unknown");
    CHECK_STR(e.cpu_model, "unknown");
    CHECK_STR(e.virt, "unknown");
    CHECK_STR(e.wsl2_evidence, "none");
    CHECK_INT(e.is_wsl2, 0);
    CHECK_INT(e.cpu_count, 0);
    CHECK_INT(env_detect(root, NULL), -1);
    rm_tree(root);
    /* A root that does not exist at all reads the same as an empty one. */
    CHECK_INT(env_detect("/nonexistent/ringbench/root", &e), 0);
    CHECK_STR(e.kernel_release, "unknown");
}

/* Files whose lines are far longer than any field: cut, terminated, and the lines after them are
 * still read (the processor after a 20 KiB flags line is counted, the hypervisor flag at its end
 * is seen). */
static void test_long_lines(void)
{
    static char big[20000], text[4 * sizeof big];
    char root[256];
    env_info e;
    size_t i;
    new_root(root, sizeof root);
    for (i = 0; i + 1 < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    big[sizeof big - 1] = '\0';

    snprintf(text, sizeof text, "%s\n", big);
    put(root, "proc/sys/kernel/hostname", text);
    put(root, "proc/sys/kernel/osrelease", text);
    put(root, "proc/version", text);
    put(root, "sys/class/dmi/id/sys_vendor", text);
    put(root, "sys/class/dmi/id/product_name", text);
    snprintf(text, sizeof text, "ID=x\nPRETTY_NAME=\"%s\"\n", big);
    put(root, "etc/os-release", text);
    CHECK(snprintf(text, sizeof text,
                   "processor\t: 0\nmodel name\t: %s\nflags\t\t: %s hypervisor\n%s: x\n\n"
                   "processor\t: 1\n",
                   big, big, big) < (int)sizeof text);
    put(root, "proc/cpuinfo", text);

    CHECK_INT(env_detect(root, &e), 0);
    CHECK_INT(strlen(e.hostname), ENV_STR - 1);
    CHECK(strncmp(e.hostname, big, ENV_STR - 1) == 0);
    CHECK_INT(strlen(e.kernel_release), ENV_STR - 1);
    CHECK_INT(strlen(e.kernel_version), ENV_STR - 1);
    CHECK_INT(strlen(e.os_pretty), ENV_STR - 1);
    CHECK(strncmp(e.os_pretty, big, ENV_STR - 1) == 0);
    CHECK_INT(strlen(e.cpu_model), ENV_STR - 1);
    CHECK(strncmp(e.cpu_model, big, ENV_STR - 1) == 0);
    CHECK_INT(e.cpu_count, 2);
    CHECK(strlen(e.virt) < sizeof e.virt);
    CHECK_MSG(strncmp(e.virt, "hypervisor (cpuinfo flag); dmi: ", 32) == 0, "%s", e.virt);
    CHECK(strlen(e.wsl2_evidence) < sizeof e.wsl2_evidence);
    rm_tree(root);
}

/* The live system: no assertion on what it is, only that every field is filled and terminated. */
static void test_live(void)
{
    env_info e;
    CHECK_INT(env_detect(NULL, &e), 0);
    CHECK(e.hostname[0] != '\0' && strcmp(e.hostname, "unknown") != 0);
    CHECK(e.kernel_release[0] != '\0');
    CHECK(e.is_wsl2 == 0 || e.is_wsl2 == 1);
    CHECK(e.cpu_count > 0);
    printf("live: %s | %s | wsl2=%d (%s) | virt: %s | %d x %s\n", e.os_pretty, e.kernel_release, e.is_wsl2,
           e.wsl2_evidence, e.virt, e.cpu_count, e.cpu_model);
}

/* ---------------------------------------------------------------------------------------------
 * env_foreach.
 * ------------------------------------------------------------------------------------------- */

static const char *const want_keys[] = {"hostname",       "os",        "kernel_release",
                                        "kernel_version", "wsl2",      "wsl2_evidence",
                                        "virtualization", "cpu_model", "cpu_count"};
#define NKEYS (sizeof want_keys / sizeof want_keys[0])

typedef struct seen {
    int count[NKEYS];
    int calls, stop_after;
    char wsl2[8], cpu_count[32];
} seen;

static int collect(void *ctx, const char *key, const char *value)
{
    seen *s = ctx;
    size_t i;
    s->calls++;
    CHECK(value != NULL);
    for (i = 0; i < NKEYS; i++)
        if (strcmp(key, want_keys[i]) == 0)
            s->count[i]++;
    if (strcmp(key, "wsl2") == 0)
        snprintf(s->wsl2, sizeof s->wsl2, "%s", value);
    if (strcmp(key, "cpu_count") == 0)
        snprintf(s->cpu_count, sizeof s->cpu_count, "%s", value);
    return s->calls == s->stop_after ? 42 : 0;
}

static void test_foreach(void)
{
    env_info e;
    seen s;
    size_t i;
    memset(&e, 0, sizeof e);
    strcpy(e.hostname, "h");
    e.is_wsl2 = 1;
    e.cpu_count = 12;

    memset(&s, 0, sizeof s);
    CHECK_INT(env_foreach(&e, collect, &s), 0);
    CHECK_INT(s.calls, NKEYS);
    for (i = 0; i < NKEYS; i++)
        CHECK_MSG(s.count[i] == 1, "key %s seen %d times", want_keys[i], s.count[i]);
    CHECK_STR(s.wsl2, "1");
    CHECK_STR(s.cpu_count, "12");

    memset(&s, 0, sizeof s);
    s.stop_after = 3;
    CHECK_INT(env_foreach(&e, collect, &s), 42);
    CHECK_INT(s.calls, 3);

    e.is_wsl2 = 0;
    e.cpu_count = 0;
    memset(&s, 0, sizeof s);
    CHECK_INT(env_foreach(&e, collect, &s), 0);
    CHECK_STR(s.wsl2, "0");
    CHECK_STR(s.cpu_count, "unknown");
    CHECK_INT(env_foreach(NULL, collect, &s), -1);
    CHECK_INT(env_foreach(&e, NULL, &s), -1);
}

/* ---------------------------------------------------------------------------------------------
 * NVML: present on a GPU machine, absent here; either answer must be well formed.
 * ------------------------------------------------------------------------------------------- */

/* The PCI vendor:device id from sysfs, whatever the case of the bus id; "unknown" without it. */
static void test_pci_id(void)
{
    char root[256], id[64];
    new_root(root, sizeof root);
    put(root, "/sys/bus/pci/devices/0000:41:00.0/vendor", "0x10de\n");
    put(root, "/sys/bus/pci/devices/0000:41:00.0/device", "0x2330\n");
    CHECK(env_pci_id(root, "0000:41:00.0", id, sizeof id) == 0);
    CHECK_STR(id, "10de:2330");
    put(root, "/sys/bus/pci/devices/0000:4a:00.0/vendor", "0x10de\n");
    put(root, "/sys/bus/pci/devices/0000:4a:00.0/device", "0x2331\n");
    CHECK(env_pci_id(root, "0000:4A:00.0", id, sizeof id) == 0);
    CHECK_STR(id, "10de:2331");
    CHECK(env_pci_id(root, "0000:99:00.0", id, sizeof id) == 0);
    CHECK_STR(id, "unknown");
    CHECK(env_pci_id(root, "../../x", id, sizeof id) == 0);
    CHECK_STR(id, "unknown");
    CHECK(env_pci_id(root, NULL, id, sizeof id) == -1);
    rm_tree(root);
}

static void test_nvml(void)
{
    env_nvml n;
    CHECK_INT(env_nvml_query("0000:00:00.0", &n), 0);
    CHECK(n.available == 0 || n.available == 1);
    CHECK(strlen(n.reason) < sizeof n.reason);
    CHECK(strlen(n.driver_version) < sizeof n.driver_version);
    if (n.available == 0) {
        CHECK_MSG(n.reason[0] != '\0', "unavailable without a reason");
        CHECK_INT(n.sm_clock_mhz, -1);
        CHECK_INT(n.pcie_gen, -1);
    } else {
        CHECK(n.sm_clock_mhz == -1 || n.sm_clock_mhz > 0);
        CHECK(n.mem_clock_mhz == -1 || n.mem_clock_mhz > 0);
        CHECK(n.pcie_gen == -1 || n.pcie_gen > 0);
        CHECK(n.pcie_width == -1 || n.pcie_width > 0);
        CHECK(n.pcie_gen_max == -1 || n.pcie_gen_max > 0);
        CHECK(n.pcie_width_max == -1 || n.pcie_width_max > 0);
    }
    printf("nvml: available=%d reason='%s' driver=%s\n", n.available, n.reason, n.driver_version);
    CHECK_INT(env_nvml_query(NULL, &n), 0);
    CHECK_INT(n.available, 0);
    CHECK(n.reason[0] != '\0');
    CHECK_INT(env_nvml_query(NULL, NULL), -1);
}

/* ---------------------------------------------------------------------------------------------
 * Limits: affinity mask, cgroup quota and memory, nice.
 * ------------------------------------------------------------------------------------------- */

/* proc/self/stat with the given nice value and a command name holding ") " to trip naive parsers. */
static void put_stat(const char *root, int nice)
{
    char text[512];
    snprintf(text, sizeof text, "4242 (ring bench) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 %d %d 3 0 5 0 0\n",
             20 + nice, nice);
    put(root, "proc/self/stat", text);
}

static int has_warning(const env_limits *l, const char *what)
{
    int i;
    for (i = 0; i < l->nwarnings; i++)
        if (strstr(l->warnings[i], what) != NULL)
            return 1;
    return 0;
}

/* A container on cgroup v2: taskset to two CPUs of 16, 1.5 CPUs of quota, 1 GiB, nice 5. */
static void test_limits_container_v2(void)
{
    char root[256];
    env_limits l;
    int cpus[8];
    new_root(root, sizeof root);
    put(root, "proc/self/status", "Name:\tringbench\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n");
    put(root, "sys/devices/system/cpu/online", "0-15\n");
    put(root, "proc/self/cgroup", "0::/docker/abc\n");
    put(root, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    put(root, "sys/fs/cgroup/docker/cpu.max", "max 100000\n");
    put(root, "sys/fs/cgroup/docker/abc/cpu.max", "150000 100000\n");
    put(root, "sys/fs/cgroup/docker/abc/memory.max", "1073741824\n");
    put_stat(root, 5);
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_INT(l.ncpus, 2);
    CHECK_INT(l.cpus[0], 0);
    CHECK_INT(l.cpus[1], 1);
    CHECK_STR(l.cpu_list, "0-1");
    CHECK_INT(l.cpus_online, 16);
    CHECK_STR(l.cgroup, "v2");
    CHECK_NEAR(l.cpu_quota, 1.5, 1e-9);
    CHECK_MSG(strstr(l.cpu_quota_src, "/sys/fs/cgroup/docker/abc") != NULL, "%s", l.cpu_quota_src);
    CHECK_INT(l.mem_limit, 1073741824LL);
    CHECK_INT(l.nice_known, 1);
    CHECK_INT(l.nice, 5);
    CHECK_INT(l.nwarnings, 4);
    CHECK(has_warning(&l, "only 2 CPUs usable (affinity 0-1, fewer than the machine has online)"));
    CHECK(has_warning(&l, "CPU quota of 1.50 CPUs"));
    CHECK(has_warning(&l, "memory limit of 1024 MiB"));
    CHECK(has_warning(&l, "nice 5"));
    CHECK_INT(env_usable_cpus(root, cpus, 8), 2);
    CHECK_INT(env_usable_cpus(root, cpus, 1), 2); /* counted past max, not stored */
    CHECK_INT(env_usable_cpus(root, NULL, 0), 2);
    CHECK_INT(env_usable_cpus(root, NULL, 4), -1);
    rm_tree(root);
}

/* The tightest limit of the cgroup and its ancestors counts; a cgroup path the tree does not have
 * (a container without a cgroup namespace sees the host's path) falls back to the mount itself. */
static void test_limits_v2_ancestors(void)
{
    char root[256];
    env_limits l;
    new_root(root, sizeof root);
    put(root, "proc/self/status", "Cpus_allowed_list:\t0-7\n");
    put(root, "proc/self/cgroup", "0::/a/b\n");
    put(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
    put(root, "sys/fs/cgroup/a/cpu.max", "50000 100000\n");
    put(root, "sys/fs/cgroup/a/b/cpu.max", "200000 100000\n");
    put(root, "sys/fs/cgroup/a/memory.max", "max\n");
    put(root, "sys/fs/cgroup/a/b/memory.max", "8589934592\n");
    put_stat(root, 0);
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_NEAR(l.cpu_quota, 0.5, 1e-9);
    CHECK_MSG(strstr(l.cpu_quota_src, "in /sys/fs/cgroup/a") != NULL && strstr(l.cpu_quota_src, "/a/b") == NULL, "%s",
              l.cpu_quota_src);
    CHECK_INT(l.mem_limit, 8589934592LL);
    CHECK_INT(l.nwarnings, 1);
    CHECK(has_warning(&l, "CPU quota of 0.50 CPUs"));
    rm_tree(root);

    new_root(root, sizeof root);
    put(root, "proc/self/status", "Cpus_allowed_list:\t0-7\n");
    put(root, "proc/self/cgroup", "0::/system.slice/docker-1234.scope\n");
    put(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
    put(root, "sys/fs/cgroup/cpu.max", "400000 100000\n");
    put(root, "sys/fs/cgroup/memory.max", "max\n");
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_NEAR(l.cpu_quota, 4.0, 1e-9);
    CHECK_INT(l.mem_limit, 0);
    CHECK_INT(l.nice_known, 0);
    CHECK_INT(l.nwarnings, 0);
    rm_tree(root);
}

/* cgroup v1: cpu,cpuacct and memory hierarchies; the v1 "no limit" memory value is no limit. */
static void test_limits_v1(void)
{
    char root[256];
    env_limits l;
    new_root(root, sizeof root);
    put(root, "proc/self/status", "Cpus_allowed_list:\t0-3,8\n");
    put(root, "sys/devices/system/cpu/online", "0-11\n");
    put(root, "proc/self/cgroup", "12:pids:/docker/abc\n4:cpu,cpuacct:/docker/abc\n9:memory:/docker/abc\n");
    put(root, "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "300000\n");
    put(root, "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    put(root, "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
    put_stat(root, 0);
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_STR(l.cgroup, "v1");
    CHECK_INT(l.ncpus, 5);
    CHECK_INT(l.cpus[4], 8);
    CHECK_STR(l.cpu_list, "0-3,8");
    CHECK_NEAR(l.cpu_quota, 3.0, 1e-9);
    CHECK_MSG(strstr(l.cpu_quota_src, "cgroup v1") != NULL, "%s", l.cpu_quota_src);
    CHECK_INT(l.mem_limit, 0);
    CHECK_STR(l.mem_limit_src, "none");
    CHECK_INT(l.nice, 0);
    CHECK_INT(l.nwarnings, 0);
    put(root, "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    put(root, "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "536870912\n");
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_INT(l.cpu_quota, 0);
    CHECK_INT(l.mem_limit, 536870912LL);
    CHECK(has_warning(&l, "memory limit of 512 MiB"));
    rm_tree(root);
}

/* Nothing to read, or nonsense: unknown, and no warning made up. */
static void test_limits_empty(void)
{
    char root[256];
    env_limits l;
    new_root(root, sizeof root);
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_INT(l.ncpus, 0);
    CHECK_STR(l.cpu_list, "unknown");
    CHECK_STR(l.cgroup, "none");
    CHECK(l.cpu_quota < 0);
    CHECK(l.mem_limit < 0);
    CHECK_INT(l.nice_known, 0);
    CHECK_INT(l.nwarnings, 0);
    CHECK_INT(env_usable_cpus(root, NULL, 0), -1);
    put(root, "proc/self/status", "Cpus_allowed_list:\t3-1\n");
    put(root, "proc/self/stat", "no parentheses here\n");
    CHECK_INT(env_limits_detect(root, &l), 0);
    CHECK_INT(l.ncpus, 0);
    CHECK_INT(l.nice_known, 0);
    CHECK_INT(env_limits_detect(root, NULL), -1);
    rm_tree(root);
}

/* The live process: a mask that includes at least one CPU, agreeing with env_usable_cpus. */
static void test_limits_live(void)
{
    env_limits l;
    int cpus[ENV_MAX_CPUS], i;
    CHECK_INT(env_limits_detect(NULL, &l), 0);
    CHECK(l.ncpus > 0);
    CHECK_INT(env_usable_cpus(NULL, cpus, ENV_MAX_CPUS), l.ncpus);
    CHECK(l.nice_known);
    printf("live limits: cpus %s (%d of %d online), cgroup %s, quota %.2f (%s), memory %lld (%s), nice %d\n",
           l.cpu_list, l.ncpus, l.cpus_online, l.cgroup, l.cpu_quota, l.cpu_quota_src, l.mem_limit, l.mem_limit_src,
           l.nice);
    for (i = 0; i < l.nwarnings; i++)
        printf("live warning: %s\n", l.warnings[i]);
}

typedef struct limit_kv {
    char keys[512];
    char quota[300], warnings[1200], count[32];
} limit_kv;

static int collect_limits(void *ctx, const char *key, const char *value)
{
    limit_kv *kv = ctx;
    snprintf(kv->keys + strlen(kv->keys), sizeof kv->keys - strlen(kv->keys), "%s ", key);
    if (strcmp(key, "cpu_quota") == 0)
        snprintf(kv->quota, sizeof kv->quota, "%s", value);
    if (strcmp(key, "limits_warnings") == 0)
        snprintf(kv->warnings, sizeof kv->warnings, "%s", value);
    if (strcmp(key, "cpu_affinity_count") == 0)
        snprintf(kv->count, sizeof kv->count, "%s", value);
    return 0;
}

static void test_limits_foreach(void)
{
    env_limits l;
    limit_kv kv;
    memset(&l, 0, sizeof l);
    strcpy(l.cpu_list, "0-1");
    strcpy(l.cgroup, "v2");
    strcpy(l.cpu_quota_src, "cpu.max");
    l.ncpus = 2;
    l.cpu_quota = 1.5;
    l.mem_limit = -1;
    l.nwarnings = 2;
    strcpy(l.warnings[0], "first");
    strcpy(l.warnings[1], "second");
    memset(&kv, 0, sizeof kv);
    CHECK_INT(env_limits_foreach(&l, collect_limits, &kv), 0);
    CHECK_STR(kv.keys, "cpu_affinity cpu_affinity_count cpus_online cgroup cpu_quota memory_limit nice "
                       "limits_warnings ");
    CHECK_STR(kv.quota, "1.50 CPUs (cpu.max)");
    CHECK_STR(kv.warnings, "first; second");
    CHECK_STR(kv.count, "2");
    l.nwarnings = 0;
    l.cpu_quota = 0;
    memset(&kv, 0, sizeof kv);
    CHECK_INT(env_limits_foreach(&l, collect_limits, &kv), 0);
    CHECK_STR(kv.warnings, "none");
    CHECK_STR(kv.quota, "none");
    CHECK_INT(env_limits_foreach(NULL, collect_limits, &kv), -1);
}

int main(void)
{
    test_wsl2();
    test_wsl2_dxg_only();
    test_wsl1();
    test_native();
    test_kvm_guest();
    test_empty();
    test_long_lines();
    test_live();
    test_foreach();
    test_pci_id();
    test_nvml();
    test_limits_container_v2();
    test_limits_v2_ancestors();
    test_limits_v1();
    test_limits_empty();
    test_limits_live();
    test_limits_foreach();
    CHECK_DONE();
}
