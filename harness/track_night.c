/* track_night.c - the night's verdict of `ringbench track` (track_night.h): the newest run of a machine
 * against its history (track_detect.h decides each series), environment changes beside the regressions
 * they coincide with, and the judgements exported. Reads the history through results/history.h only.
 * Exercised by tests/test_history.c and tests/track_cli.sh.
 */
#include "track_night.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "headline.h"
#include "modes.h"
#include "schema.h"
#include "stats.h"

/* --- runs of a machine ------------------------------------------------------------------------- */

int track_env_diff(const hist_run *a, const hist_run *b, char *buf, size_t n)
{
    int k = 0;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < HIST_ENV_COUNT && len < n; i++) {
        if (strcmp(a->env[i], b->env[i]) == 0)
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s %s -> %s", k ? ", " : "", hist_env_word(i), a->env[i],
                                b->env[i]);
        k++;
    }
    return k;
}

static int same_env(const hist_run *a, const hist_run *b)
{
    char tmp[8];
    return track_env_diff(a, b, tmp, sizeof tmp) == 0;
}

/* The runs of run_id's machine up to and including it, oldest first; incomplete runs (and, with
 * --same-env, runs of another environment) never form a baseline. Returns 0, or -1 with err set (or
 * err empty: out of memory or an index error). */
static int machine_runs(hist *h, long long run_id, const hist_run *one, const track_options *o, hist_run **out,
                        size_t *nout, char *err, size_t errlen)
{
    hist_run *all = NULL, *runs = NULL;
    size_t nall = 0, n = 0;
    if (hist_machine_runs(h, run_id, &all, &nall) != 0)
        return -1;
    runs = malloc((nall + 1) * sizeof *runs);
    if (!runs) {
        free(all);
        return -1;
    }
    int seen = 0;
    for (size_t i = 0; i < nall && !seen; i++) {
        seen = all[i].id == run_id;
        if (!seen && (!all[i].complete || (o->same_env && !same_env(&all[i], one))))
            continue;
        runs[n++] = all[i];
    }
    free(all);
    if (!seen || n == 0) {
        snprintf(err, errlen, "run %lld is not among the runs of its own machine: the index is inconsistent", run_id);
        free(runs);
        return -1;
    }
    *out = runs;
    *nout = n;
    return 0;
}

/* --- cells, runs and medians ------------------------------------------------------------------- */

/* The control block of the WSL2 fallback (the mode table's, "device"): a pool or pairing of native
 * cells leaves it out. */
static const char *fallback_ctrl(void)
{
    return mode_axis_value(RB_AXIS_CTRL, mode_path_spec(MODE_PATH_FALLBACK).v[RB_AXIS_CTRL]);
}

/* Is ctrl, a cell's control block, the fallback's? */
static int is_fallback_ctrl(const char *ctrl) { return strcmp(ctrl, fallback_ctrl()) == 0; }

