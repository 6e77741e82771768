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
 */
#ifndef RINGBENCH_CUDA_CALLS_H
#define RINGBENCH_CUDA_CALLS_H

#include <stddef.h>
#include <stdint.h>

/* The kinds: X(ENUM, name, what). name is the suffix of the rb_row column calls_<name> (schema.h)
 * and the key of `--call-overhead`; keep the order of the rb_row columns. */
#define CC_KINDS(X) \
    X(MEMCPY,       "memcpy",       "cudaMemcpy (synchronous copy)") \
    X(MEMCPY_ASYNC, "memcpy_async", "cudaMemcpyAsync") \
    X(EVENT_RECORD, "event_record", "cudaEventRecord") \
    X(EVENT_QUERY,  "event_query",  "cudaEventQuery") \
    X(STREAM_QUERY, "stream_query", "cudaStreamQuery") \
    X(STREAM_SYNC,  "stream_sync",  "cudaStreamSynchronize") \
    X(LAUNCH,       "launch",       "kernel launch (cooperative or ordinary)") \
    X(OTHER,        "other",        "any other runtime call (memset, allocation, device selection, ...)")

typedef enum cc_kind {
#define CC_KIND_ENUM(e, name, doc) CC_##e,
    CC_KINDS(CC_KIND_ENUM)
#undef CC_KIND_ENUM
    CC_KIND_COUNT
} cc_kind;

/* The calling thread's counters. Read through cc_snap; written only by CC_COUNT. */
extern _Thread_local uint64_t cc_counts[CC_KIND_COUNT];

/* Counts one call of kind k on this thread. k is a cc_kind constant. */
#define CC_COUNT(k) ((void)(cc_counts[(k)]++))

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

#endif
