/* sensitivity.c - sensitivity_report_write (report.h), what `ringbench sensitivity report DIR` does:
 * the injected-cost sweep (bench/cmd_sensitivity.c) turned into plots and tables (issue 21).
 *
 * DIR holds one results file per injected cost: the plain run (no inject_call_us) and one per target
 * (all calls, copies, queries: the set of kinds with a cost) and cost. For each target, path (the WSL2
 * fallback and the two native paths) and size it draws latency p50 and throughput against the cost,
 * each with its 95% interval, and beside it the arithmetic MODEL (attribution.h): the plain run's p50
 * plus its calls per message x the injected cost, as if every call were serial with the round trip.
 * Where the measurement stays below the model, overlap hides the call (a query made while waiting
 * for the GPU costs nothing extra).
 *
 * The break-even table says, per target, metric, size and native path, how the fallback's slowdown
 * (fallback over native - 1; throughput on time per message) moves through the claim's 10-30% band:
 * up to which injected cost it stays above 30%, where it is inside, from where below 10%, and from
 * where the native path falls behind the fallback (slowdown below 0), with linear interpolation
 * between the measured costs and, per cost, the slowdown with a conservative interval (the ratio of
 * the two rows' interval ends).
 * Exercised by tests/inject_cli.sh (sensitivity) on the CPU backend.
 */
#define _POSIX_C_SOURCE 200809L

#include "report.h"
#include "report_internal.h"
#include "attribution.h"
#include "run_label.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NPATH 3
#define MAXF 128
#define MAXT 8
#define MAXC 16
#define MAXS 8
enum { MET_LAT, MET_TPUT1, MET_TPUTF, NMET };

static const char *const path_color[NPATH] = {"#D62728", "#1F77B4", "#2CA02C"};
static const char *const met_name[NMET] = {"latency p50 (us)", "throughput, window 1 (msg/s)",
                                           "throughput, full window (msg/s)"};
static const char *const met_short[NMET] = {"latency", "throughput w1", "throughput full"};

/* Path p of the sweep (p < NPATH): the WSL2 fallback, the native path, and the native path with its
 * rings in mapped pinned memory (zero-copy). */
static mode_spec sens_path(int p)
{
    mode_spec m = mode_path_spec(p == 0 ? MODE_PATH_FALLBACK : MODE_PATH_NATIVE);
    if (p == 2)
        m.v[RB_AXIS_XFER] = RB_XFER_ZEROCOPY;
    return m;
}

char *sensitivity_modes(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int p = 0; p < NPATH && len < n; p++) {
        char label[64];
        const mode_spec m = sens_path(p);
        len += (size_t)snprintf(buf + len, n - len, "%s%s", p ? "," : "", mode_label(&m, label, sizeof label));
    }
    return buf;
}

typedef struct sens_file {
    report_run run;
    double us[CC_KIND_COUNT]; /* injected cost per kind */
    int target;               /* index into targets, -1 for the plain run */
    double cost;
} sens_file;

typedef struct sens {
    sens_file f[MAXF];
    size_t nf;
    int base; /* the plain run's index */
    char tname[MAXT][96];
    unsigned tmask[MAXT];
    size_t nt;
    double costs[MAXC]; /* ascending, 0 first */
    size_t nc;
    uint64_t sizes[MAXS];
    size_t ns;
    mode_spec path[NPATH];
    char path_label[NPATH][64]; /* the paths' labels, "malloc/sync/noncoop/device" */
} sens;

/* A measured value: p50 with its interval, in the metric's unit (us, msg/s), and the MODEL. */
typedef struct point {
    double v, lo, hi, model;
} point;

// --- loading ------------------------------------------------------------------------------------------

static void target_name(unsigned mask, char *buf, size_t n)
{
    const unsigned all = (1u << CC_KIND_COUNT) - 1, copies = 1u << CC_MEMCPY | 1u << CC_MEMCPY_ASYNC,
                   queries = 1u << CC_EVENT_QUERY | 1u << CC_STREAM_QUERY;
    size_t len = 0;
    if (mask == all || mask == copies || mask == queries) {
        snprintf(buf, n, "%s", mask == all ? "all" : mask == copies ? "copies" : "queries");
        return;
    }
    buf[0] = '\0';
    for (int k = 0; k < CC_KIND_COUNT && len < n; k++)
        if (mask >> k & 1u)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "+" : "", cc_kind_name((cc_kind)k));
}

