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
    static const char *const want[] = {"memcpy",       "memcpy_async", "event_record", "event_query",
                                       "stream_query", "stream_sync",  "launch",       "other"};
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

/* --inject-call-us: the grammar, its canonical text, and the wait itself: an injected kind waits its
 * cost before every counted call (the thread's injected total says so exactly, and the clock shows at
 * least that much time passed); a kind without a cost never waits. */
static void test_injection(void)
{
    double us[CC_KIND_COUNT];
    char err[256], text[256];
    CHECK_INT(cc_inject_parse("memcpy=5,queries=2.5us", us, err, sizeof err), 0);
    CHECK_NEAR(us[CC_MEMCPY], 5, 0);
    CHECK_NEAR(us[CC_EVENT_QUERY], 2.5, 0);
    CHECK_NEAR(us[CC_STREAM_QUERY], 2.5, 0);
    CHECK_NEAR(us[CC_MEMCPY_ASYNC], 0, 0);
    CHECK_STR(cc_inject_format(us, text, sizeof text), "memcpy=5,event_query=2.5,stream_query=2.5");
    CHECK_INT(cc_inject_parse("all=2,memcpy=0", us, err, sizeof err), 0);
    CHECK_STR(cc_inject_format(us, text, sizeof text),
              "memcpy_async=2,event_record=2,event_query=2,stream_query=2,stream_sync=2,launch=2,other=2");
    CHECK_INT(cc_inject_parse("copies=1", us, err, sizeof err), 0);
    CHECK_STR(cc_inject_format(us, text, sizeof text), "memcpy=1,memcpy_async=1");
    static const char *const bad[] = {"",           "memcpy",       "=1",     "memcpy=",   "memcpy=x",  "memcpy=-1",
                                      "memcpy=1ms", "memcpy=10001", "nope=1", "memcpy=1,", "memcpy=nan"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CHECK_MSG(cc_inject_parse(bad[i], us, err, sizeof err) == -1 && strstr(err, "--inject-call-us"), "'%s'",
                  bad[i]);
    }
    cc_inject_set(NULL);
    CHECK_INT(cc_inject_on, 0);

    CHECK_INT(cc_inject_parse("memcpy=20", us, err, sizeof err), 0);
    cc_inject_set(us);
    CHECK_INT(cc_inject_on, 1);
    const uint64_t before_m = cc_injected_ns[CC_MEMCPY], before_l = cc_injected_ns[CC_LAUNCH];
    const uint64_t t0 = timing_now_ns();
    for (int i = 0; i < 50; i++) {
        CC_COUNT(CC_MEMCPY);
        CC_COUNT(CC_LAUNCH);
    }
    const uint64_t took = timing_now_ns() - t0;
    cc_inject_set(NULL);
    CHECK_INT(cc_injected_ns[CC_MEMCPY] - before_m, 50 * 20000);
    CHECK_INT(cc_injected_ns[CC_LAUNCH] - before_l, 0);
    CHECK_MSG(took >= 50 * 20000, "50 calls with 20 us injected took %llu ns", (unsigned long long)took);
    /* The check of the wait measures it and leaves no trace in the injected totals or the settings. */
    const double mean = cc_inject_check(10, 20);
    CHECK_MSG(mean >= 10, "a 10 us wait measured %.3f us", mean);
    CHECK_INT(cc_injected_ns[CC_OTHER], 0);
    CHECK_INT(cc_inject_on, 0);
}

/* The cost of one CC_COUNT: the best of 5 timings of 10^7 counted calls, rotating over the kinds as
 * the ring does. The counter is a thread-local array, so the compiler cannot drop the stores. */
static void measure_cost(void)
{
    const uint64_t n = 10000000;
    double best = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        const uint64_t t0 = timing_now_ns();
        for (uint64_t i = 0; i < n; i++) {
            CC_COUNT((cc_kind)(i & 7));
            __asm__ __volatile__("" ::: "memory"); /* one counted call per iteration, not a sum */
        }
        const double ns = (double)(timing_now_ns() - t0) / (double)n;
        if (ns < best)
            best = ns;
    }
    printf("cost of CC_COUNT: %.2f ns per counted call (best of 5 x 10^7; against ~1000 ns for the "
           "cheapest CUDA call: %.3f%%)\n",
           best, best / 1000.0 * 100.0);
}

int main(void)
{
    test_names();
    test_snapshots();
    test_per_thread();
    test_injection();
    measure_cost();
    CHECK_DONE();
}
