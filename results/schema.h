/* schema.h - the one definition of the ringbench results file: group, dataset and attribute names,
 * the metric families with their units, and the row of the cells table.
 *
 * The runner, the writer, the reader, the report and docs/schema.md all use these names; change
 * one here and bump RB_SCHEMA_VERSION.
 */
#ifndef RINGBENCH_SCHEMA_H
#define RINGBENCH_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "call_kinds.h"

#define RB_SCHEMA_VERSION 4

/* Groups, datasets and file-level attributes. */
#define RB_H5_CELLS "/cells"        /* compound table, one rb_row per row */
#define RB_H5_SAMPLES "/samples"    /* group: one float64 dataset per row with samples */
#define RB_H5_SAMPLE_FMT "row_%06d" /* schema 1 only: a row's samples inside RB_H5_SAMPLES */
#define RB_H5_TRIALS "/trials"      /* schema 2: compound table, one rb_trial per trial */
#define RB_H5_TRIAL_SAMPLES                                                                             \
    "/trial_samples"                            /* schema 2: one float64 dataset, every trial's samples \
                                                 * appended in turn (a trial's are [sample_offset,      \
                                                 * sample_offset + n)); one dataset rather than one per \
                                                 * trial, whose ~3 KiB of HDF5 metadata each tripled a  \
                                                 * default run's file */
#define RB_H5_PROVENANCE "/provenance"          /* group of string/int/float attributes */
#define RB_H5_CAPABILITIES "/capabilities"      /* group of attributes: name -> value, name_error -> text */
#define RB_H5_ATTR_SCHEMA "schema_version"      /* int, on the root */
#define RB_H5_ATTR_COMPLETE "complete"          /* int 0/1, on the root: 0 while running or interrupted */
#define RB_H5_ATTR_INTERRUPTED "interrupted_by" /* string on the root: "" or e.g. "SIGINT" */
#define RB_H5_ATTR_TOOL "tool"                  /* string on the root: "ringbench" */

/* Status of a row. */
#define RB_STATUS_OK "ok"
#define RB_STATUS_UNSUPPORTED "unsupported" /* this platform cannot run the mode; reason says why */
#define RB_STATUS_INVALID "invalid"         /* the combination makes no sense (mapped + malloc) */
#define RB_STATUS_FAILED "failed"           /* ran, but went wrong (lost/duplicated/corrupted, timeout) */
/* Never written: the reader gives it to a row (or trial) of a file that it found damaged or
 * inconsistent (a checksum that does not match, samples that cannot be read, a unit that is not its
 * family's, ...), with the reason in `reason`, so that every output shows the cell as damaged and no
 * verdict uses it. */
#define RB_STATUS_DAMAGED "damaged"

/* The text used for a mode field that does not apply (baselines). */
#define RB_NOT_APPLICABLE "-"

/* The values the text columns of a row or trial may hold, besides RB_NOT_APPLICABLE where a column
 * does not apply: anything else (a backend "CPU", a family "latency " with a trailing space) is not
 * something a writer writes, and the reader marks the row damaged rather than taking it for a new
 * cell. The mode columns hold harness/modes.c's names (tests/test_plan.c keeps the lists equal). */
#define RB_BACKEND_VALUES(X) X("cuda") X("cpu")
#define RB_HOST_MEM_VALUES(X) X("pinned") X("malloc")
#define RB_XFER_VALUES(X) X("async") X("sync") X("zerocopy")
#define RB_LAUNCH_VALUES(X) X("coop") X("noncoop")
#define RB_CTRL_VALUES(X) X("managed") X("device") X("mapped")
#define RB_STATUS_VALUES(X) X(RB_STATUS_OK) X(RB_STATUS_UNSUPPORTED) X(RB_STATUS_INVALID) X(RB_STATUS_FAILED)

