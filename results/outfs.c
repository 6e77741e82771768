/* outfs.c - outputs that reach the disk whole or not at all (see outfs.h). Linux: fallocate to take
 * room before it is needed, memfd for a scratch descriptor, renameat2 to exchange two folders.
 */
#define _GNU_SOURCE

#include "outfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

// --- paths ---------------------------------------------------------------------------------------------

int outfs_path_check(const char *what, const char *path, char *err, size_t errlen)
{
    size_t len = strlen(path);
    if (len < PATH_MAX)
        return 0;
    snprintf(err, errlen, "%s: the path is %zu bytes, over this system's limit of %d bytes (PATH_MAX)", what, len,
             PATH_MAX - 1);
    return -1;
}

char *outfs_path(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* The folder of path and its last component, malloc'd. Returns 0, or -1 when out of memory. */
static int split_path(const char *path, char **dir, char **base)
{
    const char *slash = strrchr(path, '/');
    *dir = slash == NULL ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
    *base = strdup(slash ? slash + 1 : path);
    if (*dir && *base)
        return 0;
    free(*dir);
    free(*base);
    return -1;
}

static void sync_dir_of(const char *path)
{
    char *dir, *base;
    if (split_path(path, &dir, &base) != 0)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd); /* best effort: some filesystems refuse fsync on a folder */
        close(fd);
    }
    free(dir);
    free(base);
}

// --- room on the disk ------------------------------------------------------------------------------------

int outfs_reserve(int fd, unsigned long long bytes, char *why, size_t whylen)
{
    struct stat st;
    struct rlimit rl;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(why, whylen, "fstat: %s", strerror(e));
        return e;
    }
    const unsigned long long size = (unsigned long long)st.st_size;
    /* A reservation beyond the end does not grow the file, so the limit is checked here: the writes
     * themselves would fail with EFBIG part-way. */
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && size + bytes > rl.rlim_cur) {
        snprintf(why, whylen, "%s (the file-size limit, ulimit -f, is %llu bytes)", strerror(EFBIG),
                 (unsigned long long)rl.rlim_cur);
        return EFBIG;
    }
    if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)size, (off_t)bytes) == 0)
        return 0;
    int e = errno;
    if (e != EOPNOTSUPP && e != ENOSYS && e != EINVAL) {
        snprintf(why, whylen, "%s", strerror(e));
        return e;
    }
    struct statvfs vfs; /* no reservation here: at least the room must be free now */
    if (fstatvfs(fd, &vfs) == 0 && vfs.f_frsize && (unsigned long long)vfs.f_bavail < bytes / vfs.f_frsize + 1) {
        snprintf(why, whylen, "%s", strerror(ENOSPC));
        return ENOSPC;
    }
    return 0;
}

void outfs_release(const char *path)
{
    struct stat st;
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return;
    /* Truncating to its own size frees what was reserved beyond the end (ext4, xfs, tmpfs). */
    if (fstat(fd, &st) == 0 && ftruncate(fd, st.st_size) != 0)
        errno = 0; /* best effort: the data is whole either way */
    close(fd);
}

int outfs_scratch_fd(void)
{
    int fd = memfd_create("ringbench-scratch", MFD_CLOEXEC);
    return fd >= 0 ? fd : open("/dev/null", O_RDWR | O_CLOEXEC);
}

int outfs_stream_errno(FILE *f)
{
    errno = 0;
    if (fflush(f) != 0)
        return errno ? errno : EIO;
    if (!ferror(f))
        return 0;
    clearerr(f);
    if (fputc(0, f) == EOF || fflush(f) != 0)
        return errno ? errno : EIO;
    return EIO; /* a write failed earlier and works now: its reason is gone */
}

// --- leftovers ------------------------------------------------------------------------------------------

/* Whether name is base + tag + the number of a process that no longer runs ("q-report.tmp-4242"). */
static int dead_leftover(const char *name, const char *base, const char *tag)
{
    size_t nb = strlen(base), nt = strlen(tag);
    if (strncmp(name, base, nb) != 0 || strncmp(name + nb, tag, nt) != 0)
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(name + nb + nt, &end, 10);
    if (errno || *end || pid <= 0 || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes path: a file, or a folder of files (a report's: one level, nothing below). */
static int remove_flat(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT)
            rc = -1;
    }
    closedir(d);
    return rmdir(path) == 0 && rc == 0 ? 0 : -1;
}

/* Removes what writers of path that died left beside it: path.tmp-PID and path.old-PID. */
static void sweep_leftovers(const char *path)
{
    char *dir, *base;
    if (split_path(path, &dir, &base) != 0)
        return;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (!dead_leftover(e->d_name, base, ".tmp-") && !dead_leftover(e->d_name, base, ".old-"))
            continue;
        char *p = outfs_path("%s/%s", dir, e->d_name);
        if (p != NULL)
            remove_flat(p);
        free(p);
    }
    if (d != NULL)
        closedir(d);
    free(dir);
    free(base);
}

// --- files ----------------------------------------------------------------------------------------------

