/* history_internal.h - what the backends of a run history share (results/history*.c only; the public
 * interface is history.h).
 *
 * A backend is a table of functions (hist_ops), one per public call of history.h, and a handle that
 * starts with struct hist. history.c dispatches the public calls through the table and holds what
 * does not depend on the backend: the fingerprint and fields of a run read from its file
 * (hist_record), the modes of a cell, notes and errors, and the run files' copy-in. The folder
 * backend with its SQLite index is history_sqlite.c; the PostgreSQL backend, through libpq, is
 * history_pg.c. Those two files are the only ones that speak SQL.
 */
#ifndef RINGBENCH_HISTORY_INTERNAL_H
#define RINGBENCH_HISTORY_INTERNAL_H

#include <sys/stat.h>

#include "h5in.h"
#include "history.h"

typedef struct hist_ops {
    void (*close)(hist *h);
    int (*add)(hist *h, const char *path, long long *run_id, int *already, char *err, size_t errlen);
    long long (*nruns)(hist *h);
    int (*run_get)(hist *h, long long run_id, hist_run *out);
    int (*machine_runs)(hist *h, long long run_id, hist_run **out, size_t *n);
    int (*other_machines)(hist *h, long long run_id, long long *runs, long long *machines);
    int (*machines)(hist *h, char ***out, size_t *n);
    int (*complete_runs)(hist *h, const char *machine, hist_run **out, size_t *n);
    int (*run_cells)(hist *h, long long run_id, hist_cell **out, size_t *n);
    int (*cell_series)(hist *h, const char *cell, hist_figures **out, size_t *n);
    int (*pool_cells)(hist *h, const hist_select *s, hist_figures **out, size_t *n);
    int (*paired_cells)(hist *h, const hist_select *s, const char *partner_family, hist_pair **out, size_t *n);
    int (*each_positive)(hist *h, int (*fn)(const hist_value *v, void *arg), void *arg);
    int (*cell_estimate)(hist *h, long long run_id, const char *family, const char *const mode[4], long long size,
                         hist_figures *out);
    int (*judgement_put)(hist *h, long long run_id, const hist_judgement *j);
    int (*list)(hist *h, hist_listed **out, size_t *n);
    int (*run_headlines)(hist *h, long long run_id, hist_headline **out, size_t *n);
} hist_ops;

/* The part of every backend's handle that history.c reads: the first member of each. */
struct hist {
    const hist_ops *ops;
    char dir[4096]; /* the folder of the run files, the page and its plots */
    FILE *notes;    /* where scans report, or NULL */
    char error[1024];
    int lock_fd;               /* a folder's lock (hist_lock), held from open to hist_close; -1: none (a database) */
    char location[4096];       /* what messages call the history: the folder, or the masked URI */
    hist_summary_fn summarise; /* hist_open_options' */
    void *summarise_ctx;
};

/* --- one writer at a time ------------------------------------------------------------------------
 * Every job that opens a history holds the folder's lock, DIR/.lock (flock, exclusive), from hist_open
 * to hist_close: across the leftovers' removal, the scan, the copy-in, the index update and the page.
 * A second job waits for it (saying so once, on notes) up to HIST_LOCK_WAIT_S; a job that dies, even by
 * SIGKILL, lets it go with its last descriptor. SQLite's own locking is not enough:
 * docs/decisions/0150-one-writer-per-history.md. A database history takes no folder lock: its server's
 * transactions and the run's unique content key keep its writers apart, and its store's files are
 * written whole under their key (docs/decisions/0160-shared-history-schema.md). */
#define HIST_LOCK_NAME ".lock"
#define HIST_LOCK_WAIT_S 1800

/* Takes DIR's lock, waiting for its holder. Returns 0 with the descriptor in *fd, or -1 with err (no
 * lock can be taken there, an interrupt while waiting, or HIST_LOCK_WAIT_S passed). */
int hist_lock(const char *dir, FILE *notes, int *fd, char *err, size_t errlen);

/* Whether the flag given to hist_watch is raised (never, when none was given). */
int hist_stopped(void);

/* The folder backend: opens (creating) DIR and its SQLite index (history_sqlite.c); DIR exists and its
 * lock is held (hist_open_with); o's notes and summariser serve the scan. */
int hist_sqlite_open(const char *dir, const hist_open_options *o, hist **out, char *err, size_t errlen);

/* The database backend: connects to the server of uri, creates or checks the schema, and keeps run
 * files in the folder store (history_pg.c). Only when built with libpq. */
int hist_pg_open(const char *uri, const hist_open_options *o, hist **out, char *err, size_t errlen);

/* The headline figures of the run file at path, by h's summariser, into out (at most
 * HIST_MAX_HEADLINES); 0 figures when there is no summariser or it had none to give. */
size_t hist_summarise(hist *h, const char *path, hist_headline out[HIST_MAX_HEADLINES]);

/* One line on h->notes ("ringbench track: ..."), when there is one. */
void hist_note(hist *h, const char *fmt, ...);
/* Sets hist_error's line; returns -1 for the caller to return. */
int hist_fail(hist *h, const char *fmt, ...);

/* What the index records of a run, read from its file: provenance with the defaults the index has
 * always used, and the machine fingerprint allocated at its full length (it is a key: two long GPU
 * names that share a prefix are two machines). */
typedef struct hist_record {
    char *machine; /* "host | backend | GPU | bus | WSL2 or native" */
    const char *hostname, *backend, *gpu_name, *pci_bus_id;
    int wsl2;
    const char *driver, *cuda_runtime, *kernel_release, *suite_version, *git_commit, *pci_id;
    int schema_version, complete;
    const char *start_utc, *end_utc, *preset; /* end_utc and preset may be NULL */
    char start_buf[32];                       /* start_utc from the file's mtime when the file has none */
} hist_record;

/* Fills *rec from the open run file r (sb: its stat). Returns 0, or -1 when out of memory. */
int hist_record_of(const h5in *r, const struct stat *sb, hist_record *rec);
void hist_record_free(hist_record *rec);

/* The modes of an ok latency row with two of them, as its file records them (results/bimodal.h; the
 * reader computes them for files before schema 4), NAN when the row has one mode. Latency only: track
 * judges such a cell on its fast mode, a point without an interval, and other time families
 * (lifecycle cells of ~20 samples) were never judged so. */
void hist_row_modes(const rb_row *row, double *lo, double *hi, double *share);

/* "now" as 2026-01-31T02:00:00Z. */
void hist_utc_now(char *buf, size_t n);

/* The run files of a folder. */
int hist_ends_with(const char *s, const char *tail);
int hist_mkdir_p(const char *dir);
/* Copies src to dst through dst's directory: a temporary file (DIR/.incoming-PID.h5), fsynced, then
 * linked to dst (link never replaces an existing file) and the temporary removed; an interrupt
 * (hist_watch) stops it and removes the temporary. Returns 0, or -1 with err. */
int hist_copy_in(const char *src, const char *dir, const char *dst, char *err, size_t errlen);
/* 1 when name is a temporary file of a history's writer: NAME.tmp-PID (with SQLite's -journal beside
 * it), .incoming-PID.h5, or the page's older history.md.tmp; *pid is its writer (0 when none is said). */
int hist_temp_name(const char *name, long *pid);

#endif
