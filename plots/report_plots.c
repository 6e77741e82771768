/* report_plots.c - the data files and gnuplot scripts of `ringbench report`, one function per plot:
 *   latency.gp       (a) latency p50 against size, one panel per control block, floor and launch
 *   latency_dist.gp  (b) latency percentiles from the raw samples at the smallest, a middle and the
 *                        largest size: where the tail lives
 *   throughput.gp    (c) throughput p50 against size, with the memcpy bandwidths
 *   heatmap.gp       (d) every mode x size relative to the best native-path mode at that size
 *   cb.gp            (e) control-block operation and lifecycle latency per mode, grouped by control block
 * Every file is a name of ours inside the report directory; every script re-runs by hand there.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_plots.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NREFS_MAX 4

void report_plot_title(char *buf, size_t n, const report_run *run, const char *what)
{
    const char *gpu = report_prov(run, "gpu_name");
    char label[512];
    if (strcmp(run->backend, "cuda") != 0)
        snprintf(buf, n, "%s - CPU REFERENCE BACKEND, not GPU numbers", what);
    else
        snprintf(buf, n, "%s - %s%s", what, gpu[0] ? gpu : "GPU", run->complete ? "" : " (INCOMPLETE RUN)");
    report_label_of(run, label, sizeof label); /* INJECTED / LIMITS APPLIED (issue 21) */
    report_label_title(buf, n, label);
}

// --- (a) and (c): a value against size for every mode -------------------------------------------------

typedef struct wide_ref {
    rb_family fam;
    int constant; /* one value for all sizes (base_floor, measured at one size) */
    const char *title, *style;
} wide_ref;

/* p50 of family f per size and mode into DIR/name: col 1 size, col 2+k mode k, then the references. */
static int write_wide(const report_run *run, const char *dir, const char *name, rb_family f, const wide_ref *refs,
                      size_t nrefs, unsigned char *has, report_ref *out_refs, size_t *nout, uint64_t **sizes,
                      size_t *ns, char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, name, err, errlen) != 0)
        return -1;
    *ns = report_sizes(run, f, sizes);
    double refval[NREFS_MAX];
    int refhas[NREFS_MAX] = {0};
    memset(has, 0, RB_MODE_COUNT);
    fprintf(rf.f, "# %s p50 (%s) per message size; column 1 size_bytes, then one column per mode:\n# size_bytes",
            rb_family_name(f), rb_family_unit(f));
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        fprintf(rf.f, " %s", report_mode_str(&m));
    }
    for (size_t r = 0; r < nrefs; r++)
        fprintf(rf.f, " %s", rb_family_name(refs[r].fam));
    fputs("\n", rf.f);
    for (size_t r = 0; r < nrefs; r++) {
        /* A constant reference is the single ok row of its family, whatever its size. */
        refval[r] = NAN;
        for (size_t i = 0; refs[r].constant && i < report_nrows(run); i++)
            if (report_row_family(report_row(run, i)) == (int)refs[r].fam && report_row_ok(report_row(run, i)))
                refval[r] = report_row(run, i)->p50;
    }
    for (size_t s = 0; s < *ns; s++) {
        fprintf(rf.f, "%llu", (unsigned long long)(*sizes)[s]);
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            long i = report_find(run, f, &m, (*sizes)[s]);
            double v = i >= 0 && report_row_ok(report_row(run, (size_t)i)) ? report_row(run, (size_t)i)->p50 : NAN;
            has[k] |= isfinite(v);
            fprintf(rf.f, " %.9g", v);
        }
        for (size_t r = 0; r < nrefs; r++) {
            double v = refval[r];
            if (!refs[r].constant) {
                long i = report_find(run, refs[r].fam, NULL, (*sizes)[s]);
                v = i >= 0 && report_row_ok(report_row(run, (size_t)i)) ? report_row(run, (size_t)i)->p50 : NAN;
            }
            refhas[r] |= isfinite(v);
            fprintf(rf.f, " %.9g", v);
        }
        fputs("\n", rf.f);
    }
    *nout = 0;
    for (size_t r = 0; r < nrefs; r++)
        if (refhas[r])
            out_refs[(*nout)++] = (report_ref){(int)(2 + RB_MODE_COUNT + r), refs[r].title, refs[r].style};
    return report_file_close(&rf, err, errlen);
}

