/* env.c - what machine is this: reads the kernel, distribution, CPU and virtualisation signs.
 *
 * Every file is read below a root directory ("/" or NULL for the live system) so that the unit test
 * (tests/test_env.c) can point the detection at fake trees: a WSL2 guest, a native host, a KVM
 * guest, an empty directory. Nothing here fails on a missing or odd file: the field becomes
 * "unknown" and detection goes on, because a provenance record with a hole beats no record.
 *
 * All reads are bounded and every string lands in a fixed buffer of env_info, truncated on overflow
 * and always NUL-terminated. The signs that make a machine WSL2 are listed in REFERENCE.md ("How a
 * WSL2 machine looks from inside").
 */
#define _GNU_SOURCE /* sched_getaffinity and the CPU_* macros */

#include "env.h"
#include "wsl.h"

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

#include "env_internal.h"

/* ---------------------------------------------------------------------------------------------
 * Small string helpers. Each keeps dst NUL-terminated whatever the input length.
 * ------------------------------------------------------------------------------------------- */

/* Copies src into dst[size], truncating. */
void env_copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Appends src to the string in dst[size], truncating; a full buffer simply stays full. */
void env_append(char *dst, size_t size, const char *src)
{
    size_t used = strnlen(dst, size);
    if (used + 1 >= size)
        return;
    env_copy(dst + used, size - used, src);
}

/* Appends src, preceded by "; " when dst already holds something: the evidence and virt lists. */
void env_append_item(char *dst, size_t size, const char *src)
{
    if (dst[0] != '\0')
        env_append(dst, size, "; ");
    env_append(dst, size, src);
}

/* Removes trailing whitespace (the newline every /proc file ends with) in place. */
void env_rtrim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

