/* test_lifetime.c - the kernel-lifetime policy (harness/lifetime.h) that run and anatomy share: the
 * user's --max-lifetime wins; otherwise 1.5 s where the Windows watchdog applies (WSL2 and a container
 * inside it), 60 s elsewhere. */
#include "check.h"
#include "lifetime.h"

int main(void)
{
    const wsl_kind kinds[] = {WSL_NATIVE, WSL_1, WSL_2, WSL_2_CONTAINER};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        const int tdr = kinds[i] == WSL_2 || kinds[i] == WSL_2_CONTAINER;
        lifetime_choice d = lifetime_choose(0, kinds[i]);
        CHECK_NEAR(d.seconds, tdr ? WSL_TDR_SAFE_LIFETIME_S : LIFETIME_DEFAULT_S, 0);
        CHECK(tdr ? strstr(d.source, "WSL2 default") != NULL : strcmp(d.source, "default") == 0);
        CHECK(d.seconds < 2.0 || !tdr); /* below the watchdog's 2 s */
        lifetime_choice u = lifetime_choose(7.5, kinds[i]);
        CHECK_NEAR(u.seconds, 7.5, 0);
        CHECK_STR(u.source, "--max-lifetime");
    }
    CHECK_DONE();
}
