/* test_call_families.c - every per-call baseline (harness/baselines.h RB_CALL_BASES) names a family
 * of results/schema.h in microseconds, and the CPU backend records each as unsupported with its
 * reason rather than a number. Label: unit. */
#include "baselines.h"
#include "check.h"
#include "schema.h"

int main(void)
{
    for (int k = 0; k < RB_CALL_COUNT; k++) {
        const char *fam = baselines_call_family((baselines_call_kind)k);
        CHECK(fam != NULL);
        int f = rb_family_parse(fam);
        CHECK_MSG(f >= 0, "%s is not a family in schema.h", fam);
        if (f >= 0)
            CHECK_STR(rb_family_unit((rb_family)f), "us");
        measure_policy pol = {.warmup = 1, .rule = {.min_samples = 1, .max_seconds = 1, .max_samples = 10}};
        measure_samples s;
        char err[128] = "";
        CHECK_INT(baselines_call(RING_BACKEND_CPU, 0, (baselines_call_kind)k, &pol, &s, err, sizeof err, NULL),
                  RB_BASE_UNSUPPORTED);
        CHECK(strstr(err, "CPU backend") != NULL);
        CHECK_INT(s.n, 0);
    }
    CHECK(baselines_call_family(RB_CALL_COUNT) == NULL);
    CHECK_DONE();
}
