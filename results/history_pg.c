/* history_pg.c - a history shared by many machines on a PostgreSQL server (history.h), through libpq:
 * `ringbench track RUN.h5 --history postgresql://...`. The database is the record of what judging
 * and the fleet page need: machines with their fingerprints, runs keyed by their content (the SHA-256
 * of the file, hist_file_key: unique, so the same file twice is one run), each run's cells with the
 * statistics track judges, its headline figures and the night's judgement. The run file itself is
 * copied into a store folder (the machine's own by default, or a shared one: --store DIR), its host,
 * path and key recorded. Everything lives in the schema `ringbench` of the database, created on first
 * use with its version in ringbench.meta; docs/decisions/0160-shared-history-schema.md says why it
 * is shaped so. Each ingest is one transaction: a killed or cut-off ingest leaves nothing, and two
 * ingests of one file at once store it once (the unique key decides; the loser reads the winner's id).
 * Exercised by tests/fleet_cli.sh against a throwaway server (tests/pg_cluster.sh).
 */
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "history_internal.h"
#include "schema.h"

/* The database schema's version (ringbench.meta 'schema_version'). A change of the tables below gets
 * a new version and a step in MIGRATIONS from the one before. */
#define PG_SCHEMA_VERSION 1

/* The statements judging runs again and again, prepared once per connection. */
enum { Q_SERIES, Q_POOL, Q_PAIRS, Q_ESTIMATE, Q_COUNT };

typedef struct hist_pg {
    hist base; /* first: a hist_pg is a hist; base.dir is the store */
    PGconn *db;
    char host[256]; /* this machine's name: where a run file kept in its store is */
    int prepared[Q_COUNT];
} hist_pg;

static const char PG_SCHEMA[] =
    "CREATE SCHEMA IF NOT EXISTS ringbench;"
    "CREATE TABLE ringbench.meta(key text PRIMARY KEY, value text NOT NULL);"
    "CREATE TABLE ringbench.machines("
    " machine_id bigserial PRIMARY KEY, fingerprint text UNIQUE NOT NULL, hostname text NOT NULL,"
    " backend text NOT NULL, gpu_name text NOT NULL, pci_bus_id text NOT NULL, wsl2 boolean NOT NULL,"
    " first_seen timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE ringbench.runs("
    " run_id bigserial PRIMARY KEY, run_key text UNIQUE NOT NULL CHECK (run_key ~ '^[0-9a-f]{64}$'),"
    " machine_id bigint NOT NULL REFERENCES ringbench.machines, file text NOT NULL, stored_on text NOT NULL,"
    " stored_path text NOT NULL, file_size bigint NOT NULL, start_utc text NOT NULL, end_utc text,"
    " added timestamptz NOT NULL DEFAULT now(), complete boolean NOT NULL, preset text, driver text,"
    " cuda_runtime text, kernel_release text, suite_version text, git_commit text, schema_version integer,"
    " pci_id text);"
    "CREATE INDEX runs_by_machine ON ringbench.runs(machine_id, start_utc);"
    "CREATE TABLE ringbench.cells("
    " run_id bigint NOT NULL REFERENCES ringbench.runs ON DELETE CASCADE, cell text NOT NULL, family text,"
    " host_mem text, xfer text, launch text, ctrl text, size_bytes bigint, ring_window bigint, unit text,"
    " status text, p50 double precision, ci_lo double precision, ci_hi double precision, ci_method text,"
    " trials bigint, trial_cv double precision, msgs_per_s double precision, ratio_floor double precision,"
    " ratio_memcpy double precision, mode_lo double precision, mode_hi double precision,"
    " slow_share double precision, trial_p50_min double precision, trial_p50_max double precision,"
    " PRIMARY KEY(run_id, cell));"
    "CREATE INDEX cells_by_cell ON ringbench.cells(cell, run_id);"
    "CREATE INDEX cells_by_family ON ringbench.cells(family, size_bytes, ring_window);"
    "CREATE TABLE ringbench.headlines("
    " run_id bigint NOT NULL REFERENCES ringbench.runs ON DELETE CASCADE, figure text NOT NULL,"
    " ord integer NOT NULL, rate boolean NOT NULL, native double precision, native_lo double precision,"
    " native_hi double precision, fallback double precision, fallback_lo double precision,"
    " fallback_hi double precision, ratio double precision, ratio_lo double precision,"
    " ratio_hi double precision, size_bytes bigint, ring_window bigint, PRIMARY KEY(run_id, figure));"
    "CREATE TABLE ringbench.judgements("
    " run_id bigint PRIMARY KEY REFERENCES ringbench.runs ON DELETE CASCADE, verdict text NOT NULL,"
    " regressions integer NOT NULL, improvements integer NOT NULL, watch integer NOT NULL, judged_utc text);";

/* Steps from schema version k to k + 1 (MIGRATIONS[k - 1]); none yet: version 1 is the first. */
static const char *const MIGRATIONS[] = {NULL};

static hist_pg *pg(hist *h) { return (hist_pg *)h; }

/* libpq's message of the connection as one line (its messages end in a newline and may hold a
 * second, indented line: "Is the server running ...?"). */
static const char *pg_message(PGconn *db, char *buf, size_t n)
{
    const char *m = db ? PQerrorMessage(db) : "out of memory";
    size_t len = 0;
    for (const char *p = m; *p && len + 1 < n; p++) {
        if (*p == '\n' || *p == '\t') {
            while (p[1] == '\t' || p[1] == ' ' || p[1] == '\n')
                p++;
            if (p[1] && len + 2 < n) {
                buf[len++] = ';';
                buf[len++] = ' ';
            }
            continue;
        }
        buf[len++] = *p;
    }
    buf[len] = '\0';
    return len ? buf : "the server gave no reason";
}

/* The connection's last error as hist_error's line; returns -1. */
static int db_fail(hist_pg *h)
{
    char msg[900];
    return hist_fail(&h->base, "%s: %s", h->base.location, pg_message(h->db, msg, sizeof msg));
}

