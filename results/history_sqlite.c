/* history_sqlite.c - the folder history (history.h): the run files in DIR and the SQLite index over
 * them, DIR/index.sqlite. The files are the record; the index is derived and can always be rebuilt.
 * This is the one file of ringbench that speaks SQL: every query of the history is a typed call of
 * history.h, implemented here (history_internal.h's table). Exercised by tests/test_history.c
 * (rebuild, damaged and foreign files, fingerprints) and by everything `ringbench track` does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "history_internal.h"
#include "schema.h"

/* The queries judging runs again and again, each prepared once per open history. */
enum { Q_SERIES, Q_POOL, Q_PAIRS, Q_ESTIMATE, Q_COUNT };

typedef struct hist_sqlite {
    hist base; /* first: a hist_sqlite is a hist */
    char index[4200];
    sqlite3 *db;
    size_t indexed; /* run files indexed by the last scan */
    sqlite3_stmt *q[Q_COUNT];
} hist_sqlite;

static const char HIST_SQL_SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE runs("
    " run_id INTEGER PRIMARY KEY, file TEXT UNIQUE NOT NULL, file_key TEXT UNIQUE NOT NULL,"
    " file_size INTEGER, file_mtime INTEGER,"
    " start_utc TEXT, end_utc TEXT, added_utc TEXT, complete INTEGER, preset TEXT,"
    " machine TEXT NOT NULL, hostname TEXT, backend TEXT, gpu_name TEXT, pci_bus_id TEXT, wsl2 INTEGER,"
    " driver TEXT, cuda_runtime TEXT, kernel_release TEXT, suite_version TEXT, git_commit TEXT,"
    " schema_version INTEGER, pci_id TEXT);"
    "CREATE INDEX runs_by_machine ON runs(machine, start_utc);"
    "CREATE TABLE cells("
    " run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, cell TEXT NOT NULL,"
    " family TEXT, host_mem TEXT, xfer TEXT, launch TEXT, ctrl TEXT, size_bytes INTEGER, window INTEGER,"
    " unit TEXT, status TEXT, p50 REAL, ci_lo REAL, ci_hi REAL, ci_method TEXT, trials INTEGER,"
    " trial_cv REAL, msgs_per_s REAL, ratio_floor REAL, ratio_memcpy REAL,"
    " mode_lo REAL, mode_hi REAL, slow_share REAL, trial_p50_min REAL, trial_p50_max REAL,"
    " PRIMARY KEY(run_id, cell));"
    "CREATE INDEX cells_by_cell ON cells(cell, run_id);"
    "CREATE TABLE skipped(file TEXT PRIMARY KEY, file_size INTEGER, file_mtime INTEGER, reason TEXT);"
    "CREATE TABLE headlines("
    " run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, figure TEXT NOT NULL, rate INTEGER,"
    " native REAL, native_lo REAL, native_hi REAL, fallback REAL, fallback_lo REAL, fallback_hi REAL,"
    " ratio REAL, ratio_lo REAL, ratio_hi REAL, size_bytes INTEGER, window INTEGER, PRIMARY KEY(run_id, figure));"
    "CREATE TABLE judgements("
    " run_id INTEGER PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE, verdict TEXT NOT NULL,"
    " regressions INTEGER, improvements INTEGER, watch INTEGER, judged_utc TEXT);";

static hist_sqlite *sq(hist *h) { return (hist_sqlite *)h; }

/* The errno a write of a block into the index's folder, at the index's size, gets now: what cut
 * SQLite's write short when SQLite keeps no errno of its own: a file-size limit's EFBIG, a disk still
 * full. 0 when such a write works. The probe is a temporary file (the name index_create uses), removed
 * at once. */
static int write_errno_now(hist_sqlite *h)
{
    char probe[4300], block[4096] = {0};
    struct stat sb;
    off_t at = stat(h->index, &sb) == 0 ? sb.st_size : 0;
    snprintf(probe, sizeof probe, "%s.tmp-%ld", h->index, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), e = fd < 0 ? errno : 0;
    for (size_t done = 0; e == 0 && done < sizeof block;) {
        ssize_t w = pwrite(fd, block + done, sizeof block - done, at + (off_t)done);
        if (w < 0)
            e = errno;
        else
            done += (size_t)w;
    }
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    return e;
}

/* The last SQLite error of h as "INDEX: what (the system's reason)": a full disk or a file-size limit
 * is said with its errno, which SQLite's own words ("database or disk is full", "disk I/O error") do
 * not say: the one SQLite kept (of the call, or of the index file), else the one a write gets now. */
static void db_error(hist_sqlite *h, char *err, size_t errlen)
{
    if (!h->db) {
        snprintf(err, errlen, "%s: cannot open", h->index);
        return;
    }
    int code = sqlite3_errcode(h->db) & 0xff, sys = 0;
    if (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN || code == SQLITE_READONLY) {
        sys = sqlite3_system_errno(h->db);
        if (sys == 0)
            sqlite3_file_control(h->db, "main", SQLITE_FCNTL_LAST_ERRNO, &sys);
        if (sys == 0 && code != SQLITE_CANTOPEN && code != SQLITE_READONLY)
            sys = write_errno_now(h);
        /* SQLite answers a write that failed with ENOSPC with SQLITE_FULL and forgets the errno; a
         * short write, the other cause, is a file-size limit that the probe above still meets. A disk
         * with room again (the journal rolled back) was full. */
        if (sys == 0 && code == SQLITE_FULL)
            sys = ENOSPC;
    }
    snprintf(err, errlen, "%s: %s%s%s%s", h->index, sqlite3_errmsg(h->db), sys ? " (" : "", sys ? strerror(sys) : "",
             sys ? ")" : "");
}

static int exec_sql(hist_sqlite *h, const char *sql, char *err, size_t errlen)
{
    if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        return -1;
    }
    return 0;
}

