/* report_plots.h - the plots of `ringbench report` (report_plots.c) and the pieces of them that
 * `ringbench compare` reuses. Each writes NAME.dat and NAME.gp into the report directory and returns
 * 0, or -1 with a one-line message in err.
 */
#ifndef RINGBENCH_REPORT_PLOTS_H
#define RINGBENCH_REPORT_PLOTS_H

#include "report_internal.h"

/* Canvas sizes in pixels, made for a docs column of 800 px: every plot is REPORT_DOC_W wide with text
 * of 13 pt or more (pngcairo draws 1 pt as 1.33 px, so 14 px or more at 800 px); the per-mode plots
 * grow with the number of modes, REPORT_MODE_ROW_H a row, their mode names left of
 * REPORT_MODE_LMARGIN (a fraction of the width). */
#define REPORT_DOC_W 960
#define REPORT_FACET_H 1040
#define REPORT_MODE_ROW_H 27
#define REPORT_MODE_LMARGIN 0.36
/* The height of a plot of one panel of mode rows, and of two such panels stacked (heat maps). */
#define report_rows_height(nrows) (230 + REPORT_MODE_ROW_H * (nrows))
#define report_heat_height(nrows) (330 + 2 * REPORT_MODE_ROW_H * (nrows))

/* The plot registry of `ringbench report`: one entry per plot, in the order report.md shows them.
 * Adding a plot is one entry in report_plot_defs (report_plots.c) and its writer: the report writes,
 * lists and renders every entry. The gnuplot programs are written by the writers, not kept as files,
 * because each is built for the run (its modes, sizes and panels). */
typedef struct report_plot_def {
    const char *name;    /* NAME: the writer makes NAME.gp (and its .dat), gnuplot NAME.png and NAME.svg */
    const char *caption; /* its heading in report.md */
    /* NULL for the answer plot, which report_write draws from the headline figures it computes once
     * for the plot and report.md alike (report_headline.h) */
    int (*write)(const report_run *run, const char *dir, char *err, size_t errlen);
} report_plot_def;
extern const report_plot_def report_plot_defs[];
extern const size_t report_plot_count;
/* Writes every plot of the registry into dir. Returns 0, or -1 with a one-line message in err. */
int report_plots_write(const report_run *run, const char *dir, char *err, size_t errlen);
/* Renders every plot of the registry in dir (report_render, as `cmd`). Returns what it returns. */
int report_plots_render(const char *cmd, const char *dir, int render);

int report_plot_latency(const report_run *run, const char *dir, char *err, size_t errlen);
int report_plot_latency_dist(const report_run *run, const char *dir, char *err, size_t errlen);
int report_plot_throughput(const report_run *run, const char *dir, char *err, size_t errlen);
int report_plot_heatmap(const report_run *run, const char *dir, char *err, size_t errlen);
int report_plot_cb(const report_run *run, const char *dir, char *err, size_t errlen);
/* The title line every report plot shares: what, and which machine (or the CPU reference), with the
 * run's INJECTED / LIMITS APPLIED label. */
void report_plot_title(char *buf, size_t n, const report_run *run, const char *what);
/* (f) throughput against the window beside Little's bound (report_window.c): window.dat, window.gp. */
int report_plot_window(const report_run *run, const char *dir, char *err, size_t errlen);
/* The windows the run's throughput rows measured, ascending, into wins (at most REPORT_WINDOWS_MAX);
 * their count. */
#define REPORT_WINDOWS_MAX 16
size_t report_window_list(const report_run *run, uint64_t *wins);
/* The throughput row with the highest rate at size and window (REPORT_WINDOW_FULL: the size's
 * widest window, which a small ring caps), or NULL. */
const rb_row *report_window_best(const report_run *run, uint64_t size, uint64_t window);
/* Messages per second of mode m at size and window (REPORT_WINDOW_FULL: the widest), or NaN. */
double report_window_rate(const report_run *run, const mode_spec *m, uint64_t size, uint64_t window);
/* Little's bound of mode m at size and window: window / its latency p50, capped by its rate at the
 * widest window; NaN when neither is measured. */
double report_window_bound(const report_run *run, const mode_spec *m, uint64_t size, uint64_t window);
/* The same from the pump's own rate: window x mode m's rate at window 1, capped by its rate at the
 * widest window; NaN when window 1 was not measured. */
double report_window_scaling(const report_run *run, const mode_spec *m, uint64_t size, uint64_t window);

/* y position of every valid mode in plot order (ctrl groups from the top) indexed by
 * report_mode_index, -1 for invalid modes; returns the number of rows. */
int report_mode_rows(int *ypos);
/* gnuplot commands: y tics naming the modes (or blank tics when labels is 0), bands behind the native
 * and fallback rows, lines between control-block groups. */
void report_mode_rows_axis(FILE *gp, int labels);
/* One panel (b = 0 top, 1 bottom) of a modes x sizes heat map: its place, mode rows, size tics and
 * title, then plot (the caller's plot command, ending in a newline). */
void report_heatmap_panel(FILE *gp, int b, int height, const uint64_t *sizes, size_t ns, const char *title,
                          const char *plot);

#endif