/* 1 when res is the outcome wanted (PGRES_COMMAND_OK or _TUPLES_OK); else 0, res cleared and the
 * error recorded. */
static int res_ok(hist_pg *h, PGresult *res, ExecStatusType want)
{
    if (res && PQresultStatus(res) == want)
        return 1;
    char msg[900];
    const char *why = res ? PQresultErrorMessage(res) : "";
    if (res && (!why || !*why))
        snprintf(msg, sizeof msg, "unexpected reply %s", PQresStatus(PQresultStatus(res)));
    else if (!why || !*why)
        pg_message(h->db, msg, sizeof msg);
    else
        snprintf(msg, sizeof msg, "%s", why);
    msg[strcspn(msg, "\n")] = '\0';
    hist_fail(&h->base, "%s: %s", h->base.location, msg);
    PQclear(res);
    return 0;
}

/* A statement without parameters or rows. Returns 0, or -1 with hist_error set. */
static int exec_cmd(hist_pg *h, const char *sql)
{
    PGresult *res = PQexec(h->db, sql);
    if (!res_ok(h, res, PGRES_COMMAND_OK))
        return -1;
    PQclear(res);
    return 0;
}

/* A query with text parameters (NULL: SQL NULL); NULL on an error (hist_error set). */
static PGresult *query(hist_pg *h, const char *sql, int n, const char *const *params)
{
    PGresult *res = PQexecParams(h->db, sql, n, NULL, params, NULL, NULL, 0);
    return res_ok(h, res, PGRES_TUPLES_OK) ? res : NULL;
}

static void rollback(hist_pg *h) { PQclear(PQexec(h->db, "ROLLBACK")); }

// --- the schema: created on first use, checked every time -----------------------------------------------

/* The schema version the database holds into *version: 0 when there is no ringbench schema yet, -1
 * when the schema exists without a version (not a ringbench history). Returns 0, or -1 on an error. */
static int schema_version(hist_pg *h, int *version)
{
    PGresult *res = query(h, "SELECT to_regclass('ringbench.meta') IS NOT NULL", 0, NULL);
    if (!res)
        return -1;
    int has_meta = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
    PQclear(res);
    *version = 0;
    if (!has_meta) {
        res = query(h, "SELECT count(*) FROM pg_namespace WHERE nspname = 'ringbench'", 0, NULL);
        if (!res)
            return -1;
        *version = atoi(PQgetvalue(res, 0, 0)) > 0 ? -1 : 0;
        PQclear(res);
        return 0;
    }
    res = query(h, "SELECT value FROM ringbench.meta WHERE key = 'schema_version'", 0, NULL);
    if (!res)
        return -1;
    *version = PQntuples(res) == 1 ? atoi(PQgetvalue(res, 0, 0)) : -1;
    PQclear(res);
    return 0;
}

/* Creates the schema, or migrates an older one, in the open transaction. Returns 0, or -1 with err. */
static int schema_make(hist_pg *h, int version, char *err, size_t errlen)
{
    char sql[160];
    if (version == 0) {
        if (exec_cmd(h, PG_SCHEMA) != 0)
            goto fail;
        hist_note(&h->base, "%s: created the ringbench schema (version %d)", h->base.location, PG_SCHEMA_VERSION);
    }
    for (int v = version ? version : PG_SCHEMA_VERSION; v < PG_SCHEMA_VERSION; v++) {
        if (exec_cmd(h, MIGRATIONS[v - 1]) != 0)
            goto fail;
        hist_note(&h->base, "%s: migrated the ringbench schema from version %d to %d", h->base.location, v, v + 1);
    }
    snprintf(sql, sizeof sql,
             "INSERT INTO ringbench.meta VALUES('schema_version', '%d') ON CONFLICT (key) DO UPDATE SET value = "
             "EXCLUDED.value",
             PG_SCHEMA_VERSION);
    if (exec_cmd(h, sql) == 0)
        return 0;
fail:
    snprintf(err, errlen, "%s", hist_error(&h->base));
    return -1;
}

/* Checks the schema, creating it on first use, under a transaction-wide advisory lock so that two
 * machines opening a new database at once create it once. Returns 0, or -1 with err. */
static int schema_check(hist_pg *h, char *err, size_t errlen)
{
    int version = 0, rc = -1;
    PGresult *lock = NULL;
    if (exec_cmd(h, "BEGIN") != 0 || !(lock = query(h, "SELECT pg_advisory_xact_lock(7406061)", 0, NULL)) ||
        (PQclear(lock), schema_version(h, &version) != 0)) {
        snprintf(err, errlen, "%s", hist_error(&h->base));
        rollback(h);
        return -1;
    }
    if (version < 0)
        snprintf(err, errlen,
                 "%s: the database has a schema named ringbench that is not a ringbench history (no "
                 "ringbench.meta schema_version): use another database, or drop that schema",
                 h->base.location);
    else if (version > PG_SCHEMA_VERSION)
        snprintf(err, errlen,
                 "%s: the history's schema is version %d, newer than this ringbench knows (%d): update ringbench "
                 "on this machine (every machine of a fleet needs one that knows version %d); nothing was written",
                 h->base.location, version, PG_SCHEMA_VERSION, version);
    else if (version == PG_SCHEMA_VERSION || schema_make(h, version, err, errlen) == 0)
        rc = 0;
    if (rc == 0 && exec_cmd(h, "COMMIT") != 0) {
        snprintf(err, errlen, "%s", hist_error(&h->base));
        rc = -1;
    }
    if (rc != 0)
        rollback(h);
    return rc;
}

// --- ingest: the run file into the store, then one transaction ------------------------------------------

