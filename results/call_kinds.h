/* call_kinds.h - the one list of the CUDA runtime call kinds ringbench counts.
 *
 * Everything else is generated from RB_CALL_KINDS: the cc_kind enum, names and documentation of the
 * counting layer (harness/cuda_calls.h), the rb_row fields calls_<name> and their /cells columns
 * (schema.h: RB_ROW_COLUMNS, hence the writer, the reader and every export), the readers' and the
 * sweep's copies between a row and an array (rb_row_calls_get/set, schema.c) and the attribution model
 * (harness/attribution.c). Counting a new kind is one line here (in the order of the columns; a new
 * column is a schema change, so bump RB_SCHEMA_VERSION), plus the CC_COUNT at the call site that makes
 * it. It lives in results/ because the results file is the lowest layer that needs it.
 *
 * X(A, ENUM, name, what): A is passed through untouched (so one list can feed a nested X-macro), ENUM
 * the suffix of the CC_ constant, name an identifier: the column suffix, the key of --call-overhead and
 * --inject-call-us, and the name cc_kind_name returns.
 */
#ifndef RINGBENCH_CALL_KINDS_H
#define RINGBENCH_CALL_KINDS_H

#define RB_CALL_KINDS(X, A)                                         \
    X(A, MEMCPY, memcpy, "cudaMemcpy (synchronous copy)")           \
    X(A, MEMCPY_ASYNC, memcpy_async, "cudaMemcpyAsync")             \
    X(A, EVENT_RECORD, event_record, "cudaEventRecord")             \
    X(A, EVENT_QUERY, event_query, "cudaEventQuery")                \
    X(A, STREAM_QUERY, stream_query, "cudaStreamQuery")             \
    X(A, STREAM_SYNC, stream_sync, "cudaStreamSynchronize")         \
    X(A, LAUNCH, launch, "kernel launch (cooperative or ordinary)") \
    X(A, OTHER, other, "any other runtime call (memset, allocation, device selection, ...)")

#define RB_CALL_KIND_ONE(A, e, name, doc) +1
enum { RB_CALL_KIND_COUNT = 0 RB_CALL_KINDS(RB_CALL_KIND_ONE, ~) };
#undef RB_CALL_KIND_ONE

#endif