/* Returns s past its leading whitespace. */
static char *env_ltrim(char *s)
{
    while (*s != '\0' && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Case-insensitive strstr: the kernel says "Microsoft" on WSL1 and "microsoft" on WSL2. Returns a
 * pointer to the first match in hay, or NULL. */
static const char *env_find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay != '\0'; hay++) {
        size_t i = 0;
        while (i < n && hay[i] != '\0' && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return hay;
    }
    return NULL;
}

static int env_is_unknown(const char *s) { return s[0] == '\0' || strcmp(s, ENV_UNKNOWN) == 0; }

/* ---------------------------------------------------------------------------------------------
 * File access below the root.
 * ------------------------------------------------------------------------------------------- */

/* Builds root + rel into path[size]. rel starts with '/'. Returns 0, or -1 when the result would
 * not fit (a root that long is treated as having no such file, never as a truncated path). */
static int env_path(const char *root, const char *rel, char *path, size_t size)
{
    size_t rlen = strlen(root);
    /* "/" and "/tmp/x/" would give "//proc" or "/tmp/x//proc": harmless to open, but clean paths
     * read better in a debugger or strace. */
    while (rlen > 0 && root[rlen - 1] == '/')
        rlen--;
    if (rlen + strlen(rel) + 1 > size)
        return -1;
    memcpy(path, root, rlen);
    env_copy(path + rlen, size - rlen, rel);
    return 0;
}

/* Returns 1 when root+rel exists (file, directory or device), else 0. */
int env_exists(const char *root, const char *rel)
{
    char path[ENV_PATH_MAX];
    struct stat st;
    if (env_path(root, rel, path, sizeof path) != 0)
        return 0;
    return stat(path, &st) == 0;
}

FILE *env_open(const char *root, const char *rel)
{
    char path[ENV_PATH_MAX];
    if (env_path(root, rel, path, sizeof path) != 0)
        return NULL;
    return fopen(path, "r");
}

/* Reads one line from f into buf[size], truncated to fit; the rest of an over-long line is consumed
 * so that the next call starts on the next line. Returns 0, or -1 at end of file. */
static int env_read_line(FILE *f, char *buf, size_t size)
{
    int c;
    if (fgets(buf, (int)size, f) == NULL)
        return -1;
    if (strchr(buf, '\n') == NULL)
        while ((c = getc(f)) != EOF && c != '\n') {
        }
    env_rtrim(buf);
    return 0;
}

/* Reads the first line of root+rel into out[size], trimmed. Returns 0, or -1 (out is then
 * "unknown") when the file is missing, unreadable or holds nothing but whitespace. */
int env_read_first_line(const char *root, const char *rel, char *out, size_t size)
{
    FILE *f = env_open(root, rel);
    int rc = -1;
    if (f != NULL) {
        if (env_read_line(f, out, size) == 0 && out[0] != '\0')
            rc = 0;
        fclose(f);
    }
    if (rc != 0)
        env_copy(out, size, ENV_UNKNOWN);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * One reader per source.
 * ------------------------------------------------------------------------------------------- */

int env_is_live(const char *root) { return root == NULL || root[0] == '\0' || strcmp(root, "/") == 0; }

/* The hostname of the tree; gethostname() only for the live system, since a fake tree without the
 * file must not report the test machine's name. */
static void env_read_hostname(const char *root, env_info *out)
{
    if (env_read_first_line(root, "/proc/sys/kernel/hostname", out->hostname, sizeof out->hostname) == 0)
        return;
    if (env_is_live(root)) {
        char name[ENV_STR + 1];
        if (gethostname(name, sizeof name) == 0) {
            name[sizeof name - 1] = '\0'; /* POSIX leaves truncated names unterminated */
            env_rtrim(name);
            if (name[0] != '\0')
                env_copy(out->hostname, sizeof out->hostname, name);
        }
    }
}

/* Removes the shell-style quotes of an os-release value in place: "Ubuntu 22.04.4 LTS" or
 * 'Debian'. Backslash escapes inside double quotes are resolved; a value cut short by the line
 * limit has no closing quote and keeps what it has. */
static void env_unquote(char *v)
{
    char q = v[0];
    size_t r = 1, w = 0;
    if (q != '"' && q != '\'')
        return;
    for (; v[r] != '\0' && v[r] != q; r++) {
        if (q == '"' && v[r] == '\\' && v[r + 1] != '\0')
            r++;
        v[w++] = v[r];
    }
    v[w] = '\0';
}

/* PRETTY_NAME from etc/os-release, falling back to usr/lib/os-release as os-release(5) says. */
static void env_read_os(const char *root, env_info *out)
{
    static const char *const files[] = {"/etc/os-release", "/usr/lib/os-release"};
    char line[ENV_LINE_MAX];
    size_t i;

    env_copy(out->os_pretty, sizeof out->os_pretty, ENV_UNKNOWN);
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = env_open(root, files[i]);
        int found = 0;
        if (f == NULL)
            continue;
        while (!found && env_read_line(f, line, sizeof line) == 0) {
            char *s = env_ltrim(line);
            if (strncmp(s, "PRETTY_NAME=", 12) != 0)
                continue;
            s += 12;
            env_unquote(s);
            env_rtrim(s);
            if (s[0] != '\0') {
                env_copy(out->os_pretty, sizeof out->os_pretty, s);
                found = 1;
            }
        }
        fclose(f);
        if (found)
            return;
    }
}

/* proc/cpuinfo is parsed a character at a time rather than a line at a time because its "flags"
 * line can be kilobytes long and the `hypervisor` flag may sit anywhere in it; streaming the tokens
 * needs no line limit and cannot overflow. Keys longer than the key buffer are cut (no real key is
 * near that long); values we do not need are skipped. */
typedef struct env_cpuinfo {
    char model[ENV_STR];
    int count;
    int hypervisor;
    int readable; /* 0 when proc/cpuinfo could not be opened: no flag then proves nothing */
} env_cpuinfo;

/* Reads the key of one "key<TAB>: value" line into key[size], trimmed. Returns the character that
 * ended it: ':' (a value follows), '\n' or EOF. */
static int env_cpuinfo_key(FILE *f, char *key, size_t size)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF && c != ':' && c != '\n')
        if (n + 1 < size)
            key[n++] = (char)c;
    key[n] = '\0';
    env_rtrim(key);
    return c;
}

