/* wsl.h - which kind of Windows Subsystem for Linux, if any, this process runs in, and the evidence.
 *
 * This is the one WSL detector: harness/env.c takes its "is this WSL2?" (provenance keys wsl2,
 * wsl2_evidence) from wsl_detect, and this module tells the kinds apart, because they differ in what
 * a GPU benchmark can do there:
 *   native          no sign of WSL
 *   wsl1            Microsoft's WSL1 syscall layer (kernel "4.4.0-19041-Microsoft"): no Linux kernel,
 *                   no /dev/dxg, no CUDA at all
 *   wsl2            a WSL2 distribution (kernel "...-microsoft-standard-WSL2", or /dev/dxg): CUDA goes
 *                   through the paravirtualised dxgkrnl (/dev/dxg) and /usr/lib/wsl/lib/libcuda.so
 *   wsl2_container  a container inside WSL2's VM, typically Docker Desktop's WSL2 backend: the same
 *                   WSL2 kernel, plus /.dockerenv or /run/.containerenv; the GPU path exists only when
 *                   the runtime passed /dev/dxg and /usr/lib/wsl in (docker run --gpus all)
 * Deciding evidence: the kernel string (osrelease, then proc/version) and /dev/dxg. Supporting only:
 * /usr/lib/wsl/lib, binfmt_misc/WSLInterop, WSL_DISTRO_NAME / WSL_INTEROP in the environment (an
 * environment variable can leak into any shell, e.g. through ssh, so it decides nothing alone).
 *
 * Everything is read below root and the environment through an injectable lookup, so that
 * tests/test_wsl2_detect.c can classify fake trees.
 */
#ifndef RINGBENCH_WSL_H
#define RINGBENCH_WSL_H

#include <stddef.h>

typedef enum { WSL_NATIVE, WSL_1, WSL_2, WSL_2_CONTAINER } wsl_kind;

typedef struct wsl_info {
    wsl_kind kind;
    int dxg;            /* /dev/dxg exists: the paravirtual GPU device */
    int wsl_libcuda;    /* /usr/lib/wsl/lib/libcuda.so (or libcuda.so.1) exists */
    int container;      /* /.dockerenv or /run/.containerenv exists */
    char distro[128];   /* WSL_DISTRO_NAME, or "" */
    char evidence[768]; /* every sign seen, "; "-separated, then the conclusion; never empty */
} wsl_info;

/* Environment lookup: returns the value of name or NULL. NULL fn = getenv (ctx unused). */
typedef const char *(*wsl_getenv_fn)(void *ctx, const char *name);

/* Classifies the tree under root ("/" or NULL: the live system). Missing files are simply absent
 * signs. Returns 0, or -1 with errno EINVAL when out is NULL. */
int wsl_detect(const char *root, wsl_getenv_fn getenv_fn, void *ctx, wsl_info *out);

/* Calls fn(ctx, key, value) for the provenance attributes, in this order: wsl_kind (wsl_kind_name),
 * wsl_evidence, wsl_distro ("" when none), wsl_gpu ("dxgkrnl" when /dev/dxg and the WSL libcuda.so
 * are both there, "none" otherwise). Stops at and returns fn's first non-zero value; else 0. */
int wsl_foreach(const wsl_info *w, int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* "native", "wsl1", "wsl2", "wsl2_container": the provenance value of wsl_kind. */
const char *wsl_kind_name(wsl_kind k);

/* 1 for the kinds where a GPU kernel runs under the Windows display driver's watchdog (TDR): wsl2
 * and wsl2_container. */
int wsl_kind_has_tdr(wsl_kind k);

/* The default --max-lifetime on WSL2, below the 2 s TDR watchdog of a display GPU. */
#define WSL_TDR_SAFE_LIFETIME_S 1.5

#endif