static int write_script_facet(const char *dir, const char *stem, const char *what, const report_facet *p, char *err,
                              size_t errlen)
{
    report_file rf;
    char name[64];
    snprintf(name, sizeof name, "%s.gp", stem);
    if (report_file_open(&rf, dir, name, err, errlen) != 0)
        return -1;
    report_gp_begin(rf.f, stem, what, (report_canvas){REPORT_FACET_W, REPORT_FACET_H});
    report_gp_facet(rf.f, p);
    report_gp_end(rf.f);
    return report_file_close(&rf, err, errlen);
}

int report_plot_latency(const report_run *run, const char *dir, char *err, size_t errlen)
{
    static const wide_ref refs[] = {
        {RB_FAM_BASE_FLOOR, 1, "base_floor: persistent one-word ping-pong (round-trip floor)",
         "lc rgb '#000000' lw 2 dt 3"},
        {RB_FAM_BASE_LAUNCH, 0, "base_launch: one kernel launch per message", "lc rgb '#555555' lw 3 dt 1"},
        {RB_FAM_BASE_GRAPH, 0, "base_graph: one CUDA graph launch per message", "lc rgb '#999999' lw 3 dt 1"},
    };
    unsigned char has[RB_MODE_COUNT];
    report_ref out[NREFS_MAX];
    size_t nout = 0, ns = 0;
    uint64_t *sizes = NULL;
    char title[256];
    int rc =
        write_wide(run, dir, "latency_p50.dat", RB_FAM_LATENCY, refs, 3, has, out, &nout, &sizes, &ns, err, errlen);
    report_plot_title(title, sizeof title, run, "Round-trip latency p50 per message size");
    report_facet p = {title,
                      "latency p50 (us, log scale)",
                      "latency_p50.dat",
                      has,
                      sizes,
                      ns,
                      1,
                      out,
                      nout,
                      NULL,
                      "lower is better; grey and black lines: baselines measured in the same run"};
    if (rc == 0)
        rc = write_script_facet(dir, "latency", "latency p50 against message size, one panel per control block", &p,
                                err, errlen);
    free(sizes);
    return rc;
}

int report_plot_throughput(const report_run *run, const char *dir, char *err, size_t errlen)
{
    static const wide_ref refs[] = {
        {RB_FAM_MEMCPY_H2D_PINNED, 0, "cudaMemcpy H2D pinned", "lc rgb '#000000' lw 2 dt 1"},
        {RB_FAM_MEMCPY_D2H_PINNED, 0, "cudaMemcpy D2H pinned", "lc rgb '#000000' lw 2 dt 3"},
        {RB_FAM_MEMCPY_H2D_PAGEABLE, 0, "cudaMemcpy H2D pageable", "lc rgb '#999999' lw 2 dt 1"},
        {RB_FAM_MEMCPY_D2H_PAGEABLE, 0, "cudaMemcpy D2H pageable", "lc rgb '#999999' lw 2 dt 3"},
    };
    unsigned char has[RB_MODE_COUNT];
    report_ref out[NREFS_MAX];
    size_t nout = 0, ns = 0;
    uint64_t *sizes = NULL;
    char title[256];
    int rc = write_wide(run, dir, "throughput_p50.dat", RB_FAM_THROUGHPUT, refs, 4, has, out, &nout, &sizes, &ns, err,
                        errlen);
    report_plot_title(title, sizeof title, run, "Throughput p50 per message size (window of messages in flight)");
    report_facet p = {title,
                      "throughput p50 (GB/s, log scale)",
                      "throughput_p50.dat",
                      has,
                      sizes,
                      ns,
                      1,
                      out,
                      nout,
                      NULL,
                      "higher is better; black/grey lines: cudaMemcpy bandwidth measured in the same run"};
    if (rc == 0)
        rc = write_script_facet(dir, "throughput", "throughput p50 against message size, one panel per control block",
                                &p, err, errlen);
    free(sizes);
    return rc;
}