/* Metric families: X(ENUM, name, unit, what it is). Units: "us" microseconds, "GB/s" 1e9 B/s. */
#define RB_FAMILIES(X)                                                                                                    \
    X(LATENCY, "latency", "us", "round trip of one message in flight: send, kernel transform, verified reply")            \
    X(THROUGHPUT, "throughput", "GB/s",                                                                                   \
      "payload bytes per second with a window of messages in flight (one repetition per sample)")                         \
    X(CB_READ, "cb_read", "us", "host reads the kernel-written half of the control block")                                \
    X(CB_WRITE, "cb_write", "us", "host writes one host-written control-block flag")                                      \
    X(CB_HANDSHAKE, "cb_handshake", "us",                                                                                 \
      "host sets a flag, the kernel acknowledges it, the host sees the acknowledgement")                                  \
    X(LC_LAUNCH, "lc_launch", "us", "launch of the persistent kernel until its first heartbeat")                          \
    X(LC_ACTIVATE, "lc_activate", "us", "host sets active until the kernel reports active")                               \
    X(LC_DEACTIVATE, "lc_deactivate", "us", "host clears active until the kernel reports idle")                           \
    X(LC_TERMINATE, "lc_terminate", "us", "host sets terminate until the kernel has exited")                              \
    X(BASE_FLOOR, "base_floor", "us", "baseline: persistent one-word ping-pong through mapped pinned memory")             \
    X(BASE_LAUNCH, "base_launch", "us",                                                                                   \
      "baseline: copy in, one kernel launch, copy out, synchronize, per message (pinned)")                                \
    X(BASE_GRAPH, "base_graph", "us", "baseline: the same three steps as one CUDA graph launch per message")              \
    X(MEMCPY_H2D_PINNED, "memcpy_h2d_pinned", "GB/s", "baseline: cudaMemcpy host to device from pinned memory")           \
    X(MEMCPY_D2H_PINNED, "memcpy_d2h_pinned", "GB/s", "baseline: cudaMemcpy device to host into pinned memory")           \
    X(MEMCPY_H2D_PAGEABLE, "memcpy_h2d_pageable", "GB/s", "baseline: cudaMemcpy host to device from malloc memory")       \
    X(MEMCPY_D2H_PAGEABLE, "memcpy_d2h_pageable", "GB/s", "baseline: cudaMemcpy device to host into malloc memory")       \
    X(HARNESS_OVERHEAD, "harness_overhead", "us",                                                                         \
      "what the sampler records for an empty operation: two clock reads and its bookkeeping")                             \
    X(CALL_MEMCPY_H2D_PINNED, "call_memcpy_h2d_pinned", "us",                                                             \
      "per-call cost: cudaMemcpy of 64 B host to device from pinned memory (synchronous)")                                \
    X(CALL_MEMCPY_D2H_PINNED, "call_memcpy_d2h_pinned", "us",                                                             \
      "per-call cost: cudaMemcpy of 64 B device to host into pinned memory (synchronous)")                                \
    X(CALL_MEMCPY_H2D_PAGEABLE, "call_memcpy_h2d_pageable", "us",                                                         \
      "per-call cost: cudaMemcpy of 64 B host to device from malloc memory (synchronous)")                                \
    X(CALL_MEMCPY_D2H_PAGEABLE, "call_memcpy_d2h_pageable", "us",                                                         \
      "per-call cost: cudaMemcpy of 64 B device to host into malloc memory (synchronous)")                                \
    X(CALL_MEMCPY_ASYNC_QUERY, "call_memcpy_async_query", "us",                                                           \
      "per-call cost: cudaMemcpyAsync of 64 B (pinned, host to device) + cudaEventRecord + cudaEventQuery until done")    \
    X(CALL_STREAM_QUERY_IDLE, "call_stream_query_idle", "us", "per-call cost: cudaStreamQuery on an idle stream")         \
    X(CALL_STREAM_SYNC_IDLE, "call_stream_sync_idle", "us", "per-call cost: cudaStreamSynchronize on an idle stream")     \
    X(CALL_EVENT_QUERY_DONE, "call_event_query_done", "us", "per-call cost: cudaEventQuery on a completed event")         \
    X(CALL_LAUNCH_EMPTY, "call_launch_empty", "us",                                                                       \
      "per-call cost: launch of an empty kernel (1 x 1), not waited for")                                                 \
    X(CALL_LAUNCH_SYNC, "call_launch_sync", "us", "per-call cost: launch of an empty kernel + cudaStreamSynchronize")     \
    X(THROUGHPUT_PROCS, "throughput_procs", "GB/s",                                                                       \
      "the smallest size's full window, one trial per fresh process (run --window-procs): its best of 3 trials")          \
    X(HOST_REF, "host_ref", "us",                                                                                         \
      "the host's speed in a control trial: a native read's loads and write's store on ordinary memory, timed like them") \
    X(MEMCPY_H2D_PINNED_PROCS, "memcpy_h2d_pinned_procs", "GB/s",                                                         \
      "memcpy_h2d_pinned at the leg's size in each process of run --window-procs, the same seconds as its full window")   \
    X(MEMCPY_H2D_PAGEABLE_PROCS, "memcpy_h2d_pageable_procs", "GB/s",                                                     \
      "memcpy_h2d_pageable at the leg's size in each process of run --window-procs, the same seconds as its full window")

