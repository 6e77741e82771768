/* report_window.c - (f) throughput against the window, beside the bound Little's law sets.
 *
 * With a round trip of RTT at one message in flight, W messages in flight can move at most W / RTT
 * messages per second, and no window beats the ring kept full. So for each curve (the best mode at
 * the full window, the native path and the WSL2 fallback) the plot draws the measured rate and,
 * dashed in the same colour, min(W / RTT, rate at the widest window), with RTT the mode's own latency
 * p50 at that size: the distance between the two is the ring's own inefficiency, not the platform's.
 * One panel per size (the smallest, the ones nearest 64 B and 4 KiB, the largest). Written by
 * `ringbench report` (plots/report.c); its table is report.md's "Throughput against window".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "report_plots.h"

#define WIN_PANELS 4
#define WIN_CURVES 3
#define WIN_MAX REPORT_WINDOWS_MAX

size_t report_window_list(const report_run *run, uint64_t *wins)
{
    size_t nw = 0;
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        if (report_row_family(r) != RB_FAM_THROUGHPUT || !report_row_ok(r) || r->window == 0)
            continue;
        size_t k = 0;
        while (k < nw && wins[k] != r->window)
            k++;
        if (k == nw && nw < WIN_MAX)
            wins[nw++] = r->window;
    }
    report_sort_u64(wins, nw);
    return nw;
}

/* The panels' sizes: the smallest, the nearest to 64 B and to 4 KiB, the largest, each once. */
static size_t panel_sizes(const uint64_t *sizes, size_t ns, uint64_t *out)
{
    if (ns == 0)
        return 0;
    const uint64_t want[WIN_PANELS] = {sizes[0], 64, 4096, sizes[ns - 1]};
    size_t n = 0;
    for (size_t w = 0; w < WIN_PANELS; w++) {
        uint64_t best = sizes[0];
        for (size_t k = 0; k < ns; k++)
            if (llabs((long long)sizes[k] - (long long)want[w]) < llabs((long long)best - (long long)want[w]))
                best = sizes[k];
        size_t j = 0;
        while (j < n && out[j] != best)
            j++;
        if (j == n)
            out[n++] = best;
    }
    report_sort_u64(out, n);
    return n;
}

const rb_row *report_window_best(const report_run *run, uint64_t size, uint64_t window)
{
    const rb_row *best = NULL;
    if (window == REPORT_WINDOW_FULL) { /* this size's widest: a small ring caps the window */
        window = 0;
        for (size_t i = 0; i < report_nrows(run); i++) {
            const rb_row *r = report_row(run, i);
            if (report_row_family(r) == RB_FAM_THROUGHPUT && report_row_ok(r) && r->size_bytes == size &&
                r->window > window)
                window = r->window;
        }
    }
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        if (report_row_family(r) == RB_FAM_THROUGHPUT && report_row_ok(r) && r->size_bytes == size &&
            r->window == window && isfinite(r->msgs_per_s) && (!best || r->msgs_per_s > best->msgs_per_s))
            best = r;
    }
    return best;
}

/* The mode with the highest rate at this size's widest window (the native path when none). */
static mode_spec best_mode(const report_run *run, uint64_t size)
{
    const rb_row *best = report_window_best(run, size, REPORT_WINDOW_FULL);
    mode_spec m = mode_native();
    if (best)
        report_row_mode(best, &m);
    return m;
}

double report_window_rate(const report_run *run, const mode_spec *m, uint64_t size, uint64_t window)
{
    const long i = report_find_window(run, RB_FAM_THROUGHPUT, m, size, window);
    const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
    return r && report_row_ok(r) && isfinite(r->msgs_per_s) ? r->msgs_per_s : NAN;
}

/* A bound of mode m at size capped by its rate at the widest window, where that was measured. */
static double capped_by_full(const report_run *run, const mode_spec *m, uint64_t size, double little)
{
    const double full = report_window_rate(run, m, size, REPORT_WINDOW_FULL);
    return isfinite(full) && !(little <= full) ? full : little;
}

