/* report_plots.c - the data files and gnuplot scripts of `ringbench report`, one function per plot:
 *   latency.gp       (a) latency p50 against size, one panel per control block, floor and launch
 *   latency_dist.gp  (b) latency percentiles from the raw samples at the smallest, a middle and the
 *                        largest size: where the tail lives
 *   throughput.gp    (c) throughput p50 against size, with the memcpy bandwidths
 *   heatmap.gp       (d) every mode x size relative to the best native-path mode at that size
 *   cb.gp            (e) control-block operation latency per mode, grouped by control block
 * (the answer plot, answer.gp, is report_answer.c's; (f) window.gp report_window.c's). Every plot is made
 * for a docs column (REPORT_DOC_W). Every file is a name of ours inside the report directory; every script re-runs by
 * hand there.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_plots.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NREFS_MAX 4
#define STR_(x) #x
#define STR(x) STR_(x)

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
    report_gp_begin(rf.f, stem, what, (report_canvas){REPORT_DOC_W, REPORT_FACET_H});
    report_gp_facet(rf.f, p);
    report_gp_end(rf.f);
    return report_file_close(&rf, err, errlen);
}

int report_plot_latency(const report_run *run, const char *dir, char *err, size_t errlen)
{
    static const wide_ref refs[] = {
        {RB_FAM_BASE_FLOOR, 1, "floor: one-word ping-pong", "lc rgb '#000000' lw 2 dt 3"},
        {RB_FAM_BASE_LAUNCH, 0, "a kernel launch per message", "lc rgb '#555555' lw 3 dt 1"},
        {RB_FAM_BASE_GRAPH, 0, "a CUDA graph launch per message", "lc rgb '#999999' lw 3 dt 1"},
    };
    unsigned char has[RB_MODE_COUNT];
    report_ref out[NREFS_MAX];
    size_t nout = 0, ns = 0;
    uint64_t *sizes = NULL;
    char title[256];
    int rc =
        write_wide(run, dir, "latency_p50.dat", RB_FAM_LATENCY, refs, 3, has, out, &nout, &sizes, &ns, err, errlen);
    report_plot_title(title, sizeof title, run, "Round trip p50 per message size");
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
                      "lower is better; black and grey: baselines of the same run"};
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
    report_plot_title(title, sizeof title, run, "Throughput p50 per message size, ring kept full");
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
                      "higher is better; black and grey: cudaMemcpy of the same run"};
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
        if (labels) /* the native and fallback rows are marked by their bands, named in each title */
            fprintf(gp, "%s'%s' %d", first ? "" : ", ", report_mode_str(&m), y);
        else
            fprintf(gp, "%s'' %d", first ? "" : ", ", y);
        first = 0;
    }
    fputs(") nomirror font ',13'\nset grid noytics\n", gp);
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
    report_canvas c = {REPORT_DOC_W, report_rows_height(nrows)};
    report_gp_begin(gp, "latency_dist", "latency percentiles per mode from raw samples at three sizes", c);
    report_plot_title(title, sizeof title, run, "Latency distribution from raw samples");
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . 'box: p10-p90, bar: median, whiskers: min to p99.9, triangle: p99, cross: max' "
          "font ',15'\nunset key\nset logscale x 10\nset format x '%g'\n"
          "set xlabel 'round trip (us, log)'\nset grid xtics mxtics\nset xtics font ',13'\n",
          gp);
    const double left = REPORT_MODE_LMARGIN, w = (1.0 - left - 0.01) / (ns ? (double)ns : 1.0);
    for (size_t i = 0; i < ns; i++) {
        fprintf(gp, "set origin %.4f,0.0\nset size %.4f,%.4f\n", i == 0 ? 0.0 : left + w * (double)i,
                i == 0 ? left + w : w, 1.0 - 90.0 / c.height);
        fprintf(gp, "set lmargin %s\nset rmargin 2\n", i == 0 ? "at screen " STR(REPORT_MODE_LMARGIN) : "2");
        fprintf(gp, "set title '%s' font ',13'\n", report_size_str(sizes[i], sz, sizeof sz));
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
                fprintf(f, "%.*f\n", v >= 10 ? 0 : v >= 1 ? 1 : 2, v); /* 2 digits: fits a cell at 800 px */
            else
                fputs("n/a\n", f);
        }
    }
    fputs("\n\n", f);
    return maxlog;
}