static int cmp_id(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

typedef struct id_pos {
    long long id;
    size_t pos;
} id_pos;

static size_t pos_of(const id_pos *map, size_t n, long long id)
{
    const id_pos *p = bsearch(&id, map, n, sizeof *map, cmp_id);
    return p ? p->pos : (size_t)-1;
}

static int is_ring_family(const char *f)
{
    return strcmp(f, "latency") == 0 || strcmp(f, "throughput") == 0 || strcmp(f, "throughput_procs") == 0 ||
           strncmp(f, "cb_", 3) == 0 || strncmp(f, "lc_", 3) == 0 || strcmp(f, "harness_overhead") == 0;
}

/* A reference cell of the full window's leg: each leg process's own memcpy (bench/window_procs.h). */
static int is_leg_ref(const char *f)
{
    return strcmp(f, "memcpy_h2d_pinned_procs") == 0 || strcmp(f, "memcpy_h2d_pageable_procs") == 0;
}

static double median_of(double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[k++] = v[i];
    if (k == 0)
        return NAN;
    stats_sort(v, k);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* The median of v over the baseline's runs, the lookback window before tonight (v[n - 1]): at most the
 * window runs before it, non-finite values left out, how many were finite into *finite (may be NULL);
 * tmp holds n values. NAN when none is finite. */
static double baseline_median(const double *v, size_t n, size_t window, double *tmp, size_t *finite)
{
    size_t w = 0, k = 0;
    for (size_t i = n - 1 > window ? n - 1 - window : 0; i + 1 < n; i++) {
        tmp[w++] = v[i];
        k += isfinite(v[i]) != 0;
    }
    if (finite)
        *finite = k;
    return median_of(tmp, w);
}

/* --- the machine's shift: every machine reference against its baseline ------------------------- */

/* Is a reference cell of this family one of the cudaMemcpy call costs (a blocking copy of a few bytes,
 * pinned or pageable, each way): the calls the fallback's staged control block is made of. */
static int is_memcpy_call(const char *family) { return family && strncmp(family, "call_memcpy_", 12) == 0; }

static void detail_add(track_machine_detail *d, const char *family, uint64_t size, double change)
{
    if (!isfinite(change))
        return;
    if (strcmp(family, "base_floor") == 0) {
        d->floor = change;
        return;
    }
    d->ncalls += is_memcpy_call(family);
    if (strcmp(family, "memcpy_h2d_pinned") != 0 && strcmp(family, "memcpy_d2h_pinned") != 0)
        return;
    size_t k = 0;
    while (k < d->nsizes && d->sizes[k] != size)
        k++;
    if (k == d->nsizes) {
        if (k == 64)
            return;
        /* kept in ascending size, the order the line prints them */
        while (k > 0 && d->sizes[k - 1] > size) {
            d->sizes[k] = d->sizes[k - 1];
            d->sum[k] = d->sum[k - 1];
            d->count[k] = d->count[k - 1];
            k--;
        }
        d->sizes[k] = size;
        d->sum[k] = 0;
        d->count[k] = 0;
        d->nsizes++;
    }
    d->sum[k] += change;
    d->count[k]++;
}

/* refs_common's last step: per run i, the median of the ncells references' log changes dv[c * n + i]
 * into shift[i], and of those where call[c] into calls[i] (shift[i] where none is finite). */
static int run_shifts(const double *dv, const unsigned char *call, size_t ncells, size_t n, double *shift,
                      double *calls)
{
    double *col = malloc((ncells ? ncells : 1) * sizeof *col);
    if (!col)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (size_t c = 0; c < ncells; c++)
            col[k++] = dv[c * n + i];
        shift[i] = median_of(col, k);
        k = 0;
        for (size_t c = 0; c < ncells; c++)
            if (call[c])
                col[k++] = dv[c * n + i];
        calls[i] = median_of(col, k);
        if (!isfinite(calls[i]))
            calls[i] = shift[i];
    }
    free(col);
    return 0;
}

/* The machine's common shift per run: for every machine reference cell (memcpy of every size, launch,
 * graph, the CUDA call costs, the floor), the log change of its time against its baseline median; the
 * run's shift is the median over those cells. ~100 references make it far steadier than one memcpy
 * of the same size (at 8 B a blocking cudaMemcpy, whose noise has nothing to do with a zero-copy
 * ring). NAN where a run has too few references. *calls gets the same over the cudaMemcpy call costs
 * alone (is_memcpy_call), the shift of the staged control block's path; common's where a run has none.
 * The newest run's memcpy and floor changes go to *d as well. */
/* refs_common's scan of the history: the reference cells' log changes, one row of n per cell. */
typedef struct refs_scan {
    const id_pos *map;
    size_t n, window, cap, ncells;
    double *dv, *tmp;
    unsigned char *call;
    char cur[256], cur_family[32];
    uint64_t cur_size;
    track_machine_detail *d;
} refs_scan;

/* Closes the current cell of the scan: its changes against its baseline median. */
static void refs_close(refs_scan *r)
{
    if (!r->cur[0])
        return;
    double *row = r->dv + (r->ncells - 1) * r->n;
    const double med = baseline_median(row, r->n, r->window, r->tmp, NULL);
    for (size_t i = 0; i < r->n; i++)
        row[i] -= med;
    detail_add(r->d, r->cur_family, r->cur_size, row[r->n - 1]);
}

/* Starts a new cell of the scan at v. Returns 0, or -1 when out of memory. */
static int refs_open(refs_scan *r, const hist_value *v)
{
    snprintf(r->cur, sizeof r->cur, "%s", v->cell);
    snprintf(r->cur_family, sizeof r->cur_family, "%s", v->family);
    r->cur_size = v->size;
    if (r->ncells == r->cap) {
        double *t = realloc(r->dv, 2 * r->cap * r->n * sizeof *r->dv);
        unsigned char *tc = t ? realloc(r->call, 2 * r->cap) : NULL;
        if (t)
            r->dv = t;
        if (!tc)
            return -1;
        r->call = tc;
        r->cap *= 2;
    }
    for (size_t i = 0; i < r->n; i++)
        r->dv[r->ncells * r->n + i] = NAN;
    r->call[r->ncells++] = (unsigned char)is_memcpy_call(v->family);
    return 0;
}

static int refs_visit(const hist_value *v, void *arg)
{
    refs_scan *r = arg;
    if (!v->family || is_ring_family(v->family) || strcmp(v->family, "host_ref") == 0 || is_leg_ref(v->family))
        return 0; /* the ring's own cells are what is judged, not a reference; host_ref has its own shift, and
                   * the leg's processes' references are theirs alone (window_procs.h) */
    if (strcmp(v->cell, r->cur) != 0) {
        refs_close(r);
        if (refs_open(r, v) != 0)
            return -1;
    }
    size_t i = pos_of(r->map, r->n, v->run_id);
    if (i != (size_t)-1 && isfinite(v->p50) && v->p50 > 0)
        r->dv[(r->ncells - 1) * r->n + i] = v->unit && rb_unit_is_rate(v->unit) ? -log(v->p50) : log(v->p50);
    return 0;
}

static int refs_common(hist *h, const id_pos *map, size_t n, size_t window, double *shift, double *calls,
                       track_machine_detail *d)
{
    refs_scan r = {.map = map, .n = n, .window = window, .cap = 256, .d = d};
    memset(d, 0, sizeof *d);
    d->floor = NAN;
    r.dv = malloc(r.cap * n * sizeof *r.dv);
    r.tmp = malloc(n * sizeof *r.tmp);
    r.call = malloc(r.cap);
    int rc = r.dv && r.tmp && r.call ? 0 : -1;
    if (rc == 0 && hist_each_positive(h, refs_visit, &r) != 0)
        rc = -1;
    if (rc == 0) {
        refs_close(&r);
        rc = run_shifts(r.dv, r.call, r.ncells, n, shift, calls);
    }
    free(r.dv);
    free(r.tmp);
    free(r.call);
    return rc;
}

/* How far the machine moved in each run: the median change of every machine reference against the
 * baseline's median (common), and of the cudaMemcpy call costs (calls), divided out of the ring cells
 * before they are judged (o->raw: not; the raw figures stay in the files and the index); tonight's
 * movement by kind into *md. Returns 0, or -1 on an index error. */
static int machine_shifts(hist *h, const id_pos *map, size_t n, const track_options *o, double *common, double *calls,
                          track_machine_detail *md)
{
    if (refs_common(h, map, n, o->params.window, common, calls, md) != 0)
        return -1;
    double med[64];
    for (size_t k = 0; k < md->nsizes; k++)
        med[k] = md->change[k] = md->sum[k] / md->count[k];
    md->median = median_of(med, md->nsizes);
    return 0;
}

/* --- a cell's series: its figure in each run --------------------------------------------------- */

/* The figure a run gives one cell: its p50 with its trial-level interval unwidened to a standard
 * error's (track_unwiden_trials_interval), or with best, its best trial (track_use_best_trial; the
 * lowest trial median of a time, the highest of a rate). A run without them keeps its p50. */
static track_point run_figure(const hist_figures *f, const track_judged *x, int best)
{
    track_point t = {f->p50, f->ci_lo, f->ci_hi};
    if (f->trials_ci && f->trials >= 2)
        track_unwiden_trials_interval(&t, (size_t)f->trials);
    const double b = rb_unit_is_rate(x->unit) ? f->trial_max : f->trial_min;
    if (best && !isnan(b))
        track_use_best_trial(&t, b);
    return t;
}

/* The series of one cell over runs[0..n-1] (NaN where a run lacks it), each run's figure by
 * run_figure (best: ring cells' best trial). A latency cell with two modes in a run is judged on its
 * fast mode there (x->bimodal is set); a run with one mode keeps its figure. */
static void blank_series(track_point *s, double *slow, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        s[i] = (track_point){NAN, NAN, NAN};
        slow[i] = NAN;
    }
}

static int load_series(hist *h, track_judged *x, const id_pos *map, size_t n, track_point *s, double *slow, int best)
{
    hist_figures *f;
    size_t nf;
    blank_series(s, slow, n);
    x->bimodal = 0;
    if (hist_cell_series(h, x->cell, &f, &nf) != 0)
        return -1;
    for (size_t k = 0; k < nf; k++) {
        size_t i = pos_of(map, n, f[k].run_id);
        if (i == (size_t)-1)
            continue;
        if (!isnan(f[k].mode_lo)) {
            x->bimodal = 1;
            s[i] = (track_point){f[k].mode_lo, NAN, NAN};
            slow[i] = f[k].slow_share;
        } else
            s[i] = run_figure(&f[k], x, best);
        if (x->pool_floor > 0) /* a headline cell of the file (mark_report_cells) */
            track_floor_point(&s[i], x->pool_floor);
    }
    free(f);
    return 0;
}

int track_pool_is_median(const char *family)
{
    return strcmp(family, "cb_read") == 0 || strcmp(family, "cb_write") == 0 || strcmp(family, "host_ref") == 0;
}

