/* history.c - the run history of `ringbench track` (history.h): the public calls, dispatched to the
 * backend that opened the history (history_internal.h), and what every backend shares: a run's
 * record read from its file, notes and errors, and the copy-in of run files. The folder backend and
 * its SQLite index are history_sqlite.c. Exercised by tests/test_history.c (rebuild, damaged and
 * foreign files, fingerprints).
 */
#include "history_internal.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

// --- the public calls ----------------------------------------------------------------------------------

static const char *const env_words[HIST_ENV_COUNT] = {
#define ENV_WORDS(col, words) words,
    HIST_ENV_FIELDS(ENV_WORDS)
#undef ENV_WORDS
};

const char *hist_env_word(int i) { return i >= 0 && i < HIST_ENV_COUNT ? env_words[i] : NULL; }

static void sweep_leftovers(const char *dir, FILE *notes);

int hist_open(const char *dir, FILE *notes, hist **out, char *err, size_t errlen)
{
    const hist_open_options o = {.notes = notes};
    return hist_open_with(dir, &o, out, err, errlen);
}

/* A folder history: DIR made when absent, its lock taken (this job alone until hist_close), what jobs
 * that died left there removed, then its SQLite index opened. Returns 0, or -1 with err. */
static int folder_open(const char *dir, const hist_open_options *o, hist **out, char *err, size_t errlen)
{
    struct stat sb;
    if (strlen(dir) >= 4000) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    if (hist_mkdir_p(dir) != 0 || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: cannot create the history directory: %s", dir, strerror(errno ? errno : ENOTDIR));
        return -1;
    }
    int fd;
    if (hist_lock(dir, o->notes, &fd, err, errlen) != 0)
        return -1;
    sweep_leftovers(dir, o->notes);
    if (hist_sqlite_open(dir, o, out, err, errlen) != 0) {
        close(fd);
        return -1;
    }
    (*out)->lock_fd = fd;
    return 0;
}

int hist_is_database(const char *where)
{
    return strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0;
}

int hist_open_with(const char *where, const hist_open_options *o, hist **out, char *err, size_t errlen)
{
    static const hist_open_options none = {0};
    char shown[4096];
    int rc;
    o = o ? o : &none;
    *out = NULL;
    hist_mask_location(where, shown, sizeof shown);
    if (hist_is_database(where)) {
#ifdef RINGBENCH_HAVE_LIBPQ
        rc = hist_pg_open(where, o, out, err, errlen);
#else
        snprintf(err, errlen,
                 "%s: this ringbench was built without libpq, which a PostgreSQL history needs (install "
                 "libpq-dev, then re-run cmake and rebuild)",
                 shown);
        return -1;
#endif
    } else if (o->store) {
        snprintf(err, errlen, "--store is for a database history: a folder history (%s) keeps its runs in its folder",
                 where);
        return -1;
    } else {
        rc = folder_open(where, o, out, err, errlen);
    }
    if (rc == 0)
        snprintf((*out)->location, sizeof(*out)->location, "%s", shown);
    return rc;
}

/* The end of a URI's authority (user:password@host:port): the first '/', '?' or '#' after "://". */
static const char *authority_end(const char *s) { return s + strcspn(s, "/?#"); }

char *hist_mask_location(const char *where, char *buf, size_t n)
{
    const char *sep = strstr(where, "://");
    if (!hist_is_database(where) || !sep) {
        snprintf(buf, n, "%s", where);
        return buf;
    }
    const char *auth = sep + 3, *end = authority_end(auth);
    const char *at = NULL, *colon = NULL;
    for (const char *p = auth; p < end; p++)
        if (*p == '@')
            at = p; /* the last '@': a password may hold one, percent-encoded or not */
    for (const char *p = auth; at && p < at && !colon; p++)
        if (*p == ':')
            colon = p;
    size_t len = 0;
    const char *from = where;
    if (colon) { /* scheme://user: then *** then @host... */
        len += (size_t)snprintf(buf + len, n - len, "%.*s***", (int)(colon + 1 - where), where);
        from = at;
    }
    /* The parameters: password=... replaced, the others kept. */
    const char *q = strchr(end, '?');
    if (len < n)
        len += (size_t)snprintf(buf + len, n - len, "%.*s", (int)((q ? q : from + strlen(from)) - from), from);
    for (const char *p = q; p && *p && len < n;) {
        const char *amp = strchr(p + 1, '&'), *stop = amp ? amp : p + strlen(p);
        if (strncmp(p + 1, "password=", 9) == 0)
            len += (size_t)snprintf(buf + len, n - len, "%cpassword=***", *p);
        else
            len += (size_t)snprintf(buf + len, n - len, "%.*s", (int)(stop - p), p);
        p = amp;
    }
    return buf;
}

