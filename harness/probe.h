/* probe.h - what this platform allows, asked of the CUDA runtime before any mode runs.
 *
 * Every capability is kept with the CUDA error text that decided it, so a mode that cannot run is
 * recorded as "unsupported: <reason>" and never attempted (a managed control block touched by the
 * host while a kernel runs on a device without concurrentManagedAccess, WSL2's case, would fault or
 * hang). Allocations are tried for real: on WSL2 cudaHostAlloc may fail where the attribute says yes.
 */
#ifndef RINGBENCH_PROBE_H
#define RINGBENCH_PROBE_H

#include <stddef.h>

#include "modes.h"

#define PROBE_ERR 192

typedef struct rb_caps {
    int cuda_usable;                  /* 1 when a device can be used */
    char cuda_error[PROBE_ERR];       /* why not */
    int device, device_count;
    char name[256];
    char pci_bus_id[32];
    int cc_major, cc_minor, sm_count;
    int driver_version, runtime_version; /* e.g. 13000 */
    size_t total_mem;
    /* Device attributes (-1 when unknown). */
    int can_map_host_memory, concurrent_managed_access, pageable_memory_access, cooperative_launch,
        host_native_atomic, direct_managed_from_host, async_engine_count, unified_addressing;
    /* Allocations tried for real: 1 ok, 0 refused (error text says how). */
    int pinned_ok, mapped_ok, managed_ok;
    char pinned_error[PROBE_ERR], mapped_error[PROBE_ERR], managed_error[PROBE_ERR];
    /* Stream memory operations (a stream's write and wait on a mapped word), tried for real: 1 ok,
     * 0 refused. Without them, async rings fetch every reply after the host sees it (ring.h). */
    int stream_ops_ok;
    char stream_ops_error[PROBE_ERR];
    /* The ring kernel's co-resident blocks (occupancy x SMs) and the cooperative launch limit. */
    unsigned ring_blocks;
    char ring_error[PROBE_ERR];
} rb_caps;

/* Probes device `device`. Always returns 0 and fills *out; out->cuda_usable says whether anything
 * can run (with cuda_error saying why not). */
int rb_probe(int device, rb_caps *out);

/* Calls fn(ctx, key, value, error) for each capability: stable snake_case keys, the value as text
 * and the error text ("" when none). Stops and returns fn's value when it is non-zero. */
int rb_caps_foreach(const rb_caps *c, int (*fn)(void *ctx, const char *key, const char *value, const char *error),
                    void *ctx);

/* NULL when the mode can run on this platform, else why not (the "unsupported" reason). */
const char *rb_caps_unsupported_reason(const rb_caps *c, const rb_mode *m, char *buf, size_t n);

#endif