/* --- judging one cell: pools, shifts and confirmations ----------------------------------------- */

/* What judging a cell needs: the runs, the series query and its buffers, the machine's shift. */
typedef struct judge_ctx {
    const track_options *o;
    const hist_run *runs;
    size_t n;
    const id_pos *map;
    hist *h;
    int *failed; /* set when a query of the history failed (hist_error says why): the night is not judged */
    track_point *series;
    double *slow;
    const double *common, *calls;
    int host_ok;       /* host_shift: tonight's native reads and writes are judged beyond the host's shift */
    int host_tonight;  /* host_shift: tonight's run measured host_ref */
    double host_shift; /* host_shift: tonight's movement of the host_ref pool (log) */
    size_t host_cells; /* host_shift: how many cells tonight's host_ref figure was taken from */
    double *hbuf;      /* host_paired's shift, n values */
} judge_ctx;

/* One run's rows of a pool (load_pooled): each cell's best trial and p50. */
#define POOL_CELLS_MAX 256
typedef struct pool_run {
    size_t n, nlo;
    double lo[POOL_CELLS_MAX]; /* each cell's lowest trial median */
    double best_lo, best_hi;   /* the lowest trial median of all its cells, the highest */
    double max_p50;            /* the highest cell p50 */
} pool_run;

/* The pool's figure for one run: a rate's best trial (the highest trial median), the leg's best cell
 * (throughput_procs, one trial per process: its cells' p50s are medians of processes), a native
 * control-block read's or write's median of the cells' best trials, any other time's best trial. */
static double pool_value(const track_judged *x, pool_run *p)
{
    if (strcmp(x->family, "throughput_procs") == 0)
        return p->max_p50;
    if (rb_unit_is_rate(x->unit))
        return p->best_hi;
    return track_pool_is_median(x->family) ? median_of(p->lo, p->nlo) : p->best_lo;
}

static void pool_add(pool_run *p, const hist_figures *f)
{
    double lo = f->trial_min, hi = f->trial_max, p50 = f->p50;
    p->n++;
    if (isfinite(lo) && p->nlo < POOL_CELLS_MAX)
        p->lo[p->nlo++] = lo;
    if (isfinite(lo) && !(lo >= p->best_lo))
        p->best_lo = lo;
    if (isfinite(hi) && !(hi <= p->best_hi))
        p->best_hi = hi;
    if (isfinite(p50) && !(p50 <= p->max_p50))
        p->max_p50 = p50;
}

/* A pooled series into c->series (docs/decisions/0032-pooled-headline-figures.md): per run, from every cell of
 * x's family, size and window whose control block is ctrl, or with ctrl NULL (a pooled headline) any but
 * the fallback's device copy, pool_value's figure. A control-block operation does not depend on the
 * mode's transfers or launch, yet a whole trial of it lands slow (between-trial spread 11-22 % in the
 * quick preset, 0.1 % within a trial): the best of one mode's three trials is still slow on one night in
 * ten. The best of all the native modes' trials was within 4 % of its median on each of 12 nights of
 * an H100, but a read's or write's followed the rare trial that lands faster than the rest (a write's
 * 3.1-3.8 ns over the nights of two H200 series, night-to-night spread 5.1 % and 7.6 %); the median of
 * the modes' best trials spread 3.7 % and 2.5 %. Each
 * point gets floor as its standard error. Returns how many cells the newest run's figure was taken
 * from. */
static size_t load_pooled(const judge_ctx *c, const track_judged *x, const char *ctrl, double floor)
{
    blank_series(c->series, c->slow, c->n);
    const hist_select sel = {x->family, (long long)x->size, (long long)x->window, ctrl, fallback_ctrl(), NULL};
    hist_figures *f;
    size_t nf, newest = 0;
    if (hist_pool_cells(c->h, &sel, &f, &nf) != 0) {
        *c->failed = 1;
        return 0;
    }
    for (size_t k = 0; k < nf;) { /* rows come ordered by run */
        const long long run = f[k].run_id;
        pool_run p = {.best_lo = NAN, .best_hi = NAN, .max_p50 = NAN};
        do
            pool_add(&p, &f[k++]);
        while (k < nf && f[k].run_id == run);
        size_t i = pos_of(c->map, c->n, run);
        double v = pool_value(x, &p);
        if (i == (size_t)-1 || !isfinite(v))
            continue;
        c->series[i] = track_floored_point(v, floor);
        if (i == c->n - 1)
            newest = p.n;
    }
    free(f);
    return newest;
}

/* Is x judged beyond the machine's shift? A ring cell, unless --raw; machine references never. */
static int beyond_shift(const judge_ctx *c, const track_judged *x)
{
    return x->role != TRACK_CELL_MACHINE && !c->o->raw;
}

/* Is x an operation of the staged control block (a cb_ cell whose control block is the fallback's
 * device copy)? It is a few blocking cudaMemcpy calls, so it is judged beyond the shift of those calls
 * (refs_common's calls) instead of the machine's. On one H200 series that cut its night-to-night noise
 * from 2.0-2.7 % to 1.3-1.8 % and removed the series' one red night (the driver's calls 4-17 % slower
 * for a run, these cells +9-16 % with them, the machine's references +2 %;
 * docs/decisions/0034-control-block-cells-own-shifts.md). */
static int staged_cb(const track_judged *x) { return strncmp(x->family, "cb_", 3) == 0 && is_fallback_ctrl(x->ctrl); }

/* Is x judged beyond the host's shift (host_paired): a native control-block read or write (one mode's,
 * or their pool), when tonight's run measured host_ref and enough of its baseline did (host_shift)? Such
 * an operation is a few host loads or a store; on a lent H100 whole stretches of a run had every host
 * operation about 1.5x slower, and the write pool's night-to-night spread was 5.6 % as measured, 0.4 %
 * beyond the host's shift (reads 5.9 % and 0.8 %; docs/decisions/0034-control-block-cells-own-shifts.md).
 * Runs of the series without host_ref (older builds) are divided
 * by the machine's shift instead. --p50 judges p50s, and the host's shift is made of best trials: the
 * machine's shift then. */
static int host_judged(const judge_ctx *c, const track_judged *x)
{
    return (strcmp(x->family, "cb_read") == 0 || strcmp(x->family, "cb_write") == 0) && !staged_cb(x) && !c->o->p50 &&
           c->host_ok;
}

/* The host's shift of a native read or write figure into c->hbuf, paired mode by mode: per run, from
 * every cell of family whose control block is ctrl (NULL: any native one) and whose mode is mode (NULL:
 * any), its best trial w and the best trial h of the same mode's host_ref; the figure's host is
 * log(median w / median(w / h)) (one cell: log h), and its shift that against its median over the
 * baseline's runs. A run without the pairs gets the machine's shift. Paired per mode, because the
 * host's slow stretches fall on some modes' control trials and not others': on one H100 series the
 * write pool divided by the median of every native mode's host_ref spread 0.5 %, the median over the
 * modes of each one's ratio 0.4 %, and on another H100's series 2.4 % against 1.5 % (a managed group
 * 3.6 % against 1.6 %, one cell 9.7 % against 5.7 % in the median;
 * docs/decisions/0034-control-block-cells-own-shifts.md). Returns c->hbuf, or NULL when out of memory. */
