/* run_label.h - how a run that is not a plain measurement of its machine says so.
 *
 * Two kinds of run measure something other than "this machine as it is" (issue 21):
 *   - injected:        `ringbench run --inject-call-us KIND=US,...` made every counted CUDA call of
 *                      those kinds wait US microseconds first (harness/cuda_calls.h);
 *   - limits applied:  `ringbench run --platform-limits wsl2` treated WSL2's documented limits as the
 *                      probe's answers (harness/platform_limits.h): it is NOT a WSL2 run.
 *   - faults injected: `ringbench run --inject-fault MODE=FAULT,...` made replies of those modes never
 *                      arrive, arrive late or arrive stale (harness/platform_faults.h, issue 53): its
 *                      failed cells are a test of ringbench, not of the machine.
 * The run records them in its provenance under the keys below; every output that shows a figure
 * of such a file (report, compare, export) carries the label rb_run_label builds, and `ringbench
 * track` refuses the file, so it never enters a machine's history. Files without the keys (every run
 * before issue 21) are plain runs.
 */
#ifndef RINGBENCH_RUN_LABEL_H
#define RINGBENCH_RUN_LABEL_H

#include <stddef.h>

#include "h5in.h"

/* Provenance keys (strings): the injected costs in cc_inject_format's canonical form, "" or absent
 * when none; the platform whose limits were applied ("wsl2"), "" or absent when none. */
#define RB_PROV_INJECT_CALL_US "inject_call_us"
#define RB_PROV_PLATFORM_LIMITS "platform_limits"
/* The faults injected (--inject-fault's spec), "" or absent when none. */
#define RB_PROV_INJECT_FAULT "inject_fault"

/* The label of a run from those two provenance values (NULL or "" = not set): "" for a plain run,
 * else "INJECTED (memcpy=5 us/call)", "LIMITS APPLIED (wsl2), not a wsl2 run" or both joined by
 * "; ". Returns buf. */
char *rb_run_label(const char *inject, const char *limits, char *buf, size_t n);

/* Adds the faults' label to the label in buf (NULL or "" faults: buf unchanged): "FAULTS INJECTED
 * (all=never), not a measurement", after "; " when buf holds a label already. Returns buf. */
char *rb_run_label_faults(const char *faults, char *buf, size_t n);

/* The label of an open results file, the faults' included. Returns buf. */
char *rb_run_label_h5(const h5in *r, char *buf, size_t n);

#endif
