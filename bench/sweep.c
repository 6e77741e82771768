/* sweep.c - presets, the --sizes grammar and the sweep itself (see sweep.h). */
#include "sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines.h"
#include "stats.h"
#include "timing.h"

/* --- presets ------------------------------------------------------------------------------------ */

/* The count cap keeps results files small enough to commit and send around; the time cap bounds
 * the sweep. */
#define RULE(minn, mins, maxs, maxn) {.min_samples = (minn), .min_seconds = (mins), .max_seconds = (maxs), \
                                      .max_samples = (maxn), .rel_ci_width = 0.01}

static const rb_preset presets[] = {
    {"quick", "a few sizes, all modes: a smoke run (under 30 s on the H100)", "8,4K,1M",
     {20, RULE(200, 0.02, 0.08, 5000)}, {20, RULE(200, 0.01, 0.04, 5000)}, 2, 0.02, 2, 0.005, 3},
    {"default", "powers of 4 from 8 B to 4 MiB (under 5 minutes on the H100)", "8,16..4M:x4",
     {50, RULE(1000, 0.05, 0.25, 20000)}, {50, RULE(1000, 0.03, 0.1, 20000)}, 5, 0.03, 5, 0.01, 10},
    {"full", "powers of 2 from 8 B to 16 MiB, longer cells", "8..16M",
     {100, RULE(2000, 0.1, 0.8, 100000)}, {100, RULE(2000, 0.1, 0.3, 100000)}, 10, 0.05, 10, 0.02, 20},
};

size_t rb_preset_count(void) { return sizeof presets / sizeof *presets; }

const rb_preset *rb_preset_at(size_t i) { return i < rb_preset_count() ? &presets[i] : NULL; }

const rb_preset *rb_preset_find(const char *name)
{
    for (size_t i = 0; i < rb_preset_count(); i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

/* --- sizes -------------------------------------------------------------------------------------- */

#define MAX_SIZE (1u << 30)

/* Parses one size with an optional K/M/G suffix from s[0..len). */
static int parse_size(const char *s, size_t len, uint64_t *out, char *err, size_t errlen)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && isdigit((unsigned char)s[i]); i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > (1ull << 40))
            break;
    }
    if (i == 0) {
        snprintf(err, errlen, "--sizes: '%.*s' is not a size (expected e.g. 8, 4K, 16M)", (int)len, s);
        return -1;
    }
    if (i < len) {
        char c = (char)toupper((unsigned char)s[i]);
        uint64_t mul = c == 'K' ? 1024u : c == 'M' ? 1024u * 1024u : c == 'G' ? 1024u * 1024u * 1024u : 0;
        if (!mul || i + 1 != len) {
            snprintf(err, errlen, "--sizes: '%.*s': unknown suffix (use K, M or G)", (int)len, s);
            return -1;
        }
        v *= mul;
    }
    if (v == 0 || v % 4 || v > MAX_SIZE) {
        snprintf(err, errlen, "--sizes: %.*s = %llu bytes: sizes must be multiples of 4 from 4 B to 1 GiB",
                 (int)len, s, (unsigned long long)v);
        return -1;
    }
    *out = v;
    return 0;
}

static int add_size(rb_sizes *o, uint64_t v, char *err, size_t errlen)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i] == v)
            return 0;
    if (o->n == sizeof o->v / sizeof *o->v) {
        snprintf(err, errlen, "--sizes: more than %zu sizes", sizeof o->v / sizeof *o->v);
        return -1;
    }
    o->v[o->n++] = (uint32_t)v;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int parse_range(const char *s, size_t len, rb_sizes *o, char *err, size_t errlen)
{
    const char *dots = strstr(s, "..");
    const char *colon = memchr(s, ':', len);
    uint64_t lo, hi, factor = 0;
    if (parse_size(s, (size_t)(dots - s), &lo, err, errlen) < 0)
        return -1;
    const char *hs = dots + 2;
    size_t hl = colon ? (size_t)(colon - hs) : len - (size_t)(hs - s);
    if (parse_size(hs, hl, &hi, err, errlen) < 0)
        return -1;
    if (colon) {
        const char *f = colon + 1;
        char *end;
        if (*f != 'x' || (factor = strtoull(f + 1, &end, 10)) < 2 || end != s + len) {
            snprintf(err, errlen, "--sizes: '%.*s': the step is written :xF with an integer F >= 2", (int)len, s);
            return -1;
        }
    }
    if (lo > hi) {
        snprintf(err, errlen, "--sizes: '%.*s': the range runs backwards", (int)len, s);
        return -1;
    }
    if (add_size(o, lo, err, errlen) < 0)
        return -1;
    if (factor) {
        uint64_t v = lo;
        while ((v *= factor) <= hi)
            if (add_size(o, v, err, errlen) < 0)
                return -1;
        return add_size(o, hi, err, errlen);
    }
    for (uint64_t p = 4; p <= hi; p *= 2)
        if (p > lo && add_size(o, p, err, errlen) < 0)
            return -1;
    return 0;
}

