/* track.c - `ringbench track`: the newest run of a machine against its history (track_detect.h
 * decides), environment changes beside the regressions they coincide with, the judgements exported,
 * and the history page with its trend plots. Reads the index of results/history.h only.
 * Exercised by tests/test_history.c and tests/track_cli.sh.
 */
#include "track.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export.h"
#include "report_internal.h"

#ifdef RINGBENCH_HAVE_JANSSON
#include <jansson.h>
#endif

/* --- runs of a machine ------------------------------------------------------------------------- */

enum {
#define ENV_ENUM(col, words) ENV_##col,
    HIST_ENV_FIELDS(ENV_ENUM)
#undef ENV_ENUM
    ENV_COUNT
};

static const char *const env_col[] = {
#define ENV_COL(col, words) #col,
    HIST_ENV_FIELDS(ENV_COL)
#undef ENV_COL
};
static const char *const env_words[] = {
#define ENV_WORDS(col, words) words,
    HIST_ENV_FIELDS(ENV_WORDS)
#undef ENV_WORDS
};

typedef struct run_info {
    long long id;
    char file[256], start[32], machine[512];
    int complete, schema;
    char env[ENV_COUNT][128];
} run_info;

/* A text column into dst for display; a text longer than dst ends in "..." so that a cut is seen.
 * Never a key: runs are selected by run_id in SQL, whatever the length of their texts. */
static void copy_col(char *dst, size_t n, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    int len = snprintf(dst, n, "%s", t ? (const char *)t : "");
    if (len >= 0 && (size_t)len >= n && n > 4)
        memcpy(dst + n - 4, "...", 4);
}

/* Loads runs matching `where` (SQL over the runs table, ?1 bound to text arg), ordered in time. */
static int load_runs(hist *h, const char *where, const char *arg, run_info **out, size_t *n)
{
    char sql[1024];
    size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT run_id, file, start_utc, machine, complete, schema_version");
    for (int i = 0; i < ENV_COUNT; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, ", %s", env_col[i]);
    snprintf(sql + len, sizeof sql - len, " FROM runs WHERE %s ORDER BY start_utc, run_id", where);
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(hist_db(h), sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            run_info *t = realloc(*out, cap * sizeof **out);
            if (!t)
                break;
            *out = t;
        }
        run_info *r = &(*out)[(*n)++];
        r->id = sqlite3_column_int64(st, 0);
        copy_col(r->file, sizeof r->file, st, 1);
        copy_col(r->start, sizeof r->start, st, 2);
        copy_col(r->machine, sizeof r->machine, st, 3);
        r->complete = sqlite3_column_int(st, 4);
        r->schema = sqlite3_column_int(st, 5);
        for (int i = 0; i < ENV_COUNT; i++)
            copy_col(r->env[i], sizeof r->env[i], st, 6 + i);
    }
    sqlite3_finalize(st);
    return 0;
}

/* "driver 580.1 -> 590.2, kernel a -> b" into buf; returns the number of fields that differ. */
static int env_diff(const run_info *a, const run_info *b, char *buf, size_t n)
{
    int k = 0;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < ENV_COUNT && len < n; i++) {
        if (strcmp(a->env[i], b->env[i]) == 0)
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s %s -> %s", k ? ", " : "", env_words[i], a->env[i], b->env[i]);
        k++;
    }
    return k;
}

static int same_env(const run_info *a, const run_info *b)
{
    char tmp[8];
    return env_diff(a, b, tmp, sizeof tmp) == 0;
}

/* --- judging ----------------------------------------------------------------------------------- */

typedef struct judged {
    char cell[256], unit[16];
    track_result r;
    size_t first_run;   /* index in the runs array */
    char coincides[512];
} judged;

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

typedef struct id_pos {
    long long id;
    size_t pos;
} id_pos;

