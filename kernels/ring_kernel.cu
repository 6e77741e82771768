// ring_kernel.cu - the persistent ring kernel and the baseline kernels of ringbench.
//
// The ring kernel stays resident for a whole measurement cell. Thread 0 of block 0 (the leader)
// polls the control block; for each new message it publishes a job in device scratch memory, every
// block transforms its share of the payload into the reply, and the reply is published either by the
// leader after grid.sync() (cooperative launch) or by the last block to finish (ordinary launch,
// atomic counter). The message format, checksum and transform come from ring_protocol.h, the same
// code the CPU reference backend runs. Built by CMake (kernels/CMakeLists.txt) for the architectures
// in RINGBENCH_CUDA_ARCHITECTURES; exercised by tests/test_ring_gpu and `ringbench run`.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "ring_kernel.h"

namespace cg = cooperative_groups;

#define RK_THREADS 512u  // threads per block; occupancy decides blocks per SM

// --- shared state in device memory -------------------------------------------------------------

#define JOB_MESSAGE 1u
#define JOB_EXIT 2u

// Device scratch, zeroed by the host before launch. Each group of fields has its own 128-byte
// line so that blocks spinning on `go` do not contend with the fan-in atomics.
struct rk_scratch {
    unsigned int go;        // fan-out epoch: bumped by the leader once the job below is written
    unsigned int pad0[31];
    unsigned int kind;      // JOB_*
    unsigned int index;     // message index (in_head before this message)
    unsigned int slot;
    unsigned int seq, len, sum;
    unsigned int pad1[26];
    unsigned int in_sum;    // fan-in: sums of the per-word checksum terms
    unsigned int out_sum;
    unsigned int done;      // blocks finished with the current job (ordinary launch)
    unsigned int finished;  // epoch of the last published reply (ordinary launch)
    unsigned int errors;
    unsigned int acks;      // job reads finished by the other blocks, over all fan-outs so far
    unsigned int pad2[26];
};

// --- memory access helpers -----------------------------------------------------------------------

__device__ __forceinline__ unsigned int ld_volatile(const unsigned int *p)
{
    return *(const volatile unsigned int *)p;
}

__device__ __forceinline__ void st_volatile(unsigned int *p, unsigned int v)
{
    *(volatile unsigned int *)p = v;
}

// One uncached 16-byte read of the host half's first four words (in_tail, out_ack, flag, cmd).
__device__ __forceinline__ uint4 ld_volatile4(const void *p)
{
    uint4 v;
    asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}

__device__ __forceinline__ unsigned long long globaltimer_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// --- the payload transform -----------------------------------------------------------------------

// Transforms this thread's share of one message and accumulates the checksum terms of the input
// and of the reply. Words go four at a time (the payload starts 16 bytes into a 256-byte aligned
// slot, so uint4 accesses are aligned); the last len/4 % 4 words go one at a time.
__device__ __forceinline__ void rk_transform(const unsigned char *in_slot, unsigned char *out_slot,
                                             unsigned int seq, unsigned int nwords,
                                             unsigned int *in_sum, unsigned int *out_sum)
{
    const unsigned int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int nthreads = gridDim.x * blockDim.x;
    const uint4 *in4 = (const uint4 *)(in_slot + sizeof(ring_hdr));
    uint4 *out4 = (uint4 *)(out_slot + sizeof(ring_hdr));
    const unsigned int nquads = nwords / 4;
    unsigned int si = 0, so = 0;
    for (unsigned int q = gtid; q < nquads; q += nthreads) {
        uint4 w = __ldcg(in4 + q);
        unsigned int i = q * 4;
        uint4 o;
        o.x = w.x ^ ring_key(seq, i);
        o.y = w.y ^ ring_key(seq, i + 1);
        o.z = w.z ^ ring_key(seq, i + 2);
        o.w = w.w ^ ring_key(seq, i + 3);
        si += ring_sum_term(w.x, i) + ring_sum_term(w.y, i + 1) + ring_sum_term(w.z, i + 2) +
              ring_sum_term(w.w, i + 3);
        so += ring_sum_term(o.x, i) + ring_sum_term(o.y, i + 1) + ring_sum_term(o.z, i + 2) +
              ring_sum_term(o.w, i + 3);
        __stcg(out4 + q, o);
    }
    const unsigned int tail = nwords - nquads * 4;
    if (gtid < tail) {
        unsigned int i = nquads * 4 + gtid;
        unsigned int w = __ldcg((const unsigned int *)(in_slot + sizeof(ring_hdr)) + i);
        unsigned int o = w ^ ring_key(seq, i);
        si += ring_sum_term(w, i);
        so += ring_sum_term(o, i);
        __stcg((unsigned int *)(out_slot + sizeof(ring_hdr)) + i, o);
    }
    *in_sum = si;
    *out_sum = so;
}

