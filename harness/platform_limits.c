/* platform_limits.c - a platform's documented limits applied to the mode matrix (see platform_limits.h). Exercised by
 * tests/inject_cli.sh (limits). */
#include "platform_limits.h"

#include <stdio.h>
#include <string.h>

#include "ring.h"
#include "ring_protocol.h"

#define WSL2_MANAGED                                                                            \
    "concurrentManagedAccess = 0 on WSL2 (NVIDIA's CUDA on WSL guide): the host may not touch " \
    "managed memory while a kernel runs"

int platform_limits_parse(const char *name, platform_limits *l, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    if (!name || strcmp(name, "wsl2") != 0) {
        snprintf(err, errlen, "--platform-limits: '%s' is not a platform whose limits are known (wsl2)",
                 name ? name : "");
        return -1;
    }
    snprintf(l->platform, sizeof l->platform, "%s", name);
    snprintf(l->pinned_source, sizeof l->pinned_source, "none applied: not given and not measured");
    return 0;
}

uint64_t platform_limits_pinned_bytes(const mode_spec *m, uint32_t size)
{
    const uint64_t ring = (uint64_t)ring_capacity_for(size) * ring_slot_stride(size);
    const int pinned = m->v[RB_AXIS_HOST] == RB_HOST_PINNED;
    uint64_t b = 0;
    if (m->v[RB_AXIS_XFER] == RB_XFER_ZEROCOPY || pinned)
        b += 2 * ring; /* mapped rings, or the rings' pinned staging copies */
    if (m->v[RB_AXIS_CTRL] == RB_CTRL_MAPPED)
        b += sizeof(ring_cb);
    if (m->v[RB_AXIS_CTRL] == RB_CTRL_DEVICE && pinned) /* the staged reads' snapshots and the kernel half */
        b += ((uint64_t)ring_capacity_for(size) + 1) * sizeof(ring_cb_host) + sizeof(ring_cb_kern);
    return b;
}

const char *platform_limits_mode_reason(const platform_limits *l, const mode_spec *m, char *buf, size_t n)
{
    if (!l || !l->platform[0])
        return NULL;
    if (m->v[RB_AXIS_CTRL] == RB_CTRL_MANAGED) {
        snprintf(buf, n, "limit applied: %s", WSL2_MANAGED);
        return buf;
    }
    return NULL;
}

const char *platform_limits_size_reason(const platform_limits *l, const mode_spec *m, uint32_t size, char *buf,
                                        size_t n)
{
    if (!l || !l->platform[0] || !l->pinned_ceiling)
        return NULL;
    const uint64_t need = platform_limits_pinned_bytes(m, size);
    if (need <= l->pinned_ceiling)
        return NULL;
    snprintf(buf, n,
             "limit applied: the ring needs %llu bytes of pinned memory, over the %s pinned ceiling of "
             "%llu bytes (%s)",
             (unsigned long long)need, l->platform, (unsigned long long)l->pinned_ceiling, l->pinned_source);
    return buf;
}

int platform_limits_foreach(const platform_limits *l, int (*fn)(void *ctx, const char *key, const char *value),
                            void *ctx)
{
    char v[64];
    int rc;
    if ((rc = fn(ctx, "platform_limits", l->platform)) != 0)
        return rc;
    if (!l->platform[0])
        return 0;
    if ((rc = fn(ctx, "platform_limits_applied",
                 "concurrent_managed_access = 0 (ctrl=managed unsupported); "
                 "pinned ceiling (modes whose rings need more unsupported at "
                 "that size); cooperative launch not limited")) != 0)
        return rc;
    snprintf(v, sizeof v, "%llu", (unsigned long long)l->pinned_ceiling);
    if ((rc = fn(ctx, "platform_limits_pinned_ceiling_bytes", v)) != 0)
        return rc;
    return fn(ctx, "platform_limits_pinned_ceiling_source", l->pinned_source);
}
