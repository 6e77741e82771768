/* rng.c - splitmix64 and xoshiro256** (see rng.h). */
#include "rng.h"

uint64_t rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire's multiply-shift with rejection on 32 bits (one multiply, no division, in the common case),
 * which covers every sample count we will see; plain rejection plus modulo beyond that, to stay within
 * standard C (no 128-bit integers). */
size_t rng_below(rng *r, size_t n)
{
    if ((uint64_t)n <= UINT32_MAX) {
        uint32_t bound = (uint32_t)n, threshold = (uint32_t)(-bound) % bound;
        for (;;) {
            uint64_t m = (rng_next(r) >> 32) * (uint64_t)bound;
            if ((uint32_t)m >= threshold)
                return (size_t)(m >> 32);
        }
    }
    uint64_t bound = (uint64_t)n, threshold = -bound % bound, x;
    do
        x = rng_next(r);
    while (x < threshold);
    return (size_t)(x % bound);
}

double rng_unit(rng *r) { return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0; }