static int add_sorted(double *v, size_t *n, size_t max, double x)
{
    size_t i = 0;
    while (i < *n && v[i] < x)
        i++;
    if (i < *n && v[i] == x)
        return 0;
    if (*n == max)
        return -1;
    memmove(v + i + 1, v + i, (*n - i) * sizeof *v);
    v[i] = x;
    (*n)++;
    return 0;
}

/* Classifies file i by its injected costs: its target (the kinds it slowed) and its cost. */
static int classify(sens *S, size_t i, char *err, size_t errlen)
{
    sens_file *f = &S->f[i];
    const char *spec = report_prov(&f->run, RB_PROV_INJECT_CALL_US);
    unsigned mask = 0;
    f->cost = 0;
    if (spec[0] && cc_inject_parse(spec, f->us, err, errlen) != 0)
        return -1;
    if (!spec[0])
        memset(f->us, 0, sizeof f->us);
    for (int k = 0; k < CC_KIND_COUNT; k++)
        if (f->us[k] > 0) {
            mask |= 1u << k;
            f->cost = f->us[k] > f->cost ? f->us[k] : f->cost;
        }
    f->target = -1;
    if (!mask) {
        if (S->base < 0)
            S->base = (int)i;
        return 0;
    }
    size_t t = 0;
    while (t < S->nt && S->tmask[t] != mask)
        t++;
    if (t == S->nt) {
        if (S->nt == MAXT) {
            snprintf(err, errlen, "more than %d injection targets in one directory", MAXT);
            return -1;
        }
        S->tmask[t] = mask;
        target_name(mask, S->tname[t], sizeof S->tname[t]);
        S->nt++;
    }
    f->target = (int)t;
    if (add_sorted(S->costs, &S->nc, MAXC, f->cost) != 0) {
        snprintf(err, errlen, "more than %d injected costs", MAXC);
        return -1;
    }
    return 0;
}

static int load(sens *S, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) {
        snprintf(err, errlen, "%s: cannot open the directory", dir);
        return -1;
    }
    S->base = -1;
    S->costs[0] = 0;
    S->nc = 1;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".h5") != 0 || S->nf == MAXF)
            continue;
        char why[512], *path = outfs_path("%s/%s", dir, e->d_name);
        int opened = path != NULL && report_run_open(&S->f[S->nf].run, path, why, sizeof why) == 0;
        if (!opened)
            fprintf(stderr, "ringbench sensitivity report: skipped: %s\n", path ? why : "out of memory");
        free(path);
        if (!opened)
            continue;
        if (classify(S, S->nf, err, errlen) != 0) {
            report_run_close(&S->f[S->nf].run);
            closedir(d);
            return -1;
        }
        S->nf++;
    }
    closedir(d);
    if (S->base < 0 || S->nt == 0) {
        snprintf(err, errlen, "%s: needs the plain run and at least one injected run (ringbench sensitivity run)", dir);
        return -1;
    }
    uint64_t *sz = NULL;
    size_t n = report_sizes(&S->f[S->base].run, RB_FAM_LATENCY, &sz);
    for (size_t i = 0; i < n && S->ns < MAXS; i++)
        S->sizes[S->ns++] = sz[i];
    free(sz);
    for (int p = 0; p < NPATH; p++) {
        S->path[p] = sens_path(p);
        mode_label(&S->path[p], S->path_label[p], sizeof S->path_label[p]);
    }
    return 0;
}

static const sens_file *file_at(const sens *S, size_t t, double cost)
{
    if (cost == 0)
        return &S->f[S->base];
    for (size_t i = 0; i < S->nf; i++)
        if (S->f[i].target == (int)t && S->f[i].cost == cost)
            return &S->f[i];
    return NULL;
}

