// slotwarps.cu - issue 19's structural question, as a stand-alone probe (not the product, not built by CMake):
// if every message in flight had a warp of its own, would a zero-copy ring reach 80 % of Little's bound
// (w / the lone round trip) at W = 64?
//
// The product's kernel has one leader warp that polls in_tail and takes every pending message as a batch; a batch
// of 64 costs block 0 about 3.3 us of work after the poll (polls-a0e650e.md, section 4), so W = 64 runs at 42-50 %
// of the bound. Here there is no leader, no in_tail and no out_tail: warp k of K owns sequence numbers s = k mod K.
// It polls its slot's header until it is sealed with tag s + 1 (the header and the first payload quads come back
// in one load), checks the payload against the header's checksum (a stale quad is read again), writes the reply,
// one release fence (this warp's alone), then the reply's header. The host thread keeps W messages in flight and
// reaps replies in order by their headers, checking every word. So W messages are W independent round trips.
//
//   nvcc -O3 -arch=sm_90 -o slotwarps slotwarps.cu && ./slotwarps [ROUNDS] [SLOT_ALIGN: 64 or 128] [SIZE]
//
// Prints one line per (round, size, K, W): rate, its share of W / (the lone round trip of the same size and K,
// this round), the round trip's p50, and the counts that must be 0 (bad replies) or are told (stale reads).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include <algorithm>
#include <vector>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

enum { CAP = 1024, MAXJ = 9, POLL_QUADS = 8, LANES = 32 }; // MAXJ * 32 quads: a header and 4592 payload bytes

__device__ __forceinline__ uint4 ld_relaxed4(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.relaxed.sys.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}

__device__ __forceinline__ uint4 ld_acquire4(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.acquire.sys.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}