/* The last SQLite error of h as hist_error's line; returns -1. */
static int db_fail(hist_sqlite *h)
{
    char err[sizeof h->index + 1024];
    db_error(h, err, sizeof err);
    return hist_fail(&h->base, "%s", err);
}

static long long sq_nruns(hist *hh)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

// --- the index file: open, check, rebuild ----------------------------------------------------------------

/* What an index file is: healthy, damaged (not a database, fails SQLite's quick check, or lacks this
 * build's tables and version: rebuilt from the files), or not readable now (busy beyond the busy
 * timeout, an I/O error: an error, never a reason to move a healthy index aside). */
enum { INDEX_HEALTHY, INDEX_DAMAGED, INDEX_UNREADABLE };

static int index_check(hist_sqlite *h)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h->db, "PRAGMA quick_check", -1, &st, NULL), ok = 0;
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? INDEX_DAMAGED : INDEX_UNREADABLE;
    if (!ok)
        return INDEX_DAMAGED;
    ok = 0;
    rc = sqlite3_prepare_v2(h->db, "SELECT value FROM meta WHERE key = 'index_version'", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        ok = sqlite3_column_int(st, 0) == HIST_INDEX_VERSION;
    sqlite3_finalize(st);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || (rc & 0xff) == SQLITE_IOERR)
        return INDEX_UNREADABLE;
    return ok ? INDEX_HEALTHY : INDEX_DAMAGED; /* no meta table, or another version */
}

static int db_open(hist_sqlite *h, const char *path, char *err, size_t errlen)
{
    if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        sqlite3_close(h->db);
        h->db = NULL;
        return -1;
    }
    /* The folder's lock keeps other ringbench jobs out; this waits for anyone else reading or writing
     * the index (the sqlite3 shell) instead of failing at once. */
    sqlite3_busy_timeout(h->db, 10000);
    return 0;
}

static void db_close(hist_sqlite *h)
{
    sqlite3_close(h->db);
    h->db = NULL;
}

/* Creates an empty index (the caller fills it from the files) as a whole: the schema is written into
 * INDEX.tmp-PID, which is then renamed into place, so that no job, killed or not, leaves an index
 * with half a schema (that one was taken for damaged and moved aside). */
static int index_create(hist_sqlite *h, char *err, size_t errlen)
{
    char tmp[4300], journal[4400], sql[128];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", h->index, (long)getpid());
    snprintf(journal, sizeof journal, "%s-journal", tmp);
    snprintf(sql, sizeof sql, "INSERT INTO meta VALUES('index_version', '%d');", HIST_INDEX_VERSION);
    unlink(tmp);
    unlink(journal);
    int rc = db_open(h, tmp, err, errlen);
    if (rc == 0 && (exec_sql(h, "BEGIN", err, errlen) != 0 || exec_sql(h, HIST_SQL_SCHEMA, err, errlen) != 0 ||
                    exec_sql(h, sql, err, errlen) != 0 || exec_sql(h, "COMMIT", err, errlen) != 0))
        rc = -1;
    db_close(h);
    if (rc == 0 && rename(tmp, h->index) != 0) {
        snprintf(err, errlen, "%s: cannot put the new index in place: %s", h->index, strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        unlink(tmp);
        unlink(journal);
        return -1;
    }
    return db_open(h, h->index, err, errlen);
}

/* Opens the index; a missing one is created, a damaged one moved aside to index.sqlite.damaged
 * and replaced by a new one. */
static int index_open(hist_sqlite *h, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(h->index, &sb) != 0) {
        hist_note(&h->base, "no index in %s: building it from the run files", h->base.dir);
        return index_create(h, err, errlen);
    }
    if (db_open(h, h->index, err, errlen) != 0)
        return -1;
    int state = index_check(h);
    if (state == INDEX_HEALTHY)
        return 0;
    if (state == INDEX_UNREADABLE) {
        db_error(h, err, errlen);
        return -1;
    }
    db_close(h);
    char aside[4300];
    snprintf(aside, sizeof aside, "%s.damaged", h->index);
    if (rename(h->index, aside) != 0) {
        snprintf(err, errlen, "%s is damaged and cannot be moved aside: %s", h->index, strerror(errno));
        return -1;
    }
    char journal[4300];
    snprintf(journal, sizeof journal, "%s-journal", h->index);
    unlink(journal);
    hist_note(&h->base, "%s was damaged or from another version: moved to %s; rebuilding from the run files", h->index,
              aside);
    return index_create(h, err, errlen);
}

// --- indexing one run file -------------------------------------------------------------------------------

/* Binds text or NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (v == v && v - v == 0) /* finite */
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* The run's columns of the runs table, bound from i on. */
static void bind_record(sqlite3_stmt *st, int i, const hist_record *rec)
{
    bind_text(st, i++, rec->start_utc);
    bind_text(st, i++, rec->end_utc);
    char added[32];
    hist_utc_now(added, sizeof added);
    bind_text(st, i++, added);
    sqlite3_bind_int(st, i++, rec->complete);
    bind_text(st, i++, rec->preset);
    bind_text(st, i++, rec->machine);
    bind_text(st, i++, rec->hostname);
    bind_text(st, i++, rec->backend);
    bind_text(st, i++, rec->gpu_name);
    bind_text(st, i++, rec->pci_bus_id);
    sqlite3_bind_int(st, i++, rec->wsl2);
    bind_text(st, i++, rec->driver);
    bind_text(st, i++, rec->cuda_runtime);
    bind_text(st, i++, rec->kernel_release);
    bind_text(st, i++, rec->suite_version);
    bind_text(st, i++, rec->git_commit);
    sqlite3_bind_int(st, i++, rec->schema_version);
    bind_text(st, i++, rec->pci_id);
}