static const double *host_paired(const judge_ctx *c, const char *family, const char *ctrl, const char *mode)
{
    const size_t n = c->n;
    double w[POOL_CELLS_MAX], r[POOL_CELLS_MAX], *tmp = malloc(n * sizeof *tmp);
    const hist_select sel = {family, -1, -1, ctrl, fallback_ctrl(), mode};
    hist_pair *pr = NULL;
    size_t np = 0;
    if (tmp && hist_paired_cells(c->h, &sel, "host_ref", &pr, &np) != 0)
        *c->failed = 1;
    if (!tmp || *c->failed) {
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        c->hbuf[i] = NAN;
    for (size_t q = 0; q < np;) { /* rows come ordered by run */
        const long long run = pr[q].run_id;
        size_t k = 0;
        do {
            double a = pr[q].a, b = pr[q].b;
            if (a > 0 && b > 0 && k < POOL_CELLS_MAX) {
                w[k] = a;
                r[k++] = a / b;
            }
        } while (++q < np && pr[q].run_id == run);
        size_t i = pos_of(c->map, n, run);
        if (i != (size_t)-1 && k > 0)
            c->hbuf[i] = log(median_of(w, k)) - log(median_of(r, k));
    }
    free(pr);
    const double med = baseline_median(c->hbuf, n, c->o->params.window, tmp, NULL);
    for (size_t i = 0; i < n; i++)
        c->hbuf[i] = isfinite(c->hbuf[i] - med) ? c->hbuf[i] - med : c->common[i];
    free(tmp);
    return c->hbuf;
}

/* The shift divided out of x's figures over the modes of control block ctrl and mode mode (NULL: any
 * native one, any): the host's (host_paired), the cudaMemcpy calls' or the machine's. */
static const double *shift_over(const judge_ctx *c, const track_judged *x, const char *ctrl, const char *mode)
{
    const double *h = host_judged(c, x) ? host_paired(c, x->family, ctrl, mode) : NULL;
    return h ? h : staged_cb(x) ? c->calls : c->common;
}

/* The shift divided out of x beyond_shift: over x's own mode, or for a pool over every native mode. */
static const double *shift_of(const judge_ctx *c, const track_judged *x)
{
    return x->pooled ? shift_over(c, x, NULL, NULL) : shift_over(c, x, x->ctrl, x->mode);
}

/* shift_of's name, for the printout and the export. */
static const char *shift_name(const judge_ctx *c, const track_judged *x)
{
    return host_judged(c, x) ? "host" : staged_cb(x) ? "calls" : "machine";
}

/* Whether tonight's native reads and writes are judged beyond the host's shift (c->host_ok): only when
 * tonight's run has host_ref and at least min_history of its baseline's runs do (a median of one or two
 * runs would shift every night by their noise: upgrading on a night of a slow host would call every
 * read and write); otherwise the machine's shift is used. Tonight's movement of the host_ref pool (per
 * run the median over the native modes of each mode's best host_ref trial, load_pooled) against its
 * baseline median goes to c->host_shift, for the printout. Returns 0, or -1 when out of memory. */
static int host_shift(judge_ctx *c)
{
    const size_t n = c->n;
    double *host = malloc(2 * n * sizeof *host);
    if (!host)
        return -1;
    track_judged x;
    memset(&x, 0, sizeof x);
    snprintf(x.family, sizeof x.family, "host_ref");
    snprintf(x.unit, sizeof x.unit, "us");
    size_t have;
    c->host_cells = load_pooled(c, &x, NULL, TRACK_POOL_FLOOR);
    for (size_t i = 0; i < n; i++)
        host[i] = c->series[i].est > 0 ? log(c->series[i].est) : NAN;
    c->host_tonight = isfinite(host[n - 1]);
    c->host_shift = host[n - 1] - baseline_median(host, n, c->o->params.window, host + n, &have);
    free(host);
    c->host_ok = c->host_tonight && have >= c->o->params.min_history;
    return 0;
}

/* Loads the series of cell x into c->series as measured: a ring cell's figures (best trials where
 * track_best_trial_family says so, unless --p50; a pooled headline's by load_pooled); a machine
 * reference's p50s. */
static void cell_figures(const judge_ctx *c, track_judged *x)
{
    if (x->pooled)
        x->pool_n = load_pooled(c, x, NULL, x->pool_floor);
    else if (load_series(c->h, x, c->map, c->n, c->series, c->slow,
                         x->role != TRACK_CELL_MACHINE && !c->o->p50 && track_best_trial_family(x->family)) != 0)
        *c->failed = 1;
}

/* Judges x's series once loaded: where x->has_raw, both ways, the series x->as_measured names (the
 * figures as measured, else beyond the machine's shift) with |z| >= z_min into *r and the other with
 * |z| >= z_raw into *raw; otherwise its figures as they are into *r. Returns 0, or -1 when a
 * judgement failed (out of memory). */
static int judge_both(const judge_ctx *c, track_judged *x, double z_min, double z_raw, track_result *r,
                      track_result *raw)
{
    track_params p = c->o->params;
    const int rate = rb_unit_is_rate(x->unit);
    int rc = 0;
    cell_figures(c, x);
    if (x->has_raw) {
        p.z_min = x->as_measured ? z_min : z_raw;
        rc |= track_judge(c->series, c->n, rate, &p, x->as_measured ? r : raw);
        track_remove_shift(c->series, c->n, shift_of(c, x), rate);
        p.z_min = x->as_measured ? z_raw : z_min;
        return rc | track_judge(c->series, c->n, rate, &p, x->as_measured ? raw : r);
    }
    p.z_min = z_min;
    rc |= track_judge(c->series, c->n, rate, &p, r);
    return rc;
}

/* Is x one mode's control-block read or write on a native control block (mapped or managed), judged on
 * its best trial? Such an operation is the same host access in every mode with that control block, and
 * a whole trial of it lands fast or slow (on one H200 3.7-3.9 ns a write in a fast trial, 4-7 ns in a
 * slow one, docs/decisions/0034-control-block-cells-own-shifts.md): one mode's three trials all slow is
 * a draw the cell's own history rarely shows, so its change must be confirmed by the median of the
 * best trials of every mode with its control block (ctrl_group_confirms). */
static int ctrl_pooled(const judge_ctx *c, const track_judged *x)
{
    return x->role == TRACK_CELL_RING && !x->pooled && !c->o->p50 && track_pool_is_median(x->family) && x->ctrl[0] &&
           !is_fallback_ctrl(x->ctrl);
}

/* Does x's control-block group (ctrl_pooled) confirm its change: judged into x->grp the way x->r is
 * (per run the median of the group's best trials, load_pooled, each with TRACK_POOL_FLOOR as its
 * standard error, beyond the machine's shift unless --raw), the same way at TRACK_RAW_CONFIRM of the
 * |z| x needs? Judged only for a cell about to be called (apply_budget), not for every cell of the
 * group. A group that cannot be judged leaves x's verdict as it is. */
static int ctrl_group_confirms(const judge_ctx *c, track_judged *x)
{
    track_params p = c->o->params;
    p.z_min = 0.5;
    const int rate = rb_unit_is_rate(x->unit);
    x->grp_n = load_pooled(c, x, x->ctrl, TRACK_POOL_FLOOR);
    if (beyond_shift(c, x))
        track_remove_shift(c->series, c->n, shift_over(c, x, x->ctrl, NULL), rate);
    if (track_judge(c->series, c->n, rate, &p, &x->grp) != 0)
        return 1;
    return x->grp.kind == x->r.kind && fabs(x->grp.z) >= TRACK_RAW_CONFIRM * x->thr;
}

/* First-pass judgement of x on every z (the families' thresholds decide in apply_budget): a ring cell
 * both ways, into x->r the series x->as_measured names and into x->raw the other. */
static void judge_one(const judge_ctx *c, track_judged *x)
{
    x->has_raw = beyond_shift(c, x);
    x->shift = shift_name(c, x);
    judge_both(c, x, 0.5, 0.5, &x->r, &x->raw);
    x->slow_share = c->slow[c->n - 1];
    x->first_run = x->r.first;
}

/* --- the headline figures ---------------------------------------------------------------------- */

/* The figure a cell is chosen by (mark_headline): its baseline, or tonight's figure where no cell of the
 * run has a baseline yet (the first nights of a machine, judged on nothing). */
static double choice_value(const track_judged *x, int by_newest) { return by_newest ? x->r.newest : x->r.baseline; }

/* The cells tonight's pools take their family, size and window from: the best latency at the smallest
 * size, a single cell (its index in *lat, marked a headline: where no pool can be judged it stays one);
 * the best throughput cell at the largest size (*thr) and the best at the smallest size's largest window
 * (*win; the best throughput_procs cell when the run has the leg of run --window-procs); -1: none.
 * "Best" is by the baseline, so the choice does not move with tonight's noise. */
static void mark_headline(track_judged *j, size_t nj, long *lat, long *thr, long *win)
{
    uint64_t smin = UINT64_MAX, smax = 0;
    int by_newest = 1;
    for (size_t i = 0; i < nj; i++) {
        if (strcmp(j[i].family, "latency") == 0 || strcmp(j[i].family, "throughput") == 0) {
            smin = j[i].size < smin ? j[i].size : smin;
            smax = j[i].size > smax ? j[i].size : smax;
        }
        by_newest &= !isfinite(j[i].r.baseline);
    }
    uint64_t wmax = 0;
    int procs = 0; /* the run has the full window measured in fresh processes (run --window-procs) */
    for (size_t i = 0; i < nj; i++) {
        if (strcmp(j[i].family, "throughput") == 0 && j[i].size == smin && j[i].window > wmax)
            wmax = j[i].window;
        procs |= strcmp(j[i].family, "throughput_procs") == 0 && isfinite(choice_value(&j[i], by_newest));
    }
    const char *win_family = procs ? "throughput_procs" : "throughput";
    long best_lat = -1, best_thr = -1, best_win = -1;
    for (size_t i = 0; i < nj; i++) {
        const track_judged *x = &j[i];
        const double v = choice_value(x, by_newest);
        if (!isfinite(v))
            continue;
        if (strcmp(x->family, "latency") == 0 && x->size == smin &&
            (best_lat < 0 || v < choice_value(&j[best_lat], by_newest)))
            best_lat = (long)i;
        if (strcmp(x->family, "throughput") == 0 && x->size == smax &&
            (best_thr < 0 || v > choice_value(&j[best_thr], by_newest)))
            best_thr = (long)i;
        if (strcmp(x->family, win_family) == 0 && (procs || (x->size == smin && x->window == wmax)) &&
            (best_win < 0 || v > choice_value(&j[best_win], by_newest)))
            best_win = (long)i;
    }
    if (best_lat >= 0)
        j[best_lat].role = TRACK_CELL_HEADLINE;
    *lat = best_lat;
    *thr = best_thr;
    *win = best_win;
}

/* Appends the pooled headline figure of family at size and window (unit as its cells') to *j, judged
 * on every z like the cells. Returns 0, or -1 when out of memory. */
static int add_pooled(const judge_ctx *c, track_judged **j, size_t *nj, const char *family, uint64_t size,
                      uint64_t window, const char *unit, double floor, int as_measured)
{
    track_judged *t = realloc(*j, (*nj + 1) * sizeof **j);
    if (!t)
        return -1;
    *j = t;
    track_judged *x = &t[(*nj)++];
    memset(x, 0, sizeof *x);
    if (strcmp(family, "throughput") == 0)
        snprintf(x->cell, sizeof x->cell, "%s/native-best/%s/w%llu", family, rb_size_label(size, (char[32]){0}, 32),
                 (unsigned long long)window);
    else if (strcmp(family, "throughput_procs") == 0)
        snprintf(x->cell, sizeof x->cell, "%s/native-best/%s", family, rb_size_label(size, (char[32]){0}, 32));
    else
        snprintf(x->cell, sizeof x->cell, "%s/native-best", family);
    snprintf(x->unit, sizeof x->unit, "%s", unit);
    snprintf(x->family, sizeof x->family, "%s", family);
    snprintf(x->mode, sizeof x->mode, "native-best");
    x->size = size;
    x->window = window;
    x->role = TRACK_CELL_HEADLINE;
    x->pooled = 1;
    x->pool_floor = floor;
    x->as_measured = as_measured;
    x->thr = NAN;
    judge_one(c, x);
    return 0;
}

/* The pooled headline figures: the smallest size's round trip, the control-block read, write and
 * handshake of the native modes, the throughput at the largest size and the window of its best cell,
 * and the throughput at the smallest size and the full window (the cells mark_headline picks, marking
 * the single headline cell as it goes). The handshake was one cell's p50 (pinned/async/coop/mapped),
 * 3-7 % of noise night to night (a 12-28 % catch) on the committed series. The round trip is pooled
 * and judged as measured: on one H100 series the best cell's noise was 4.8 % (a 19 % catch) and the
 * pool's under its 2.5 % floor (10 %); judged beyond the shift the pool caught 21 % on another, as
 * measured 10 %. The best cell was a headline beside its pool until a later H100 series: its own
 * history, without a floor, had 0.9 % of noise after 7 nights and a +5.3 % night (+7.7 % beyond the
 * shift) went red while the pool held; where the pool is judged, the cell is now an ordinary ring
 * cell (docs/decisions/0032-pooled-headline-figures.md).
 * The pooled round trip, handshake and largest size's throughput are judged as measured and confirmed
 * beyond the machine's shift (as_measured), the others the other way round: those three do not move
 * with the machine's references, and divided by their shift they gained the references' noise -
 * the handshake's pool 1.4 % as measured against 5.6 % on one series, the 1 MiB pool 2.6 % against
 * 6.6 % on another, where reads and writes went the other way (6.3 % and 6.4 % as measured, 3.7 % and
 * 2.5 % beyond the shift; docs/decisions/0033-machine-shift-and-confirmation.md). The choice is
 * fixed here from those series, not made each night: picking for each cell whichever series had the
 * smaller noise in its history would pick, among near equals, the one whose noise was underestimated
 * (simulated 11-run histories: 20-45 % more false alarms a cell). The
 * full window's rate is the host's and varies from ring to ring (CV 13-20 % between fresh rings of one
 * mode on one machine, docs/decisions/0016-replies-verified-over-the-pool.md): judged on the best of its
 * three trials, one cell's night-to-night noise was 12-23 % on the committed series; its pool has a
 * floor of its own (TRACK_POOL_FLOOR_WINDOW). Each process draws a level of that rate that its trials
 * share (docs/decisions/0035-full-window-in-fresh-processes.md), so a run with the leg of run --window-procs
 * (family throughput_procs, one trial per fresh process) is judged on the leg instead: the best of its
 * cells' medians over the processes, with TRACK_POOL_FLOOR; its series holds only the runs that have
 * the leg. --p50 judges cells on their p50s and adds none. */
static int add_pooled_headlines(const judge_ctx *c, track_judged **j, size_t *nj)
{
    static const headline_id cb[] = {HL_CB_READ, HL_CB_WRITE, HL_CB_HANDSHAKE};
    long lat = -1, thr = -1, win = -1;
    mark_headline(*j, *nj, &lat, &thr, &win);
    if (c->o->p50) { /* the single cells, as before pooling: the fastest sides are the best cells */
        if (lat >= 0)
            (*j)[lat].hl_sides |= TRACK_HL_BIT(HL_RT_FASTEST, HL_NATIVE);
        if (win >= 0) {
            (*j)[win].role = TRACK_CELL_HEADLINE;
            (*j)[win].hl_sides |= TRACK_HL_BIT(HL_FULL_WINDOW, HL_NATIVE);
        }
        return 0;
    }
    long native[3] = {-1, -1, -1}; /* a native cell of each control-block family: its size, window and unit */
    for (size_t i = 0; i < *nj; i++)
        for (int k = 0; k < 3; k++)
            if (native[k] < 0 && strcmp((*j)[i].family, rb_family_name(headline_defs[cb[k]].family)) == 0 &&
                !is_fallback_ctrl((*j)[i].ctrl))
                native[k] = (long)i;
    const struct {
        long pick;       /* a cell of the pool: its family, size, window and unit */
        double floor;    /* the floor under the pool's noise */
        int as_measured; /* judged as measured, confirmed beyond the shift */
        headline_id fig; /* the headline figure whose native side it is */
    } pools[] = {
        {lat, TRACK_POOL_FLOOR, 1, HL_RT_FASTEST},         /* the smallest size's round trip */
        {native[0], TRACK_POOL_FLOOR, 0, HL_CB_READ},      /* control-block reads */
        {native[1], TRACK_POOL_FLOOR, 0, HL_CB_WRITE},     /* writes */
        {native[2], TRACK_POOL_FLOOR, 1, HL_CB_HANDSHAKE}, /* the handshake */
        {thr, TRACK_POOL_FLOOR, 1, HL_THR_LARGE},          /* the largest size's throughput */
        /* the smallest size's full window: the leg's best cell where the run has one (its floor is the
         * others': a median of processes, not one process's level), else the best trial of the run's own */
        {win,
         win >= 0 && strcmp((*j)[win].family, "throughput_procs") == 0 ? TRACK_POOL_FLOOR : TRACK_POOL_FLOOR_WINDOW, 0,
         HL_FULL_WINDOW},
    };
    long lat_pool = -1;
    for (size_t k = 0; k < sizeof pools / sizeof pools[0]; k++)
        if (pools[k].pick >= 0) {
            track_judged x = (*j)[pools[k].pick];
            if (add_pooled(c, j, nj, x.family, x.size, x.window, x.unit, pools[k].floor, pools[k].as_measured) != 0)
                return -1;
            (*j)[*nj - 1].hl_sides = TRACK_HL_BIT(pools[k].fig, HL_NATIVE);
            if (k == 0)
                lat_pool = (long)*nj - 1;
        }
    /* Where the runs have best trials the pool is the round trip's headline and its best cell a ring cell
     * like any other; files without them (no pool to judge) keep the cell. */
    if (lat >= 0 && lat_pool >= 0 && isfinite((*j)[lat_pool].r.baseline))
        (*j)[lat].role = TRACK_CELL_RING;
    if (lat >= 0 && !(lat_pool >= 0 && isfinite((*j)[lat_pool].r.newest))) { /* no best trials tonight */
        (*j)[lat].hl_sides |= TRACK_HL_BIT(HL_RT_FASTEST, HL_NATIVE);
        if (lat_pool >= 0)
            (*j)[lat_pool].hl_sides = 0;
    }
    return 0;
}

/* The size of headline figure d in tonight's run as harness/headline.c takes it from a file: the
 * smallest or largest size its family measured (0 for a control-block operation, or when none). */
static uint64_t report_size(const track_judged *j, size_t nj, const headline_def *d)
{
    const char *family = rb_family_name(d->family);
    uint64_t v = 0;
    int any = 0;
    for (size_t i = 0; i < nj && d->size != HL_SIZE_NONE; i++)
        if (!j[i].pooled && strcmp(j[i].family, family) == 0 &&
            (!any++ || (d->size == HL_SIZE_LARGEST ? j[i].size > v : j[i].size < v)))
            v = j[i].size;
    return v;
}

/* The cell of family, mode label and size at its widest window (headline.c find_row); -1 when none. */
static long report_cell(const track_judged *j, size_t nj, const char *family, const char *mode, uint64_t size)
{
    long best = -1;
    for (size_t i = 0; i < nj; i++)
        if (!j[i].pooled && j[i].size == size && strcmp(j[i].family, family) == 0 && strcmp(j[i].mode, mode) == 0 &&
            (best < 0 || j[i].window > j[best].window))
            best = (long)i;
    return best;
}

/* Every side of harness/headline.h's figures that no pool stands for (add_pooled_headlines) is judged on
 * the cell report.md quotes: the claim's native path's or the WSL2 fallback's, at the figure's size and
 * widest window. Each becomes a headline cell with its share of the night's budget and a floor under its
 * noise (TRACK_HEADLINE_FLOOR), and is judged again with it. The native sides of the control-block
 * operations and of the largest size's throughput stay their pools, the steadier measure of the same
 * native operation (docs/decisions/0032-pooled-headline-figures.md); the round trips' native sides are
 * the claim's path's own cells, for its round trip is not the fastest mode's: with --no-early-take the
 * async path's 8 B round trips were 23-28 % slower while the pool held, and the report's fallback / native
 * ratio would have drifted with every night green (docs/decisions/0140-report-figures-are-headline-cells.md).
 * A "fastest" figure's fallback side is the same cell as its other figure's. */
static void mark_report_cells(const judge_ctx *c, track_judged *j, size_t nj)
{
    char label[2][64];
    const mode_spec path[2] = {mode_native(), mode_wsl2_fallback()};
    unsigned taken = 0;
    for (size_t i = 0; i < nj; i++)
        taken |= j[i].hl_sides;
    for (int s = 0; s < 2; s++)
        mode_label(&path[s], label[s], sizeof label[s]);
    for (int k = 0; k < HL_COUNT; k++)
        for (int s = 0; s < 2; s++) {
            const headline_def *d = &headline_defs[k];
            if ((taken & TRACK_HL_BIT(k, s)) || (d->fastest && s == HL_NATIVE))
                continue;
            long i = report_cell(j, nj, rb_family_name(d->family), label[s], report_size(j, nj, d));
            if (i < 0)
                continue;
            track_judged *x = &j[i];
            x->hl_sides |= TRACK_HL_BIT(k, s);
            if (x->role == TRACK_CELL_HEADLINE && x->pool_floor > 0)
                continue; /* judged already, for another figure */
            x->role = TRACK_CELL_HEADLINE;
            x->pool_floor = TRACK_HEADLINE_FLOOR;
            judge_one(c, x);
        }
}

/* night->headline: where each side of each headline figure is among the night's cells (sorted). */
static void index_headlines(track_night *night)
{
    for (int k = 0; k < HL_COUNT; k++)
        night->headline[k][HL_NATIVE] = night->headline[k][HL_FALLBACK] = -1;
    for (size_t i = 0; i < night->ncells; i++)
        for (int k = 0; k < HL_COUNT; k++)
            for (int s = 0; s < 2; s++)
                if (night->cells[i].hl_sides & TRACK_HL_BIT(k, s))
                    night->headline[k][s] = (long)i;
}

/* --- the night: every cell, the false-alarm budget --------------------------------------------- */

/* First pass over the run's ok cells: every z (the families' thresholds decide later). Returns 0, or
 * -1 when out of memory (*j then holds what was judged, for the caller to free). */
static int judge_cells(const judge_ctx *c, long long run_id, track_judged **j, size_t *nj)
{
    hist_cell *cells;
    size_t ncells;
    if (hist_run_cells(c->h, run_id, &cells, &ncells) != 0) {
        *c->failed = 1;
        return -1;
    }
    if (ncells && !(*j = malloc(ncells * sizeof **j))) {
        free(cells);
        return -1;
    }
    for (size_t k = 0; k < ncells; k++) {
        track_judged *x = &(*j)[(*nj)++];
        memset(x, 0, sizeof *x);
        memcpy(x->cell, cells[k].cell, sizeof x->cell);
        memcpy(x->unit, cells[k].unit, sizeof x->unit);
        memcpy(x->family, cells[k].family, sizeof x->family);
        x->size = cells[k].size;
        x->window = cells[k].window;
        memcpy(x->mode, cells[k].mode, sizeof x->mode);
        memcpy(x->ctrl, cells[k].ctrl, sizeof x->ctrl);
        x->role = is_ring_family(x->family) ? TRACK_CELL_RING : TRACK_CELL_MACHINE;
        x->thr = NAN;
        judge_one(c, x);
    }
    free(cells);
    return 0;
}

/* The first run that shows x's change with its family's threshold: on the series it is judged on and,
 * for a cell judged both ways, on the other too at TRACK_RAW_CONFIRM of it (the later of the two, so a
 * night that moved in one series only is never named); with the environment change it coincides with. */
static void find_first_run(const judge_ctx *c, track_judged *x)
{
    track_result again, raw;
    if (judge_both(c, x, x->thr, TRACK_RAW_CONFIRM * x->thr, &again, &raw) == 0) {
        if (again.kind == x->r.kind)
            x->first_run = again.first;
        if (x->has_raw && raw.kind == x->r.kind && raw.first > x->first_run)
            x->first_run = raw.first;
    }
    if (x->first_run > 0)
        track_env_diff(&c->runs[x->first_run - 1], &c->runs[x->first_run], x->coincides, sizeof x->coincides);
}

/* The night's false-alarm budget, family-wise: TRACK_ALPHA_HEADLINE over the headline cells,
 * TRACK_ALPHA_RING over the other ring cells; within a family Bonferroni on a t with the baseline's
 * degrees of freedom. Sets each cell's final kind and counts the kinds. */
static void apply_budget(const judge_ctx *c, track_judged *j, size_t nj, const size_t nfam[3],
                         size_t count[TRACK_KINDS])
{
    const track_options *o = c->o;
    for (size_t i = 0; i < nj; i++) {
        track_judged *x = &j[i];
        if (x->r.kind == TRACK_REGRESSION || x->r.kind == TRACK_IMPROVEMENT) {
            double alpha = x->role == TRACK_CELL_HEADLINE ? TRACK_ALPHA_HEADLINE : TRACK_ALPHA_RING;
            x->thr = track_family_threshold(
                alpha, nfam[x->role == TRACK_CELL_HEADLINE ? TRACK_CELL_HEADLINE : TRACK_CELL_RING], x->r.n_baseline);
            double az = fabs(x->r.z);
            if (x->role == TRACK_CELL_MACHINE)
                x->r.kind = az >= o->params.z_min ? TRACK_WATCH : TRACK_UNCHANGED;
            else if (az < x->thr)
                x->r.kind = az >= o->params.z_min ? TRACK_WATCH : TRACK_UNCHANGED;
            else if (x->bimodal && !isfinite(x->slow_share)) {
                /* One mode tonight, far from the fast one: all its samples may be in the known slow
                 * mode, which the history has seen. A mode flip is watched, not a regression. */
                x->r.kind = TRACK_WATCH;
            } else if (x->has_raw && (x->raw.kind != x->r.kind || fabs(x->raw.z) < TRACK_RAW_CONFIRM * x->thr)) {
                /* A change that the other series (as measured, or beyond the shift where x->as_measured)
                 * does not confirm (TRACK_RAW_CONFIRM): watched, not called. */
                x->r.kind = TRACK_WATCH;
                x->machine_only = 1;
            } else if (ctrl_pooled(c, x) && !ctrl_group_confirms(c, x)) {
                /* One mode's control-block reads or writes moved, the modes with its control block
                 * did not: watched, not called. */
                x->r.kind = TRACK_WATCH;
                x->grp_only = 1;
            } else
                find_first_run(c, x);
        }
        count[x->r.kind]++;
    }
}

static int cmp_change(const void *a, const void *b)
{
    double x = fabs(((const track_judged *)a)->r.change), y = fabs(((const track_judged *)b)->r.change);
    return (x < y) - (x > y);
}

/* The night's buffers: the position of each run's id, the series and the shifts (common: the machine's,
 * then the calls', then host_paired's, n each). Returns 0, or -1 when out of memory (the caller frees
 * what was allocated). */
static int night_buffers(judge_ctx *c, id_pos **map, double **common)
{
    const size_t n = c->n;
    *map = malloc(n * sizeof **map);
    c->series = malloc(n * sizeof *c->series);
    c->slow = malloc(n * sizeof *c->slow);
    *common = malloc(3 * n * sizeof **common); /* and calls and hbuf, after it */
    if (!*map || !c->series || !c->slow || !*common)
        return -1;
    c->calls = *common + n;
    c->hbuf = *common + 2 * n;
    c->common = *common;
    for (size_t i = 0; i < n; i++)
        (*map)[i] = (id_pos){c->runs[i].id, i};
    qsort(*map, n, sizeof **map, cmp_id);
    c->map = *map;
    return 0;
}

/* Every cell of the run judged into night->cells, the budget applied, largest change first. Returns 0, or
 * -1 (out of memory, or *c->failed set). */
static int judge_night(judge_ctx *c, long long run_id, track_night *night)
{
    track_judged *j = NULL;
    size_t nj = 0;
    int rc = host_shift(c) != 0 || judge_cells(c, run_id, &j, &nj) != 0 || add_pooled_headlines(c, &j, &nj) != 0;
    night->cells = j;
    night->ncells = nj;
    if (rc != 0)
        return -1;
    mark_report_cells(c, j, nj);
    for (size_t i = 0; i < nj; i++)
        night->nfam[j[i].role]++;
    apply_budget(c, j, nj, night->nfam, night->count);
    if (*c->failed)
        return -1;
    if (nj > 1) /* j is NULL when the run has no ok cell (one interrupted before its first) */
        qsort(j, nj, sizeof *j, cmp_change);
    index_headlines(night);
    night->host_ok = c->host_ok;
    night->host_tonight = c->host_tonight;
    night->host_shift = c->host_shift;
    night->host_cells = c->host_cells;
    return 0;
}

int track_night_judge(hist *h, long long run_id, const track_options *o, track_night *night, char *err, size_t errlen)
{
    hist_run one;
    int failed = 0;
    judge_ctx c = {.o = o, .h = h, .failed = &failed};
    double *common = NULL;
    id_pos *map = NULL;
    int rc = -1;
    memset(night, 0, sizeof *night);
    index_headlines(night); /* none yet */
    night->o = *o;
    err[0] = '\0';
    if (hist_run_get(h, run_id, &one) != 0) {
        snprintf(err, errlen, "run %lld is not in the index", run_id);
        return -1;
    }
    if (machine_runs(h, run_id, &one, o, &night->runs, &night->n, err, errlen) != 0)
        goto out;
    c.runs = night->runs;
    c.n = night->n;
    if (night_buffers(&c, &map, &common) != 0)
        goto out;
    if (hist_other_machines(h, run_id, &night->other_runs, &night->other_machines) != 0 ||
        machine_shifts(h, map, c.n, o, common, common + c.n, &night->md) != 0) {
        snprintf(err, errlen, "index query: %s", hist_error(h));
        goto out;
    }
    night->shift = common[c.n - 1];
    night->calls_shift = common[2 * c.n - 1];
    if (judge_night(&c, run_id, night) == 0)
        rc = 0;
out:
    if (rc != 0 && failed && !err[0])
        snprintf(err, errlen, "index query: %s", hist_error(h));
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "cannot judge run %lld: out of memory or index error", run_id);
    free(c.series);
    free(c.slow);
    free(common);
    free(map);
    return rc;
}