const char *hist_location(const hist *h) { return h->location; }

void hist_close(hist *h)
{
    if (!h)
        return;
    int fd = h->lock_fd;
    h->ops->close(h);
    if (fd >= 0)
        close(fd); /* the last descriptor of the lock file: the lock goes with it */
}

int hist_add(hist *h, const char *path, long long *run_id, int *already, char *err, size_t errlen)
{
    return h->ops->add(h, path, run_id, already, err, errlen);
}

const char *hist_dir(const hist *h) { return h->dir; }

long long hist_nruns(hist *h) { return h->ops->nruns(h); }

const char *hist_error(const hist *h) { return h->error[0] ? h->error : "unknown index error"; }

int hist_run_get(hist *h, long long run_id, hist_run *out) { return h->ops->run_get(h, run_id, out); }

int hist_machine_runs(hist *h, long long run_id, hist_run **out, size_t *n)
{
    return h->ops->machine_runs(h, run_id, out, n);
}

int hist_other_machines(hist *h, long long run_id, long long *runs, long long *machines)
{
    return h->ops->other_machines(h, run_id, runs, machines);
}

int hist_machines(hist *h, char ***out, size_t *n) { return h->ops->machines(h, out, n); }

void hist_strings_free(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

int hist_complete_runs(hist *h, const char *machine, hist_run **out, size_t *n)
{
    return h->ops->complete_runs(h, machine, out, n);
}

int hist_run_cells(hist *h, long long run_id, hist_cell **out, size_t *n)
{
    return h->ops->run_cells(h, run_id, out, n);
}

int hist_cell_series(hist *h, const char *cell, hist_figures **out, size_t *n)
{
    return h->ops->cell_series(h, cell, out, n);
}

int hist_pool_cells(hist *h, const hist_select *s, hist_figures **out, size_t *n)
{
    return h->ops->pool_cells(h, s, out, n);
}

int hist_paired_cells(hist *h, const hist_select *s, const char *partner_family, hist_pair **out, size_t *n)
{
    return h->ops->paired_cells(h, s, partner_family, out, n);
}

int hist_each_positive(hist *h, int (*fn)(const hist_value *v, void *arg), void *arg)
{
    return h->ops->each_positive(h, fn, arg);
}

int hist_cell_estimate(hist *h, long long run_id, const char *family, const char *const mode[4], long long size,
                       hist_figures *out)
{
    return h->ops->cell_estimate(h, run_id, family, mode, size, out);
}

// --- one writer at a time ------------------------------------------------------------------------------

static volatile sig_atomic_t *hist_stop;

void hist_watch(volatile sig_atomic_t *stop) { hist_stop = stop; }

int hist_stopped(void) { return hist_stop != NULL && *hist_stop; }

/* The process that holds the lock, as it wrote itself into the lock file (0 when unknown). */
static long lock_holder(int fd)
{
    char buf[32] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    return strtol(buf, NULL, 10);
}

/* Waits for the lock on fd (open on path), 50 ms between tries. Returns 0, or -1 with err. */
static int lock_wait(int fd, const char *dir, FILE *notes, char *err, size_t errlen)
{
    const struct timespec pause = {0, 50 * 1000 * 1000};
    for (long waited_ms = 0;; waited_ms += 50) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(err, errlen, "%s/%s: cannot lock the history: %s", dir, HIST_LOCK_NAME, strerror(errno));
            return -1;
        }
        /* The holder writes its pid just after it takes the lock: a waiter can read it before. */
        char who[40] = "";
        const long pid = lock_holder(fd);
        if (pid > 0)
            snprintf(who, sizeof who, " (pid %ld)", pid);
        if (waited_ms == 0 && notes)
            fprintf(notes, "ringbench track: waiting for another job on %s%s to finish\n", dir, who);
        if (hist_stopped()) {
            snprintf(err, errlen, "interrupted while waiting for another job on %s%s", dir, who);
            return -1;
        }
        if (waited_ms >= HIST_LOCK_WAIT_S * 1000L) {
            snprintf(err, errlen, "another job%s has held %s for %d minutes: giving up (its lock is %s/%s)", who, dir,
                     HIST_LOCK_WAIT_S / 60, dir, HIST_LOCK_NAME);
            return -1;
        }
        nanosleep(&pause, NULL);
    }
}

