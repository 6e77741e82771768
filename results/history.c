/* history.c - the run history of `ringbench track`: copy-in of run files and the SQLite index over
 * them (see history.h). The files are the record; the index is derived and can always be rebuilt.
 * Exercised by tests/test_history.c (rebuild, damaged and foreign files, fingerprints).
 */
#include "history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "h5in.h"

struct hist {
    char dir[4096];
    char index[4200];
    sqlite3 *db;
    FILE *notes;
    size_t indexed; /* run files indexed by the last scan */
};

static const char HIST_SQL_SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE runs("
    " run_id INTEGER PRIMARY KEY, file TEXT UNIQUE NOT NULL, file_size INTEGER, file_mtime INTEGER,"
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
    "CREATE TABLE skipped(file TEXT PRIMARY KEY, file_size INTEGER, file_mtime INTEGER, reason TEXT);";

static void note(hist *h, const char *fmt, ...)
{
    if (!h->notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("ringbench track: ", h->notes);
    vfprintf(h->notes, fmt, ap);
    fputc('\n', h->notes);
    va_end(ap);
}

static int exec_sql(hist *h, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", h->index, msg ? msg : sqlite3_errmsg(h->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

sqlite3 *hist_db(hist *h) { return h->db; }

const char *hist_dir(const hist *h) { return h->dir; }

long long hist_nruns(hist *h)
{
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* --- the index file: open, check, rebuild ------------------------------------------------------ */

/* 1 when the open index passes SQLite's quick check and carries this build's index version. */
static int index_healthy(hist *h)
{
    sqlite3_stmt *st = NULL;
    int ok = 0;
    if (sqlite3_prepare_v2(h->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    if (!ok)
        return 0;
    ok = 0;
    if (sqlite3_prepare_v2(h->db, "SELECT value FROM meta WHERE key = 'index_version'", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        ok = sqlite3_column_int(st, 0) == HIST_INDEX_VERSION;
    sqlite3_finalize(st);
    return ok;
}

static int db_open(hist *h, char *err, size_t errlen)
{
    if (sqlite3_open_v2(h->index, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", h->index, h->db ? sqlite3_errmsg(h->db) : "cannot open");
        sqlite3_close(h->db);
        h->db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(h->db, 10000); /* two nightly jobs on one history wait for each other */
    return 0;
}

/* Creates an empty index (the caller fills it from the files). */
static int index_create(hist *h, char *err, size_t errlen)
{
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT INTO meta VALUES('index_version', '%d');", HIST_INDEX_VERSION);
    if (exec_sql(h, "BEGIN", err, errlen) != 0)
        return -1;
    if (exec_sql(h, HIST_SQL_SCHEMA, err, errlen) != 0 || exec_sql(h, sql, err, errlen) != 0) {
        exec_sql(h, "ROLLBACK", err, 0);
        return -1;
    }
    return exec_sql(h, "COMMIT", err, errlen);
}

/* Opens the index; a missing one is created, a damaged one moved aside to index.sqlite.damaged
 * and replaced by a new one. */
static int index_open(hist *h, char *err, size_t errlen)
{
    struct stat sb;
    int existed = stat(h->index, &sb) == 0;
    if (existed) {
        if (db_open(h, err, errlen) == 0 && index_healthy(h))
            return 0;
        sqlite3_close(h->db);
        h->db = NULL;
        char aside[4300];
        snprintf(aside, sizeof aside, "%s.damaged", h->index);
        if (rename(h->index, aside) != 0) {
            snprintf(err, errlen, "%s is damaged and cannot be moved aside: %s", h->index, strerror(errno));
            return -1;
        }
        char journal[4300];
        snprintf(journal, sizeof journal, "%s-journal", h->index);
        unlink(journal);
        note(h, "%s was damaged or from another version: moved to %s; rebuilding from the run files", h->index, aside);
    } else {
        note(h, "no index in %s: building it from the run files", h->dir);
    }
    if (db_open(h, err, errlen) != 0)
        return -1;
    return index_create(h, err, errlen);
}

/* --- indexing one run file --------------------------------------------------------------------- */

static const char *prov(const h5in *r, const char *name, const char *dflt)
{
    const char *v = h5in_attr(r, RB_H5_PROVENANCE, name);
    return v && *v ? v : dflt;
}

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

static void utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static long long insert_run(hist *h, const h5in *r, const char *name, const struct stat *sb, char *err, size_t errlen)
{
    static const char sql[] =
        "INSERT INTO runs(file, file_size, file_mtime, start_utc, end_utc, added_utc, complete, preset, machine,"
        " hostname, backend, gpu_name, pci_bus_id, wsl2, driver, cuda_runtime, kernel_release, suite_version,"
        " git_commit, schema_version, pci_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", h->index, sqlite3_errmsg(h->db));
        return -1;
    }
    char added[32];
    utc_now(added, sizeof added);
    const char *host = prov(r, "hostname", "unknown"), *backend = prov(r, "backend", "unknown");
    const char *gpu = prov(r, "gpu_name", "none"), *bus = prov(r, "pci_bus_id", "none");
    const char *wsl2 = prov(r, "wsl2", "0");
    /* The fingerprint is a key: allocated at its full length, never cut (two long GPU names that
     * share a prefix are two machines). */
    const char *fmt = "%s | %s | %s | %s | %s", *kind = strcmp(wsl2, "1") == 0 ? "WSL2" : "native";
    int mlen = snprintf(NULL, 0, fmt, host, backend, gpu, bus, kind);
    char *machine = mlen < 0 ? NULL : malloc((size_t)mlen + 1);
    if (machine == NULL) {
        snprintf(err, errlen, "%s: out of memory for the machine fingerprint", h->index);
        sqlite3_finalize(st);
        return -1;
    }
    snprintf(machine, (size_t)mlen + 1, fmt, host, backend, gpu, bus, kind);
    /* The driver by its NVML version string where the run had NVML, else the CUDA driver API number. */
    const char *driver = prov(r, "nvml_driver_version", NULL);
    if (!driver || strcmp(driver, "unknown") == 0)
        driver = prov(r, "driver_version", "unknown");
    const char *start = prov(r, "start_utc", NULL);
    char mtime_utc[32];
    if (!start) {
        struct tm tm;
        gmtime_r(&sb->st_mtime, &tm);
        strftime(mtime_utc, sizeof mtime_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
        start = mtime_utc;
    }
    int i = 1;
    bind_text(st, i++, name);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)sb->st_size);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)sb->st_mtime);
    bind_text(st, i++, start);
    bind_text(st, i++, prov(r, "end_utc", NULL));
    bind_text(st, i++, added);
    sqlite3_bind_int(st, i++, h5in_complete(r));
    bind_text(st, i++, prov(r, "preset", NULL));
    bind_text(st, i++, machine);
    bind_text(st, i++, host);
    bind_text(st, i++, backend);
    bind_text(st, i++, gpu);
    bind_text(st, i++, bus);
    sqlite3_bind_int(st, i++, strcmp(wsl2, "1") == 0);
    bind_text(st, i++, driver);
    bind_text(st, i++, prov(r, "runtime_version", "unknown"));
    bind_text(st, i++, prov(r, "kernel_release", "unknown"));
    bind_text(st, i++, prov(r, "suite_version", "unknown"));
    bind_text(st, i++, prov(r, "git_commit", "unknown"));
    sqlite3_bind_int(st, i++, h5in_schema_version(r));
    bind_text(st, i++, prov(r, "pci_id", "unknown"));
    long long id = -1;
    if (sqlite3_step(st) == SQLITE_DONE)
        id = sqlite3_last_insert_rowid(h->db);
    else
        snprintf(err, errlen, "%s: %s", h->index, sqlite3_errmsg(h->db));
    sqlite3_finalize(st);
    free(machine);
    return id;
}

/* The modes of a bimodal ok latency row, as its file records them (results/bimodal.h; the reader
 * computes them for files before schema 4): binds mode_lo, mode_hi and slow_share at i, i+1, i+2,
 * NULL when the row has one mode. Latency only: track judges such a cell on its fast mode, a point
 * without an interval, and other time families (lifecycle cells of ~20 samples) were never judged
 * so. */
static void bind_modes(const rb_row *row, sqlite3_stmt *st, int i)
{
    const int two = row->bimodal == 1 && strcmp(row->status, RB_STATUS_OK) == 0 && strcmp(row->family, "latency") == 0;
    bind_real(st, i, two ? row->mode_fast : NAN);
    bind_real(st, i + 1, two ? row->mode_slow : NAN);
    bind_real(st, i + 2, two ? row->slow_share : NAN);
}

static int insert_cells(hist *h, const h5in *r, long long run_id, char *err, size_t errlen)
{
    static const char sql[] =
        "INSERT OR REPLACE INTO cells(run_id, cell, family, host_mem, xfer, launch, ctrl, size_bytes, window,"
        " unit, status, p50, ci_lo, ci_hi, ci_method, trials, trial_cv, msgs_per_s, ratio_floor, ratio_memcpy,"
        " mode_lo, mode_hi, slow_share, trial_p50_min, trial_p50_max)"
        " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", h->index, sqlite3_errmsg(h->db));
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < h5in_nrows(r) && rc == 0; k++) {
        const rb_row *row = h5in_row(r, k);
        char key[256];
        export_cell_key(row, key, sizeof key);
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
        bind_modes(row, st, i);
        i += 3;
        bind_real(st, i++, row->trial_p50_min);
        bind_real(st, i++, row->trial_p50_max);
        if (sqlite3_step(st) != SQLITE_DONE) {
            snprintf(err, errlen, "%s: %s", h->index, sqlite3_errmsg(h->db));
            rc = -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static void record_skipped(hist *h, const char *name, const struct stat *sb, const char *reason)
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

/* Indexes DIR/name. Returns the run id, 0 when the reader refused the file (recorded in skipped,
 * reason in err), or -1 on an index error. */
static long long index_file(hist *h, const char *name, char *err, size_t errlen)
{
    char path[8300];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", h->dir, name);
    if (stat(path, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return 0;
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
        note(h, "%s", h5in_warning(r, i));
    long long id = -1;
    if (exec_sql(h, "BEGIN", err, errlen) == 0) {
        id = insert_run(h, r, name, &sb, err, errlen);
        if (id > 0 && insert_cells(h, r, id, err, errlen) != 0)
            id = -1;
        if (exec_sql(h, id > 0 ? "COMMIT" : "ROLLBACK", err, errlen) != 0)
            id = -1;
    }
    h5in_close(r);
    return id;
}

/* --- scanning the directory -------------------------------------------------------------------- */

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* 1 when `sql` with name bound as ?1 (and size, mtime as ?2, ?3 when given) returns a row. */
static int has_row(hist *h, const char *sql, const char *name, const struct stat *sb)
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

static int scan_one(hist *h, const char *name)
{
    char path[8300], err[600];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", h->dir, name);
    if (stat(path, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        if (!is_own_file(name))
            note(h, "%s: a directory, not a run file: ignored", path);
        return 0;
    }
    if (!ends_with(name, ".h5")) {
        note(h, "%s: not a run file (%s): ignored", path,
             ends_with(name, ".partial") ? "an unfinished run" : "not .h5");
        return 0;
    }
    if (has_row(h, "SELECT 1 FROM runs WHERE file = ?1", name, NULL))
        return 0;
    sqlite3_stmt *st;
    if (has_row(h, "SELECT 1 FROM skipped WHERE file = ?1 AND file_size = ?2 AND file_mtime = ?3", name, &sb)) {
        if (sqlite3_prepare_v2(h->db, "SELECT reason FROM skipped WHERE file = ?1", -1, &st, NULL) == SQLITE_OK) {
            bind_text(st, 1, name);
            if (sqlite3_step(st) == SQLITE_ROW)
                note(h, "skipped %s: %s", path, (const char *)sqlite3_column_text(st, 0));
            sqlite3_finalize(st);
        }
        return 0;
    }
    long long id = index_file(h, name, err, sizeof err);
    if (id < 0)
        return -1;
    if (id == 0)
        note(h, "skipped %s: %s", path, err);
    else
        h->indexed++;
    return 0;
}

/* Drops index rows whose file has gone (the files are the record). */
static void drop_vanished(hist *h)
{
    sqlite3_stmt *st, *del;
    if (sqlite3_prepare_v2(h->db, "SELECT run_id, file FROM runs", -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_prepare_v2(h->db, "DELETE FROM runs WHERE run_id = ?", -1, &del, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", h->dir, (const char *)sqlite3_column_text(st, 1));
        if (access(path, F_OK) == 0)
            continue;
        note(h, "%s is gone: dropped from the index", path);
        sqlite3_bind_int64(del, 1, sqlite3_column_int64(st, 0));
        sqlite3_step(del);
        sqlite3_reset(del);
    }
    sqlite3_finalize(del);
    sqlite3_finalize(st);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int scan(hist *h, char *err, size_t errlen)
{
    DIR *d = opendir(h->dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", h->dir, strerror(errno));
        return -1;
    }
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
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names); /* a deterministic order of notes and run ids */
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && scan_one(h, names[i]) != 0) {
            snprintf(err, errlen, "%s: cannot update the index: %s", h->index, sqlite3_errmsg(h->db));
            rc = -1;
        }
        free(names[i]);
    }
    free(names);
    if (rc == 0)
        drop_vanished(h);
    if (h->indexed)
        note(h, "indexed %zu run file%s found in %s", h->indexed, h->indexed == 1 ? "" : "s", h->dir);
    return rc;
}

/* --- open, add, close -------------------------------------------------------------------------- */

static int mkdir_p(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int hist_open(const char *dir, FILE *notes, hist **out, char *err, size_t errlen)
{
    *out = NULL;
    if (strlen(dir) >= 4000) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    hist *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(h->dir, sizeof h->dir, "%s", dir);
    snprintf(h->index, sizeof h->index, "%s/%s", dir, HIST_INDEX_NAME);
    h->notes = notes;
    struct stat sb;
    if (mkdir_p(dir) != 0 || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: cannot create the history directory: %s", dir, strerror(errno ? errno : ENOTDIR));
        free(h);
        return -1;
    }
    if (index_open(h, err, errlen) != 0 || exec_sql(h, "PRAGMA foreign_keys = ON", err, errlen) != 0 ||
        scan(h, err, errlen) != 0) {
        hist_close(h);
        return -1;
    }
    *out = h;
    return 0;
}

void hist_close(hist *h)
{
    if (!h)
        return;
    sqlite3_close(h->db);
    free(h);
}

/* 1 when the two files hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    char x[65536], y[65536];
    while (same) {
        size_t na = fread(x, 1, sizeof x, fa), nb = fread(y, 1, sizeof y, fb);
        if (na != nb || memcmp(x, y, na) != 0)
            same = 0;
        if (na < sizeof x)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Copies src to dst through dst's directory: a temporary file, fsynced, then linked to dst (link
 * never replaces an existing file) and the temporary removed. Returns 0, or -1 with err. */
static int copy_in(const char *src, const char *dir, const char *dst, char *err, size_t errlen)
{
    char tmp[8300];
    snprintf(tmp, sizeof tmp, "%s/.incoming-%ld.h5", dir, (long)getpid());
    int in = open(src, O_RDONLY), outfd = in < 0 ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int rc = in < 0 || outfd < 0 ? -1 : 0, e = errno;
    char buf[1 << 16];
    ssize_t n, w;
    /* A short write is written on until one fails: its errno is the reason (a full disk's ENOSPC); one
     * short write alone sets none, and an earlier call's stale errno was reported instead. */
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        for (ssize_t done = 0; rc == 0 && n > 0 && done < n; done += w)
            if ((w = write(outfd, buf + done, (size_t)(n - done))) < 0)
                rc = -1, e = errno;
        if (n < 0)
            rc = -1, e = errno;
    }
    if (rc == 0 && fsync(outfd) != 0)
        rc = -1, e = errno;
    if (rc != 0)
        snprintf(err, errlen, "copying %s into %s: %s", src, dir, strerror(e));
    if (in >= 0)
        close(in);
    if (outfd >= 0 && close(outfd) != 0 && rc == 0) {
        snprintf(err, errlen, "copying %s into %s: %s", src, dir, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && link(tmp, dst) != 0) {
        snprintf(err, errlen, "%s: %s", dst, strerror(errno));
        rc = -1;
    }
    unlink(tmp);
    if (rc == 0) {
        int dfd = open(dir, O_RDONLY);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return rc;
}

static long long run_id_of(hist *h, const char *name)
{
    sqlite3_stmt *st;
    long long id = 0;
    if (sqlite3_prepare_v2(h->db, "SELECT run_id FROM runs WHERE file = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    bind_text(st, 1, name);
    if (sqlite3_step(st) == SQLITE_ROW)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

/* A run already in the history with the same bytes as path: its file name, or 0. */
static int find_same(hist *h, const char *path, off_t size, char *name, size_t n)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(h->db, "SELECT file FROM runs WHERE file_size = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)size);
    while (!found && sqlite3_step(st) == SQLITE_ROW) {
        char other[8300];
        const char *f = (const char *)sqlite3_column_text(st, 0);
        snprintf(other, sizeof other, "%s/%s", h->dir, f);
        if (same_bytes(path, other)) {
            snprintf(name, n, "%s", f);
            found = 1;
        }
    }
    sqlite3_finalize(st);
    return found;
}

int hist_add(hist *h, const char *path, long long *run_id, int *already, char *err, size_t errlen)
{
    *run_id = 0;
    *already = 0;
    h5in *r = NULL;
    if (h5in_open(path, &r, err, errlen) != 0)
        return -1;
    h5in_close(r);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char name[1024];
    if (find_same(h, path, sb.st_size, name, sizeof name)) {
        *already = 1;
        *run_id = run_id_of(h, name);
        return 0;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[900], dst[8300];
    snprintf(stem, sizeof stem, "%.*s", (int)(ends_with(base, ".h5") ? strlen(base) - 3 : strlen(base)), base);
    snprintf(name, sizeof name, "%s.h5", stem);
    for (int k = 1;; k++) {
        snprintf(dst, sizeof dst, "%s/%s", h->dir, name);
        if (access(dst, F_OK) != 0)
            break;
        if (k > 9999) {
            snprintf(err, errlen, "%s: no free name for %s", h->dir, base);
            return -1;
        }
        snprintf(name, sizeof name, "%s-%d.h5", stem, k);
    }
    if (copy_in(path, h->dir, dst, err, errlen) != 0)
        return -1;
    long long id = index_file(h, name, err, errlen);
    if (id <= 0)
        return -1;
    *run_id = id;
    return 0;
}
