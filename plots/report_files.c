/* report_files.c - the report directory and the files in it. A report, a comparison or a sensitivity
 * report is written into a staging folder beside its directory and moved into place only when every
 * file and image of it is complete (results/outfs.h): an interrupted or failed report leaves the one
 * before as it was. Every file in it is written as NAME.tmp-PID then renamed. Only names chosen by this
 * code (no slashes) are joined to the directory: nothing lands outside it.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *report_default_dir(const char *path, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *dot = strrchr(base, '.');
    size_t stemlen = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return outfs_path("%.*s%.*s%s", (int)dirlen, path, (int)stemlen, base, suffix);
}

int report_dir_begin(outfs_dir *d, const char *cmd, const char *dir, const char *input, const char *suffix)
{
    char err[1024];
    char *path = dir ? strdup(dir) : report_default_dir(input, suffix);
    int rc = path == NULL ? (snprintf(err, sizeof err, "out of memory"), -1)
                          : outfs_path_check("output directory", path, err, sizeof err);
    if (rc == 0)
        rc = outfs_dir_begin(d, path, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "ringbench %s: %s\n", cmd, err);
    free(path);
    return rc;
}

int report_dir_end(outfs_dir *d, const char *cmd, int ok)
{
    char err[1024];
    if (report_stopped())
        fprintf(stderr, "ringbench %s: interrupted: %s left as it was\n", cmd, d->path);
    if (!ok || report_stopped()) {
        outfs_dir_discard(d);
        return -1;
    }
    if (outfs_dir_commit(d, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench %s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

int report_file_open(report_file *rf, const char *dir, const char *name, char *err, size_t errlen)
{
    char *path = outfs_path("%s/%s", dir, name);
    if (path == NULL) {
        snprintf(err, errlen, "%s/%s: out of memory", dir, name);
        return -1;
    }
    int rc = outfs_file_open(&rf->o, path, err, errlen);
    rf->f = rc == 0 ? rf->o.f : NULL;
    free(path);
    return rc;
}

int report_file_close(report_file *rf, char *err, size_t errlen)
{
    rf->f = NULL;
    return outfs_file_commit(&rf->o, err, errlen);
}

void report_file_discard(report_file *rf)
{
    rf->f = NULL;
    outfs_file_discard(&rf->o);
}