int hist_lock(const char *dir, FILE *notes, int *fd, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, HIST_LOCK_NAME);
    /* Close-on-exec: a child (gnuplot) never holds the history after ringbench is gone. */
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (*fd < 0) {
        snprintf(err, errlen, "%s: cannot lock the history: %s", path, strerror(errno));
        return -1;
    }
    if (lock_wait(*fd, dir, notes, err, errlen) != 0) {
        close(*fd);
        *fd = -1;
        return -1;
    }
    /* Who holds it, for the message of the next job that waits (best effort: the lock is the flock). */
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(*fd, 0) != 0 || pwrite(*fd, pid, (size_t)n, 0) != n) {
        /* The lock is held all the same; a waiting job names no pid. */
    }
    return 0;
}

int hist_temp_name(const char *name, long *pid)
{
    *pid = 0;
    if (strcmp(name, "history.md.tmp") == 0) /* the page's temporary before it was NAME.tmp-PID */
        return 1;
    const int incoming = strncmp(name, ".incoming-", 10) == 0;
    const char *p = incoming ? name + 10 : strstr(name, ".tmp-");
    if (p == NULL)
        return 0;
    if (!incoming)
        p += 5;
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v <= 0)
        return 0;
    *pid = v;
    return incoming ? strcmp(end, ".h5") == 0 : strcmp(end, "") == 0 || strcmp(end, "-journal") == 0;
}

/* Removes the temporary files in folder path of jobs that ended before they were done (killed, or a
 * crash): only the lock's holder writes such names there, so every one not of this process is left
 * over. Returns how many. */
static int sweep_folder(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;
    long pid;
    while (d != NULL && (e = readdir(d)) != NULL)
        if (hist_temp_name(e->d_name, &pid) && pid != (long)getpid() && unlinkat(dirfd(d), e->d_name, 0) == 0)
            n++;
    if (d != NULL)
        closedir(d);
    return n;
}

/* What earlier jobs left in DIR and DIR/plots (the page's), said in one line on notes. */
static void sweep_leftovers(const char *dir, FILE *notes)
{
    char plots[4200];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    int n = sweep_folder(dir) + sweep_folder(plots);
    if (n && notes)
        fprintf(notes, "ringbench track: removed %d temporary file%s left in %s by a job that did not finish\n", n,
                n == 1 ? "" : "s", dir);
}

// --- judgements, the list, headline figures ----------------------------------------------------------

int hist_judgement_put(hist *h, long long run_id, const hist_judgement *j)
{
    return h->ops->judgement_put(h, run_id, j);
}

int hist_list(hist *h, hist_listed **out, size_t *n) { return h->ops->list(h, out, n); }

int hist_run_headlines(hist *h, long long run_id, hist_headline **out, size_t *n)
{
    return h->ops->run_headlines(h, run_id, out, n);
}

size_t hist_summarise(hist *h, const char *path, hist_headline out[HIST_MAX_HEADLINES])
{
    size_t n = 0;
    if (!h->summarise || h->summarise(path, out, HIST_MAX_HEADLINES, &n, h->summarise_ctx) != 0)
        return 0;
    return n < HIST_MAX_HEADLINES ? n : HIST_MAX_HEADLINES;
}

// --- what the backends share ---------------------------------------------------------------------------

void hist_note(hist *h, const char *fmt, ...)
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