/* The store folder when none is given: the machine's own (history.h HIST_LOCAL_STORE). */
static int local_store(char *buf, size_t n, char *err, size_t errlen)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int len;
    if (state && state[0] == '/')
        len = snprintf(buf, n, "%s/%s", state, HIST_LOCAL_STORE);
    else if (home && home[0] == '/')
        len = snprintf(buf, n, "%s/.local/state/%s", home, HIST_LOCAL_STORE);
    else {
        snprintf(err, errlen,
                 "no --store DIR given, and neither XDG_STATE_HOME nor HOME is an absolute path to keep run files "
                 "under");
        return -1;
    }
    if (len < 0 || (size_t)len >= n) {
        snprintf(err, errlen, "the run store's path is too long: give --store DIR");
        return -1;
    }
    return 0;
}

/* The store, created when absent, as an absolute path (the recorded path must mean something on this
 * machine later). */
static int open_store(hist_pg *h, const char *store, char *err, size_t errlen)
{
    char dir[4096];
    if (store)
        snprintf(dir, sizeof dir, "%s", store);
    else if (local_store(dir, sizeof dir, err, errlen) != 0)
        return -1;
    struct stat sb;
    if (hist_mkdir_p(dir) != 0 || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: cannot create the run store: %s", dir, strerror(errno ? errno : ENOTDIR));
        return -1;
    }
    char cwd[4096];
    if (dir[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        snprintf(err, errlen, "%s: the working directory: %s", dir, strerror(errno));
        return -1;
    }
    int len = dir[0] == '/' ? snprintf(h->base.dir, sizeof h->base.dir, "%s", dir)
                            : snprintf(h->base.dir, sizeof h->base.dir, "%s/%s", cwd, dir);
    if (len < 0 || (size_t)len >= sizeof h->base.dir) {
        snprintf(err, errlen, "%s: the run store's path is too long", dir);
        return -1;
    }
    return 0;
}

/* 1 when the file at path has content key key. */
static int has_key(const char *path, const char *key)
{
    char k[65], err[64];
    return hist_file_key(path, k, err, sizeof err) == 0 && strcmp(k, key) == 0;
}

/* Puts the file at path into the store as name (STEM.h5, or STEM-KEY12.h5 where STEM.h5 holds other
 * bytes); a file of the same bytes already there is used as it is. Returns 0, or -1 with err. */
static int store_file(hist_pg *h, const char *path, const char *key, char *name, size_t n, char *err, size_t errlen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int stem = (int)(hist_ends_with(base, ".h5") ? strlen(base) - 3 : strlen(base));
    char dst[8300];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt == 0)
            snprintf(name, n, "%.*s.h5", stem > 200 ? 200 : stem, base);
        else
            snprintf(name, n, "%.*s-%.12s.h5", stem > 200 ? 200 : stem, base, key);
        snprintf(dst, sizeof dst, "%s/%s", h->base.dir, name);
        if (access(dst, F_OK) == 0) {
            if (has_key(dst, key))
                return 0;
            continue;
        }
        if (hist_copy_in(path, h->base.dir, dst, err, errlen) == 0)
            return 0;
        if (access(dst, F_OK) == 0 && has_key(dst, key))
            return 0; /* another job stored the same file meanwhile */
        return -1;
    }
    snprintf(err, errlen, "%s: %s and %.*s-%.12s.h5 both hold other files", h->base.dir, name, stem, base, key);
    return -1;
}