/* Scans the value of a "flags" line for the `hypervisor` token. Returns 1 when it is there. */
static int env_cpuinfo_flags(FILE *f)
{
    char tok[16];
    size_t n = 0;
    int c, overlong = 0, found = 0;
    do {
        c = getc(f);
        if (c == EOF || c == '\n' || isspace(c)) {
            if (!overlong && n > 0) {
                tok[n] = '\0';
                if (strcmp(tok, "hypervisor") == 0)
                    found = 1;
            }
            n = 0;
            overlong = 0;
        } else if (n + 1 < sizeof tok) {
            tok[n++] = (char)c;
        } else {
            overlong = 1; /* longer than "hypervisor": cannot be it */
        }
    } while (c != EOF && c != '\n');
    return found;
}

/* Reads the rest of the current line into buf[size] (truncated, trimmed), or skips it when buf is
 * NULL. */
static void env_cpuinfo_value(FILE *f, char *buf, size_t size)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n')
        if (buf != NULL && n + 1 < size)
            buf[n++] = (char)c;
    if (buf == NULL)
        return;
    buf[n] = '\0';
    env_rtrim(buf);
}

static void env_read_cpuinfo(const char *root, env_cpuinfo *ci)
{
    char key[64];
    FILE *f = env_open(root, "/proc/cpuinfo");

    env_copy(ci->model, sizeof ci->model, ENV_UNKNOWN);
    ci->count = 0;
    ci->hypervisor = 0;
    ci->readable = f != NULL;
    if (f == NULL)
        return;
    for (;;) {
        int end = env_cpuinfo_key(f, key, sizeof key);
        if (end == ':') {
            if (strcmp(key, "flags") == 0) {
                if (env_cpuinfo_flags(f))
                    ci->hypervisor = 1;
            } else if (strcmp(key, "model name") == 0 && env_is_unknown(ci->model)) {
                char v[ENV_STR + 1];
                char *s;
                env_cpuinfo_value(f, v, sizeof v);
                s = env_ltrim(v);
                if (s[0] != '\0')
                    env_copy(ci->model, sizeof ci->model, s);
            } else {
                if (strcmp(key, "processor") == 0)
                    ci->count++;
                env_cpuinfo_value(f, NULL, 0);
            }
        }
        if (end == EOF)
            break;
        /* A value reader stops at '\n' or EOF; EOF is seen again by the next key read. */
    }
    fclose(f);
}

/* Names the hypervisor that DMI vendor/product strings point to, or NULL when they look like a
 * physical machine's (Dell, Supermicro, ...). Only hints that vendors document are listed. */
static const char *env_dmi_hypervisor(const char *vendor, const char *product)
{
    if (env_find_ci(vendor, "Microsoft") && env_find_ci(product, "Virtual Machine"))
        return "Hyper-V";
    if (env_find_ci(vendor, "QEMU") || env_find_ci(product, "QEMU"))
        return "KVM/QEMU";
    if (env_find_ci(product, "KVM"))
        return "KVM";
    if (env_find_ci(vendor, "VMware") || env_find_ci(product, "VMware"))
        return "VMware";
    if (env_find_ci(vendor, "innotek") || env_find_ci(product, "VirtualBox"))
        return "VirtualBox";
    if (env_find_ci(vendor, "Xen") || env_find_ci(product, "HVM domU"))
        return "Xen";
    if (env_find_ci(vendor, "Amazon EC2"))
        return "Amazon EC2";
    if (env_find_ci(product, "Google Compute Engine"))
        return "Google Compute Engine";
    if (env_find_ci(vendor, "Parallels"))
        return "Parallels";
    return NULL;
}

/* Describes the virtualisation in words: the signs joined by "; ", e.g.
 * "hypervisor (cpuinfo flag); dmi: QEMU Standard PC (i440FX + PIIX, 1996) -> KVM/QEMU"; "none" when
 * cpuinfo was read and nothing points to a hypervisor; "unknown" when there was nothing to read. */
