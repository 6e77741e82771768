/* baselines.h - reference measurements taken in the same run as the ring, on the same device:
 *   floor   a minimal persistent one-word ping-pong through mapped pinned memory (CUDA), or through
 *           an atomic word between two threads (CPU backend): the round-trip floor;
 *   launch  per message: copy in, one ordinary kernel launch, copy out, synchronize (pinned);
 *   graph   the same three steps captured once as a CUDA graph, one graph launch per message;
 *   memcpy  cudaMemcpy bandwidth, pinned and pageable, each direction (plain memcpy on the CPU).
 * Returns: 0 ok; RB_BASE_UNSUPPORTED (with the reason in err) when this backend or platform cannot
 * take it; RB_BASE_FAILED (err says why); RB_BASE_INTERRUPTED when *stop was raised.
 */
#ifndef RINGBENCH_BASELINES_H
#define RINGBENCH_BASELINES_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "measure.h"
#include "ring.h"

enum { RB_BASE_OK = 0, RB_BASE_UNSUPPORTED = -2, RB_BASE_FAILED = -1, RB_BASE_INTERRUPTED = 1 };

/* Latency samples (us) of the floor ping-pong. */
int baselines_floor(ring_backend b, int device, const measure_policy *p, measure_samples *s, char *err, size_t errlen,
                    volatile sig_atomic_t *stop);

/* Latency samples (us) of one launch (graph = 0) or one graph launch (graph = 1) per message of
 * size bytes; the output of the last message is verified. */
int baselines_launch(ring_backend b, int device, uint32_t size, int graph, const measure_policy *p, measure_samples *s,
                     char *err, size_t errlen, volatile sig_atomic_t *stop);

/* Bandwidth samples (GB/s): reps repetitions, each copying size bytes as often as fits in
 * rep_seconds (at least once). */
int baselines_memcpy(ring_backend b, int device, uint32_t size, int pinned, int h2d, int reps, double rep_seconds,
                     measure_samples *s, char *err, size_t errlen, volatile sig_atomic_t *stop);

/* Per-call costs: one CUDA runtime call of each kind the ring makes, timed one call per sample (us).
 * X(ENUM, family name in results/schema.h). The CPU backend has no driver to call: every one is
 * RB_BASE_UNSUPPORTED there (recorded with that reason, not invented). */
#define RB_CALL_BASES(X)                               \
    X(MEMCPY_H2D_PINNED, "call_memcpy_h2d_pinned")     \
    X(MEMCPY_D2H_PINNED, "call_memcpy_d2h_pinned")     \
    X(MEMCPY_H2D_PAGEABLE, "call_memcpy_h2d_pageable") \
    X(MEMCPY_D2H_PAGEABLE, "call_memcpy_d2h_pageable") \
    X(MEMCPY_ASYNC_QUERY, "call_memcpy_async_query")   \
    X(STREAM_QUERY_IDLE, "call_stream_query_idle")     \
    X(STREAM_SYNC_IDLE, "call_stream_sync_idle")       \
    X(EVENT_QUERY_DONE, "call_event_query_done")       \
    X(LAUNCH_EMPTY, "call_launch_empty")               \
    X(LAUNCH_SYNC, "call_launch_sync")

typedef enum baselines_call_kind {
#define RB_CALL_BASE_ENUM(e, fam) RB_CALL_##e,
    RB_CALL_BASES(RB_CALL_BASE_ENUM)
#undef RB_CALL_BASE_ENUM
        RB_CALL_COUNT
} baselines_call_kind;

/* The results family of c ("call_memcpy_h2d_pinned", ...), or NULL when out of range. */
const char *baselines_call_family(baselines_call_kind c);

/* Latency samples (us) of one call of kind c per sample, on an otherwise idle device. Copies move
 * RB_CALL_BYTES bytes (the ring's staged control-block copies are 16 to 32 bytes, its headers 16). */
#define RB_CALL_BYTES 64
int baselines_call(ring_backend b, int device, baselines_call_kind c, const measure_policy *p, measure_samples *s,
                   char *err, size_t errlen, volatile sig_atomic_t *stop);

#endif
