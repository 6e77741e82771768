/* cuda_calls.h - the counting layer: how many CUDA runtime calls of each kind the ring makes per
 * message and per control-block operation.
 *
 * Under WSL2 every CUDA call that reaches the driver crosses the paravirtualised GPU path (dxgkrnl
 * and the VM bus); a load or a store to mapped memory does not. A mode's WSL2 penalty should grow
 * with the calls it makes, so the backends count them here and the sweep divides by the operations:
 *
 *     cc_snapshot before, after;
 *     cc_snap(&before);  ... n operations ...  cc_snap(&after);
 *     double per_op[CC_KIND_COUNT];
 *     cc_per_op(&before, &after, n, per_op);   -> rb_row calls_<kind> (same order, same names)
 *
 * The CUDA backend calls CC_COUNT(kind) next to each runtime call it makes; the CPU backend calls it
 * where its CUDA twin would (harness/ring_cpu.c), so the counts per mode are testable without a GPU.
 *
 * Counters are per thread (C11 _Thread_local, plain increments): a snapshot sees the calls of the
 * thread that takes it, which is the thread that drives the ring. An increment costs about a
 * nanosecond (tests/test_cuda_calls.c measures and prints it) against the ~1 us or more of the
 * cheapest CUDA call, and no lock or atomic is involved, so the ThreadSanitizer build stays quiet.
 *
 * Injection (`ringbench run --inject-call-us KIND=US,...`, issue 21): CC_COUNT also makes the calling
 * thread spend a given time before each counted call of a kind, as if the driver took that much longer
 * (what WSL2's dxgkrnl path might add per call). The wait is a busy wait on the monotonic clock
 * (timing.h), not a sleep: a sleep of a few microseconds takes 50 us or more and gives the CPU away,
 * which no driver call does. The costs are set once, before any ring thread starts (cc_inject_set),
 * and only read afterwards; with none set CC_COUNT costs one more load and a branch.
 */
#ifndef RINGBENCH_CUDA_CALLS_H
#define RINGBENCH_CUDA_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "call_kinds.h"

/* The kinds: X(ENUM, "name", what), generated from the one list, results/call_kinds.h (which also
 * makes the rb_row columns calls_<name>): a new kind is one line there. */
#define CC_KIND_FROM_LIST(X, e, name, doc) X(e, #name, doc)
#define CC_KINDS(X) RB_CALL_KINDS(CC_KIND_FROM_LIST, X)

typedef enum cc_kind {
#define CC_KIND_ENUM(e, name, doc) CC_##e,
    CC_KINDS(CC_KIND_ENUM)
#undef CC_KIND_ENUM
        CC_KIND_COUNT
} cc_kind;
_Static_assert((int)CC_KIND_COUNT == (int)RB_CALL_KIND_COUNT, "cc_kind is generated from call_kinds.h");

/* The calling thread's counters. Read through cc_snap; written only by CC_COUNT. */
extern _Thread_local uint64_t cc_counts[CC_KIND_COUNT];

/* Injected cost per kind in ns (0: none) and whether any is set: written by cc_inject_set only. */
extern uint64_t cc_inject_ns[CC_KIND_COUNT];
extern int cc_inject_on;
/* The injected time this thread has been asked to spend, in ns, by kind (cc_inject_wait adds to it). */
extern _Thread_local uint64_t cc_injected_ns[CC_KIND_COUNT];

/* Busy-waits cc_inject_ns[k] on the monotonic clock (returns at the first clock read at or past the
 * deadline) and adds it to cc_injected_ns[k]. */
void cc_inject_wait(int k);

/* Counts one call of kind k on this thread, after spending its injected cost (if any). k is a
 * cc_kind constant. */
#define CC_COUNT(k) ((void)(cc_inject_on ? cc_inject_wait(k) : (void)0), (void)(cc_counts[(k)]++))

typedef struct cc_snapshot {
    uint64_t n[CC_KIND_COUNT];
} cc_snapshot;

/* Copies this thread's counters into *s. */
void cc_snap(cc_snapshot *s);

/* Calls per operation between two snapshots of one thread: out[k] = (after - before) / nops. With
 * nops = 0 every out[k] is NaN (no operation, no rate). */
void cc_per_op(const cc_snapshot *before, const cc_snapshot *after, uint64_t nops, double out[CC_KIND_COUNT]);

/* Calls of kind k between two snapshots (counters only grow; a wrap is not possible in 2^64). */
uint64_t cc_diff(const cc_snapshot *before, const cc_snapshot *after, cc_kind k);

const char *cc_kind_name(cc_kind k); /* "memcpy", ...; NULL when out of range */
const char *cc_kind_doc(cc_kind k);
int cc_kind_parse(const char *name); /* the cc_kind, or -1 */

/* --- injection ------------------------------------------------------------------------------------ */

#define CC_INJECT_MAX_US 10000.0 /* 10 ms per call: beyond any driver call, below the ring's timeouts */

/* Parses KIND=US[,KIND=US...]: KIND a cc_kind name, "all" (every kind), "copies" (memcpy and
 * memcpy_async) or "queries" (event_query and stream_query); US a number of microseconds from 0 to
 * CC_INJECT_MAX_US, an optional "us" after it. Later terms override earlier ones ("all=2,memcpy=5").
 * Kinds not named are 0. Returns 0, or -1 with one line naming the bad term in err. */
int cc_inject_parse(const char *spec, double us[CC_KIND_COUNT], char *err, size_t errlen);

/* The canonical text of a set of costs: "memcpy=5,memcpy_async=5" (kinds in CC_KINDS order, 0s left
 * out, %g), "" when none. Returns buf. */
char *cc_inject_format(const double us[CC_KIND_COUNT], char *buf, size_t n);

/* Sets the process's injected costs (NULL or all 0: none). Call before any thread that counts calls
 * starts, never while one runs. */
void cc_inject_set(const double us[CC_KIND_COUNT]);

/* Checks the busy wait: the mean time (us) of n waits of `us` microseconds each, measured around the
 * wait function itself on the calling thread (what one injected call really costs). */
double cc_inject_check(double us, int n);

#endif