/* One panel of a modes x sizes heat map: b = 0 is the upper panel (with the title's room above it),
 * b = 1 the lower one; both carry the mode names, the lower one the colour box's room on the right.
 * plot is the caller's plot command. Shared by `report` (heatmap.gp) and `compare` (compare_heatmap.gp). */
void report_heatmap_panel(FILE *gp, int b, int height, const uint64_t *sizes, size_t ns, const char *title,
                          const char *plot)
{
    char sz[32];
    const double top = 1.0 - 90.0 / height, h = top / 2;
    fprintf(gp, "set origin 0,%.4f\nset size 1,%.4f\n", b ? 0.0 : h, h);
    fprintf(gp,
            "set lmargin at screen %.2f\nset rmargin at screen 0.88\nset colorbox user origin screen 0.9, "
            "screen 0.2 size screen 0.025, screen 0.6\n",
            REPORT_MODE_LMARGIN);
    report_mode_rows_axis(gp, 1);
    fputs("unset object\nunset label\nset xtics (", gp);
    for (size_t s = 0; s < ns; s++)
        fprintf(gp, "%s'%s' %zu", s ? ", " : "", report_size_str(sizes[s], sz, sizeof sz), s);
    fprintf(gp, ") rotate by 45 right font ',13'\nset xrange [-0.5:%zu.5]\n", ns ? ns - 1 : 0);
    fprintf(gp, "set title '%s' font ',13'\n%s", title, plot);
    fputs("unset arrow\n", gp);
}

int report_plot_heatmap(const report_run *run, const char *dir, char *err, size_t errlen)
{
    static const rb_family fams[2] = {RB_FAM_LATENCY, RB_FAM_THROUGHPUT};
    static const char *const what[2] = {"round trip: p50 / best native p50 at that size",
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
    report_canvas c = {REPORT_DOC_W, report_heat_height(nrows)};
    report_gp_begin(gp, "heatmap", "every mode x size relative to the best native-path mode", c);
    report_plot_title(title, sizeof title, run, "Every mode against the best native-path mode");
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . 'times slower than the best native path at that size (red slower, blue faster)' font ',15'\n",
          gp);
    fprintf(gp,
            "unset key\nset logscale cb\nset cbrange [%.6g:%.6g]\nset format cb '%%.2g'\n"
            "set palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')\n"
            "set cbtics ('0.25' 0.25, '0.5' 0.5, '1' 1, '2' 2, '4' 4, '8' 8, '16' 16, '64' 64, '256' 256) "
            "font ',13'\nset grid noxtics noytics\n",
            exp(-maxlog), exp(maxlog));
    for (int b = 0; b < 2; b++) {
        char plot[512];
        snprintf(plot, sizeof plot,
                 "plot 'heatmap.dat' index %d using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror fs "
                 "solid 1.0 noborder lc palette notitle, \\\n  '' index %d using 1:2:4 with labels font ',13' "
                 "notitle\n",
                 b, b);
        report_heatmap_panel(gp, b, c.height, sizes[b], ns[b], what[b], ns[b] ? plot : "plot NaN notitle\n");
    }
    report_gp_end(gp);
    rc = report_file_close(&rf, err, errlen);
out:
    free(sizes[0]);
    free(sizes[1]);
    return rc;
}

// --- (e) control-block operations per mode ------------------------------------------------------------

