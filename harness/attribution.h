/* attribution.h - how much of a latency difference the CUDA calls explain: a decision beside the
 * statistics (harness/); plots/attribution_md.c renders it.
 *
 * A row carries its calls per operation by kind (calls_* columns, harness/cuda_calls.h); a file carries
 * what one call of each kind costs on its machine (the call_* baselines). For a pair of rows (the same
 * mode in a native and a WSL2 file, or the native and the fallback mode in one file):
 *     delta     = p50(other) - p50(base)
 *     explained = sum_k c_other,k * p_other,k - c_base,k * p_base,k      (calls x cost)
 *               = by_cost  (sum_k cbar_k * (p_other,k - p_base,k): the per-call costs changed)
 *               + by_count (sum_k (c_other,k - c_base,k) * pbar_k: the number of calls changed)
 *     remainder = delta - explained   (PCIe, memory, scheduling: everything that is not a call's cost)
 * with cbar, pbar the means of the two sides. The model treats calls as serial with the operation;
 * calls made while polling overlap with waiting for the GPU, so for poll-heavy modes (ctrl=device) the
 * explained part is an upper bound and the remainder can be negative.
 *
 * Cost of a kind, from a file's call_* rows (p50, us):
 *   memcpy        mean of call_memcpy_h2d_X and call_memcpy_d2h_X, X = the mode's host memory kind
 *   memcpy_async  call_memcpy_async_query - call_event_query_done (an async copy issued, recorded and
 *                 waited for: what the ring pays per async copy, its cudaEventRecord included)
 *   event_record  0 (inside memcpy_async's cost)
 *   event_query   call_event_query_done     stream_query  call_stream_query_idle
 *   stream_sync   call_stream_sync_idle     launch        call_launch_empty
 *   other         0 (not on the per-message path)
 *
 * MODEL: attr_predict adds given per-call overheads to a measured row: what the mode would cost if
 * every call took that much longer. It is labelled MODEL wherever it is shown.
 */
#ifndef RINGBENCH_ATTRIBUTION_H
#define RINGBENCH_ATTRIBUTION_H

#include <stddef.h>

#include "cuda_calls.h"
#include "schema.h"

/* Per-call costs (us) of a file for host memory pinned (1) or pageable (0), from its rows. A kind
 * whose baseline is missing or not ok is NaN. Returns the number of kinds known (0: no call_* rows). */
int attr_costs(const rb_row *rows, size_t n, int pinned, double cost[CC_KIND_COUNT]);

/* The calls per operation of a row; returns 1 when every kind is a number, else 0. */
int attr_row_calls(const rb_row *r, double calls[CC_KIND_COUNT]);

typedef struct attr_result {
    double base_us, other_us, delta_us;
    double calls_base_us, calls_other_us; /* sum_k c_k * p_k of each side */
    double explained_us, by_cost_us, by_count_us, remainder_us;
    double by_kind_us[CC_KIND_COUNT]; /* c_other,k p_other,k - c_base,k p_base,k */
} attr_result;

/* Attributes the difference between two rows (their p50s, in us). A kind that neither row calls
 * needs no cost. Returns 0, or -1 when a p50, a count, or a needed cost is missing. */
int attr_compute(const rb_row *base, const double cost_base[CC_KIND_COUNT], const rb_row *other,
                 const double cost_other[CC_KIND_COUNT], attr_result *out);

/* Per-call overheads: "memcpy=12us,query=3us,launch=500ns" or the name of a file with one such
 * KEY=VALUE per line ('#' comments). Keys: every cc_kind name, plus "query" (event_query and
 * stream_query), "sync" (stream_sync), "async" (memcpy_async). Units us (default), ns, ms. Kinds not
 * named are 0. Returns 0, or -1 with one line in err. */
int attr_parse_overhead(const char *spec, double overhead_us[CC_KIND_COUNT], char *err, size_t errlen);

/* MODEL: row p50 + sum_k calls_k * overhead_k; NaN when the row has no p50 or no counts. The added
 * part alone goes to *added_us when not NULL. */
double attr_predict(const rb_row *r, const double overhead_us[CC_KIND_COUNT], double *added_us);

#endif
