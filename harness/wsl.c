/* wsl.c - native, WSL1, WSL2 or a container inside WSL2 (see wsl.h for the evidence and why).
 * Exercised by tests/test_wsl2_detect.c against fake trees; bench/run_header.c writes the answer into the
 * provenance (wsl_kind, wsl_evidence, wsl_distro) and harness/lifetime.c lowers the default
 * --max-lifetime on WSL2.
 */
#define _POSIX_C_SOURCE 200809L
#include "wsl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void add(wsl_info *w, const char *item)
{
    size_t used = strlen(w->evidence);
    snprintf(w->evidence + used, sizeof w->evidence - used, "%s%s", used ? "; " : "", item);
}

static int exists(const char *root, const char *rel)
{
    char path[4096];
    size_t n = strlen(root);
    while (n > 0 && root[n - 1] == '/')
        n--;
    if ((size_t)snprintf(path, sizeof path, "%.*s%s", (int)n, root, rel) >= sizeof path)
        return 0;
    struct stat st;
    return stat(path, &st) == 0;
}

/* First line of root+rel, trimmed, into buf; "" when missing. */
static void first_line(const char *root, const char *rel, char *buf, size_t n)
{
    char path[4096];
    size_t rn = strlen(root);
    while (rn > 0 && root[rn - 1] == '/')
        rn--;
    buf[0] = '\0';
    if ((size_t)snprintf(path, sizeof path, "%.*s%s", (int)rn, root, rel) >= sizeof path)
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)n, f))
        buf[0] = '\0';
    fclose(f);
    size_t l = strlen(buf);
    while (l > 0 && isspace((unsigned char)buf[l - 1]))
        buf[--l] = '\0';
}

static const char *find_ci(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return hay;
    }
    return NULL;
}

/* The kernel's own word: "5.15.167.4-microsoft-standard-WSL2" (WSL2; "...-microsoft-standard"
 * before 5.10), "4.4.0-19041-Microsoft" (WSL1). 2 = WSL2, 1 = WSL1, 0 = neither. */
static int kernel_says(const char *s)
{
    if (!find_ci(s, "microsoft") && !strstr(s, "WSL"))
        return 0;
    return strstr(s, "WSL2") || find_ci(s, "microsoft-standard") ? 2 : 1;
}

static const char *sys_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

int wsl_detect(const char *root, wsl_getenv_fn getenv_fn, void *ctx, wsl_info *out)
{
    if (!out) {
        errno = EINVAL;
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (!root || !*root)
        root = "/";
    if (!getenv_fn)
        getenv_fn = sys_getenv;
    char rel[256], ver[512], item[700];
    first_line(root, "/proc/sys/kernel/osrelease", rel, sizeof rel);
    first_line(root, "/proc/version", ver, sizeof ver);
    int k = kernel_says(rel);
    if (k) {
        snprintf(item, sizeof item, "osrelease '%s'", rel);
        add(out, item);
    } else if ((k = kernel_says(ver)) != 0) {
        snprintf(item, sizeof item, "proc/version '%.400s'", ver);
        add(out, item);
    }
    out->dxg = exists(root, "/dev/dxg");
    out->wsl_libcuda = exists(root, "/usr/lib/wsl/lib/libcuda.so") || exists(root, "/usr/lib/wsl/lib/libcuda.so.1");
    out->container = exists(root, "/.dockerenv") || exists(root, "/run/.containerenv");
    if (out->dxg)
        add(out, "/dev/dxg present");
    if (out->wsl_libcuda)
        add(out, "/usr/lib/wsl/lib/libcuda.so present");
    else if (exists(root, "/usr/lib/wsl/lib"))
        add(out, "/usr/lib/wsl/lib present (no libcuda.so)");
    if (exists(root, "/proc/sys/fs/binfmt_misc/WSLInterop"))
        add(out, "binfmt_misc/WSLInterop present");
    if (out->container)
        add(out, exists(root, "/.dockerenv") ? "/.dockerenv present (a container)"
                                             : "/run/.containerenv present (a container)");
    const char *d = getenv_fn(ctx, "WSL_DISTRO_NAME");
    if (d && *d) {
        snprintf(out->distro, sizeof out->distro, "%s", d);
        snprintf(item, sizeof item, "WSL_DISTRO_NAME=%s", out->distro);
        add(out, item);
    }
    const char *interop = getenv_fn(ctx, "WSL_INTEROP");
    if (interop && *interop)
        add(out, "WSL_INTEROP set");

    if (k == 2 || out->dxg)
        out->kind = out->container ? WSL_2_CONTAINER : WSL_2;
    else if (k == 1)
        out->kind = WSL_1;
    else
        out->kind = WSL_NATIVE;

    switch (out->kind) {
    case WSL_2:
        add(out, out->dxg && out->wsl_libcuda ? "=> WSL2; GPU through dxgkrnl (/dev/dxg)"
                 : out->dxg                   ? "=> WSL2; /dev/dxg but no WSL libcuda.so: CUDA driver missing"
                                              : "=> WSL2; no /dev/dxg: no GPU passed to this VM");
        break;
    case WSL_2_CONTAINER:
        add(out, out->dxg ? "=> container in WSL2 (e.g. Docker Desktop's WSL2 backend); GPU through dxgkrnl"
                          : "=> container in WSL2 (e.g. Docker Desktop's WSL2 backend); no /dev/dxg: no GPU "
                            "passed in (docker run --gpus all)");
        break;
    case WSL_1: add(out, "=> WSL1 (Microsoft's syscall layer, not WSL2): no GPU, no CUDA"); break;
    default:
        add(out, (d && *d) || (interop && *interop) ? "=> native: WSL variables set, but neither a WSL kernel nor "
                                                      "/dev/dxg (inherited environment?)"
                                                    : "=> native: no sign of WSL");
        break;
    }
    return 0;
}

const char *wsl_kind_name(wsl_kind k)
{
    switch (k) {
    case WSL_NATIVE: return "native";
    case WSL_1: return "wsl1";
    case WSL_2: return "wsl2";
    case WSL_2_CONTAINER: return "wsl2_container";
    }
    return "unknown";
}

int wsl_kind_has_tdr(wsl_kind k) { return k == WSL_2 || k == WSL_2_CONTAINER; }

int wsl_foreach(const wsl_info *w, int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
    const char *const kv[][2] = {
        {"wsl_kind", wsl_kind_name(w->kind)},
        {"wsl_evidence", w->evidence},
        {"wsl_distro", w->distro},
        {"wsl_gpu", w->dxg && w->wsl_libcuda ? "dxgkrnl" : "none"},
    };
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) {
        int rc = fn(ctx, kv[i][0], kv[i][1]);
        if (rc)
            return rc;
    }
    return 0;
}
