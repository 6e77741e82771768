/* report_plots.h - the plots of `ringbench report` (report_plots.c) and the pieces of them that
 * `ringbench compare` reuses. Each writes NAME.dat and NAME.gp into the report directory and returns
 * 0, or -1 with a one-line message in err.
 */
#ifndef RINGBENCH_REPORT_PLOTS_H
#define RINGBENCH_REPORT_PLOTS_H

#include "report_internal.h"

/* Canvas sizes in pixels; the per-mode plots grow with the number of modes. */
#define REPORT_FACET_W 1800
#define REPORT_FACET_H 820
#define REPORT_DIST_W 1800
#define REPORT_HEAT_W 1800
#define REPORT_CB_W 1800
#define REPORT_MODE_ROW_H 24

/* The plot registry of `ringbench report`: one entry per plot, in the order report.md shows them.
 * Adding a plot is one entry in report_plot_defs (report_plots.c) and its writer: the report writes,
 * lists and renders every entry. The gnuplot programs are written by the writers, not kept as files,
 * because each is built for the run (its modes, sizes and panels). */
typedef struct report_plot_def {
    const char *name;    /* NAME: the writer makes NAME.gp (and its .dat), gnuplot NAME.png and NAME.svg */
    const char *caption; /* its heading in report.md */
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
/* One panel (b = 0 left, 1 right) of a modes x sizes heat map whose cells are at index b of dat;
 * empty is the plot command for a panel without sizes. */
void report_heatmap_panel(FILE *gp, int b, int height, const uint64_t *sizes, size_t ns, const char *title,
                          const char *dat, const char *empty);

#endif