double report_window_bound(const report_run *run, const mode_spec *m, uint64_t size, uint64_t window)
{
    const long il = report_find(run, RB_FAM_LATENCY, m, size);
    const rb_row *l = il >= 0 ? report_row(run, (size_t)il) : NULL;
    return capped_by_full(run, m, size, l && report_row_ok(l) && l->p50 > 0 ? (double)window / (l->p50 * 1e-6) : NAN);
}

double report_window_scaling(const report_run *run, const mode_spec *m, uint64_t size, uint64_t window)
{
    const double one = report_window_rate(run, m, size, 1);
    if (!isfinite(one))
        return NAN; /* no window 1 measured: no figure, not the full window's */
    return capped_by_full(run, m, size, (double)window * one);
}

/* One block of window.dat: window, measured and bound rate (millions of messages per second).
 * Returns bit 1 when a measured rate is finite and positive, bit 2 when a bound is (gnuplot refuses a
 * curve on a log scale without one). */
static int write_block(FILE *f, const report_run *run, const mode_spec *m, uint64_t size, const uint64_t *wins,
                       size_t nw)
{
    int any = 0;
    fprintf(f, "# %s at %llu B: window measured_Mmsg_s bound_Mmsg_s\n", report_mode_str(m), (unsigned long long)size);
    for (size_t w = 0; w < nw; w++) {
        const double rate = report_window_rate(run, m, size, wins[w]),
                     bound = report_window_bound(run, m, size, wins[w]);
        any |= (isfinite(rate) && rate > 0) | (isfinite(bound) && bound > 0) << 1;
        fprintf(f, "%llu %.6g %.6g\n", (unsigned long long)wins[w], rate * 1e-6, bound * 1e-6);
    }
    fputs("\n\n", f);
    return any;
}

/* One panel of window.gp: the curves of data blocks base .. base + 2 that have data, and their bounds.
 * gnuplot refuses a plot without a valid point: a panel with no curve gets a note over a fixed range.
 * The curves carry no titles: the legend is a strip of its own under the panels (window_legend), so it
 * never lies over a curve or a panel border. */
static const char *const win_colour[WIN_CURVES] = {"#1B9E77", "#D4A017", "#C2185B"};

static void write_panel(FILE *gp, const int *has, int base)
{
    if (!((has[0] | has[1] | has[2]) & 1)) {
        fputs("set yrange [0.1:10]\nset label 1 'no throughput measured at this size' at graph 0.5, graph 0.5 "
              "center\nplot [1:2] 1 lc rgb '#FFFFFF' notitle\nunset label 1\nset autoscale y\n",
              gp);
        return;
    }
    int drawn = 0;
    fputs("plot ", gp);
    for (int c = 0; c < WIN_CURVES; c++) {
        if (!(has[c] & 1))
            continue;
        fprintf(gp, "%s'window.dat' index %d using 1:2 with linespoints lc rgb '%s' lw 2.5 pt 7 ps 1.2 notitle",
                drawn++ ? ", \\\n  " : "", base + c, win_colour[c]);
        if (has[c] & 2)
            fprintf(gp, ", \\\n  'window.dat' index %d using 1:3 with lines lc rgb '%s' lw 1.5 dt (6,4) notitle",
                    base + c, win_colour[c]);
    }
    fputs("\n", gp);
}

/* The legend strip under the panels. */
static void window_legend(FILE *gp, double height)
{
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    fprintf(gp, "set origin 0,0\nset size 1,%.3f\n", height);
    fputs("unset border\nunset tics\nunset grid\nunset xlabel\nunset ylabel\nunset title\nunset logscale\n"
          "set xrange [0:1]\nset yrange [0:1]\nset key center center horizontal maxcols 2 Left reverse samplen 3 "
          "font ',14'\nplot 2 notitle, \\\n",
          gp);
    fprintf(gp,
            "  keyentry with linespoints lc rgb '%s' lw 2.5 pt 7 title 'best mode at the size (in the panel "
            "title)', \\\n",
            win_colour[0]);
    fprintf(gp, "  keyentry with linespoints lc rgb '%s' lw 2.5 pt 7 title '%s path %s', \\\n", win_colour[1],
            mode_path_title(MODE_PATH_NATIVE), report_mode_str(&nat));
    fprintf(gp, "  keyentry with linespoints lc rgb '%s' lw 2.5 pt 7 title '%s %s', \\\n", win_colour[2],
            mode_path_title(MODE_PATH_FALLBACK), report_mode_str(&fb));
    fputs("  keyentry with lines lc rgb 'black' lw 1.5 dt (6,4) title 'dashed: the bound W / RTT, capped by the "
          "full window'\n",
          gp);
}

