/* eta.c - the run's time left, from a cost model of its steps (see eta.h). Exercised by
 * tests/test_eta.c and by every run's progress line (bench/sweep.c). */
#include "eta.h"

#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "ring_protocol.h"

uint64_t eta_ring_bytes(uint32_t size) { return (uint64_t)ring_capacity_for(size) * ring_slot_stride(size); }

/* A ring trial's throughput budget at size: each window it measures, for its repetitions. */
static double tput_budget(const trial_cfg *c, uint32_t size)
{
    uint32_t w[8];
    return (double)trial_windows(c, ring_capacity_for(size), w) * c->tput_reps * c->tput_rep_seconds;
}

static struct eta_class *class_of(eta *e, uint64_t bytes)
{
    for (int i = 0; i < e->ncls; i++)
        if (e->cls[i].bytes == bytes)
            return &e->cls[i];
    if (e->ncls == (int)(sizeof e->cls / sizeof *e->cls))
        return NULL;
    struct eta_class *c = &e->cls[e->ncls++];
    memset(c, 0, sizeof *c);
    c->bytes = bytes;
    return c;
}

static const struct eta_class *class_find(const eta *e, uint64_t bytes)
{
    for (int i = 0; i < e->ncls; i++)
        if (e->cls[i].bytes == bytes)
            return &e->cls[i];
    return NULL;
}

int eta_init(eta *e, const plan_schedule *plan, const trial_cfg *cfg, int procs, const eta_child *child)
{
    memset(e, 0, sizeof *e);
    e->plan = plan;
    e->cfg = cfg;
    e->procs = procs > 0 ? procs : 0;
    if (child)
        e->child = *child;
    e->unit_sum = calloc(plan->nunits ? plan->nunits : 1, sizeof *e->unit_sum);
    e->unit_n = calloc(plan->nunits ? plan->nunits : 1, sizeof *e->unit_n);
    if (!e->unit_sum || !e->unit_n) {
        eta_free(e);
        return -1;
    }
    for (size_t u = 0; u < plan->nunits; u++) {
        const plan_unit *pu = &plan->units[u];
        if (pu->kind != RB_UNIT_RING)
            continue;
        uint64_t b = eta_ring_bytes(pu->size);
        struct eta_class *c = class_of(e, b);
        if (c)
            c->units++;
        if (b > e->max_bytes)
            e->max_bytes = b;
    }
    return 0;
}

void eta_free(eta *e)
{
    free(e->unit_sum);
    free(e->unit_n);
    e->unit_sum = NULL;
    e->unit_n = NULL;
}

/* The fit is trusted once every ring unit of a class with at least half the largest ring bytes has a
 * trial: the extrapolation then reaches at most twice the bytes measured, over every mode. */
static void check_ready(eta *e)
{
    for (int i = 0; i < e->ncls && !e->ready; i++)
        if (e->cls[i].units > 0 && e->cls[i].units_seen == e->cls[i].units && 2 * e->cls[i].bytes >= e->max_bytes)
            e->ready = 1;
}

void eta_step_done(eta *e, size_t step, double seconds)
{
    if (step >= e->plan->nsteps || !(seconds >= 0))
        return;
    const size_t u = e->plan->steps[step].unit;
    const plan_unit *pu = &e->plan->units[u];
    if (pu->kind == RB_UNIT_RING) {
        const double x = (double)eta_ring_bytes(pu->size), y = seconds - tput_budget(e->cfg, pu->size);
        struct eta_class *c = class_of(e, eta_ring_bytes(pu->size));
        e->n += 1;
        e->sx += x;
        e->sy += y;
        e->sxx += x * x;
        e->sxy += x * y;
        if (c) {
            c->sum += y;
            c->n++;
            if (e->unit_n[u] == 0)
                c->units_seen++;
        }
    }
    e->unit_sum[u] += seconds;
    e->unit_n[u]++;
    e->kind_sum[pu->kind] += seconds;
    e->kind_n[pu->kind]++;
    check_ready(e);
}

