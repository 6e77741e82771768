/* anatomy.h - where the time of one round trip goes.
 *
 * A ring of the given configuration runs with the kernel's trace on (ring_config.trace): every
 * round trip of one message is timed on the host - before ring_send, after it returns, after
 * ring_recv returns - and matched, by sequence number, with the kernel's record of the batch that
 * carried exactly that message (ring_trace_rec). The two clocks are different clocks, so only
 * differences within one clock are used:
 *   round trip  host: ring_send + ring_recv, as the latency family measures it
 *   send        host: until ring_send returns (message staged, announced or its copy started)
 *   poll        kernel: the poll that found the message, from its issue until its reads were back
 *   work        kernel: from then until every reply word and header was written
 *   publish     kernel: the fence and the stores of in_head and out_tail after that (the host's
 *               early reply take, ring.c try_reply, does not wait for these)
 *   outside     round trip - (poll + work): everything no kernel stamp covers - the message's trip
 *               to memory the kernel reads, the wait for a poll issued after it landed, the reply's
 *               trip back, and the host's own work on both ends
 *   idle        kernel: from publishing the previous message to issuing the poll that found this one
 *   polls       kernel: polls from the previous message to this one, the finding one included
 * Each is given as its 10th, 50th and 90th percentile over the matched round trips.
 */
#ifndef RINGBENCH_ANATOMY_H
#define RINGBENCH_ANATOMY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"

typedef struct anatomy_quantiles {
    double p10, p50, p90; /* NaN when there were no values */
} anatomy_quantiles;

typedef struct anatomy_result {
    uint64_t messages; /* round trips timed, warm-up excluded */
    uint64_t traced;   /* of those, matched with a kernel record of a batch of exactly that message */
    uint64_t early;    /* of traced, taken by the kernel before in_tail announced them */
    uint32_t blocks;   /* the grid the kernel ran with */
    anatomy_quantiles rtt, send, poll, work, publish, outside, idle, polls; /* us, except polls */
    ring_stats st; /* the ring's counts: lost, duplicated and corrupted must be 0 */
} anatomy_result;

/* The 10th, 50th and 90th percentiles of v[0..n), which it sorts; NaN with no values. */
void anatomy_quantiles_of(double *v, size_t n, anatomy_quantiles *q);

/* Most round trips one anatomy can take, warm-up included: every one keeps its kernel record. */
#define RB_ANATOMY_MAX RING_TRACE_RECS

/* Opens a ring of cfg (trace forced on, max_payload at least size), launches and activates it,
 * runs `warmup` round trips untimed and `samples` timed ones of size bytes, terminates it and
 * reads its trace. Returns 0 (out filled), 1 when *stop was raised (out holds what was taken), or
 * -1 with one line in err (warmup + samples above RB_ANATOMY_MAX or zero samples, a ring error, or
 * a reply that failed verification). */
int anatomy_run(const ring_config *cfg, uint32_t size, uint32_t warmup, uint32_t samples, volatile sig_atomic_t *stop,
                anatomy_result *out, char *err, size_t errlen);

/* Where a window's messages wait: a ring of cfg pumped with `window` messages in flight (ring_pump,
 * as the throughput family measures it) for `seconds`, after a tenth of that untimed, with the
 * kernel's trace on. The trace keeps the last RING_TRACE_RECS batches; each batch of the timed
 * pump among them gives its size, how it was taken and its kernel times, and the ring's counters
 * give the host's side. Little's law bounds the rate by window / round trip; what falls short of
 * that shows here as batches smaller than the window, polls that found nothing, or host work. */
typedef struct anatomy_window {
    uint32_t window;
    uint64_t messages; /* replies verified in the timed pump */
    double seconds, msgs_per_s;
    uint64_t batches;                           /* kernel batches of the timed pump kept in the trace */
    double per_batch;                           /* messages per kernel batch, mean over those batches */
    anatomy_quantiles batch;                    /* messages per kernel batch */
    double single_share;                        /* share of the traced messages that went in a batch of one */
    double early_share;                         /* share of batches taken before in_tail announced them */
    double leader_share;                        /* share of batches the leader answered itself */
    anatomy_quantiles polls;                    /* polls per batch, the finding one included */
    anatomy_quantiles poll, work, publish, gap; /* us per batch; gap: published to the next finding poll */
    double kernel_busy;                       /* share of the traced span from a finding poll to its batch published */
    double per_post, per_announce, per_fetch; /* host: messages per post, per in_tail move, per out_tail read */
    double early_replies;                     /* share of replies the host took before out_tail or its copy said so */
    double split_replies;                     /* share of replies verified over the pool (ring_config.verify_split) */
    double header_replies; /* share of replies a pump counted answered from their header (refill_headers) */
    double post_us;        /* host: us per post (ring_stats.post_ns over posts) */
    double reap_us;        /* host: us per reply taken outside a post (ring_stats.reap_ns over replies) */
    double host_busy;      /* host: share of the timed pump spent posting or taking replies */
    ring_stats st;         /* the timed pump's counts: lost, duplicated and corrupted must be 0 */
} anatomy_window;

/* Returns 0 (out filled), 1 when *stop was raised, or -1 with one line in err (a ring error, a
 * reply that failed verification, window above the ring's capacity). */
int anatomy_window_run(const ring_config *cfg, uint32_t size, uint32_t window, double seconds,
                       volatile sig_atomic_t *stop, anatomy_window *out, char *err, size_t errlen);

#endif