// --- values -------------------------------------------------------------------------------------------

static const rb_row *row_of(const sens_file *f, int met, const mode_spec *m, uint64_t size)
{
    long i = met == MET_LAT
                 ? report_find_window(&f->run, RB_FAM_LATENCY, m, size, 1)
                 : report_find_window(&f->run, RB_FAM_THROUGHPUT, m, size, met == MET_TPUT1 ? 1 : REPORT_WINDOW_FULL);
    const rb_row *r = i >= 0 ? report_row(&f->run, (size_t)i) : NULL;
    return r && report_row_ok(r) ? r : NULL;
}

/* The injected cost's vector for target t at cost c. */
static void target_us(const sens *S, size_t t, double c, double us[CC_KIND_COUNT])
{
    for (int k = 0; k < CC_KIND_COUNT; k++)
        us[k] = S->tmask[t] >> k & 1u ? c : 0;
}

/* Path p at size s under target t and cost c: the measurement and the MODEL from the plain run. */
static point value(const sens *S, size_t t, int met, int p, uint64_t size, double c)
{
    point pt = {NAN, NAN, NAN, NAN};
    const sens_file *f = file_at(S, t, c);
    const rb_row *r = f ? row_of(f, met, &S->path[p], size) : NULL,
                 *r0 = row_of(&S->f[S->base], met, &S->path[p], size);
    const double per_gbs = 1e9 / (double)size; /* GB/s -> msg/s */
    if (r && met == MET_LAT)
        pt = (point){r->p50, r->ci_lo, r->ci_hi, NAN};
    else if (r)
        pt = (point){r->p50 * per_gbs, r->ci_lo * per_gbs, r->ci_hi * per_gbs, NAN};
    double us[CC_KIND_COUNT], calls[CC_KIND_COUNT], add = 0;
    target_us(S, t, c, us);
    if (!r0 || !attr_row_calls(r0, calls))
        return pt;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        add += calls[k] * us[k];
    if (met == MET_LAT)
        pt.model = r0->p50 + add;
    else /* a message's time at the plain rate, plus its calls' injected cost, all serial */
        pt.model = 1e6 / (1e6 / (r0->p50 * per_gbs) + add);
    return pt;
}

/* num / den - 1 with the conservative interval of two positive intervals. A bound that is not
 * positive (a very wide cell interval, widened for few trials, can reach below 0) leaves that side
 * open: -100% below, +inf above, never a reversed or impossible interval. */
static void ratio_interval(point num, point den, double *v, double *lo, double *hi)
{
    *v = num.v / den.v - 1;
    *lo = num.lo > 0 && den.hi > 0 && isfinite(den.hi) ? num.lo / den.hi - 1 : -1;
    *hi = den.lo > 0 && isfinite(num.hi) ? num.hi / den.lo - 1 : INFINITY;
}

/* Slowdown of the fallback against native path p: time (latency, or time per message) of the
 * fallback over the native one, minus 1, with a conservative interval from the two intervals. */
static void slowdown(const sens *S, size_t t, int met, int p, uint64_t size, double c, double *v, double *lo,
                     double *hi)
{
    point fb = value(S, t, met, 0, size, c), na = value(S, t, met, p, size, c);
    if (met == MET_LAT)
        ratio_interval(fb, na, v, lo, hi);
    else
        ratio_interval(na, fb, v, lo, hi);
}

// --- plots --------------------------------------------------------------------------------------------

static int write_dat(const sens *S, const char *dir, int met, const char *name, char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, name, err, errlen) != 0)
        return -1;
    fprintf(rf.f,
            "# %s against the injected cost per call; one block per (target, size, path), in that order\n"
            "# cost_us p50 ci_lo ci_hi model\n",
            met_name[met]);
    for (size_t t = 0; t < S->nt; t++)
        for (size_t s = 0; s < S->ns; s++)
            for (int p = 0; p < NPATH; p++) {
                fprintf(rf.f, "# target %s, size %llu, %s\n", S->tname[t], (unsigned long long)S->sizes[s],
                        S->path_label[p]);
                for (size_t c = 0; c < S->nc; c++) {
                    point pt = value(S, t, met, p, S->sizes[s], S->costs[c]);
                    fprintf(rf.f, "%g %.6g %.6g %.6g %.6g\n", S->costs[c], pt.v, pt.lo, pt.hi, pt.model);
                }
                fputs("\n\n", rf.f);
            }
    return report_file_close(&rf, err, errlen);
}

