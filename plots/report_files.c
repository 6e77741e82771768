/* report_files.c - the report directory: created with mkdir -p semantics, and every file in it written
 * as NAME.tmp then renamed, so an interrupted report never leaves half a file under the real name.
 * Only names chosen by this code (no slashes) are joined to the directory: nothing lands outside it.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int report_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char buf[REPORT_PATH_MAX];
    size_t len = strlen(dir);
    struct stat st;
    if (len == 0 || len >= sizeof buf) {
        snprintf(err, errlen, "output directory name is empty or too long");
        return -1;
    }
    memcpy(buf, dir, len + 1);
    /* Each prefix ending before a '/' is created in turn; existing ones are fine if directories. */
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create directory: %s", buf, strerror(errno));
            return -1;
        }
        buf[i] = saved;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: exists and is not a directory", dir);
        return -1;
    }
    return 0;
}

void report_default_dir(const char *path, const char *suffix, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *dot = strrchr(base, '.');
    size_t stemlen = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    snprintf(out, n, "%.*s%.*s%s", (int)dirlen, path, (int)stemlen, base, suffix);
}

int report_file_open(report_file *rf, const char *dir, const char *name, char *err, size_t errlen)
{
    snprintf(rf->path, sizeof rf->path, "%s/%s", dir, name);
    snprintf(rf->tmp, sizeof rf->tmp, "%s/%s.tmp", dir, name);
    rf->f = fopen(rf->tmp, "w");
    if (rf->f == NULL) {
        snprintf(err, errlen, "%s: %s", rf->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

int report_file_close(report_file *rf, char *err, size_t errlen)
{
    int bad = ferror(rf->f);
    int e = errno;
    if (fclose(rf->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    rf->f = NULL;
    if (!bad && rename(rf->tmp, rf->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", rf->path, strerror(e));
        unlink(rf->tmp);
        return -1;
    }
    return 0;
}