// --- rows of modes: shared by (b) and (e) -------------------------------------------------------------

/* y position of each valid mode in plot order (ctrl groups from the top), -1 for invalid modes. */
int report_mode_rows(int *ypos)
{
    int y = 0;
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = report_plot_mode(k);
        ypos[report_mode_index(&m)] = mode_invalid_reason(&m) == NULL ? y++ : -1;
    }
    return y;
}

/* y tics naming the modes, bands behind the native and fallback rows, lines between control blocks. */
void report_mode_rows_axis(FILE *gp, int labels)
{
    int ypos[RB_MODE_COUNT], n = report_mode_rows(ypos), prev_ctrl = -1, obj = 100;
    fprintf(gp, "set yrange [%d.6:-0.6]\n", n - 1);
    fputs("set ytics (", gp);
    int first = 1;
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = report_plot_mode(k);
        int y = ypos[report_mode_index(&m)];
        if (y < 0)
            continue;
        /* Panels beside the first share its labels: their tics stay, their text goes. */
        if (labels)
            fprintf(gp, "%s'%s%s' %d", first ? "" : ", ", report_mode_str(&m),
                    report_mode_is_native(&m)     ? " (native)"
                    : report_mode_is_fallback(&m) ? " (WSL2 fallback)"
                                                  : "",
                    y);
        else
            fprintf(gp, "%s'' %d", first ? "" : ", ", y);
        first = 0;
    }
    fputs(") nomirror font ',10'\nset grid noytics\n", gp);
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = report_plot_mode(k);
        int y = ypos[report_mode_index(&m)];
        if (y < 0)
            continue;
        if (report_mode_is_native(&m) || report_mode_is_fallback(&m))
            fprintf(gp,
                    "set object %d rect from graph 0, first %d.5 to graph 1, first %d.5 fc rgb '%s' "
                    "fs solid 0.35 noborder behind\n",
                    obj++, y - 1, y, report_mode_is_native(&m) ? "#F0B000" : "#E000E0");
        if (prev_ctrl >= 0 && m.v[RB_AXIS_CTRL] != prev_ctrl)
            fprintf(gp,
                    "set arrow from graph 0, first %d.5 to graph 1, first %d.5 nohead lc rgb '#444444' lw 1.5 "
                    "front\n",
                    y - 1, y - 1);
        prev_ctrl = m.v[RB_AXIS_CTRL];
    }
}

// --- (b) latency percentiles from raw samples -----------------------------------------------------------

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Chooses the smallest, a middle and the largest latency size. Returns how many (0..3). */
static size_t dist_sizes(const report_run *run, uint64_t *out)
{
    uint64_t *sizes = NULL;
    size_t n = report_sizes(run, RB_FAM_LATENCY, &sizes), k = 0;
    if (n > 0)
        out[k++] = sizes[0];
    if (n > 2)
        out[k++] = sizes[n / 2];
    if (n > 1)
        out[k++] = sizes[n - 1];
    free(sizes);
    return k;
}

static int dist_block(FILE *f, const report_run *run, uint64_t size, const int *ypos)
{
    char sz[32];
    int count = 0;
    fprintf(f, "# size %s: y min p10 p50 p90 p99 p99.9 max n colour\n", report_size_str(size, sz, sizeof sz));
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        long i = report_find(run, RB_FAM_LATENCY, &m, size);
        size_t n = 0;
        double *s =
            ypos[k] >= 0 && i >= 0 && report_row_ok(report_row(run, (size_t)i)) ? report_samples(run, i, &n) : NULL;
        if (s == NULL)
            continue;
        qsort(s, n, sizeof *s, cmp_double);
        static const double ps[] = {0, 10, 50, 90, 99, 99.9, 100};
        fprintf(f, "%d", ypos[k]);
        for (size_t p = 0; p < sizeof ps / sizeof ps[0]; p++)
            fprintf(f, " %.9g", stats_percentile_sorted(s, n, ps[p]));
        static const unsigned xfer_rgb[RB_XFER_COUNT] = {0x0072B2, 0xE69F00, 0x009E73};
        fprintf(f, " %zu %u\n", n, xfer_rgb[m.v[RB_AXIS_XFER]]);
        free(s);
        count++;
    }
    fputs("\n\n", f);
    return count;
}

