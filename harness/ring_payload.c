/* ring_payload.c - the host's work on every payload byte: generating a slot's payload, summing it,
 * and checking a reply against the generator and the kernel's key, split across the ring's worker
 * pool for large messages (ring_internal.h). ring.c calls it when it fills slots, stages a message
 * and verifies a reply; exercised by tests/test_ring_cpu.c and every GPU run.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "ring_internal.h"
#include "timing.h"

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

/* A payload pass shared across the pool: words are taken PAYLOAD_PIECE_WORDS at a time from `next`
 * by whichever thread is running (pool.h), and each thread adds its pieces' checksum terms and
 * difference bits in. The checksum is a sum of per-word terms that depend on the word's index, so
 * pieces add up to the whole in any order. */
#define PAYLOAD_PIECE_WORDS 4096u /* 16 KiB: a few microseconds of work, hundreds of pieces at 4 MiB */

typedef struct payload_job {
    uint32_t *w;
    uint32_t n, seed, slot, seq;
    ring_pass kind;
    atomic_uint next, sum, bad;
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

static void payload_pieces(void *ctx)
{
    payload_job *j = ctx;
    uint32_t sum = 0, bad = 0;
    for (;;) {
        const uint32_t piece = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (piece >= (j->n + PAYLOAD_PIECE_WORDS - 1) / PAYLOAD_PIECE_WORDS)
            break;
        const uint32_t lo = piece * PAYLOAD_PIECE_WORDS,
                       hi = j->n - lo < PAYLOAD_PIECE_WORDS ? j->n : lo + PAYLOAD_PIECE_WORDS;
        uint32_t b;
        sum += run_pass(j, lo, hi, &b);
        bad |= b;
    }
    atomic_fetch_add_explicit(&j->sum, sum, memory_order_relaxed);
    atomic_fetch_or_explicit(&j->bad, bad, memory_order_relaxed);
}

/* Runs one pass over n payload words, on the pool when they are many. Returns the checksum and, for
 * PASS_CHECK, the difference mask in *bad. */
static uint32_t payload_pass(ring *r, payload_job *j, uint32_t *bad)
{
    uint32_t b = 0, sum;
    if (!r->pool || j->n * 4u < RING_POOL_MIN_BYTES)
        sum = run_pass(j, 0, j->n, &b);
    else {
        pool_run(r->pool, payload_pieces, j); /* the pool's wait orders the threads' adds before these loads */
        sum = atomic_load(&j->sum);
        b = atomic_load(&j->bad);
    }
    if (bad)
        *bad = b;
    return sum;
}

/* Large passes are timed into ring_stats.payload_ns (RING_TIMED_MIN_BYTES). */
uint32_t ring_payload_pass(ring *r, ring_pass kind, uint32_t *w, uint32_t n, uint32_t slot, uint32_t seq, uint32_t *bad)
{
    payload_job j = {.w = w, .n = n, .seed = r->cfg.seed, .slot = slot, .seq = seq, .kind = kind};
    atomic_init(&j.next, 0);
    atomic_init(&j.sum, 0);
    atomic_init(&j.bad, 0);
    if (n * 4u < RING_TIMED_MIN_BYTES)
        return payload_pass(r, &j, bad);
    const uint64_t t0 = timing_now_ns();
    const uint32_t sum = payload_pass(r, &j, bad);
    r->st.payload_ns += timing_now_ns() - t0;
    return sum;
}
