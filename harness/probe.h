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

typedef struct probe_caps {
    int cuda_usable;            /* 1 when a device can be used */
    char cuda_error[PROBE_ERR]; /* why not */
    int device, device_count;
    char name[256];
    char pci_bus_id[32];
    int cc_major, cc_minor, sm_count;
    int driver_version, runtime_version; /* e.g. 13000 */
    size_t total_mem;
    /* Device attributes (-1 when unknown). */
    int can_map_host_memory, concurrent_managed_access, pageable_memory_access, cooperative_launch, host_native_atomic,
        direct_managed_from_host, async_engine_count, unified_addressing;
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
} probe_caps;

/* Probes device `device`. Always returns 0 and fills *out; out->cuda_usable says whether anything
 * can run (with cuda_error saying why not). */
int probe_run(int device, probe_caps *out);

/* Calls fn(ctx, key, value, error) for each capability: stable snake_case keys, the value as text
 * and the error text ("" when none). Stops and returns fn's value when it is non-zero. */
int probe_caps_foreach(const probe_caps *c, int (*fn)(void *ctx, const char *key, const char *value, const char *error),
                       void *ctx);

/* The pinned-memory ceiling (issue 21): on WSL2 cudaHostAlloc "often fails", reportedly above about
 * 0.5-1 GiB in total. probe_pinned measures it up to a bound that is safe on a shared machine:
 *   largest  the largest single cudaHostAlloc that succeeds (halving from min(bound, total) until one
 *            does, then a binary search to RB_PINNED_STEP);
 *   total    what RB_PINNED_STEP chunks add up to before one is refused or the bound is reached;
 * every allocation is freed right after (the total's chunks once the total is known). */
#define RB_PINNED_STEP (64ull << 20)
#define RB_PINNED_DEFAULT_MAX (8ull << 30)

typedef struct probe_pinned_ceiling {
    int measured;                             /* 1 when measured (CUDA); 0: not applicable, note says why */
    unsigned long long bound, largest, total; /* bytes */
    int total_hit_bound, largest_hit_bound;   /* 1: the ceiling is at least the bound, not found */
    double seconds;                           /* how long the measurement took */
    char note[PROBE_ERR];                     /* the refusing error, or why not measured */
} probe_pinned_ceiling;

/* Measures the ceiling on device `device` up to bound bytes (0: RB_PINNED_DEFAULT_MAX). Without CUDA
 * (a CPU-only build, no usable device) out->measured = 0 with the reason. Always returns 0. */
int probe_pinned(int device, unsigned long long bound, probe_pinned_ceiling *out);

/* Calls fn(ctx, key, value) for each field: pinned_ceiling_largest_bytes, _total_bytes, _bound_bytes,
 * _seconds, _note ("not applicable: ..." when not measured). Stops at fn's non-zero value. */
int probe_pinned_foreach(const probe_pinned_ceiling *p, int (*fn)(void *ctx, const char *key, const char *value),
                         void *ctx);

/* One line for people: "largest single 8 GiB (the bound), total 8 GiB (the bound), 1.2 s" or
 * "not applicable: ...". Returns buf. */
char *probe_pinned_str(const probe_pinned_ceiling *p, char *buf, size_t n);

/* NULL when the mode can run on this platform, else why not (the "unsupported" reason). */
const char *probe_caps_unsupported_reason(const probe_caps *c, const mode_spec *m, char *buf, size_t n);

#endif
