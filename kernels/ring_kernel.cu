// ring_kernel.cu - the persistent ring kernel and the baseline kernels of ringbench.
//
// Design (batches). Warp 0 of block 0 (the leader warp, lane 0 writes) polls the control block. When in_tail moves it
// takes EVERY pending message at once - a batch [first, first + n), n = in_tail - in_head, bounded
// by the free output slots and by RING_BATCH_BYTES of slots - and the batch is processed in one of two tiers, chosen by
// the ring's slot size (max_payload, fixed at launch, so a batch never mixes tiers):
//   - warp tier (max_payload <= RK_WARP_MSG_MAX): one warp per message, or, for slots of up to 256
//     bytes, one group of 4, 8 or 16 lanes per message (rk_warp_group: 8 messages of 8 B per warp).
//     Lane L reads quad L of the slot (the header is quad 0), so a message of up to 496 bytes, or a
//     warp's group of small ones, is read with ONE coalesced load instruction - one round trip over
//     PCIe with zero-copy rings; the lanes transform, reduce the checksums with shuffles and the
//     first lane of each message writes its reply header. No fan-in per message.
//   - block tier (larger slots): bpm = ceil(slot quads / RK_THREADS) blocks per message (one block up
//     to 8 KiB, the whole grid at 4 MiB); message j of the batch owns "virtual blocks" j*bpm .. and
//     virtual block v runs on block v % grid, so a batch of n messages fills min(grid, n*bpm) blocks.
//     Per-message checksum parts are summed with atomics into scratch; the publisher seals the
//     headers. A batch block 0 does alone (one slot of up to 32 KiB, eight of 4 KiB) is a block group
//     instead (below): a batch spread over the grid took 7.7-8.0 us of work at eight 4 KiB messages
//     on an H100, 5.2 us as one group (docs/decisions/0018-block-tier-and-block-groups.md).
// RK_WARP_MSG_MAX = 2048 B: a warp moves 512 B per pass, so a warp-tier message costs at most five
// passes. The loads of a pass are independent, but a pass's loads wait for the pass before (its
// stores stand between), so in a zero-copy ring each pass is a round trip across the bus: measured,
// a lone 1 KiB message (three passes) took 11.0 us against 7.9 us for 4 KiB in the block tier, which
// reads a slot in one (docs/decisions/0018-block-tier-and-block-groups.md). So a batch that block
// 0 does alone, of slots of more than 496 bytes whose payload quads fit four to each of its 512 threads
// (32 messages of 1 KiB, 16 of 2 KiB, 8 of 4 KiB, one of up to 32 KiB), is done as one block group
// whose loads are all issued at once (rk_block_group); a larger batch is spread over the grid (the
// warp tier keeps every warp of the grid busy where the block tier would not). RK_WARP_MSG_MAX is a
// reasoned choice, not a measurement: change the constant and compare `ringbench run` results.
//
// A batch that block 0 can do alone (what its 16 warps take in one pass: 128 messages of 8 B, 16 of
// more than 240 B; or a block group, of either tier) is done by block 0 alone: no fan-out, no fan-in, in either
// launch kind - this is the latency path (one message in flight). Anything larger is handed to every block through the
// scratch job (fan-out), and published once: after ONE grid.sync() per batch (cooperative launch) or
// by the last working block to finish (ordinary launch, atomic counter). Publishing a batch: every
// working block's writes are made visible with one barrier plus one __threadfence_system() by its
// thread 0 (cumulative), the publisher writes the block tier's headers, one more system fence, then
// in_head and out_tail advance by n with two stores.
//
// Memory ordering. The leader warp reads the host half with an acquire read at system scope (lane 0,
// ld.acquire.sys: nothing after it is issued before in_tail is back), so the slots any thread of
// block 0 reads after the block barrier that hands out the batch are at least as new as the in_tail
// that announced them - no fence (a __threadfence_system() there cost the batch path 0.5-1 us), and
// every other block only reads slots after it saw the fan-out epoch (release by the leader's fence +
// atomic). Slot loads are __ldcg (L2, never L1: a slot is reused every `capacity` messages). With one
// message in flight the leader's read-ahead of the next slots' headers and first payload quads
// (concurrent with the control-block read; as many slots as the last batch had, up to RK_AHEAD_MAX)
// lets messages of up to 16 bytes go without a second read across the bus - and, with
// RING_KFLAG_EARLY_TAKE, a lone one without waiting for in_tail at all: a sealed header naming
// exactly the next sequence number and a payload matching its checksum are the message, whether or
// not in_tail says so yet (in copy modes the host would otherwise wait for the copy's event before
// it stores in_tail). The early take is limited to a message the host marked lone (RING_HDR_LONE:
// posted alone onto an idle ring) - taken early, the first message of a batch would split it from
// the rest, which cost most of a window's throughput (docs/decisions/0014-lone-messages-and-leader-split.md)
// - and to up to 16 bytes, because only those are vouched for by what the leader has
// already read; anything else waits for in_tail.
//
// The leader's own reply (RING_KFLAG_LEADER_REPLY, rk_leader_reply). A batch of up to RK_AHEAD_MAX
// messages of up to 16 bytes that the leader warp holds whole from its poll is answered by that warp
// itself, inside its polling loop: lane j transforms message j's words and writes its reply, then
// one release fence by lane 0, in_head and out_tail. In a zero-copy ring with up to
// RK_LEADER_SPLIT_MAX messages in flight (RING_KFLAG_LEADER_SPLIT), the poll reads ahead as many
// slots as are in flight, up to RK_AHEAD_MAX, and a larger batch whose first RK_AHEAD_MAX it holds
// whole is answered in parts: those now, the rest from the next poll.
// The warp path costs two block barriers and a dozen shuffles around four words of work; `ringbench
// anatomy` measured it at 0.8 us from the poll's return to the reply written, against 0.1 us here
// (H100, docs/decisions/0013-leader-warp-poll.md). Two variants were measured and dropped: issuing the
// next poll before the fence (the fence then waits for the poll's reads: 0.64 -> 2.9 us), and a
// next poll that reads the slot without the control block (the poll that finds a message took 2.2
// us either way, and at full windows the leader took one message per poll: 18 -> 0.5 M msg/s).
//
// No deadlock: a block waits only on the leader (fan-out) or, for an ordinary launch, the leader
// waits on the working blocks of the current batch, which never wait on anything. Every block of
// the grid must be resident (the host launches occupancy x SMs blocks), as before.
//
// The message format, checksum and transform come from ring_protocol.h, the same code the CPU
// reference backend runs. Built by CMake (kernels/CMakeLists.txt) for the architectures in
// RINGBENCH_CUDA_ARCHITECTURES; exercised by tests/test_ring_gpu.c and `ringbench run`.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "ring_kernel.h"

namespace cg = cooperative_groups;

#define RK_THREADS 512u             // threads per block; occupancy decides blocks per SM
#define RK_WARPS (RK_THREADS / 32u) // warps per block
#define RK_WARP_MSG_MAX 2048u       // slots of up to this many payload bytes: a warp per message
#define RK_AHEAD_MAX 15u            // slots a poll reads ahead: two lanes each, lane 0 the control block
#define RK_LEAD_PAYLOAD_MAX 16u     // payload bytes a poll reads with a slot's header: its first quad
// Up to this many messages in flight, a batch larger than the leader can answer (more than RK_AHEAD_MAX
// of up to 16 bytes) is answered RK_AHEAD_MAX at a time by the leader, not by block 0's warps
// (RING_KFLAG_LEADER_SPLIT, rk_lead). Measured on the H100 at 8 B, zero-copy: windows of 16 to 32
// +4 to +25 %; with 64, windows of 48 and 64 lost 5-25 % (docs/decisions/0014-lone-messages-and-leader-split.md).
#define RK_LEADER_SPLIT_MAX 32u
// The most payload quads a thread of block 0 reads at once in a block group (rk_block_group): 32 KiB a batch.
#define RK_GROUP_PASSES 4u
// The most messages of a block group: a group's slots are of more than 512 bytes (rk_group_fits), which,
// with an alignment that divides 512, hold more than 496 payload bytes: at least 32 payload quads.
#define RK_GROUP_MSGS_MAX (RK_GROUP_PASSES * RK_THREADS / 32u)
static_assert(512u % RING_SLOT_ALIGN == 0, "rk_group_fits: a slot over 512 bytes must hold 32 payload quads");
// The most messages of a block-tier batch (slots above RK_WARP_MSG_MAX bytes, RING_BATCH_BYTES a batch).
#define RK_BLOCK_BATCH_MAX (RING_BATCH_BYTES / RK_WARP_MSG_MAX)

