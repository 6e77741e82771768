/* history_check.c - whether a folder history is whole, as a job that overlapped or was killed left it
 * (tests/history_jobs.sh). Reads the index with SQLite directly and changes nothing: opening it through
 * history.h would repair what this is meant to see.
 *
 *   history_check DIR [FILE.h5 ...]
 *
 * Prints one line "runs R files F" and one line per fault, and exits 1 on any fault:
 *   - an indexed run whose file is gone, or a run file in DIR that the index does not hold (neither
 *     as a run nor as a skipped file);
 *   - two runs with the same bytes (hist_file_key of their files): a run stored twice;
 *   - a FILE given whose bytes no run holds: a run lost;
 *   - a leftover: .incoming-*, anything with ".tmp" in its name (DIR and DIR/plots), a journal without
 *     a writer, or index.sqlite.damaged (a healthy index moved aside).
 */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

static int faults;

static void fault(const char *what, const char *name)
{
    printf("FAULT: %s: %s\n", what, name);
    faults++;
}

typedef struct names {
    char **v;
    size_t n;
} names;

static void names_add(names *s, const char *name)
{
    char **v = realloc(s->v, (s->n + 1) * sizeof *s->v);
    char *copy = strdup(name);
    if (v == NULL || copy == NULL) {
        fprintf(stderr, "history_check: out of memory\n");
        exit(2);
    }
    s->v = v;
    s->v[s->n++] = copy;
}

static void names_free(names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    *s = (names){0};
}

static int names_has(const names *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return 1;
    return 0;
}

/* The texts of column 0 of sql into *out. */
static int query_names(sqlite3 *db, const char *sql, names *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW)
        names_add(out, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
}

/* Leftovers of writers in folder dir (DIR or DIR/plots). */
static void leftovers(const char *dir, names *runfiles)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, ".incoming-", 10) == 0 || strstr(n, ".tmp") || strcmp(n, "index.sqlite.damaged") == 0 ||
            strcmp(n, "index.sqlite-journal") == 0)
            fault("left behind", n);
        else if (runfiles && n[0] != '.' && strlen(n) > 3 && strcmp(n + strlen(n) - 3, ".h5") == 0)
            names_add(runfiles, n);
    }
    if (d)
        closedir(d);
}

static void key_of(const char *dir, const char *name, char key[65])
{
    char path[8192], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (hist_file_key(path, key, err, sizeof err) != 0)
        snprintf(key, 65, "unreadable");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: history_check DIR [FILE.h5 ...]\n");
        return 2;
    }
    const char *dir = argv[1];
    char index[8192], plots[8192];
    snprintf(index, sizeof index, "%s/%s", dir, HIST_INDEX_NAME);
    snprintf(plots, sizeof plots, "%s/plots", dir);
    names runs = {0}, skipped = {0}, files = {0}, keys = {0};
    leftovers(dir, &files);
    leftovers(plots, NULL);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(index, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        query_names(db, "SELECT file FROM runs ORDER BY file", &runs) != 0 ||
        query_names(db, "SELECT file FROM skipped", &skipped) != 0)
        fault("the index does not read", db ? sqlite3_errmsg(db) : index);
    sqlite3_close(db);
    for (size_t i = 0; i < runs.n; i++) {
        char key[65];
        if (!names_has(&files, runs.v[i]))
            fault("indexed, but the file is gone", runs.v[i]);
        key_of(dir, runs.v[i], key);
        if (names_has(&keys, key))
            fault("a run stored twice (same bytes as an earlier run)", runs.v[i]);
        names_add(&keys, key);
    }
    for (size_t i = 0; i < files.n; i++)
        if (!names_has(&runs, files.v[i]) && !names_has(&skipped, files.v[i]))
            fault("a run file the index does not hold", files.v[i]);
    for (int i = 2; i < argc; i++) {
        char key[65], err[512];
        if (hist_file_key(argv[i], key, err, sizeof err) != 0 || !names_has(&keys, key))
            fault("a run lost (no run holds its bytes)", argv[i]);
    }
    printf("runs %zu files %zu\n", runs.n, files.n);
    names_free(&runs);
    names_free(&skipped);
    names_free(&files);
    names_free(&keys);
    return faults ? 1 : 0;
}
