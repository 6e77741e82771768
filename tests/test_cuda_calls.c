#define _POSIX_C_SOURCE 200809L
/* test_cuda_calls.c - the counting layer (harness/cuda_calls.h): names, snapshots, calls per
 * operation, per-thread counters; then its cost, measured and printed (not asserted: speed is
 * reported, never a pass/fail criterion). Label: unit.
 *
 * The cost line reads "cost of CC_COUNT: X ns per counted call"; the README quotes it against the
 * ~1 us or more of the cheapest CUDA runtime call (call_* baselines of a run).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cuda_calls.h"
#include "timing.h"

static void *other_thread(void *arg)
{
    cc_snapshot *s = arg;
    for (int i = 0; i < 1000; i++)
        CC_COUNT(CC_MEMCPY);
    cc_snap(s);
    return NULL;
}

static void test_names(void)
{
    static const char *const want[] = {"memcpy", "memcpy_async", "event_record", "event_query",
                                       "stream_query", "stream_sync", "launch", "other"};
    CHECK_INT(CC_KIND_COUNT, 8);
    for (int k = 0; k < CC_KIND_COUNT; k++) {
        CHECK_STR(cc_kind_name((cc_kind)k), want[k]);
        CHECK_INT(cc_kind_parse(want[k]), k);
        CHECK(cc_kind_doc((cc_kind)k) && cc_kind_doc((cc_kind)k)[0]);
    }
    CHECK(cc_kind_name(CC_KIND_COUNT) == NULL);
    CHECK(cc_kind_name((cc_kind)-1) == NULL);
    CHECK_INT(cc_kind_parse("memcpy_sync"), -1);
    CHECK_INT(cc_kind_parse(NULL), -1);
}

static void test_snapshots(void)
{
    cc_snapshot a, b;
    double per[CC_KIND_COUNT];
    cc_snap(&a);
    for (int i = 0; i < 10; i++) {
        CC_COUNT(CC_MEMCPY_ASYNC);
        CC_COUNT(CC_EVENT_RECORD);
        if (i % 2 == 0)
            CC_COUNT(CC_EVENT_QUERY);
    }
    CC_COUNT(CC_LAUNCH);
    cc_snap(&b);
    CHECK_INT(cc_diff(&a, &b, CC_MEMCPY_ASYNC), 10);
    CHECK_INT(cc_diff(&a, &b, CC_EVENT_QUERY), 5);
    CHECK_INT(cc_diff(&a, &b, CC_MEMCPY), 0);
    cc_per_op(&a, &b, 10, per);
    CHECK_NEAR(per[CC_MEMCPY_ASYNC], 1.0, 0);
    CHECK_NEAR(per[CC_EVENT_RECORD], 1.0, 0);
    CHECK_NEAR(per[CC_EVENT_QUERY], 0.5, 0);
    CHECK_NEAR(per[CC_LAUNCH], 0.1, 1e-12);
    CHECK_NEAR(per[CC_OTHER], 0.0, 0);
    cc_per_op(&a, &b, 0, per);
    for (int k = 0; k < CC_KIND_COUNT; k++)
        CHECK(isnan(per[k]));
}

/* Another thread's calls do not show in this thread's snapshot, and its own snapshot sees them. */
static void test_per_thread(void)
{
    cc_snapshot a, b, theirs;
    cc_snap(&a);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, &theirs) == 0);
    pthread_join(t, NULL);
    cc_snap(&b);
    CHECK_INT(cc_diff(&a, &b, CC_MEMCPY), 0);
    CHECK_INT(theirs.n[CC_MEMCPY], 1000);
}

/* The cost of one CC_COUNT: the best of 5 timings of 10^7 counted calls, rotating over the kinds as
 * the ring does. The counter is a thread-local array, so the compiler cannot drop the stores. */
static void measure_cost(void)
{
    const uint64_t n = 10000000;
    double best = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        const uint64_t t0 = rb_now_ns();
        for (uint64_t i = 0; i < n; i++) {
            CC_COUNT((cc_kind)(i & 7));
            __asm__ __volatile__("" ::: "memory"); /* one counted call per iteration, not a sum */
        }
        const double ns = (double)(rb_now_ns() - t0) / (double)n;
        if (ns < best)
            best = ns;
    }
    printf("cost of CC_COUNT: %.2f ns per counted call (best of 5 x 10^7; against ~1000 ns for the "
           "cheapest CUDA call: %.3f%%)\n", best, best / 1000.0 * 100.0);
}

int main(void)
{
    test_names();
    test_snapshots();
    test_per_thread();
    measure_cost();
    CHECK_DONE();
}
