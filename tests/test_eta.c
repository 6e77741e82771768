/* test_eta.c - the run's time left (bench/eta.h), against runs whose every step's cost is known: a
 * ring trial costs its throughput budget plus a + b x its ring bytes, every other unit a constant of
 * its kind, a process of the leg a constant. The model must say it cannot tell until a whole size group
 * of rings with at least half the largest ring bytes has run, and from then on give exactly what is
 * left; a unit measured once is costed as measured, and the leg's processes as measured once one ran.
 * Label: unit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eta.h"
#include "ring.h"

#define A_S 0.01    /* a ring trial's fixed rest */
#define B_S 4e-9    /* and its rest per ring byte */
#define PROC_S 1.25 /* a process of the leg */

static trial_cfg budgets(void)
{
    trial_cfg c;
    memset(&c, 0, sizeof c);
    c.windows[0] = 1;
    c.windows[1] = 8;
    c.windows[2] = RB_WINDOW_CAP;
    c.nwindows = 3;
    c.tput_reps = 2;
    c.tput_rep_seconds = 0.005;
    return c;
}

/* The true cost of unit u; `pricey` makes every unit of mode 0 twice as dear (as the model cannot know
 * before it measured one). */
static double cost(const plan_schedule *p, const trial_cfg *c, size_t u, int pricey)
{
    const plan_unit *pu = &p->units[u];
    double s;
    if (pu->kind == RB_UNIT_RING) {
        uint32_t w[8];
        s = (double)trial_windows(c, ring_capacity_for(pu->size), w) * c->tput_reps * c->tput_rep_seconds + A_S +
            B_S * (double)eta_ring_bytes(pu->size);
    } else {
        s = 0.001 * (1 + (int)pu->kind); /* a constant per kind */
    }
    return pricey && pu->mode == 0 ? 2 * s : s;
}

static double truth_left(const plan_schedule *p, const trial_cfg *c, size_t from, int procs_left, int pricey)
{
    double s = procs_left * PROC_S;
    for (size_t i = from; i < p->nsteps; i++)
        s += cost(p, c, p->steps[i].unit, pricey);
    return s;
}

/* The step after which the fit must be trusted: the last ring step of round 0 at the size whose ring
 * bytes are the smallest of those at least half the largest. */
static size_t ready_step(const plan_schedule *p)
{
    uint64_t max = 0, pick = UINT64_MAX;
    for (size_t u = 0; u < p->nunits; u++)
        if (p->units[u].kind == RB_UNIT_RING && eta_ring_bytes(p->units[u].size) > max)
            max = eta_ring_bytes(p->units[u].size);
    for (size_t u = 0; u < p->nunits; u++) {
        uint64_t b = eta_ring_bytes(p->units[u].size);
        if (p->units[u].kind == RB_UNIT_RING && 2 * b >= max && b < pick)
            pick = b;
    }
    size_t last = 0;
    for (size_t i = 0; i < p->nsteps && p->steps[i].round == 0; i++) {
        const plan_unit *pu = &p->units[p->steps[i].unit];
        if (pu->kind == RB_UNIT_RING && eta_ring_bytes(pu->size) == pick)
            last = i;
    }
    return last;
}

/* A run of sizes, every step fed in order: unknown before ready_step, exact from it on. */
static void check_run(const uint32_t *sizes, size_t nsizes, int trials, int pricey)
{
    unsigned char runnable[RB_MODE_COUNT];
    for (size_t i = 0; i < RB_MODE_COUNT; i++)
        runnable[i] = i % 3 != 1; /* two modes in three */
    plan_schedule p;
    CHECK(plan_build(runnable, sizes, nsizes, trials, 3, &p) == 0);
    trial_cfg c = budgets();
    const eta_child child = {3, 4, 0.01};
    eta e;
    CHECK(eta_init(&e, &p, &c, 0, &child) == 0);
    const size_t ready = ready_step(&p);
    double left = -1;
    CHECK(eta_left(&e, 0, 0, &left) == -1);
    int early = 0, wrong = 0;
    for (size_t i = 0; i < p.nsteps; i++) {
        eta_step_done(&e, i, cost(&p, &c, p.steps[i].unit, pricey));
        const int rc = eta_left(&e, i + 1, 0, &left);
        if (i < ready && rc == 0)
            early++;
        if (i >= ready && (rc != 0 || fabs(left - truth_left(&p, &c, i + 1, 0, pricey)) > 1e-9 * (1 + left)))
            if (!pricey || p.steps[i].round > 0) /* mode 0 at an unmeasured size: the model cannot know */
                wrong++;
    }
    CHECK_INT(early, 0);
    CHECK_INT(wrong, 0);
    CHECK(eta_left(&e, p.nsteps, 0, &left) == 0 && left == 0);
    eta_free(&e);
    plan_free(&p);
}