/* The run's id by its key into *id (0 when absent). Returns 0, or -1 on an error. */
static int run_by_key(hist_pg *h, const char *key, long long *id)
{
    const char *p[1] = {key};
    PGresult *res = query(h, "SELECT run_id FROM ringbench.runs WHERE run_key = $1", 1, p);
    if (!res)
        return -1;
    *id = PQntuples(res) ? atoll(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return 0;
}

/* The machine of rec (inserted when new) into *id. Returns 0, or -1. */
static int machine_id(hist_pg *h, const hist_record *rec, char *id, size_t n)
{
    const char *p[6] = {rec->machine,  rec->hostname,   rec->backend,
                        rec->gpu_name, rec->pci_bus_id, rec->wsl2 ? "t" : "f"};
    /* DO UPDATE, not DO NOTHING: it returns the row also when it was there (or was just inserted by
     * another transaction, which this one then waits for). */
    PGresult *res = query(h,
                          "INSERT INTO ringbench.machines(fingerprint, hostname, backend, gpu_name, pci_bus_id, wsl2) "
                          "VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT (fingerprint) DO UPDATE SET fingerprint = "
                          "EXCLUDED.fingerprint RETURNING machine_id",
                          6, p);
    if (!res)
        return -1;
    snprintf(id, n, "%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    return 0;
}

/* The runs row of the open file r into *id (0: a run of this key is there already). */
static int insert_run(hist_pg *h, const h5in *r, const char *name, const char *key, const struct stat *sb,
                      long long *id)
{
    hist_record rec;
    char mid[32], size[32], schema[16], stored[8400];
    if (hist_record_of(r, sb, &rec) != 0)
        return hist_fail(&h->base, "out of memory for the machine fingerprint");
    int rc = machine_id(h, &rec, mid, sizeof mid);
    snprintf(size, sizeof size, "%lld", (long long)sb->st_size);
    snprintf(schema, sizeof schema, "%d", rec.schema_version);
    snprintf(stored, sizeof stored, "%s/%s", h->base.dir, name);
    const char *p[17] = {key,
                         mid,
                         name,
                         size,
                         h->host,
                         stored,
                         rec.start_utc,
                         rec.end_utc,
                         rec.complete ? "t" : "f",
                         rec.preset,
                         rec.driver,
                         rec.cuda_runtime,
                         rec.kernel_release,
                         rec.suite_version,
                         rec.git_commit,
                         schema,
                         rec.pci_id};
    PGresult *res =
        rc != 0 ? NULL
                : query(h,
                        "INSERT INTO ringbench.runs(run_key, machine_id, file, file_size, stored_on, stored_path, "
                        "start_utc, end_utc, complete, preset, driver, cuda_runtime, kernel_release, suite_version, "
                        "git_commit, schema_version, pci_id) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
                        "$12, $13, $14, $15, $16, $17) ON CONFLICT (run_key) DO NOTHING RETURNING run_id",
                        17, p);
    hist_record_free(&rec);
    if (!res)
        return -1;
    *id = PQntuples(res) ? atoll(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return 0;
}

/* s into the COPY text format: backslash, tab, newline and carriage return escaped; NULL as \N. */
static size_t copy_text(char *buf, size_t n, const char *s)
{
    size_t len = 0;
    if (!s)
        return (size_t)snprintf(buf, n, "\\N");
    for (; *s && len + 3 < n; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
        if (esc) {
            memcpy(buf + len, esc, 2);
            len += 2;
        } else {
            buf[len++] = *s;
        }
    }
    buf[len] = '\0';
    return len;
}

/* One field of a COPY line, with the tab before it unless it is the first. */
static void put_text(char *line, size_t n, size_t *len, const char *s)
{
    if (*len && *len < n)
        line[(*len)++] = '\t';
    if (*len < n)
        *len += copy_text(line + *len, n - *len, s);
}

static void put_real(char *line, size_t n, size_t *len, double v)
{
    char num[40];
    if (isfinite(v))
        snprintf(num, sizeof num, "%.17g", v);
    put_text(line, n, len, isfinite(v) ? num : NULL);
}

static void put_int(char *line, size_t n, size_t *len, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    put_text(line, n, len, num);
}

/* A row of the file as a COPY line of ringbench.cells, in its column order. */
static size_t cell_line(char *line, size_t n, long long run_id, const rb_row *row)
{
    char key[256];
    double lo, hi, share;
    size_t len = 0;
    export_cell_key(row, key, sizeof key);
    hist_row_modes(row, &lo, &hi, &share);
    put_int(line, n, &len, run_id);
    put_text(line, n, &len, key);
    const char *texts[5] = {row->family, row->host_mem, row->xfer, row->launch, row->ctrl};
    for (int i = 0; i < 5; i++)
        put_text(line, n, &len, texts[i]);
    put_int(line, n, &len, (long long)row->size_bytes);
    put_int(line, n, &len, (long long)row->window);
    put_text(line, n, &len, row->unit);
    put_text(line, n, &len, row->status);
    put_real(line, n, &len, row->p50);
    put_real(line, n, &len, row->ci_lo);
    put_real(line, n, &len, row->ci_hi);
    put_text(line, n, &len, row->ci_method[0] ? row->ci_method : RB_CI_SAMPLES);
    put_int(line, n, &len, (long long)row->trials);
    const double reals[9] = {row->trial_cv, row->msgs_per_s,    row->ratio_floor,  row->ratio_memcpy, lo, hi,
                             share,         row->trial_p50_min, row->trial_p50_max};
    for (int i = 0; i < 9; i++)
        put_real(line, n, &len, reals[i]);
    if (len < n)
        line[len++] = '\n';
    return len;
}

/* Every row of r into ringbench.cells, by COPY. A file may hold a row twice (a damaged one): the
 * last is kept, as the folder index keeps it, by copying into a temporary table first. */
static int insert_cells(hist_pg *h, const h5in *r, long long run_id)
{
    if (exec_cmd(h, "CREATE TEMP TABLE incoming (LIKE ringbench.cells) ON COMMIT DROP") != 0)
        return -1;
    PGresult *res = PQexec(h->db, "COPY incoming FROM STDIN");
    if (!res || PQresultStatus(res) != PGRES_COPY_IN)
        return res_ok(h, res, PGRES_COPY_IN) ? 0 : -1;
    PQclear(res);
    char line[4096];
    int ok = 1;
    for (size_t k = 0; k < h5in_nrows(r) && ok; k++) {
        size_t len = cell_line(line, sizeof line, run_id, h5in_row(r, k));
        ok = PQputCopyData(h->db, line, (int)len) == 1;
    }
    if (PQputCopyEnd(h->db, ok ? NULL : "ringbench: cannot send a cell") != 1)
        ok = 0;
    res = PQgetResult(h->db);
    if (!res_ok(h, res, PGRES_COMMAND_OK))
        ok = 0;
    else
        PQclear(res);
    while ((res = PQgetResult(h->db)) != NULL)
        PQclear(res);
    if (!ok)
        return -1;
    return exec_cmd(h,
                    "INSERT INTO ringbench.cells SELECT DISTINCT ON (cell) * FROM incoming ORDER BY cell, ctid DESC");
}

/* The headline figures hl[0 .. n) of run_id. */
static int insert_headlines(hist_pg *h, long long run_id, const hist_headline *hl, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const hist_headline *x = &hl[k];
        const double v[9] = {x->value[0], x->lo[0], x->hi[0],    x->value[1], x->lo[1],
                             x->hi[1],    x->ratio, x->ratio_lo, x->ratio_hi};
        char id[32], ord[24], num[9][40], size[32], win[32];
        const char *p[15] = {id, x->key, ord, x->rate ? "t" : "f"};
        snprintf(id, sizeof id, "%lld", run_id);
        snprintf(ord, sizeof ord, "%zu", k);
        for (int i = 0; i < 9; i++) {
            snprintf(num[i], sizeof num[i], "%.17g", v[i]);
            p[4 + i] = isfinite(v[i]) ? num[i] : NULL;
        }
        snprintf(size, sizeof size, "%llu", (unsigned long long)x->size);
        snprintf(win, sizeof win, "%llu", (unsigned long long)x->window);
        p[13] = size;
        p[14] = win;
        PGresult *res = PQexecParams(h->db,
                                     "INSERT INTO ringbench.headlines VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
                                     "$11, $12, $13, $14, $15)",
                                     15, NULL, p, NULL, NULL, 0);
        if (!res_ok(h, res, PGRES_COMMAND_OK))
            return -1;
        PQclear(res);
    }
    return 0;
}

/* The run r (stored as name) in one transaction into *id; *id is another's when the same key won
 * meanwhile (*already set). Returns 0, or -1 (hist_error set; nothing written). */
static int ingest(hist_pg *h, const h5in *r, const char *name, const char *key, const struct stat *sb,
                  const hist_headline *hl, size_t nhl, long long *id, int *already)
{
    if (exec_cmd(h, "BEGIN") != 0)
        return -1;
    if (insert_run(h, r, name, key, sb, id) != 0)
        goto fail;
    if (*id == 0) { /* the same bytes were committed by another ingest while this one began */
        rollback(h);
        *already = 1;
        return run_by_key(h, key, id);
    }
    if (insert_cells(h, r, *id) != 0 || insert_headlines(h, *id, hl, nhl) != 0 || exec_cmd(h, "COMMIT") != 0)
        goto fail;
    return 0;
fail:
    rollback(h);
    *id = 0;
    return -1;
}

static int pg_add(hist *hh, const char *path, long long *run_id, int *already, char *err, size_t errlen)
{
    hist_pg *h = pg(hh);
    char key[65], name[300], stored[8400];
    h5in *r = NULL;
    struct stat sb;
    *run_id = 0;
    *already = 0;
    if (h5in_open(path, &r, err, errlen) != 0)
        return -1;
    h5in_close(r);
    r = NULL;
    if (hist_file_key(path, key, err, errlen) != 0)
        return -1;
    if (run_by_key(h, key, run_id) != 0) {
        snprintf(err, errlen, "%s", hist_error(hh));
        return -1;
    }
    if (*run_id) {
        *already = 1;
        return 0;
    }
    if (store_file(h, path, key, name, sizeof name, err, errlen) != 0)
        return -1;
    snprintf(stored, sizeof stored, "%s/%s", h->base.dir, name);
    hist_headline hl[HIST_MAX_HEADLINES];
    size_t nhl = hist_summarise(hh, stored, hl);
    if (stat(stored, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", stored, strerror(errno));
        return -1;
    }
    if (h5in_open(stored, &r, err, errlen) != 0)
        return -1;
    int rc = ingest(h, r, name, key, &sb, hl, nhl, run_id, already);
    h5in_close(r);
    if (rc != 0)
        snprintf(err, errlen, "%s", hist_error(hh));
    return rc;
}

static void pg_close(hist *hh)
{
    hist_pg *h = pg(hh);
    PQfinish(h->db);
    free(h);
}

static long long pg_nruns(hist *hh)
{
    PGresult *res = query(pg(hh), "SELECT count(*) FROM ringbench.runs", 0, NULL);
    long long n = res ? atoll(PQgetvalue(res, 0, 0)) : -1;
    PQclear(res);
    return n;
}

// --- queries: reading results ---------------------------------------------------------------------------

/* Text column c of row i into dst for display; a text longer than dst ends in "..." (a cut is seen). */
static void copy_col(char *dst, size_t n, const PGresult *res, int i, int c)
{
    int len = snprintf(dst, n, "%s", PQgetisnull(res, i, c) ? "" : PQgetvalue(res, i, c));
    if (len >= 0 && (size_t)len >= n && n > 4)
        memcpy(dst + n - 4, "...", 4);
}

static double col_real(const PGresult *res, int i, int c)
{
    return PQgetisnull(res, i, c) ? NAN : strtod(PQgetvalue(res, i, c), NULL);
}

static long long col_int(const PGresult *res, int i, int c)
{
    return PQgetisnull(res, i, c) ? 0 : atoll(PQgetvalue(res, i, c));
}

/* Every row of res read by fn into a new array *out of elements of size sz; res cleared. Returns 0,
 * or -1 (out of memory: hist_error set, *out NULL). A NULL res (a failed query) is -1 too. */
static int collect(hist_pg *h, PGresult *res, size_t sz, void (*fn)(const PGresult *res, int i, void *elem), void **out,
                   size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!res)
        return -1;
    int rows = PQntuples(res);
    if (rows > 0 && !(*out = calloc((size_t)rows, sz))) {
        PQclear(res);
        return hist_fail(&h->base, "out of memory");
    }
    for (int i = 0; i < rows; i++)
        fn(res, i, (char *)*out + (size_t)i * sz);
    *n = (size_t)rows;
    PQclear(res);
    return 0;
}

// --- queries: runs and machines ---------------------------------------------------------------------------

#define ENV_COLUMN(col, words) ", r." #col
#define RUN_COLUMNS \
    "r.run_id, r.file, r.start_utc, m.fingerprint, r.complete::int, r.schema_version" HIST_ENV_FIELDS(ENV_COLUMN)
#define RUN_FROM " FROM ringbench.runs r JOIN ringbench.machines m USING (machine_id) "

static void read_run(const PGresult *res, int i, void *elem)
{
    hist_run *r = elem;
    r->id = col_int(res, i, 0);
    copy_col(r->file, sizeof r->file, res, i, 1);
    copy_col(r->start, sizeof r->start, res, i, 2);
    copy_col(r->machine, sizeof r->machine, res, i, 3);
    r->complete = (int)col_int(res, i, 4);
    r->schema = (int)col_int(res, i, 5);
    for (int k = 0; k < HIST_ENV_COUNT; k++)
        copy_col(r->env[k], sizeof r->env[k], res, i, 6 + k);
}

/* The runs matching where ($1 is arg), ordered in time. */
static int load_runs(hist_pg *h, const char *where, const char *arg, hist_run **out, size_t *n)
{
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT " RUN_COLUMNS RUN_FROM "WHERE %s ORDER BY r.start_utc, r.run_id", where);
    const char *p[1] = {arg};
    return collect(h, query(h, sql, 1, p), sizeof **out, read_run, (void **)out, n);
}

static int pg_run_get(hist *hh, long long run_id, hist_run *out)
{
    hist_run *r = NULL;
    size_t n = 0;
    char id[32];
    snprintf(id, sizeof id, "%lld", run_id);
    if (load_runs(pg(hh), "r.run_id = $1", id, &r, &n) != 0)
        return -1;
    if (n == 1)
        *out = r[0];
    free(r);
    return n == 1 ? 0 : hist_fail(hh, "run %lld is not in the history", run_id);
}

static int pg_machine_runs(hist *hh, long long run_id, hist_run **out, size_t *n)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", run_id);
    return load_runs(pg(hh), "r.machine_id = (SELECT machine_id FROM ringbench.runs WHERE run_id = $1)", id, out, n);
}

static int pg_complete_runs(hist *hh, const char *machine, hist_run **out, size_t *n)
{
    return load_runs(pg(hh), "m.fingerprint = $1 AND r.complete", machine, out, n);
}

static int pg_other_machines(hist *hh, long long run_id, long long *runs, long long *machines)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", run_id);
    const char *p[1] = {id};
    PGresult *res = query(pg(hh),
                          "SELECT count(*), count(DISTINCT machine_id) FROM ringbench.runs WHERE machine_id <> "
                          "(SELECT machine_id FROM ringbench.runs WHERE run_id = $1)",
                          1, p);
    *runs = *machines = 0;
    if (!res)
        return -1;
    *runs = col_int(res, 0, 0);
    *machines = col_int(res, 0, 1);
    PQclear(res);
    return 0;
}