typedef enum rb_family {
#define RB_FAMILY_ENUM(e, name, unit, doc) RB_FAM_##e,
    RB_FAMILIES(RB_FAMILY_ENUM)
#undef RB_FAMILY_ENUM
        RB_FAM_COUNT
} rb_family;

/* Copies src (NULL: "") into a fixed-size field of n bytes (a row's or trial's text), cut to fit and
 * NUL-terminated. */
void rb_set_field(char *dst, size_t n, const char *src);

const char *rb_family_name(rb_family f); /* "latency", ...; NULL when out of range */
const char *rb_family_unit(rb_family f);
const char *rb_family_doc(rb_family f);
int rb_family_parse(const char *name); /* the enum value, or -1 */
/* 1 for a unit of a rate (GB/s, the throughput families': bigger is better), 0 for a time. */
int rb_unit_is_rate(const char *unit);
/* "8 B", "4 KiB", "4 MiB" into buf; only exact multiples move up a unit. Returns buf. */
char *rb_size_label(uint64_t bytes, char *buf, size_t n);

#define RB_NAME_LEN 32
#define RB_REASON_LEN 192

/* One row of the cells table. Strings are NUL-terminated fixed-size fields (HDF5 fixed strings).
 * Statistics are in the row's unit; NaN where a value does not apply or could not be measured. */
