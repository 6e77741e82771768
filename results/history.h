/* history.h - a run history: the run files (the record, copied in and never rewritten) and an index
 * over them (one row per run and cell with the summary figures and the provenance), rebuilt from the
 * files whenever it is missing or damaged.
 *
 * Everything outside results/history*.c sees the history only through this header: an opaque hist
 * handle and typed queries that return C structs, never SQL or a database type. The calls are
 * backend-neutral; the one backend today is a folder with an SQLite index (history_sqlite.c), and a
 * second one implements the table of history_internal.h beside it.
 *
 * Layout of a folder history DIR (ringbench track's default: $XDG_STATE_HOME/ringbench/history,
 * bench/cmd_track.c):
 *   *.h5           the runs, as `ringbench run` wrote them
 *   index.sqlite   tables runs, cells, skipped and meta (see HIST_SQL_SCHEMA in history_sqlite.c, and
 *                  docs/tracking.md for queries with sqlite3)
 * Anything else in DIR that is not a run file is reported once per scan and skipped; a damaged or
 * foreign .h5 file is recorded in `skipped` with the reader's reason, and no other run is affected.
 *
 * The machine fingerprint of a run has two parts, both stored per run:
 *   machine      host name, backend, GPU name, PCI bus id, WSL2 flag: runs are compared only with
 *                runs of the same machine;
 *   environment  driver, CUDA runtime, kernel release, ringbench version and git commit, schema
 *                version, PCI vendor:device id: a change here between two runs of one machine is an
 *                environment change, shown next to any regression it coincides with.
 * Built only when SQLite was found (RINGBENCH_HAVE_SQLITE).
 */
#ifndef RINGBENCH_HISTORY_H
#define RINGBENCH_HISTORY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_INDEX_NAME "index.sqlite"
/* 2: cells gained mode_lo, mode_hi, slow_share: a latency cell's two modes, as its file records
 * them (schema 4's mode_fast, mode_slow, slow_share; the reader computes them for older files);
 * 3: trial_p50_min, trial_p50_max (what track judges throughput and control-block reads on);
 * 4: runs gained file_key (hist_file_key), unique: a run is its bytes. An index of an older version is
 * rebuilt from the files. */
#define HIST_INDEX_VERSION 4

typedef struct hist hist;

/* The environment fields of the fingerprint, in the order they are reported: column name in the
 * runs table and what it is, in words. */
#define HIST_ENV_FIELDS(X)                \
    X(driver, "driver")                   \
    X(cuda_runtime, "CUDA runtime")       \
    X(kernel_release, "kernel")           \
    X(suite_version, "ringbench version") \
    X(git_commit, "ringbench commit")     \
    X(schema_version, "schema")           \
    X(pci_id, "PCI id")

enum {
#define HIST_ENV_ENUM(col, words) HIST_ENV_##col,
    HIST_ENV_FIELDS(HIST_ENV_ENUM)
#undef HIST_ENV_ENUM
        HIST_ENV_COUNT
};

/* What environment field i is, in words ("driver", "CUDA runtime", ...); NULL out of range. */
const char *hist_env_word(int i);

/* --- open, add, close -------------------------------------------------------------------------- */

/* Opens (creating DIR when absent) the history, for this job alone: jobs that overlap (two nightly
 * `track`s) take turns, the second waiting for the first to close (one line on notes says it waits; see
 * docs/tracking.md). What jobs that died left in DIR (temporary files) is removed first. The index is
 * checked (SQLite integrity check and the index version); a missing one is created whole (never half
 * a schema), a damaged one is moved aside and rebuilt from the files, one that is only busy is an
 * error, never "damaged". Then the directory is scanned: run files not yet indexed are indexed, index
 * rows whose file is gone are dropped, a file with the bytes of an indexed run is skipped. What was
 * rebuilt, added or skipped is reported, one line each, on `notes` (may be NULL). Returns 0 and sets
 * *out, or -1 with a one-line message in err. */
int hist_open(const char *dir, FILE *notes, hist **out, char *err, size_t errlen);

/* Closes the history and lets the next job have it. */
void hist_close(hist *h);

/* An interrupt flag (SIGINT/SIGTERM raise it; NULL: none) that the history polls: while it is raised,
 * waiting for another job, a scan and a copy-in stop, their temporary files removed, and the call
 * returns -1 with "interrupted". The index is changed only in whole transactions either way. */
void hist_watch(volatile sig_atomic_t *stop);

/* Copies the results file at path into the history (as DIR/<its name>, or <name>-N.h5 when that
 * name holds a different file; through a temporary file, fsynced and renamed) and indexes it. A run
 * is its bytes (hist_file_key): a file whose bytes are already in the history, under any name, is
 * not copied again: *run_id is the existing run's, and *already is set to 1. A file the reader
 * refuses is not copied; a copy the index cannot take is removed again. Returns 0, or -1 with a
 * one-line message in err. */
int hist_add(hist *h, const char *path, long long *run_id, int *already, char *err, size_t errlen);

/* A run's content key: the SHA-256 of the bytes of the file at path, as 64 lowercase hex characters
 * and a terminator in key. A run is identified by it in every backend: the same bytes under two
 * names, or added by two jobs at once, are one run. Returns 0, or -1 with a one-line message in err
 * ("PATH: strerror" with the errno of the open or read that failed). */