// --- shared state in device memory -------------------------------------------------------------

#define JOB_BATCH 1u
#define JOB_EXIT 2u

// Device scratch, zeroed by the host before launch. Each group of fields has its own 128-byte
// line so that blocks spinning on `go` do not contend with the fan-in atomics.
struct rk_scratch {
    unsigned int go; // fan-out epoch: bumped by the leader once the job below is written
    unsigned int pad0[31];
    unsigned int kind;  // JOB_*
    unsigned int first; // index of the batch's first message
    unsigned int n;     // messages in the batch
    unsigned int pad1[29];
    unsigned int done;     // working blocks finished with the current batch (ordinary launch)
    unsigned int finished; // fan-out number of the last published batch (ordinary launch)
    unsigned int errors;   // inputs that failed the kernel's checks, over the kernel's life
    unsigned int acks;     // job reads finished by the other blocks, over all fan-outs so far
    unsigned int pad2[28];
    unsigned int sums[2 * RING_MAX_CAPACITY]; // block tier: per message of the batch, in/out checksum
    uint4 hdrs[RK_BLOCK_BATCH_MAX];           // block tier: per message of the batch, its header as read
};

// --- memory access helpers -----------------------------------------------------------------------

__device__ __forceinline__ unsigned int ld_volatile(const unsigned int *p) { return *(const volatile unsigned int *)p; }

__device__ __forceinline__ void st_volatile(unsigned int *p, unsigned int v) { *(volatile unsigned int *)p = v; }

