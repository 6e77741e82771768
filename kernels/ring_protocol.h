/* ring_protocol.h - the ring protocol, defined once for the CUDA kernel and the CPU reference backend.
 *
 * Both nvcc (as CUDA C++) and the host C compiler build this header, so the persistent kernel and
 * the CPU "kernel" thread frame, check and transform messages with the same code. It holds:
 *   - the control block (ring_cb): a host-written half and a kernel-written half, 64 bytes each;
 *   - the message slot header (ring_hdr) and the slot geometry of the input and output rings;
 *   - the payload generator, checksum and reply transform that make every message verifiable.
 *
 * Who writes what (single writer per field, so no field ever needs a read-modify-write across the bus):
 *   host   writes ring_cb.h (in_tail, out_ack, flag, cmd) and the input ring's slots;
 *   kernel writes ring_cb.k (state, in_head, out_tail, ...) and the output ring's slots.
 *
 * Batches. Both sides move messages in batches: the host writes n slots and announces them with one
 * store of in_tail; one poll of the kernel takes every slot between in_head and in_tail and
 * publishes all n replies with one store of out_tail (in_head advances with it); the host then
 * reaps every reply up to out_tail at once. Counters still count messages, so a batch is invisible
 * in the format: only how often the counters move changes.
 *
 * Memory ordering. Host: payload stores into a slot, then a release store of in_tail (C11
 * atomic_store_explicit(memory_order_release)); reads of out_tail are acquire loads before the reply
 * slot is read. When the slot or the control block lives in device memory, "store" and "load" are
 * staged copies, and the copy that publishes in_tail is issued only after the payload copy completed.
 * Device: the leader thread reads the host half with an acquire load at system scope
 * (ld.acquire.sys), before any thread reads the batch the new in_tail announces; the replies'
 * payloads and headers are written, then __threadfence_system(), then out_tail (see the design note
 * in ring_kernel.cu for how a batch spread over the grid gets there). Payload loads bypass L1 (__ldcg),
 * because a slot is reused every `capacity` messages and an SM's L1 may still hold the old bytes.
 *
 * Early take (CUDA kernel, RING_KFLAG_EARLY_TAKE). in_tail is the announcement, but not the only
 * way to know a message is there: a header that names exactly the next sequence number, with a
 * valid check word, and a payload of up to 16 bytes that matches its sealed checksum are the whole
 * message. The kernel takes such a lone message without waiting for in_tail, so in_head may run
 * ahead of in_tail; the host never relies on in_head <= in_tail. Every reply is still published
 * through out_tail and verified by the host in full.
 */
#ifndef RINGBENCH_RING_PROTOCOL_H
#define RINGBENCH_RING_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define RING_HD static __host__ __device__ __forceinline__
#define RING_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define RING_HD static inline
#define RING_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

#define RING_PROTOCOL_VERSION 1

/* ---------------------------------------------------------------------------------------------- */
/* Control block                                                                                   */

/* Bits of ring_cb_host.cmd. */
#define RING_CMD_ACTIVE 1u    /* process messages; clear = stay resident but idle */
#define RING_CMD_TERMINATE 2u /* leave the kernel */

/* Values of ring_cb_kern.state. */
#define RING_STATE_NONE 0u       /* not launched yet (the host zeroes the block before launch) */
#define RING_STATE_IDLE 1u       /* resident, polling, not consuming messages */
#define RING_STATE_ACTIVE 2u     /* consuming messages */
#define RING_STATE_TERMINATED 3u /* exited; exit_reason says why */

/* Values of ring_cb_kern.exit_reason. */
#define RING_EXIT_NONE 0u
#define RING_EXIT_REQUESTED 1u /* the host asked (RING_CMD_TERMINATE) */
#define RING_EXIT_LIFETIME 2u  /* the configured maximum lifetime elapsed */

/* Bits of ring_hdr.flags in a reply. */
#define RING_FLAG_BAD_INPUT 1u /* the kernel found the input checksum or length wrong */

typedef struct ring_cb_host { /* written by the host only */
    uint32_t in_tail;         /* messages published into the input ring (a count; wraps at 2^32) */
    uint32_t out_ack;         /* replies the host has consumed (frees output slots) */
    uint32_t flag;            /* handshake token: the kernel copies it to k.flag_ack */
    uint32_t cmd;             /* RING_CMD_* bits */
    uint32_t pad[12];
} ring_cb_host;

typedef struct ring_cb_kern { /* written by the kernel only */
    uint32_t state;           /* RING_STATE_* */
    uint32_t exit_reason;     /* RING_EXIT_* */
    uint32_t in_head;         /* messages consumed from the input ring */
    uint32_t out_tail;        /* replies published into the output ring */
    uint32_t errors;          /* messages whose input failed the kernel's checks */
    uint32_t heartbeat;       /* advances while the kernel runs, at least every RING_HEARTBEAT_NS */
    uint32_t flag_ack;        /* last h.flag the kernel has seen */
    uint32_t blocks;          /* grid size the kernel runs with */
    uint32_t pad[8];
} ring_cb_kern;