static const rb_family cb_fams[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
static const char *const op_colour[] = {"#000000", "#7B3294", "#A6611A"};
static const int op_point[] = {7, 5, 9};
#define NCB 3

/* One block per family: y (offset per family), p50, ci_lo, ci_hi. */
static void ops_block(FILE *f, const report_run *run, const int *ypos, unsigned char *has)
{
    for (size_t j = 0; j < NCB; j++) {
        double off = ((double)j - (double)(NCB - 1) / 2.0) * 0.22;
        fprintf(f, "# %s (%s): y p50 ci_lo ci_hi\n", rb_family_name(cb_fams[j]), rb_family_unit(cb_fams[j]));
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            long i = ypos[k] >= 0 ? report_find(run, cb_fams[j], &m, 0) : -1;
            const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
            if (r == NULL || !report_row_ok(r))
                continue;
            double lo = isfinite(r->ci_lo) ? r->ci_lo : r->p50, hi = isfinite(r->ci_hi) ? r->ci_hi : r->p50;
            fprintf(f, "%.3f %.9g %.9g %.9g\n", ypos[k] + off, r->p50, lo, hi);
            has[j] = 1;
        }
        /* A family with no row still takes its index: gnuplot does not count a data set without a data
         * line, so every later `index` would point one set too far. */
        if (!has[j])
            fputs("NaN NaN NaN NaN\n", f);
        fputs("\n\n", f);
    }
}

int report_plot_cb(const report_run *run, const char *dir, char *err, size_t errlen)
{
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    report_file rf;
    char title[256];
    unsigned char has[NCB] = {0};
    if (report_file_open(&rf, dir, "cb.dat", err, errlen) != 0)
        return -1;
    fputs("# control-block operations per mode, p50 with its 95% CI (us), one block per operation\n", rf.f);
    ops_block(rf.f, run, ypos, has);
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "cb.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    report_gp_begin(gp, "cb", "control-block operation latency per mode",
                    (report_canvas){REPORT_DOC_W, report_rows_height(nrows)});
    report_plot_title(title, sizeof title, run, "Control-block operations per mode");
    report_gp_title(gp, title, "p50 and its 95% interval; band: gold native path, magenta WSL2 fallback");
    fputs("set logscale x 10\nset format x '%g'\nset xlabel 'latency (us, log scale)'\nset grid xtics mxtics\n", gp);
    fprintf(gp, "set lmargin at screen %.2f\nset rmargin 3\n", REPORT_MODE_LMARGIN);
    report_mode_rows_axis(gp, 1);
    fputs("set bmargin 6.5\nset key at screen 0.6, screen 0.01 center bottom horizontal samplen 1 font ',14'\nplot ",
          gp);
    int first = 1;
    for (size_t j = 0; j < NCB; j++) {
        if (!has[j])
            continue;
        fprintf(gp, "%s'cb.dat' index %zu using 2:1:3:4 with xerrorbars lc rgb '%s' pt %d ps 1.3 lw 1.5 title '%s'",
                first ? "" : ", \\\n  ", j, op_colour[j], op_point[j], rb_family_name(cb_fams[j]));
        first = 0;
    }
    if (first)
        fputs("[1:10] NaN title 'not measured in this file'", gp);
    fputs("\n", gp);
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

// --- the registry -------------------------------------------------------------------------------------

const report_plot_def report_plot_defs[] = {
    {"answer", "The answer: fallback / native per headline figure, beside the claimed " VERDICT_CLAIM_LABEL, NULL},
    {"latency",
     "(a) Round-trip latency against message size, one panel per control block, with the round-trip floor and "
     "the launch-per-message baselines",
     report_plot_latency},
    {"latency_dist", "(b) Latency distribution from the raw samples at the smallest, a middle and the largest size",
     report_plot_latency_dist},
    {"throughput", "(c) Throughput against message size, with the cudaMemcpy bandwidths", report_plot_throughput},
    {"heatmap", "(d) Every mode and size relative to the best native-path mode", report_plot_heatmap},
    {"cb", "(e) Control-block operations per mode, grouped by control block", report_plot_cb},
    {"window",
     "(f) Throughput against the window (messages in flight), beside Little's bound W / RTT capped by the full "
     "window: the best mode, the native path and the WSL2 fallback",
     report_plot_window},
};
const size_t report_plot_count = sizeof report_plot_defs / sizeof report_plot_defs[0];

int report_plots_write(const report_run *run, const char *dir, char *err, size_t errlen)
{
    for (size_t i = 0; i < report_plot_count; i++)
        if (report_plot_defs[i].write != NULL && report_plot_defs[i].write(run, dir, err, errlen) != 0)
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