void track_night_free(track_night *night)
{
    free(night->runs);
    free(night->cells);
    night->runs = NULL;
    night->cells = NULL;
    night->n = night->ncells = 0;
}

double track_night_catch(const track_night *night, const track_judged *x, double *thr)
{
    /* a change must show beyond the shift and as measured (TRACK_RAW_CONFIRM): what both need */
    *thr = track_family_threshold(TRACK_ALPHA_HEADLINE, night->nfam[TRACK_CELL_HEADLINE], x->r.n_baseline);
    double sd = x->has_raw ? fmax(x->r.sd, TRACK_RAW_CONFIRM * x->raw.sd) : x->r.sd;
    return fmax(expm1(*thr * sd), night->o.params.min_effect);
}

const char *track_night_verdict(const track_night *night)
{
    if (night->n <= 1)
        return "new machine";
    if (night->count[TRACK_REGRESSION])
        return "regression";
    if (night->count[TRACK_IMPROVEMENT])
        return "improvement";
    if (night->count[TRACK_NO_HISTORY] && !night->count[TRACK_UNCHANGED] && !night->count[TRACK_WATCH])
        return "not judged yet";
    return "no change";
}

/* --- the export -------------------------------------------------------------------------------- */

/* A cell's judgement on the figures as measured (*m) and beyond the machine's shift (*b): r is the one
 * its verdict came from, raw the other (judged.as_measured says which). */
