/* sweep.c - runs a plan of trials and turns them into rows (see sweep.h).
 *
 * For every trial: take the conditions (polling CPU, GPU clocks, throttle reasons), run it
 * (harness/trial.c), take the conditions again, write the trial and its samples to /trials at once
 * (so an interrupt or a crash keeps it), and keep its samples for its cell. After the last round
 * (bench/plan.h: rounds are the outer loop), every cell becomes one /cells row: p50 and its 95%
 * interval from the trials, the other percentiles over all samples, the between-trial spread,
 * verification counts summed, and a time cell's two modes when its samples have them.
 */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bimodal.h"
#include "eta.h"
#include "plan.h"
#include "stats.h"
#include "timing.h"
#include "verdict.h"
#include "window_procs.h"

/* --- the state of a run ---------------------------------------------------------------------------- */

/* One trial's contribution to a cell. */
typedef struct cell_trial {
    double *sorted; /* its samples, ascending */
    size_t n;
    double msgs_per_s;
    const char *status;
    char reason[RB_REASON_LEN];
    double elapsed_s;
    double calls[RB_CALL_KIND_COUNT];
    uint64_t messages, lost, duplicated, corrupted, kernel_errors;
    int stop_why; /* stats_stop of the trial's sampling */
} cell_trial;

/* A cell: one family of one unit (and one window), with its trials so far. */
typedef struct cell {
    int used;
    rb_family fam;
    int mode; /* -1 for a baseline */
    uint64_t size;
    uint32_t window;
    cell_trial *t;
    size_t nt;
} cell;

typedef struct sweep {
    const sweep_opts *o;
    h5out *w;
    volatile sig_atomic_t *stop;
    sweep_result *res;
    char *err;
    size_t errlen;
    const char *backend;
    int tty;
    uint64_t t_start, t_last_line;
    trial_cfg tc;
    plan_schedule plan;
    eta eta;                  /* the time left (eta.h) */
    int eta_ok;               /* eta was set up */
    cell *cells;              /* RB_TRIAL_MAX_PARTS per unit: cells[unit * MAX + part] */
    double memcpy_h2d[2][64]; /* [pinned][size index] p50 GB/s of the run, for ratio_memcpy */
} sweep;

#define CELL(sw, unit, part) (&(sw)->cells[(unit)*RB_TRIAL_MAX_PARTS + (part)])

static void set_mode(char *host, char *xfer, char *launch, char *ctrl, int mode)
{
    mode_spec m = mode >= 0 ? mode_at((size_t)mode) : mode_native();
    char *f[RB_AXIS_COUNT] = {host, xfer, launch, ctrl};
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        rb_set_field(f[a], RB_NAME_LEN, mode >= 0 ? mode_axis_value((mode_axis)a, m.v[a]) : RB_NOT_APPLICABLE);
}

static void row_init(sweep *sw, rb_row *row, rb_family fam, int mode, uint64_t size, uint32_t window)
{
    memset(row, 0, sizeof *row);
    row->cell_id = -1;
    rb_set_field(row->backend, sizeof row->backend, sw->backend);
    rb_set_field(row->family, sizeof row->family, rb_family_name(fam));
    rb_set_field(row->unit, sizeof row->unit, rb_family_unit(fam));
    set_mode(row->host_mem, row->xfer, row->launch, row->ctrl, mode);
    row->size_bytes = size;
    row->window = window;
    rb_set_field(row->status, sizeof row->status, RB_STATUS_OK);
    rb_set_field(row->stop_rule, sizeof row->stop_rule, "-");
    rb_set_field(row->ci_method, sizeof row->ci_method, "-");
    row->min = row->p50 = row->p90 = row->p99 = row->p999 = row->max = NAN;
    row->mean = row->stddev = row->ci_lo = row->ci_hi = NAN;
    row->trial_p50_min = row->trial_p50_max = row->trial_cv = NAN;
    row->msgs_per_s = row->ratio_floor = row->ratio_memcpy = NAN;
    rb_row_calls_clear(row);
    bimodal_row_clear(row);
}

static void row_status(rb_row *row, const char *status, const char *reason)
{
    rb_set_field(row->status, sizeof row->status, status);
    rb_set_field(row->reason, sizeof row->reason, reason);
}

