/* history.h - a run history: a directory of results files (the record, copied in and never
 * rewritten) and a SQLite index over them (one row per run and cell with the summary figures and
 * the provenance), rebuilt from the files whenever it is missing or damaged.
 *
 * Layout of DIR (ringbench track's default: $XDG_STATE_HOME/ringbench/history, bench/cmd_track.c):
 *   *.h5           the runs, as `ringbench run` wrote them
 *   index.sqlite   tables runs, cells, skipped and meta (see HIST_SQL_SCHEMA in history.c, and
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

#include <stddef.h>
#include <stdio.h>
#include <sqlite3.h>

#define HIST_INDEX_NAME "index.sqlite"
/* 2: cells gained mode_lo, mode_hi, slow_share: a latency cell's two modes, as its file records
 * them (schema 4's mode_fast, mode_slow, slow_share; the reader computes them for older files);
 * 3: trial_p50_min, trial_p50_max (what track judges throughput and control-block reads on). */
#define HIST_INDEX_VERSION 3

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

/* Opens (creating DIR when absent) the history. The index is checked (SQLite integrity check and
 * the index version); a missing or damaged one is moved aside and rebuilt from the files. Then the
 * directory is scanned: run files not yet indexed are indexed, index rows whose file is gone are
 * dropped. What was rebuilt, added or skipped is reported, one line each, on `notes` (may be NULL).
 * Returns 0 and sets *out, or -1 with a one-line message in err. */
int hist_open(const char *dir, FILE *notes, hist **out, char *err, size_t errlen);

void hist_close(hist *h);

/* Copies the results file at path into the history (as DIR/<its name>, or <name>-N.h5 when that
 * name holds a different file; through a temporary file, fsynced and renamed) and indexes it. A
 * file whose bytes are already in the history is not copied again: *run_id is the existing run's,
 * and *already is set to 1. A file the reader refuses is not copied. Returns 0, or -1 with a
 * one-line message in err. */
int hist_add(hist *h, const char *path, long long *run_id, int *already, char *err, size_t errlen);

/* The database handle, for queries (see the schema); owned by h. */
sqlite3 *hist_db(hist *h);
const char *hist_dir(const hist *h);

/* Number of runs in the index. */
long long hist_nruns(hist *h);

#endif