typedef struct rb_row {
    int32_t row_id;              /* index in the table; schema 1: also names the samples dataset */
    int32_t cell_id;             /* schema 2: the cell's id in the run's plan; its trials carry it */
    char backend[RB_NAME_LEN];   /* "cuda" or "cpu" (the CPU reference backend) */
    char family[RB_NAME_LEN];    /* rb_family_name() */
    char host_mem[RB_NAME_LEN];  /* "pinned" | "malloc" | "-" */
    char xfer[RB_NAME_LEN];      /* "async" | "sync" | "-" */
    char launch[RB_NAME_LEN];    /* "coop" | "noncoop" | "-" */
    char ctrl[RB_NAME_LEN];      /* "managed" | "device" | "mapped" | "-" */
    uint64_t size_bytes;         /* payload bytes per message; 0 where size does not apply */
    uint64_t window;             /* messages kept in flight: throughput rows the window, latency 1, else 0 */
    char status[RB_NAME_LEN];    /* RB_STATUS_* */
    char reason[RB_REASON_LEN];  /* why unsupported/invalid/failed; "" when ok */
    char unit[RB_NAME_LEN];      /* rb_family_unit() */
    char stop_rule[RB_NAME_LEN]; /* stats_stop_name(), or "fixed" for a fixed repetition count */
    uint64_t n;                  /* samples kept */
    double min, p50, p90, p99, p999, max, mean, stddev; /* p50: see RB_CI_*; others over all samples */
    double ci_lo, ci_hi;                                /* 95% interval of p50; how it was made: ci_method */
    char ci_method[RB_NAME_LEN];         /* RB_CI_TRIALS (trial level) or RB_CI_SAMPLES (one trial / schema 1) */
    uint64_t trials;                     /* independent trials (fresh launch, fresh buffers) behind this row */
    double trial_p50_min, trial_p50_max; /* smallest and largest per-trial median */
    double trial_cv;                     /* between-trial spread: stddev / mean of the per-trial medians */
    double msgs_per_s;                   /* throughput rows: median messages per second; else NaN */
    double ratio_floor;                  /* latency-like rows: p50 / base_floor p50 of the same run; else NaN */
    double ratio_memcpy;                 /* throughput rows: p50 / the matching memcpy bandwidth; else NaN */
    uint64_t messages;                   /* messages exchanged and verified in this row */
    uint64_t lost, duplicated, corrupted, kernel_errors;
    double elapsed_s; /* wall time spent on the row's trials */
    /* CUDA runtime calls per operation (per message, or per control-block operation), by kind, as
     * counted by the CUDA backend's counting layer; NaN where not counted (CPU backend, baselines).
     * One double calls_<name> per kind of call_kinds.h, in its order. */
#define RB_ROW_CALLS_FIELD(A, e, name, doc) double calls_##name;
    RB_CALL_KINDS(RB_ROW_CALLS_FIELD, ~)
#undef RB_ROW_CALLS_FIELD
    /* Schema 4: a time cell whose samples (all its trials') have two modes, by results/bimodal.h's
     * rule, so that report, compare and track judge it on its modes and not on a median that lands
     * on either. NaN (and bimodal 0) when not bimodal, for rate families and rows without samples. */
    double mode_fast, mode_slow; /* medians of the fast and the slow mode, in the row's unit */
    double slow_share;           /* share of the samples in the slow mode, 0..1 */
    int32_t bimodal;             /* 1: two modes (the three columns above are set); 0: not */
    /* Schema 3: end-to-end checksums (rb_check_samples, rb_row_check), so damage anywhere between
     * the writer and the reader, HDF5's own chunk index included, is detected on read. */
    uint64_t samples_check; /* of the row's own /samples/row_N dataset (none: of no samples) */
    uint64_t check;         /* of every other column of this row */
} rb_row;

/* How a row's p50 and interval were made.
 *   RB_CI_TRIALS   p50 = median of the per-trial medians; [ci_lo, ci_hi] = a hierarchical bootstrap
 *                  over trials (trials resampled, then each trial's median redrawn from its own
 *                  samples), calibrated for the small number of trials (see stats.h): the interval
 *                  covers what another run on the same machine would see.
 *   RB_CI_SAMPLES  one trial (or a schema-1 file): p50 = the median of the samples and the interval
 *                  is the distribution-free order-statistic CI of that median, which says nothing
 *                  about run-to-run variation. */
#define RB_CI_TRIALS "trials"
#define RB_CI_SAMPLES "samples"

/* The columns of the cells table, one per rb_row field and in the struct's order: X(KIND, field, unit).
 * KIND is STR (a NUL-terminated char array), I32, U64 or F64. unit is what the writer stores in the
 * /cells attribute "unit_<field>"; text columns have none (""). The writer builds the HDF5 compound
 * type from this list and the reader asks the file for each of these names, so a new rb_row field
 * needs exactly one line here (test_h5_roundtrip checks that the list covers the whole struct). */
