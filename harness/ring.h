/* ring.h - the host side of the ring-kernel system: one ring = one persistent kernel, its control
 * block, an input ring and an output ring, in one mode, on one backend.
 *
 * Lifecycle: ring_open (allocate everything; nothing is allocated or freed while a kernel runs, since
 * cudaFree would wait for it) -> ring_launch -> ring_activate -> ring_send/ring_recv ... ->
 * ring_deactivate / ring_activate ... -> ring_terminate -> ring_close. Every wait is bounded by
 * cfg.timeout_s; a kernel that stops answering or dies (watchdog, fault) is reported, never waited
 * on forever. The CPU backend runs the same protocol with a host thread as the kernel.
 *
 * Every reply is verified word by word against the generator of ring_protocol.h; lost, duplicated and
 * corrupted messages are counted in ring_stats.
 *
 * Errors: functions return RING_OK (0) or a negative RING_E* code, with one line of text in
 * ring_error(). RING_EUNSUPPORTED from ring_open means this platform cannot run the mode (the text
 * has the CUDA error that said so).
 */
#ifndef RINGBENCH_RING_H
#define RINGBENCH_RING_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "modes.h"
#include "ring_protocol.h"

enum {
    RING_OK = 0,
    RING_EARG = -1,         /* bad configuration or argument */
    RING_EUNSUPPORTED = -2, /* the platform refused what the mode needs */
    RING_ETIMEOUT = -3,     /* no progress within timeout_s */
    RING_EKERNEL = -4,      /* the kernel exited or died */
    RING_ECUDA = -5,        /* a CUDA call failed */
    RING_EFULL = -6,        /* capacity messages already in flight */
    RING_ESTATE = -7,       /* call not allowed in this lifecycle state */
    RING_ENOMEM = -8
};

typedef enum { RING_BACKEND_CUDA, RING_BACKEND_CPU } ring_backend;

const char *ring_backend_name(ring_backend b); /* "cuda", "cpu" */