int report_plot_latency_dist(const report_run *run, const char *dir, char *err, size_t errlen)
{
    uint64_t sizes[3];
    size_t ns = dist_sizes(run, sizes);
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    report_file rf;
    char title[256], sz[32];
    if (report_file_open(&rf, dir, "latency_dist.dat", err, errlen) != 0)
        return -1;
    fputs("# latency percentiles (us) from the raw samples, one block per size (gnuplot index)\n", rf.f);
    int count[3] = {0};
    for (size_t i = 0; i < ns; i++)
        count[i] = dist_block(rf.f, run, sizes[i], ypos);
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "latency_dist.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    report_canvas c = {REPORT_DIST_W, 220 + REPORT_MODE_ROW_H * nrows};
    report_gp_begin(gp, "latency_dist", "latency percentiles per mode from raw samples at three sizes", c);
    report_plot_title(title, sizeof title, run, "Latency distribution from raw samples");
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . 'box: p10-p90, bar: median, whiskers: min to p99.9, triangle: p99, cross: max' "
          "font ',14'\nunset key\nset logscale x 10\nset format x '%g'\n"
          "set xlabel 'round-trip latency (us, log scale)'\nset grid xtics mxtics\n",
          gp);
    const double left = 0.20, w = (1.0 - left - 0.01) / (ns ? (double)ns : 1.0);
    for (size_t i = 0; i < ns; i++) {
        fprintf(gp, "set origin %.4f,0.0\nset size %.4f,%.4f\n", i == 0 ? 0.0 : left + w * (double)i,
                i == 0 ? left + w : w, 1.0 - 90.0 / c.height);
        fprintf(gp, "set lmargin %s\nset rmargin 3\n", i == 0 ? "at screen 0.20" : "3");
        fprintf(gp, "set title 'message size %s' font ',13'\n", report_size_str(sizes[i], sz, sizeof sz));
        report_mode_rows_axis(gp, i == 0);
        if (count[i] == 0)
            fputs("plot [1:10] NaN title 'no raw samples at this size'\n", gp);
        else
            fprintf(gp,
                    "plot 'latency_dist.dat' index %zu using 4:1:2:7:10 with xerrorbars pt -1 lc rgb variable lw 1.5 "
                    "notitle, \\\n"
                    "  '' index %zu using 4:1:3:5:($1-0.3):($1+0.3):10 with boxxyerror fs solid 0.5 lc rgb variable "
                    "notitle, \\\n"
                    "  '' index %zu using 4:1:($1-0.38):($1+0.38) with yerrorbars pt -1 lc rgb 'black' lw 2.5 "
                    "notitle, \\\n"
                    "  '' index %zu using 6:1 with points pt 9 ps 1.0 lc rgb 'black' notitle, \\\n"
                    "  '' index %zu using 8:1 with points pt 2 ps 1.0 lc rgb '#CC0000' notitle\n",
                    i, i, i, i, i);
        fputs("unset object\nunset arrow\nunset label\n", gp);
    }
    if (ns == 0)
        fputs("set title 'no latency rows in this file'\nunset logscale x\nunset border\nunset tics\n"
              "plot [0:1][0:1] NaN notitle\n",
              gp);
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

// --- (d) heat map relative to the best native-path mode -------------------------------------------------

/* The best (fastest) native-path p50 at a size, or NaN. */
static double best_native(const report_run *run, rb_family f, uint64_t size)
{
    double best = NAN;
    int rate = report_unit_is_rate(rb_family_unit(f));
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        long i = report_mode_is_native(&m) ? report_find(run, f, &m, size) : -1;
        if (i < 0 || !report_row_ok(report_row(run, (size_t)i)))
            continue;
        double v = report_row(run, (size_t)i)->p50;
        if (isnan(best) || (rate ? v > best : v < best))
            best = v;
    }
    return best;
}

