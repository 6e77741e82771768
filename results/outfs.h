/* outfs.h - how every output of ringbench reaches the disk without loss: paths of any length the
 * system takes, files written whole or not at all, report folders replaced only by a complete one,
 * room on the disk taken before a results file needs it, and the leftovers of a writer that died.
 *
 * A full disk, a file-size limit (ulimit -f; main ignores SIGXFSZ, so such a write fails with EFBIG)
 * or any other write error is returned as the errno of the write that failed, never a stale one,
 * and the earlier output stays as it was. Exercised by tests/io_cli.sh (full disk on a small tmpfs,
 * ulimit -f, long paths, interrupted reports).
 */
#ifndef RINGBENCH_OUTFS_H
#define RINGBENCH_OUTFS_H

#include <stddef.h>
#include <stdio.h>

/* 0 when path is short enough for this system (PATH_MAX, terminator included); otherwise -1 with
 * "WHAT: the path is N bytes, over this system's limit of M bytes (PATH_MAX)" in err. */
int outfs_path_check(const char *what, const char *path, char *err, size_t errlen);

/* A path built as printf builds text, malloc'd (the caller frees it); NULL when out of memory. */
char *outfs_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Room on the disk for `bytes` more beyond the end of the file open as fd, taken now (fallocate,
 * without changing the file's size), so that the writes it stands for cannot fail on a full disk
 * or past the process's file-size limit. Returns 0, or the errno that says why not (ENOSPC, EFBIG
 * past RLIMIT_FSIZE, EDQUOT, ...) with one line in why. A filesystem that cannot reserve (no
 * fallocate) is asked for its free space instead. outfs_release gives back what was not used. */
int outfs_reserve(int fd, unsigned long long bytes, char *why, size_t whylen);
void outfs_release(const char *path);

/* A file descriptor that takes every write and keeps it in memory (memfd; /dev/null where there is
 * none): what a library that must not write into a damaged file any more is handed instead of its
 * own (h5out.c, after a write failed part-way). -1 when none can be made. */
int outfs_scratch_fd(void);

/* A file written as PATH.tmp-PID and renamed to PATH by outfs_file_commit, only when every byte of
 * it was written: an interrupted or failed write leaves PATH as it was. */
typedef struct outfs_file {
    FILE *f;
    char *path, *tmp;
} outfs_file;

/* Opens the temporary file. Returns 0, or -1 with "TMP: strerror" in err. */
int outfs_file_open(outfs_file *o, const char *path, char *err, size_t errlen);
/* Flushes it to disk and renames it into place. On any error the temporary file is removed and err
 * says "cannot write PATH: strerror" with the errno of the write that failed. Returns 0 or -1. */
int outfs_file_commit(outfs_file *o, char *err, size_t errlen);
/* Closes and removes the temporary file (after an error elsewhere); harmless when not open. */
void outfs_file_discard(outfs_file *o);

/* A folder of outputs (a report) written as PATH.tmp-PID and moved to PATH by outfs_dir_commit, so
 * that PATH is always a whole report: the one before until the new one is complete, then the new
 * one. An existing PATH is replaced only when it holds nothing but what a report writes (regular
 * files named *.md, *.dat, *.gp, *.png, *.svg, *.log, *.csv, *.json, *.tmp): a folder of other
 * things is never removed. */
typedef struct outfs_dir {
    char *path, *stage;
} outfs_dir;

/* Removes the leftovers of writers that died (PATH.tmp-PID and PATH.old-PID of processes that no
 * longer run), makes PATH's parent folders, and creates the staging folder (d->stage). Returns 0,
 * or -1 with one line in err (PATH holds other things, is not a folder, or cannot be written). */
int outfs_dir_begin(outfs_dir *d, const char *path, char *err, size_t errlen);
/* Puts the staging folder in PATH's place (an atomic exchange where the filesystem has one), then
 * removes the report it replaced. Returns 0, or -1 with err (the staging folder is removed). */
int outfs_dir_commit(outfs_dir *d, char *err, size_t errlen);
/* Removes the staging folder and what is in it; harmless when there is none. */
void outfs_dir_discard(outfs_dir *d);

/* The errno of a stream's failed write: the one fflush sees now, or for an error the stream took
 * earlier (its errno since overwritten) the one a new write of a byte gets; 0 when nothing failed.
 * For a temporary file about to be removed, or an output already incomplete. */
int outfs_stream_errno(FILE *f);

#endif