typedef struct ring_cb {
    ring_cb_host h;
    ring_cb_kern k;
} ring_cb;

RING_STATIC_ASSERT(sizeof(ring_cb_host) == 64, "host half is one 64-byte line");
RING_STATIC_ASSERT(sizeof(ring_cb_kern) == 64, "kernel half is one 64-byte line");
RING_STATIC_ASSERT(sizeof(ring_cb) == 128, "control block is two lines");
RING_STATIC_ASSERT(offsetof(ring_cb, h) == 0, "host half first");
RING_STATIC_ASSERT(offsetof(ring_cb, k) == 64, "kernel half second");
RING_STATIC_ASSERT(offsetof(ring_cb_host, in_tail) == 0 && offsetof(ring_cb_host, cmd) == 12,
                   "the kernel reads in_tail..cmd as one 16-byte load");
RING_STATIC_ASSERT(offsetof(ring_cb_kern, out_tail) == 12, "layout is part of the protocol");

#define RING_HEARTBEAT_NS 100000u /* 100 us */

/* ---------------------------------------------------------------------------------------------- */
/* Slots                                                                                           */

typedef struct ring_hdr {
    uint32_t seq;   /* message sequence number, from 0 */
    uint32_t len;   /* payload bytes, a multiple of 4 */
    uint32_t sum;   /* ring_checksum of the payload, salted with seq and len */
    uint32_t flags; /* input: ring_hdr_check(seq, len, sum), or ring_hdr_check_lone; reply: RING_FLAG_* bits */
} ring_hdr;
RING_STATIC_ASSERT(sizeof(ring_hdr) == 16, "slot header is 16 bytes");

/* Every slot starts on a 64-byte boundary: one host cache line, so an 8-byte message's slot is 64
 * bytes, not 256. The kernel reads a batch of small slots over PCIe (zero-copy) or from device
 * memory: with a 64-byte stride header and payload of a slot up to 48 bytes are one 64-byte read
 * and a batch of 4096 such messages is 256 KiB instead of 1 MiB, which also shrinks the one copy
 * per batch in the copy modes by 4x. A stride below a cache line would put two slots in a line that
 * the host writes while the kernel reads its neighbour (and that the kernel reads ahead), for no
 * fewer PCIe reads: each message is still one read request. */
#define RING_SLOT_ALIGN 64u
#define RING_MAX_PAYLOAD (1u << 30) /* 1 GiB: a hard protocol limit, far above any sweep */
#define RING_MAX_CAPACITY (1u << 16)

/* Bytes between the starts of two slots for payloads up to max_payload. */
RING_HD size_t ring_slot_stride(uint32_t max_payload)
{
    size_t b = sizeof(ring_hdr) + (size_t)max_payload;
    return (b + RING_SLOT_ALIGN - 1) / RING_SLOT_ALIGN * RING_SLOT_ALIGN;
}

/* Why a configuration is rejected, or NULL when it is acceptable. */
RING_HD const char *ring_check_geometry(uint32_t capacity, uint32_t max_payload)
{
    if (capacity < 2 || capacity > RING_MAX_CAPACITY)
        return "ring capacity must be between 2 and 65536 slots";
    if (capacity & (capacity - 1))
        return "ring capacity must be a power of two";
    if (max_payload == 0)
        return "maximum message size must be at least 4 bytes";
    if (max_payload > RING_MAX_PAYLOAD)
        return "maximum message size is above the 1 GiB protocol limit";
    if (max_payload % 4)
        return "maximum message size must be a multiple of 4 bytes";
    return 0;
}

/* Why a message length is rejected for a ring of max_payload, or NULL. */
RING_HD const char *ring_check_len(uint32_t len, uint32_t max_payload)
{
    if (len == 0)
        return "message size 0: a message carries at least 4 bytes";
    if (len % 4)
        return "message size must be a multiple of 4 bytes";
    if (len > max_payload)
        return "message larger than the ring's slot size";
    return 0;
}

/* The most messages one kernel poll takes as a batch: every pending one, but at most
 * RING_BATCH_BYTES of slots (at least one message). Small messages batch by the thousand; large ones
 * are published a few at a time, so the host verifies (and the copies bring back) the first replies
 * while the kernel works on the next, instead of waiting for a whole ring of 4 MiB messages. */
#define RING_BATCH_BYTES (4u << 20)
RING_HD uint32_t ring_batch_max(uint32_t capacity, uint32_t max_payload)
{
    uint32_t n = RING_BATCH_BYTES / max_payload;
    return n == 0 ? 1 : n < capacity ? n : capacity;
}