typedef struct ring_config {
    ring_backend backend;
    mode_spec mode;
    int device;            /* CUDA device ordinal */
    uint32_t capacity;     /* slots per ring, power of two */
    uint32_t max_payload;  /* bytes, multiple of 4 */
    uint32_t blocks;       /* CUDA grid; 0 = every co-resident block (fills the GPU) */
    double timeout_s;      /* bound of any single wait */
    double max_lifetime_s; /* the kernel leaves by itself after this; 0 = no limit */
    uint32_t seed;         /* payload generator seed */
    int host_workers;      /* threads for host work on large messages and batches; -1 = by CPU count */
    /* Fault injection, for tests only: every fault_every-th message (seq + 1 a multiple of it) is
     * damaged as fault_kind says. 0 = never. RING_FAULT_CORRUPT, _DUPLICATE and _SKIP damage the
     * reply, on the CPU backend only (tests of the host's verifier). RING_FAULT_BAD_INPUT, on both
     * backends, posts the message with a wrong checksum under a valid header: the kernel must flag
     * it (RING_FLAG_BAD_INPUT) and the host counts it in ring_stats.bad_input, not as corrupted.
     * A platform that fails (issue 53; `run --inject-fault`), on both backends, as the kernel sees
     * it: RING_FAULT_NEVER, the message's reply never becomes visible (the kernel never takes it, as
     * when the host's writes never reach it); RING_FAULT_LATE, only after timeout_s + 1 s, when the
     * host has given up; RING_FAULT_STALE, its reply carries the sequence number before its own, as a
     * reply read from memory that was not yet updated. */
    uint32_t fault_every;
    int fault_kind;
    /* Zero-copy and async rings: take a small reply as soon as its own header and payload verify,
     * before out_tail (zero-copy) or its copy's completion (async) says it is there (see ring.c
     * try_reply), while at most 256 messages are in flight (a full window is faster without them).
     * Not inside a ring_pump that counts reply headers (refill_headers). -1 = on for the CUDA backend,
     * 0 = off, 1 = on. */
    int early_replies;
    /* CUDA backend: the kernel takes a lone message of up to 16 bytes as soon as its sealed header
     * and payload are in the input ring, before in_tail announces it (kernels/ring_kernel.cu,
     * rk_lead). 1 = on (the default), 0 = off: every message waits for in_tail, for measuring what
     * the early take saves. The CPU backend always waits for in_tail. */
    int early_take;
    /* CUDA backend: the kernel's leader thread answers such a lone message of up to 16 bytes by
     * itself - reply, fence, out_tail - without handing it to a warp behind two block barriers
     * (kernels/ring_kernel.cu, rk_leader_reply); in a zero-copy ring it also answers a batch of up
     * to 32 small messages in flight 15 at a time (RING_KFLAG_LEADER_SPLIT). 1 = on (the default),
     * 0 = off, for measuring what it saves. */
    int leader_reply;
    /* Async copies from pinned staging with a directly accessible control block (mapped or
     * managed): when the ring is idle, a post queues its whole round trip in stream order - the
     * slots' copy, then in_tail written by the copy stream (cuStreamWriteValue32), and in the reply
     * stream a wait for out_tail (cuStreamWaitValue32) followed by the replies' copy - so the host
     * neither waits for the input copy before announcing it nor sees out_tail before fetching the
     * replies. Busy rings keep the host-triggered path, which merges many posts into one copy of
     * replies. 1 = on where the platform allows it, 0 = off (the default: on the H100 it made the
     * 8-byte round trip about 7 us slower: docs/decisions/0012-early-take-and-stream-ops.md). */
    int stream_ops;
    /* The kernel's early take is for a lone message: by default it applies only to a message the
     * host marked lone (RING_HDR_LONE: posted alone onto an idle ring). Taken early, the first
     * message of a batch is split from the rest, which cost most of a window's throughput
     * (docs/decisions/0014-lone-messages-and-leader-split.md). 1 = take any whole small message early (the
     * rule before), for measuring that; 0 = lone messages only (the default). */
    int shortcuts_busy;
    /* ring_pump on a zero-copy ring: the most messages one post hands over (one in_tail move); 0 =
     * whatever the window has room for, all at once (the rule before, and always the rule of copy
     * rings, where a piece costs a copy of its own: the fallback at 8 B and the full window fell from
     * 17-23 to 14 M msg/s in pieces of 1024). With a whole window posted at once the host and the
     * kernel take turns: the kernel waits while the host verifies the last window's replies and
     * stages the next, and the host waits while the kernel works; in pieces the kernel starts on the
     * first while the host still verifies and stages the rest
     * (docs/decisions/0015-windows-in-pieces-and-early-reply-limit.md). */
    uint32_t post_max;
    /* Replies verified together (a window's, or a landed copy's) whose work adds up to at least this
     * many bytes - each reply's payload plus 128 bytes for its fixed costs (ring.c verify_range) -
     * are shared out over the host's worker pool, a few at a time, instead of checked one after
     * another by the polling thread while the kernel waits for the next post. 0 = always one after
     * another (the rule before). A reply of RING_POOL_MIN_BYTES or more is split within itself
     * either way. */
    uint32_t verify_split;
    /* ring_pump on a zero-copy ring with a directly accessible control block: a window's room is
     * counted from the replies out_tail announces, so their refill is posted (and announced) as soon
     * as out_tail shows them, and they are verified after, while the kernel works on the refill. 0 =
     * a window's room is counted from the replies verified (the rule before): the kernel waited while
     * the host checked a window's replies, 3-4 us of every cycle of eight 4 KiB messages on the
     * H100 (docs/decisions/0019-refill-before-check-and-on-headers.md). Either way every reply is verified
     * and at most `capacity` messages are unverified. */
    int refill_first;
    /* With refill_first, while at most 256 messages are in flight (as for early replies): a reply
     * counts as answered for the window once its header (sequence number and length) is in the
     * output ring, before out_tail announces it, so its refill goes out while the kernel is still
     * fencing and publishing; it is verified once out_tail covers it, as before. At 4 KiB and W = 8
     * the kernel waited 1.8-2.0 us from a publication to its next finding poll, 0.3 us with this
     * (docs/decisions/0019-refill-before-check-and-on-headers.md). Such a pump takes no reply early
     * (early_replies): at W = 64 checking each small reply as it landed cost 8 B and 64 B 10-14 %. The
     * host reads reply headers the kernel is still writing, a race by design (like early_replies), so
     * -1 = on for the CUDA backend, 0 = off, 1 = on. */
    int refill_headers;
    /* The kernel keeps a trace of its batches (ring_trace_rec, read with ring_trace_read): when each
     * was found, decided, written and published, by the kernel's own clock. 0 = off (the default;
     * the stamps are stores to device memory off the path the host waits on, but a measured ring
     * should do nothing it need not). */
    int trace;
} ring_config;

