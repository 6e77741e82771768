/* platform_faults.h - a platform that fails, played on purpose (`ringbench run --inject-fault`, issue 53),
 * so that what ringbench does when replies never arrive, arrive late or arrive stale is exercised
 * before a user meets it on WSL2 (a host-device spin loop that never exits, writes to mapped memory that
 * never become visible, registered memory read stale: the public reports of docs/wsl2.md).
 *
 * Each fault is the ring's (ring.h, RING_FAULT_NEVER, _LATE, _STALE), done by the kernel on both
 * backends, on the message of every PLATFORM_FAULT_EVERY of a ring: never, its reply never becomes
 * visible; late, only after the host's wait for it (timeout_s + 1 s); stale, it carries the sequence
 * number before its own. The run records the faults in its provenance (RB_PROV_INJECT_FAULT): such a
 * file is labelled FAULTS INJECTED everywhere (results/run_label.h) and refused by track.
 */
#ifndef RINGBENCH_PLATFORM_FAULTS_H
#define RINGBENCH_PLATFORM_FAULTS_H

#include <stddef.h>

#include "modes.h"

/* The message that fails: the 19th of a ring (seq 18) and every 19th after it, so that the warm-up and
 * the first samples pass ("stale reply: sequence 17 expected 18"). */
#define PLATFORM_FAULT_EVERY 19u

typedef struct platform_faults {
    unsigned char kind[RB_MODE_COUNT]; /* per mode_at(i): a RING_FAULT_* of a failing platform, or 0 */
    char text[512];                    /* the canonical spec, "" when none */
} platform_faults;

/* Parses --inject-fault: comma-separated MODE=FAULT terms, MODE a mode label (pinned/async/coop/mapped)
 * or all, FAULT never, late or stale; a later term overrides an earlier one for its modes. Returns 0,
 * or -1 with one line in err (an empty term, an unknown mode or fault). */
int platform_faults_parse(const char *spec, platform_faults *out, char *err, size_t errlen);

/* The ring_config.fault_kind for mode m (0: none). f may be NULL. */
int platform_faults_kind(const platform_faults *f, const mode_spec *m);

#endif