__device__ __forceinline__ void st_relaxed4(uint4 *p, uint4 v)
{
    asm volatile("st.relaxed.sys.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

__device__ __forceinline__ unsigned long long gtimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The checksum of a message: sum of word i times (2i + 1); the reply's word i: (w ^ 0xA5A5A5A5) + tag + i.
__host__ __device__ __forceinline__ uint32_t csum_term(uint32_t w, uint32_t i) { return w * (2u * i + 1u); }
__host__ __device__ __forceinline__ uint32_t reply_word(uint32_t w, uint32_t tag, uint32_t i)
{
    return (w ^ 0xA5A5A5A5u) + tag + i;
}

// Lane L's share of the checksum of payload words held in q[] (quad index L + 32 j; quad 0 is the header).
__device__ __forceinline__ uint32_t lane_csum(const uint4 *q, uint32_t tq, uint32_t nw, uint32_t lane, uint32_t nj)
{
    uint32_t c = 0;
#pragma unroll
    for (uint32_t j = 0; j < MAXJ; j++) {
        const uint32_t qi = lane + LANES * j;
        if (j >= nj || qi == 0 || qi >= tq)
            continue;
        const uint32_t w0 = (qi - 1) * 4, v[4] = {q[j].x, q[j].y, q[j].z, q[j].w};
        for (uint32_t t = 0; t < 4 && w0 + t < nw; t++)
            c += csum_term(v[t], w0 + t);
    }
    for (int o = 16; o; o >>= 1)
        c += __shfl_xor_sync(0xffffffffu, c, o);
    return c;
}

// Reads quads [0, nq) of a slot into q[], one load instruction for each 32 quads: acquire for a poll (the loads
// after it are no older than what it returned), relaxed after one. Two instructions on one sector would be
// served one after the other, a round trip each (polls-a0e650e.md, section 1).
__device__ __forceinline__ void read_quads(const uint4 *src, uint4 *q, uint32_t nq, uint32_t lane, uint32_t nj,
                                           bool acquire)
{
#pragma unroll
    for (uint32_t j = 0; j < MAXJ; j++) {
        const uint32_t qi = lane + LANES * j;
        if (j < nj && qi < nq)
            q[j] = acquire ? ld_acquire4(src + qi) : ld_relaxed4(src + qi);
    }
}

// Polls slot `src` until it holds message `tag` whole; returns the number of stale reads, or -1 past the deadline.
__device__ int take(const uint4 *src, uint4 *q, uint32_t tag, uint32_t tq, uint32_t nw, uint32_t lane,
                    unsigned long long deadline)
{
    const uint32_t pq = tq < POLL_QUADS ? tq : POLL_QUADS, nj = (tq + LANES - 1) / LANES;
    int stale = 0;
    for (uint32_t spin = 0;; spin++) {
        if ((spin & 1023u) == 1023u && gtimer() > deadline)
            return -1;
        read_quads(src, q, pq, lane, 1, true);
        if (__shfl_sync(0xffffffffu, q[0].x, 0) != tag)
            continue;
        if (pq < tq) // sealed: the rest of the slot, issued after the header came back
            read_quads(src, q, tq, lane, nj, false);
        const uint32_t want = __shfl_sync(0xffffffffu, q[0].z, 0);
        const uint32_t tagnow = __shfl_sync(0xffffffffu, q[0].x, 0);
        if (tagnow == tag && lane_csum(q, tq, nw, lane, nj) == want)
            return stale;
        stale++;
    }
}

// Writes the reply of message `tag` (payload, then one release fence, then its header) from q[].
__device__ void answer(uint4 *dst, const uint4 *q, uint32_t tag, uint32_t tq, uint32_t nw, uint32_t lane, uint32_t nj)
{
    uint32_t c = 0;
#pragma unroll
    for (uint32_t j = 0; j < MAXJ; j++) {
        const uint32_t qi = lane + LANES * j;
        if (j >= nj || qi == 0 || qi >= tq)
            continue;
        const uint32_t w0 = (qi - 1) * 4;
        uint32_t v[4] = {q[j].x, q[j].y, q[j].z, q[j].w};
        for (uint32_t t = 0; t < 4; t++) {
            v[t] = reply_word(v[t], tag, w0 + t);
            if (w0 + t < nw)
                c += csum_term(v[t], w0 + t);
        }
        st_relaxed4(dst + qi, make_uint4(v[0], v[1], v[2], v[3]));
    }
    for (int o = 16; o; o >>= 1)
        c += __shfl_xor_sync(0xffffffffu, c, o);
    __syncwarp();
    if (lane == 0) {
        asm volatile("fence.acq_rel.sys;" ::: "memory");
        st_relaxed4(dst, make_uint4(tag, nw, c, 0));
    }
}

// Warp k of K answers messages k, k + K, ... < n. stats[0]: stale reads; stats[1]: warps past the deadline.
__global__ void slotwarps(const uint4 *in, uint4 *out, uint32_t slot_quads, uint32_t nw, uint32_t n, uint32_t K,
                          unsigned long long *stats)
{
    const uint32_t lane = threadIdx.x & 31u, k = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (k >= K)
        return;
    const uint32_t tq = 1 + (nw + 3) / 4, nj = (tq + LANES - 1) / LANES;
    const unsigned long long deadline = gtimer() + 6ull * 1000000000ull;
    uint4 q[MAXJ];
    unsigned long long stale = 0;
    for (uint32_t s = k; s < n; s += K) {
        const size_t off = (size_t)(s % CAP) * slot_quads;
        const int st = take(in + off, q, s + 1, tq, nw, lane, deadline);
        if (st < 0) {
            if (lane == 0)
                atomicAdd(&stats[1], 1ull);
            return;
        }
        stale += (unsigned)st;
        answer(out + off, q, s + 1, tq, nw, lane, nj);
    }
    if (lane == 0 && stale)
        atomicAdd(&stats[0], stale);
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double tsc_per_ns = 1; // set by calibrate(): the host loop reads the TSC, cheaper than clock_gettime

static void calibrate(void)
{
    const double t0 = now_ns();
    const unsigned long long c0 = __rdtsc();
    while (now_ns() - t0 < 2e8)
        ;
    tsc_per_ns = (double)(__rdtsc() - c0) / (now_ns() - t0);
}

struct ring {
    uint32_t *in, *out;  // host views of the mapped slots
    uint4 *din, *dout;   // the device's
    uint32_t slot_words; // a slot: 4 header words, then the payload
    uint32_t nw;         // payload words
    std::vector<uint32_t> base;
};

// Posts message s: payload words base[i] + tag, then the header's length and checksum, then its tag (last).
static void post(ring &r, uint32_t s)
{
    uint32_t *p = r.in + (size_t)(s % CAP) * r.slot_words;
    const uint32_t tag = s + 1;
    uint32_t c = 0;
    for (uint32_t i = 0; i < r.nw; i++) {
        const uint32_t w = r.base[i] + tag;
        p[4 + i] = w;
        c += csum_term(w, i);
    }
    p[1] = r.nw;
    p[2] = c;
    __atomic_store_n(&p[0], tag, __ATOMIC_RELEASE);
}

// Reaps reply s if its header is sealed: returns 0 not yet, 1 good, 2 bad (a word or the checksum wrong).
static int reap(ring &r, uint32_t s)
{
    const uint32_t *p = r.out + (size_t)(s % CAP) * r.slot_words;
    const uint32_t tag = s + 1;
    if (__atomic_load_n(&p[0], __ATOMIC_ACQUIRE) != tag)
        return 0;
    uint32_t c = 0, bad = p[1] != r.nw;
    for (uint32_t i = 0; i < r.nw; i++) {
        const uint32_t want = reply_word(r.base[i] + tag, tag, i);
        bad |= p[4 + i] != want;
        c += csum_term(want, i);
    }
    return bad || c != p[2] ? 2 : 1;
}

struct result {
    double rate, p50_ns, host_ns, idle; // idle: share of the timed stretch the host waited for a reply
    uint32_t bad, done;
    unsigned long long stale, late;
};

enum { SAMPLE = 8 }; // round trips and the host's own time are taken on every 8th message (every one at W = 1)

// One cell: n messages, W in flight, K warps; rate over the last 90 %; a round trip is from just before its
// post to just after its reply was checked; host_ns: the host's post and check of one message, sampled.
static result cell(ring &r, uint32_t n, uint32_t W, uint32_t K, unsigned long long *dstats)
{
    memset(r.in, 0, (size_t)CAP * r.slot_words * 4);
    memset(r.out, 0, (size_t)CAP * r.slot_words * 4);
    CK(cudaMemset(dstats, 0, 16));
    CK(cudaDeviceSynchronize());
    const uint32_t warps_per_block = 4;
    slotwarps<<<(K + warps_per_block - 1) / warps_per_block, warps_per_block * 32>>>(r.din, r.dout, r.slot_words / 4,
                                                                                     r.nw, n, K, dstats);
    CK(cudaGetLastError());
    const uint32_t every = W == 1 ? 1 : SAMPLE;
    std::vector<unsigned long long> sent(n);
    std::vector<double> rt;
    rt.reserve(n / every + 1);
    result res = {0, 0, 0, 0, 0, 0, 0, 0};
    uint32_t posted = 0, reaped = 0;
    const uint32_t warm = n / 10;
    const unsigned long long t_end = __rdtsc() + (unsigned long long)(5e9 * tsc_per_ns);
    unsigned long long t0 = 0, host = 0, hostn = 0, idle = 0, idle_since = 0;
    while (reaped < n && __rdtsc() < t_end) {
        while (posted < n && posted - reaped < W) {
            if (posted % every == 0) {
                sent[posted] = __rdtsc();
                post(r, posted++);
                host += __rdtsc() - sent[posted - 1];
            } else
                post(r, posted++);
        }
        const unsigned long long c = reaped % every == 0 ? __rdtsc() : 0;
        const int got = reap(r, reaped);
        if (!got) {
            if (!idle_since)
                idle_since = __rdtsc();
            continue;
        }
        if (idle_since) { // the TSC is read only where the host starts and stops waiting
            if (reaped >= warm)
                idle += __rdtsc() - idle_since;
            idle_since = 0;
        }
        res.bad += got == 2;
        if (c) {
            const unsigned long long t = __rdtsc();
            host += t - c;
            hostn++;
            rt.push_back((t - sent[reaped]) / tsc_per_ns);
        }
        if (++reaped == warm)
            t0 = __rdtsc();
    }
    const unsigned long long t1 = __rdtsc();
    CK(cudaDeviceSynchronize());
    unsigned long long hs[2];
    CK(cudaMemcpy(hs, dstats, 16, cudaMemcpyDeviceToHost));
    res.done = reaped;
    res.stale = hs[0];
    res.late = hs[1];
    res.rate = reaped == n ? (n - warm) / ((t1 - t0) / tsc_per_ns) * 1e3 : 0; // M msg/s
    res.host_ns = hostn ? host / tsc_per_ns / hostn : 0;
    res.idle = reaped == n ? (double)idle / (t1 - t0) : 0;
    std::sort(rt.begin(), rt.end());
    res.p50_ns = rt.empty() ? 0 : rt[rt.size() / 2];
    return res;
}

static void make_ring(ring &r, uint32_t bytes, uint32_t align, void *h_in, void *h_out)
{
    r.nw = bytes / 4;
    r.slot_words = ((16 + bytes + align - 1) / align) * (align / 4);
    r.in = (uint32_t *)h_in;
    r.out = (uint32_t *)h_out;
    CK(cudaHostGetDevicePointer((void **)&r.din, h_in, 0));
    CK(cudaHostGetDevicePointer((void **)&r.dout, h_out, 0));
    r.base.resize(r.nw);
    uint32_t x = 0x12345678u ^ bytes;
    for (uint32_t i = 0; i < r.nw; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        r.base[i] = x;
    }
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 2;
    std::vector<uint32_t> sizes = {8, 64, 1024, 4096};
    if (argc > 3) // a third argument: one size (bytes, a multiple of 4, up to 4096)
        sizes = {(uint32_t)atoi(argv[3])};
    const uint32_t align = argc > 2 ? (uint32_t)atoi(argv[2]) : 64; // slot alignment: 64 (the product's) or 128
    if (align != 64 && align != 128 || sizes[0] < 4 || sizes[0] > 4096 || sizes[0] % 4) {
        fprintf(stderr, "usage: slotwarps [ROUNDS] [64|128] [SIZE]\n");
        return 2;
    }
    const uint32_t windows[] = {1, 8, 64, 256}, warps[] = {8, 64, 256};
    const size_t ring_bytes = (size_t)CAP * (16 + 4096 + 128);
    void *h_in, *h_out;
    CK(cudaHostAlloc(&h_in, ring_bytes, cudaHostAllocMapped));
    CK(cudaHostAlloc(&h_out, ring_bytes, cudaHostAllocMapped));
    unsigned long long *dstats;
    CK(cudaMalloc(&dstats, 16));
    calibrate();
    printf("| round | size | K | W | M msg/s | share of W / RTT(W=1) | RTT p50 us | host ns/msg | host waiting | bad | "
           "stale reads | late |\n");
    printf("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int round = 1; round <= rounds; round++)
        for (uint32_t size : sizes)
            for (uint32_t K : warps) {
                ring r;
                make_ring(r, size, align, h_in, h_out);
                double rtt1 = 0;
                for (uint32_t W : windows) {
                    const uint32_t n = 20000u * (W < 4 ? 1 : W / 4) > 400000u ? 400000u : 20000u * (W < 4 ? 1 : W / 4);
                    const result x = cell(r, n, W, K, dstats);
                    if (W == 1)
                        rtt1 = x.p50_ns;
                    const double bound = rtt1 > 0 ? W / rtt1 * 1e3 : 0;
                    printf("| %d | %u | %u | %u | %.3f | %.0f %% | %.3f | %.0f | %.0f %% | %u | %llu | %llu%s |\n",
                           round, size, K, W, x.rate, bound > 0 ? 100 * x.rate / bound : 0, x.p50_ns / 1e3, x.host_ns,
                           100 * x.idle, x.bad, x.stale, x.late, x.done < n ? " INCOMPLETE" : "");
                    fflush(stdout);
                    if (x.done < n) { // a protocol fault: stop rather than spend the machine on timeouts
                        fprintf(stderr, "slotwarps: %u of %u replies in 5 s; stopping\n", x.done, n);
                        return 1;
                    }
                }
            }
    return 0;
}