int rb_sizes_parse(const char *spec, rb_sizes *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) {
        snprintf(err, errlen, "--sizes: empty list");
        return -1;
    }
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char term[64];
        if (len == 0 || len >= sizeof term) {
            snprintf(err, errlen, "--sizes: empty or over-long term in '%s'", spec);
            return -1;
        }
        memcpy(term, s, len);
        term[len] = '\0';
        int rc;
        if (strstr(term, "..")) {
            rc = parse_range(term, len, out, err, errlen);
        } else {
            uint64_t v;
            rc = parse_size(term, len, &v, err, errlen);
            if (rc == 0)
                rc = add_size(out, v, err, errlen);
        }
        if (rc < 0)
            return -1;
        if (!comma)
            break;
        s = comma + 1;
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_u32);
    return 0;
}

char *rb_size_name(uint64_t b, char *buf, size_t n)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0)
        snprintf(buf, n, "%llu GiB", (unsigned long long)(b >> 30));
    else if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, n, "%llu MiB", (unsigned long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%llu KiB", (unsigned long long)(b >> 10));
    else
        snprintf(buf, n, "%llu B", (unsigned long long)b);
    return buf;
}

/* --- rows ----------------------------------------------------------------------------------------- */

typedef struct sweep {
    const rb_sweep_opts *o;
    h5out *w;
    volatile sig_atomic_t *stop;
    rb_sweep_result *res;
    char *err;
    size_t errlen;
    const char *backend;
    int tty;
    uint64_t t_start, t_last_line;
    double memcpy_h2d[2][64]; /* [pinned?][size index] median GB/s, NaN when unknown */
} sweep;

/* Copies src into a fixed-size row field, truncating. */
static void set(char *dst, size_t n, const char *src)
{
    size_t len = src ? strlen(src) : 0;
    if (len >= n)
        len = n - 1;
    memcpy(dst, src ? src : "", len);
    dst[len] = '\0';
}

static void row_init(sweep *sw, rb_row *row, rb_family fam, const rb_mode *m, uint64_t size)
{
    memset(row, 0, sizeof *row);
    set(row->backend, sizeof row->backend, sw->backend);
    set(row->family, sizeof row->family, rb_family_name(fam));
    set(row->unit, sizeof row->unit, rb_family_unit(fam));
    for (int a = 0; a < RB_AXIS_COUNT; a++) {
        char *f = a == RB_AXIS_HOST ? row->host_mem : a == RB_AXIS_XFER ? row->xfer
                : a == RB_AXIS_LAUNCH ? row->launch : row->ctrl;
        set(f, RB_NAME_LEN, m ? rb_axis_value((rb_axis)a, m->v[a]) : RB_NOT_APPLICABLE);
    }
    row->size_bytes = size;
    set(row->status, sizeof row->status, RB_STATUS_OK);
    set(row->stop_rule, sizeof row->stop_rule, "-");
    row->min = row->p50 = row->p90 = row->p99 = row->p999 = row->max = NAN;
    row->mean = row->stddev = row->ci_lo = row->ci_hi = NAN;
    row->msgs_per_s = row->ratio_floor = row->ratio_memcpy = NAN;
}

static void row_status(rb_row *row, const char *status, const char *reason)
{
    set(row->status, sizeof row->status, status);
    set(row->reason, sizeof row->reason, reason);
}

