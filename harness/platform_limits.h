/* platform_limits.h - a platform's documented limits applied to this machine (`ringbench run --platform-limits
 * wsl2`, issue 21), so that the mode matrix shows which modes a user of that platform can run at all,
 * and measures the rest here.
 *
 * The limits are taken as the probe's answers, on top of what this machine's own probe says; a mode
 * they forbid is recorded unsupported with a reason starting "limit applied: ", never attempted. For
 * wsl2 they are what NVIDIA's CUDA-on-WSL guide and public reports document (REFERENCE.md):
 *   - concurrentManagedAccess = 0: the host may not touch managed memory while a kernel runs, so every
 *     ctrl=managed mode is unsupported;
 *   - a pinned-memory ceiling (reported 0.5-1 GiB in total): a mode whose ring at a size would hold more
 *     pinned host memory than the ceiling is unsupported at that size. The ceiling is given
 *     (--pinned-ceiling BYTES) or measured by the probe (probe_pinned); without either (the CPU
 *     backend) no ceiling is applied, and the file says so.
 * Cooperative launch is not limited: nothing public says it fails on WSL2.
 * Such a run is labelled LIMITS APPLIED everywhere (results/run_label.h) and is not a WSL2 run.
 */
#ifndef RINGBENCH_PLATFORM_LIMITS_H
#define RINGBENCH_PLATFORM_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "modes.h"

typedef struct platform_limits {
    char platform[16];       /* "wsl2"; "" = no limits applied */
    uint64_t pinned_ceiling; /* bytes of pinned host memory granted in total; 0 = no ceiling applied */
    char pinned_source[256]; /* where the ceiling came from, or why there is none */
} platform_limits;

/* Sets *l for platform name ("wsl2"). Returns 0, or -1 with one line in err. */
int platform_limits_parse(const char *name, platform_limits *l, char *err, size_t errlen);

/* Pinned host memory (bytes) a ring of mode m with size-byte messages holds on the CUDA backend: its
 * two rings (zero-copy: mapped; pinned staging: host copies) at ring_capacity_for(size) slots, plus the
 * control block's pinned staging. 0 for malloc staging with a device control block. */
uint64_t platform_limits_pinned_bytes(const mode_spec *m, uint32_t size);

/* Why the limits forbid mode m at every size ("limit applied: ..."), or NULL. l may be NULL. */
const char *platform_limits_mode_reason(const platform_limits *l, const mode_spec *m, char *buf, size_t n);

/* Why the limits forbid mode m at message size `size` (the pinned ceiling), or NULL. */
const char *platform_limits_size_reason(const platform_limits *l, const mode_spec *m, uint32_t size, char *buf,
                                        size_t n);

/* Calls fn(ctx, key, value) for the provenance: platform_limits ("wsl2"), platform_limits_applied
 * (the list in words), platform_limits_pinned_ceiling_bytes (0 = none) and its _source. */
int platform_limits_foreach(const platform_limits *l, int (*fn)(void *ctx, const char *key, const char *value),
                            void *ctx);

#endif