/* Writes the row and keeps a copy for the summary. */
static int emit(sweep *sw, rb_row *row)
{
    sweep_result *res = sw->res;
    if (h5out_append(sw->w, row, NULL, 0) != 0) {
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

/* The time left as "3m27s", or "--" while the model cannot tell yet (eta.h). */
static void eta_text(const sweep *sw, char *buf, size_t n)
{
    const size_t done = sw->res->units_done;
    const size_t next = done < sw->plan.nsteps ? done : sw->plan.nsteps;
    const int procs_done = done > sw->plan.nsteps ? (int)(done - sw->plan.nsteps) : 0;
    double left;
    if (sw->eta_ok && eta_left(&sw->eta, next, procs_done, &left) == 0) {
        const long s = lround(left);
        snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
    } else {
        snprintf(buf, n, "--");
    }
}

static void progress(sweep *sw, const char *what)
{
    sweep_result *res = sw->res;
    if (sw->o->quiet)
        return;
    if (!sw->tty && timing_now_ns() - sw->t_last_line <= 5000000000ull && res->units_done != res->units_total)
        return;
    const double elapsed = timing_seconds_since(sw->t_start);
    const double frac = res->units_total ? (double)res->units_done / (double)res->units_total : 0;
    char eta_s[32];
    eta_text(sw, eta_s, sizeof eta_s);
    if (sw->tty) {
        char bar[31];
        int filled = (int)(frac * 30);
        for (int i = 0; i < 30; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r\033[K[%s] %zu/%zu  ETA %s  %s", bar, res->units_done, res->units_total, eta_s, what);
        fflush(stderr);
    } else {
        sw->t_last_line = timing_now_ns();
        fprintf(stderr, "ringbench: %zu/%zu trials, %.0f s elapsed, ETA %s: %s\n", res->units_done, res->units_total,
                elapsed, eta_s, what);
    }
}

/* --- trials ----------------------------------------------------------------------------------------- */

/* The trial row of part p of step `step`: what it measured and the conditions around it (c0, c1). */
static void trial_row(const sweep *sw, size_t step, const plan_unit *u, size_t part_index, const trial_part *p,
                      const trial_cond *c0, const trial_cond *c1, rb_trial *t)
{
    const plan_step *st = &sw->plan.steps[step];
    memset(t, 0, sizeof *t);
    t->cell_id = (int32_t)(st->unit * RB_TRIAL_MAX_PARTS + part_index);
    rb_set_field(t->family, sizeof t->family, rb_family_name(p->fam));
    set_mode(t->host_mem, t->xfer, t->launch, t->ctrl, u->mode);
    t->size_bytes = p->size;
    t->window = p->window;
    t->trial = st->round;
    t->seq = (int32_t)step;
    rb_set_field(t->status, sizeof t->status, p->status);
    rb_set_field(t->reason, sizeof t->reason, p->reason);
    t->n = p->s.n;
    t->p50 = t->ci_lo = t->ci_hi = t->mean = NAN;
    t->msgs_per_s = p->msgs_per_s;
    t->messages = p->messages;
    t->lost = p->lost;
    t->duplicated = p->duplicated;
    t->corrupted = p->corrupted;
    t->kernel_errors = p->kernel_errors;
    t->t_start_s = (double)(c0->t_ns - sw->t_start) * 1e-9;
    t->elapsed_s = (double)(c1->t_ns - c0->t_ns) * 1e-9;
    t->cpu_start = c0->cpu;
    t->cpu_end = c1->cpu;
    t->ctx_switches = c0->ctx_switches >= 0 && c1->ctx_switches >= 0 ? c1->ctx_switches - c0->ctx_switches : -1;
    t->sm_mhz_start = c0->sm_mhz;
    t->sm_mhz_end = c1->sm_mhz;
    t->mem_mhz_start = c0->mem_mhz;
    t->mem_mhz_end = c1->mem_mhz;
    t->throttle_start = c0->reasons;
    t->throttle_end = c1->reasons;
    hostload_delta d;
    hostload_diff(&c0->load, &c1->load, &d);
    t->part_s = p->s.elapsed_s;
    t->payload_s = p->payload_s;
    t->steal_ms = d.steal_ms;
    t->cpu_steal_ms = d.cpu_steal_ms;
    t->max_steal_ms = d.max_steal_ms;
    t->irq_ms = d.irq_ms;
    t->others_ms = d.others_ms;
    t->minflt = d.minflt;
    t->majflt = d.majflt;
    t->proc_ctx_switches = d.nivcsw;
}

/* The cell's copy of part p (*ct, its samples sorted once) and the trial's own figures in *t.
 * Returns 0, or -1 when out of memory. */
static int cell_trial_of(const trial_part *p, cell_trial *ct, rb_trial *t)
{
    memset(ct, 0, sizeof *ct);
    ct->status = p->status;
    rb_set_field(ct->reason, sizeof ct->reason, p->reason);
    ct->msgs_per_s = p->msgs_per_s;
    ct->elapsed_s = p->s.elapsed_s;
    memcpy(ct->calls, p->calls, sizeof ct->calls);
    ct->messages = p->messages;
    ct->lost = p->lost;
    ct->duplicated = p->duplicated;
    ct->corrupted = p->corrupted;
    ct->kernel_errors = p->kernel_errors;
    ct->stop_why = p->s.why;
    if (p->s.n == 0)
        return 0;
    /* One sort per trial: the cell's interval and this trial's own figures both use it. */
    if ((ct->sorted = malloc(p->s.n * sizeof *ct->sorted)) == NULL)
        return -1;
    memcpy(ct->sorted, p->s.us, p->s.n * sizeof *ct->sorted);
    stats_sort(ct->sorted, p->s.n);
    ct->n = p->s.n;
    double sum = 0;
    for (size_t i = 0; i < ct->n; i++)
        sum += ct->sorted[i];
    t->p50 = stats_percentile_sorted(ct->sorted, ct->n, 50.0);
    t->mean = sum / (double)ct->n;
    stats_median_ci(ct->sorted, ct->n, 0.95, &t->ci_lo, &t->ci_hi);
    return 0;
}

/* Writes trial t (part p's row, its figures filled here) to /trials with its samples and keeps them
 * for cell c (of mode `mode`, -1 for a baseline). Returns 0, or -1 with sw->err. */
static int keep_part(sweep *sw, cell *c, int mode, const trial_part *p, rb_trial *t)
{
    cell_trial ct;
    if (cell_trial_of(p, &ct, t) != 0)
        goto oom;
    if (h5out_append_trial(sw->w, t, p->s.us, p->s.n) != 0) {
        free(ct.sorted);
        snprintf(sw->err, sw->errlen, "writing the results file: %s", h5out_error(sw->w));
        return -1;
    }
    cell_trial *grown = realloc(c->t, (c->nt + 1) * sizeof *c->t);
    if (!grown) {
        free(ct.sorted);
        goto oom;
    }
    c->t = grown;
    c->t[c->nt++] = ct;
    if (!c->used) {
        c->used = 1;
        c->fam = p->fam;
        c->mode = mode;
        c->size = p->size;
        c->window = p->window;
    }
    return 0;
oom:
    snprintf(sw->err, sw->errlen, "out of memory");
    return -1;
}

/* Writes one part of a finished trial to /trials (with its samples and conditions) and keeps it for
 * its cell. */
static int record_part(sweep *sw, size_t step, const plan_unit *u, size_t part_index, const trial_part *p,
                       const trial_cond *c0, const trial_cond *c1)
{
    rb_trial t;
    trial_row(sw, step, u, part_index, p, c0, c1, &t);
    return keep_part(sw, CELL(sw, sw->plan.steps[step].unit, part_index), u->mode, p, &t);
}

/* Runs step `step` of the plan: conditions, the trial, conditions, its parts recorded. */
static int run_step(sweep *sw, size_t step)
{
    const plan_unit *u = &sw->plan.units[sw->plan.steps[step].unit];
    mode_spec m = u->mode >= 0 ? mode_at((size_t)u->mode) : mode_native();
    trial_out out;
    trial_cond c0, c1;
    trial_cond_take(sw->o->clocks, &c0);
    int irc = trial_run(&sw->tc, u->kind, &m, u->size, &out);
    trial_cond_take(sw->o->clocks, &c1);
    int rc = 0;
    for (size_t i = 0; i < out.nparts && rc == 0; i++)
        if (!irc || out.part[i].s.n > 0 || strcmp(out.part[i].status, RB_STATUS_OK) != 0)
            rc = record_part(sw, step, u, i, &out.part[i], &c0, &c1);
    trial_out_free(&out);
    sw->res->units_done++;
    return rc < 0 ? -1 : irc ? 1 : 0;
}

/* --- cells into rows --------------------------------------------------------------------------------- */

/* The cell's p50 and interval from its ok trials: the rule is verdict_cell_interval (verdict.h), the
 * same method and seed report and compare use. */
static int cell_interval(const cell *c, rb_row *row)
{
    stats_trial tr[256];
    size_t k = 0;
    for (size_t i = 0; i < c->nt && k < 256; i++) {
        const cell_trial *t = &c->t[i];
        if (strcmp(t->status, RB_STATUS_OK) == 0 && t->n > 0)
            tr[k++] = (stats_trial){t->sorted, t->n};
    }
    if (k == 0)
        return 0;
    verdict_cell v;
    if (verdict_cell_interval(tr, k, strcmp(rb_family_unit(c->fam), "us") != 0, &v) != 0)
        return -1;
    row->p50 = v.p50;
    row->ci_lo = v.ci_lo;
    row->ci_hi = v.ci_hi;
    rb_set_field(row->ci_method, sizeof row->ci_method, v.method == STATS_CI_TRIALS ? RB_CI_TRIALS : RB_CI_SAMPLES);
    row->trial_p50_min = v.trial_p50_min;
    row->trial_p50_max = v.trial_p50_max;
    row->trial_cv = v.trial_cv;
    return 0;
}

static int size_index(const sweep *sw, uint64_t size)
{
    for (size_t i = 0; i < sw->o->sizes.n && i < 64; i++)
        if (sw->o->sizes.v[i] == size)
            return (int)i;
    return -1;
}

/* The row's summary over the npooled samples of the cell's ok trials pooled together (the p50 and its
 * interval come from cell_interval), and its two modes if it has them (results/bimodal.h): over the
 * same pooled samples, sorted. Returns 0, or -1 when out of memory. */
static int cell_pooled(const cell *c, size_t npooled, rb_row *row)
{
    double *pooled = malloc(npooled * sizeof *pooled);
    size_t at = 0;
    stats_summary s;
    if (!pooled)
        return -1;
    for (size_t i = 0; i < c->nt; i++)
        if (strcmp(c->t[i].status, RB_STATUS_OK) == 0 && c->t[i].n > 0) {
            memcpy(pooled + at, c->t[i].sorted, c->t[i].n * sizeof *pooled);
            at += c->t[i].n;
        }
    if (stats_summarize(pooled, npooled, &s) == 0) {
        row->n = s.n;
        row->min = s.min;
        row->p90 = s.p90;
        row->p99 = s.p99;
        row->p999 = s.p999;
        row->max = s.max;
        row->mean = s.mean;
        row->stddev = s.stddev;
    }
    (void)stats_sort(pooled, npooled); /* sorted even when it says its scratch ran out */
    const int rc = bimodal_row_fill(row, pooled, npooled);
    free(pooled);
    return rc;
}

/* One cell's row: status from its trials, statistics from its ok trials, then written. */
static int cell_emit(sweep *sw, cell *c, int32_t cell_id)
{
    rb_row row;
    row_init(sw, &row, c->fam, c->mode, c->size, c->window);
    row.cell_id = cell_id;
    size_t ok = 0, unsupported = 0, npooled = 0;
    double calls[RB_CALL_KIND_COUNT] = {0}, mps = 0;
    int ncalls = 0;
    for (size_t i = 0; i < c->nt; i++) {
        const cell_trial *t = &c->t[i];
        row.elapsed_s += t->elapsed_s;
        row.messages += t->messages;
        row.lost += t->lost;
        row.duplicated += t->duplicated;
        row.corrupted += t->corrupted;
        row.kernel_errors += t->kernel_errors;
        if (strcmp(t->status, RB_STATUS_UNSUPPORTED) == 0) {
            unsupported++;
            row_status(&row, RB_STATUS_UNSUPPORTED, t->reason);
        } else if (strcmp(t->status, RB_STATUS_OK) != 0) {
            char why[RB_REASON_LEN + 32];
            snprintf(why, sizeof why, "trial %zu: %s", i, t->reason);
            if (strcmp(row.status, RB_STATUS_FAILED) != 0)
                row_status(&row, RB_STATUS_FAILED, why);
        } else if (t->n > 0) {
            ok++;
            npooled += t->n;
            mps += t->msgs_per_s;
            if (isfinite(t->calls[0])) {
                for (int k = 0; k < RB_CALL_KIND_COUNT; k++)
                    calls[k] += t->calls[k];
                ncalls++;
            }
        }
    }
    row.trials = c->nt;
    if (ok > 0) {
        if (cell_pooled(c, npooled, &row) != 0) {
            snprintf(sw->err, sw->errlen, "out of memory");
            return -1;
        }
        if (cell_interval(c, &row) != 0) {
            snprintf(sw->err, sw->errlen, "out of memory computing an interval");
            return -1;
        }
        row.msgs_per_s = c->fam == RB_FAM_THROUGHPUT || c->fam == RB_FAM_THROUGHPUT_PROCS ? mps / (double)ok : NAN;
        if (ncalls > 0) {
            for (int k = 0; k < RB_CALL_KIND_COUNT; k++)
                calls[k] /= ncalls;
            rb_row_calls_set(&row, calls);
        }
        /* Samples taken by the sampler say why it stopped; those pushed one by one (throughput,
         * lifecycle, memcpy repetitions) leave STATS_CONTINUE: a fixed count. */
        const stats_stop why = (stats_stop)c->t[0].stop_why;
        rb_set_field(row.stop_rule, sizeof row.stop_rule, why != STATS_CONTINUE ? stats_stop_name(why) : "fixed");
    } else if (c->nt > 0 && unsupported == 0 && strcmp(row.status, RB_STATUS_OK) == 0) {
        row_status(&row, RB_STATUS_FAILED, "no samples were taken");
    }
    if (strcmp(row.status, RB_STATUS_OK) == 0 && (row.lost || row.duplicated || row.corrupted || row.kernel_errors))
        row_status(&row, RB_STATUS_FAILED, "verification failed in a trial (see /trials)");
    if (strcmp(row.unit, "us") == 0 && isfinite(sw->res->floor_p50) && sw->res->floor_p50 > 0)
        row.ratio_floor = row.p50 / sw->res->floor_p50;
    int si = size_index(sw, c->size);
    if (c->fam == RB_FAM_MEMCPY_H2D_PINNED && si >= 0)
        sw->memcpy_h2d[1][si] = row.p50;
    if (c->fam == RB_FAM_MEMCPY_H2D_PAGEABLE && si >= 0)
        sw->memcpy_h2d[0][si] = row.p50;
    if (c->fam == RB_FAM_BASE_FLOOR && strcmp(row.status, RB_STATUS_OK) == 0)
        sw->res->floor_p50 = row.p50;
    if (c->fam == RB_FAM_THROUGHPUT && si >= 0 && c->mode >= 0) {
        const int pinned = mode_at((size_t)c->mode).v[RB_AXIS_HOST] == RB_HOST_PINNED;
        double bw = sw->memcpy_h2d[pinned][si];
        if (isfinite(bw) && bw > 0)
            row.ratio_memcpy = row.p50 / bw;
    }
    return emit(sw, &row);
}

/* Frees a cell's samples and marks it unused. */
static void cell_free(cell *c)
{
    for (size_t i = 0; i < c->nt; i++)
        free(c->t[i].sorted);
    free(c->t);
    c->t = NULL;
    c->nt = 0;
    c->used = 0;
}

/* Writes the rows of every cell of group g that has trials, in unit order (baselines first, so the
 * ring rows can refer to them), and frees their samples. */
static int emit_group(sweep *sw, int g)
{
    for (size_t u = 0; u < sw->plan.nunits; u++) {
        if (sw->plan.units[u].group != g)
            continue;
        for (size_t p = 0; p < RB_TRIAL_MAX_PARTS; p++) {
            cell *c = CELL(sw, u, p);
            if (!c->used)
                continue;
            int rc = cell_emit(sw, c, (int32_t)(u * RB_TRIAL_MAX_PARTS + p));
            cell_free(c);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

/* Rows for the modes that do not run (invalid combinations, or refused by this platform). */
static int emit_not_run(sweep *sw, const probe_caps *caps, unsigned char *runnable)
{
    const sweep_opts *o = sw->o;
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        runnable[i] = 0;
        if (!o->modes.selected[i])
            continue;
        mode_spec m = mode_at(i);
        char why[256];
        const char *invalid = mode_invalid_reason(&m), *unsupported = NULL;
        /* A platform's limits first, on every backend (platform_limits.h): what that platform's user can run. */
        if (!invalid)
            unsupported = platform_limits_mode_reason(o->limits, &m, why, sizeof why);
        if (!invalid && !unsupported && o->backend == RING_BACKEND_CUDA)
            unsupported = probe_caps_unsupported_reason(caps, &m, why, sizeof why);
        if (!invalid && !unsupported) {
            runnable[i] = 1;
            continue;
        }
        const char *status = invalid ? RB_STATUS_INVALID : RB_STATUS_UNSUPPORTED,
                   *reason = invalid ? invalid : unsupported;
        rb_row row;
        for (int f = 0; f < TRIAL_CONTROL_FAMS; f++) {
            row_init(sw, &row, trial_control_fams[f], (int)i, 0, 0);
            row_status(&row, status, reason);
            if (emit(sw, &row) < 0)
                return -1;
        }
        for (size_t s = 0; s < o->sizes.n; s++) {
            row_init(sw, &row, RB_FAM_LATENCY, (int)i, o->sizes.v[s], 1);
            row_status(&row, status, reason);
            if (emit(sw, &row) < 0)
                return -1;
            row_init(sw, &row, RB_FAM_THROUGHPUT, (int)i, o->sizes.v[s], 0);
            row_status(&row, status, reason);
            if (emit(sw, &row) < 0)
                return -1;
        }
    }
    return 0;
}

/* --- the full-window leg (window_procs.h) ------------------------------------------------------------ */

/* Process i's outcome for its k-th cell as trial i of cell c (cell_id, family, mode; -1 for a reference):
 * the trial's row the process gave (its best of a mode, its median of a reference), with that trial's
 * figure as its one sample. Returns 0, or -1 with sw->err. */
static int record_proc(sweep *sw, cell *c, int32_t cell_id, rb_family fam, int mode, int i, const window_procs_proc *pr,
                       size_t k)
{
    rb_trial t = pr->t[k];
    trial_part p;
    memset(&p, 0, sizeof p);
    double v = pr->gbps[k];
    const int ok = strcmp(t.status, RB_STATUS_OK) == 0 && isfinite(v);
    p.fam = fam;
    p.size = sw->o->sizes.v[0];
    p.window = (uint32_t)t.window;
    p.status = ok                                             ? RB_STATUS_OK
               : strcmp(t.status, RB_STATUS_UNSUPPORTED) == 0 ? RB_STATUS_UNSUPPORTED
                                                              : RB_STATUS_FAILED;
    rb_set_field(p.reason, sizeof p.reason, ok ? "" : t.reason);
    if (ok) {
        p.s.us = &v;
        p.s.n = 1;
    }
    p.s.why = STATS_CONTINUE;
    p.s.elapsed_s = isfinite(t.part_s) ? t.part_s : 0;
    p.msgs_per_s = ok ? t.msgs_per_s : NAN;
    p.messages = t.messages;
    p.lost = t.lost;
    p.duplicated = t.duplicated;
    p.corrupted = t.corrupted;
    p.kernel_errors = t.kernel_errors;
    for (int q = 0; q < RB_CALL_KIND_COUNT; q++)
        p.calls[q] = NAN;
    p.payload_s = NAN;
    t.cell_id = cell_id;
    rb_set_field(t.family, sizeof t.family, rb_family_name(p.fam));
    set_mode(t.host_mem, t.xfer, t.launch, t.ctrl, mode);
    t.size_bytes = p.size;
    t.trial = i;
    t.seq = (int32_t)(sw->plan.nsteps + (size_t)i);
    rb_set_field(t.status, sizeof t.status, p.status);
    rb_set_field(t.reason, sizeof t.reason, p.reason);
    t.n = p.s.n;
    /* When it ran within the child, counted from the parent's start; the child's whole run if unknown. */
    t.t_start_s = (double)(pr->start_ns - sw->t_start) * 1e-9 + (isfinite(t.t_start_s) ? t.t_start_s : 0);
    if (!ok)
        t.elapsed_s = pr->wall_s;
    return keep_part(sw, c, mode, &p, &t);
}

/* The leg: o->window_procs child processes, each one trial of the four cells and of the two reference
 * cells, then their rows.
 * Returns 0, 1 when interrupted (the completed processes' trials and rows are written), -1 on error. */
static int run_procs(sweep *sw)
{
    const sweep_opts *o = sw->o;
    int modes[WINDOW_PROCS_MODES];
    if (window_procs_modes(modes) != WINDOW_PROCS_MODES) { /* cannot happen: a constant of the grammar */
        snprintf(sw->err, sw->errlen, "the window leg's modes do not parse");
        return -1;
    }
    cell cells[WINDOW_PROCS_CELLS]; /* laid out as window_procs_proc's: the modes, then the references */
    memset(cells, 0, sizeof cells);
    rb_family fams[WINDOW_PROCS_CELLS];
    int cell_mode[WINDOW_PROCS_CELLS];
    for (int k = 0; k < WINDOW_PROCS_CELLS; k++) {
        fams[k] = k < WINDOW_PROCS_MODES ? RB_FAM_THROUGHPUT_PROCS : window_procs_ref_family(k - WINDOW_PROCS_MODES);
        cell_mode[k] = k < WINDOW_PROCS_MODES ? modes[k] : -1;
    }
    const int32_t id0 = (int32_t)(sw->plan.nunits * RB_TRIAL_MAX_PARTS);
    const int keep = o->window_procs_keep != NULL;
    const window_procs_cfg wc = {o->window_procs, o->window_procs_args, o->sizes.v[0], o->seed, keep, sw->stop};
    char *dir = NULL, why[RB_REASON_LEN];
    /* Without its folder the leg is a failed row per mode, saying why. */
    if (window_procs_dir(o->window_procs_keep, &dir, why, sizeof why) != 0) {
        for (size_t k = 0; k < WINDOW_PROCS_CELLS; k++) {
            rb_row row;
            row_init(sw, &row, fams[k], cell_mode[k], o->sizes.v[0], 0);
            row_status(&row, RB_STATUS_FAILED, why);
            if (emit(sw, &row) < 0)
                return -1;
        }
        return 0;
    }
    int rc = 0;
    for (int i = 0; i < o->window_procs && rc == 0; i++) {
        char what[96];
        snprintf(what, sizeof what, "full window in fresh processes: %d/%d", i + 1, o->window_procs);
        progress(sw, what);
        window_procs_proc pr;
        const uint64_t t0 = timing_now_ns();
        if (window_procs_one(&wc, dir, i, &pr) == 1) {
            rc = 1;
            break;
        }
        if (sw->eta_ok)
            eta_proc_done(&sw->eta, timing_seconds_since(t0));
        for (size_t k = 0; k < WINDOW_PROCS_CELLS && rc == 0; k++)
            if (record_proc(sw, &cells[k], id0 + (int32_t)k, fams[k], cell_mode[k], i, &pr, k) != 0)
                rc = -1;
        sw->res->units_done++;
    }
    if (!keep)
        window_procs_dir_remove(dir);
    free(dir);
    for (size_t k = 0; k < WINDOW_PROCS_CELLS; k++) {
        if (cells[k].used && rc >= 0 && cell_emit(sw, &cells[k], id0 + (int32_t)k) < 0)
            rc = -1;
        cell_free(&cells[k]);
    }
    return rc;
}

/* --- the sweep ------------------------------------------------------------------------------------ */

/* What every trial of the run shares: the backend, the preset's budgets and the ring's switches. */
static trial_cfg sweep_trial_cfg(const sweep_opts *o, volatile sig_atomic_t *stop)
{
    const preset_def *p = o->preset;
    return (trial_cfg){.backend = o->backend,
                       .device = o->device,
                       .seed = o->seed,
                       .timeout_s = o->timeout_s,
                       .max_lifetime_s = o->max_lifetime_s,
                       .latency = p->latency,
                       .cb = p->cb,
                       .tput_reps = p->tput_reps,
                       .tput_rep_seconds = p->tput_rep_seconds,
                       .memcpy_reps = p->memcpy_reps,
                       .memcpy_rep_seconds = p->memcpy_rep_seconds,
                       .lifecycle_cycles = p->lifecycle_cycles,
                       .early_take = o->early_take,
                       .leader_reply = o->leader_reply,
                       .no_early_replies = o->no_early_replies,
                       .shortcuts_busy = o->shortcuts_busy,
                       .stream_ops = o->stream_ops,
                       .cb_batch = o->cb_batch,
                       .post_max = o->post_max,
                       .verify_split = o->verify_split,
                       .verify_first = o->verify_first,
                       .refill_on_tail = o->refill_on_tail,
                       .limits = o->limits,
                       .faults = o->faults,
                       .nwindows = o->nwindows,
                       .stop = stop};
}

/* Every step of the plan in order, each announced on the progress line. Returns run_step's status. */
static int run_steps(sweep *sw)
{
    const sweep_opts *o = sw->o;
    int rc = 0;
    for (size_t s = 0; s < sw->plan.nsteps && rc == 0; s++) {
        const plan_unit *u = &sw->plan.units[sw->plan.steps[s].unit];
        char what[128], label[64] = "baselines", name[32];
        if (u->mode >= 0) {
            mode_spec m = mode_at((size_t)u->mode);
            mode_label(&m, label, sizeof label);
        }
        snprintf(what, sizeof what, "round %d/%d  %s %s", sw->plan.steps[s].round + 1, o->trials, label,
                 u->kind == RB_UNIT_CONTROL ? "control block"
                 : u->size                  ? preset_size_name(u->size, name, sizeof name)
                                            : "");
        progress(sw, what);
        const uint64_t t0 = timing_now_ns();
        rc = run_step(sw, s);
        if (rc == 0 && sw->eta_ok)
            eta_step_done(&sw->eta, s, timing_seconds_since(t0));
    }
    return rc;
}

int sweep_run(const sweep_opts *o, const probe_caps *caps, h5out *w, volatile sig_atomic_t *stop, sweep_result *res,
              char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->floor_p50 = res->warmup_s = res->warmup_sm_mhz = res->warmup_target_mhz = NAN;
    sweep sw = {.o = o,
                .w = w,
                .stop = stop,
                .res = res,
                .err = err,
                .errlen = errlen,
                .backend = ring_backend_name(o->backend),
                .tty = isatty(STDERR_FILENO),
                .t_start = timing_now_ns()};
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < 64; i++)
            sw.memcpy_h2d[a][i] = NAN;
    sw.tc = sweep_trial_cfg(o, stop);
    memcpy(sw.tc.windows, o->windows, sizeof sw.tc.windows);
    unsigned char runnable[RB_MODE_COUNT];
    int rc = emit_not_run(&sw, caps, runnable);
    if (rc == 0 && plan_build(runnable, o->sizes.v, o->sizes.n, o->trials, o->seed, &sw.plan) != 0) {
        snprintf(err, errlen, "out of memory planning the run");
        rc = -1;
    }
    if (rc == 0 && !(sw.cells = calloc(sw.plan.nunits * RB_TRIAL_MAX_PARTS, sizeof *sw.cells))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    res->units_total = sw.plan.nsteps + (size_t)(o->window_procs > 0 ? o->window_procs : 0);
    if (rc == 0) {
        /* What each process of the full-window leg runs (window_procs.h): the quick preset's budgets,
         * one window. Without the model the progress line shows no ETA; the run goes on. */
        const preset_def *quick = preset_find("quick");
        const eta_child child = {WINDOW_PROCS_TRIALS, WINDOW_PROCS_MODES,
                                 quick ? quick->tput_reps * quick->tput_rep_seconds : 0};
        sw.eta_ok = eta_init(&sw.eta, &sw.plan, &sw.tc, o->window_procs, &child) == 0;
    }
    if (rc == 0 && o->warmup_timeout_s > 0 && o->backend == RING_BACKEND_CUDA) {
        progress(&sw, "warming up the GPU");
        trial_warmup(&sw.tc, o->clocks, o->warmup_timeout_s, &res->warmup_s, &res->warmup_sm_mhz,
                     &res->warmup_target_mhz);
    }
    if (rc == 0)
        rc = run_steps(&sw);
    /* A cell's trials are spread over every round, so its row waits for the last one. Interrupted
     * or not, every cell with a trial gets its row; the trials themselves are on disk already. */
    for (int g = 0; g < sw.plan.ngroups && rc >= 0; g++)
        if (emit_group(&sw, g) < 0)
            rc = -1;
    if (rc == 0 && o->window_procs > 0 && o->sizes.n > 0)
        rc = run_procs(&sw);
    if (rc == 0)
        progress(&sw, "done");
    if (sw.tty && !o->quiet)
        fputc('\n', stderr);
    if (sw.cells)
        for (size_t i = 0; i < sw.plan.nunits * RB_TRIAL_MAX_PARTS; i++) {
            for (size_t k = 0; k < sw.cells[i].nt; k++)
                free(sw.cells[i].t[k].sorted);
            free(sw.cells[i].t);
        }
    free(sw.cells);
    if (sw.eta_ok)
        eta_free(&sw.eta);
    plan_free(&sw.plan);
    res->interrupted = rc == 1;
    return rc;
}

/* --- summary ---------------------------------------------------------------------------------------- */

void sweep_summary(const sweep_result *res, FILE *out)
{
    fprintf(out, "rows: %zu ok, %zu unsupported, %zu invalid, %zu failed%s\n", res->ok, res->unsupported, res->invalid,
            res->failed, res->interrupted ? " (INTERRUPTED: incomplete)" : "");
}

void sweep_result_free(sweep_result *res)
{
    free(res->rows);
    res->rows = NULL;
    res->nrows = res->caprows = 0;
}