// One 16-byte read with acquire semantics at system scope: no later load or store of this thread
// happens before it, so the slots read after it (by this thread, or by others after a barrier or the
// fan-out) are at least as new as the in_tail it returned. It replaces a read followed by
// __threadfence_system(), a sequentially consistent fence, which cost the batch path about a
// microsecond (docs/decisions/0013-leader-warp-poll.md).
__device__ __forceinline__ uint4 ld_acquire4(const void *p)
{
    uint4 v;
    asm volatile("ld.acquire.sys.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}

// A release fence at system scope: the writes before it (this thread's, and those other threads of
// the block made visible to it at a barrier) are seen by anyone who sees a store after it. It is all
// publication needs; __threadfence_system() is a sequentially consistent fence, which also orders
// later loads and costs more on the one-message path.
__device__ __forceinline__ void fence_release_sys(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

__device__ __forceinline__ unsigned long long globaltimer_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// --- the payload transform -----------------------------------------------------------------------

// Transforms quads t, t + nt, ... (and, when t < nwords % 4 and tail is set, word nquads*4 + t) of
// one message and returns the checksum terms of the input and of the reply. The payload starts 16
// bytes into a 64-byte aligned slot, so uint4 accesses are aligned. Quad t itself the caller read
// already (w_t).
__device__ __forceinline__ uint2 rk_transform(const unsigned char *in_slot, unsigned char *out_slot, unsigned int seq,
                                              unsigned int nwords, unsigned int t, unsigned int nt, bool tail,
                                              uint4 w_t)
{
    const uint4 *in4 = (const uint4 *)(in_slot + sizeof(ring_hdr));
    uint4 *out4 = (uint4 *)(out_slot + sizeof(ring_hdr));
    const unsigned int nquads = nwords / 4;
    unsigned int si = 0, so = 0;
    for (unsigned int q = t; q < nquads; q += nt) {
        uint4 w = q == t ? w_t : __ldcg(in4 + q);
        unsigned int i = q * 4;
        uint4 o;
        o.x = w.x ^ ring_key(seq, i);
        o.y = w.y ^ ring_key(seq, i + 1);
        o.z = w.z ^ ring_key(seq, i + 2);
        o.w = w.w ^ ring_key(seq, i + 3);
        si += ring_sum_term(w.x, i) + ring_sum_term(w.y, i + 1) + ring_sum_term(w.z, i + 2) + ring_sum_term(w.w, i + 3);
        so += ring_sum_term(o.x, i) + ring_sum_term(o.y, i + 1) + ring_sum_term(o.z, i + 2) + ring_sum_term(o.w, i + 3);
        __stcg(out4 + q, o);
    }
    if (tail && t < nwords - nquads * 4) {
        unsigned int i = nquads * 4 + t;
        unsigned int w = __ldcg((const unsigned int *)(in_slot + sizeof(ring_hdr)) + i);
        unsigned int o = w ^ ring_key(seq, i);
        si += ring_sum_term(w, i);
        so += ring_sum_term(o, i);
        __stcg((unsigned int *)(out_slot + sizeof(ring_hdr)) + i, o);
    }
    return make_uint2(si, so);
}

// The transform of one quad already in registers (word index i of its first word, n valid words).
__device__ __forceinline__ uint2 rk_transform_quad(uint4 w, unsigned int seq, unsigned int i, unsigned int n,
                                                   uint4 *out)
{
    unsigned int in[4] = {w.x, w.y, w.z, w.w}, o[4], si = 0, so = 0;
#pragma unroll
    for (unsigned int k = 0; k < 4; k++) {
        o[k] = in[k] ^ ring_key(seq, i + k);
        if (k < n) {
            si += ring_sum_term(in[k], i + k);
            so += ring_sum_term(o[k], i + k);
        }
    }
    *out = make_uint4(o[0], o[1], o[2], o[3]);
    return make_uint2(si, so);
}

// Stores the first n (1..4) words of a transformed quad at ow: one 16-byte store for a whole quad.
__device__ __forceinline__ void rk_store_quad(unsigned int *ow, uint4 o, unsigned int n)
{
    if (n >= 4) {
        __stcg((uint4 *)ow, o);
        return;
    }
    __stcg(ow, o.x);
    if (n > 1)
        __stcg(ow + 1, o.y);
    if (n > 2)
        __stcg(ow + 2, o.z);
}

// Sums a pair of values over the warp; the result is valid in every lane.
__device__ __forceinline__ uint2 rk_warp_sum(uint2 v)
{
    for (int off = 16; off > 0; off >>= 1) {
        v.x += __shfl_xor_sync(0xFFFFFFFFu, v.x, off);
        v.y += __shfl_xor_sync(0xFFFFFFFFu, v.y, off);
    }
    return v;
}

// Sums a pair of values over the block; the result is valid in thread 0.
__device__ __forceinline__ uint2 rk_block_sum(uint2 v)
{
    __shared__ uint2 warp_sums[RK_WARPS];
    v = rk_warp_sum(v);
    const unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    uint2 s = make_uint2(0, 0);
    if (warp == 0) {
        if (lane < RK_WARPS)
            s = warp_sums[lane];
        s = rk_warp_sum(s);
    }
    __syncthreads(); // warp_sums is reused by the next call
    return s;
}

// Non-zero when this block found a bad input in the current batch (reset by thread 0 per job): a
// batch block 0 did alone publishes the error count only then, which keeps a device-memory atomic
// off the one-message path.
__shared__ unsigned int rk_block_bad;

// Flags of a reply: RING_FLAG_BAD_INPUT when the input's length or checksum is wrong (counted).
__device__ __forceinline__ unsigned int rk_reply_flags(const ring_kernel_args &a, rk_scratch *s, unsigned int seq,
                                                       unsigned int len, unsigned int sum, unsigned int in_sum)
{
    if (ring_check_len(len, a.max_payload) || ring_seal(in_sum, seq, len) != sum) {
        atomicAdd(&s->errors, 1u);
        atomicOr(&rk_block_bad, 1u);
        return RING_FLAG_BAD_INPUT;
    }
    return 0;
}

// --- the leader ----------------------------------------------------------------------------------

struct rk_leader {
    unsigned long long start_ns, last_beat_ns;
    unsigned long long fault_since; // RING_KFAULT_LATE: when the message it holds was first seen; 0 none
    unsigned int beats, state, flag_ack, dispatched;
    unsigned int polls, batches; // for the trace: polls since the last batch, batches taken
    unsigned int ahead;          // slots the next poll reads ahead, 1..RK_AHEAD_MAX (rk_ahead_split)
};

// The batch every working thread reads from shared memory. For a batch of one message of up to 16
// bytes whose read-ahead checked out, hdr and q0 hold the whole message (have_q0).
struct rk_job {
    unsigned int kind, first, n, have_q0, grid;
    unsigned int trace_i; // the batch's trace record (block 0's copy of the job only)
    uint4 hdr, q0;
};

// The sequence number a reply's header carries: its own, or under RING_KFAULT_STALE the one before it
// for every message the fault selects (the seal keeps the real one: only the header lies).
__device__ __forceinline__ unsigned int rk_reply_seq(const ring_kernel_args &a, unsigned int seq)
{
    return a.fault_kind == RING_KFAULT_STALE && a.fault_every && (seq + 1u) % a.fault_every == 0 ? seq - 1u : seq;
}

// RING_KFAULT_NEVER and _LATE: the n pending messages from L->dispatched are cut before the next one the
// fault selects, which is held for ever (NEVER) or until it has waited fault_late_ns (LATE). The leader
// keeps polling meanwhile, so it still answers the host's commands (terminate). Every lane computes the
// same from the same values. Mirrors ring_cpu.c's fault_hold.
__device__ __forceinline__ unsigned int rk_fault_hold(const ring_kernel_args &a, rk_leader *L, unsigned int n,
                                                      unsigned long long now)
{
    const unsigned int every = a.fault_every, done = L->dispatched;
    if (!every || (a.fault_kind != RING_KFAULT_NEVER && a.fault_kind != RING_KFAULT_LATE))
        return n;
    const unsigned int next = done + (every - (done + 1u) % every) % every;
    if (next - done >= n)
        return n;
    if (a.fault_kind == RING_KFAULT_LATE) {
        if (L->fault_since == 0)
            L->fault_since = now;
        if (now - L->fault_since >= a.fault_late_ns) {
            L->fault_since = 0;
            return next - done + 1u;
        }
    }
    return next - done;
}

// Every lane of the leader warp keeps the same rk_leader; lane 0 alone writes to memory.
__device__ __forceinline__ bool rk_lane0(void) { return (threadIdx.x & 31u) == 0; }

__device__ void rk_set_state(const ring_kernel_args &a, rk_leader *L, unsigned int state)
{
    L->state = state;
    if (rk_lane0()) {
        st_volatile(&a.cb->k.state, state);
        __threadfence_system();
    }
}

__device__ __forceinline__ unsigned int rk_quad_sum(uint4 q, unsigned int nwords)
{
    unsigned int w[4] = {q.x, q.y, q.z, q.w}, s = 0;
#pragma unroll
    for (unsigned int i = 0; i < 4; i++)
        if (i < nwords)
            s += ring_sum_term(w[i], i);
    return s;
}

// Polls the control block until there is a batch (or an exit) and leaves it in *job. Each poll also
// reads the next slot's header and first payload quad, concurrently with the control block, so a
// lone small message is usually in hand the moment in_tail announces it. Those two reads may
// predate the host's writes; the header's check word, sequence number and the payload's checksum
// tell, and anything not vouched for is read again after the poll's acquire read of in_tail.
__device__ void rk_lead(const ring_kernel_args &a, rk_leader *L, rk_job *job);

// The leader takes a batch: its trace record (when the trace is on) gets the poll's issue time and,
// now, the time it was decided - taken after branches on what the poll read, so after its reads
// were back. Counts the batch and restarts the poll count. Returns the record (lane 0 only), or NULL.
__device__ ring_trace_rec *rk_trace_take(const ring_kernel_args &a, rk_leader *L, unsigned long long poll_ns,
                                         unsigned int first, unsigned int n, unsigned int how)
{
    ring_trace_rec *t = a.trace && rk_lane0() ? &a.trace[L->batches & (RING_TRACE_RECS - 1)] : NULL;
    if (t) {
        t->poll_ns = poll_ns;
        t->seen_ns = globaltimer_ns();
        t->written_ns = t->published_ns = 0;
        t->first = first;
        t->n = n;
        t->polls = L->polls;
        t->how = how;
    }
    L->batches++;
    L->polls = 0;
    return t;
}

// The leader warp answers a batch of n messages of up to 16 bytes each that it holds whole from its
// poll (lane j: message dispatched + j, its header and payload quad) by itself: lane j transforms
// and writes reply j, the warp meets at a __syncwarp (which orders its lanes' writes before lane
// 0's fence), and lane 0 issues one release fence and stores in_head and out_tail - no block
// barrier, no other warp, no second read of the slots. Every message was vouched for by its sealed
// checksum, so none can be a bad input. how: the trace's RING_TRACE_EARLY and RING_TRACE_SPLIT bits.
__device__ void rk_leader_reply(const ring_kernel_args &a, rk_leader *L, uint4 hdr, uint4 q0, unsigned int n,
                                unsigned long long poll_ns, unsigned int how)
{
    const unsigned int lane = threadIdx.x & 31u, first = L->dispatched, mask = a.capacity - 1;
    ring_trace_rec *t = rk_trace_take(a, L, poll_ns, first, n, RING_TRACE_LEADER | how);
    L->dispatched = first + n;
    if (lane < n) {
        const unsigned int seq = hdr.x, len = hdr.y, nwords = len / 4;
        unsigned char *out = a.out_ring + (size_t)(seq & mask) * a.slot_stride;
        uint4 o;
        const uint2 sums = rk_transform_quad(q0, seq, 0, nwords, &o);
        rk_store_quad((unsigned int *)(out + sizeof(ring_hdr)), o, nwords);
        __stcg((uint4 *)out, make_uint4(rk_reply_seq(a, seq), len, ring_seal(sums.y, seq, len), 0u));
    }
    __syncwarp();
    if (lane != 0)
        return;
    if (t)
        t->written_ns = globaltimer_ns();
    fence_release_sys();
    st_volatile(&a.cb->k.in_head, first + n);
    st_volatile(&a.cb->k.out_tail, first + n);
    if (t)
        t->published_ns = globaltimer_ns();
}

// One 16-byte word of lane `src` (which may differ per lane), in every lane.
__device__ __forceinline__ uint4 rk_shfl4(uint4 v, int src)
{
    return make_uint4(__shfl_sync(0xFFFFFFFFu, v.x, src), __shfl_sync(0xFFFFFFFFu, v.y, src),
                      __shfl_sync(0xFFFFFFFFu, v.z, src), __shfl_sync(0xFFFFFFFFu, v.w, src));
}

// The address lane `lane` reads in a poll that reads `ahead` slots ahead: lane 0 the control block's
// host half, lane 2j + 1 the header of message dispatched + j, lane 2j + 2 its first payload quad
// (one 32-byte sector with the header, so one read across the bus per slot); NULL for the rest.
__device__ __forceinline__ const void *rk_poll_addr(const ring_kernel_args &a, const rk_leader *L, unsigned int lane)
{
    if (lane == 0)
        return &a.cb->h;
    const unsigned int j = (lane - 1) >> 1;
    if (j >= L->ahead)
        return NULL;
    const unsigned char *slot_p = a.in_ring + (size_t)((L->dispatched + j) & (a.capacity - 1)) * a.slot_stride;
    return (lane & 1u) ? (const void *)slot_p : (const void *)(slot_p + sizeof(ring_hdr));
}

// Run by lane j for message dispatched + j as read ahead: whole when its header is sealed for exactly
// that message (plain or lone check word) and its payload of up to 16 bytes matches the checksum. A
// stale slot carries seq - capacity, a header still landing fails its check word, a payload still
// landing its seal.
__device__ __forceinline__ bool rk_whole(const ring_kernel_args &a, const rk_leader *L, uint4 hdr, uint4 q0,
                                         unsigned int j, bool *lone)
{
    *lone = hdr.w == ring_hdr_check_lone(hdr.x, hdr.y, hdr.z);
    return j < L->ahead && a.max_payload <= RK_WARP_MSG_MAX && hdr.x == L->dispatched + j &&
           (*lone || hdr.w == ring_hdr_check(hdr.x, hdr.y, hdr.z)) && hdr.y <= RK_LEAD_PAYLOAD_MAX &&
           hdr.y <= a.max_payload && hdr.y % 4 == 0 && hdr.y > 0 &&
           ring_seal(rk_quad_sum(q0, hdr.y / 4), hdr.x, hdr.y) == hdr.z;
}

// The poll's housekeeping on the control block's host half h: heartbeat, handshake flag, exit and
// the active/idle state. Returns false when the kernel must leave (*job says so).
__device__ __forceinline__ bool rk_poll_control(const ring_kernel_args &a, rk_leader *L, rk_job *job, uint4 h,
                                                unsigned long long now)
{
    const bool lane0 = rk_lane0();
    if (now - L->last_beat_ns >= RING_HEARTBEAT_NS) {
        L->last_beat_ns = now;
        ++L->beats;
        if (lane0)
            st_volatile(&a.cb->k.heartbeat, L->beats);
    }
    if (h.z != L->flag_ack) {
        L->flag_ack = h.z;
        if (lane0) {
            st_volatile(&a.cb->k.flag_ack, h.z);
            __threadfence_system();
        }
    }
    unsigned int exit_reason = RING_EXIT_NONE;
    if (h.w & RING_CMD_TERMINATE)
        exit_reason = RING_EXIT_REQUESTED;
    else if (a.max_lifetime_ns && now - L->start_ns >= a.max_lifetime_ns)
        exit_reason = RING_EXIT_LIFETIME;
    if (exit_reason != RING_EXIT_NONE) {
        if (lane0) {
            st_volatile(&a.cb->k.exit_reason, exit_reason);
            job->kind = JOB_EXIT;
            job->grid = 1;
        }
        return false;
    }
    const unsigned int want = (h.w & RING_CMD_ACTIVE) ? RING_STATE_ACTIVE : RING_STATE_IDLE;
    if (want != L->state)
        rk_set_state(a, L, want);
    return true;
}

// Sets how many slots the next poll reads ahead (L->ahead) after a batch of n pending messages of which
// the leader holds the first `held` whole, and returns the batch it takes now. The next poll reads
// ahead as many slots as this batch had, or, with RING_KFLAG_LEADER_SPLIT and up to
// RK_LEADER_SPLIT_MAX in flight (in_tail - out_ack: sent, not yet acknowledged), as many as are in
// flight, up to RK_AHEAD_MAX; otherwise, after a batch larger than the leader can answer, one: reading
// 15 slots on every poll of a full window only loads the bus and the host's cache lines it is
// writing. Split, a batch just larger than what the leader holds, all of whose first RK_AHEAD_MAX
// messages it holds whole, is cut to those: the leader answers them and leaves the rest to its next
// poll. Block 0's warps would read the slots again across the bus (a window of 16 at 8 B was slower
// than one of 8).
__device__ __forceinline__ unsigned int rk_ahead_split(const ring_kernel_args &a, rk_leader *L, uint4 h, unsigned int n,
                                                       unsigned int held)
{
    const int inflight = (int)(h.x - h.y);
    const bool split = (a.flags & RING_KFLAG_LEADER_SPLIT) && (a.flags & RING_KFLAG_LEADER_REPLY) &&
                       a.max_payload <= RK_LEAD_PAYLOAD_MAX && inflight > 0 && inflight <= (int)RK_LEADER_SPLIT_MAX;
    L->ahead = split ? min(max(n, (unsigned int)inflight), RK_AHEAD_MAX) : n <= RK_AHEAD_MAX ? n : 1u;
    return split && n > held && held == RK_AHEAD_MAX ? held : n;
}

// Run by the whole leader warp (warp 0 of block 0). Its lanes read one poll with ONE load
// instruction - lane 0 the control block's host half, lanes 1.. the next L->ahead slots' headers and
// first payload quads (rk_poll_addr) - and every lane then takes the same decisions on the same
// values, so the warp never diverges on them; lane 0 alone writes the control block. Loads of one
// thread to one 32-byte sector of host memory are served one after the other: read by one thread,
// the header and the payload quad made a poll of a zero-copy slot 2.24 us against 1.28 us for one
// load (H100, docs/decisions/0013-leader-warp-poll.md); spread over lanes they are one request
// per slot, issued together. L->ahead is the size of the last batch, or the messages in flight (1 to
// RK_AHEAD_MAX, rk_ahead_split): a window of up to 15 small messages is read whole by the poll that
// finds it and answered by this warp alone, one of up to 32 in a zero-copy ring 15 at a time.
__device__ void rk_lead(const ring_kernel_args &a, rk_leader *L, rk_job *job)
{
    const unsigned int lane = threadIdx.x & 31u;
    for (;;) {
        const void *mine = rk_poll_addr(a, L, lane);
        // The poll's issue time: read before the reads, since nothing after an acquire read is
        // issued before its value is back (read after it, the trace's poll time was 0.3 us).
        const unsigned long long t_issue = globaltimer_ns();
        uint4 v = make_uint4(0u, 0u, 0u, 0u);
        if (mine)
            v = ld_acquire4(mine);
        const unsigned long long now = __shfl_sync(0xFFFFFFFFu, t_issue, 0);
        const uint4 h = rk_shfl4(v, 0);                             // in_tail, out_ack, flag, cmd
        const uint4 hdr = rk_shfl4(v, (int)((2 * lane + 1) & 31u)); // lane j: message dispatched + j
        const uint4 q0 = rk_shfl4(v, (int)((2 * lane + 2) & 31u));
        L->polls++;
        if (!rk_poll_control(a, L, job, h, now))
            return;
        if (L->state != RING_STATE_ACTIVE)
            continue;
        bool lone;
        const bool whole = rk_whole(a, L, hdr, q0, lane, &lone);
        // held: messages dispatched, dispatched + 1, ... read ahead whole, without a gap.
        const unsigned int held = (unsigned int)__ffs(~__ballot_sync(0xFFFFFFFFu, whole)) - 1u;
        const bool lone0 = __shfl_sync(0xFFFFFFFFu, (int)(whole && lone), 0) != 0;
        // Every pending message, bounded by the output slots the host has freed (the host never has
        // more than capacity in flight, so the bound is a safeguard). in_tail may lag behind
        // `dispatched` after an early take.
        const int ahead = (int)(h.x - L->dispatched);
        if (ahead > (int)a.capacity)
            continue; // a corrupt count: never trusted
        unsigned int n = ahead > 0 ? (unsigned int)ahead : 0u;
        const unsigned int room = h.y + a.capacity - L->dispatched;
        // Early take: in_tail has not announced the next message yet, but all of it is here, and the
        // host marked it lone (RING_HDR_LONE: posted alone onto an idle ring). The host writes a
        // slot before it announces it, so waiting for in_tail costs one more read across the bus
        // (zero-copy), or the host's wait for the copy to land plus its store of in_tail (copy
        // modes). A message that is not lone is the first of a batch whose rest is landing behind
        // it: taken alone it would split the batch. Announced or not, a message is taken once.
        if (n == 0 && held && (lone0 || (a.flags & RING_KFLAG_SHORTCUTS_BUSY)) && (a.flags & RING_KFLAG_EARLY_TAKE))
            n = 1;
        if (n > room)
            n = room;
        if (n > ring_batch_max(a.capacity, a.max_payload))
            n = ring_batch_max(a.capacity, a.max_payload);
        n = rk_fault_hold(a, L, n, now);
        if (n == 0)
            continue;
        const unsigned int pending = n;
        n = rk_ahead_split(a, L, h, n, held);
        // Every message of the batch in hand: this warp answers them (rk_leader_reply).
        if (n <= held && (a.flags & RING_KFLAG_LEADER_REPLY)) {
            rk_leader_reply(a, L, hdr, q0, n, now,
                            (ahead <= 0 ? RING_TRACE_EARLY : 0u) | (n < pending ? RING_TRACE_SPLIT : 0u));
            continue;
        }
        // A lone small message read ahead whole is complete as read. Anything else is read after
        // the poll's acquire read of in_tail (ld_acquire4): the slots were written before in_tail.
        const bool small = n == 1 && held;
        const unsigned int trace_i = L->batches;
        rk_trace_take(a, L, now, L->dispatched, n, ahead <= 0 ? RING_TRACE_EARLY : 0u);
        if (lane == 0) {
            job->trace_i = trace_i;
            job->kind = JOB_BATCH;
            job->first = L->dispatched;
            job->n = n;
            job->have_q0 = small;
            job->hdr = hdr; // lane 0: message dispatched
            job->q0 = q0;
        }
        L->dispatched += n;
        return;
    }
}

// Payload quads a message can have: (max_payload + 15) / 16.
__device__ __forceinline__ unsigned int rk_payload_quads(const ring_kernel_args &a)
{
    return (a.max_payload + 15u) / 16u;
}

// Blocks per message in the block tier: enough that each thread moves at most one quad, at most the
// grid.
__device__ __forceinline__ unsigned int rk_blocks_per_msg(const ring_kernel_args &a)
{
    const unsigned int quads = rk_payload_quads(a);
    const unsigned int b = (quads + RK_THREADS - 1) / RK_THREADS;
    return b < gridDim.x ? (b ? b : 1) : gridDim.x;
}

// Lanes one message of the warp tier occupies: a power of two, at least the slot's quads (the
// header's included), so a warp takes 32 / width messages of a small slot with ONE load (8 of 64-byte
// slots, 4 of 128-byte ones, 2 up to 256 bytes) and a larger slot gets the whole warp.
__device__ __forceinline__ unsigned int rk_msg_lanes(const ring_kernel_args &a)
{
    const unsigned int q = (unsigned int)(a.slot_stride / 16);
    return q <= 4 ? 4u : q <= 8 ? 8u : q <= 16 ? 16u : 32u;
}

// Messages one warp takes per pass in the warp tier.
__device__ __forceinline__ unsigned int rk_msgs_per_warp(const ring_kernel_args &a)
{
    return a.max_payload <= RK_WARP_MSG_MAX ? 32u / rk_msg_lanes(a) : 1u;
}

// Whether block 0 does a batch of n messages as one block group (rk_block_group): its slots hold more
// than one warp's load (496 payload bytes), so a warp would read each in passes, each a round trip
// across the bus in a zero-copy ring, and the batch's payload quads fit RK_GROUP_PASSES a thread (eight
// messages of 4 KiB, 16 of 2 KiB, 32 of 1 KiB, one of up to 32 KiB). Both tiers: a block-tier batch
// spread over the grid pays a fan-out, a system fence in every working block, the grid's barrier and a
// second pass over the headers in device scratch before its publication (`anatomy --window 8` at 4 KiB
// measured the kernel busy two thirds of each cycle).
__device__ __forceinline__ bool rk_group_fits(const ring_kernel_args &a, unsigned int n)
{
    return a.slot_stride > 32u * 16u && n * rk_payload_quads(a) <= RK_GROUP_PASSES * RK_THREADS;
}

// Whether block 0 handles the batch alone (no fan-out, no fan-in): a batch its warps take in one pass,
// or one it takes as a block group.
__device__ __forceinline__ bool rk_local(const ring_kernel_args &a, unsigned int n)
{
    if (rk_group_fits(a, n))
        return true;
    return a.max_payload <= RK_WARP_MSG_MAX && n <= RK_WARPS * rk_msgs_per_warp(a);
}

// Hands the leader's job to every other block: the job's fields in scratch, then the epoch. The
// fields are rewritten only once every other block has acknowledged reading the previous job, or a
// block slow to read could mix two jobs.
__device__ void rk_fan_out(rk_scratch *s, const rk_job *job, unsigned int *fanouts)
{
    const unsigned int want = (gridDim.x - 1) * *fanouts;
    while (ld_volatile(&s->acks) != want)
        ;
    ++*fanouts;
    st_volatile(&s->kind, job->kind);
    st_volatile(&s->first, job->first);
    st_volatile(&s->n, job->n);
    __threadfence();
    atomicAdd(&s->go, 1u);
}

// --- batch processing ----------------------------------------------------------------------------

// Warp tier, small slots: this warp transforms messages first .. first + count - 1 (count at most
// rk_msgs_per_warp) and writes their reply headers (not yet published). Message g of the group is on
// lanes g * width .. g * width + width - 1 (rk_msg_lanes): lane u loads quad u of its slot - quad 0
// is the header - so the whole group arrives with one coalesced load, and every payload quad is in
// hand (a slot has at most width quads). The checksums are summed within each group of lanes. Not
// inlined: inlined, it took the whole kernel from 64 to 125 registers a thread, one block per SM
// instead of two, and the leader's poll loop 0.1-0.2 us slower (H100, ptxas -v and anatomy).
__device__ __noinline__ void rk_warp_group(const ring_kernel_args &a, rk_scratch *s, unsigned int first,
                                           unsigned int count)
{
    const unsigned int lane = threadIdx.x & 31u, width = rk_msg_lanes(a), g = lane / width, u = lane % width;
    const unsigned int slot_quads = (unsigned int)(a.slot_stride / 16), slot = (first + g) & (a.capacity - 1);
    const unsigned char *in = a.in_ring + (size_t)slot * a.slot_stride;
    unsigned char *out = a.out_ring + (size_t)slot * a.slot_stride;
    const bool mine = g < count;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (mine && u < slot_quads)
        v = __ldcg((const uint4 *)in + u);
    const int head = (int)(lane - u);
    const unsigned int seq = __shfl_sync(0xFFFFFFFFu, v.x, head), len = __shfl_sync(0xFFFFFFFFu, v.y, head);
    const unsigned int sum = __shfl_sync(0xFFFFFFFFu, v.z, head);
    const unsigned int nwords = mine && !ring_check_len(len, a.max_payload) ? len / 4 : 0;
    uint2 sums = make_uint2(0, 0);
    if (u >= 1 && (u - 1) * 4 < nwords) {
        const unsigned int i = (u - 1) * 4, left = nwords - i;
        uint4 o;
        sums = rk_transform_quad(v, seq, i, left < 4 ? left : 4, &o);
        rk_store_quad((unsigned int *)(out + sizeof(ring_hdr)) + i, o, left);
    }
    for (unsigned int off = width / 2; off > 0; off >>= 1) {
        sums.x += __shfl_xor_sync(0xFFFFFFFFu, sums.x, (int)off);
        sums.y += __shfl_xor_sync(0xFFFFFFFFu, sums.y, (int)off);
    }
    if (mine && u == 0) {
        const unsigned int flags = rk_reply_flags(a, s, seq, len, sum, sums.x);
        __stcg((uint4 *)out, make_uint4(rk_reply_seq(a, seq), len, ring_seal(sums.y, seq, len), flags));
    }
}

// Warp tier: one warp transforms message `index` and writes its reply header (not yet published).
// Lane L first loads quad L of the slot - quad 0 is the header - so the header and up to 496 payload
// bytes arrive with one coalesced load.
__device__ void rk_warp_message(const ring_kernel_args &a, rk_scratch *s, const rk_job &job, unsigned int index)
{
    const unsigned int lane = threadIdx.x & 31;
    const unsigned int slot = index & (a.capacity - 1);
    const unsigned char *in = a.in_ring + (size_t)slot * a.slot_stride;
    unsigned char *out = a.out_ring + (size_t)slot * a.slot_stride;
    const unsigned int slot_quads = (unsigned int)(a.slot_stride / 16);
    uint4 v = make_uint4(0, 0, 0, 0);
    if (job.have_q0) // a lone message of up to 16 bytes the leader already holds
        v = lane == 0 ? job.hdr : job.q0;
    else if (lane < slot_quads)
        v = __ldcg((const uint4 *)in + lane);
    const unsigned int seq = __shfl_sync(0xFFFFFFFFu, v.x, 0), len = __shfl_sync(0xFFFFFFFFu, v.y, 0);
    const unsigned int sum = __shfl_sync(0xFFFFFFFFu, v.z, 0);
    const unsigned int nwords = ring_check_len(len, a.max_payload) ? 0 : len / 4;
    // Quads 0..30 of the payload are in lanes 1..31 already; the rest are read in passes.
    uint2 sums = make_uint2(0, 0);
    if (lane >= 1 && (lane - 1) * 4 < nwords) {
        const unsigned int i = (lane - 1) * 4, left = nwords - i;
        uint4 o;
        sums = rk_transform_quad(v, seq, i, left < 4 ? left : 4, &o);
        rk_store_quad((unsigned int *)(out + sizeof(ring_hdr)) + i, o, left);
    }
    if (nwords > 31 * 4) {
        // Words 124.. : shift the slot by 31 quads and transform the rest with the common loop. The
        // word indices restart at 0 there, so correct them: transform in place with a base offset.
        const unsigned int base = 31 * 4;
        const unsigned int rest = nwords - base, rq = rest / 4;
        const uint4 *in4 = (const uint4 *)(in + sizeof(ring_hdr)) + 31;
        uint4 *out4 = (uint4 *)(out + sizeof(ring_hdr)) + 31;
        for (unsigned int q = lane; q < rq; q += 32) {
            uint4 o;
            uint2 t = rk_transform_quad(__ldcg(in4 + q), seq, base + q * 4, 4, &o);
            sums.x += t.x;
            sums.y += t.y;
            __stcg(out4 + q, o);
        }
        if (lane < rest - rq * 4) {
            const unsigned int i = base + rq * 4 + lane;
            const unsigned int w = __ldcg((const unsigned int *)(in + sizeof(ring_hdr)) + i);
            const unsigned int o = w ^ ring_key(seq, i);
            sums.x += ring_sum_term(w, i);
            sums.y += ring_sum_term(o, i);
            __stcg((unsigned int *)(out + sizeof(ring_hdr)) + i, o);
        }
    }
    sums = rk_warp_sum(sums);
    if (lane == 0) {
        const unsigned int flags = rk_reply_flags(a, s, seq, len, sum, sums.x);
        __stcg((uint4 *)out, make_uint4(rk_reply_seq(a, seq), len, ring_seal(sums.y, seq, len), flags));
    }
}

// Whether block 0 does this job as a block group: not a lone small message the leader already holds.
__device__ __forceinline__ bool rk_block_group_fits(const ring_kernel_args &a, const rk_job &job)
{
    return !job.have_q0 && rk_group_fits(a, job.n);
}

// Adds a lane's checksum terms d for message j to sums (shared, in and out per message). With slots of a
// multiple of 32 payload quads (whole_warps) every warp's lanes are on one message, or all past the
// batch, in every pass: one warp reduction (redux.sync from sm_80) and one atomic per sum per warp. A chain of
// shuffles there cost a lone 1 KiB message 0.1 us of work on an H200. Else lane by lane.
__device__ __forceinline__ void rk_group_add(unsigned int *sums, unsigned int j, bool have, uint2 d, bool whole_warps)
{
    if (whole_warps) {
        if (!have)
            return; // the same for the whole warp
#if __CUDA_ARCH__ >= 800
        d.x = __reduce_add_sync(0xFFFFFFFFu, d.x);
        d.y = __reduce_add_sync(0xFFFFFFFFu, d.y);
#else
        d = rk_warp_sum(d);
#endif
        if ((threadIdx.x & 31u) == 0) {
            atomicAdd(&sums[2 * j], d.x);
            atomicAdd(&sums[2 * j + 1], d.y);
        }
    } else if (have) {
        atomicAdd(&sums[2 * j], d.x);
        atomicAdd(&sums[2 * j + 1], d.y);
    }
}

// The next pass's message and quad: RK_THREADS quads on, which is dj messages and du quads.
__device__ __forceinline__ void rk_group_step(unsigned int *j, unsigned int *u, unsigned int dj, unsigned int du,
                                              unsigned int qpm)
{
    *j += dj;
    *u += du;
    if (*u >= qpm) {
        *u -= qpm;
        ++*j;
    }
}

// Block 0 alone, slots of more than 496 bytes: quad q of the batch's payloads (message q / qpm, its quad
// q % qpm) is read by thread q % RK_THREADS in pass q / RK_THREADS, and every pass's loads are issued
// at once with the headers - one round trip across the bus for the batch, however many passes. The
// header of message j is read by thread RK_THREADS - 1 - j, whose payload quads mostly lie in other
// 32-byte sectors: one thread's two loads of one sector of host memory are served one after the other.
// At a few sizes that thread also reads quad 0 of message j, in the header's sector (512 B slots with
// 32 or more messages, 8160 B with two or more): slower there, not wrong.
// Checksums are summed in shared memory, and thread j seals reply j's header itself (not yet
// published): no device scratch, no second pass. Built for one pass and for RK_GROUP_PASSES: a batch
// that fits one pass (a lone message of up to 8 KiB, eight of 1 KiB) runs the one-pass build. Built for
// four passes only and summed with shuffles, the group cost a lone 1 KiB message 0.2-0.25 us more work
// than the one-pass group before it (H100 and H200); the one-pass build took 0.1 us of that back and
// redux.sync the rest (docs/decisions/0018-block-tier-and-block-groups.md). Not inlined: inlined, the
// cooperative kernel spilled 56 bytes (ptxas -v, the one-pass version); not, it keeps 64 registers a thread.
template <unsigned int PASSES>
__device__ __noinline__ void rk_block_group(const ring_kernel_args &a, rk_scratch *s, const rk_job &job)
{
    __shared__ uint4 hdrs[RK_GROUP_MSGS_MAX];
    __shared__ unsigned int sums[2 * RK_GROUP_MSGS_MAX];
    const unsigned int qpm = rk_payload_quads(a), t = threadIdx.x, total = job.n * qpm, mask = a.capacity - 1;
    // Pass p's quad t + p * RK_THREADS is quad u of message j, stepped from pass to pass: one division
    // by qpm for the batch, not one a pass in front of the loads.
    const unsigned int j0 = t / qpm, u0 = t - j0 * qpm, dj = RK_THREADS / qpm, du = RK_THREADS - dj * qpm;
    if (t < 2 * RK_GROUP_MSGS_MAX)
        sums[t] = 0;
    uint4 w[PASSES];
    unsigned int j = j0, u = u0;
#pragma unroll
    for (unsigned int p = 0; p < PASSES; p++) {
        w[p] = make_uint4(0, 0, 0, 0);
        if (p * RK_THREADS + t < total)
            w[p] = __ldcg(
                (const uint4 *)(a.in_ring + (size_t)((job.first + j) & mask) * a.slot_stride + sizeof(ring_hdr)) + u);
        rk_group_step(&j, &u, dj, du, qpm);
    }
    const unsigned int hj = RK_THREADS - 1 - t;
    if (hj < job.n)
        hdrs[hj] = __ldcg((const uint4 *)(a.in_ring + (size_t)((job.first + hj) & mask) * a.slot_stride));
    __syncthreads();
    j = j0;
    u = u0;
#pragma unroll
    for (unsigned int p = 0; p < PASSES; p++) {
        if (p * RK_THREADS >= total)
            break; // the same for the whole block
        const bool have = p * RK_THREADS + t < total;
        uint2 d = make_uint2(0, 0);
        if (have) {
            const uint4 h = hdrs[j];
            const unsigned int nwords = ring_check_len(h.y, a.max_payload) ? 0 : h.y / 4, i = u * 4;
            if (i < nwords) {
                uint4 o;
                const unsigned int left = nwords - i;
                unsigned char *out = a.out_ring + (size_t)((job.first + j) & mask) * a.slot_stride;
                d = rk_transform_quad(w[p], h.x, i, left < 4 ? left : 4, &o);
                rk_store_quad((unsigned int *)(out + sizeof(ring_hdr)) + i, o, left);
            }
        }
        rk_group_add(sums, j, have, d, qpm % 32u == 0);
        rk_group_step(&j, &u, dj, du, qpm);
    }
    __syncthreads();
    if (t < job.n) {
        const uint4 h = hdrs[t];
        const unsigned int flags = rk_reply_flags(a, s, h.x, h.y, h.z, sums[2 * t]);
        __stcg((uint4 *)(a.out_ring + (size_t)((job.first + t) & mask) * a.slot_stride),
               make_uint4(rk_reply_seq(a, h.x), h.y, ring_seal(sums[2 * t + 1], h.x, h.y), flags));
    }
}

// Block tier: this block's share (part k of bpm) of message j of the batch; its checksum parts go
// to scratch, and part 0 leaves the header there for the publisher. Every thread reads its first
// payload quad at once with the header, before the length is known (any quad of the slot may be
// read; only those within the length are used): one round trip across the bus, not two, for a
// zero-copy slot. The header is read by the block's last thread, whose quad lies in another 32-byte
// sector: one thread's two loads of one sector of host memory are served one after the other.
__device__ void rk_block_part(const ring_kernel_args &a, rk_scratch *s, const rk_job &job, unsigned int j,
                              unsigned int k, unsigned int bpm)
{
    __shared__ uint4 hdr;
    const unsigned int index = job.first + j, slot = index & (a.capacity - 1);
    const unsigned char *in = a.in_ring + (size_t)slot * a.slot_stride;
    unsigned char *out = a.out_ring + (size_t)slot * a.slot_stride;
    const unsigned int t = k * RK_THREADS + threadIdx.x;
    const unsigned int slot_quads = (unsigned int)((a.slot_stride - sizeof(ring_hdr)) / 16);
    uint4 w_t = make_uint4(0, 0, 0, 0);
    if (t < slot_quads)
        w_t = __ldcg((const uint4 *)(in + sizeof(ring_hdr)) + t);
    if (threadIdx.x == RK_THREADS - 1) {
        hdr = __ldcg((const uint4 *)in);
        if (k == 0)
            __stcg(&s->hdrs[j], hdr);
    }
    __syncthreads();
    const unsigned int seq = hdr.x, len = hdr.y;
    const unsigned int nwords = ring_check_len(len, a.max_payload) ? 0 : len / 4;
    const bool any = k * RK_THREADS < (nwords + 3) / 4 || (k == 0 && nwords);
    uint2 sums = make_uint2(0, 0);
    if (any)
        sums = rk_transform(in, out, seq, nwords, t, bpm * RK_THREADS, k == 0, w_t);
    sums = rk_block_sum(sums); // also the barrier before hdr is rewritten by the next part
    if (any && threadIdx.x == 0) {
        atomicAdd(&s->sums[2 * j], sums.x);
        atomicAdd(&s->sums[2 * j + 1], sums.y);
    }
}

// Publishes a processed batch; run by every thread of the publishing block. block_tier (a block-tier
// batch spread over the grid; block 0 alone passes false, its block group sealed the headers): seals each
// reply header from the summed parts and the header part 0 read (in device memory, not read across
// the bus again) first, which also clears the parts for the next batch. Then one system fence, in_head and out_tail.
// The error count is republished after a batch spread over the grid, or when this block saw a bad input.
__device__ void rk_publish(const ring_kernel_args &a, rk_scratch *s, const rk_job &job, bool block_tier)
{
    if (block_tier) {
        for (unsigned int j = threadIdx.x; j < job.n; j += blockDim.x) {
            const unsigned int slot = (job.first + j) & (a.capacity - 1);
            const uint4 h = __ldcg(&s->hdrs[j]);
            const unsigned int in_sum = atomicExch(&s->sums[2 * j], 0u), out_sum = atomicExch(&s->sums[2 * j + 1], 0u);
            const unsigned int flags = rk_reply_flags(a, s, h.x, h.y, h.z, in_sum);
            __stcg((uint4 *)(a.out_ring + (size_t)slot * a.slot_stride),
                   make_uint4(rk_reply_seq(a, h.x), h.y, ring_seal(out_sum, h.x, h.y), flags));
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ring_trace_rec *t = a.trace && blockIdx.x == 0 ? &a.trace[job.trace_i & (RING_TRACE_RECS - 1)] : NULL;
        if (t)
            t->written_ns = globaltimer_ns();
        if (job.grid)
            __threadfence_system();
        else
            fence_release_sys(); // block 0 alone: its threads' writes reached thread 0 at a barrier
        if (job.grid || rk_block_bad)
            st_volatile(&a.cb->k.errors, atomicAdd(&s->errors, 0u));
        st_volatile(&a.cb->k.in_head, job.first + job.n);
        st_volatile(&a.cb->k.out_tail, job.first + job.n);
        if (t)
            t->published_ns = globaltimer_ns();
    }
}

// Runs this block's part of a batch over `nblocks` blocks and reports whether it did any work. In a
// batch spread over the grid every working block's writes reach the system before it reports: the
// barrier makes its threads' writes visible to thread 0 and thread 0's system fence is cumulative.
// Block 0 alone (nblocks == 1) needs only the barrier: rk_publish's one fence then covers its writes,
// which keeps the one-message path at one system fence.
__device__ bool rk_work(const ring_kernel_args &a, rk_scratch *s, const rk_job &job, unsigned int nblocks)
{
    bool worked;
    const unsigned int per = rk_msgs_per_warp(a);
    if (nblocks == 1 && rk_block_group_fits(a, job)) {
        if (job.n * rk_payload_quads(a) <= RK_THREADS)
            rk_block_group<1>(a, s, job);
        else
            rk_block_group<RK_GROUP_PASSES>(a, s, job);
        worked = true;
    } else if (a.max_payload > RK_WARP_MSG_MAX) {
        const unsigned int bpm = rk_blocks_per_msg(a), units = job.n * bpm;
        worked = blockIdx.x < units;
        for (unsigned int v = blockIdx.x; v < units; v += nblocks)
            rk_block_part(a, s, job, v / bpm, v % bpm, bpm);
    } else if (per > 1 && !job.have_q0) {
        const unsigned int warp = threadIdx.x >> 5, nwarps = nblocks * RK_WARPS, units = (job.n + per - 1) / per;
        worked = blockIdx.x * RK_WARPS < units;
        for (unsigned int w = blockIdx.x * RK_WARPS + warp; w < units; w += nwarps)
            rk_warp_group(a, s, job.first + w * per, job.n - w * per < per ? job.n - w * per : per);
    } else {
        const unsigned int warp = threadIdx.x >> 5, nwarps = nblocks * RK_WARPS;
        worked = blockIdx.x * RK_WARPS < job.n;
        for (unsigned int j = blockIdx.x * RK_WARPS + warp; j < job.n; j += nwarps)
            rk_warp_message(a, s, job, job.first + j);
    }
    if (worked) {
        __syncthreads();
        if (threadIdx.x == 0 && nblocks > 1)
            __threadfence_system();
    }
    return worked;
}

// Working blocks of a batch spread over the grid (the ordinary launch's fan-in count).
__device__ __forceinline__ unsigned int rk_working_blocks(const ring_kernel_args &a, unsigned int n)
{
    const unsigned int per = RK_WARPS * rk_msgs_per_warp(a);
    const unsigned int units = a.max_payload <= RK_WARP_MSG_MAX ? (n + per - 1) / per : n * rk_blocks_per_msg(a);
    return units < gridDim.x ? units : gridDim.x;
}

// --- the kernel ----------------------------------------------------------------------------------

// The leader warp's state at launch; lane 0 publishes the grid size, the first heartbeat and IDLE.
__device__ __forceinline__ void rk_leader_init(const ring_kernel_args &a, rk_leader *L)
{
    L->start_ns = L->last_beat_ns = __shfl_sync(0xFFFFFFFFu, globaltimer_ns(), 0);
    L->beats = 1;
    L->flag_ack = __shfl_sync(0xFFFFFFFFu, ld_volatile(&a.cb->k.flag_ack), 0);
    L->dispatched = 0;
    L->polls = L->batches = 0;
    L->fault_since = 0;
    L->ahead = 1;
    L->state = RING_STATE_NONE;
    if (rk_lane0()) {
        st_volatile(&a.cb->k.blocks, gridDim.x);
        st_volatile(&a.cb->k.heartbeat, L->beats);
    }
    rk_set_state(a, L, RING_STATE_IDLE);
}

// Thread 0 of a block other than block 0: waits for the next fan-out (epoch), reads the job and
// acknowledges it, so the leader may write the one after.
__device__ __forceinline__ void rk_await_job(rk_scratch *s, rk_job *job, unsigned int *epoch)
{
    while (ld_volatile(&s->go) == *epoch)
        ;
    __threadfence();
    job->kind = ld_volatile(&s->kind);
    job->first = ld_volatile(&s->first);
    job->n = ld_volatile(&s->n);
    job->have_q0 = 0;
    job->grid = 1;
    __threadfence(); // the reads above are done before the leader may rewrite them
    atomicAdd(&s->acks, 1u);
    ++*epoch;
}

template <bool COOP> __global__ void __launch_bounds__(RK_THREADS) ring_kernel(ring_kernel_args a)
{
    rk_scratch *s = (rk_scratch *)a.scratch;
    __shared__ rk_job job;
    __shared__ bool last;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const bool lead_warp = blockIdx.x == 0 && threadIdx.x < 32; // runs rk_lead, lane 0 is the leader
    const bool block_tier = a.max_payload > RK_WARP_MSG_MAX;
    rk_leader L;
    if (lead_warp)
        rk_leader_init(a, &L);
    unsigned int epoch = 0;   // other blocks: fan-outs seen so far
    unsigned int fanouts = 0; // leader only: jobs handed to the other blocks so far
    for (;;) {
        if (lead_warp)
            rk_lead(a, &L, &job);
        if (threadIdx.x == 0) {
            if (blockIdx.x == 0) {
                job.grid = job.kind == JOB_EXIT || !rk_local(a, job.n);
                if (job.grid)
                    rk_fan_out(s, &job, &fanouts);
            } else {
                rk_await_job(s, &job, &epoch);
            }
            last = false;
            rk_block_bad = 0;
        }
        __syncthreads();
        if (job.kind == JOB_EXIT)
            break;

        // Block 0 alone: the latency path. A block-tier batch here is always a block group, which seals its
        // own headers (rk_local; have_q0, which would send it to rk_block_part, is never set in the block
        // tier: rk_whole), so rk_publish has none to seal.
        if (!job.grid) {
            rk_work(a, s, job, 1);
            rk_publish(a, s, job, false);
        } else if (COOP) {
            rk_work(a, s, job, gridDim.x);
            cg::this_grid().sync(); // once per batch
            if (blockIdx.x == 0)
                rk_publish(a, s, job, block_tier);
        } else {
            const unsigned int working = rk_working_blocks(a, job.n);
            if (rk_work(a, s, job, gridDim.x) && threadIdx.x == 0) {
                if (atomicAdd(&s->done, 1u) == working - 1) { // the last working block publishes
                    __threadfence();
                    st_volatile(&s->done, 0u);
                    last = true;
                }
            }
            __syncthreads();
            if (last) {
                rk_publish(a, s, job, block_tier);
                if (threadIdx.x == 0) {
                    __threadfence();
                    st_volatile(&s->finished, blockIdx.x == 0 ? fanouts : epoch);
                }
            }
            // The leader polls for the next batch only once this one is out.
            if (leader && !last)
                while (ld_volatile(&s->finished) != fanouts)
                    ;
        }
        // Every thread is done with this job before thread 0 overwrites it with the next one.
        __syncthreads();
    }
    if (leader)
        rk_set_state(a, &L, RING_STATE_TERMINATED);
}

// --- baseline kernels ----------------------------------------------------------------------------

__global__ void rb_pingpong_kernel(uint32_t *ping, uint32_t *pong)
{
    unsigned int last = 0; // the host zeroes the words before launch and may ping before we run
    for (;;) {
        unsigned int v = ld_volatile(ping);
        if (v == last)
            continue;
        if (v == RB_PINGPONG_STOP)
            break;
        last = v;
        st_volatile(pong, v);
        __threadfence_system();
    }
}

__global__ void rb_transform_kernel(const uint32_t *in, uint32_t *out, uint32_t nwords, uint32_t seq)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x)
        out[i] = in[i] ^ ring_key(seq, i);
}

// --- launchers -----------------------------------------------------------------------------------

extern "C" size_t ring_kernel_scratch_bytes(void) { return sizeof(rk_scratch); }

extern "C" unsigned ring_kernel_block_threads(void) { return RK_THREADS; }

extern "C" cudaError_t ring_kernel_prepare(unsigned *max_coresident_blocks)
{
    // Touch every kernel so its module is loaded now, not lazily while the ring kernel spins.
    cudaFuncAttributes attr;
    cudaError_t e;
    if ((e = cudaFuncGetAttributes(&attr, ring_kernel<true>)) != cudaSuccess ||
        (e = cudaFuncGetAttributes(&attr, ring_kernel<false>)) != cudaSuccess ||
        (e = cudaFuncGetAttributes(&attr, rb_pingpong_kernel)) != cudaSuccess ||
        (e = cudaFuncGetAttributes(&attr, rb_transform_kernel)) != cudaSuccess)
        return e;
    int dev, sms, per_sm_coop, per_sm;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_coop, ring_kernel<true>, RK_THREADS, 0)) !=
            cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ring_kernel<false>, RK_THREADS, 0)) != cudaSuccess)
        return e;
    if (per_sm_coop < per_sm)
        per_sm = per_sm_coop;
    *max_coresident_blocks = (unsigned)(per_sm * sms);
    return cudaSuccess;
}