static long long insert_run(hist_sqlite *h, const h5in *r, const char *name, const char *key, const struct stat *sb,
                            char *err, size_t errlen)
{
    static const char sql[] =
        "INSERT INTO runs(file, file_key, file_size, file_mtime, start_utc, end_utc, added_utc, complete, preset,"
        " machine, hostname, backend, gpu_name, pci_bus_id, wsl2, driver, cuda_runtime, kernel_release,"
        " suite_version, git_commit, schema_version, pci_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        return -1;
    }
    hist_record rec;
    if (hist_record_of(r, sb, &rec) != 0) {
        snprintf(err, errlen, "%s: out of memory for the machine fingerprint", h->index);
        sqlite3_finalize(st);
        return -1;
    }
    bind_text(st, 1, name);
    bind_text(st, 2, key);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)sb->st_size);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)sb->st_mtime);
    bind_record(st, 5, &rec);
    long long id = -1;
    if (sqlite3_step(st) == SQLITE_DONE)
        id = sqlite3_last_insert_rowid(h->db);
    else
        db_error(h, err, errlen);
    sqlite3_finalize(st);
    hist_record_free(&rec);
    return id;
}

/* One row of the file into the cells insert st, bound from 1. */
static void bind_cell(sqlite3_stmt *st, long long run_id, const rb_row *row)
{
    char key[256];
    double lo, hi, share;
    export_cell_key(row, key, sizeof key);
    hist_row_modes(row, &lo, &hi, &share);
    int i = 1;
    sqlite3_bind_int64(st, i++, run_id);
    bind_text(st, i++, key);
    bind_text(st, i++, row->family);
    bind_text(st, i++, row->host_mem);
    bind_text(st, i++, row->xfer);
    bind_text(st, i++, row->launch);
    bind_text(st, i++, row->ctrl);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)row->size_bytes);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)row->window);
    bind_text(st, i++, row->unit);
    bind_text(st, i++, row->status);
    bind_real(st, i++, row->p50);
    bind_real(st, i++, row->ci_lo);
    bind_real(st, i++, row->ci_hi);
    bind_text(st, i++, row->ci_method[0] ? row->ci_method : RB_CI_SAMPLES);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)row->trials);
    bind_real(st, i++, row->trial_cv);
    bind_real(st, i++, row->msgs_per_s);
    bind_real(st, i++, row->ratio_floor);
    bind_real(st, i++, row->ratio_memcpy);
    bind_real(st, i++, lo);
    bind_real(st, i++, hi);
    bind_real(st, i++, share);
    bind_real(st, i++, row->trial_p50_min);
    bind_real(st, i++, row->trial_p50_max);
}

static int insert_cells(hist_sqlite *h, const h5in *r, long long run_id, char *err, size_t errlen)
{
    static const char sql[] =
        "INSERT OR REPLACE INTO cells(run_id, cell, family, host_mem, xfer, launch, ctrl, size_bytes, window,"
        " unit, status, p50, ci_lo, ci_hi, ci_method, trials, trial_cv, msgs_per_s, ratio_floor, ratio_memcpy,"
        " mode_lo, mode_hi, slow_share, trial_p50_min, trial_p50_max)"
        " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < h5in_nrows(r) && rc == 0; k++) {
        bind_cell(st, run_id, h5in_row(r, k));
        if (sqlite3_step(st) != SQLITE_DONE) {
            db_error(h, err, errlen);
            rc = -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static void record_skipped(hist_sqlite *h, const char *name, const struct stat *sb, const char *reason)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO skipped VALUES(?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return;
    bind_text(st, 1, name);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)sb->st_size);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)sb->st_mtime);
    bind_text(st, 4, reason);
    sqlite3_step(st);
    sqlite3_finalize(st);
}