int outfs_file_open(outfs_file *o, const char *path, char *err, size_t errlen)
{
    o->f = NULL;
    o->path = strdup(path);
    o->tmp = outfs_path("%s.tmp-%ld", path, (long)getpid());
    if (o->path == NULL || o->tmp == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        outfs_file_discard(o);
        return -1;
    }
    sweep_leftovers(path);
    /* Opened non-blocking and checked: a FIFO or device someone left under the name is never waited on
     * or written into. */
    struct stat st;
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644), flags;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = EEXIST;
        free(o->tmp); /* not ours: left alone */
        o->tmp = NULL;
    }
    if (fd < 0 || (flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
        (o->f = fdopen(fd, "w")) == NULL) {
        snprintf(err, errlen, "cannot write %s.tmp-%ld: %s", path, (long)getpid(), strerror(errno));
        if (fd >= 0)
            close(fd);
        outfs_file_discard(o);
        return -1;
    }
    return 0;
}

int outfs_file_commit(outfs_file *o, char *err, size_t errlen)
{
    int e = outfs_stream_errno(o->f);
    if (e == 0 && fsync(fileno(o->f)) != 0)
        e = errno;
    if (fclose(o->f) != 0 && e == 0)
        e = errno;
    o->f = NULL;
    if (e == 0 && rename(o->tmp, o->path) != 0)
        e = errno;
    if (e != 0) {
        snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
        outfs_file_discard(o);
        return -1;
    }
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return 0;
}

void outfs_file_discard(outfs_file *o)
{
    if (o->f != NULL)
        fclose(o->f);
    if (o->tmp != NULL)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    o->f = NULL;
    o->path = o->tmp = NULL;
}

// --- folders --------------------------------------------------------------------------------------------

/* Whether a report could have written this name (outfs.h lists the kinds). */
static int report_name(const char *name)
{
    static const char *const kinds[] = {".md", ".dat", ".gp", ".png", ".svg", ".log", ".csv", ".json", ".tmp"};
    if (strstr(name, ".tmp-") != NULL)
        return 1;
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot != NULL && i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(dot, kinds[i]) == 0)
            return 1;
    return 0;
}

/* 0 when path is absent, or a folder of nothing but what a report writes; else -1 with err. */
static int replaceable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1);
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: exists and is not a directory", path);
        return -1;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            report_name(e->d_name))
            continue;
        snprintf(err, errlen,
                 "%s holds '%.200s', which a report does not write: not replacing that folder (choose another -o)",
                 path, e->d_name);
        rc = -1;
    }
    closedir(d);
    return rc;
}

/* mkdir -p of path's parent folders. */
static int make_parents(const char *path, char *err, size_t errlen)
{
    char *buf = strdup(path);
    if (buf == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = 0;
    for (char *p = buf + 1; rc == 0 && (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create directory: %s", buf, strerror(errno));
            rc = -1;
        }
        *p = '/';
    }
    free(buf);
    return rc;
}

int outfs_dir_begin(outfs_dir *d, const char *path, char *err, size_t errlen)
{
    d->stage = NULL;
    d->path = strdup(path);
    /* A trailing slash (-o DIR/) would put the staging folder inside the report. */
    for (size_t n = d->path ? strlen(d->path) : 0; n > 1 && d->path[n - 1] == '/'; n--)
        d->path[n - 1] = '\0';
    if (d->path == NULL || (d->stage = outfs_path("%s.tmp-%ld", d->path, (long)getpid())) == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        outfs_dir_discard(d);
        return -1;
    }
    if (make_parents(d->path, err, errlen) != 0 || replaceable(d->path, err, errlen) != 0) {
        free(d->stage); /* not made: nothing to remove */
        d->stage = NULL;
        outfs_dir_discard(d);
        return -1;
    }
    sweep_leftovers(d->path);
    remove_flat(d->stage); /* this process's own, from a report it wrote before (run --report) */
    if (mkdir(d->stage, 0777) != 0) {
        snprintf(err, errlen, "%s: cannot create directory: %s", d->stage, strerror(errno));
        free(d->stage);
        d->stage = NULL;
        outfs_dir_discard(d);
        return -1;
    }
    return 0;
}

/* Moves the staging folder into path's place; the old report, if any, ends at *old (to remove). */
static int dir_swap(outfs_dir *d, char **old)
{
    *old = NULL;
    if (rename(d->stage, d->path) == 0)
        return 0;
    if (errno != EEXIST && errno != ENOTEMPTY)
        return -1;
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, d->stage, AT_FDCWD, d->path, RENAME_EXCHANGE) == 0) {
        *old = d->stage; /* what was the report is now at the staging name */
        d->stage = NULL;
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
        return -1;
#endif
    /* No exchange on this filesystem: the old report steps aside first, for a moment without one. */
    if ((*old = outfs_path("%s.old-%ld", d->path, (long)getpid())) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    if (rename(d->path, *old) != 0 || rename(d->stage, d->path) != 0) {
        int e = errno;
        rename(*old, d->path); /* back, if it moved */
        free(*old);
        *old = NULL;
        errno = e;
        return -1;
    }
    return 0;
}

int outfs_dir_commit(outfs_dir *d, char *err, size_t errlen)
{
    char *old = NULL;
    if (replaceable(d->path, err, errlen) != 0) { /* made meanwhile by someone else */
        outfs_dir_discard(d);
        return -1;
    }
    if (dir_swap(d, &old) != 0) {
        snprintf(err, errlen, "cannot move %s to %s: %s", d->stage, d->path, strerror(errno));
        outfs_dir_discard(d);
        return -1;
    }
    sync_dir_of(d->path);
    if (old != NULL)
        remove_flat(old);
    free(old);
    outfs_dir_discard(d);
    return 0;
}

void outfs_dir_discard(outfs_dir *d)
{
    if (d->stage != NULL)
        remove_flat(d->stage);
    free(d->stage);
    free(d->path);
    d->stage = d->path = NULL;
}