void eta_proc_done(eta *e, double seconds)
{
    if (!(seconds >= 0))
        return;
    e->procs_sum += seconds;
    e->procs_n++;
}

/* A ring trial's seconds beyond its throughput budget at ring bytes b, into *y: the mean of the trials
 * at b, else the fit's. Returns 0, or -1 while the fit is not trusted (the rings measured so far may
 * be a few of the cheaper modes). */
static int ring_rest(const eta *e, uint64_t b, double *y)
{
    if (!e->ready)
        return -1;
    const struct eta_class *c = class_find(e, b);
    if (c && c->n > 0) {
        *y = c->sum / c->n;
        return 0;
    }
    if (e->n < 1)
        return -1;
    const double mx = e->sx / e->n, my = e->sy / e->n, vxx = e->sxx / e->n - mx * mx;
    double slope = vxx > 0 ? (e->sxy / e->n - mx * my) / vxx : 0;
    if (slope < 0)
        slope = 0;
    *y = my + slope * ((double)b - mx);
    if (*y < 0)
        *y = 0;
    return 0;
}

static int kind_mean(const eta *e, trial_unit_kind k, double *s)
{
    if (e->kind_n[k] == 0)
        return -1;
    *s = e->kind_sum[k] / e->kind_n[k];
    return 0;
}

/* The expected seconds of plan unit u. Returns 0, or -1 when unknown. */
static int unit_cost(const eta *e, size_t u, double *s)
{
    const plan_unit *pu = &e->plan->units[u];
    if (e->unit_n[u] > 0) {
        *s = e->unit_sum[u] / e->unit_n[u];
        return 0;
    }
    if (pu->kind != RB_UNIT_RING)
        return kind_mean(e, pu->kind, s);
    double y;
    if (ring_rest(e, eta_ring_bytes(pu->size), &y) != 0)
        return -1;
    *s = y + tput_budget(e->cfg, pu->size);
    return 0;
}

/* One process of the leg: the mean of those done, else its quick run costed by this run's model (at
 * the plan's smallest size, which is the leg's) plus ETA_PROC_START_S. Returns 0, or -1 when unknown. */
static int proc_cost(const eta *e, double *s)
{
    if (e->procs_n > 0) {
        *s = e->procs_sum / e->procs_n;
        return 0;
    }
    static const trial_unit_kind once[] = {RB_UNIT_OVERHEAD, RB_UNIT_FLOOR, RB_UNIT_CALLS,
                                           RB_UNIT_LAUNCH,   RB_UNIT_GRAPH, RB_UNIT_MEMCPY};
    uint32_t smallest = UINT32_MAX;
    for (size_t u = 0; u < e->plan->nunits; u++)
        if (e->plan->units[u].kind == RB_UNIT_RING && e->plan->units[u].size < smallest)
            smallest = e->plan->units[u].size;
    double round = 0, k, ring;
    for (size_t i = 0; i < sizeof once / sizeof *once; i++) {
        if (kind_mean(e, once[i], &k) != 0)
            return -1;
        round += k;
    }
    if (smallest == UINT32_MAX || kind_mean(e, RB_UNIT_CONTROL, &k) != 0 ||
        ring_rest(e, eta_ring_bytes(smallest), &ring) != 0)
        return -1;
    round += e->child.modes * (k + ring + e->child.tput_s);
    *s = ETA_PROC_START_S + e->child.trials * round;
    return 0;
}

int eta_left(const eta *e, size_t next_step, int procs_done, double *seconds)
{
    double left = 0, s;
    for (size_t i = next_step; i < e->plan->nsteps; i++) {
        if (unit_cost(e, e->plan->steps[i].unit, &s) != 0)
            return -1;
        left += s;
    }
    if (procs_done < e->procs) {
        if (proc_cost(e, &s) != 0)
            return -1;
        left += (e->procs - procs_done) * s;
    }
    *seconds = left;
    return 0;
}