/* The leg: before a process ran, the model's own figure for one (its quick run plus the start); once
 * one ran, the measured one. */
static void check_procs(void)
{
    unsigned char runnable[RB_MODE_COUNT];
    for (size_t i = 0; i < RB_MODE_COUNT; i++)
        runnable[i] = 1;
    const uint32_t sizes[] = {8, 4096};
    plan_schedule p;
    CHECK(plan_build(runnable, sizes, 2, 2, 3, &p) == 0);
    trial_cfg c = budgets();
    const eta_child child = {3, 4, 0.01};
    eta e;
    CHECK(eta_init(&e, &p, &c, 5, &child) == 0);
    for (size_t i = 0; i < p.nsteps; i++)
        eta_step_done(&e, i, cost(&p, &c, p.steps[i].unit, 0));
    double left = -1, ring8 = A_S + B_S * (double)eta_ring_bytes(8);
    double round = 0.001 * (1 + RB_UNIT_OVERHEAD) + 0.001 * (1 + RB_UNIT_FLOOR) + 0.001 * (1 + RB_UNIT_CALLS) +
                   0.001 * (1 + RB_UNIT_LAUNCH) + 0.001 * (1 + RB_UNIT_GRAPH) + 0.001 * (1 + RB_UNIT_MEMCPY) +
                   4 * (0.001 * (1 + RB_UNIT_CONTROL) + ring8 + 0.01);
    CHECK(eta_left(&e, p.nsteps, 0, &left) == 0);
    CHECK(fabs(left - 5 * (ETA_PROC_START_S + 3 * round)) < 1e-9);
    eta_proc_done(&e, PROC_S);
    CHECK(eta_left(&e, p.nsteps, 1, &left) == 0);
    CHECK(fabs(left - 4 * PROC_S) < 1e-12);
    CHECK(eta_left(&e, p.nsteps, 5, &left) == 0 && left == 0);
    eta_free(&e);
    plan_free(&p);
}

/* Without modes (no ring units), what is left is known once every kind has run once. */
static void check_no_rings(void)
{
    unsigned char runnable[RB_MODE_COUNT] = {0};
    const uint32_t sizes[] = {8, 1024};
    plan_schedule p;
    CHECK(plan_build(runnable, sizes, 2, 3, 3, &p) == 0);
    trial_cfg c = budgets();
    eta e;
    CHECK(eta_init(&e, &p, &c, 0, NULL) == 0);
    double left = -1;
    for (size_t i = 0; i < p.nsteps; i++)
        eta_step_done(&e, i, cost(&p, &c, p.steps[i].unit, 0));
    CHECK(eta_left(&e, 0, 0, &left) == 0);
    CHECK(fabs(left - truth_left(&p, &c, 0, 0, 0)) < 1e-9);
    eta_free(&e);
    plan_free(&p);
}

int main(void)
{
    const uint32_t quick[] = {8, 4096, 1u << 20};
    const uint32_t deflt[] = {8, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1u << 20, 4u << 20};
    const uint32_t one[] = {64};
    check_run(quick, 3, 3, 0);
    check_run(deflt, 11, 5, 0);
    check_run(one, 1, 2, 0);
    check_run(deflt, 11, 2, 1);
    check_procs();
    check_no_rings();
    CHECK_DONE();
}