#define RB_UNIT_OF_ROW "row unit (see column 'unit')"
/* The calls_<name> columns, one per kind of call_kinds.h (X is RB_ROW_COLUMNS's X). */
#define RB_ROW_CALLS_COLUMN(X, e, name, doc) X(F64, calls_##name, "calls/op")
#define RB_ROW_COLUMNS(X)                 \
    X(I32, row_id, "index")               \
    X(I32, cell_id, "index")              \
    X(STR, backend, "")                   \
    X(STR, family, "")                    \
    X(STR, host_mem, "")                  \
    X(STR, xfer, "")                      \
    X(STR, launch, "")                    \
    X(STR, ctrl, "")                      \
    X(U64, size_bytes, "bytes")           \
    X(U64, window, "messages")            \
    X(STR, status, "")                    \
    X(STR, reason, "")                    \
    X(STR, unit, "")                      \
    X(STR, stop_rule, "")                 \
    X(U64, n, "count")                    \
    X(F64, min, RB_UNIT_OF_ROW)           \
    X(F64, p50, RB_UNIT_OF_ROW)           \
    X(F64, p90, RB_UNIT_OF_ROW)           \
    X(F64, p99, RB_UNIT_OF_ROW)           \
    X(F64, p999, RB_UNIT_OF_ROW)          \
    X(F64, max, RB_UNIT_OF_ROW)           \
    X(F64, mean, RB_UNIT_OF_ROW)          \
    X(F64, stddev, RB_UNIT_OF_ROW)        \
    X(F64, ci_lo, RB_UNIT_OF_ROW)         \
    X(F64, ci_hi, RB_UNIT_OF_ROW)         \
    X(STR, ci_method, "")                 \
    X(U64, trials, "count")               \
    X(F64, trial_p50_min, RB_UNIT_OF_ROW) \
    X(F64, trial_p50_max, RB_UNIT_OF_ROW) \
    X(F64, trial_cv, "ratio")             \
    X(F64, msgs_per_s, "1/s")             \
    X(F64, ratio_floor, "ratio")          \
    X(F64, ratio_memcpy, "ratio")         \
    X(U64, messages, "count")             \
    X(U64, lost, "count")                 \
    X(U64, duplicated, "count")           \
    X(U64, corrupted, "count")            \
    X(U64, kernel_errors, "count")        \
    X(F64, elapsed_s, "s")                \
    RB_CALL_KINDS(RB_ROW_CALLS_COLUMN, X) \
    X(F64, mode_fast, RB_UNIT_OF_ROW)     \
    X(F64, mode_slow, RB_UNIT_OF_ROW)     \
    X(F64, slow_share, "ratio")           \
    X(I32, bimodal, "0/1")                \
    X(U64, samples_check, "FNV-1a 64")    \
    X(U64, check, "FNV-1a 64")

/* Schema 2: one row of /trials. A trial is one independent measurement of one cell: a fresh ring
 * (fresh buffers, a fresh kernel launch) sampled once, then closed. Trials are written (and flushed)
 * as they finish, before the cell's /cells row exists, so each carries its cell's identity as well
 * as cell_id: an interrupted or crashed run keeps every completed trial. The conditions under which
 * it ran (CPU of the polling thread, GPU clocks and throttle reasons) are recorded per trial. */
typedef struct rb_trial {
    int32_t trial_id; /* index in /trials */
    int32_t cell_id;  /* the cell (same value as its /cells row's cell_id) */
    char family[RB_NAME_LEN];
    char host_mem[RB_NAME_LEN], xfer[RB_NAME_LEN], launch[RB_NAME_LEN], ctrl[RB_NAME_LEN];
    uint64_t size_bytes;
    uint64_t window;
    int32_t trial;            /* 0..trials-1 within the cell: its round */
    int32_t seq;              /* position in the run's measuring order (0, 1, ...) */
    char status[RB_NAME_LEN]; /* RB_STATUS_OK or RB_STATUS_FAILED */
    char reason[RB_REASON_LEN];
    uint64_t n; /* its samples: /trial_samples[sample_offset .. sample_offset + n) */
    uint64_t sample_offset;
    double p50, ci_lo, ci_hi; /* this trial's median and its order-statistic 95% CI */
    double mean;
    double msgs_per_s; /* throughput trials: messages per second; else NaN */
    uint64_t messages, lost, duplicated, corrupted, kernel_errors;
    double t_start_s; /* start, seconds since the run started */
    double elapsed_s;
    int32_t cpu_start, cpu_end;            /* CPU of the polling (main) thread at start and end; -1 unknown */
    int64_t ctx_switches;                  /* involuntary context switches of the polling thread meanwhile */
    double sm_mhz_start, sm_mhz_end;       /* SM clock (NVML) at start and end; NaN when unknown */
    double mem_mhz_start, mem_mhz_end;     /* memory clock */
    uint64_t throttle_start, throttle_end; /* NVML clock-event (throttle) reason bits; 0 none */
    uint64_t samples_check;                /* schema 3: of its n samples in /trial_samples (rb_check_samples) */
    uint64_t check;                        /* schema 3: of every other column of this trial (rb_trial_check) */
    /* Schema 4: what else used the machine meanwhile (harness/hostload.h), over the whole trial (all its
     * parts), and where this part's own time went. NaN (times) or -1 (counts) where unknown, and in
     * files of schema 3 or older. */
    double part_s;             /* this part's own measuring time (warm-up excluded) */
    double payload_s;          /* of part_s: host time in payload passes of messages of at least
                                * 64 KiB (generate, sum, check; RING_TIMED_MIN_BYTES); NaN below */
    double steal_ms;           /* CPU time the hypervisor took from this guest, all CPUs */
    double cpu_steal_ms;       /* of it, from the polling thread's CPU */
    double max_steal_ms;       /* of it, from the one CPU that lost most */
    double irq_ms;             /* interrupt and softirq time, all CPUs */
    double others_ms;          /* CPU time of every other process, all CPUs (10 ms ticks) */
    int64_t minflt, majflt;    /* this process's page faults */
    int64_t proc_ctx_switches; /* this process's involuntary context switches, every thread */
} rb_trial;