enum {
    RING_FAULT_CORRUPT = 1,
    RING_FAULT_DUPLICATE,
    RING_FAULT_SKIP,
    RING_FAULT_BAD_INPUT,
    RING_FAULT_NEVER,
    RING_FAULT_LATE,
    RING_FAULT_STALE
};

/* How long RING_FAULT_LATE holds a message: past the host's wait for it. */
#define RING_FAULT_LATE_NS(timeout_s) ((uint64_t)(((timeout_s) + 1.0) * 1e9))

/* Whether message seq is one that fault_every selects (seq + 1 a multiple of it). */
#define RING_FAULT_HITS(every, seq) ((every) != 0 && ((seq) + 1u) % (every) == 0)

/* ring_config.post_max of ring_config_default (and of run and anatomy without --post-max). */
#define RING_POST_MAX_DEFAULT 512u

/* ring_config.verify_split of ring_config_default (and of run and anatomy without --verify-split). */
#define RING_VERIFY_SPLIT_DEFAULT (32u * 1024u)

/* Defaults: capacity 16, max_payload 4096, timeout 5 s, lifetime 60 s, seed 1, host_workers -1,
 * post_max RING_POST_MAX_DEFAULT, verify_split RING_VERIFY_SPLIT_DEFAULT, refill_first 1, refill_headers -1. */
void ring_config_default(ring_config *c);

/* Ring sizing for benchmarks (ring_capacity_for). Small messages need thousands of slots in
 * flight: at 10 M msg/s and a batch round trip of tens of microseconds, hundreds are in flight at
 * any time, so 4096 leaves headroom (with a 64-byte slot, an 8-byte message's ring is 256 KiB).
 * Large ones are limited so that one ring stays within 64 MiB (WSL2 limits how much pinned memory
 * a process gets; a ring is allocated four times: device and staging, input and output). Eight
 * 4 MiB messages in flight are far more than PCIe's bandwidth-delay product (~250 KB), and every
 * trial opens a fresh ring: on the H100, 1 MiB trials spent most of their time allocating 128 MiB
 * rings (0.18 s a trial in the quick preset). */
#define RING_CAPACITY_SMALL 4096u
#define RING_BYTES_BUDGET (64ull << 20)

/* The capacity (power of two, 2..RING_CAPACITY_SMALL) a ring of max_payload-byte slots should
 * have: RING_CAPACITY_SMALL, halved until capacity x slot stride fits RING_BYTES_BUDGET. */
uint32_t ring_capacity_for(uint32_t max_payload);

typedef struct ring_stats {
    uint64_t sent, received; /* messages */
    uint64_t verified;       /* replies that matched exactly */
    uint64_t lost, duplicated, corrupted;
    uint64_t kernel_errors; /* the kernel's own count of bad inputs */
    uint64_t bad_input;     /* replies to inputs damaged on purpose (RING_FAULT_BAD_INPUT), flagged and exact */
    uint64_t early;         /* of verified: taken before out_tail announced them (early_replies) */
    uint64_t early_held;    /* looks for early replies skipped because more than 256 messages were in
                             * flight (the rule of docs/decisions/0015-windows-in-pieces-and-early-reply-limit.md) */
    uint64_t ordered;       /* of sent: posted with their whole round trip in stream order */
    uint64_t posts;         /* host batches posted (messages per post = sent / posts) */
    uint64_t refills;       /* of a zero-copy ring's posts: made while replies known to be answered
                             * were not yet verified (ring_config.refill_first) */
    uint64_t headers_seen;  /* replies a refilling pump counted as answered from their header, before
                             * out_tail announced them (ring_config.refill_headers) */
    uint64_t announces;     /* in_tail moves the host wrote or queued (a staged write counts once) */
    uint64_t fetches;       /* reads of out_tail that found new replies */
    uint64_t split;         /* of received: verified in a batch shared out over the pool (verify_split) */
    uint64_t payload_ns;    /* host time generating, summing and checking payloads of at least
                             * RING_TIMED_MIN_BYTES (smaller ones are not timed) */
    /* With ring_config.trace only, ring_pump's own time by what each pass of its loop did: posted
     * (staging, announcing, and the progress a post makes), or took replies without posting. The
     * rest of a pump is the host waiting for the kernel. Two clock reads a pass, so off otherwise. */
    uint64_t post_ns, reap_ns;
} ring_stats;