extern "C" cudaError_t ring_kernel_launch(const ring_kernel_args *a, int coop, unsigned blocks, cudaStream_t stream)
{
    ring_kernel_args args = *a;
    if (coop) {
        void *params[] = {&args};
        cudaError_t e = cudaLaunchCooperativeKernel((const void *)ring_kernel<true>, dim3(blocks), dim3(RK_THREADS),
                                                    params, 0, stream);
        if (e != cudaSuccess)
            return e;
    } else {
        ring_kernel<false><<<blocks, RK_THREADS, 0, stream>>>(args);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t rb_pingpong_launch(uint32_t *ping, uint32_t *pong, cudaStream_t stream)
{
    rb_pingpong_kernel<<<1, 1, 0, stream>>>(ping, pong);
    return cudaGetLastError();
}

extern "C" cudaError_t rb_transform_launch(const uint32_t *in, uint32_t *out, uint32_t nwords, uint32_t seq,
                                           cudaStream_t stream)
{
    const unsigned threads = 256;
    unsigned blocks = (nwords + threads - 1) / threads;
    if (blocks == 0)
        blocks = 1;
    if (blocks > 65535)
        blocks = 65535;
    rb_transform_kernel<<<blocks, threads, 0, stream>>>(in, out, nwords, seq);
    return cudaGetLastError();
}
