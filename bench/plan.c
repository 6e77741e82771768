/* plan.c - the order of a run's trials (see plan.h). Exercised by tests/test_plan.c. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

static void shuffle(size_t *v, size_t n, uint64_t *rng)
{
    for (size_t i = n; i > 1; i--) {
        /* splitmix64 (rng.h): a seed gives the same order on every machine. */
        size_t j = (size_t)(rng_splitmix64(rng) % i);
        size_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

int plan_is_paired(int mode)
{
    if (mode < 0)
        return 0;
    mode_spec m = mode_at((size_t)mode), fb = mode_wsl2_fallback(), nat = mode_native();
    mode_spec nat_managed = nat;
    nat_managed.v[RB_AXIS_CTRL] = RB_CTRL_MANAGED;
    return memcmp(&m, &fb, sizeof m) == 0 || memcmp(&m, &nat, sizeof m) == 0 || memcmp(&m, &nat_managed, sizeof m) == 0;
}

static int add_unit(plan_schedule *p, size_t *cap, trial_unit_kind kind, int mode, uint32_t size, int group)
{
    if (p->nunits == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        plan_unit *u = realloc(p->units, c * sizeof *u);
        if (!u)
            return -1;
        p->units = u;
        *cap = c;
    }
    p->units[p->nunits++] = (plan_unit){kind, mode, size, group};
    return 0;
}

/* Appends round r of the units [first, last) to the steps, shuffled. The paired modes are one
 * block: the block takes the place of its first member in the shuffled order of blocks. */
static int add_round(plan_schedule *p, size_t first, size_t last, int r, uint64_t *rng)
{
    size_t n = last - first, *blocks = malloc((n ? n : 1) * sizeof *blocks), *pair = malloc((n ? n : 1) * sizeof *pair);
    if (!blocks || !pair) {
        free(blocks);
        free(pair);
        return -1;
    }
    size_t nb = 0, np = 0;
    for (size_t u = first; u < last; u++) {
        if (plan_is_paired(p->units[u].mode)) {
            if (np++ == 0)
                blocks[nb++] = SIZE_MAX; /* the pair block */
            pair[np - 1] = u;
        } else {
            blocks[nb++] = u;
        }
    }
    shuffle(blocks, nb, rng);
    shuffle(pair, np, rng);
    for (size_t b = 0; b < nb; b++) {
        if (blocks[b] == SIZE_MAX) {
            for (size_t k = 0; k < np; k++)
                p->steps[p->nsteps++] = (plan_step){pair[k], r};
        } else {
            p->steps[p->nsteps++] = (plan_step){blocks[b], r};
        }
    }
    free(blocks);
    free(pair);
    return 0;
}

int plan_build(const unsigned char *runnable, const uint32_t *sizes, size_t nsizes, int trials, uint64_t seed,
               plan_schedule *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    int rc = -1;
    uint64_t rng = seed ^ 0x72696E6762656E63ull; /* "ringbenc" */
    if (trials < 1)
        trials = 1;
    /* Group 0: what has no size. */
    if (add_unit(out, &cap, RB_UNIT_OVERHEAD, -1, 0, 0) || add_unit(out, &cap, RB_UNIT_FLOOR, -1, 0, 0) ||
        add_unit(out, &cap, RB_UNIT_CALLS, -1, 0, 0))
        goto out;
    for (size_t i = 0; i < RB_MODE_COUNT; i++)
        if (runnable[i] && add_unit(out, &cap, RB_UNIT_CONTROL, (int)i, 0, 0))
            goto out;
    for (size_t s = 0; s < nsizes; s++) {
        int g = (int)s + 1;
        if (add_unit(out, &cap, RB_UNIT_LAUNCH, -1, sizes[s], g) ||
            add_unit(out, &cap, RB_UNIT_GRAPH, -1, sizes[s], g) || add_unit(out, &cap, RB_UNIT_MEMCPY, -1, sizes[s], g))
            goto out;
        for (size_t i = 0; i < RB_MODE_COUNT; i++)
            if (runnable[i] && add_unit(out, &cap, RB_UNIT_RING, (int)i, sizes[s], g))
                goto out;
    }
    out->ngroups = (int)nsizes + 1;
    out->steps = malloc(out->nunits * (size_t)trials * sizeof *out->steps);
    if (!out->steps)
        goto out;
    for (int r = 0; r < trials; r++)
        for (int g = 0, u = 0; g < out->ngroups; g++) {
            size_t first = (size_t)u;
            while ((size_t)u < out->nunits && out->units[u].group == g)
                u++;
            if (add_round(out, first, (size_t)u, r, &rng) < 0)
                goto out;
        }
    rc = 0;
out:
    if (rc != 0)
        plan_free(out);
    return rc;
}

void plan_free(plan_schedule *p)
{
    free(p->units);
    free(p->steps);
    memset(p, 0, sizeof *p);
}