/* A run's headline figures hl[0 .. n) (the summariser's, hist_summarise) under run_id. */
static int insert_headlines(hist_sqlite *h, const hist_headline *hl, size_t n, long long run_id, char *err,
                            size_t errlen)
{
    sqlite3_stmt *st;
    if (n == 0)
        return 0;
    if (sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO headlines VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", h->index, sqlite3_errmsg(h->db));
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const hist_headline *x = &hl[k];
        const double v[9] = {x->value[0], x->lo[0], x->hi[0],    x->value[1], x->lo[1],
                             x->hi[1],    x->ratio, x->ratio_lo, x->ratio_hi};
        sqlite3_bind_int64(st, 1, run_id);
        bind_text(st, 2, x->key);
        sqlite3_bind_int(st, 3, x->rate);
        for (int i = 0; i < 9; i++)
            bind_real(st, 4 + i, v[i]);
        sqlite3_bind_int64(st, 13, (sqlite3_int64)x->size);
        sqlite3_bind_int64(st, 14, (sqlite3_int64)x->window);
        if (sqlite3_step(st) != SQLITE_DONE) {
            snprintf(err, errlen, "%s: %s", h->index, sqlite3_errmsg(h->db));
            rc = -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The run whose file holds the bytes of content key `key`: its id and file name (into name, when not
 * NULL); 0 when there is none, -1 on an index error (err). */
static long long run_of_key(hist_sqlite *h, const char *key, char *name, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    long long id = -1;
    if (sqlite3_prepare_v2(h->db, "SELECT run_id, file FROM runs WHERE file_key = ?", -1, &st, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        return -1;
    }
    bind_text(st, 1, key);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        id = sqlite3_column_int64(st, 0);
        if (name)
            snprintf(name, n, "%s", (const char *)sqlite3_column_text(st, 1));
    } else if (step == SQLITE_DONE) {
        id = 0;
    } else {
        db_error(h, err, errlen);
    }
    sqlite3_finalize(st);
    return id;
}

/* The run, its cells and its headline figures hl[0 .. n) into the index, in one transaction: a job
 * killed half-way leaves the index as it was. BEGIN IMMEDIATE takes the write lock first, so that the busy timeout
 * covers the whole transaction (a read lock upgraded later fails at once when another writer waits). */
static long long insert_file(hist_sqlite *h, const h5in *r, const char *name, const char *key, const struct stat *sb,
                             const hist_headline *hl, size_t n, char *err, size_t errlen)
{
    if (exec_sql(h, "BEGIN IMMEDIATE", err, errlen) != 0)
        return -1;
    long long id = insert_run(h, r, name, key, sb, err, errlen);
    if (id > 0 && (insert_cells(h, r, id, err, errlen) != 0 || insert_headlines(h, hl, n, id, err, errlen) != 0))
        id = -1;
    if (id > 0 && exec_sql(h, "COMMIT", err, errlen) != 0)
        id = -1;
    if (id <= 0)
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return id;
}

/* Indexes DIR/name. Returns the run id, 0 when the file is not taken (the reader refused it, or it
 * holds the bytes of a run already indexed: recorded in skipped, reason in err), or -1 on an index
 * error. */
static long long index_file(hist_sqlite *h, const char *name, char *err, size_t errlen)
{
    char path[8300], key[65], same[1024];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", h->base.dir, name);
    if (stat(path, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (hist_file_key(path, key, err, errlen) != 0)
        return 0;
    long long id = run_of_key(h, key, same, sizeof same, err, errlen);
    if (id != 0) {
        if (id > 0) {
            snprintf(err, errlen, "the same bytes as %s, a run already indexed", same);
            record_skipped(h, name, &sb, err);
        }
        return id > 0 ? 0 : -1;
    }
    h5in *r = NULL;
    char rerr[512];
    if (h5in_open(path, &r, rerr, sizeof rerr) != 0) {
        snprintf(err, errlen, "%s", rerr);
        record_skipped(h, name, &sb, rerr);
        return 0;
    }
    /* Damaged rows are indexed with status "damaged" (never judged); the notes say which. */
    for (size_t i = 0; i < h5in_nwarnings(r); i++)
        hist_note(&h->base, "%s", h5in_warning(r, i));
    /* The headline figures are computed before the transaction (a bootstrap: half a second), not in it. */
    hist_headline hl[HIST_MAX_HEADLINES];
    size_t nhl = hist_summarise(&h->base, path, hl);
    id = insert_file(h, r, name, key, &sb, hl, nhl, err, errlen);
    h5in_close(r);
    return id;
}

// --- scanning the directory ------------------------------------------------------------------------------

/* 1 when `sql` with name bound as ?1 (and size, mtime as ?2, ?3 when given) returns a row. */
static int has_row(hist_sqlite *h, const char *sql, const char *name, const struct stat *sb)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    bind_text(st, 1, name);
    if (sb) {
        sqlite3_bind_int64(st, 2, (sqlite3_int64)sb->st_size);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)sb->st_mtime);
    }
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* Files of the history that are not runs: the index and its journal, the history page and its
 * plots, dot files. */
static int is_own_file(const char *name)
{
    return name[0] == '.' || strncmp(name, HIST_INDEX_NAME, strlen(HIST_INDEX_NAME)) == 0 ||
           strcmp(name, "history.md") == 0 || strcmp(name, "plots") == 0;
}

/* Indexes DIR/name when it is a run file the index does not hold yet. Returns 0, or -1 with err on an
 * index error. */
static int scan_one(hist_sqlite *h, const char *name, char *err, size_t errlen)
{
    char path[8300], why[1100];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", h->base.dir, name);
    if (stat(path, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        if (!is_own_file(name))
            hist_note(&h->base, "%s: a directory, not a run file: ignored", path);
        return 0;
    }
    if (!hist_ends_with(name, ".h5")) {
        hist_note(&h->base, "%s: not a run file (%s): ignored", path,
                  hist_ends_with(name, ".partial") ? "an unfinished run" : "not .h5");
        return 0;
    }
    if (has_row(h, "SELECT 1 FROM runs WHERE file = ?1", name, NULL))
        return 0;
    sqlite3_stmt *st;
    if (has_row(h, "SELECT 1 FROM skipped WHERE file = ?1 AND file_size = ?2 AND file_mtime = ?3", name, &sb)) {
        if (sqlite3_prepare_v2(h->db, "SELECT reason FROM skipped WHERE file = ?1", -1, &st, NULL) == SQLITE_OK) {
            bind_text(st, 1, name);
            if (sqlite3_step(st) == SQLITE_ROW)
                hist_note(&h->base, "skipped %s: %s", path, (const char *)sqlite3_column_text(st, 0));
            sqlite3_finalize(st);
        }
        return 0;
    }
    long long id = index_file(h, name, why, sizeof why);
    if (id < 0) {
        snprintf(err, errlen, "cannot update the index: %s", why);
        return -1;
    }
    if (id == 0)
        hist_note(&h->base, "skipped %s: %s", path, why);
    else
        h->indexed++;
    return 0;
}

/* Drops index rows whose file has gone (the files are the record), in one transaction. Returns 0, or
 * -1 with err. */
static int drop_vanished(hist_sqlite *h, char *err, size_t errlen)
{
    sqlite3_stmt *st, *del;
    if (exec_sql(h, "BEGIN IMMEDIATE", err, errlen) != 0)
        return -1;
    if (sqlite3_prepare_v2(h->db, "SELECT run_id, file FROM runs", -1, &st, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (sqlite3_prepare_v2(h->db, "DELETE FROM runs WHERE run_id = ?", -1, &del, NULL) != SQLITE_OK) {
        db_error(h, err, errlen);
        sqlite3_finalize(st);
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", h->base.dir, (const char *)sqlite3_column_text(st, 1));
        if (access(path, F_OK) == 0)
            continue;
        hist_note(&h->base, "%s is gone: dropped from the index", path);
        sqlite3_bind_int64(del, 1, sqlite3_column_int64(st, 0));
        sqlite3_step(del);
        sqlite3_reset(del);
    }
    sqlite3_finalize(del);
    sqlite3_finalize(st);
    if (exec_sql(h, "COMMIT", err, errlen) == 0)
        return 0;
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names in DIR that may be run files, sorted (a deterministic order of notes and run ids). */
static size_t list_names(DIR *d, char ***out)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (is_own_file(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **t = realloc(names, cap * sizeof *names);
            if (!t)
                break;
            names = t;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    *out = names;
    return n;
}

static int scan(hist_sqlite *h, char *err, size_t errlen)
{
    DIR *d = opendir(h->base.dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", h->base.dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = list_names(d, &names);
    closedir(d);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && hist_stopped()) {
            snprintf(err, errlen, "interrupted while indexing %s (the index holds every run indexed so far)",
                     h->base.dir);
            rc = -1;
        }
        if (rc == 0)
            rc = scan_one(h, names[i], err, errlen);
        free(names[i]);
    }
    free(names);
    if (rc == 0)
        rc = drop_vanished(h, err, errlen);
    if (h->indexed)
        hist_note(&h->base, "indexed %zu run file%s found in %s", h->indexed, h->indexed == 1 ? "" : "s", h->base.dir);
    return rc;
}

// --- add, close ------------------------------------------------------------------------------------------

/* A name for the copy of path in DIR: its own, or <stem>-N.h5 when that one is taken (by other bytes:
 * the same bytes are found by their key first). Returns 0, or -1 with err. */
static int free_name(hist_sqlite *h, const char *path, char *name, size_t n, char *dst, size_t dstlen, char *err,
                     size_t errlen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[900];
    snprintf(stem, sizeof stem, "%.*s", (int)(hist_ends_with(base, ".h5") ? strlen(base) - 3 : strlen(base)), base);
    snprintf(name, n, "%s.h5", stem);
    for (int k = 1;; k++) {
        snprintf(dst, dstlen, "%s/%s", h->base.dir, name);
        if (access(dst, F_OK) != 0)
            return 0;
        if (k > 9999) {
            snprintf(err, errlen, "%s: no free name for %s", h->base.dir, base);
            return -1;
        }
        snprintf(name, n, "%s-%d.h5", stem, k);
    }
}

static int sq_add(hist *hh, const char *path, long long *run_id, int *already, char *err, size_t errlen)
{
    hist_sqlite *h = sq(hh);
    *run_id = 0;
    *already = 0;
    h5in *r = NULL;
    if (h5in_open(path, &r, err, errlen) != 0)
        return -1;
    h5in_close(r);
    char key[65], name[1024], dst[8300];
    if (hist_file_key(path, key, err, errlen) != 0)
        return -1;
    /* A run is its bytes: the same file under any name, or added by an earlier job, is that run. */
    long long id = run_of_key(h, key, NULL, 0, err, errlen);
    if (id != 0) {
        *already = id > 0;
        *run_id = id > 0 ? id : 0;
        return id > 0 ? 0 : -1;
    }
    if (free_name(h, path, name, sizeof name, dst, sizeof dst, err, errlen) != 0 ||
        hist_copy_in(path, h->base.dir, dst, err, errlen) != 0)
        return -1;
    id = index_file(h, name, err, errlen);
    if (id <= 0) {
        /* Not in the index (a write that failed, or a file that changed while it was copied): the copy
         * goes too, and the history is as it was. */
        unlink(dst);
        return -1;
    }
    *run_id = id;
    return 0;
}

static void sq_close(hist *hh)
{
    hist_sqlite *h = sq(hh);
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(h->q[i]);
    sqlite3_close(h->db);
    free(h);
}

// --- queries: runs ---------------------------------------------------------------------------------------

/* A text column into dst for display; a text longer than dst ends in "..." so that a cut is seen.
 * Never a key: runs are selected by run_id in SQL, whatever the length of their texts. */
static void copy_col(char *dst, size_t n, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    int len = snprintf(dst, n, "%s", t ? (const char *)t : "");
    if (len >= 0 && (size_t)len >= n && n > 4)
        memcpy(dst + n - 4, "...", 4);
}

static double col_real(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

/* Grows *arr (of *cap elements of size sz) to hold n + 1. Returns 0, or -1 when out of memory. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 32;
    void *t = realloc(*arr, c * sz);
    if (!t)
        return -1;
    *arr = t;
    *cap = c;
    return 0;
}

/* Steps st to its end, each row read by fn into the growing array *out of elements of size sz.
 * Finalizes st unless keep. Returns 0, or -1 (hist_error set; *out freed). */
static int collect(hist_sqlite *h, sqlite3_stmt *st, int keep, size_t sz, void (*fn)(sqlite3_stmt *st, void *elem),
                   void **out, size_t *n)
{
    size_t cap = 0;
    int step, rc = 0;
    *out = NULL;
    *n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow(out, &cap, *n, sz) != 0) {
            rc = hist_fail(&h->base, "out of memory");
            break;
        }
        fn(st, (char *)*out + (*n)++ * sz);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(h);
    if (keep)
        sqlite3_reset(st);
    else
        sqlite3_finalize(st);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* A run's columns as read_run reads them: the environment fields in HIST_ENV_FIELDS order. */
#define ENV_COLUMN(col, words) ", " #col
static const char RUN_COLUMNS[] =
    "SELECT run_id, file, start_utc, machine, complete, schema_version" HIST_ENV_FIELDS(ENV_COLUMN) " FROM runs WHERE ";
#undef ENV_COLUMN

static void read_run(sqlite3_stmt *st, void *elem)
{
    hist_run *r = elem;
    r->id = sqlite3_column_int64(st, 0);
    copy_col(r->file, sizeof r->file, st, 1);
    copy_col(r->start, sizeof r->start, st, 2);
    copy_col(r->machine, sizeof r->machine, st, 3);
    r->complete = sqlite3_column_int(st, 4);
    r->schema = sqlite3_column_int(st, 5);
    for (int i = 0; i < HIST_ENV_COUNT; i++)
        copy_col(r->env[i], sizeof r->env[i], st, 6 + i);
}

/* The runs matching `where` (SQL over the runs table, ?1 bound to arg: text, or run_id when arg is
 * NULL), ordered in time. */
static int load_runs(hist_sqlite *h, const char *where, const char *arg, long long run_id, hist_run **out, size_t *n)
{
    char sql[1024];
    sqlite3_stmt *st;
    snprintf(sql, sizeof sql, "%s%s ORDER BY start_utc, run_id", RUN_COLUMNS, where);
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(st, 1, run_id);
    return collect(h, st, 0, sizeof **out, read_run, (void **)out, n);
}

static int sq_run_get(hist *hh, long long run_id, hist_run *out)
{
    hist_run *r = NULL;
    size_t n = 0;
    if (load_runs(sq(hh), "run_id = ?1", NULL, run_id, &r, &n) != 0)
        return -1;
    if (n == 1)
        *out = r[0];
    free(r);
    return n == 1 ? 0 : hist_fail(hh, "run %lld is not in the index", run_id);
}

static int sq_machine_runs(hist *hh, long long run_id, hist_run **out, size_t *n)
{
    /* By the run's id, never by its machine text as read back into a fixed buffer: a long
     * fingerprint (host + backend + GPU name) would be cut there and match no run at all. */
    return load_runs(sq(hh), "machine = (SELECT machine FROM runs WHERE run_id = ?1)", NULL, run_id, out, n);
}

static int sq_complete_runs(hist *hh, const char *machine, hist_run **out, size_t *n)
{
    return load_runs(sq(hh), "machine = ?1 AND complete = 1", machine, 0, out, n);
}

static int sq_other_machines(hist *hh, long long run_id, long long *runs, long long *machines)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    *runs = *machines = 0;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT count(*), count(DISTINCT machine) FROM runs WHERE machine != "
                           "(SELECT machine FROM runs WHERE run_id = ?1)",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : db_fail(h);
    if (rc == 0) {
        *runs = sqlite3_column_int64(st, 0);
        *machines = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc;
}

static void read_machine(sqlite3_stmt *st, void *elem)
{
    const unsigned char *t = sqlite3_column_text(st, 0);
    *(char **)elem = strdup(t ? (const char *)t : "");
}

static int sq_machines(hist *hh, char ***out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT machine, count(*) FROM runs WHERE complete = 1 GROUP BY machine ORDER BY machine",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    if (collect(h, st, 0, sizeof **out, read_machine, (void **)out, n) != 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (!(*out)[i]) {
            hist_strings_free(*out, *n);
            *out = NULL;
            *n = 0;
            return hist_fail(hh, "out of memory");
        }
    return 0;
}

// --- queries: cells --------------------------------------------------------------------------------------

/* The cached statement q (prepared on first use), reset with its bindings cleared; NULL on an error. */
static sqlite3_stmt *cached(hist_sqlite *h, int q)
{
    static const char *const sql[Q_COUNT] = {
        [Q_SERIES] = "SELECT run_id, p50, ci_lo, ci_hi, mode_lo, mode_hi, slow_share, trial_p50_min, trial_p50_max, "
                     "ci_method, trials FROM cells WHERE cell = ?1 AND status = 'ok'",
        [Q_POOL] = "SELECT run_id, trial_p50_min, trial_p50_max, p50 FROM cells WHERE family = ?1 AND "
                   "size_bytes = ?2 AND window = ?3 AND (?5 IS NULL OR ctrl != ?5) AND (?4 IS NULL OR ctrl = ?4) AND "
                   "status = 'ok' ORDER BY run_id",
        [Q_PAIRS] =
            "SELECT a.run_id, a.trial_p50_min, b.trial_p50_min FROM cells a JOIN cells b ON b.run_id = "
            "a.run_id AND b.cell = ?4 || substr(a.cell, length(a.family) + 1) AND b.status = "
            "'ok' WHERE a.family = ?1 AND (?5 IS NULL OR a.ctrl != ?5) AND (?2 IS NULL OR a.ctrl = ?2) AND (?3 IS "
            "NULL OR a.host_mem || '/' || a.xfer || '/' || a.launch || '/' || a.ctrl = ?3) AND a.status = "
            "'ok' ORDER BY a.run_id",
        [Q_ESTIMATE] = "SELECT p50, ci_lo, ci_hi FROM cells WHERE run_id = ?1 AND family = ?2 AND host_mem = ?3"
                       " AND xfer = ?4 AND launch = ?5 AND ctrl = ?6 AND (?7 < 0 OR size_bytes = ?7)"
                       " AND status = 'ok' ORDER BY window DESC LIMIT 1",
    };
    if (!h->q[q] && sqlite3_prepare_v2(h->db, sql[q], -1, &h->q[q], NULL) != SQLITE_OK) {
        db_fail(h);
        return NULL;
    }
    sqlite3_reset(h->q[q]);
    sqlite3_clear_bindings(h->q[q]);
    return h->q[q];
}

static void read_cell(sqlite3_stmt *st, void *elem)
{
    hist_cell *x = elem;
    copy_col(x->cell, sizeof x->cell, st, 0);
    copy_col(x->unit, sizeof x->unit, st, 1);
    copy_col(x->family, sizeof x->family, st, 2);
    x->size = (uint64_t)sqlite3_column_int64(st, 3);
    x->window = (uint64_t)sqlite3_column_int64(st, 4);
    copy_col(x->mode, sizeof x->mode, st, 5);
    copy_col(x->ctrl, sizeof x->ctrl, st, 6);
}

static int sq_run_cells(hist *hh, long long run_id, hist_cell **out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(
            h->db,
            "SELECT cell, unit, family, size_bytes, window, host_mem || '/' || xfer || '/' "
            "|| launch || '/' || ctrl, ctrl FROM cells WHERE run_id = ?1 AND status = 'ok' ORDER BY cell",
            -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    sqlite3_bind_int64(st, 1, run_id);
    return collect(h, st, 0, sizeof **out, read_cell, (void **)out, n);
}

static const hist_figures NO_FIGURES = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0};

static void read_series(sqlite3_stmt *st, void *elem)
{
    hist_figures *f = elem;
    *f = NO_FIGURES;
    f->run_id = sqlite3_column_int64(st, 0);
    f->p50 = col_real(st, 1);
    f->ci_lo = col_real(st, 2);
    f->ci_hi = col_real(st, 3);
    f->mode_lo = col_real(st, 4);
    f->mode_hi = col_real(st, 5);
    f->slow_share = col_real(st, 6);
    f->trial_min = col_real(st, 7);
    f->trial_max = col_real(st, 8);
    const char *method = (const char *)sqlite3_column_text(st, 9);
    f->trials_ci = method && strcmp(method, RB_CI_TRIALS) == 0;
    f->trials = sqlite3_column_int64(st, 10);
}

static int sq_cell_series(hist *hh, const char *cell, hist_figures **out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st = cached(h, Q_SERIES);
    *out = NULL;
    *n = 0;
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, cell, -1, SQLITE_TRANSIENT);
    return collect(h, st, 1, sizeof **out, read_series, (void **)out, n);
}

static void read_pool(sqlite3_stmt *st, void *elem)
{
    hist_figures *f = elem;
    *f = NO_FIGURES;
    f->run_id = sqlite3_column_int64(st, 0);
    f->trial_min = col_real(st, 1);
    f->trial_max = col_real(st, 2);
    f->p50 = col_real(st, 3);
}

static int sq_pool_cells(hist *hh, const hist_select *s, hist_figures **out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st = cached(h, Q_POOL);
    *out = NULL;
    *n = 0;
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, s->family, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)s->size);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)s->window);
    bind_text(st, 4, s->ctrl);
    bind_text(st, 5, s->not_ctrl);
    return collect(h, st, 1, sizeof **out, read_pool, (void **)out, n);
}

static void read_pair(sqlite3_stmt *st, void *elem)
{
    hist_pair *p = elem;
    p->run_id = sqlite3_column_int64(st, 0);
    p->a = col_real(st, 1);
    p->b = col_real(st, 2);
}

static int sq_paired_cells(hist *hh, const hist_select *s, const char *partner_family, hist_pair **out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st = cached(h, Q_PAIRS);
    *out = NULL;
    *n = 0;
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, s->family, -1, SQLITE_TRANSIENT);
    bind_text(st, 2, s->ctrl);
    bind_text(st, 3, s->mode);
    sqlite3_bind_text(st, 4, partner_family, -1, SQLITE_TRANSIENT);
    bind_text(st, 5, s->not_ctrl);
    return collect(h, st, 1, sizeof **out, read_pair, (void **)out, n);
}

static int sq_each_positive(hist *hh, int (*fn)(const hist_value *v, void *arg), void *arg)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT cell, run_id, unit, p50, family, size_bytes FROM cells WHERE "
                           "status = 'ok' AND p50 > 0 ORDER BY cell",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const hist_value v = {(const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 4),
                              (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 1),
                              (uint64_t)sqlite3_column_int64(st, 5),    sqlite3_column_double(st, 3)};
        rc = fn(&v, arg);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(h);
    sqlite3_finalize(st);
    return rc;
}