/* The series of one cell over runs[0..n-1] (NaN where a run lacks it). */
static void load_series(sqlite3_stmt *st, const char *cell, const id_pos *map, size_t n, track_point *s)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (track_point){NAN, NAN, NAN};
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, cell, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        const id_pos *p = bsearch(&id, map, n, sizeof *map, cmp_id);
        if (!p)
            continue;
        track_point *t = &s[p->pos];
        t->est = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
        t->lo = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
        t->hi = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 3);
    }
}

static int cmp_change(const void *a, const void *b)
{
    double x = fabs(((const judged *)a)->r.change), y = fabs(((const judged *)b)->r.change);
    return (x < y) - (x > y);
}

static void print_judged(FILE *out, const judged *j, const run_info *runs)
{
    fprintf(out, "  %-52s %+7.1f%% [%+.1f%%, %+.1f%%]  %.4g vs %.4g %s (baseline %zu runs, noise %.1f%%, z %.1f)\n",
            j->cell, 100 * j->r.change, 100 * j->r.change_lo, 100 * j->r.change_hi, j->r.newest, j->r.baseline,
            j->unit, j->r.n_baseline, 100 * j->r.sigma, j->r.z);
    fprintf(out, "  %-52s first seen in %s (%s)%s%s\n", "", runs[j->first_run].file, runs[j->first_run].start,
            j->coincides[0] ? "; coincides with an environment change: " : "", j->coincides);
}

static int export_judged(const char *path, int json, const run_info *newest, const judged *j, size_t n,
                         const run_info *runs, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write", path);
        return -1;
    }
    int rc = 0;
    if (json) {
#ifdef RINGBENCH_HAVE_JANSSON
        json_t *doc = json_object(), *arr = json_array();
        json_object_set_new(doc, "run", export_json_text(newest->file, NULL));
        json_object_set_new(doc, "machine", export_json_text(newest->machine, NULL));
        for (size_t i = 0; i < n; i++) {
            json_t *o = json_object();
            json_object_set_new(o, "cell", export_json_text(j[i].cell, NULL));
            json_object_set_new(o, "unit", export_json_text(j[i].unit, NULL));
            json_object_set_new(o, "verdict", json_string(track_kind_name(j[i].r.kind)));
            json_object_set_new(o, "newest", isfinite(j[i].r.newest) ? json_real(j[i].r.newest) : json_null());
            json_object_set_new(o, "baseline", isfinite(j[i].r.baseline) ? json_real(j[i].r.baseline) : json_null());
            json_object_set_new(o, "change", isfinite(j[i].r.change) ? json_real(j[i].r.change) : json_null());
            json_object_set_new(o, "change_lo", isfinite(j[i].r.change_lo) ? json_real(j[i].r.change_lo) : json_null());
            json_object_set_new(o, "change_hi", isfinite(j[i].r.change_hi) ? json_real(j[i].r.change_hi) : json_null());
            json_object_set_new(o, "z", isfinite(j[i].r.z) ? json_real(j[i].r.z) : json_null());
            json_object_set_new(o, "baseline_runs", json_integer((json_int_t)j[i].r.n_baseline));
            json_object_set_new(o, "first_run", export_json_text(runs[j[i].first_run].file, NULL));
            json_object_set_new(o, "environment_change", export_json_text(j[i].coincides, NULL));
            json_array_append_new(arr, o);
        }
        json_object_set_new(doc, "cells", arr);
        rc = json_dumpf(doc, f, JSON_INDENT(1));
        json_decref(doc);
#else
        snprintf(err, errlen, "JSON export needs jansson, which this build lacks (install libjansson-dev)");
        rc = -1;
#endif
    } else {
        fputs("run,cell,unit,verdict,newest,baseline,change,change_lo,change_hi,z,baseline_runs,first_run,"
              "environment_change\n", f);
        for (size_t i = 0; i < n; i++) {
            export_csv_field(f, newest->file);
            fputc(',', f);
            export_csv_field(f, j[i].cell);
            fprintf(f, ",%s,%s,%.10g,%.10g,%.10g,%.10g,%.10g,%.4g,%zu,", j[i].unit, track_kind_name(j[i].r.kind),
                    j[i].r.newest, j[i].r.baseline, j[i].r.change, j[i].r.change_lo, j[i].r.change_hi, j[i].r.z,
                    j[i].r.n_baseline);
            export_csv_field(f, runs[j[i].first_run].file);
            fputc(',', f);
            export_csv_field(f, j[i].coincides);
            fputc('\n', f);
        }
    }
    if (fclose(f) != 0 || rc != 0) {
        if (!err[0])
            snprintf(err, errlen, "%s: write error", path);
        return -1;
    }
    return 0;
}

