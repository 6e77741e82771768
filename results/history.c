/* history.c - the run history of `ringbench track` (history.h): the public calls, dispatched to the
 * backend that opened the history (history_internal.h), and what every backend shares: a run's
 * record read from its file, notes and errors, and the copy-in of run files. The folder backend and
 * its SQLite index are history_sqlite.c. Exercised by tests/test_history.c (rebuild, damaged and
 * foreign files, fingerprints).
 */
#include "history_internal.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// --- the public calls ----------------------------------------------------------------------------------

static const char *const env_words[HIST_ENV_COUNT] = {
#define ENV_WORDS(col, words) words,
    HIST_ENV_FIELDS(ENV_WORDS)
#undef ENV_WORDS
};

const char *hist_env_word(int i) { return i >= 0 && i < HIST_ENV_COUNT ? env_words[i] : NULL; }

int hist_open(const char *dir, FILE *notes, hist **out, char *err, size_t errlen)
{
    return hist_sqlite_open(dir, notes, out, err, errlen);
}

void hist_close(hist *h)
{
    if (h)
        h->ops->close(h);
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

int hist_same_bytes(const char *a, const char *b)
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
