/* test_measure.c - the sampling loop of harness/measure.h: warm-up, one sample per operation, and
 * batched samples (measure_policy.batch, `ringbench run --cb-batch`): k operations back to back
 * between the two clock reads, the sample their time divided by k. Asserts counts and the division,
 * never a speed. Label: unit. */
#include <stddef.h>

#include "check.h"
#include "measure.h"
#include "timing.h"

typedef struct counter {
    size_t calls;
    size_t fail_at; /* 0: never fails */
} counter;

static int count_op(void *ctx)
{
    counter *c = ctx;
    c->calls++;
    return c->fail_at && c->calls == c->fail_at;
}

/* An operation that takes at least 20 us: batched, each sample is still at least one operation's
 * time, so the division by the batch is visible against a single operation's. */
static int slow_op(void *ctx)
{
    (void)ctx;
    const uint64_t t0 = timing_now_ns();
    while (timing_now_ns() - t0 < 20000)
        ;
    return 0;
}

static measure_policy policy(size_t warmup, size_t batch, size_t samples)
{
    return (measure_policy){
        .warmup = warmup, .rule = {.min_samples = samples, .max_seconds = 10, .max_samples = samples}, .batch = batch};
}

int main(void)
{
    measure_samples s;
    int op_rc;
    size_t batches[] = {0, 1, 4};
    for (size_t i = 0; i < 3; i++) {
        counter c = {0, 0};
        measure_policy p = policy(3, batches[i], 5);
        CHECK_INT(measure_run(&p, count_op, &c, &s, &op_rc, NULL), 0);
        CHECK_INT(s.n, 5);
        CHECK_INT(c.calls, 3 + 5 * (batches[i] > 1 ? batches[i] : 1));
        measure_samples_free(&s);
    }
    /* A failing operation inside a batch stops the batch and the measurement. */
    counter f = {0, 3 + 6};
    measure_policy p = policy(3, 4, 5);
    CHECK_INT(measure_run(&p, count_op, &f, &s, &op_rc, NULL), -1);
    CHECK_INT(f.calls, 9);
    CHECK_INT(s.n, 1);
    CHECK(op_rc != 0);
    measure_samples_free(&s);
    /* Each batched sample is the time of one operation (>= 20 us), not of the batch (>= 80 us). Every
     * sample is at least 20 us; a sample kept from the CPU (a busy two-core machine) can exceed 80, so
     * the division is judged on the fastest of 9: undivided, every sample would be >= 80. */
    p = policy(0, 4, 9);
    CHECK_INT(measure_run(&p, slow_op, NULL, &s, &op_rc, NULL), 0);
    double fastest = 1e300;
    for (size_t i = 0; i < s.n; i++) {
        CHECK_MSG(s.us[i] >= 20, "sample %zu: %.1f us", i, s.us[i]);
        fastest = s.us[i] < fastest ? s.us[i] : fastest;
    }
    CHECK_MSG(s.n == 9 && fastest < 80, "fastest of %zu samples: %.1f us", s.n, fastest);
    measure_samples_free(&s);
    CHECK_DONE();
}
