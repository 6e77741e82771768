/* report_data.c - a results file as the report sees it: rows found by family, mode and size, with
 * mode fields parsed through modes.h and family names through schema.h (never re-typed strings),
 * plus the small formatting helpers every table and plot uses. Exercised by tests/test_report.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row's trials as report_trials gives them; storage is one block per row. */
struct report_cell {
    int state; /* 0 not loaded yet, 1 loaded (k may be 0) */
    size_t k;
    stats_trial *t;
    int32_t *round;
    double *buf;
};

int report_run_open(report_run *run, const char *path, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    if (h5in_open(path, &run->in, err, errlen) != 0)
        return -1;
    h5in_print_warnings(run->in, stderr, "ringbench");
    run->path = path;
    run->complete = h5in_complete(run->in);
    const char *why = h5in_attr(run->in, "/", RB_H5_ATTR_INTERRUPTED);
    run->interrupted_by = why ? why : "";

    /* The backend of the measured rows: a CPU reference file must never pass for GPU numbers. */
    int cuda = 0, cpu = 0;
    for (size_t i = 0; i < h5in_nrows(run->in); i++) {
        const rb_row *r = h5in_row(run->in, i);
        cuda |= strcmp(r->backend, "cuda") == 0;
        cpu |= strcmp(r->backend, "cpu") == 0;
    }
    run->backend = cuda && cpu ? "mixed" : cuda ? "cuda" : cpu ? "cpu" : "none";
    run->cells = calloc(h5in_nrows(run->in) + 1, sizeof *run->cells);
    if (run->cells == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        report_run_close(run);
        return -1;
    }
    return 0;
}

void report_run_close(report_run *run)
{
    if (run->cells)
        for (size_t i = 0; i < h5in_nrows(run->in); i++) {
            free(run->cells[i].t);
            free(run->cells[i].round);
            free(run->cells[i].buf);
        }
    free(run->cells);
    run->cells = NULL;
    if (run->in)
        h5in_close(run->in);
    run->in = NULL;
}

size_t report_nrows(const report_run *run) { return h5in_nrows(run->in); }

const rb_row *report_row(const report_run *run, size_t i) { return h5in_row(run->in, i); }

const char *report_prov(const report_run *run, const char *name)
{
    const char *v = h5in_attr(run->in, RB_H5_PROVENANCE, name);
    return v ? v : "";
}

int report_row_mode(const rb_row *row, mode_spec *m)
{
    const char *fields[RB_AXIS_COUNT] = {row->host_mem, row->xfer, row->launch, row->ctrl};
    mode_spec tmp;
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        if ((tmp.v[a] = mode_axis_parse((mode_axis)a, fields[a])) < 0)
            return 0;
    if (m)
        *m = tmp;
    return 1;
}

int report_row_family(const rb_row *row) { return rb_family_parse(row->family); }

int report_row_ok(const rb_row *row) { return strcmp(row->status, RB_STATUS_OK) == 0 && isfinite(row->p50); }

/* A baseline row has "-" in every mode field. */
static int row_is_baseline(const rb_row *row)
{
    return strcmp(row->host_mem, RB_NOT_APPLICABLE) == 0 && strcmp(row->xfer, RB_NOT_APPLICABLE) == 0 &&
           strcmp(row->launch, RB_NOT_APPLICABLE) == 0 && strcmp(row->ctrl, RB_NOT_APPLICABLE) == 0;
}

long report_find_window(const report_run *run, rb_family f, const mode_spec *m, uint64_t size, uint64_t window)
{
    const char *fam = rb_family_name(f);
    long best = -1;
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        mode_spec rm;
        if (r->size_bytes != size || strcmp(r->family, fam) != 0)
            continue;
        if (!(m == NULL ? row_is_baseline(r) : report_row_mode(r, &rm) && report_mode_eq(&rm, m)))
            continue;
        if (window != REPORT_WINDOW_FULL) {
            if (r->window == window)
                return (long)i;
            continue;
        }
        /* The widest window measured: the ring kept full, what "throughput" meant before windows. */
        if (best < 0 || r->window > report_row(run, (size_t)best)->window)
            best = (long)i;
    }
    return best;
}

