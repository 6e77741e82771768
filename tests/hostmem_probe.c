/* hostmem_probe.c - are some fresh host allocations slower for the CPU than others? (issue 18: slow trials)
 *
 *   hostmem_probe [N [MIB]]      (tests/gpu_session.sh step 'hostmem' builds and runs it)
 *
 * A ring is allocated afresh for every trial, and in the H100's default runs 3-6 % of trials run slow
 * for the ring's whole life; at 64 KiB and above their host payload passes take ~3x as long per message
 * with one thread as with nine (results/data/h100-slow-trials/workers-a222ef6.md). This probe takes the
 * ring out of it. N times, for each kind of host memory a ring uses - pageable (from mmap, so that its
 * pages are new each time), cudaHostAlloc, and cudaHostAlloc mapped (the same memory under unified
 * addressing) - it allocates MIB MiB, times the first write (for pageable memory its first touch; the
 * driver has already touched pinned pages), then the best of three read passes and of three write
 * passes, and frees it. A control buffer allocated once gets the same passes each time, so time alone
 * (the machine) is told apart from the allocation. One line per pass set (t_s: CLOCK_MONOTONIC seconds
 * at its start, to line it up with other work), then per kind the median GB/s and the share of
 * allocations more than 1.5x slower than it. Needs the CUDA runtime and a GPU: exit 77 without a usable
 * one (no device, or no driver new enough), 1 on any other error, 2 on bad arguments.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KIND_PAGEABLE, KIND_PINNED, KIND_MAPPED, KIND_CONTROL, KINDS };
static const char *const kind_name[KINDS] = {"pageable (mmap)", "cudaHostAlloc", "cudaHostAlloc-mapped",
                                             "control (one buffer)"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile uint64_t g_sink;

/* GB/s of the best of k read passes over buf (a 64-bit sum, kept so the compiler cannot drop it). */
static double read_rate(const uint64_t *buf, size_t words, int k)
{
    double best = 1e30;
    for (int r = 0; r < k; r++) {
        double t0 = now_s();
        uint64_t s = 0;
        for (size_t i = 0; i < words; i++)
            s += buf[i];
        g_sink += s;
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    return 8.0 * (double)words / best / 1e9;
}

/* GB/s of the best of k write passes (memset with a new byte each pass). */
static double write_rate(void *buf, size_t bytes, int k, int seed)
{
    double best = 1e30;
    for (int r = 0; r < k; r++) {
        double t0 = now_s();
        memset(buf, (seed + r) & 0xff, bytes);
        g_sink += ((volatile unsigned char *)buf)[bytes / 2];
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    return (double)bytes / best / 1e9;
}

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 1;
    fprintf(stderr, "hostmem_probe: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}

/* Fresh pages every time: pageable memory from mmap (malloc would hand a freed 1 MiB block back from
 * its heap, already touched), pinned memory from the driver. NULL with a message on failure. */
static void *alloc_kind(int kind, size_t bytes)
{
    void *p = NULL;
    if (kind == KIND_PAGEABLE || kind == KIND_CONTROL) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("hostmem_probe: mmap");
            return NULL;
        }
        return p;
    }
    unsigned flags = kind == KIND_MAPPED ? cudaHostAllocMapped : cudaHostAllocDefault;
    return cuda_ok(cudaHostAlloc(&p, bytes, flags), "cudaHostAlloc") ? p : NULL;
}

static int free_kind(int kind, void *p, size_t bytes)
{
    if (kind == KIND_PAGEABLE || kind == KIND_CONTROL)
        return munmap(p, bytes) == 0;
    return cuda_ok(cudaFreeHost(p), "cudaFreeHost");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] and the share of v below median / 1.5 (slow), into *med and *slow. */
static void summarise(const double *v, int n, double *med, double *slow)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) {
        fprintf(stderr, "hostmem_probe: out of memory\n");
        exit(1);
    }
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    int k = 0;
    for (int i = 0; i < n; i++)
        k += v[i] < *med / 1.5;
    *slow = (double)k / n;
    free(s);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 60, mib = argc > 2 ? atoi(argv[2]) : 64;
    if (n < 2 || n > 100000 || mib < 1 || mib > 4096) {
        fprintf(stderr, "usage: hostmem_probe [N (2-100000, default 60) [MIB (1-4096, default 64)]]\n");
        return 2;
    }
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && devices < 1)) {
        printf("hostmem_probe: no CUDA device: skipped\n");
        return 77;
    }
    if (!cuda_ok(e, "cudaGetDeviceCount"))
        return 1;
    const size_t bytes = (size_t)mib << 20, words = bytes / 8;
    double *rate[KINDS][3];
    for (int k = 0; k < KINDS; k++)
        for (int m = 0; m < 3; m++)
            if (!(rate[k][m] = calloc((size_t)n, sizeof(double)))) {
                fprintf(stderr, "hostmem_probe: out of memory\n");
                return 1;
            }
    void *control = alloc_kind(KIND_CONTROL, bytes);
    if (!control)
        return 1;
    memset(control, 1, bytes);
    printf("kind,iteration,t_s,first_write_gbs,read_gbs,write_gbs\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < KINDS; k++) {
            double t = now_s();
            void *p = k == KIND_CONTROL ? control : alloc_kind(k, bytes);
            if (!p)
                return 1;
            rate[k][0][i] = write_rate(p, bytes, 1, i); /* the first write (pageable: its first touch) */
            rate[k][1][i] = read_rate(p, words, 3);
            rate[k][2][i] = write_rate(p, bytes, 3, i + 1);
            printf("%s,%d,%.6f,%.3f,%.3f,%.3f\n", kind_name[k], i, t, rate[k][0][i], rate[k][1][i], rate[k][2][i]);
            if (k != KIND_CONTROL && !free_kind(k, p, bytes))
                return 1;
        }
    printf("\n| memory (%d allocations of %d MiB) | first write GB/s (share > 1.5x slow) | read GB/s | write GB/s |\n",
           n, mib);
    printf("| --- | --- | --- | --- |\n");
    for (int k = 0; k < KINDS; k++) {
        printf("| %s |", kind_name[k]);
        for (int m = 0; m < 3; m++) {
            double med, slow;
            summarise(rate[k][m], n, &med, &slow);
            printf(" %.2f (%.1f%%) |", med, 100 * slow);
        }
        printf("\n");
    }
    return free_kind(KIND_CONTROL, control, bytes) ? 0 : 1;
}