/* Payload passes from this size on are timed into ring_stats.payload_ns: two clock reads are nothing
 * beside 64 KiB of work, and would be most of an 8 B message's. */
#define RING_TIMED_MIN_BYTES (64u * 1024u)

typedef struct ring ring;

int ring_open(const ring_config *cfg, ring **out, char *err, size_t errlen);
void ring_close(ring *r); /* terminates a running kernel (bounded), frees everything */

int ring_launch(ring *r);     /* launch; returns once the kernel's first heartbeat is seen */
int ring_activate(ring *r);   /* returns once the kernel reports ACTIVE */
int ring_deactivate(ring *r); /* returns once the kernel reports IDLE (it stays resident) */
int ring_terminate(ring *r);  /* returns once the kernel has exited */

/* Sends the next message (seq = messages sent so far) with len payload bytes. RING_EFULL when
 * capacity messages are in flight: receive first. */
int ring_send(ring *r, uint32_t len);
/* Sends n messages of len bytes (seq = messages sent so far, ...) as one batch: one copy per
 * contiguous run of slots and one control-block write announce all of them. RING_EFULL when fewer
 * than n slots are free; RING_EARG for n of 0 or above the capacity. */
int ring_send_batch(ring *r, uint32_t len, uint32_t n);
/* Waits (bounded) for the next reply, fetches and verifies it. A reply that fails verification is
 * counted, not an error: callers check ring_get_stats. */
int ring_recv(ring *r);
/* Advances transfers and publication without waiting. */
int ring_progress(ring *r);
uint32_t ring_in_flight(const ring *r);

/* What ring_pump measured: replies received (all verified: see ring_stats), payload bytes, the
 * seconds from the first post to the last reply of the drain, and their rates (GB/s = 1e9 B/s). */
typedef struct ring_pump_result {
    uint64_t messages, bytes;
    double seconds, msgs_per_s, gbps;
} ring_pump_result;

/* Throughput at a window: keeps `window` (1..capacity) messages of len bytes in flight for
 * `seconds` (or until *stop becomes non-zero, when stop is not NULL), posting whatever the replies
 * freed as one batch and reaping and verifying replies in batches, then drains: on RING_OK nothing
 * is in flight. Every reply is verified; lost, duplicated and corrupted counts go to ring_stats as
 * for ring_recv, so callers check those. Requires an active kernel and nothing in flight
 * (RING_ESTATE otherwise); RING_EARG for a bad window or length; RING_ETIMEOUT when no reply
 * arrived for timeout_s; RING_EKERNEL when the kernel exited or died. */
int ring_pump(ring *r, uint32_t len, uint32_t window, double seconds, volatile sig_atomic_t *stop,
              ring_pump_result *out);

/* Control-block operations (the subject of the "10-30%" claim). */
int ring_cb_read(ring *r, ring_cb_kern *out);    /* one read of the kernel-written half */
int ring_cb_write_flag(ring *r, uint32_t value); /* one write of the handshake flag */
int ring_cb_handshake(ring *r);                  /* flag+1, wait until the kernel acknowledges it */

/* The kernel's trace (cfg.trace): copies its RING_TRACE_RECS records, in buffer order (record i
 * holds batch i, i + RING_TRACE_RECS, ...: whichever came last), into out. Only once the kernel has
 * exited (ring_terminate): RING_ESTATE before, or when the ring was opened without cfg.trace. */
int ring_trace_read(ring *r, ring_trace_rec *out);

const ring_stats *ring_get_stats(const ring *r);
/* The first reply that did not verify, in words, into buf: "stale reply: sequence 16 expected 17",
 * "reply out of order: sequence 18 expected 17", "corrupted reply 17"; "" when every reply verified.
 * Returns buf. */
char *ring_first_bad(const ring *r, char *buf, size_t n);
const ring_config *ring_get_config(const ring *r);
uint32_t ring_blocks(const ring *r);     /* grid size the kernel runs with (1 for the CPU backend) */
int ring_uses_stream_ops(const ring *r); /* 1 when idle posts go in stream order (ring_config.stream_ops) */
const char *ring_error(const ring *r);

#endif