static int sq_cell_estimate(hist *hh, long long run_id, const char *family, const char *const mode[4], long long size,
                            hist_figures *out)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st = cached(h, Q_ESTIMATE);
    *out = NO_FIGURES;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, family, -1, SQLITE_TRANSIENT);
    for (int i = 0; i < 4; i++)
        sqlite3_bind_text(st, 3 + i, mode[0] ? mode[i] : RB_NOT_APPLICABLE, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 7, size);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        out->run_id = run_id;
        out->p50 = col_real(st, 0);
        out->ci_lo = col_real(st, 1);
        out->ci_hi = col_real(st, 2);
    }
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : db_fail(h);
}

// --- judgements, the list of runs, headline figures ----------------------------------------------------

static int sq_judgement_put(hist *hh, long long run_id, const hist_judgement *j)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO judgements VALUES(?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, j->verdict);
    sqlite3_bind_int(st, 3, j->regressions);
    sqlite3_bind_int(st, 4, j->improvements);
    sqlite3_bind_int(st, 5, j->watch);
    bind_text(st, 6, j->judged_utc);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(h);
    sqlite3_finalize(st);
    return rc;
}

#define ENV_COLUMN(col, words) ", r." #col
static const char LIST_SQL[] =
    "SELECT r.run_id, r.file, r.start_utc, r.machine, r.complete, r.schema_version" HIST_ENV_FIELDS(
        ENV_COLUMN) ", r.hostname, r.backend, r.gpu_name, r.wsl2, j.verdict, j.regressions, j.improvements, j.watch, "
                    "j.judged_utc FROM runs r LEFT JOIN judgements j ON j.run_id = r.run_id ORDER BY r.start_utc, "
                    "r.run_id";
