/* ring_kernel.h - launchers of the persistent ring kernel and of the baseline kernels.
 *
 * This header is all the C harness sees of the device code (the .cu files in kernels/). Every launcher checks
 * its launch and returns the CUDA error (cudaSuccess when the launch was accepted).
 */
#ifndef RINGBENCH_RING_KERNEL_H
#define RINGBENCH_RING_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "ring_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything the persistent kernel needs; every pointer must be device-accessible. */
typedef struct ring_kernel_args {
    ring_cb *cb;            /* control block: managed, device or mapped memory */
    unsigned char *in_ring; /* capacity slots of slot_stride bytes */
    unsigned char *out_ring;
    void *scratch; /* ring_kernel_scratch_bytes() of device memory, zeroed before launch */
    uint64_t slot_stride;
    uint64_t max_lifetime_ns; /* the kernel exits by itself after this long; 0 = no limit */
    uint32_t capacity;        /* power of two */
    uint32_t max_payload;
    uint32_t flags;        /* RING_KFLAG_* */
    ring_trace_rec *trace; /* RING_TRACE_RECS records of device memory, zeroed; NULL = no trace */
    /* A platform that fails, for tests (ring_config.fault_kind): RING_KFAULT_* on every message whose
     * seq + 1 is a multiple of fault_every (0 = none); LATE holds it fault_late_ns. */
    uint32_t fault_kind;
    uint32_t fault_every;
    uint64_t fault_late_ns;
} ring_kernel_args;

/* Values of ring_kernel_args.fault_kind: the message is never taken (its reply never visible), taken
 * only after fault_late_ns, or answered with the sequence number before its own (a stale reply). */
#define RING_KFAULT_NONE 0u
#define RING_KFAULT_NEVER 1u
#define RING_KFAULT_LATE 2u
#define RING_KFAULT_STALE 3u

/* Bits of ring_kernel_args.flags. */
#define RING_KFLAG_EARLY_TAKE 1u     /* take a lone small message by its own header (see rk_lead) */
#define RING_KFLAG_LEADER_REPLY 2u   /* the leader answers a lone small message itself (rk_leader_reply) */
#define RING_KFLAG_SHORTCUTS_BUSY 4u /* the early take applies to any message, not only lone ones (RING_HDR_LONE) */
/* With the leader's reply: up to RK_LEADER_SPLIT_MAX messages in flight, the leader answers a batch
 * of more small messages than it holds in parts, RK_AHEAD_MAX at a time (rk_lead). Set for zero-copy
 * rings, where it saves block 0 a second read of the slots across the bus; in copy modes each part
 * costs the host a copy of its replies. */
#define RING_KFLAG_LEADER_SPLIT 8u

/* Bytes of device scratch the kernel needs (fan-out job, fan-in sums and counters). */
size_t ring_kernel_scratch_bytes(void);

/* Threads per block the ring kernel is built for (its __launch_bounds__). */
unsigned ring_kernel_block_threads(void);

/* Loads the ring and baseline kernels now (never lazily while a persistent kernel occupies the GPU)
 * and tells how many blocks of the ring kernel are co-resident on the current device: per-SM
 * occupancy times the SM count. */
cudaError_t ring_kernel_prepare(unsigned *max_coresident_blocks);

/* Launches the persistent kernel with `blocks` blocks on stream: cooperatively (grid.sync fan-in)
 * when coop is non-zero, otherwise as an ordinary launch (last-block-done fan-in). */
cudaError_t ring_kernel_launch(const ring_kernel_args *a, int coop, unsigned blocks, cudaStream_t stream);

/* Baseline: a one-thread persistent kernel answering each new value of *ping with the same value
 * in *pong, until *ping is RB_PINGPONG_STOP. Both words should be mapped pinned host memory. */
#define RB_PINGPONG_STOP 0xFFFFFFFFu
cudaError_t rb_pingpong_launch(uint32_t *ping, uint32_t *pong, cudaStream_t stream);

/* Baseline: one ordinary launch of the ring transform over nwords words of message seq
 * (out[i] = in[i] ^ ring_key(seq, i)), with enough blocks for the size. */
cudaError_t rb_transform_launch(const uint32_t *in, uint32_t *out, uint32_t nwords, uint32_t seq, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
