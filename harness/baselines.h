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
int rb_base_floor(ring_backend b, int device, const rb_policy *p, rb_samples *s, char *err, size_t errlen,
                  volatile sig_atomic_t *stop);

/* Latency samples (us) of one launch (graph = 0) or one graph launch (graph = 1) per message of
 * size bytes; the output of the last message is verified. */
int rb_base_launch(ring_backend b, int device, uint32_t size, int graph, const rb_policy *p, rb_samples *s,
                   char *err, size_t errlen, volatile sig_atomic_t *stop);

/* Bandwidth samples (GB/s): reps repetitions, each copying size bytes as often as fits in
 * rep_seconds (at least once). */
int rb_base_memcpy(ring_backend b, int device, uint32_t size, int pinned, int h2d, int reps, double rep_seconds,
                   rb_samples *s, char *err, size_t errlen, volatile sig_atomic_t *stop);

#endif
