/* ring_payload.c - the host's work on every payload byte: generating a slot's payload, summing it,
 * and checking a reply against the generator and the kernel's key, split across the ring's worker
 * pool for large messages (ring_internal.h). ring.c calls it when it fills slots, stages a message
 * and verifies a reply; exercised by tests/test_ring_cpu.c and every GPU run.
 */
#include <stdint.h>

#include "ring_internal.h"

/* The two loops that touch every payload byte on the host. Built twice on x86-64 (AVX2 and
 * baseline) and picked at load time, so they run near memory speed wherever the binary runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
#define RB_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RB_VECTOR_CLONES
#endif

/* Writes payload words lo..hi-1 of input slot `slot` and returns their part of the checksum. */
RB_VECTOR_CLONES static uint32_t generate_payload(uint32_t *w, uint32_t lo, uint32_t hi, uint32_t seed, uint32_t slot)
{
    uint32_t sum = 0;
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t v = ring_gen(seed, slot, i);
        w[i] = v;
        sum += ring_sum_term(v, i);
    }
    return sum;
}

/* The checksum terms of words lo..hi-1 as they are. */
RB_VECTOR_CLONES static uint32_t sum_payload(const uint32_t *w, uint32_t lo, uint32_t hi)
{
    uint32_t sum = 0;
    for (uint32_t i = lo; i < hi; i++)
        sum += ring_sum_term(w[i], i);
    return sum;
}

/* Compares reply words lo..hi-1 of message seq (sent from input slot `slot`) with what the kernel
 * must have produced; returns non-zero on any difference, and their part of the reply's checksum in
 * *sum. */
RB_VECTOR_CLONES uint32_t ring_check_words(const uint32_t *w, uint32_t lo, uint32_t hi, uint32_t seed, uint32_t slot,
                                           uint32_t seq, uint32_t *sum)
{
    uint32_t s = 0, bad = 0;
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t v = w[i];
        bad |= v ^ (ring_gen(seed, slot, i) ^ ring_key(seq, i));
        s += ring_sum_term(v, i);
    }
    *sum = s;
    return bad;
}

/* One part of a payload split across the pool: words [lo, hi) of w. The checksum is a sum of
 * per-word terms that depend on the word's index, so parts add up to the whole. */
typedef struct payload_job {
    uint32_t *w;
    uint32_t n, seed, slot, seq, sums[64], bads[64];
    ring_pass kind;
} payload_job;

static uint32_t run_pass(const payload_job *j, uint32_t lo, uint32_t hi, uint32_t *bad)
{
    uint32_t sum = 0;
    *bad = 0;
    if (j->kind == RING_PASS_GENERATE)
        sum = generate_payload(j->w, lo, hi, j->seed, j->slot);
    else if (j->kind == RING_PASS_SUM)
        sum = sum_payload(j->w, lo, hi);
    else
        *bad = ring_check_words(j->w, lo, hi, j->seed, j->slot, j->seq, &sum);
    return sum;
}

static void payload_part(void *ctx, int part, int nparts)
{
    payload_job *j = ctx;
    uint32_t per = (j->n / (uint32_t)nparts + 63) & ~63u;
    uint32_t lo = per * (uint32_t)part, hi = lo + per;
    if (hi > j->n || part == nparts - 1)
        hi = j->n;
    j->sums[part] = j->bads[part] = 0;
    if (lo < hi)
        j->sums[part] = run_pass(j, lo, hi, &j->bads[part]);
}

/* Runs one pass over n payload words, on the pool when they are many. Returns the checksum and, for
 * PASS_CHECK, the difference mask in *bad. */
uint32_t ring_payload_pass(ring *r, ring_pass kind, uint32_t *w, uint32_t n, uint32_t slot, uint32_t seq, uint32_t *bad)
{
    payload_job j = {.w = w, .n = n, .seed = r->cfg.seed, .slot = slot, .seq = seq, .kind = kind};
    uint32_t b = 0;
    if (!r->pool || n * 4u < RING_POOL_MIN_BYTES || pool_parts(r->pool) > 64) {
        uint32_t sum = run_pass(&j, 0, n, &b);
        if (bad)
            *bad = b;
        return sum;
    }
    pool_run(r->pool, payload_part, &j);
    uint32_t sum = 0;
    for (int p = 0; p < pool_parts(r->pool); p++) {
        sum += j.sums[p];
        b |= j.bads[p];
    }
    if (bad)
        *bad = b;
    return sum;
}