static void row_stats(sweep *sw, rb_row *row, const rb_samples *s, const char *stop_rule)
{
    stats_summary sum;
    if (s->n == 0 || stats_summarize(s->us, s->n, &sum) != 0) {
        if (strcmp(row->status, RB_STATUS_OK) == 0)
            row_status(row, RB_STATUS_FAILED, "no samples were taken");
        return;
    }
    row->n = sum.n;
    row->min = sum.min;
    row->p50 = sum.p50;
    row->p90 = sum.p90;
    row->p99 = sum.p99;
    row->p999 = sum.p999;
    row->max = sum.max;
    row->mean = sum.mean;
    row->stddev = sum.stddev;
    row->ci_lo = sum.ci_lo;
    row->ci_hi = sum.ci_hi;
    row->elapsed_s = s->elapsed_s;
    set(row->stop_rule, sizeof row->stop_rule, stop_rule ? stop_rule : stats_stop_name(s->why));
    if (strcmp(row->unit, "us") == 0 && isfinite(sw->res->floor_p50) && sw->res->floor_p50 > 0)
        row->ratio_floor = row->p50 / sw->res->floor_p50;
}

/* Writes the row (and its samples) and keeps a copy for the summary. */
static int emit(sweep *sw, rb_row *row, const rb_samples *s)
{
    rb_sweep_result *res = sw->res;
    if (h5out_append(sw->w, row, s ? s->us : NULL, s ? s->n : 0) != 0) {
        snprintf(sw->err, sw->errlen, "writing the results file: %s", h5out_error(sw->w));
        return -1;
    }
    if (res->nrows == res->caprows) {
        size_t cap = res->caprows ? res->caprows * 2 : 256;
        rb_row *p = realloc(res->rows, cap * sizeof *p);
        if (!p) {
            snprintf(sw->err, sw->errlen, "out of memory");
            return -1;
        }
        res->rows = p;
        res->caprows = cap;
    }
    res->rows[res->nrows++] = *row;
    if (strcmp(row->status, RB_STATUS_OK) == 0)
        res->ok++;
    else if (strcmp(row->status, RB_STATUS_UNSUPPORTED) == 0)
        res->unsupported++;
    else if (strcmp(row->status, RB_STATUS_INVALID) == 0)
        res->invalid++;
    else
        res->failed++;
    return 0;
}

/* --- progress ------------------------------------------------------------------------------------- */