static void judged_series(const track_judged *x, const track_result **m, const track_result **b)
{
    *m = x->as_measured ? &x->r : &x->raw;
    *b = x->as_measured ? &x->raw : &x->r;
}

/* One judged cell as the export writes it. */
static export_judgement export_row(const track_night *night, const track_judged *x)
{
    const track_result *m, *b;
    judged_series(x, &m, &b);
    return (export_judgement){
        .cell = x->cell,
        .unit = x->unit,
        .verdict = track_kind_name(x->r.kind),
        .newest = x->r.newest,
        .baseline = x->r.baseline,
        .change = x->r.change,
        .change_lo = x->r.change_lo,
        .change_hi = x->r.change_hi,
        .z = x->r.z,
        .baseline_runs = x->r.n_baseline,
        .first_run = night->runs[x->first_run].file,
        .environment_change = x->coincides,
        .both = x->has_raw,
        .change_as_measured = m->change,
        .z_as_measured = m->z,
        .change_beyond_shift = b->change,
        .z_beyond_shift = b->z,
        .as_measured = x->as_measured,
        .shift_only = x->machine_only,
        .this_mode_only = x->grp_only,
        .shift = x->shift,
    };
}

int track_night_export(const track_night *night, const char *path, int json, char *err, size_t errlen)
{
    export_judgement *rows = malloc((night->ncells ? night->ncells : 1) * sizeof *rows);
    if (!rows) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < night->ncells; i++)
        rows[i] = export_row(night, &night->cells[i]);
    const hist_run *newest = &night->runs[night->n - 1];
    int rc = export_judgements(path, json, newest->file, newest->machine, rows, night->ncells, err, errlen);
    free(rows);
    return rc;
}
