/* test_plan.c - the order of a run's trials (bench/plan.h): every unit runs once per round, rounds are
 * the outer loop (so a cell's trials are spread over the whole run), groups keep their order within
 * a round, the WSL2 fallback and the native modes run back to back, and a seed gives one order.
 * Label: unit. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan.h"

/* The pair block: the WSL2 fallback and the two native paths, exactly three modes. */
static int is_pair(int mode) { return plan_is_paired(mode); }

static void check_pair_rule(void)
{
    int n = 0;
    for (size_t i = 0; i < RB_MODE_COUNT; i++)
        n += plan_is_paired((int)i);
    CHECK_INT(n, 3);
    mode_spec fb = mode_wsl2_fallback(), nat = mode_native();
    int fbi = -1, nati = -1;
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        if (!memcmp(&m, &fb, sizeof m))
            fbi = (int)i;
        if (!memcmp(&m, &nat, sizeof m))
            nati = (int)i;
    }
    CHECK(fbi >= 0 && plan_is_paired(fbi));
    CHECK(nati >= 0 && plan_is_paired(nati));
    CHECK(!plan_is_paired(-1));
}

static void check_plan(const unsigned char *runnable, const uint32_t *sizes, size_t nsizes, int trials)
{
    plan_schedule p;
    CHECK(plan_build(runnable, sizes, nsizes, trials, 7, &p) == 0);
    CHECK_INT(p.ngroups, (long long)nsizes + 1);
    CHECK_INT(p.nsteps, p.nunits * (size_t)trials);
    int *seen = calloc(p.nunits, sizeof *seen);
    for (size_t s = 0; s < p.nsteps; s++) {
        const plan_step *st = &p.steps[s];
        CHECK(st->unit < p.nunits);
        /* Round r of every unit lies in the r-th slice of the run: rounds are the outer loop. */
        CHECK_MSG(st->round == (int)(s / p.nunits), "step %zu is in round %d", s, st->round);
        CHECK_INT(st->round, seen[st->unit]); /* a unit's trials come in round order, one per round */
        seen[st->unit]++;
        /* Within a round the groups come in order. */
        if (s % p.nunits)
            CHECK(p.units[p.steps[s - 1].unit].group <= p.units[st->unit].group);
    }
    for (size_t u = 0; u < p.nunits; u++)
        CHECK_INT(seen[u], trials);
    /* The paired modes of a group run back to back in every round. */
    for (size_t s = 0; s < p.nsteps; s++) {
        if (!is_pair(p.units[p.steps[s].unit].mode))
            continue;
        size_t k = s;
        while (k < p.nsteps && is_pair(p.units[p.steps[k].unit].mode) &&
               p.units[p.steps[k].unit].group == p.units[p.steps[s].unit].group)
            k++;
        size_t in_group = 0;
        for (size_t u = 0; u < p.nunits; u++)
            in_group += is_pair(p.units[u].mode) && p.units[u].group == p.units[p.steps[s].unit].group;
        CHECK_INT(k - s, in_group);
        s = k - 1;
    }
    /* One seed, one order; another seed, another order. */
    plan_schedule q, o;
    CHECK(plan_build(runnable, sizes, nsizes, trials, 7, &q) == 0);
    CHECK(plan_build(runnable, sizes, nsizes, trials, 8, &o) == 0);
    size_t same_q = 0, same_o = 0; /* field by field: plan_step has padding */
    for (size_t s = 0; s < p.nsteps; s++) {
        same_q += p.steps[s].unit == q.steps[s].unit && p.steps[s].round == q.steps[s].round;
        same_o += p.steps[s].unit == o.steps[s].unit;
    }
    CHECK_INT(same_q, p.nsteps);
    if (p.nunits > 8) /* enough units that two shuffles agreeing everywhere would be a bug */
        CHECK(same_o < p.nsteps);
    plan_free(&o);
    plan_free(&q);
    free(seen);
    plan_free(&p);
}

int main(void)
{
    unsigned char all[RB_MODE_COUNT];
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        all[i] = mode_invalid_reason(&m) == NULL;
    }
    check_pair_rule();
    const uint32_t sizes[] = {8, 64, 4096, 1u << 20};
    check_plan(all, sizes, 4, 5);
    check_plan(all, sizes, 1, 1);
    check_plan(all, sizes, 4, 10);
    unsigned char none[RB_MODE_COUNT] = {0};
    check_plan(none, sizes, 2, 3); /* baselines only */
    CHECK_DONE();
}