static void progress(sweep *sw, const char *what)
{
    rb_sweep_result *res = sw->res;
    if (sw->o->quiet)
        return;
    const double elapsed = rb_seconds_since(sw->t_start);
    const double frac = res->units_total ? (double)res->units_done / (double)res->units_total : 0;
    const double eta = frac > 0.02 ? elapsed / frac - elapsed : NAN;
    char eta_s[32];
    if (isfinite(eta))
        snprintf(eta_s, sizeof eta_s, "%dm%02ds", (int)eta / 60, (int)eta % 60);
    else
        snprintf(eta_s, sizeof eta_s, "--");
    if (sw->tty) {
        char bar[31];
        int filled = (int)(frac * 30);
        for (int i = 0; i < 30; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r\033[K[%s] %zu/%zu  ETA %s  %s", bar, res->units_done, res->units_total, eta_s, what);
        fflush(stderr);
    } else if (rb_now_ns() - sw->t_last_line > 5000000000ull || res->units_done == res->units_total) {
        sw->t_last_line = rb_now_ns();
        fprintf(stderr, "ringbench: %zu/%zu cells, %.0f s elapsed, ETA %s: %s\n", res->units_done, res->units_total,
                elapsed, eta_s, what);
    }
}

/* --- baselines ------------------------------------------------------------------------------------ */

static int emit_baseline(sweep *sw, rb_family fam, uint64_t size, int rc, rb_samples *s, const char *why)
{
    rb_row row;
    row_init(sw, &row, fam, NULL, size);
    if (rc == RB_BASE_UNSUPPORTED)
        row_status(&row, RB_STATUS_UNSUPPORTED, why);
    else if (rc == RB_BASE_FAILED)
        row_status(&row, RB_STATUS_FAILED, why);
    else
        row_stats(sw, &row, s, strcmp(row.unit, "us") == 0 ? NULL : "fixed");
    int wrc = emit(sw, &row, s);
    rb_samples_free(s);
    return wrc;
}

static int nop(void *ctx)
{
    (void)ctx;
    return 0;
}

static int run_baselines(sweep *sw)
{
    const rb_sweep_opts *o = sw->o;
    const rb_preset *p = o->preset;
    char why[320] = "";
    rb_samples s;
    int rc, op_rc;

    /* The sampler's own cost: an empty operation through rb_measure. */
    rc = rb_measure(&p->latency, nop, NULL, &s, &op_rc, sw->stop);
    if (rc == 1)
        return 1;
    rb_row row;
    row_init(sw, &row, RB_FAM_HARNESS_OVERHEAD, NULL, 0);
    row_stats(sw, &row, &s, NULL);
    if (emit(sw, &row, &s) < 0)
        return -1;
    rb_samples_free(&s);

    progress(sw, "baseline: floor ping-pong");
    rc = rb_base_floor(o->backend, o->device, &p->latency, &s, why, sizeof why, sw->stop);
    if (rc == RB_BASE_INTERRUPTED)
        return 1;
    if (rc == RB_BASE_OK) {
        stats_summary sum;
        if (stats_summarize(s.us, s.n, &sum) == 0)
            sw->res->floor_p50 = sum.p50;
    }
    if (emit_baseline(sw, RB_FAM_BASE_FLOOR, 4, rc, &s, why) < 0)
        return -1;
    sw->res->units_done++;

    for (size_t i = 0; i < o->sizes.n; i++) {
        const uint32_t size = o->sizes.v[i];
        char name[32], what[96];
        snprintf(what, sizeof what, "baselines at %s", rb_size_name(size, name, sizeof name));
        progress(sw, what);
        for (int graph = 0; graph < 2; graph++) {
            rc = rb_base_launch(o->backend, o->device, size, graph, &p->latency, &s, why, sizeof why, sw->stop);
            if (rc == RB_BASE_INTERRUPTED)
                return 1;
            if (emit_baseline(sw, graph ? RB_FAM_BASE_GRAPH : RB_FAM_BASE_LAUNCH, size, rc, &s, why) < 0)
                return -1;
        }
        static const rb_family fams[2][2] = {{RB_FAM_MEMCPY_D2H_PAGEABLE, RB_FAM_MEMCPY_H2D_PAGEABLE},
                                             {RB_FAM_MEMCPY_D2H_PINNED, RB_FAM_MEMCPY_H2D_PINNED}};
        for (int pinned = 0; pinned < 2; pinned++) {
            for (int h2d = 0; h2d < 2; h2d++) {
                rc = rb_base_memcpy(o->backend, o->device, size, pinned, h2d, p->memcpy_reps, p->memcpy_rep_seconds,
                                    &s, why, sizeof why, sw->stop);
                if (rc == RB_BASE_INTERRUPTED)
                    return 1;
                if (h2d && i < 64) {
                    stats_summary sum;
                    sw->memcpy_h2d[pinned][i] =
                        rc == RB_BASE_OK && stats_summarize(s.us, s.n, &sum) == 0 ? sum.p50 : NAN;
                }
                if (emit_baseline(sw, fams[pinned][h2d], size, rc, &s, why) < 0)
                    return -1;
            }
        }
        sw->res->units_done++;
    }
    return 0;
}

/* --- ring cells ----------------------------------------------------------------------------------- */

typedef struct cell {
    sweep *sw;
    ring *r;
    uint32_t size;
    uint32_t flag; /* the next handshake-flag value cb_write stores */
} cell;

static int op_roundtrip(void *ctx)
{
    cell *c = ctx;
    if (ring_send(c->r, c->size) != RING_OK || ring_recv(c->r) != RING_OK)
        return 1;
    return 0;
}

static int op_cb_read(void *ctx)
{
    cell *c = ctx;
    ring_cb_kern k;
    return ring_cb_read(c->r, &k) != RING_OK;
}

static int op_cb_write(void *ctx)
{
    cell *c = ctx;
    return ring_cb_write_flag(c->r, ++c->flag) != RING_OK;
}

static int op_cb_handshake(void *ctx)
{
    cell *c = ctx;
    return ring_cb_handshake(c->r) != RING_OK;
}

static int op_launch(void *ctx) { cell *c = ctx; return ring_launch(c->r) != RING_OK; }
static int op_activate(void *ctx) { cell *c = ctx; return ring_activate(c->r) != RING_OK; }
static int op_deactivate(void *ctx) { cell *c = ctx; return ring_deactivate(c->r) != RING_OK; }
static int op_terminate(void *ctx) { cell *c = ctx; return ring_terminate(c->r) != RING_OK; }

static int open_ring(sweep *sw, const rb_mode *m, uint32_t size, ring **r, char *why, size_t n)
{
    ring_config c;
    ring_config_default(&c);
    c.backend = sw->o->backend;
    c.mode = *m;
    c.device = sw->o->device;
    c.capacity = ring_capacity_for(size);
    c.max_payload = size;
    c.timeout_s = sw->o->timeout_s;
    c.max_lifetime_s = sw->o->max_lifetime_s;
    c.seed = sw->o->seed;
    return ring_open(&c, r, why, n);
}

/* Marks row failed when the ring's counters show lost, duplicated, corrupted or kernel-flagged
 * messages since `before`, and stores the counts. */
static void row_integrity(rb_row *row, const ring_stats *before, const ring_stats *now, uint32_t kernel_errors)
{
    row->messages = now->received - before->received;
    row->lost = now->lost - before->lost;
    row->duplicated = now->duplicated - before->duplicated;
    row->corrupted = now->corrupted - before->corrupted;
    row->kernel_errors = kernel_errors;
    if (row->lost || row->duplicated || row->corrupted || row->kernel_errors) {
        char why[RB_REASON_LEN];
        snprintf(why, sizeof why, "verification failed: %llu lost, %llu duplicated, %llu corrupted, %llu flagged by "
                 "the kernel", (unsigned long long)row->lost, (unsigned long long)row->duplicated,
                 (unsigned long long)row->corrupted, (unsigned long long)row->kernel_errors);
        row_status(row, RB_STATUS_FAILED, why);
    }
}

static uint32_t kernel_errors(ring *r)
{
    ring_cb_kern k;
    return ring_cb_read(r, &k) == RING_OK ? k.errors : 0;
}

/* One throughput repetition: keep the ring full for rep_seconds, then drain. Returns GB/s in *gbps. */
static int throughput_rep(cell *c, double rep_seconds, double *gbps, double *msgs_per_s)
{
    ring_pump_result res;
    if (ring_pump(c->r, c->size, ring_get_config(c->r)->capacity, rep_seconds, c->sw->stop, &res) != RING_OK)
        return -1;
    *gbps = res.gbps;
    *msgs_per_s = res.msgs_per_s;
    return 0;
}

/* Rows of one family for a mode that did not run (invalid, unsupported, or failed before measuring). */
static int emit_skipped(sweep *sw, const rb_mode *m, rb_family fam, uint64_t size, const char *status,
                        const char *why)
{
    rb_row row;
    row_init(sw, &row, fam, m, size);
    row_status(&row, status, why);
    return emit(sw, &row, NULL);
}

static const char *status_of_open(int rc) { return rc == RING_EUNSUPPORTED ? RB_STATUS_UNSUPPORTED : RB_STATUS_FAILED; }

/* A measured family: rows with the samples, or failed with the ring's error. */
static int emit_measured(sweep *sw, const rb_mode *m, rb_family fam, uint64_t size, int mrc, cell *c,
                         rb_samples *s, const ring_stats *before)
{
    rb_row row;
    row_init(sw, &row, fam, m, size);
    if (mrc < 0)
        row_status(&row, RB_STATUS_FAILED, c->r ? ring_error(c->r) : "measurement failed");
    row_stats(sw, &row, s, NULL);
    if (before && mrc == 0)
        row_integrity(&row, before, ring_get_stats(c->r), kernel_errors(c->r));
    int rc = emit(sw, &row, s);
    rb_samples_free(s);
    return rc;
}

/* The control cell of a mode: control-block operations on a running kernel, then lifecycle
 * cycles (launch, activate, one message, deactivate, terminate), each step timed. */
static int control_cell(sweep *sw, const rb_mode *m)
{
    const rb_preset *p = sw->o->preset;
    static const rb_family cb_fams[3] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
    static const rb_family lc_fams[4] = {RB_FAM_LC_LAUNCH, RB_FAM_LC_ACTIVATE, RB_FAM_LC_DEACTIVATE,
                                         RB_FAM_LC_TERMINATE};
    static const rb_op_fn lc_ops[4] = {op_launch, op_activate, op_deactivate, op_terminate};
    char why[320];
    cell c = {sw, NULL, 64, 0};
    int rc = open_ring(sw, m, 64, &c.r, why, sizeof why);
    if (rc != RING_OK) {
        for (int f = 0; f < 3; f++)
            if (emit_skipped(sw, m, cb_fams[f], 0, status_of_open(rc), why) < 0)
                return -1;
        for (int f = 0; f < 4; f++)
            if (emit_skipped(sw, m, lc_fams[f], 0, status_of_open(rc), why) < 0)
                return -1;
        return 0;
    }
    rb_samples lc[4] = {{0}};
    int lc_failed = 0, interrupted = 0, wrc = 0, cb_emitted = 0;
    for (int cycle = 0; cycle < p->lifecycle_cycles && !lc_failed && !interrupted; cycle++) {
        for (int step = 0; step < 4 && !lc_failed; step++) {
            double us;
            if (rb_time_once(lc_ops[step], &c, &us) != 0) {
                lc_failed = 1;
                snprintf(why, sizeof why, "%s", ring_error(c.r));
                break;
            }
            rb_samples_push(&lc[step], us);
            if (step == 1) {
                if (op_roundtrip(&c) != 0) {
                    lc_failed = 1;
                    snprintf(why, sizeof why, "%s", ring_error(c.r));
                    break;
                }
                if (cycle == 0) { /* control-block operations on the running, active kernel */
                    static const rb_op_fn cb_ops[3] = {op_cb_read, op_cb_write, op_cb_handshake};
                    for (int f = 0; f < 3 && !wrc; f++) {
                        rb_samples s;
                        int op_rc, mrc = rb_measure(&p->cb, cb_ops[f], &c, &s, &op_rc, sw->stop);
                        if (mrc == 1) {
                            interrupted = 1;
                            rb_samples_free(&s);
                            break;
                        }
                        wrc = emit_measured(sw, m, cb_fams[f], 0, mrc, &c, &s, NULL);
                    }
                    cb_emitted = 1;
                    if (interrupted || wrc)
                        break;
                }
            }
        }
        if (sw->stop && *sw->stop)
            interrupted = 1;
    }
    /* A lifecycle step failed before the control-block operations could run: say so in their rows. */
    for (int f = 0; f < 3 && !cb_emitted && !wrc && !interrupted; f++)
        wrc = emit_skipped(sw, m, cb_fams[f], 0, RB_STATUS_FAILED, why);
    for (int f = 0; f < 4 && !wrc && !interrupted; f++) {
        rb_row row;
        row_init(sw, &row, lc_fams[f], m, 0);
        if (lc_failed)
            row_status(&row, RB_STATUS_FAILED, why);
        row_stats(sw, &row, &lc[f], "fixed");
        wrc = emit(sw, &row, &lc[f]);
    }
    for (int f = 0; f < 4; f++)
        rb_samples_free(&lc[f]);
    ring_close(c.r);
    return wrc ? -1 : interrupted;
}

/* One mode at one size: latency, then throughput, on a freshly launched kernel. */
static int size_cell(sweep *sw, const rb_mode *m, uint32_t size, size_t size_index)
{
    const rb_preset *p = sw->o->preset;
    char why[320];
    cell c = {sw, NULL, size, 0};
    int rc = open_ring(sw, m, size, &c.r, why, sizeof why);
    if (rc == RING_OK && (ring_launch(c.r) != RING_OK || ring_activate(c.r) != RING_OK)) {
        snprintf(why, sizeof why, "%s", ring_error(c.r));
        rc = RING_EKERNEL;
    }
    if (rc != RING_OK) {
        ring_close(c.r);
        if (emit_skipped(sw, m, RB_FAM_LATENCY, size, status_of_open(rc), why) < 0 ||
            emit_skipped(sw, m, RB_FAM_THROUGHPUT, size, status_of_open(rc), why) < 0)
            return -1;
        return 0;
    }
    /* Latency: one message in flight. */
    ring_stats before = *ring_get_stats(c.r);
    rb_samples s;
    int op_rc, mrc = rb_measure(&p->latency, op_roundtrip, &c, &s, &op_rc, sw->stop);
    if (mrc == 1) {
        rb_samples_free(&s);
        ring_close(c.r);
        return 1;
    }
    if (emit_measured(sw, m, RB_FAM_LATENCY, size, mrc, &c, &s, &before) < 0) {
        ring_close(c.r);
        return -1;
    }
    /* Throughput: the ring kept full. */
    rb_row row;
    row_init(sw, &row, RB_FAM_THROUGHPUT, m, size);
    rb_samples t = {0};
    double mps_sum = 0;
    before = *ring_get_stats(c.r);
    int failed = mrc < 0;
    const uint64_t t0 = rb_now_ns();
    for (int rep = 0; rep < p->tput_reps && !failed; rep++) {
        double gbps, mps;
        if (throughput_rep(&c, p->tput_rep_seconds, &gbps, &mps) != 0) {
            failed = 1;
            row_status(&row, RB_STATUS_FAILED, ring_error(c.r));
            break;
        }
        rb_samples_push(&t, gbps);
        mps_sum += mps;
        if (sw->stop && *sw->stop)
            break;
    }
    if (mrc < 0)
        row_status(&row, RB_STATUS_FAILED, "not measured: the latency phase failed");
    t.elapsed_s = rb_seconds_since(t0);
    row_stats(sw, &row, &t, "fixed");
    if (t.n) {
        row.msgs_per_s = mps_sum / (double)t.n;
        const int pinned = m->v[RB_AXIS_HOST] == RB_HOST_PINNED;
        double bw = size_index < 64 ? sw->memcpy_h2d[pinned][size_index] : NAN;
        if (isfinite(bw) && bw > 0)
            row.ratio_memcpy = row.p50 / bw;
    }
    if (!failed)
        row_integrity(&row, &before, ring_get_stats(c.r), kernel_errors(c.r));
    int wrc = emit(sw, &row, &t);
    rb_samples_free(&t);
    if (!failed && ring_terminate(c.r) != RING_OK && !wrc) {
        /* A kernel that will not leave is a failure of the mode, recorded with the next rows. */
        fprintf(stderr, "ringbench: terminate failed: %s\n", ring_error(c.r));
    }
    ring_close(c.r);
    if (sw->stop && *sw->stop)
        return 1;
    return wrc ? -1 : 0;
}

/* --- the sweep ------------------------------------------------------------------------------------ */

int rb_sweep_run(const rb_sweep_opts *o, const rb_caps *caps, h5out *w, volatile sig_atomic_t *stop,
                 rb_sweep_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->floor_p50 = NAN;
    sweep sw = {.o = o, .w = w, .stop = stop, .res = res, .err = err, .errlen = errlen,
                .backend = ring_backend_name(o->backend), .tty = isatty(STDERR_FILENO), .t_start = rb_now_ns()};
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < 64; i++)
            sw.memcpy_h2d[a][i] = NAN;
    size_t nmodes = 0;
    for (size_t i = 0; i < RB_MODE_COUNT; i++)
        nmodes += o->modes.selected[i];
    res->units_total = 1 + o->sizes.n + nmodes * (1 + o->sizes.n);

    int rc = run_baselines(&sw);
    for (size_t i = 0; i < RB_MODE_COUNT && rc == 0; i++) {
        if (!o->modes.selected[i])
            continue;
        rb_mode m = rb_mode_at(i);
        char label[64], why[256], what[128], name[32];
        rb_mode_label(&m, label, sizeof label);
        const char *invalid = rb_mode_invalid_reason(&m);
        const char *unsupported = NULL;
        if (!invalid && o->backend == RING_BACKEND_CUDA)
            unsupported = rb_caps_unsupported_reason(caps, &m, why, sizeof why);
        if (invalid || unsupported) {
            const char *status = invalid ? RB_STATUS_INVALID : RB_STATUS_UNSUPPORTED;
            const char *reason = invalid ? invalid : unsupported;
            for (int f = RB_FAM_CB_READ; f <= RB_FAM_LC_TERMINATE && rc == 0; f++)
                rc = emit_skipped(&sw, &m, (rb_family)f, 0, status, reason);
            for (size_t s = 0; s < o->sizes.n && rc == 0; s++) {
                rc = emit_skipped(&sw, &m, RB_FAM_LATENCY, o->sizes.v[s], status, reason);
                if (rc == 0)
                    rc = emit_skipped(&sw, &m, RB_FAM_THROUGHPUT, o->sizes.v[s], status, reason);
            }
            res->units_done += 1 + o->sizes.n;
            continue;
        }
        snprintf(what, sizeof what, "%s control block and lifecycle", label);
        progress(&sw, what);
        rc = control_cell(&sw, &m);
        res->units_done++;
        for (size_t s = 0; s < o->sizes.n && rc == 0; s++) {
            snprintf(what, sizeof what, "%s %s", label, rb_size_name(o->sizes.v[s], name, sizeof name));
            progress(&sw, what);
            rc = size_cell(&sw, &m, o->sizes.v[s], s);
            res->units_done++;
        }
    }
    if (rc == 0)
        progress(&sw, "done");
    if (sw.tty && !o->quiet)
        fputc('\n', stderr);
    res->interrupted = rc == 1;
    return rc;
}

/* --- summary ---------------------------------------------------------------------------------------- */

static int row_is(const rb_row *r, rb_family f, const rb_mode *m, uint64_t size)
{
    if (strcmp(r->family, rb_family_name(f)) != 0 || r->size_bytes != size || strcmp(r->status, RB_STATUS_OK) != 0)
        return 0;
    if (!m)
        return 1;
    return strcmp(r->host_mem, rb_axis_value(RB_AXIS_HOST, m->v[RB_AXIS_HOST])) == 0 &&
           strcmp(r->xfer, rb_axis_value(RB_AXIS_XFER, m->v[RB_AXIS_XFER])) == 0 &&
           strcmp(r->launch, rb_axis_value(RB_AXIS_LAUNCH, m->v[RB_AXIS_LAUNCH])) == 0 &&
           strcmp(r->ctrl, rb_axis_value(RB_AXIS_CTRL, m->v[RB_AXIS_CTRL])) == 0;
}

static const rb_row *find_row(const rb_sweep_result *res, rb_family f, const rb_mode *m, uint64_t size)
{
    for (size_t i = 0; i < res->nrows; i++)
        if (row_is(&res->rows[i], f, m, size))
            return &res->rows[i];
    return NULL;
}

void rb_sweep_summary(const rb_sweep_result *res, FILE *out)
{
    uint64_t sizes[64];
    size_t nsizes = 0;
    for (size_t i = 0; i < res->nrows; i++) {
        const rb_row *r = &res->rows[i];
        if (strcmp(r->family, "latency") != 0)
            continue;
        size_t k = 0;
        while (k < nsizes && sizes[k] != r->size_bytes)
            k++;
        if (k == nsizes && nsizes < 64)
            sizes[nsizes++] = r->size_bytes;
    }
    const rb_mode fb = rb_mode_wsl2_fallback(), nat = rb_mode_native();
    fprintf(out, "\nRound-trip latency p50 (us) per size; floor %.2f us\n", res->floor_p50);
    fprintf(out, "%-9s  %-32s %9s  %-32s %9s  %9s %9s %7s\n", "size", "best mode", "p50", "worst mode", "p50",
            "native", "fallback", "fb/nat");
    for (size_t k = 0; k < nsizes; k++) {
        const rb_row *best = NULL, *worst = NULL;
        for (size_t i = 0; i < res->nrows; i++) {
            const rb_row *r = &res->rows[i];
            if (!row_is(r, RB_FAM_LATENCY, NULL, sizes[k]))
                continue;
            if (!best || r->p50 < best->p50)
                best = r;
            if (!worst || r->p50 > worst->p50)
                worst = r;
        }
        if (!best)
            continue;
        const rb_row *n = find_row(res, RB_FAM_LATENCY, &nat, sizes[k]);
        const rb_row *f = find_row(res, RB_FAM_LATENCY, &fb, sizes[k]);
        char name[32], bl[160], wl[160];
        snprintf(bl, sizeof bl, "%s/%s/%s/%s", best->host_mem, best->xfer, best->launch, best->ctrl);
        snprintf(wl, sizeof wl, "%s/%s/%s/%s", worst->host_mem, worst->xfer, worst->launch, worst->ctrl);
        fprintf(out, "%-9s  %-32s %9.2f  %-32s %9.2f  %9.2f %9.2f %7.2f\n", rb_size_name(sizes[k], name, sizeof name),
                bl, best->p50, wl, worst->p50, n ? n->p50 : NAN, f ? f->p50 : NAN,
                n && f ? f->p50 / n->p50 : NAN);
    }
    fprintf(out, "\nControl-block operations p50 (us): native %s vs WSL2 fallback %s\n", "pinned/async/coop/mapped",
            "malloc/sync/noncoop/device");
    static const rb_family cbf[3] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
    for (int i = 0; i < 3; i++) {
        const rb_row *n = find_row(res, cbf[i], &nat, 0), *f = find_row(res, cbf[i], &fb, 0);
        fprintf(out, "  %-13s native %9.3f  fallback %9.3f  fallback/native %8.1fx\n", rb_family_name(cbf[i]),
                n ? n->p50 : NAN, f ? f->p50 : NAN, n && f ? f->p50 / n->p50 : NAN);
    }
    fprintf(out, "\nRows: %zu ok, %zu unsupported, %zu invalid, %zu failed%s\n", res->ok, res->unsupported,
            res->invalid, res->failed, res->interrupted ? " (INTERRUPTED: incomplete)" : "");
}

void rb_sweep_result_free(rb_sweep_result *res)
{
    free(res->rows);
    res->rows = NULL;
    res->nrows = res->caprows = 0;
}