static int pg_machines(hist *hh, char ***out, size_t *n)
{
    PGresult *res = query(pg(hh),
                          "SELECT m.fingerprint FROM ringbench.machines m WHERE EXISTS (SELECT 1 FROM ringbench.runs r "
                          "WHERE r.machine_id = m.machine_id AND r.complete) ORDER BY m.fingerprint",
                          0, NULL);
    *out = NULL;
    *n = 0;
    if (!res)
        return -1;
    int rows = PQntuples(res);
    *out = rows ? calloc((size_t)rows, sizeof **out) : NULL;
    for (int i = 0; *out && i < rows; i++)
        if (!((*out)[i] = strdup(PQgetvalue(res, i, 0)))) {
            hist_strings_free(*out, (size_t)i);
            *out = NULL;
        }
    PQclear(res);
    if (rows && !*out)
        return hist_fail(hh, "out of memory");
    *n = (size_t)rows;
    return 0;
}

// --- queries: cells ---------------------------------------------------------------------------------------

/* The prepared statement q, prepared on first use. Returns its name, or NULL (hist_error set). */
static const char *prepared(hist_pg *h, int q)
{
    static const char *const names[Q_COUNT] = {"rb_series", "rb_pool", "rb_pairs", "rb_estimate"};
    static const char *const sql[Q_COUNT] = {
        [Q_SERIES] = "SELECT run_id, p50, ci_lo, ci_hi, mode_lo, mode_hi, slow_share, trial_p50_min, trial_p50_max, "
                     "ci_method, trials FROM ringbench.cells WHERE cell = $1 AND status = 'ok'",
        [Q_POOL] = "SELECT run_id, trial_p50_min, trial_p50_max, p50 FROM ringbench.cells WHERE family = $1 AND "
                   "size_bytes = $2::bigint AND ring_window = $3::bigint AND ($5::text IS NULL OR ctrl <> $5) AND "
                   "($4::text IS NULL OR ctrl = $4) AND status = 'ok' ORDER BY run_id",
        [Q_PAIRS] = "SELECT a.run_id, a.trial_p50_min, b.trial_p50_min FROM ringbench.cells a JOIN ringbench.cells b "
                    "ON b.run_id = a.run_id AND b.cell = $4::text || substr(a.cell, length(a.family) + 1) AND "
                    "b.status = 'ok' WHERE a.family = $1 AND ($5::text IS NULL OR a.ctrl <> $5) AND ($2::text IS "
                    "NULL OR a.ctrl = $2) AND ($3::text IS NULL OR a.host_mem || '/' || a.xfer || '/' || a.launch || "
                    "'/' || a.ctrl = $3) AND a.status = 'ok' ORDER BY a.run_id",
        [Q_ESTIMATE] = "SELECT p50, ci_lo, ci_hi FROM ringbench.cells WHERE run_id = $1::bigint AND family = $2 AND "
                       "host_mem = $3 AND xfer = $4 AND launch = $5 AND ctrl = $6 AND ($7::bigint < 0 OR size_bytes "
                       "= $7::bigint) AND status = 'ok' ORDER BY ring_window DESC LIMIT 1",
    };
    static const int nparams[Q_COUNT] = {1, 5, 5, 7};
    if (!h->prepared[q]) {
        PGresult *res = PQprepare(h->db, names[q], sql[q], nparams[q], NULL);
        if (!res_ok(h, res, PGRES_COMMAND_OK))
            return NULL;
        PQclear(res);
        h->prepared[q] = 1;
    }
    return names[q];
}

