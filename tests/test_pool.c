/* test_pool.c - the worker pool's pass (harness/pool.h): every piece is done exactly once, whoever
 * is running does it, a pass never waits for a worker that has not started, and a late worker never
 * touches a finished pass's context (run it under TSan: make test-tsan). */
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "pool.h"

#define PIECES 64

typedef struct job {
    atomic_uint next, done[PIECES];
    atomic_uint callers; /* calls of fn in this pass */
    unsigned hold_ms;    /* the first call sleeps this long inside its first piece */
    atomic_uint first;
} job;

static void job_init(job *j, unsigned hold_ms)
{
    atomic_init(&j->next, 0);
    for (int i = 0; i < PIECES; i++)
        atomic_init(&j->done[i], 0);
    atomic_init(&j->callers, 0);
    atomic_init(&j->first, 0);
    j->hold_ms = hold_ms;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void pieces(void *ctx)
{
    job *j = ctx;
    atomic_fetch_add(&j->callers, 1);
    for (unsigned p; (p = atomic_fetch_add(&j->next, 1)) < PIECES;) {
        if (j->hold_ms && atomic_exchange(&j->first, 1) == 0)
            sleep_ms(j->hold_ms);
        atomic_fetch_add(&j->done[p], 1);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int all_once(job *j)
{
    for (int i = 0; i < PIECES; i++)
        if (atomic_load(&j->done[i]) != 1)
            return 0;
    return 1;
}

int main(void)
{
    pool_ctx *p = NULL;
    CHECK(pool_create(0, &p) == -1 && p == NULL);
    CHECK(pool_create(4, &p) == 0 && p != NULL);
    if (!p)
        CHECK_DONE();

    /* Many passes back to back, each with its context on the stack: every piece once, and at most
     * one call of fn per thread. */
    int ok = 1, calls_ok = 1;
    for (int pass = 0; pass < 2000; pass++) {
        job j;
        job_init(&j, 0);
        pool_run(p, pieces, &j);
        ok &= all_once(&j);
        calls_ok &= atomic_load(&j.callers) >= 1 && atomic_load(&j.callers) <= 5;
    }
    CHECK_MSG(ok, "a piece was skipped or done twice");
    CHECK(calls_ok);

    /* Workers asleep (past their spin): the caller starts at once and the pass ends when the work
     * is done, whoever did it. */
    sleep_ms(20);
    job j;
    job_init(&j, 0);
    pool_run(p, pieces, &j);
    CHECK(all_once(&j));

    /* A thread held inside a piece for 200 ms: the others take the rest meanwhile, and the pass
     * still waits for the piece it holds (it joined, so its work is part of the pass). */
    job_init(&j, 200);
    const double t0 = now_s();
    pool_run(p, pieces, &j);
    const double dt = now_s() - t0;
    CHECK(all_once(&j));
    CHECK_MSG(dt >= 0.19, "the pass returned after %.3f s, before the held piece was done", dt);
    pool_destroy(p);
    CHECK_DONE();
}