int hist_file_key(const char *path, char key[65], char *err, size_t errlen);

/* The folder of the history: its run files, history.md and plots/. */
const char *hist_dir(const hist *h);

/* Number of runs in the index (-1 on an index error). */
long long hist_nruns(hist *h);

/* Why the last query below failed: one line, never NULL. */
const char *hist_error(const hist *h);

/* --- runs -------------------------------------------------------------------------------------- */

/* A run as the index holds it. The texts are display copies: a text longer than its field ends in
 * "..." so that a cut is seen; runs are selected by id, never by these texts. */
typedef struct hist_run {
    long long id;
    char file[256], start[32], machine[512];
    int complete, schema;
    char env[HIST_ENV_COUNT][128]; /* HIST_ENV_FIELDS, in that order */
} hist_run;

/* Every query returns 0, or -1 (hist_error says why; *out is then NULL). Arrays are malloc'd into
 * *out (NULL when empty) with their length in *n; the caller frees them. */

/* Run run_id into *out. Returns 0, or -1 when it is not in the index or on an index error. */
int hist_run_get(hist *h, long long run_id, hist_run *out);

/* Every run of run_id's machine (by the run's id, so a fingerprint of any length matches), complete
 * or not, ordered by start time, then id. */
int hist_machine_runs(hist *h, long long run_id, hist_run **out, size_t *n);

/* How many runs of other machines than run_id's the history holds, and of how many machines. */
int hist_other_machines(hist *h, long long run_id, long long *runs, long long *machines);

/* The fingerprints of the machines with at least one complete run, in text order, each whole
 * (malloc'd strings; free them with hist_strings_free). */
int hist_machines(hist *h, char ***out, size_t *n);
void hist_strings_free(char **s, size_t n);

/* The complete runs of the machine of fingerprint machine, ordered by start time, then id. */
int hist_complete_runs(hist *h, const char *machine, hist_run **out, size_t *n);

/* --- cells ------------------------------------------------------------------------------------- */

/* A measured (status ok) cell of a run: its stable key (export_cell_key), unit, family, mode
 * ("host/xfer/launch/ctrl", "" where a field is missing), control block, size and window. */
typedef struct hist_cell {
    char cell[256], unit[16], family[32], mode[64], ctrl[16];
    uint64_t size, window;
} hist_cell;

/* The ok cells of run run_id, ordered by key. */
int hist_run_cells(hist *h, long long run_id, hist_cell **out, size_t *n);

/* One run's figures of one cell; NAN where the index holds none. */
typedef struct hist_figures {
    long long run_id;
    double p50, ci_lo, ci_hi;
    double mode_lo, mode_hi, slow_share; /* a latency cell with two modes: its fast and slow mode and the
                                            share of samples in the slow one; NAN when it has one mode */
    double trial_min, trial_max;         /* the lowest and highest trial median */
    int trials_ci;                       /* 1: the interval is trial-level (ci_method "trials") */
    long long trials;
} hist_figures;

/* The figures of cell (a key) in every run that measured it, in no particular order. */
int hist_cell_series(hist *h, const char *cell, hist_figures **out, size_t *n);

/* Which cells of every run a pool or a pairing takes: family, size and window (-1: any) and the
 * control block ctrl (NULL: any), never not_ctrl (NULL: none left out); mode (NULL: any). */
typedef struct hist_select {
    const char *family;
    long long size, window;
    const char *ctrl, *not_ctrl, *mode;
} hist_select;

/* The ok cells of every run that s selects (family, size, window, ctrl and not_ctrl; mode is
 * ignored), ordered by run: run_id, p50, trial_min and trial_max set, the rest NAN. */
int hist_pool_cells(hist *h, const hist_select *s, hist_figures **out, size_t *n);

/* Two cells of one run: the lowest trial medians of a cell that a pairing selects and of its partner. */
typedef struct hist_pair {
    long long run_id;
    double a, b; /* NAN where the index holds none */
} hist_pair;

/* For every ok cell of every run that s selects (family, ctrl, not_ctrl and mode; size and window
 * are ignored), paired with the ok cell of the same run whose key is its own with partner_family in
 * place of its family (same mode and size), ordered by run. */
int hist_paired_cells(hist *h, const hist_select *s, const char *partner_family, hist_pair **out, size_t *n);

/* One ok cell of one run as hist_each_positive visits it; texts valid during the call only (family
 * and unit may be NULL where the index holds none). */
typedef struct hist_value {
    const char *cell, *family, *unit;
    long long run_id;
    uint64_t size;
    double p50;
} hist_value;

/* Visits every ok cell of every run whose p50 is positive, ordered by key (the rows of one cell
 * together). fn returns 0 to go on, or -1 to stop: hist_each_positive then returns -1. */
int hist_each_positive(hist *h, int (*fn)(const hist_value *v, void *arg), void *arg);

/* The ok cell of run run_id of family whose four mode fields are mode (host, xfer, launch, ctrl;
 * mode[0] NULL: a baseline, whose fields are all "not applicable"), at size (-1: any), its widest
 * window first: its p50 and interval into *out (NAN where none). Returns 1 when there is one, 0 when
 * there is none, -1 on an index error. */
int hist_cell_estimate(hist *h, long long run_id, const char *family, const char *const mode[4], long long size,
                       hist_figures *out);

#endif