/* One block: x = size index, y = mode row, ratio (time-like: >1 slower), label. Returns max |log|. */
static double heat_block(FILE *f, const report_run *run, rb_family fam, const uint64_t *sizes, size_t ns,
                         const int *ypos)
{
    double maxlog = 0;
    int rate = report_unit_is_rate(rb_family_unit(fam));
    fprintf(f, "# %s: x = size index, y = mode row, ratio to the best native-path mode (>1 = slower), label\n",
            rb_family_name(fam));
    for (size_t s = 0; s < ns; s++) {
        double ref = best_native(run, fam, sizes[s]);
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            if (ypos[k] < 0)
                continue;
            long i = report_find(run, fam, &m, sizes[s]);
            const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
            double v = r && report_row_ok(r) ? (rate ? ref / r->p50 : r->p50 / ref) : NAN;
            const char *label = !r ? "-" : !report_row_ok(r) ? (r->status[0] == 'u' ? "unsup" : r->status) : NULL;
            if (isfinite(v) && v > 0 && fabs(log(v)) > maxlog)
                maxlog = fabs(log(v));
            fprintf(f, "%zu %d %.6g ", s, ypos[k], isfinite(v) && v > 0 ? v : NAN);
            if (label)
                fprintf(f, "%s\n", label);
            else if (isfinite(v))
                fprintf(f, "%.2f\n", v);
            else
                fputs("n/a\n", f);
        }
    }
    fputs("\n\n", f);
    return maxlog;
}

/* One panel of a modes x sizes heat map: b = 0 is the left panel (mode labels), b = 1 the right one
 * (colour box). dat holds the panel's cells at index b; empty is the plot command used when the panel
 * has no sizes. Shared by `report` (heatmap.gp) and `compare` (compare_heatmap.gp). */
void report_heatmap_panel(FILE *gp, int b, int height, const uint64_t *sizes, size_t ns, const char *title,
                          const char *dat, const char *empty)
{
    char sz[32];
    fprintf(gp, "set origin %.3f,0\nset size %.3f,%.4f\n", b ? 0.56 : 0.0, b ? 0.44 : 0.56, 1.0 - 80.0 / height);
    fprintf(gp, "set lmargin %s\nset rmargin %s\n%s", b ? "2" : "at screen 0.19", b ? "12" : "1",
            b ? "set colorbox\n" : "unset colorbox\n");
    report_mode_rows_axis(gp, b == 0);
    fputs("unset object\nunset label\nset xtics (", gp);
    for (size_t s = 0; s < ns; s++)
        fprintf(gp, "%s'%s' %zu", s ? ", " : "", report_size_str(sizes[s], sz, sizeof sz), s);
    fprintf(gp, ") rotate by 30 right\nset xrange [-0.5:%zu.5]\n", ns ? ns - 1 : 0);
    fprintf(gp, "set title '%s' font ',13'\n", title);
    if (ns == 0)
        fprintf(gp, "%s\n", empty);
    else
        fprintf(
            gp,
            "plot '%s' index %d using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror fs solid 1.0 noborder lc palette notitle, \\\n"
            "  '' index %d using 1:2:4 with labels font ',8' notitle\n",
            dat, b, b);
    fputs("unset arrow\n", gp);
}