#define RB_TRIAL_COLUMNS(X) RB_TRIAL_COLUMNS_3(X) RB_TRIAL_COLUMNS_4(X)
#define RB_TRIAL_COLUMNS_3(X)          \
    X(I32, trial_id, "index")          \
    X(I32, cell_id, "index")           \
    X(STR, family, "")                 \
    X(STR, host_mem, "")               \
    X(STR, xfer, "")                   \
    X(STR, launch, "")                 \
    X(STR, ctrl, "")                   \
    X(U64, size_bytes, "bytes")        \
    X(U64, window, "messages")         \
    X(I32, trial, "index")             \
    X(I32, seq, "index")               \
    X(STR, status, "")                 \
    X(STR, reason, "")                 \
    X(U64, n, "count")                 \
    X(U64, sample_offset, "index")     \
    X(F64, p50, RB_UNIT_OF_ROW)        \
    X(F64, ci_lo, RB_UNIT_OF_ROW)      \
    X(F64, ci_hi, RB_UNIT_OF_ROW)      \
    X(F64, mean, RB_UNIT_OF_ROW)       \
    X(F64, msgs_per_s, "1/s")          \
    X(U64, messages, "count")          \
    X(U64, lost, "count")              \
    X(U64, duplicated, "count")        \
    X(U64, corrupted, "count")         \
    X(U64, kernel_errors, "count")     \
    X(F64, t_start_s, "s")             \
    X(F64, elapsed_s, "s")             \
    X(I32, cpu_start, "index")         \
    X(I32, cpu_end, "index")           \
    X(I64, ctx_switches, "count")      \
    X(F64, sm_mhz_start, "MHz")        \
    X(F64, sm_mhz_end, "MHz")          \
    X(F64, mem_mhz_start, "MHz")       \
    X(F64, mem_mhz_end, "MHz")         \
    X(U64, throttle_start, "bitmask")  \
    X(U64, throttle_end, "bitmask")    \
    X(U64, samples_check, "FNV-1a 64") \
    X(U64, check, "FNV-1a 64")
/* The trial columns schema 4 added (after `check`, so a schema-3 trial's checksum is over the list
 * above alone: rb_trial_check_schema). */
#define RB_TRIAL_COLUMNS_4(X)  \
    X(F64, part_s, "s")        \
    X(F64, payload_s, "s")     \
    X(F64, steal_ms, "ms")     \
    X(F64, cpu_steal_ms, "ms") \
    X(F64, max_steal_ms, "ms") \
    X(F64, irq_ms, "ms")       \
    X(F64, others_ms, "ms")    \
    X(I64, minflt, "count")    \
    X(I64, majflt, "count")    \
    X(I64, proc_ctx_switches, "count")