// Blocks that hold at least one unit of work for a message of nwords words.
__device__ __forceinline__ unsigned int rk_active_blocks(unsigned int nwords)
{
    unsigned int units = nwords / 4 > nwords % 4 ? nwords / 4 : nwords % 4;
    unsigned int b = (units + blockDim.x - 1) / blockDim.x;
    return b < gridDim.x ? b : gridDim.x;
}

// Sums a pair of values over the block; the result is valid in thread 0.
__device__ __forceinline__ uint2 rk_block_sum(unsigned int a, unsigned int b)
{
    __shared__ uint2 warp_sums[32];
    for (int off = 16; off > 0; off >>= 1) {
        a += __shfl_xor_sync(0xFFFFFFFFu, a, off);
        b += __shfl_xor_sync(0xFFFFFFFFu, b, off);
    }
    const unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_sums[warp] = make_uint2(a, b);
    __syncthreads();
    uint2 s = make_uint2(0, 0);
    if (warp == 0) {
        const unsigned int nwarps = (blockDim.x + 31) / 32;
        if (lane < nwarps)
            s = warp_sums[lane];
        for (int off = 16; off > 0; off >>= 1) {
            s.x += __shfl_xor_sync(0xFFFFFFFFu, s.x, off);
            s.y += __shfl_xor_sync(0xFFFFFFFFu, s.y, off);
        }
    }
    __syncthreads(); // warp_sums is reused by the next message
    return s;
}

// Writes the reply header and publishes it. Every thread that wrote reply words made them visible to
// the system before it reached here, so one system fence orders the header before out_tail.
__device__ void rk_publish(const ring_kernel_args &a, rk_scratch *s, unsigned int index, unsigned int slot,
                           unsigned int seq, unsigned int len, unsigned int sum, unsigned int in_sum,
                           unsigned int out_sum)
{
    unsigned int flags = 0;
    if (ring_check_len(len, a.max_payload) || ring_seal(in_sum, seq, len) != sum) {
        flags |= RING_FLAG_BAD_INPUT;
        st_volatile(&a.cb->k.errors, atomicAdd(&s->errors, 1u) + 1u);
    }
    ring_hdr *out = (ring_hdr *)(a.out_ring + (size_t)slot * a.slot_stride);
    __stcg((uint4 *)out, make_uint4(seq, len, ring_seal(out_sum, seq, len), flags));
    __threadfence_system();
    st_volatile(&a.cb->k.in_head, index + 1);
    st_volatile(&a.cb->k.out_tail, index + 1);
}

// --- the leader ----------------------------------------------------------------------------------

struct rk_leader {
    unsigned long long start_ns, last_beat_ns;
    unsigned int beats, state, flag_ack, dispatched;
};

// The job every block reads after `go` moves. Block 0 (the leader's) also gets the first payload
// quad the leader already read, so a message of up to 16 bytes costs no second read across the bus.
struct rk_job {
    unsigned int kind, index, slot, seq, len, sum, have_q0;
    uint4 q0;
};