/* Other machines in the history: how many runs and machines, never compared. */
static void print_others(hist *h, long long run_id, FILE *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(hist_db(h), "SELECT count(*), count(DISTINCT machine) FROM runs WHERE machine != "
                           "(SELECT machine FROM runs WHERE run_id = ?1)", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
        fprintf(out, "other machines: %lld runs of %lld other fingerprints in this history, never compared with this one\n",
                (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1));
    sqlite3_finalize(st);
}

int track_judge_run(hist *h, long long run_id, const track_options *o, FILE *out, int *regressions, char *err,
                    size_t errlen)
{
    run_info *one = NULL, *runs = NULL;
    size_t n1 = 0, n = 0, nj = 0;
    judged *j = NULL;
    track_point *series = NULL;
    id_pos *map = NULL;
    sqlite3_stmt *cells = NULL, *ser = NULL;
    int rc = -1;
    char idtext[32];
    *regressions = 0;
    err[0] = '\0';
    snprintf(idtext, sizeof idtext, "%lld", run_id);
    if (load_runs(h, "run_id = CAST(?1 AS INTEGER)", idtext, &one, &n1) != 0 || n1 != 1) {
        snprintf(err, errlen, "run %lld is not in the index", run_id);
        goto out;
    }
    /* The runs of the same machine up to the judged one; incomplete runs never form a baseline. */
    run_info *all = NULL;
    size_t nall = 0;
    /* By the judged run's id, never by its machine text as read back into a fixed buffer: a long
     * fingerprint (host + backend + GPU name) would be cut there and match no run at all. */
    if (load_runs(h, "machine = (SELECT machine FROM runs WHERE run_id = CAST(?1 AS INTEGER))", idtext, &all,
                  &nall) != 0)
        goto out;
    runs = malloc((nall + 1) * sizeof *runs);
    if (!runs) {
        free(all);
        goto out;
    }
    int seen = 0;
    for (size_t i = 0; i < nall && !seen; i++) {
        seen = all[i].id == run_id;
        if (!seen && (!all[i].complete || (o->same_env && !same_env(&all[i], one))))
            continue;
        runs[n++] = all[i];
    }
    free(all);
    if (!seen || n == 0) {
        snprintf(err, errlen, "run %lld is not among the runs of its own machine: the index is inconsistent", run_id);
        goto out;
    }
    const run_info *newest = &runs[n - 1];
    fprintf(out, "run: %s (%s)%s\n", newest->file, newest->start, newest->complete ? "" : " -- INCOMPLETE (interrupted)");
    fprintf(out, "machine: %s\nenvironment:", newest->machine);
    for (int i = 0; i < ENV_COUNT; i++)
        fprintf(out, "%s %s %s", i ? "," : "", env_words[i], newest->env[i]);
    fputc('\n', out);
    print_others(h, run_id, out);
    if (n == 1)
        fprintf(out, "fingerprint: NEW -- no earlier complete run of this machine%s; nothing to compare yet\n",
                o->same_env ? " with this environment" : "");
    else {
        char diff[1024];
        if (env_diff(&runs[n - 2], newest, diff, sizeof diff))
            fprintf(out, "environment change since the previous run (%s): %s\n", runs[n - 2].file, diff);
        fprintf(out, "history: %zu earlier runs of this machine; baseline = the last %zu at most\n", n - 1,
                o->params.window);
    }
    if (newest->schema < 2)
        fprintf(out, "note: a schema-%d run: its intervals are sample-level and do not cover run-to-run variation; "
                "the history's own spread is its noise\n", newest->schema);

    map = malloc(n * sizeof *map);
    series = malloc(n * sizeof *series);
    if (!map || !series)
        goto out;
    for (size_t i = 0; i < n; i++)
        map[i] = (id_pos){runs[i].id, i};
    qsort(map, n, sizeof *map, cmp_id);
    if (sqlite3_prepare_v2(hist_db(h), "SELECT cell, unit FROM cells WHERE run_id = ?1 AND status = 'ok' ORDER BY cell",
                           -1, &cells, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(hist_db(h), "SELECT run_id, p50, ci_lo, ci_hi FROM cells WHERE cell = ?1 AND status = 'ok'",
                           -1, &ser, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "index query: %s", sqlite3_errmsg(hist_db(h)));
        goto out;
    }
    sqlite3_bind_int64(cells, 1, run_id);
    size_t cap = 0;
    while (sqlite3_step(cells) == SQLITE_ROW) {
        if (nj == cap) {
            cap = cap ? 2 * cap : 256;
            judged *t = realloc(j, cap * sizeof *j);
            if (!t)
                goto out;
            j = t;
        }
        judged *x = &j[nj++];
        memset(x, 0, sizeof *x);
        copy_col(x->cell, sizeof x->cell, cells, 0);
        copy_col(x->unit, sizeof x->unit, cells, 1);
        load_series(ser, x->cell, map, n, series);
        track_judge(series, n, strcmp(x->unit, "GB/s") == 0, &o->params, &x->r);
        x->first_run = x->r.first;
        /* An environment change between the first run that shows the change and the run before it. */
        if ((x->r.kind == TRACK_REGRESSION || x->r.kind == TRACK_IMPROVEMENT) && x->first_run > 0)
            env_diff(&runs[x->first_run - 1], &runs[x->first_run], x->coincides, sizeof x->coincides);
    }
    if (nj > 1) /* j is NULL when the run has no ok cell (one interrupted before its first) */
        qsort(j, nj, sizeof *j, cmp_change);
    size_t count[5] = {0};
    for (size_t i = 0; i < nj; i++)
        count[j[i].r.kind]++;
    fprintf(out, "method: lookback z-score over log p50, noise = max(history MAD, median trial-level interval); "
            "a change needs |z| >= %.1f and >= %.0f%%\n\n", o->params.z_min, 100 * o->params.min_effect);
    for (int k = TRACK_REGRESSION; k <= TRACK_IMPROVEMENT; k++) {
        fprintf(out, "%s: %zu\n", k == TRACK_REGRESSION ? "REGRESSIONS" : "improvements", count[k]);
        for (size_t i = 0; i < nj; i++)
            if (j[i].r.kind == (track_kind)k)
                print_judged(out, &j[i], runs);
    }
    fprintf(out, "unchanged: %zu cells", count[TRACK_UNCHANGED]);
    if (count[TRACK_NO_HISTORY])
        fprintf(out, "; not judged (fewer than %zu comparable earlier runs): %zu", o->params.min_history,
                count[TRACK_NO_HISTORY]);
    fputc('\n', out);
    *regressions = (int)count[TRACK_REGRESSION];
    if (o->export_path && export_judged(o->export_path, o->export_json, newest, j, nj, runs, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "cannot judge run %lld: out of memory or index error", run_id);
    sqlite3_finalize(cells);
    sqlite3_finalize(ser);
    free(one);
    free(runs);
    free(j);
    free(series);
    free(map);
    return rc;
}
