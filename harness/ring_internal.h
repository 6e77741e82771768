/* ring_internal.h - what ring.c shares with its backends (ring_cpu.c, ring_cuda.c). Not public.
 *
 * ring.c owns the protocol: counters, publication order, waiting, verification. A backend owns
 * memory and movement: it allocates the control block, rings and staging buffers for the mode, moves
 * slots and control-block halves between host and "device", and runs the kernel.
 */
#ifndef RINGBENCH_RING_INTERNAL_H
#define RINGBENCH_RING_INTERNAL_H

#include <stdatomic.h>

#include "pool.h"
#include "ring.h"

typedef struct ring_ops {
    /* Allocates the control block and rings for r->cfg and sets the pointers below. RING_EUNSUPPORTED
     * when the platform refuses an allocation the mode needs. */
    int (*open)(ring *r);
    void (*close)(ring *r);
    /* Zeroes the control block and scratch, then launches. forgot: ring.c just forgot the host's slots
     * after a launch that carried messages (forget_slots); a backend with rings of its own in device
     * memory forgets those too. */
    int (*launch)(ring *r, int forgot);
    /* 0 while the kernel runs, 1 once it has exited cleanly, RING_EKERNEL if it died (text in r->err). */
    int (*status)(ring *r);
    /* Starts moving the run of n input slots from `first` (contiguous: a run never wraps) from
     * in_stage to the device ring, as ONE copy of `bytes` bytes from the start of slot `first`. When
     * track, its completion is tracked under the run's last slot (put_done); a run announced in
     * stream order (announce) is not asked about, and records no event. */
    int (*put)(ring *r, uint32_t first, uint32_t n, size_t bytes, int track);
    /* The same for a run of output slots, from the device ring to out_stage. */
    int (*get)(ring *r, uint32_t first, uint32_t n, size_t bytes);
    /* 1 when the put/get run ending at slot `last` has completed (and with it every run started
     * before it: copies complete in the order they were started), 0 when not yet, <0 on error. */
    int (*put_done)(ring *r, uint32_t last);
    int (*get_done)(ring *r, uint32_t last);
    /* Staged control block (ctrl=device): writes r->shadow to the device after every put already
     * started (stream order), or reads the kernel half into r->kview. snap is the input slot whose
     * snapshot buffer the copy reads from (the last slot of the batch it announces; it stays
     * untouched until that slot is reused, by when the kernel has seen the copy), or capacity for a
     * write that completes before cb_write returns. */
    int (*cb_write)(ring *r, uint32_t snap);
    int (*cb_read)(ring *r);
    /* Stream-ordered control (used only when open set r->stream_ops). announce: in_tail = value is
     * written into the direct control block by the put stream, after every put already started
     * (so after the slots it announces have landed). await_reply: every get started after it waits,
     * in the get stream, until the kernel's out_tail >= value (unsigned: the caller makes sure no
     * wrap lies between the current out_tail and value). */
    int (*announce)(ring *r, uint32_t value);
    int (*await_reply)(ring *r, uint32_t value);
    /* Copies the kernel's trace (RING_TRACE_RECS records) into out; called only with cfg.trace set
     * and the kernel exited. */
    int (*trace_read)(ring *r, ring_trace_rec *out);
} ring_ops;

extern const ring_ops ring_cpu_ops;
#ifdef RINGBENCH_HAVE_CUDA
extern const ring_ops ring_cuda_ops;
#endif

struct ring {
    ring_config cfg;
    const ring_ops *ops;
    void *be; /* backend state */
    char err[320];

    /* Set by ops->open. */
    ring_cb *cb_direct;      /* host pointer to the control block when the host accesses it directly
                              * (managed, mapped, CPU backend); NULL when every access is staged */
    unsigned char *in_stage; /* host side of each input slot (for zerocopy: the ring itself) */
    unsigned char *out_stage;
    uint32_t blocks;

    /* Protocol state, owned by ring.c. */
    size_t stride;
    uint32_t mask;
    ring_cb_host shadow;           /* what the host has written, or will write, to the host half */
    ring_cb_host written;          /* what a direct control block holds now (to store only changes) */
    ring_cb_kern kview;            /* the last kernel half the host read */
    uint32_t issued;               /* messages whose put has started */
    uint32_t published;            /* messages announced through in_tail */
    uint32_t fetched;              /* replies whose get has started */
    uint32_t consumed;             /* replies verified and released */
    uint32_t delivered;            /* replies handed to the caller by ring_recv (<= consumed) */
    uint32_t *lens;                /* payload length of each in-flight message, by slot */
    uint32_t *slot_len, *slot_sum; /* per input slot: the length whose payload checksum is cached */
    /* Copy runs started and not yet known complete, as FIFOs of "index after the run's last message"
     * (at most capacity runs each, since a run holds at least one in-flight message). */
    uint32_t *put_runs, put_head, put_tail;
    uint32_t *get_runs, get_head, get_tail;
    int launched, terminated;
    int early;      /* take small zero-copy replies from their own words (try_reply) */
    int refill;     /* ring_pump posts on out_tail, verifies after (ring_config.refill_first) */
    int refill_hdr; /* ... and counts replies answered from their headers (ring_config.refill_headers) */
    uint32_t hseen; /* a refilling pump: the first reply whose header it has not seen (see_headers) */
    int pumping;    /* ring_pump is running */
    int stream_ops; /* set by ops->open: announce/await_reply work for this ring */
    ring_stats st;
    pool_ctx *pool; /* workers for per-byte host work on large messages, or NULL */
    /* The first reply that did not verify (ring_first_bad): taken by the thread whose judgement found
     * it first (bad_taken), read once its verification is over. */
    atomic_int bad_taken;
    uint32_t bad_index, bad_seq;
    int bad_outcome;
};

/* Formats a message into r->err and returns code. */
int ring_fail(ring *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* --- payload work (ring_payload.c) ------------------------------------------------------------ */

/* Messages at least this large have their host work split across the worker pool. */
#define RING_POOL_MIN_BYTES (256u * 1024u)

typedef enum { RING_PASS_GENERATE, RING_PASS_SUM, RING_PASS_CHECK } ring_pass;

/* Runs one pass over n payload words of input slot `slot` (message seq for RING_PASS_CHECK), on the
 * pool when they are many: GENERATE writes them, SUM sums them as they are, CHECK compares a reply
 * with what the kernel must have produced. Returns the checksum and, for CHECK, the difference mask
 * in *bad (non-zero: a word differs). */
uint32_t ring_payload_pass(ring *r, ring_pass kind, uint32_t *w, uint32_t n, uint32_t slot, uint32_t seq,
                           uint32_t *bad);
/* Reply words lo..hi-1 of message seq against what the kernel must have produced: non-zero on any
 * difference; their part of the reply's checksum in *sum. */
uint32_t ring_check_words(const uint32_t *w, uint32_t lo, uint32_t hi, uint32_t seed, uint32_t slot, uint32_t seq,
                          uint32_t *sum);

#endif