__device__ void rk_set_state(const ring_kernel_args &a, rk_leader *L, unsigned int state)
{
    L->state = state;
    st_volatile(&a.cb->k.state, state);
    __threadfence_system();
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

// Polls the control block until there is a job for the grid, and leaves it in *job. Each poll
// also reads the next slot's header and first payload quad, concurrently with the control block,
// so that a message is usually in hand the moment in_tail announces it. Those two reads may predate
// the host's writes (they can complete in any order); the header's sequence number and the
// payload's checksum tell, and a stale read is simply repeated after a fence.
__device__ void rk_lead(const ring_kernel_args &a, rk_leader *L, rk_job *job)
{
    const unsigned int mask = a.capacity - 1;
    for (;;) {
        const unsigned char *slot_p = a.in_ring + (size_t)(L->dispatched & mask) * a.slot_stride;
        const uint4 h = ld_volatile4(&a.cb->h); // in_tail, out_ack, flag, cmd
        uint4 hdr = ld_volatile4(slot_p);
        uint4 q0 = ld_volatile4(slot_p + sizeof(ring_hdr));
        const unsigned long long now = globaltimer_ns();
        if (now - L->last_beat_ns >= RING_HEARTBEAT_NS) {
            L->last_beat_ns = now;
            st_volatile(&a.cb->k.heartbeat, ++L->beats);
        }
        if (h.z != L->flag_ack) {
            L->flag_ack = h.z;
            st_volatile(&a.cb->k.flag_ack, h.z);
            __threadfence_system();
        }
        unsigned int exit_reason = RING_EXIT_NONE;
        if (h.w & RING_CMD_TERMINATE)
            exit_reason = RING_EXIT_REQUESTED;
        else if (a.max_lifetime_ns && now - L->start_ns >= a.max_lifetime_ns)
            exit_reason = RING_EXIT_LIFETIME;
        if (exit_reason != RING_EXIT_NONE) {
            st_volatile(&a.cb->k.exit_reason, exit_reason);
            job->kind = JOB_EXIT;
            return;
        }
        const unsigned int want = (h.w & RING_CMD_ACTIVE) ? RING_STATE_ACTIVE : RING_STATE_IDLE;
        if (want != L->state)
            rk_set_state(a, L, want);
        if (L->state == RING_STATE_ACTIVE && h.x != L->dispatched && L->dispatched - h.y < a.capacity) {
            // A message of up to 16 bytes whose read-ahead header and payload check out is complete
            // as read: its checksums vouch for it, and nothing else of it is read later. Anything
            // else is (re)read behind an acquire fence: the slot's bytes were written before in_tail.
            const bool whole = hdr.x == L->dispatched && hdr.w == ring_hdr_check(hdr.x, hdr.y, hdr.z);
            bool small = whole && hdr.y <= 16 && hdr.y % 4 == 0 &&
                         ring_seal(rk_quad_sum(q0, hdr.y / 4), hdr.x, hdr.y) == hdr.z;
            if (!small) {
                __threadfence_system();
                if (!whole) {
                    hdr = ld_volatile4(slot_p); // read ahead of (or torn by) the host's write
                    q0 = ld_volatile4(slot_p + sizeof(ring_hdr));
                }
                small = hdr.y <= 16 && hdr.y % 4 == 0;
                if (small && ring_seal(rk_quad_sum(q0, hdr.y / 4), hdr.x, hdr.y) != hdr.z)
                    q0 = ld_volatile4(slot_p + sizeof(ring_hdr)); // read before the host wrote it
            }
            *job = {JOB_MESSAGE, L->dispatched, L->dispatched & mask, hdr.x, hdr.y, hdr.z, small, q0};
            L->dispatched++;
            return;
        }
    }
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
    if (job->kind == JOB_MESSAGE) {
        st_volatile(&s->index, job->index);
        st_volatile(&s->slot, job->slot);
        st_volatile(&s->seq, job->seq);
        st_volatile(&s->len, job->len);
        st_volatile(&s->sum, job->sum);
    }
    __threadfence();
    atomicAdd(&s->go, 1u);
}

// --- the kernel ----------------------------------------------------------------------------------

template <bool COOP>
__global__ void __launch_bounds__(RK_THREADS) ring_kernel(ring_kernel_args a)
{
    rk_scratch *s = (rk_scratch *)a.scratch;
    __shared__ rk_job job;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    rk_leader L;
    if (leader) {
        L.start_ns = L.last_beat_ns = globaltimer_ns();
        L.beats = 1;
        L.flag_ack = ld_volatile(&a.cb->k.flag_ack);
        L.dispatched = 0;
        L.state = RING_STATE_NONE;
        st_volatile(&a.cb->k.blocks, gridDim.x);
        st_volatile(&a.cb->k.heartbeat, L.beats);
        rk_set_state(a, &L, RING_STATE_IDLE);
    }
    unsigned int epoch = 0;
    bool deferred = false;  // leader only: this message's fan-out waits until its reply is out
    unsigned int fanouts = 0; // leader only: jobs handed to the other blocks so far
    for (;;) {
        if (threadIdx.x == 0) {
            if (blockIdx.x == 0) {
                rk_lead(a, &L, &job);
                // With an ordinary launch, a message one block handles alone needs nothing from the
                // other blocks: they hear of it after its reply is published, which keeps the
                // fan-out's stores, fence and atomic off the round trip. Every block still sees
                // every message, in order.
                deferred = !COOP && job.kind == JOB_MESSAGE &&
                           rk_active_blocks(ring_check_len(job.len, a.max_payload) ? 0 : job.len / 4) == 1;
                if (!deferred)
                    rk_fan_out(s, &job, &fanouts);
            } else {
                while (ld_volatile(&s->go) == epoch)
                    ;
                __threadfence();
                job.kind = ld_volatile(&s->kind);
                job.index = ld_volatile(&s->index);
                job.slot = ld_volatile(&s->slot);
                job.seq = ld_volatile(&s->seq);
                job.len = ld_volatile(&s->len);
                job.sum = ld_volatile(&s->sum);
                job.have_q0 = 0;
                __threadfence(); // the reads above are done before the leader may rewrite them
                atomicAdd(&s->acks, 1u);
            }
            epoch++;
        }
        __syncthreads();
        if (job.kind == JOB_EXIT)
            break;

        // Consume: every block transforms its share of the payload.
        const unsigned int nwords = ring_check_len(job.len, a.max_payload) ? 0 : job.len / 4;
        const unsigned int active = rk_active_blocks(nwords);
        unsigned char *out_slot = a.out_ring + (size_t)job.slot * a.slot_stride;
        unsigned int in_sum = 0, out_sum = 0;
        if (job.have_q0) { // up to 16 bytes, already read by the leader: block 0 only
            const unsigned int i = threadIdx.x;
            if (blockIdx.x == 0 && i < nwords) {
                const unsigned int w = i == 0 ? job.q0.x : i == 1 ? job.q0.y : i == 2 ? job.q0.z : job.q0.w;
                const unsigned int o = w ^ ring_key(job.seq, i);
                in_sum = ring_sum_term(w, i);
                out_sum = ring_sum_term(o, i);
                __stcg((unsigned int *)(out_slot + sizeof(ring_hdr)) + i, o);
            }
        } else {
            rk_transform(a.in_ring + (size_t)job.slot * a.slot_stride, out_slot, job.seq, nwords, &in_sum, &out_sum);
        }
        // The block's reply words reach the system before the block reports: the barriers in
        // rk_block_sum make every thread's writes visible to thread 0, and its system fence is
        // cumulative, ordering them before whatever thread 0 writes next (the fan-in, or out_tail).
        uint2 sums = make_uint2(0, 0);
        if (blockIdx.x < active)
            sums = rk_block_sum(in_sum, out_sum);
        if (blockIdx.x < active && active > 1 && threadIdx.x == 0)
            __threadfence_system();

        // Publish. A message that one block handled alone needs no fan-in but the launch's own.
        bool published = false;
        if (active == 1) {
            if (COOP)
                cg::this_grid().sync();
            if (leader) {
                rk_publish(a, s, job.index, job.slot, job.seq, job.len, job.sum, sums.x, sums.y);
                published = true;
            }
        } else {
            if (blockIdx.x < active && threadIdx.x == 0) {
                atomicAdd(&s->in_sum, sums.x);
                atomicAdd(&s->out_sum, sums.y);
            }
            if (COOP) {
                cg::this_grid().sync();
                if (leader) {
                    rk_publish(a, s, job.index, job.slot, job.seq, job.len, job.sum, atomicExch(&s->in_sum, 0u),
                               atomicExch(&s->out_sum, 0u));
                    published = true;
                }
            } else if (blockIdx.x < active && threadIdx.x == 0) {
                __threadfence();
                if (atomicAdd(&s->done, 1u) == active - 1) { // the last block done publishes
                    const unsigned int si = atomicExch(&s->in_sum, 0u), so = atomicExch(&s->out_sum, 0u);
                    st_volatile(&s->done, 0u);
                    rk_publish(a, s, job.index, job.slot, job.seq, job.len, job.sum, si, so);
                    __threadfence();
                    st_volatile(&s->finished, epoch);
                    published = leader;
                }
            }
            if (!COOP && leader && !published)
                while (ld_volatile(&s->finished) != epoch)
                    ;
        }
        if (leader && deferred)
            rk_fan_out(s, &job, &fanouts);
        // Every thread is done with this job before thread 0 overwrites it with the next one (a block
        // with no share of a message passes no other barrier; racecheck found the hazard).
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
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_coop, ring_kernel<true>, RK_THREADS, 0)) != cudaSuccess ||
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
        cudaError_t e = cudaLaunchCooperativeKernel((const void *)ring_kernel<true>, dim3(blocks),
                                                    dim3(RK_THREADS), params, 0, stream);
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