/* Runs prepared statement q with params; NULL on an error. */
static PGresult *run_prepared(hist_pg *h, int q, const char *const *params)
{
    static const int nparams[Q_COUNT] = {1, 5, 5, 7};
    const char *name = prepared(h, q);
    if (!name)
        return NULL;
    PGresult *res = PQexecPrepared(h->db, name, nparams[q], params, NULL, NULL, 0);
    return res_ok(h, res, PGRES_TUPLES_OK) ? res : NULL;
}

static void read_cell(const PGresult *res, int i, void *elem)
{
    hist_cell *x = elem;
    copy_col(x->cell, sizeof x->cell, res, i, 0);
    copy_col(x->unit, sizeof x->unit, res, i, 1);
    copy_col(x->family, sizeof x->family, res, i, 2);
    x->size = (uint64_t)col_int(res, i, 3);
    x->window = (uint64_t)col_int(res, i, 4);
    copy_col(x->mode, sizeof x->mode, res, i, 5);
    copy_col(x->ctrl, sizeof x->ctrl, res, i, 6);
}

static int pg_run_cells(hist *hh, long long run_id, hist_cell **out, size_t *n)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", run_id);
    const char *p[1] = {id};
    return collect(pg(hh),
                   query(pg(hh),
                         "SELECT cell, unit, family, size_bytes, ring_window, host_mem || '/' || xfer || '/' || launch "
                         "|| '/' || ctrl, ctrl FROM ringbench.cells WHERE run_id = $1 AND status = 'ok' ORDER BY cell",
                         1, p),
                   sizeof **out, read_cell, (void **)out, n);
}

