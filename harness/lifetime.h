/* lifetime.h - how long a ring kernel may live before it leaves by itself: the one policy that
 * `ringbench run` and `ringbench anatomy` (bench/cmd_run.c, bench/cmd_anatomy.c) both apply.
 *
 * On WSL2 a GPU kernel longer than the Windows display driver's watchdog (TDR, 2 s on a display GPU)
 * is killed with the whole context, so there the default is WSL_TDR_SAFE_LIFETIME_S (1.5 s, wsl.h);
 * elsewhere LIFETIME_DEFAULT_S. A lifetime the user chose (--max-lifetime) always wins.
 */
#ifndef RINGBENCH_LIFETIME_H
#define RINGBENCH_LIFETIME_H

#include "wsl.h"

/* The default lifetime outside WSL2: long enough for the longest cell of a full sweep. */
#define LIFETIME_DEFAULT_S 60.0

typedef struct lifetime_choice {
    double seconds;
    const char *source; /* "--max-lifetime", "default" or the WSL2 default's reason: recorded in the provenance */
} lifetime_choice;

/* The lifetime for a process on a machine of kind `kind` (wsl_detect): user_s when user_s > 0 (the
 * user's --max-lifetime), else the WSL2 default where the watchdog applies, else LIFETIME_DEFAULT_S. */
lifetime_choice lifetime_choose(double user_s, wsl_kind kind);

#endif