int hist_fail(hist *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->error, sizeof h->error, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *prov(const h5in *r, const char *name, const char *dflt)
{
    const char *v = h5in_attr(r, RB_H5_PROVENANCE, name);
    return v && *v ? v : dflt;
}

int hist_record_of(const h5in *r, const struct stat *sb, hist_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->hostname = prov(r, "hostname", "unknown");
    rec->backend = prov(r, "backend", "unknown");
    rec->gpu_name = prov(r, "gpu_name", "none");
    rec->pci_bus_id = prov(r, "pci_bus_id", "none");
    rec->wsl2 = strcmp(prov(r, "wsl2", "0"), "1") == 0;
    /* The fingerprint is a key: allocated at its full length, never cut (two long GPU names that
     * share a prefix are two machines). */
    const char *fmt = "%s | %s | %s | %s | %s", *kind = rec->wsl2 ? "WSL2" : "native";
    int mlen = snprintf(NULL, 0, fmt, rec->hostname, rec->backend, rec->gpu_name, rec->pci_bus_id, kind);
    rec->machine = mlen < 0 ? NULL : malloc((size_t)mlen + 1);
    if (rec->machine == NULL)
        return -1;
    snprintf(rec->machine, (size_t)mlen + 1, fmt, rec->hostname, rec->backend, rec->gpu_name, rec->pci_bus_id, kind);
    /* The driver by its NVML version string where the run had NVML, else the CUDA driver API number. */
    rec->driver = prov(r, "nvml_driver_version", NULL);
    if (!rec->driver || strcmp(rec->driver, "unknown") == 0)
        rec->driver = prov(r, "driver_version", "unknown");
    rec->start_utc = prov(r, "start_utc", NULL);
    if (!rec->start_utc) {
        struct tm tm;
        gmtime_r(&sb->st_mtime, &tm);
        strftime(rec->start_buf, sizeof rec->start_buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
        rec->start_utc = rec->start_buf;
    }
    rec->end_utc = prov(r, "end_utc", NULL);
    rec->preset = prov(r, "preset", NULL);
    rec->complete = h5in_complete(r);
    rec->cuda_runtime = prov(r, "runtime_version", "unknown");
    rec->kernel_release = prov(r, "kernel_release", "unknown");
    rec->suite_version = prov(r, "suite_version", "unknown");
    rec->git_commit = prov(r, "git_commit", "unknown");
    rec->schema_version = h5in_schema_version(r);
    rec->pci_id = prov(r, "pci_id", "unknown");
    return 0;
}

void hist_record_free(hist_record *rec)
{
    free(rec->machine);
    rec->machine = NULL;
}

void hist_row_modes(const rb_row *row, double *lo, double *hi, double *share)
{
    const int two = row->bimodal == 1 && strcmp(row->status, RB_STATUS_OK) == 0 && strcmp(row->family, "latency") == 0;
    *lo = two ? row->mode_fast : NAN;
    *hi = two ? row->mode_slow : NAN;
    *share = two ? row->slow_share : NAN;
}

void hist_utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

// --- run files -----------------------------------------------------------------------------------------

int hist_ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

int hist_mkdir_p(const char *dir)
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

int hist_file_key(const char *path, char key[65], char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    sha256_ctx c;
    sha256_init(&c);
    unsigned char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        sha256_update(&c, buf, (size_t)n);
    }
    close(fd);
    uint8_t digest[SHA256_DIGEST_LEN];
    sha256_final(&c, digest);
    sha256_hex(digest, key);
    return 0;
}

int hist_copy_in(const char *src, const char *dir, const char *dst, char *err, size_t errlen)
{
    char tmp[8300];
    snprintf(tmp, sizeof tmp, "%s/.incoming-%ld.h5", dir, (long)getpid());
    int in = open(src, O_RDONLY | O_CLOEXEC),
        outfd = in < 0 ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = in < 0 || outfd < 0 ? -1 : 0, e = errno;
    char buf[1 << 16];
    ssize_t n, w;
    /* A short write is written on until one fails: its errno is the reason (a full disk's ENOSPC); one
     * short write alone sets none, and an earlier call's stale errno was reported instead. */
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        if (hist_stopped()) {
            rc = -1, e = EINTR;
            break;
        }
        for (ssize_t done = 0; rc == 0 && n > 0 && done < n; done += w)
            if ((w = write(outfd, buf + done, (size_t)(n - done))) < 0)
                rc = -1, e = errno;
        if (n < 0)
            rc = -1, e = errno;
    }
    if (rc == 0 && fsync(outfd) != 0)
        rc = -1, e = errno;
    if (rc != 0)
        snprintf(err, errlen, "copying %s into %s: %s", src, dir, e == EINTR ? "interrupted" : strerror(e));
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