static const hist_figures NO_FIGURES = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0};

static void read_series(const PGresult *res, int i, void *elem)
{
    hist_figures *f = elem;
    *f = NO_FIGURES;
    f->run_id = col_int(res, i, 0);
    f->p50 = col_real(res, i, 1);
    f->ci_lo = col_real(res, i, 2);
    f->ci_hi = col_real(res, i, 3);
    f->mode_lo = col_real(res, i, 4);
    f->mode_hi = col_real(res, i, 5);
    f->slow_share = col_real(res, i, 6);
    f->trial_min = col_real(res, i, 7);
    f->trial_max = col_real(res, i, 8);
    f->trials_ci = !PQgetisnull(res, i, 9) && strcmp(PQgetvalue(res, i, 9), RB_CI_TRIALS) == 0;
    f->trials = col_int(res, i, 10);
}

static int pg_cell_series(hist *hh, const char *cell, hist_figures **out, size_t *n)
{
    const char *p[1] = {cell};
    return collect(pg(hh), run_prepared(pg(hh), Q_SERIES, p), sizeof **out, read_series, (void **)out, n);
}

static void read_pool(const PGresult *res, int i, void *elem)
{
    hist_figures *f = elem;
    *f = NO_FIGURES;
    f->run_id = col_int(res, i, 0);
    f->trial_min = col_real(res, i, 1);
    f->trial_max = col_real(res, i, 2);
    f->p50 = col_real(res, i, 3);
}

static int pg_pool_cells(hist *hh, const hist_select *s, hist_figures **out, size_t *n)
{
    char size[32], win[32];
    snprintf(size, sizeof size, "%lld", s->size);
    snprintf(win, sizeof win, "%lld", s->window);
    const char *p[5] = {s->family, size, win, s->ctrl, s->not_ctrl};
    return collect(pg(hh), run_prepared(pg(hh), Q_POOL, p), sizeof **out, read_pool, (void **)out, n);
}

static void read_pair(const PGresult *res, int i, void *elem)
{
    hist_pair *x = elem;
    x->run_id = col_int(res, i, 0);
    x->a = col_real(res, i, 1);
    x->b = col_real(res, i, 2);
}

static int pg_paired_cells(hist *hh, const hist_select *s, const char *partner_family, hist_pair **out, size_t *n)
{
    const char *p[5] = {s->family, s->ctrl, s->mode, partner_family, s->not_ctrl};
    return collect(pg(hh), run_prepared(pg(hh), Q_PAIRS, p), sizeof **out, read_pair, (void **)out, n);
}

/* Every ok cell with a positive p50 streamed row by row (single-row mode: a fleet's history holds
 * hundreds of thousands of them), ordered by key. */
static int pg_each_positive(hist *hh, int (*fn)(const hist_value *v, void *arg), void *arg)
{
    hist_pg *h = pg(hh);
    if (!PQsendQuery(h->db, "SELECT cell, run_id, unit, p50, family, size_bytes FROM ringbench.cells WHERE status = "
                            "'ok' AND p50 > 0 ORDER BY cell") ||
        !PQsetSingleRowMode(h->db))
        return db_fail(h);
    PGresult *res;
    int rc = 0, done = 0;
    while ((res = PQgetResult(h->db)) != NULL) {
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_SINGLE_TUPLE && rc == 0) {
            const hist_value v = {PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 4),        PQgetvalue(res, 0, 2),
                                  col_int(res, 0, 1),    (uint64_t)col_int(res, 0, 5), col_real(res, 0, 3)};
            rc = fn(&v, arg);
        } else if (st == PGRES_TUPLES_OK) {
            done = 1;
        } else if (st != PGRES_SINGLE_TUPLE && rc == 0) {
            res_ok(h, res, PGRES_TUPLES_OK); /* records the error and clears res */
            res = NULL;
            rc = -1;
        }
        PQclear(res);
    }
    return rc == 0 && !done ? db_fail(h) : rc;
}

static int pg_cell_estimate(hist *hh, long long run_id, const char *family, const char *const mode[4], long long size,
                            hist_figures *out)
{
    char id[32], sz[32];
    snprintf(id, sizeof id, "%lld", run_id);
    snprintf(sz, sizeof sz, "%lld", size);
    const char *p[7] = {id, family, NULL, NULL, NULL, NULL, sz};
    for (int i = 0; i < 4; i++)
        p[2 + i] = mode[0] ? mode[i] : RB_NOT_APPLICABLE;
    *out = NO_FIGURES;
    PGresult *res = run_prepared(pg(hh), Q_ESTIMATE, p);
    if (!res)
        return -1;
    int found = PQntuples(res) == 1;
    if (found) {
        out->run_id = run_id;
        out->p50 = col_real(res, 0, 0);
        out->ci_lo = col_real(res, 0, 1);
        out->ci_hi = col_real(res, 0, 2);
    }
    PQclear(res);
    return found;
}

// --- judgements, the list of runs, headline figures ----------------------------------------------------