int report_plot_heatmap(const report_run *run, const char *dir, char *err, size_t errlen)
{
    static const rb_family fams[2] = {RB_FAM_LATENCY, RB_FAM_THROUGHPUT};
    static const char *const what[2] = {"latency: p50 / best native p50 at that size",
                                        "throughput: best native GB/s / GB/s (time ratio)"};
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    uint64_t *sizes[2] = {NULL, NULL};
    size_t ns[2];
    double maxlog = log(1.5);
    report_file rf;
    char title[256];
    int rc = -1;
    if (report_file_open(&rf, dir, "heatmap.dat", err, errlen) != 0)
        return -1;
    for (int b = 0; b < 2; b++) {
        ns[b] = report_sizes(run, fams[b], &sizes[b]);
        double m = heat_block(rf.f, run, fams[b], sizes[b], ns[b], ypos);
        maxlog = m > maxlog ? m : maxlog;
    }
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "heatmap.gp", err, errlen) != 0)
        goto out;
    FILE *gp = rf.f;
    report_canvas c = {REPORT_HEAT_W, 240 + REPORT_MODE_ROW_H * nrows};
    report_gp_begin(gp, "heatmap", "every mode x size relative to the best native-path mode", c);
    report_plot_title(title, sizeof title, run, "Every mode against the best native-path mode at each size");
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . 'cell = how many times slower than the best of pinned/async/coop/mapped|managed "
          "(1.00 = as fast; blue = faster, red = slower; unsup/failed/- = not measured)' font ',14'\n",
          gp);
    fprintf(
        gp,
        "unset key\nset logscale cb\nset cbrange [%.6g:%.6g]\nset format cb '%%.2g'\n"
        "set palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')\nset cblabel 'ratio (log scale)'\n"
        "set cbtics ('0.25' 0.25, '0.5' 0.5, '0.67' 0.6667, '0.8' 0.8, '1' 1, '1.25' 1.25, '1.5' 1.5, '2' 2, '4' 4, "
        "'8' 8, '16' 16)\n"
        "set grid noxtics noytics\nset xlabel 'message size'\n",
        exp(-maxlog), exp(maxlog));
    for (int b = 0; b < 2; b++)
        report_heatmap_panel(gp, b, c.height, sizes[b], ns[b], what[b], "heatmap.dat", "plot NaN notitle");
    report_gp_end(gp);
    rc = report_file_close(&rf, err, errlen);
out:
    free(sizes[0]);
    free(sizes[1]);
    return rc;
}

// --- (e) control-block and lifecycle operations per mode -----------------------------------------------

static const rb_family cb_fams[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
static const rb_family lc_fams[] = {RB_FAM_LC_LAUNCH, RB_FAM_LC_ACTIVATE, RB_FAM_LC_DEACTIVATE, RB_FAM_LC_TERMINATE};
static const char *const op_colour[] = {"#000000", "#7B3294", "#A6611A", "#008837"};
static const int op_point[] = {7, 5, 9, 13};

/* One block per family: y (offset per family), p50, ci_lo, ci_hi. */
static void ops_block(FILE *f, const report_run *run, const rb_family *fams, size_t nf, const int *ypos,
                      unsigned char *has)
{
    for (size_t j = 0; j < nf; j++) {
        double off = ((double)j - (double)(nf - 1) / 2.0) * 0.2;
        fprintf(f, "# %s (%s): y p50 ci_lo ci_hi\n", rb_family_name(fams[j]), rb_family_unit(fams[j]));
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            long i = ypos[k] >= 0 ? report_find(run, fams[j], &m, 0) : -1;
            const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
            if (r == NULL || !report_row_ok(r))
                continue;
            double lo = isfinite(r->ci_lo) ? r->ci_lo : r->p50, hi = isfinite(r->ci_hi) ? r->ci_hi : r->p50;
            fprintf(f, "%.3f %.9g %.9g %.9g\n", ypos[k] + off, r->p50, lo, hi);
            has[j] = 1;
        }
        /* A family with no row still takes its index: gnuplot does not count a data set without a data
         * line, so an interrupted run with lifecycle rows but no control-block rows had every later
         * `index` point one set too far, and gnuplot fail on an empty panel. */
        if (!has[j])
            fputs("NaN NaN NaN NaN\n", f);
        fputs("\n\n", f);
    }
}

static void ops_panel(FILE *gp, const rb_family *fams, size_t nf, size_t first_index, const unsigned char *has,
                      const char *title, int labels)
{
    int first = 1;
    fprintf(gp, "set title '%s' font ',13'\n", title);
    report_mode_rows_axis(gp, labels);
    /* The key above the panel: below it, it ran into the x-axis label. One top margin for both
     * panels, so their mode rows line up whether a key takes one line or two. */
    fputs("set key outside top center horizontal samplen 2 font ',11'\nset tmargin 6\nplot ", gp);
    for (size_t j = 0; j < nf; j++) {
        if (!has[j])
            continue;
        fprintf(gp, "%s'cb.dat' index %zu using 2:1:3:4 with xerrorbars lc rgb '%s' pt %d ps 1.2 lw 1.5 title '%s'",
                first ? "" : ", \\\n  ", first_index + j, op_colour[j], op_point[j], rb_family_name(fams[j]));
        first = 0;
    }
    if (first)
        fputs("[1:10] NaN title 'not measured in this file'", gp);
    fputs("\nunset object\nunset arrow\nunset label\n", gp);
}