static int write_gp(const sens *S, const char *dir, int met, const char *stem, const char *dat, const char *title,
                    char *err, size_t errlen)
{
    char name[64], sz[32];
    snprintf(name, sizeof name, "%s.gp", stem);
    report_file rf;
    if (report_file_open(&rf, dir, name, err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    const int w = (int)(460 * S->ns + 80);
    report_canvas cv = {w > 1400 ? w : 1400, (int)(380 * S->nt + 160)};
    report_gp_begin(gp, stem, met_name[met], cv);
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fprintf(gp,
            " font ',14' layout %zu,%zu\nset logscale y\nset xlabel 'injected cost per call (us)'\n"
            "set key top left font ',9'\nset ylabel '%s'\n",
            S->nt, S->ns, met_name[met]);
    for (size_t t = 0; t < S->nt; t++)
        for (size_t s = 0; s < S->ns; s++) {
            fprintf(gp, "set title 'calls slowed: %s, %s' font ',13'\nplot ", S->tname[t],
                    report_size_str(S->sizes[s], sz, sizeof sz));
            for (int p = 0; p < NPATH; p++) {
                const size_t b = (t * S->ns + s) * NPATH + (size_t)p;
                fprintf(gp,
                        "%s'%s' index %zu using 1:2:3:4 with yerrorlines lc rgb '%s' pt 7 lw 2 title '%s', \\\n"
                        "  '' index %zu using 1:5 with lines dt 2 lc rgb '%s' lw 1.5 %s",
                        p ? ", \\\n  " : "", dat, b, path_color[p], S->path_label[p], b, path_color[p],
                        p + 1 == NPATH ? "title 'dashed: MODEL, in the path colour'" : "notitle");
            }
            fputs("\n", gp);
        }
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

// --- tables -------------------------------------------------------------------------------------------

static void zone_cell(FILE *md, double from, double to, int open_end, double maxc)
{
    if (!isfinite(from))
        fputs(" - |", md);
    else if (open_end && from == maxc)
        fprintf(md, " %g+ us |", from);
    else if (open_end)
        fprintf(md, " %g-%g+ us |", from, maxc);
    else if (from == to)
        fprintf(md, " %g us |", from);
    else
        fprintf(md, " %g-%g us |", from, to);
}

/* Where the slowdown crosses level y between two measured costs (linear), or NaN. */
static double crossing(double c0, double v0, double c1, double v1, double y)
{
    if (!isfinite(v0) || !isfinite(v1) || (v0 - y) * (v1 - y) > 0 || v0 == v1)
        return NAN;
    return c0 + (y - v0) * (c1 - c0) / (v1 - v0);
}

/* The first cost at which curve v crosses level y (interpolated), or NaN; *falling says its way. */
static double first_crossing(const double *costs, const double *v, size_t n, double y, int *falling)
{
    for (size_t c = 1; c < n; c++) {
        const double x = crossing(costs[c - 1], v[c - 1], costs[c], v[c], y);
        if (isfinite(x)) {
            *falling = v[c] < v[c - 1];
            return x;
        }
    }
    return NAN;
}

/* Where one end of the interval crosses level y the way the estimate did: its first crossing; 0 when
 * it is past y already at the first cost; +inf when it does not get there within the measured costs. */
static double end_crossing(const double *costs, const double *e, size_t n, double y, int falling)
{
    int f;
    const double x = first_crossing(costs, e, n, y, &f);
    if (isfinite(x))
        return x;
    return isfinite(e[0]) && (falling ? e[0] < y : e[0] > y) ? costs[0] : INFINITY;
}

/* One crossing cell: the point estimate's crossing with its way, and in brackets where the two ends
 * of the interval cross: its spread (">MAX": that end does not get there within the costs). */
static void crossing_cell(FILE *md, const double *costs, size_t n, const double *v, const double *lo, const double *hi,
                          double y)
{
    int fall = 0;
    const double x = first_crossing(costs, v, n, y, &fall);
    if (!isfinite(x)) {
        fputs(" - |", md);
        return;
    }
    double a = end_crossing(costs, lo, n, y, fall), b = end_crossing(costs, hi, n, y, fall);
    if (a > b) {
        const double t = a;
        a = b;
        b = t;
    }
    fprintf(md, " ~%.2g us %s [", x, fall ? "falling" : "rising");
    isfinite(a) ? fprintf(md, "%.2g, ", a) : fprintf(md, ">%g, ", costs[n - 1]);
    isfinite(b) ? fprintf(md, "%.2g] |", b) : fprintf(md, ">%g] |", costs[n - 1]);
}

static void breakeven_md(FILE *md, const sens *S)
{
    char sz[32], buf[96];
    const double maxc = S->costs[S->nc - 1];
    fprintf(
        md,
        "\n## Break-even: where the fallback's slowdown sits against the claimed " VERDICT_CLAIM_FMT "\n\n"
        "Slowdown = fallback over native - 1 (latency; throughput on time per message). Cost ranges are "
        "the measured costs whose slowdown point falls in the zone (above " VERDICT_CLAIM_HI_FMT
        ", inside, below " VERDICT_CLAIM_LO_FMT " including "
        "below 0, where the native path is the slower); a line crossed is the first crossing, interpolated "
        "linearly between measured costs, falling (the fallback catches up) or rising (\"-\": not crossed "
        "within %g us), then in brackets where the two ends of the slowdown's interval cross it: its "
        "spread (0: that end is past the line already without injection; >MAX: it does not get there). The table after it gives every slowdown with "
        "its interval (the ratio of the two rows' 95%% interval ends: conservative).\n\n"
        "| calls slowed | metric | size | native path | at 0 us | above " VERDICT_CLAIM_HI_FMT
        " | inside " VERDICT_CLAIM_FMT " | below " VERDICT_CLAIM_LO_FMT " | crosses " VERDICT_CLAIM_HI_FMT
        " at | crosses " VERDICT_CLAIM_LO_FMT " at | crosses 0 at (falling: the native path falls behind) |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        maxc);
    for (size_t t = 0; t < S->nt; t++)
        for (int met = 0; met < NMET; met++)
            for (size_t s = 0; s < S->ns; s++)
                for (int p = 1; p < NPATH; p++) {
                    double v[MAXC] = {NAN}, lo[MAXC], hi[MAXC];
                    double zf[3] = {NAN, NAN, NAN}, zt[3] = {NAN, NAN, NAN};
                    int zopen[3] = {0, 0, 0};
                    for (size_t c = 0; c < S->nc; c++) {
                        slowdown(S, t, met, p, S->sizes[s], S->costs[c], &v[c], &lo[c], &hi[c]);
                        if (!isfinite(v[c]))
                            continue;
                        const int z = v[c] > REPORT_CLAIM_HI ? 0 : v[c] >= REPORT_CLAIM_LO ? 1 : 2;
                        if (!isfinite(zf[z]))
                            zf[z] = S->costs[c];
                        zt[z] = S->costs[c];
                        zopen[z] = c + 1 == S->nc;
                    }
                    if (!isfinite(v[0]) && !isfinite(zf[0]) && !isfinite(zf[1]) && !isfinite(zf[2]))
                        continue;
                    fprintf(md, "| %s | %s | %s | %s | %s |", S->tname[t], met_short[met],
                            report_size_str(S->sizes[s], sz, sizeof sz), S->path_label[p],
                            isfinite(v[0]) ? (snprintf(buf, sizeof buf, "%+.0f%%", 100 * v[0]), buf) : "n/a");
                    for (int z = 0; z < 3; z++)
                        zone_cell(md, zf[z], zt[z], zopen[z], maxc);
                    static const double level[3] = {REPORT_CLAIM_HI, REPORT_CLAIM_LO, 0};
                    for (int i = 0; i < 3; i++)
                        crossing_cell(md, S->costs, S->nc, v, lo, hi, level[i]);
                    fputs("\n", md);
                }
    fputs("\n### Every slowdown with its interval\n\n| calls slowed | metric | size | native path |", md);
    for (size_t c = 0; c < S->nc; c++)
        fprintf(md, " %g us |", S->costs[c]);
    fputs("\n| --- | --- | --- | --- |", md);
    for (size_t c = 0; c < S->nc; c++)
        fputs(" --- |", md);
    fputs("\n", md);
    for (size_t t = 0; t < S->nt; t++)
        for (int met = 0; met < NMET; met++)
            for (size_t s = 0; s < S->ns; s++)
                for (int p = 1; p < NPATH; p++) {
                    fprintf(md, "| %s | %s | %s | %s |", S->tname[t], met_short[met],
                            report_size_str(S->sizes[s], sz, sizeof sz), S->path_label[p]);
                    for (size_t c = 0; c < S->nc; c++) {
                        double v, lo, hi;
                        slowdown(S, t, met, p, S->sizes[s], S->costs[c], &v, &lo, &hi);
                        if (isfinite(v))
                            fprintf(md, " %+.0f%% [%+.0f, %+.0f] |", 100 * v, 100 * lo, 100 * hi);
                        else
                            fputs(" n/a |", md);
                    }
                    fputs("\n", md);
                }
}

static void model_md(FILE *md, const sens *S)
{
    char sz[32];
    const double maxc = S->costs[S->nc - 1];
    fprintf(md,
            "\n## Measured against the MODEL (latency, at %g us per call)\n\n"
            "MODEL = the plain run's p50 + its calls per message x the injected cost (every call serial "
            "with the round trip). measured/MODEL below 1: that share of the calls' cost was hidden by "
            "overlap (calls made while waiting for the GPU anyway); above 1: the cost did more than the "
            "calls' sum (e.g. more polling calls once each got dearer).\n\n"
            "| calls slowed | path | size | p50 at 0 us | p50 measured | p50 MODEL | added, measured | added, "
            "MODEL | measured / MODEL |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
            maxc);
    for (size_t t = 0; t < S->nt; t++)
        for (int p = 0; p < NPATH; p++)
            for (size_t s = 0; s < S->ns; s++) {
                point z = value(S, t, MET_LAT, p, S->sizes[s], 0), m = value(S, t, MET_LAT, p, S->sizes[s], maxc);
                const double dm = m.v - z.v, dp = m.model - z.v;
                fprintf(md, "| %s | %s | %s | %s |", S->tname[t], S->path_label[p],
                        report_size_str(S->sizes[s], sz, sizeof sz), report_num(z.v));
                fprintf(md, " %s |", report_num(m.v));
                fprintf(md, " %s |", report_num(m.model));
                fprintf(md, " %s |", report_num(dm));
                fprintf(md, " %s |", report_num(dp));
                /* Below 1% of one call's cost the MODEL adds nothing: no ratio to speak of. */
                fprintf(md, " %s |\n", dp > 0.01 * maxc ? report_num(dm / dp) : "n/a (no calls slowed)");
            }
}

// --- the command --------------------------------------------------------------------------------------

static int write_md(const sens *S, const char *dir, const char *in, char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, "sensitivity.md", err, errlen) != 0)
        return -1;
    FILE *md = rf.f;
    const report_run *b = &S->f[S->base].run;
    fputs("# ringbench sensitivity: the fallback and the native paths against a per-call cost\n\n", md);
    report_notes_md(md, b, "the plain run");
    fprintf(md,
            "> **INJECTED:** every run here but the plain one spent the given time in a busy wait before each "
            "counted CUDA call of the slowed kinds (`ringbench run --inject-call-us`). These curves say what a "
            "dearer call *would* do on this machine (%s); they are not a WSL2 measurement. A WSL2 user reads "
            "their own per-call costs from `ringbench probe` and finds the answer on these curves.\n\n",
            report_prov(b, "gpu_name")[0] ? report_prov(b, "gpu_name") : "no GPU");
    fputs("Files: `", md);
    report_md_text(md, in);
    fprintf(md, "`, %zu runs; the plain run at commit `", S->nf);
    report_md_text(md, report_prov(b, "git_commit"));
    fprintf(md, "`, backend %s. Calls slowed:", b->backend);
    for (size_t t = 0; t < S->nt; t++)
        fprintf(md, " %s%s", S->tname[t], t + 1 < S->nt ? "," : ";");
    fputs(" costs (us per call):", md);
    for (size_t c = 0; c < S->nc; c++)
        fprintf(md, " %g", S->costs[c]);
    fputs(".\n\n![latency against the injected cost](sens_latency.png)\n\n"
          "![throughput against the injected cost](sens_throughput.png)\n\n"
          "Solid: measured p50 with its 95% interval; dashed: the MODEL. Each plot has an SVG twin and a gnuplot "
          "script.\n",
          md);
    breakeven_md(md, S);
    model_md(md, S);
    return report_file_close(&rf, err, errlen);
}

/* The report's files into dir (its staging folder). Returns 0, or -1 with err set. */
static int sensitivity_files(sens *S, const char *dir, const char *in, char *err, size_t errlen)
{
    char title[512];
    const report_run *b = &S->f[S->base].run;
    const int cpu = strcmp(b->backend, "cuda") != 0;
    static const char *const stems[2] = {"sens_latency", "sens_throughput"};
    for (int i = 0; i < 2; i++) {
        const int met = i ? MET_TPUTF : MET_LAT;
        char dat[64];
        snprintf(dat, sizeof dat, "%s.dat", stems[i]);
        snprintf(title, sizeof title, "%s against an INJECTED per-call cost, MODEL dashed - %s",
                 i ? "Throughput (full window)" : "Round-trip latency",
                 cpu ? "CPU REFERENCE BACKEND, not GPU numbers" : report_prov(b, "gpu_name"));
        if (write_dat(S, dir, met, dat, err, errlen) != 0 ||
            write_gp(S, dir, met, stems[i], dat, title, err, errlen) != 0)
            return -1;
    }
    if (write_dat(S, dir, MET_TPUT1, "sens_throughput_w1.dat", err, errlen) != 0 ||
        write_md(S, dir, in, err, errlen) != 0 ||
        report_label_headings(dir, "sensitivity.md", "INJECTED per-call costs (a what-if sweep)", err, errlen) != 0)
        return -1;
    return 0;
}

int sensitivity_report_write(const char *in, const report_opts *opts)
{
    static const char *const scripts[] = {"sens_latency.gp", "sens_throughput.gp", NULL};
    const report_opts o = *opts;
    char err[REPORT_PATH_MAX + 512];
    int rc;
    sens *S = calloc(1, sizeof *S);
    if (!S) {
        fprintf(stderr, "ringbench sensitivity report: out of memory\n");
        return 1;
    }
    rc = 2;
    if (load(S, in, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench sensitivity report: %s\n", err);
        goto out;
    }
    char *def = outfs_path("%s/report", in), *md = NULL;
    outfs_dir d;
    report_watch(o.stop);
    if (def != NULL && report_dir_begin(&d, "sensitivity report", o.out_dir ? o.out_dir : def, in, "") == 0) {
        md = outfs_path("%s/sensitivity.md", d.path);
        int ok = md != NULL && sensitivity_files(S, d.stage, in, err, sizeof err) == 0;
        if (!ok && !report_stopped())
            fprintf(stderr, "ringbench sensitivity report: %s\n", md ? err : "out of memory");
        ok = ok && report_render("sensitivity report", d.stage, scripts, o.render) == 0;
        rc = report_dir_end(&d, "sensitivity report", ok) == 0 ? 0 : 1;
        if (rc == 0)
            printf("ringbench sensitivity report: wrote %s\n", md);
    }
    report_watch(NULL);
    free(def);
    free(md);
out:
    for (size_t i = 0; i < S->nf; i++)
        report_run_close(&S->f[i].run);
    free(S);
    return rc;
}
