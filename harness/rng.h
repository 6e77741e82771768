/* rng.h - the one seeded random generator of ringbench: splitmix64 for seeds and small uses (the
 * order of a run's trials, bench/plan.c), and xoshiro256** (Blackman & Vigna), seeded through
 * splitmix64 as its authors recommend, for the bootstraps (stats.c). Results depend on the seed
 * alone, the same on every machine, and never on the C library's rand(). No global state: each
 * caller owns its state. Exercised through tests/test_stats.c and tests/test_plan.c.
 */
#ifndef RINGBENCH_RNG_H
#define RINGBENCH_RNG_H

#include <stddef.h>
#include <stdint.h>

/* Advances *state and returns the next splitmix64 output. */
uint64_t rng_splitmix64(uint64_t *state);

/* xoshiro256** state. */
typedef struct rng {
    uint64_t s[4];
} rng;

/* Seeds r from one 64-bit seed (four splitmix64 outputs). */
void rng_seed(rng *r, uint64_t seed);
/* The next 64 random bits. */
uint64_t rng_next(rng *r);
/* Uniform in [0, n) without modulo bias; n >= 1. */
size_t rng_below(rng *r, size_t n);
/* Uniform in (0, 1): 53 random bits, centred in their interval, so never 0 or 1. */
double rng_unit(rng *r);

#endif
