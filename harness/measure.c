/* measure.c - sampling with warm-up and the adaptive stopping rule (see measure.h). */
#include "measure.h"

#include <errno.h>
#include <stdlib.h>

#include "timing.h"

int measure_samples_push(measure_samples *s, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        double *p = realloc(s->us, cap * sizeof *p);
        if (!p) {
            errno = ENOMEM;
            return -1;
        }
        s->us = p;
        s->cap = cap;
    }
    s->us[s->n++] = v;
    return 0;
}

int measure_time_once(measure_op_fn op, void *ctx, double *us)
{
    const uint64_t t0 = timing_now_ns();
    int rc = op(ctx);
    *us = (double)(timing_now_ns() - t0) * 1e-3;
    return rc;
}

void measure_samples_free(measure_samples *s)
{
    free(s->us);
    s->us = NULL;
    s->n = s->cap = 0;
}

int measure_run(const measure_policy *p, measure_op_fn op, void *ctx, measure_samples *s, int *op_rc,
                volatile sig_atomic_t *stop)
{
    s->us = NULL;
    s->n = s->cap = 0;
    s->why = STATS_CONTINUE;
    s->elapsed_s = 0;
    *op_rc = 0;
    for (size_t i = 0; i < p->warmup; i++) {
        if (stop && *stop)
            return 1;
        if ((*op_rc = op(ctx)) != 0)
            return -1;
    }
    const size_t batch = p->batch > 1 ? p->batch : 1;
    stats_stopper st;
    stats_stopper_init(&st);
    const uint64_t t_start = timing_now_ns();
    int rc = 0;
    for (;;) {
        if (stop && *stop) {
            rc = 1;
            break;
        }
        const uint64_t t0 = timing_now_ns();
        for (size_t b = 0; b < batch && *op_rc == 0; b++)
            *op_rc = op(ctx);
        const uint64_t t1 = timing_now_ns();
        if (*op_rc != 0) {
            rc = -1;
            break;
        }
        if (measure_samples_push(s, (double)(t1 - t0) * 1e-3 / (double)batch) != 0) {
            rc = -1;
            break;
        }
        s->elapsed_s = (double)(t1 - t_start) * 1e-9;
        s->why = stats_should_stop(&st, &p->rule, s->us, s->n, s->elapsed_s);
        if (s->why != STATS_CONTINUE)
            break;
    }
    stats_stopper_free(&st);
    return rc;
}
