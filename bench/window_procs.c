/* window_procs.c - the full window in fresh processes (window_procs.h). Exercised by tests/cli_test.sh
 * ("procs": a CPU-backend run with --window-procs, its cells and trials checked, and an interrupted
 * leg) and by every `make nightly`. */
#define _GNU_SOURCE /* mkdtemp, readlink */
#include "window_procs.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5in.h"
#include "modes.h"
#include "outfs.h"
#include "placement.h"
#include "timing.h"

extern char **environ;

/* The modes every child measures, in the --modes grammar: the one definition of the leg's four modes. */
#define WINDOW_PROCS_MODESPEC "host=pinned,xfer=zerocopy,ctrl=mapped|managed"

size_t window_procs_modes(int idx[WINDOW_PROCS_MODES])
{
    mode_set set;
    char err[160];
    size_t k = 0;
    if (mode_set_parse(WINDOW_PROCS_MODESPEC, &set, err, sizeof err) != 0)
        return 0; /* cannot happen: a constant of the --modes grammar, and test_cli_procs sees its rows */
    for (size_t i = 0; i < RB_MODE_COUNT && k < WINDOW_PROCS_MODES; i++)
        if (set.selected[i])
            idx[k++] = (int)i;
    return k;
}

int window_procs_dir(const char *keep, char **dir, char *err, size_t errlen)
{
    *dir = NULL;
    if (keep) {
        struct stat sb;
        errno = 0;
        if ((mkdir(keep, 0777) == 0 || errno == EEXIST) && stat(keep, &sb) == 0 && S_ISDIR(sb.st_mode) &&
            (*dir = strdup(keep)) != NULL)
            return 0;
        snprintf(err, errlen, "cannot keep the window leg's files in %s: %s", keep,
                 errno && errno != EEXIST ? strerror(errno) : "not a folder");
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    *dir = outfs_path("%s/ringbench-procs-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (*dir && mkdtemp(*dir))
        return 0;
    snprintf(err, errlen, "cannot create a folder for the window leg's processes (%s): %s", *dir ? *dir : "",
             *dir ? strerror(errno) : "out of memory");
    free(*dir);
    *dir = NULL;
    return -1;
}

void window_procs_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The last non-empty line of a log (at most n - 1 characters of it), or "" when there is none. */
static void last_line(const char *log, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            rb_set_field(out, n, line);
    }
    fclose(f);
}

/* Each reference cell and the family of the child's own row it is taken from. */
static const struct {
    rb_family ref, from;
} refs[WINDOW_PROCS_REFS] = {{RB_FAM_MEMCPY_H2D_PINNED_PROCS, RB_FAM_MEMCPY_H2D_PINNED},
                             {RB_FAM_MEMCPY_H2D_PAGEABLE_PROCS, RB_FAM_MEMCPY_H2D_PAGEABLE}};

rb_family window_procs_ref_family(int j) { return refs[j].ref; }

/* Every cell of *out failed (or unsupported) for the same reason. */
static void all_modes(window_procs_proc *out, const char *status, const char *reason)
{
    for (int k = 0; k < WINDOW_PROCS_CELLS; k++) {
        rb_set_field(out->t[k].status, sizeof out->t[k].status, status);
        rb_set_field(out->t[k].reason, sizeof out->t[k].reason, reason);
        out->gbps[k] = NAN;
    }
}

static int same_mode(const char *host, const char *xfer, const char *launch, const char *ctrl, const mode_spec *m)
{
    return strcmp(host, mode_axis_value(RB_AXIS_HOST, m->v[RB_AXIS_HOST])) == 0 &&
           strcmp(xfer, mode_axis_value(RB_AXIS_XFER, m->v[RB_AXIS_XFER])) == 0 &&
           strcmp(launch, mode_axis_value(RB_AXIS_LAUNCH, m->v[RB_AXIS_LAUNCH])) == 0 &&
           strcmp(ctrl, mode_axis_value(RB_AXIS_CTRL, m->v[RB_AXIS_CTRL])) == 0;
}

/* Trial t of a cell whose child row x gave no ok trial: unsupported where the child's row was
 * (unsupported or invalid there), else failed, with that row's reason or `none`. */
static void child_row_not_ok(rb_trial *t, const rb_row *x, int index, const char *none)
{
    rb_set_field(t->status, sizeof t->status,
                 strcmp(x->status, RB_STATUS_UNSUPPORTED) == 0 || strcmp(x->status, RB_STATUS_INVALID) == 0
                     ? RB_STATUS_UNSUPPORTED
                     : RB_STATUS_FAILED);
    snprintf(t->reason, sizeof t->reason, "process %d: %.150s", index, x->reason[0] ? x->reason : none);
}

/* Mode k of the child's file r into out: its widest-window throughput row at the size, and the best of
 * that row's ok trials; the messages of every trial of the mode. */
static void read_mode(const h5in *r, uint32_t size, int index, int k, const mode_spec *m, window_procs_proc *out)
{
    rb_trial *t = &out->t[k];
    long row = -1;
    for (size_t i = 0; i < h5in_nrows(r); i++) {
        const rb_row *x = h5in_row(r, i);
        if (strcmp(x->family, "throughput") == 0 && x->size_bytes == size &&
            same_mode(x->host_mem, x->xfer, x->launch, x->ctrl, m) &&
            (row < 0 || x->window > h5in_row(r, (size_t)row)->window))
            row = (long)i;
    }
    out->gbps[k] = NAN;
    if (row < 0) {
        rb_set_field(t->status, sizeof t->status, RB_STATUS_FAILED);
        snprintf(t->reason, sizeof t->reason, "process %d wrote no full-window row for this mode", index);
        return;
    }
    const rb_row *x = h5in_row(r, (size_t)row);
    const size_t *idx;
    const size_t nt = h5in_row_trials(r, (size_t)row, &idx);
    long best = -1;
    for (size_t i = 0; i < nt && strcmp(x->status, RB_STATUS_OK) == 0; i++) {
        const rb_trial *y = h5in_trial(r, idx[i]);
        if (strcmp(y->status, RB_STATUS_OK) == 0 && isfinite(y->p50) && y->p50 > 0 &&
            (best < 0 || y->p50 > h5in_trial(r, idx[best])->p50))
            best = (long)i;
    }
    if (best >= 0) {
        *t = *h5in_trial(r, idx[best]); /* its conditions; ids, family, round and seq are the caller's */
        out->gbps[k] = t->p50;
    } else {
        child_row_not_ok(t, x, index, "no ok trial of the full window");
    }
    t->window = x->window;
    t->messages = t->lost = t->duplicated = t->corrupted = t->kernel_errors = 0;
    for (size_t i = 0; i < h5in_ntrials(r); i++) {
        const rb_trial *y = h5in_trial(r, i);
        if (!same_mode(y->host_mem, y->xfer, y->launch, y->ctrl, m))
            continue;
        t->messages += y->messages;
        t->lost += y->lost;
        t->duplicated += y->duplicated;
        t->corrupted += y->corrupted;
        t->kernel_errors += y->kernel_errors;
    }
    if (best >= 0 && (t->lost || t->duplicated || t->corrupted || t->kernel_errors)) {
        rb_set_field(t->status, sizeof t->status, RB_STATUS_FAILED);
        snprintf(t->reason, sizeof t->reason, "process %d: verification failed in its trials of this mode", index);
        out->gbps[k] = NAN;
    }
}

static int by_p50(const void *a, const void *b)
{
    const double x = (*(const rb_trial *const *)a)->p50, y = (*(const rb_trial *const *)b)->p50;
    return x < y ? -1 : x > y;
}

/* Reference j as cell k of *out: the child's row of the memcpy family it stands for at the size, and
 * that row's median ok trial (the lower of the two middle ones for an even count). */
static void read_ref(const h5in *r, uint32_t size, int index, int j, int k, window_procs_proc *out)
{
    const char *fam = rb_family_name(refs[j].from);
    rb_trial *t = &out->t[k];
    out->gbps[k] = NAN;
    long row = -1;
    for (size_t i = 0; i < h5in_nrows(r) && row < 0; i++)
        if (strcmp(h5in_row(r, i)->family, fam) == 0 && h5in_row(r, i)->size_bytes == size)
            row = (long)i;
    if (row < 0) { /* not measured there (a reference, not the leg's own figure): no failure of the run */
        rb_set_field(t->status, sizeof t->status, RB_STATUS_UNSUPPORTED);
        snprintf(t->reason, sizeof t->reason, "process %d measured no %s at this size", index, fam);
        return;
    }
    const rb_row *x = h5in_row(r, (size_t)row);
    const size_t *idx;
    const size_t nt = h5in_row_trials(r, (size_t)row, &idx);
    const rb_trial *ok[64];
    size_t n = 0;
    for (size_t i = 0; i < nt && n < sizeof ok / sizeof *ok && strcmp(x->status, RB_STATUS_OK) == 0; i++) {
        const rb_trial *y = h5in_trial(r, idx[i]);
        if (strcmp(y->status, RB_STATUS_OK) == 0 && isfinite(y->p50) && y->p50 > 0)
            ok[n++] = y;
    }
    if (n == 0) {
        child_row_not_ok(t, x, index, "no ok trial of its memcpy");
        return;
    }
    qsort(ok, n, sizeof *ok, by_p50);
    *t = *ok[(n - 1) / 2]; /* its conditions; ids, family, round and seq are the caller's */
    out->gbps[k] = t->p50;
}

/* Starts the child with its output in log; returns its pid, or -1 (errno). */
static pid_t spawn(char *const *argv, const char *log)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    pid_t pid = -1;
    int rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    if (rc == 0)
        rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

/* Waits for pid; when *stop is raised meanwhile, passes SIGINT on once. Returns its wait status, or -1. */
static int wait_child(pid_t pid, volatile sig_atomic_t *stop)
{
    int st, passed = 0;
    for (;;) {
        if (waitpid(pid, &st, 0) == pid)
            return st;
        if (errno != EINTR)
            return -1;
        if (stop && *stop && !passed) {
            kill(pid, SIGINT);
            passed = 1;
        }
    }
}

/* Child index's file (path) into *out: every mode and reference, or failed cells saying why, with the
 * last line of its log. */
static void read_child(const char *path, const char *log, uint32_t size, int index, window_procs_proc *out)
{
    char tail[120], why[RB_REASON_LEN], err[256];
    last_line(log, tail, sizeof tail);
    h5in *r = NULL;
    if (h5in_open(path, &r, err, sizeof err) != 0) {
        snprintf(why, sizeof why, "process %d (exit %d) left no readable file: %.60s; its last line: %.60s", index,
                 out->exit_status, err, tail);
        all_modes(out, RB_STATUS_FAILED, why);
        return;
    }
    int idx[WINDOW_PROCS_MODES];
    const size_t nm = window_procs_modes(idx);
    for (size_t k = 0; k < nm; k++) {
        mode_spec m = mode_at((size_t)idx[k]);
        read_mode(r, size, index, (int)k, &m, out);
    }
    for (int j = 0; j < WINDOW_PROCS_REFS; j++)
        read_ref(r, size, index, j, WINDOW_PROCS_MODES + j, out);
    h5in_close(r);
}

/* A trial row whose conditions are unknown (NaN, -1), for a child that gave none. */
static void unknown_trial(rb_trial *t)
{
    memset(t, 0, sizeof *t);
    t->p50 = t->ci_lo = t->ci_hi = t->mean = t->msgs_per_s = t->t_start_s = t->elapsed_s = NAN;
    rb_trial_conditions_unknown(t);
}

/* This program's path (/proc/self/exe), malloc'd; NULL with errno set. */
static char *self_exe(void)
{
    for (size_t n = 256; n <= (1u << 20); n *= 2) {
        char *buf = malloc(n);
        ssize_t len = buf ? readlink("/proc/self/exe", buf, n) : -1;
        if (len > 0 && (size_t)len < n) {
            buf[len] = '\0';
            return buf;
        }
        free(buf);
        if (len <= 0)
            return NULL;
    }
    errno = ENAMETOOLONG;
    return NULL;
}

/* Runs process `index` of the leg (argv from c, its file at path, its output to log) and waits for it.
 * Returns 0 (out says how it went), or 1 when *c->stop was raised meanwhile. */
static int spawn_one(const window_procs_cfg *c, int index, char *self, const char *path, const char *log,
                     window_procs_proc *out)
{
    char size[32], seed[32], trials[16], why[RB_REASON_LEN];
    snprintf(size, sizeof size, "%u", (unsigned)c->size);
    snprintf(seed, sizeof seed, "%u", (unsigned)(c->seed + (uint32_t)index));
    snprintf(trials, sizeof trials, "%d", WINDOW_PROCS_TRIALS);
    const char *tail_args[] = {"--preset", "quick", "--modes",  WINDOW_PROCS_MODESPEC,
                               "--sizes",  size,    "--window", "cap",
                               "--trials", trials,  "--quiet",  "--force",
                               "--seed",   seed,    "-o",       path};
    size_t nargs = 0;
    while (c->args && c->args[nargs])
        nargs++;
    const size_t ntail = sizeof tail_args / sizeof *tail_args;
    char **argv = calloc(2 + nargs + ntail + 1, sizeof *argv);
    if (!argv) {
        all_modes(out, RB_STATUS_FAILED, "out of memory starting a process");
        return 0;
    }
    size_t a = 0;
    argv[a++] = self;
    argv[a++] = "run";
    for (size_t i = 0; i < nargs; i++)
        argv[a++] = (char *)c->args[i];
    for (size_t i = 0; i < ntail; i++)
        argv[a++] = (char *)tail_args[i];
    /* The child inherits this thread's CPU mask: the whole of it, not the poller's one CPU. */
    const placement_cfg *pl = placement_get();
    (void)placement_unpin_self(); /* a refusal leaves the child on fewer CPUs; its placement says so */
    out->start_ns = timing_now_ns();
    pid_t pid = spawn(argv, log);
    if (pl->pinned)
        (void)placement_pin_self(pl->poller_cpu);
    free(argv);
    if (pid < 0) {
        snprintf(why, sizeof why, "process %d could not start: %s", index, strerror(errno));
        all_modes(out, RB_STATUS_FAILED, why);
        return 0;
    }
    const int st = wait_child(pid, c->stop);
    out->wall_s = timing_seconds_since(out->start_ns);
    out->exit_status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (c->stop && *c->stop)
        return 1;
    read_child(path, log, c->size, index, out);
    return 0;
}

int window_procs_one(const window_procs_cfg *c, const char *dir, int index, window_procs_proc *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < WINDOW_PROCS_CELLS; k++)
        unknown_trial(&out->t[k]);
    out->exit_status = -1;
    out->wall_s = NAN;
    char why[RB_REASON_LEN];
    char *self = self_exe(), *path = outfs_path("%s/p%04d.h5", dir, index),
         *log = outfs_path("%s/p%04d.log", dir, index);
    int rc = 0;
    if (self == NULL || path == NULL || log == NULL) {
        snprintf(why, sizeof why, "process %d: cannot find this program (/proc/self/exe): %s", index, strerror(errno));
        all_modes(out, RB_STATUS_FAILED, why);
    } else if ((rc = spawn_one(c, index, self, path, log, out)) == 0 && !c->keep) {
        unlink(path);
        unlink(log);
    }
    free(self);
    free(path);
    free(log);
    return rc;
}
