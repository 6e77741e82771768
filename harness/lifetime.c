/* lifetime.c - the kernel-lifetime policy (lifetime.h); exercised by tests/cli_test.sh through run
 * and anatomy, whose provenance and stderr say which lifetime applied. */
#include "lifetime.h"

lifetime_choice lifetime_choose(double user_s, wsl_kind kind)
{
    if (user_s > 0)
        return (lifetime_choice){user_s, "--max-lifetime"};
    if (wsl_kind_has_tdr(kind))
        return (lifetime_choice){WSL_TDR_SAFE_LIFETIME_S, "WSL2 default: below the Windows TDR watchdog (2 s)"};
    return (lifetime_choice){LIFETIME_DEFAULT_S, "default"};
}