static int pg_judgement_put(hist *hh, long long run_id, const hist_judgement *j)
{
    char id[32], r[16], i[16], w[16];
    snprintf(id, sizeof id, "%lld", run_id);
    snprintf(r, sizeof r, "%d", j->regressions);
    snprintf(i, sizeof i, "%d", j->improvements);
    snprintf(w, sizeof w, "%d", j->watch);
    const char *p[6] = {id, j->verdict, r, i, w, j->judged_utc};
    PGresult *res = PQexecParams(pg(hh)->db,
                                 "INSERT INTO ringbench.judgements VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT (run_id) "
                                 "DO UPDATE SET verdict = EXCLUDED.verdict, regressions = EXCLUDED.regressions, "
                                 "improvements = EXCLUDED.improvements, watch = EXCLUDED.watch, judged_utc = "
                                 "EXCLUDED.judged_utc",
                                 6, NULL, p, NULL, NULL, 0);
    if (!res_ok(pg(hh), res, PGRES_COMMAND_OK))
        return -1;
    PQclear(res);
    return 0;
}

static void read_listed(const PGresult *res, int i, void *elem)
{
    hist_listed *x = elem;
    int c = 6 + HIST_ENV_COUNT;
    read_run(res, i, &x->run);
    copy_col(x->host, sizeof x->host, res, i, c);
    copy_col(x->backend, sizeof x->backend, res, i, c + 1);
    copy_col(x->gpu, sizeof x->gpu, res, i, c + 2);
    x->wsl2 = (int)col_int(res, i, c + 3);
    copy_col(x->j.verdict, sizeof x->j.verdict, res, i, c + 4);
    x->j.regressions = (int)col_int(res, i, c + 5);
    x->j.improvements = (int)col_int(res, i, c + 6);
    x->j.watch = (int)col_int(res, i, c + 7);
    copy_col(x->j.judged_utc, sizeof x->j.judged_utc, res, i, c + 8);
    copy_col(x->stored, sizeof x->stored, res, i, c + 9);
}

static int pg_list(hist *hh, hist_listed **out, size_t *n)
{
    return collect(pg(hh),
                   query(pg(hh),
                         "SELECT " RUN_COLUMNS ", m.hostname, m.backend, m.gpu_name, m.wsl2::int, j.verdict, "
                         "j.regressions, j.improvements, j.watch, j.judged_utc, r.stored_on || ':' || r.stored_path"
                         " FROM ringbench.runs r JOIN ringbench.machines m USING (machine_id) LEFT JOIN "
                         "ringbench.judgements j USING (run_id) ORDER BY r.start_utc, r.run_id",
                         0, NULL),
                   sizeof **out, read_listed, (void **)out, n);
}

static void read_headline(const PGresult *res, int i, void *elem)
{
    hist_headline *x = elem;
    copy_col(x->key, sizeof x->key, res, i, 0);
    x->rate = (int)col_int(res, i, 1);
    for (int side = 0; side < 2; side++) {
        x->value[side] = col_real(res, i, 2 + 3 * side);
        x->lo[side] = col_real(res, i, 3 + 3 * side);
        x->hi[side] = col_real(res, i, 4 + 3 * side);
    }
    x->ratio = col_real(res, i, 8);
    x->ratio_lo = col_real(res, i, 9);
    x->ratio_hi = col_real(res, i, 10);
    x->size = (uint64_t)col_int(res, i, 11);
    x->window = (uint64_t)col_int(res, i, 12);
}

static int pg_run_headlines(hist *hh, long long run_id, hist_headline **out, size_t *n)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", run_id);
    const char *p[1] = {id};
    return collect(pg(hh),
                   query(pg(hh),
                         "SELECT figure, rate::int, native, native_lo, native_hi, fallback, fallback_lo, fallback_hi, "
                         "ratio, ratio_lo, ratio_hi, size_bytes, ring_window FROM ringbench.headlines WHERE run_id = "
                         "$1 ORDER BY ord",
                         1, p),
                   sizeof **out, read_headline, (void **)out, n);
}

// --- open ---------------------------------------------------------------------------------------------------

static const hist_ops pg_ops = {
    pg_close,         pg_add,           pg_nruns,         pg_run_get,     pg_machine_runs,  pg_other_machines,
    pg_machines,      pg_complete_runs, pg_run_cells,     pg_cell_series, pg_pool_cells,    pg_paired_cells,
    pg_each_positive, pg_cell_estimate, pg_judgement_put, pg_list,        pg_run_headlines,
};

/* Connects to the server of uri: libpq's URI with its defaults, environment (PGPASSWORD, ...) and
 * ~/.pgpass, a 10 s connect timeout unless the URI sets one. Returns 0, or -1 with err. */
static int pg_connect(hist_pg *h, const char *uri, char *err, size_t errlen)
{
    /* The URI is expanded in place of dbname: its settings override connect_timeout before it, and
     * fallback_application_name names ringbench only where it names nothing. */
    const char *const keys[] = {"connect_timeout", "dbname", "fallback_application_name", NULL};
    const char *const values[] = {"10", uri, "ringbench", NULL};
    char msg[900];
    h->db = PQconnectdbParams(keys, values, 1);
    if (h->db && PQstatus(h->db) == CONNECTION_OK)
        return 0;
    snprintf(err, errlen, "cannot reach the history %s: %s", h->base.location, pg_message(h->db, msg, sizeof msg));
    return -1;
}

int hist_pg_open(const char *uri, const hist_open_options *o, hist **out, char *err, size_t errlen)
{
    hist_pg *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    h->base.ops = &pg_ops;
    h->base.notes = o->notes;
    h->base.lock_fd = -1; /* no folder lock: the server's transactions (history_internal.h) */
    h->base.summarise = o->summarise;
    h->base.summarise_ctx = o->summarise_ctx;
    hist_mask_location(uri, h->base.location, sizeof h->base.location);
    if (gethostname(h->host, sizeof h->host) != 0)
        snprintf(h->host, sizeof h->host, "unknown");
    h->host[sizeof h->host - 1] = '\0';
    if (open_store(h, o->store, err, errlen) != 0 || pg_connect(h, uri, err, errlen) != 0 ||
        schema_check(h, err, errlen) != 0) {
        pg_close(&h->base);
        return -1;
    }
    *out = &h->base;
    return 0;
}