/* Signed distance a - b of two wrapping counters. */
RING_HD int32_t ring_diff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

/* ---------------------------------------------------------------------------------------------- */
/* Payload, checksum and transform                                                                 */

/* Payload word i of input slot `slot` (the host fills each slot once; see ring.c fill_slots). Cheap
 * (two multiplies) so checking stays near memory speed, and different for every (seed, slot, i) so
 * misplaced data shows. */
RING_HD uint32_t ring_gen(uint32_t seed, uint32_t slot, uint32_t i)
{
    return ((seed ^ slot) * 0x9E3779B1u) ^ (i * 0x85EBCA77u) ^ (slot << 7);
}

/* The key the kernel XORs into word i of message seq to form the reply: it makes every reply
 * unique to its message, so a stale, duplicated or misrouted reply cannot pass verification. */
RING_HD uint32_t ring_key(uint32_t seq, uint32_t i) { return (seq * 0xC2B2AE3Du + 0x27D4EB2Fu) ^ (i * 0x165667B1u); }

/* One word's contribution to the checksum: a sum of per-word terms, so any partition of the
 * payload across threads and blocks adds up to the same value. Multiplying by an odd number is a
 * bijection modulo 2^32, so changing any single word always changes the sum. */
RING_HD uint32_t ring_sum_term(uint32_t w, uint32_t i) { return (w ^ (i * 0x9E3779B9u)) * ((i << 1) | 1u); }

/* The kernel's trace (ring_config.trace): one record per batch, in a buffer of RING_TRACE_RECS
 * records indexed by batch number modulo RING_TRACE_RECS, written only when the host asked for it.
 * Times are the kernel's clock (CUDA: %globaltimer, ns; CPU backend: timing_now_ns), so only
 * differences between stamps of one record, or of records, mean anything; the host clock is
 * another clock. A zero poll_ns marks a record never written. published_ns is 0 for a batch that a
 * block other than block 0 published (an ordinary launch's grid batch: the last block to finish
 * publishes, and only block 0 keeps the record's index). */
typedef struct ring_trace_rec {
    uint64_t poll_ns;      /* the poll that found the batch was issued */
    uint64_t seen_ns;      /* its reads were back and the batch decided */
    uint64_t written_ns;   /* every reply of the batch written, not yet published */
    uint64_t published_ns; /* after the publishing fence and the stores of in_head and out_tail */
    uint32_t first, n;     /* the batch: messages first .. first + n - 1 */
    uint32_t polls;        /* polls since the previous batch was taken, the finding one included */
    uint32_t how;          /* RING_TRACE_EARLY | RING_TRACE_LEADER | RING_TRACE_SPLIT bits: how it was taken */
} ring_trace_rec;
RING_STATIC_ASSERT(sizeof(ring_trace_rec) == 48, "ring_trace_rec layout is shared with the kernel");

#define RING_TRACE_RECS 4096u
#define RING_TRACE_EARLY 1u  /* taken before in_tail announced it (the early take) */
#define RING_TRACE_LEADER 2u /* answered by the leader thread itself (the leader's reply) */
#define RING_TRACE_SPLIT 4u  /* cut to what the leader held, more pending (RING_KFLAG_LEADER_SPLIT) */

/* The check word of an input header. The kernel reads a header while the host may be writing it
 * (it reads ahead, see ring_kernel.cu rk_lead), and a 16-byte read across the bus can see part of
 * the old header and part of the new; only a header whose check word matches is taken as whole. */
RING_HD uint32_t ring_hdr_check(uint32_t seq, uint32_t len, uint32_t sum)
{
    return (seq * 0x85EBCA6Bu) ^ (len * 0xC2B2AE35u) ^ sum ^ 0x5BD1E995u;
}

/* A lone message: the host posts it alone onto an idle ring (nothing else in flight, every earlier
 * reply taken) and says so in the header, whose check word it salts with RING_HDR_LONE. Only the
 * host knows that no other message is about to land behind this one, and only for such a message
 * do the kernel's latency shortcuts pay (the early take, ring_kernel.cu rk_lead): applied to the
 * first message of a batch they split the batch. A lone header is as whole as a plain one. */
#define RING_HDR_LONE 0x4C4F4E45u
RING_HD uint32_t ring_hdr_check_lone(uint32_t seq, uint32_t len, uint32_t sum)
{
    return ring_hdr_check(seq, len, sum) ^ RING_HDR_LONE;
}

/* The header checksum: payload sum salted with seq and len. */
RING_HD uint32_t ring_seal(uint32_t payload_sum, uint32_t seq, uint32_t len)
{
    return payload_sum + seq * 0x27D4EB2Fu + len * 0x61C88647u;
}

#endif