long report_find(const report_run *run, rb_family f, const mode_spec *m, uint64_t size)
{
    return report_find_window(run, f, m, size, REPORT_WINDOW_FULL);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void report_sort_u64(uint64_t *v, size_t n) { qsort(v, n, sizeof *v, cmp_u64); }

size_t report_sizes(const report_run *run, rb_family f, uint64_t **out)
{
    const char *fam = rb_family_name(f);
    size_t n = 0;
    uint64_t *v = malloc((report_nrows(run) + 1) * sizeof *v);
    *out = v;
    if (v == NULL)
        return 0;
    for (size_t i = 0; i < report_nrows(run); i++)
        if (strcmp(report_row(run, i)->family, fam) == 0)
            v[n++] = report_row(run, i)->size_bytes;
    report_sort_u64(v, n);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

double *report_samples(const report_run *run, long i, size_t *n)
{
    double *s = NULL;
    char err[256];
    *n = 0;
    if (i < 0)
        return NULL;
    if (h5in_samples(run->in, (size_t)i, &s, n, err, sizeof err) != 0) {
        /* The reader marks such a row damaged at open, so no verdict uses it; never silent. */
        fprintf(stderr, "ringbench: WARNING: %s\n", err);
        *n = 0;
        return NULL;
    }
    /* The bootstrap refuses NaN; a sample that is not finite is not a measurement. */
    size_t k = 0;
    for (size_t j = 0; j < *n; j++)
        if (isfinite(s[j]))
            s[k++] = s[j];
    *n = k;
    if (k == 0) {
        free(s);
        s = NULL;
    }
    return s;
}

/* Keeps the samples the statistics may use (finite; positive and inverted for a rate), sorted.
 * Returns how many were kept. */
static size_t usable_sorted(double *s, size_t n, int rate)
{
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (isfinite(s[j]) && (!rate || s[j] > 0))
            s[k++] = rate ? 1.0 / s[j] : s[j];
    stats_sort(s, k); /* O(n); falls back to qsort by itself */
    return k;
}

/* Loads row i's ok trials into c: each trial's samples are read, filtered and sorted once. A row
 * without a trial table entry but with samples of its own counts as one trial. */
static void cell_load(const report_run *run, size_t i, struct report_cell *c)
{
    const size_t *idx = NULL;
    size_t nt = h5in_row_trials(run->in, i, &idx), total = 0;
    int rate = report_unit_is_rate(report_row(run, i)->unit);
    double **parts = calloc(nt + 1, sizeof *parts);
    size_t *lens = calloc(nt + 1, sizeof *lens);
    int32_t *rounds = calloc(nt + 1, sizeof *rounds);
    char err[256];
    c->state = 1;
    if (parts == NULL || lens == NULL || rounds == NULL)
        goto out;
    size_t got = 0;
    for (size_t t = 0; t < nt; t++) {
        const rb_trial *tr = h5in_trial(run->in, idx[t]);
        if (tr == NULL || strcmp(tr->status, RB_STATUS_OK) != 0)
            continue;
        if (h5in_trial_samples(run->in, idx[t], &parts[got], &lens[got], err, sizeof err) != 0) {
            fprintf(stderr, "ringbench: WARNING: %s\n", err); /* marked at open; said, never swallowed */
            continue;
        }
        lens[got] = usable_sorted(parts[got], lens[got], rate);
        if (lens[got] == 0) {
            free(parts[got]);
            parts[got] = NULL;
            continue;
        }
        rounds[got] = tr->trial;
        total += lens[got++];
    }
    if (nt == 0 && h5in_samples(run->in, i, &parts[0], &lens[0], err, sizeof err) != 0)
        fprintf(stderr, "ringbench: WARNING: %s\n", err);
    else if (nt == 0 && lens[0] > 0) {
        lens[0] = usable_sorted(parts[0], lens[0], rate);
        total = lens[0];
        got = lens[0] > 0;
    }
    if (got == 0)
        goto out;
    /* One block per row, so the cache is two allocations per row, not one per trial. */
    c->buf = malloc(total * sizeof *c->buf);
    c->t = malloc(got * sizeof *c->t);
    if (c->buf == NULL || c->t == NULL) {
        free(c->buf);
        free(c->t);
        c->buf = NULL;
        c->t = NULL;
        goto out;
    }
    for (size_t t = 0, off = 0; t < got; off += lens[t], t++) {
        memcpy(c->buf + off, parts[t], lens[t] * sizeof *c->buf);
        c->t[t] = (stats_trial){c->buf + off, lens[t]};
    }
    c->k = got;
    c->round = rounds;
    rounds = NULL;
out:
    for (size_t t = 0; parts && t <= nt; t++)
        free(parts[t]);
    free(parts);
    free(lens);
    free(rounds);
}

const stats_trial *report_trials(const report_run *run, long i, size_t *k, const int32_t **round)
{
    *k = 0;
    if (round)
        *round = NULL;
    if (i < 0 || (size_t)i >= report_nrows(run) || run->cells == NULL)
        return NULL;
    struct report_cell *c = &run->cells[i];
    if (c->state == 0)
        cell_load(run, (size_t)i, c);
    *k = c->k;
    if (round)
        *round = c->round;
    return c->k ? c->t : NULL;
}

size_t report_mode_index(const mode_spec *m)
{
    size_t k = 0;
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        k = k * mode_axis_size((mode_axis)a) + (size_t)m->v[a];
    return k;
}

mode_spec report_plot_mode(size_t k)
{
    /* ctrl is the slowest axis here, then host, xfer, launch: each control block forms one group. */
    static const mode_axis order[RB_AXIS_COUNT] = {RB_AXIS_CTRL, RB_AXIS_HOST, RB_AXIS_XFER, RB_AXIS_LAUNCH};
    mode_spec m;
    for (int i = RB_AXIS_COUNT - 1; i >= 0; i--) {
        size_t n = mode_axis_size(order[i]);
        m.v[order[i]] = (int)(k % n);
        k /= n;
    }
    return m;
}

int report_mode_eq(const mode_spec *a, const mode_spec *b)
{
    for (int i = 0; i < RB_AXIS_COUNT; i++)
        if (a->v[i] != b->v[i])
            return 0;
    return 1;
}

int report_mode_is_native(const mode_spec *m)
{
    mode_spec n = mode_native();
    n.v[RB_AXIS_CTRL] = m->v[RB_AXIS_CTRL];
    return report_mode_eq(&n, m) && (m->v[RB_AXIS_CTRL] == RB_CTRL_MAPPED || m->v[RB_AXIS_CTRL] == RB_CTRL_MANAGED);
}

int report_mode_is_fallback(const mode_spec *m)
{
    mode_spec f = mode_wsl2_fallback();
    return report_mode_eq(&f, m);
}

const char *report_mode_note(const mode_spec *m)
{
    static char notes[MODE_PATH_COUNT][48];
    const int p = report_mode_is_native(m) ? MODE_PATH_NATIVE : report_mode_is_fallback(m) ? MODE_PATH_FALLBACK : -1;
    if (p < 0)
        return "";
    if (!notes[p][0])
        snprintf(notes[p], sizeof notes[p], " (%s)", mode_path_title((mode_path)p));
    return notes[p];
}

const char *report_mode_str(const mode_spec *m)
{
    static char bufs[8][4 * RB_NAME_LEN];
    static unsigned next;
    char *b = bufs[next++ % 8];
    return mode_label(m, b, sizeof bufs[0]);
}

char *report_size_str(uint64_t bytes, char *buf, size_t n) { return rb_size_label(bytes, buf, n); }

/* v rounded to 3 significant digits into b, without an exponent (a value of 1000 or more keeps its
 * integer digits). */
static void sig3(double v, char *b, size_t n)
{
    if (v == 0) {
        snprintf(b, n, "0");
        return;
    }
    double e = floor(log10(fabs(v))), q = pow(10, e - 2), r = round(v / q) * q;
    e = floor(log10(fabs(r))); /* 999.6 rounds to 1000: one digit more before the point */
    int decimals = e >= 2 ? 0 : (int)(2 - e);
    snprintf(b, n, "%.*f", decimals, r);
}

/* A rotating buffer for the formatting helpers: 24 in flight, so one printf can hold a table row. */
static char *fmt_buf(void)
{
    static char bufs[24][48];
    static unsigned next;
    return bufs[next++ % 24];
}

const char *report_num(double v)
{
    char *b = fmt_buf();
    if (!isfinite(v))
        snprintf(b, 48, "n/a");
    else
        sig3(v, b, 48);
    return b;
}

/* v in the largest unit of the ladder (each step x step) in which it is at least 1, 3 significant
 * digits; the ladder's first unit for values below 1 of it. */
static const char *scaled(double v, const char *const *units, size_t nunits, double step)
{
    char *b = fmt_buf(), num[40];
    if (!isfinite(v)) {
        snprintf(b, 48, "n/a");
        return b;
    }
    size_t u = 0;
    for (; u + 1 < nunits && fabs(v) >= step; u++)
        v /= step;
    sig3(v, num, sizeof num);
    if (u + 1 < nunits && fabs(strtod(num, NULL)) >= step) { /* 999.7 became 1000: the next unit */
        v /= step;
        u++;
        sig3(v, num, sizeof num);
    }
    snprintf(b, 48, "%s %s", num, units[u]);
    return b;
}

const char *report_time(double us)
{
    static const char *const units[] = {"ns", "µs", "ms", "s"};
    return scaled(us * 1e3, units, 4, 1e3);
}

const char *report_rate(double gb_s)
{
    static const char *const units[] = {"MB/s", "GB/s", "TB/s"};
    return scaled(gb_s * 1e3, units, 3, 1e3);
}

const char *report_msgs(double per_s)
{
    static const char *const units[] = {"msg/s", "k msg/s", "M msg/s", "G msg/s"};
    return scaled(per_s, units, 4, 1e3);
}

const char *report_value(double v, const char *unit)
{
    if (strcmp(unit, "us") == 0)
        return report_time(v);
    if (strcmp(unit, "GB/s") == 0)
        return report_rate(v);
    char *b = fmt_buf(), num[24];
    snprintf(num, sizeof num, "%s", report_num(v));
    snprintf(b, 48, "%.23s %.20s", num, unit);
    return b;
}

const char *report_times(double ratio)
{
    char *b = fmt_buf();
    if (!isfinite(ratio))
        snprintf(b, 48, "n/a");
    else {
        sig3(ratio, b, 40);
        strcat(b, "×");
    }
    return b;
}

void report_put_padded(FILE *out, const char *s, size_t width, int right)
{
    size_t w = 0;
    for (const char *c = s; *c; c++)
        w += ((unsigned char)*c & 0xC0) != 0x80;
    for (; right && w < width; w++)
        fputc(' ', out);
    fputs(s, out);
    for (; !right && w < width; w++)
        fputc(' ', out);
}

void report_md_text(FILE *f, const char *s)
{
    if (s == NULL || *s == '\0') {
        fputc('-', f);
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '|')
            fputs("\\|", f);
        else if (c < 0x20 || c == 0x7f)
            fputc(' ', f);
        else
            fputc(c, f);
    }
}

void report_md_code(FILE *f, const char *s)
{
    /* Inside a code span outside a table a '|' is itself; a backquote would end the span. */
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c < 0x20 || c == 0x7f ? ' ' : c == '`' ? '\'' : c, f);
    }
}

int report_unit_is_rate(const char *unit) { return rb_unit_is_rate(unit); }