int report_plot_cb(const report_run *run, const char *dir, char *err, size_t errlen)
{
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    report_file rf;
    char title[256];
    if (report_file_open(&rf, dir, "cb.dat", err, errlen) != 0)
        return -1;
    fputs("# control-block (index 0-2) and lifecycle (index 3-6) operations per mode, p50 with its 95% CI (us)\n",
          rf.f);
    unsigned char has[7] = {0};
    ops_block(rf.f, run, cb_fams, 3, ypos, has);
    ops_block(rf.f, run, lc_fams, 4, ypos, has + 3);
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "cb.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    report_canvas c = {REPORT_CB_W, 260 + REPORT_MODE_ROW_H * nrows};
    report_gp_begin(gp, "cb", "control-block and lifecycle operation latency per mode", c);
    report_plot_title(title, sizeof title, run, "Control-block operations (the claim's subject) and kernel lifecycle");
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . 'p50 with the 95% CI of the median; modes grouped by control block; gold = native path, "
          "magenta = WSL2 fallback' font ',14'\n"
          "set logscale x 10\nset format x '%g'\nset xlabel 'latency (us, log scale)'\nset grid xtics mxtics\n",
          gp);
    /* A gap of some characters between the panels, so the last x tick of the left panel and the first
     * of the right one (10 and 0.1, say) never touch. */
    fprintf(gp, "set origin 0,0\nset size 0.6,%.4f\nset lmargin at screen 0.19\nset rmargin 4\n",
            1.0 - 80.0 / c.height);
    ops_panel(gp, cb_fams, 3, 0, has, "control-block operations: cb_read, cb_write, cb_handshake", 1);
    fprintf(gp, "set origin 0.6,0\nset size 0.4,%.4f\nset lmargin 6\nset rmargin 3\n", 1.0 - 80.0 / c.height);
    ops_panel(gp, lc_fams, 4, 3, has + 3, "kernel lifecycle", 0);
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

// --- the registry -------------------------------------------------------------------------------------

const report_plot_def report_plot_defs[] = {
    {"latency",
     "(a) Latency p50 against message size, one panel per control block, with the round-trip floor and the "
     "launch-per-message baselines",
     report_plot_latency},
    {"latency_dist", "(b) Latency distribution from the raw samples at the smallest, a middle and the largest size",
     report_plot_latency_dist},
    {"throughput", "(c) Throughput against message size, with the cudaMemcpy bandwidths", report_plot_throughput},
    {"heatmap", "(d) Every mode and size relative to the best native-path mode", report_plot_heatmap},
    {"cb", "(e) Control-block operations and kernel lifecycle per mode, grouped by control block", report_plot_cb},
    {"window",
     "(f) Throughput against the window (messages in flight), beside Little's bound W / RTT capped by the full "
     "window: the best mode, the native path and the WSL2 fallback",
     report_plot_window},
};
const size_t report_plot_count = sizeof report_plot_defs / sizeof report_plot_defs[0];

int report_plots_write(const report_run *run, const char *dir, char *err, size_t errlen)
{
    for (size_t i = 0; i < report_plot_count; i++)
        if (report_plot_defs[i].write(run, dir, err, errlen) != 0)
            return -1;
    return 0;
}

int report_plots_render(const char *cmd, const char *dir, int render)
{
    char names[sizeof report_plot_defs / sizeof report_plot_defs[0]][64];
    const char *scripts[sizeof report_plot_defs / sizeof report_plot_defs[0] + 1];
    for (size_t i = 0; i < report_plot_count; i++) {
        snprintf(names[i], sizeof names[i], "%s.gp", report_plot_defs[i].name);
        scripts[i] = names[i];
    }
    scripts[report_plot_count] = NULL;
    return report_render(cmd, dir, scripts, render);
}