/* NULL when every text column of the row that names what was measured (backend, family, the four mode
 * columns, status)
 * holds a value of the lists above, else "COLUMN 'VALUE' is not a value ringbench writes" in buf
 * (n bytes; the value with its non-printable bytes as '?'). rb_trial_unknown_text does the same for a
 * trial (family, mode columns, status). */
const char *rb_row_unknown_text(const rb_row *row, char *buf, size_t n);
const char *rb_trial_unknown_text(const rb_trial *t, char *buf, size_t n);

/* Schema 3 checksums: 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
 *   rb_check_samples  over the samples' float64 values as 8 little-endian bytes each, in order
 *   rb_row_check      over every column of the row in RB_ROW_COLUMNS order except `check`: an integer
 *                     or float64 as its 4 or 8 little-endian bytes, a string as its bytes up to the
 *                     first NUL (at most the field's size) followed by one 0 byte
 *   rb_trial_check    the same over RB_TRIAL_COLUMNS; rb_trial_check_schema over the columns the
 *                     given schema had (schema 3: RB_TRIAL_COLUMNS_3 alone)
 * Not cryptographic: they catch damage, not a forger who recomputes them (the reader's other checks
 * of units, signs and identities are for that). */
uint64_t rb_check_samples(const double *samples, size_t n);
/* The same over samples that come in pieces: h is rb_check_samples(NULL, 0) before the first piece, then
 * what the call before returned. */
uint64_t rb_check_samples_more(uint64_t h, const double *samples, size_t n);
uint64_t rb_row_check(const rb_row *row);
/* The row checksum as a file of that schema made it: without the columns added after it (a schema-3
 * row's check covers none of schema 4's). rb_row_check(row) is rb_row_check_schema(row,
 * RB_SCHEMA_VERSION). */
uint64_t rb_row_check_schema(const rb_row *row, int schema);
/* 1 when name is a column of /cells that schema 4 added (mode_fast, mode_slow, slow_share, bimodal). */
int rb_row_column_new_in_schema4(const char *name);
uint64_t rb_trial_check(const rb_trial *trial);

/* Every RB_TRIAL_COLUMNS_4 column of a trial as unknown: NaN for a time, -1 for a count (a trial read
 * from a file before schema 4). */
void rb_trial_columns4_unknown(rb_trial *t);

/* A trial's conditions as unknown: its CPUs and context switches -1, its clocks NaN, and its
 * RB_TRIAL_COLUMNS_4 columns as rb_trial_columns4_unknown. For a trial whose conditions were not taken
 * (a schema-1 row presented as a trial, a child process of --window-procs that gave none). */
void rb_trial_conditions_unknown(rb_trial *t);
uint64_t rb_trial_check_schema(const rb_trial *trial, int schema);

/* Counts on the root written when the file is closed (schema 3): a table or the samples dataset
 * that holds fewer or more than these was cut or grown after the run. */
#define RB_H5_ATTR_NROWS "cells_rows"
#define RB_H5_ATTR_NTRIALS "trials_rows"
#define RB_H5_ATTR_NSAMPLES "trial_samples_count"

/* Attributes on /cells written from the tables above, so the file documents itself. */
#define RB_H5_ATTR_UNIT_PREFIX "unit_" /* "unit_<column>" for every numeric column */
#define RB_H5_ATTR_FAMILIES "families" /* "name: unit: doc" lines, one per metric family */
#define RB_H5_ATTR_SAMPLE_UNIT "unit"  /* on each samples dataset: the row's unit */

/* A row's calls_<name> columns as an array in call_kinds.h order (get), from one (set), or all NaN:
 * "not counted" (clear). */
void rb_row_calls_get(const rb_row *r, double out[RB_CALL_KIND_COUNT]);
void rb_row_calls_set(rb_row *r, const double in[RB_CALL_KIND_COUNT]);
void rb_row_calls_clear(rb_row *r);
/* 1 when name is a calls_<name> column of call_kinds.h. */
int rb_row_calls_column(const char *name);

#endif