static void env_read_virt(const char *root, const env_cpuinfo *ci, int is_wsl2, env_info *out)
{
    int hypervisor_flag = ci->hypervisor;
    char vendor[ENV_STR], product[ENV_STR], xen[64], item[2 * ENV_STR + 64];
    const char *dmi_hv;
    int have_dmi;

    env_read_first_line(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
    env_read_first_line(root, "/sys/class/dmi/id/product_name", product, sizeof product);
    have_dmi = !env_is_unknown(vendor) || !env_is_unknown(product);
    dmi_hv = have_dmi ? env_dmi_hypervisor(vendor, product) : NULL;

    out->virt[0] = '\0';
    if (hypervisor_flag)
        env_append_item(out->virt, sizeof out->virt, "hypervisor (cpuinfo flag)");
    /* DMI is reported when it names a hypervisor, and also when the CPU flag already says
     * "virtual", since the vendor string then tells which cloud or hypervisor it is. */
    if (have_dmi && (dmi_hv != NULL || hypervisor_flag)) {
        snprintf(item, sizeof item, "dmi: %s%s%s%s%s", env_is_unknown(vendor) ? "" : vendor,
                 !env_is_unknown(vendor) && !env_is_unknown(product) ? " " : "", env_is_unknown(product) ? "" : product,
                 dmi_hv != NULL ? " -> " : "", dmi_hv != NULL ? dmi_hv : "");
        env_append_item(out->virt, sizeof out->virt, item);
    }
    if (env_read_first_line(root, "/sys/hypervisor/type", xen, sizeof xen) == 0) {
        snprintf(item, sizeof item, "sys/hypervisor/type: %s", xen);
        env_append_item(out->virt, sizeof out->virt, item);
    }
    /* WSL2 hides DMI, but it always runs in Hyper-V's lightweight utility VM: say so, because the
     * CPU flag alone does not name the hypervisor. */
    if (is_wsl2 && dmi_hv == NULL)
        env_append_item(out->virt, sizeof out->virt, "Hyper-V (WSL2 utility VM)");
    if (out->virt[0] == '\0')
        env_copy(out->virt, sizeof out->virt, ci->readable ? "none" : ENV_UNKNOWN);
}

/* Quotes the word of s starting at match (up to whitespace or '(') into the evidence, e.g.
 * "osrelease contains 'microsoft-standard-WSL2'". */
static void env_evidence_word(env_info *out, const char *what, const char *match)
{
    char word[96], item[160];
    size_t n = 0;
    while (match[n] != '\0' && !isspace((unsigned char)match[n]) && match[n] != '(' && n + 1 < sizeof word)
        n++;
    memcpy(word, match, n);
    word[n] = '\0';
    snprintf(item, sizeof item, "%s contains '%s'", what, word);
    env_append_item(out->wsl2_evidence, sizeof out->wsl2_evidence, item);
}

/* Where a kernel string mentions Microsoft/WSL, returns the start of that mention, else NULL. */
static const char *env_kernel_mention(const char *s)
{
    const char *m = env_find_ci(s, "microsoft");
    return m != NULL ? m : strstr(s, "WSL");
}

/* Sets is_wsl2 and its evidence. The decision is wsl.c's, the one WSL detector (WSL2 by the kernel
 * string or /dev/dxg, the GPU paravirtualisation device that exists nowhere else; a container inside
 * WSL2 is WSL2 here); this only words the evidence for the provenance key wsl2_evidence. The WSL
 * user-mode driver directory and the WSLInterop binfmt entry are supporting signs that decide nothing
 * on their own. */
static void env_detect_wsl(const char *root, env_info *out)
{
    const char *m_rel = env_kernel_mention(out->kernel_release);
    const char *m_ver = env_kernel_mention(out->kernel_version);
    wsl_info w;
    wsl_detect(root, NULL, NULL, &w);
    int dxg = w.dxg;
    char *ev = out->wsl2_evidence;
    size_t evsz = sizeof out->wsl2_evidence;

    ev[0] = '\0';
    if (m_rel != NULL)
        env_evidence_word(out, "osrelease", m_rel);
    else if (m_ver != NULL)
        env_evidence_word(out, "proc/version", m_ver);
    if (dxg)
        env_append_item(ev, evsz, "/dev/dxg present");
    if (env_exists(root, "/usr/lib/wsl/lib")) {
        env_append_item(ev, evsz,
                        env_exists(root, "/usr/lib/wsl/lib/libcuda.so") ? "/usr/lib/wsl/lib present (libcuda.so there)"
                                                                        : "/usr/lib/wsl/lib present");
    }
    if (env_exists(root, "/proc/sys/fs/binfmt_misc/WSLInterop"))
        env_append_item(ev, evsz, "binfmt_misc/WSLInterop present");

    out->is_wsl2 = wsl_kind_has_tdr(w.kind);
    if (w.kind == WSL_1)
        env_append_item(ev, evsz, "kernel is Microsoft's but neither 'WSL2' nor /dev/dxg: WSL1, not WSL2");
    if (ev[0] == '\0')
        env_copy(ev, evsz, "none");
}

/* ---------------------------------------------------------------------------------------------
 * Public API.
 * ------------------------------------------------------------------------------------------- */

int env_detect(const char *root, env_info *out)
{
    env_cpuinfo ci;

    if (out == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (root == NULL || root[0] == '\0')
        root = "/";
    memset(out, 0, sizeof *out);

    env_copy(out->hostname, sizeof out->hostname, ENV_UNKNOWN);
    env_read_hostname(root, out);
    env_read_os(root, out);
    env_read_first_line(root, "/proc/sys/kernel/osrelease", out->kernel_release, sizeof out->kernel_release);
    env_read_first_line(root, "/proc/version", out->kernel_version, sizeof out->kernel_version);
    env_read_cpuinfo(root, &ci);
    env_copy(out->cpu_model, sizeof out->cpu_model, ci.model);
    out->cpu_count = ci.count;
    env_detect_wsl(root, out);
    env_read_virt(root, &ci, out->is_wsl2, out);
    return 0;
}

int env_foreach(const env_info *e, int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
    char wsl2[2], count[24];
    size_t i;

    if (e == NULL || fn == NULL) {
        errno = EINVAL;
        return -1;
    }
    wsl2[0] = e->is_wsl2 ? '1' : '0';
    wsl2[1] = '\0';
    /* No processor lines means cpuinfo was not readable: "unknown", not a claim of zero CPUs. */
    if (e->cpu_count > 0)
        snprintf(count, sizeof count, "%d", e->cpu_count);
    else
        env_copy(count, sizeof count, ENV_UNKNOWN);

    /* The one list of provenance keys: order and spelling are part of the results file format. */
    const struct {
        const char *key;
        const char *value;
    } fields[] = {
        {"hostname", e->hostname},
        {"os", e->os_pretty},
        {"kernel_release", e->kernel_release},
        {"kernel_version", e->kernel_version},
        {"wsl2", wsl2},
        {"wsl2_evidence", e->wsl2_evidence},
        {"virtualization", e->virt},
        {"cpu_model", e->cpu_model},
        {"cpu_count", count},
    };
    for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int rc = fn(ctx, fields[i].key, fields[i].value);
        if (rc != 0)
            return rc;
    }
    return 0;
}
/* The PCI vendor:device id of the device at bus_id, from sysfs (native Linux). WSL2 exposes no PCI
 * tree for the GPU, so there it is "unknown" and the GPU name and bus id identify the device. */
int env_pci_id(const char *root, const char *bus_id, char *out, size_t size)
{
    char rel[128], vendor[32], device[32];
    if (out == NULL || size == 0 || bus_id == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (root == NULL)
        root = "/";
    env_copy(out, size, ENV_UNKNOWN);
    if (*bus_id == '\0' || strchr(bus_id, '/') != NULL)
        return 0;
    snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/vendor", bus_id);
    if (env_read_first_line(root, rel, vendor, sizeof vendor) != 0) {
        /* sysfs names use lower-case hex; CUDA reports upper case. */
        char lower[64];
        size_t i;
        for (i = 0; bus_id[i] && i + 1 < sizeof lower; i++)
            lower[i] = (char)tolower((unsigned char)bus_id[i]);
        lower[i] = '\0';
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/vendor", lower);
        if (env_read_first_line(root, rel, vendor, sizeof vendor) != 0)
            return 0;
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/device", lower);
    } else {
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/device", bus_id);
    }
    if (env_read_first_line(root, rel, device, sizeof device) != 0)
        return 0;
    /* "0x10de" and "0x2330" become "10de:2330", the form lspci -n prints. */
    snprintf(out, size, "%s:%s", strncmp(vendor, "0x", 2) == 0 ? vendor + 2 : vendor,
             strncmp(device, "0x", 2) == 0 ? device + 2 : device);
    return 0;
}