#undef ENV_COLUMN

static void read_listed(sqlite3_stmt *st, void *elem)
{
    hist_listed *x = elem;
    int c = 6 + HIST_ENV_COUNT;
    memset(x, 0, sizeof *x);
    read_run(st, &x->run);
    copy_col(x->host, sizeof x->host, st, c);
    copy_col(x->backend, sizeof x->backend, st, c + 1);
    copy_col(x->gpu, sizeof x->gpu, st, c + 2);
    x->wsl2 = sqlite3_column_int(st, c + 3);
    copy_col(x->j.verdict, sizeof x->j.verdict, st, c + 4);
    x->j.regressions = sqlite3_column_int(st, c + 5);
    x->j.improvements = sqlite3_column_int(st, c + 6);
    x->j.watch = sqlite3_column_int(st, c + 7);
    copy_col(x->j.judged_utc, sizeof x->j.judged_utc, st, c + 8);
    snprintf(x->stored, sizeof x->stored, "%s", x->run.file);
}

static int sq_list(hist *hh, hist_listed **out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(h->db, LIST_SQL, -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    return collect(h, st, 0, sizeof **out, read_listed, (void **)out, n);
}

static void read_headline(sqlite3_stmt *st, void *elem)
{
    hist_headline *x = elem;
    copy_col(x->key, sizeof x->key, st, 0);
    x->rate = sqlite3_column_int(st, 1);
    for (int side = 0; side < 2; side++) {
        x->value[side] = col_real(st, 2 + 3 * side);
        x->lo[side] = col_real(st, 3 + 3 * side);
        x->hi[side] = col_real(st, 4 + 3 * side);
    }
    x->ratio = col_real(st, 8);
    x->ratio_lo = col_real(st, 9);
    x->ratio_hi = col_real(st, 10);
    x->size = (uint64_t)sqlite3_column_int64(st, 11);
    x->window = (uint64_t)sqlite3_column_int64(st, 12);
}

static int sq_run_headlines(hist *hh, long long run_id, hist_headline **out, size_t *n)
{
    hist_sqlite *h = sq(hh);
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT figure, rate, native, native_lo, native_hi, fallback, fallback_lo, fallback_hi, "
                           "ratio, ratio_lo, ratio_hi, size_bytes, window FROM headlines WHERE run_id = ?1 ORDER BY "
                           "rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(h);
    sqlite3_bind_int64(st, 1, run_id);
    return collect(h, st, 0, sizeof **out, read_headline, (void **)out, n);
}

// --- open --------------------------------------------------------------------------------------------------

static const hist_ops sqlite_ops = {
    sq_close,         sq_add,           sq_nruns,         sq_run_get,     sq_machine_runs,  sq_other_machines,
    sq_machines,      sq_complete_runs, sq_run_cells,     sq_cell_series, sq_pool_cells,    sq_paired_cells,
    sq_each_positive, sq_cell_estimate, sq_judgement_put, sq_list,        sq_run_headlines,
};

int hist_sqlite_open(const char *dir, const hist_open_options *o, hist **out, char *err, size_t errlen)
{
    *out = NULL;
    if (strlen(dir) >= 4000) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    hist_sqlite *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    h->base.ops = &sqlite_ops;
    snprintf(h->base.dir, sizeof h->base.dir, "%s", dir);
    snprintf(h->index, sizeof h->index, "%s/%s", dir, HIST_INDEX_NAME);
    h->base.notes = o->notes;
    h->base.lock_fd = -1;
    h->base.summarise = o->summarise;
    h->base.summarise_ctx = o->summarise_ctx;
    if (index_open(h, err, errlen) != 0 || exec_sql(h, "PRAGMA foreign_keys = ON", err, errlen) != 0 ||
        scan(h, err, errlen) != 0) {
        sq_close(&h->base);
        return -1;
    }
    *out = &h->base;
    return 0;
}
