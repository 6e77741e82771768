/* history.h - a run history: the run files (the record, copied in and never rewritten) and an index
 * over them (one row per run and cell with the summary figures and the provenance), rebuilt from the
 * files whenever it is missing or damaged.
 *
 * Everything outside results/history*.c sees the history only through this header: an opaque hist
 * handle and typed queries that return C structs, never SQL or a database type. The calls are
 * backend-neutral, with two backends behind the table of history_internal.h: a folder with an SQLite
 * index (history_sqlite.c), and a database on a PostgreSQL server that many machines share
 * (history_pg.c, when libpq was found: RINGBENCH_HAVE_LIBPQ), opened by a postgresql:// or
 * postgres:// URI. There the database is the record of what judging needs (runs, machines, cells,
 * headline figures, judgements), and each run file is kept in a store folder, its path and content
 * key recorded (docs/tracking.md "A shared history").
 *
 * Layout of a folder history DIR (ringbench track's default: $XDG_STATE_HOME/ringbench/history,
 * bench/cmd_track.c):
 *   *.h5           the runs, as `ringbench run` wrote them
 *   index.sqlite   tables runs, cells, headlines, judgements, skipped and meta (see HIST_SQL_SCHEMA
 *                  in history_sqlite.c, and docs/tracking.md for queries with sqlite3)
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
 * 4: runs gained file_key (hist_file_key), unique: a run is its bytes;
 * 5: headlines (each run's headline figures, for the fleet page) and judgements (each night's verdict,
 * for track --list). An index of an older version is rebuilt from the files; the judgements then come
 * back as `track --list` judges the runs that have none. */
#define HIST_INDEX_VERSION 5

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

/* The headline figures of one run as a history stores them beside its cells (the list and the
 * estimator are harness/headline.h's; a history only keeps what its summariser computed). */
typedef struct hist_headline {
    char key[48];                     /* headline_defs[].key: "round_trip_8B", "cb_read", ... */
    int rate;                         /* 1: values are rates (larger is better); the ratio is on time */
    double value[2], lo[2], hi[2];    /* side 0 the native reference, side 1 the WSL2 fallback; NAN: none */
    double ratio, ratio_lo, ratio_hi; /* fallback / native on time with its 95 % interval; NAN: none */
    uint64_t size, window;
} hist_headline;
#define HIST_MAX_HEADLINES 16

/* Computes the headline figures of the run file at path into out[0 .. *n) (at most max). Returns 0,
 * or -1 when the file has none to give (the run is then stored without them). */
typedef int (*hist_summary_fn)(const char *path, hist_headline *out, size_t max, size_t *n, void *ctx);

/* How a history is opened (hist_open_with); zero for the defaults. */
typedef struct hist_open_options {
    FILE *notes;               /* where scans and copies report, one line each (NULL: nowhere) */
    const char *store;         /* a database history: the folder run files are copied into, a shared
                                  one for a fleet (NULL: HIST_LOCAL_STORE under XDG_STATE_HOME or HOME);
                                  a folder history keeps its runs in its folder and refuses one */
    hist_summary_fn summarise; /* the headline figures of each run file indexed (NULL: none stored) */
    void *summarise_ctx;
} hist_open_options;

/* A database history's store when no --store is given: XDG_STATE_HOME/ringbench/runs, else
 * HOME/.local/state/ringbench/runs. The run file stays on the machine that measured it. */
#define HIST_LOCAL_STORE "ringbench/runs"

/* hist_open with options: where is a folder, or a postgresql:// or postgres:// URI (libpq's: user,
 * password, host, port, database and parameters; a password is better kept in ~/.pgpass or
 * PGPASSWORD). A database history creates its schema on first use; a database of another schema
 * version is refused with what to do. Errors never show a password (hist_mask_location). */
int hist_open_with(const char *where, const hist_open_options *o, hist **out, char *err, size_t errlen);

/* 1 when where names a database history (a postgresql:// or postgres:// URI), 0 for a folder. */
int hist_is_database(const char *where);

/* where as it may be printed: a URI's password (user:PASSWORD@, or password=... among its
 * parameters) replaced by ***. Returns buf. */
char *hist_mask_location(const char *where, char *buf, size_t n);

/* The open history's location as it may be printed (a folder, or a masked URI). */
const char *hist_location(const hist *h);

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

/* The folder of the history: its run files, history.md and plots/ (a database history: its store). */
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

/* --- judgements, every run, headline figures ---------------------------------------------------------- */

/* The night's verdict on a run as `ringbench track` judged it against the earlier runs of its machine. */
typedef struct hist_judgement {
    char verdict[24]; /* track_night_verdict's word: "regression", "no change", ...; "" when none is stored */
    int regressions, improvements, watch;
    char judged_utc[32];
} hist_judgement;

/* Stores (replacing) the judgement of run run_id. Returns 0, or -1 (hist_error says why). */
int hist_judgement_put(hist *h, long long run_id, const hist_judgement *j);

/* A run as `track --list` and the fleet page show it: the index's run, what its machine fingerprint
 * is made of, its stored judgement, and where its file is. */
typedef struct hist_listed {
    hist_run run;
    char host[128], backend[16], gpu[128];
    int wsl2;
    hist_judgement j;
    char stored[600]; /* the run file: a folder history's name in DIR; a database's "host:path" */
} hist_listed;

/* Every run of the history, ordered by start time, then id. */
int hist_list(hist *h, hist_listed **out, size_t *n);

/* The headline figures stored with run run_id (none when it was indexed without a summariser). */
int hist_run_headlines(hist *h, long long run_id, hist_headline **out, size_t *n);

#endif
