/* timing.h - the one clock every ringbench measurement reads.
 *
 * CLOCK_MONOTONIC through clock_gettime (vDSO, about 20 ns a read); all durations are taken as two
 * reads of this clock around the measured operation. Warm-up and sample policy live in bench/.
 */
#ifndef RINGBENCH_TIMING_H
#define RINGBENCH_TIMING_H

#include <stdint.h>
#include <time.h>

static inline uint64_t timing_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double timing_seconds_since(uint64_t t0_ns) { return (double)(timing_now_ns() - t0_ns) * 1e-9; }

#endif