int report_plot_window(const report_run *run, const char *dir, char *err, size_t errlen)
{
    uint64_t wins[WIN_MAX], *sizes = NULL, panel[WIN_PANELS];
    const size_t nw = report_window_list(run, wins), ns = report_sizes(run, RB_FAM_THROUGHPUT, &sizes);
    const size_t np = nw >= 2 ? panel_sizes(sizes, ns, panel) : 0;
    free(sizes);
    report_file dat, gpf;
    if (report_file_open(&dat, dir, "window.dat", err, errlen) != 0)
        return -1;
    fputs("# throughput against the window (messages in flight), per panel size: the best mode at the widest\n"
          "# window, the native path, the WSL2 fallback; bound = min(window / latency p50, widest-window rate)\n",
          dat.f);
    mode_spec curves[WIN_PANELS][WIN_CURVES];
    int has[WIN_PANELS][WIN_CURVES];
    for (size_t p = 0; p < np; p++) {
        curves[p][0] = best_mode(run, panel[p]);
        curves[p][1] = mode_native();
        curves[p][2] = mode_wsl2_fallback();
        for (int c = 0; c < WIN_CURVES; c++)
            has[p][c] = write_block(dat.f, run, &curves[p][c], panel[p], wins, nw);
    }
    if (report_file_close(&dat, err, errlen) != 0 || report_file_open(&gpf, dir, "window.gp", err, errlen) != 0)
        return -1;
    FILE *gp = gpf.f;
    const int height = 980;
    const double legend_h = 110.0 / height, top = 1.0 - 70.0 / height, ph = (top - legend_h) / 2;
    report_gp_begin(gp, "window", "throughput against the window, with Little's bound",
                    (report_canvas){REPORT_DOC_W, height});
    char title[640];
    report_plot_title(title, sizeof title, run, "Throughput against the window (messages in flight)");
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" font ',15'\nset logscale xy\nset format y '%g'\nset xtics font ',13'\nset ytics font ',13'\n"
          "set lmargin 9\nset rmargin 3\nset tmargin 3.5\nset bmargin 3.5\n",
          gp);
    /* The x range ends at the widest window, so that no tic label lies past the panel's edge. */
    fprintf(gp, "set xrange [0.8:%.6g]\n", nw ? 1.25 * (double)wins[nw - 1] : 10.0);
    if (np == 0)
        fputs("set label 'fewer than two windows measured' at graph 0.3,0.5\nset yrange [0.1:10]\n"
              "plot [1:2] 1 lc rgb '#FFFFFF' notitle\n",
              gp);
    for (size_t p = 0; p < np; p++) {
        char sz[32], t[160];
        fprintf(gp, "set origin %.4f,%.4f\nset size 0.5,%.4f\n", p % 2 ? 0.5 : 0.0, legend_h + (p < 2 ? ph : 0.0), ph);
        snprintf(t, sizeof t, "best: %s", report_mode_str(&curves[p][0]));
        fprintf(gp, "set title 'message size %s' . \"\\n\" . ", report_size_str(panel[p], sz, sizeof sz));
        report_gp_quote(gp, t);
        fprintf(gp, " font ',13'\nset xlabel %s\nset ylabel %s\n", p >= 2 ? "'window W (messages in flight)'" : "''",
                p % 2 == 0 ? "'million msg/s'" : "''");
        write_panel(gp, has[p], (int)(p * WIN_CURVES));
    }
    window_legend(gp, legend_h);
    report_gp_end(gp);
    return report_file_close(&gpf, err, errlen);
}
