/* track_page.c - the history page of `ringbench track`: DIR/history.md and its plots, a page docs can
 * include. It opens with the newest run's verdict and its regressed cells; then, per machine, a table of
 * its last nights (date, commit, verdict, how many cells changed), one plot per headline figure of
 * harness/headline.h as the nights judged it (each night's figure, the band tonight would not call,
 * regressions and improvements marked), its environment changes, and last the floor, a reference never
 * judged. Each night is judged again here as `track` judges it (harness/track_night.h), with the same
 * options, so the page and the terminal never disagree. Reads the history index only; decides nothing.
 * Plots are made for an 800 px docs column: 960 px wide, 14 pt text, PNG and SVG beside their .gp and .dat.
 * Exercised by tests/test_history.c and tests/track_cli.sh.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_internal.h"
#include "track.h"

/* Nights of a machine judged for its plots (the detector's lookback, 20), and listed in its table. */
#define PAGE_NIGHTS 20
#define PAGE_TABLE 10
/* Regressed cells of the newest night listed at the top of the page. */
#define PAGE_REGRESSED 12

/* One night as the page shows it: its run, verdict, counts and its headline cells as judged. */
typedef struct page_night {
    hist_run run;
    int judged; /* 0: judging it failed (why: err) */
    char verdict[512];
    size_t count[TRACK_KINDS];
    track_judged hl[HL_COUNT][2]; /* hl[k][s].cell[0] == '\0': none */
    double catch[HL_COUNT][2];    /* the change each would call: the band's half width (NAN: not judged) */
} page_night;

// --- judging the nights ------------------------------------------------------------------------------------

/* Judges run into *p (its verdict line, counts and headline cells). Returns 0, or -1 with err. */
static int page_judge(hist *h, const hist_run *run, const track_options *o, page_night *p, char *err, size_t errlen)
{
    track_night night;
    memset(p, 0, sizeof *p);
    p->run = *run;
    if (track_night_judge(h, run->id, o, &night, err, errlen) != 0) {
        track_night_free(&night);
        return -1;
    }
    p->judged = 1;
    track_verdict_line(&night, p->verdict, sizeof p->verdict);
    memcpy(p->count, night.count, sizeof p->count);
    for (int k = 0; k < HL_COUNT; k++)
        for (int s = 0; s < 2; s++) {
            const long i = night.headline[k][s];
            p->catch[k][s] = NAN;
            if (i < 0)
                continue;
            p->hl[k][s] = night.cells[i];
            if (isfinite(night.cells[i].r.z)) {
                double thr;
                p->catch[k][s] = track_night_catch(&night, &night.cells[i], &thr);
            }
        }
    track_night_free(&night);
    return 0;
}

// --- markdown ----------------------------------------------------------------------------------------------

static void md_text(FILE *md, const char *s) { report_md_text(md, s); }

/* "2026-11-24 07:19" from an ISO start time. */
static const char *when(const char *iso, char *buf, size_t n)
{
    snprintf(buf, n, "%.10s %.5s", iso, strlen(iso) > 11 ? iso + 11 : "");
    return buf;
}

/* The regressed cells of the newest night: change, figures, first seen. */
static void regressed_md(FILE *md, const track_night *night)
{
    char ch[96];
    size_t shown = 0;
    if (night->count[TRACK_REGRESSION] == 0)
        return;
    fputs("\n| regressed cell | change [95 % interval] | tonight | baseline | first seen |\n"
          "| --- | ---: | ---: | ---: | --- |\n",
          md);
    for (size_t i = 0; i < night->ncells && shown < PAGE_REGRESSED; i++) {
        const track_judged *x = &night->cells[i];
        if (x->r.kind != TRACK_REGRESSION)
            continue;
        shown++;
        track_change_interval_str(x->r.change, x->r.change_lo, x->r.change_hi, ch, sizeof ch);
        fprintf(md, "| `%s` | %s | %s |", x->cell, ch, report_value(x->r.newest, x->unit));
        fprintf(md, " %s | ", report_value(x->r.baseline, x->unit));
        if (x->first_run + 1 == night->n)
            fputs("tonight", md);
        else
            fprintf(md, "`%s`", night->runs[x->first_run].file);
        if (x->coincides[0]) {
            fputs(", with ", md);
            md_text(md, x->coincides);
        }
        fputs(" |\n", md);
    }
    if (night->count[TRACK_REGRESSION] > shown)
        fprintf(md, "\nand %zu more: `ringbench track RUN.h5 --verbose`, or `--export FILE`.\n",
                night->count[TRACK_REGRESSION] - shown);
}

/* The page's opening: the newest run's verdict and its regressed cells. */
static int newest_md(FILE *md, hist *h, const hist_run *run, const track_options *o, char *err, size_t errlen)
{
    track_night night;
    char line[1024], t[32];
    if (track_night_judge(h, run->id, o, &night, err, errlen) != 0) {
        track_night_free(&night);
        return -1;
    }
    track_verdict_line(&night, line, sizeof line);
    fputs("\n**Last night: ", md);
    md_text(md, line);
    fprintf(md, "**\n\n`%s`, %s UTC, commit `%s`, machine `", run->file, when(run->start, t, sizeof t),
            run->env[HIST_ENV_git_commit]);
    report_md_code(md, run->machine);
    fputs("`.\n", md);
    regressed_md(md, &night);
    track_night_free(&night);
    return 0;
}

/* The table of the machine's last nights, newest first. */
static void nights_md(FILE *md, const page_night *p, size_t n)
{
    char t[32];
    fputs("\n| date (UTC) | commit | run | verdict | regressions | improvements | watched |\n"
          "| --- | --- | --- | --- | ---: | ---: | ---: |\n",
          md);
    for (size_t k = 0; k < n && k < PAGE_TABLE; k++) {
        const page_night *x = &p[n - 1 - k];
        fprintf(md, "| %s | `%.12s` | `%s` | ", when(x->run.start, t, sizeof t), x->run.env[HIST_ENV_git_commit],
                x->run.file);
        if (!x->judged) {
            fputs("not judged (an index error) | | | |\n", md);
            continue;
        }
        const char *colon = strchr(x->verdict, ':');
        fprintf(md, "%s | %zu | %zu | %zu |\n",
                strncmp(x->verdict, "REGRESSION", 10) == 0 ? "**REGRESSION**"
                : strstr(x->verdict, "not judged")         ? "not judged yet"
                                                           : "OK",
                x->count[TRACK_REGRESSION], x->count[TRACK_IMPROVEMENT], x->count[TRACK_WATCH]);
        (void)colon;
    }
    if (n > PAGE_TABLE)
        fprintf(md, "\n%zu earlier nights of this machine are in the history (`ringbench track --history DIR`).\n",
                n - PAGE_TABLE);
}

/* The machine's environment changes: the first run of each new environment and what changed. */
static void env_md(FILE *md, const hist_run *runs, size_t n)
{
    char diff[1024];
    int k = 0;
    for (size_t r = 1; r < n; r++)
        if (track_env_diff(&runs[r - 1], &runs[r], diff, sizeof diff)) {
            if (!k++)
                fputs("\n| first run of the new environment | time (UTC) | change |\n| --- | --- | --- |\n", md);
            fprintf(md, "| `%s` | %s | ", runs[r].file, runs[r].start);
            md_text(md, diff);
            fputs(" |\n", md);
        }
    if (!k)
        fputs("\nNo environment change in this history.\n", md);
}

// --- the plots ---------------------------------------------------------------------------------------------

/* gnuplot for the x axis: every night's index, a date-time (and the commit where commits differ) on
 * every step-th, so that no two labels touch in an 800 px column; a dashed line before each night whose
 * environment changed (driver, CUDA, kernel, ringbench version or commit, ...). */
static void night_xtics(FILE *gp, const page_night *p, size_t n)
{
    int commits = 0;
    for (size_t i = 1; i < n; i++)
        commits |= strcmp(p[i].run.env[HIST_ENV_git_commit], p[0].run.env[HIST_ENV_git_commit]) != 0;
    const size_t step = n > 7 ? (n + 6) / 7 : 1;
    fputs("set xtics (", gp);
    for (size_t i = 0; i < n; i++) {
        const char *t = p[i].run.start;
        if ((n - 1 - i) % step != 0) /* the newest night always labelled */
            fprintf(gp, "%s\"\" %zu", i ? ", " : "", i);
        else
            fprintf(gp, "%s\"%.5s %.5s%s%.7s\" %zu", i ? ", " : "", strlen(t) > 5 ? t + 5 : t,
                    strlen(t) > 11 ? t + 11 : "", commits ? "\\n" : "",
                    commits ? p[i].run.env[HIST_ENV_git_commit] : "", i);
    }
    fprintf(gp, ") font ',12'\nset xrange [-0.5:%zu.5]\n", n ? n - 1 : 0);
    if (commits)
        fputs("set bmargin 3\n", gp);
    char diff[1024];
    for (size_t i = 1; i < n; i++)
        if (track_env_diff(&p[i - 1].run, &p[i].run, diff, sizeof diff))
            fprintf(gp, "set arrow from %zu.5, graph 0 to %zu.5, graph 1 nohead lc rgb '#C04000' dt 2 lw 1.5\n", i - 1,
                    i - 1);
}

/* The unit a side of figure k is plotted in, chosen from its newest figure x so that its numbers read
 * as report.md writes them (ns, µs or ms; MB/s or GB/s; k, M or G msg/s for a full window), and the
 * factor from the judged figure (µs, GB/s) to it. */
static double plot_unit(int k, const track_judged *x, const char **unit)
{
    const int msgs = headline_defs[k].full_window && x->size > 0;
    double v = x->r.newest, f = 1;
    if (msgs) {
        f = 1e9 / (double)x->size;
        v *= f;
        static const char *const m[] = {"msg/s", "k msg/s", "M msg/s", "G msg/s"};
        int i = 0;
        for (; i < 3 && v >= 1e3; i++, v /= 1e3, f /= 1e3)
            ;
        *unit = m[i];
    } else if (rb_unit_is_rate(x->unit)) {
        *unit = v < 1 ? "MB/s" : "GB/s";
        f = v < 1 ? 1e3 : 1;
    } else {
        *unit = v < 1 ? "ns" : v >= 1e3 ? "ms" : "µs";
        f = v < 1 ? 1e3 : v >= 1e3 ? 1e-3 : 1;
    }
    return f;
}

/* The figure as plotted: the judged value times the side's unit factor. */
static double plotted(double v, double f) { return isfinite(v) ? v * f : NAN; }

/* DIR/plots/STEM.dat (name): per night its index, then per side the judged figure, the band's low and
 * high edge, the baseline and the night's call (0 none or not judged, 1 regression, 2 improvement, 3
 * watch). Written whole or not at all (report_file_open). Returns 0, or -1 with err. */
static int figure_dat(const char *pdir, const char *name, const page_night *p, size_t n, int k, int *has, char *err,
                      size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, pdir, name, err, errlen) != 0)
        return -1;
    FILE *dat = rf.f;
    fputs("# night, then per side (native, fallback): figure, band low, band high, baseline (in the unit its plot "
          "names), call (1 regression, 2 improvement, 3 watch)\n",
          dat);
    has[0] = has[1] = 0;
    const char *unit;
    const double f[2] = {plot_unit(k, &p[n - 1].hl[k][0], &unit), plot_unit(k, &p[n - 1].hl[k][1], &unit)};
    for (size_t i = 0; i < n; i++) {
        fprintf(dat, "%zu", i);
        for (int s = 0; s < 2; s++) {
            const track_judged *x = &p[i].hl[k][s];
            const double c = p[i].catch[k][s], b = plotted(x->r.baseline, f[s]);
            const double v = x->cell[0] ? plotted(x->r.newest, f[s]) : NAN;
            const double lo = isfinite(c) ? b / (1 + c) : NAN, hi = isfinite(c) ? b * (1 + c) : NAN;
            has[s] |= isfinite(v);
            fprintf(dat, " %.6g %.6g %.6g %.6g %d", v, lo, hi, isfinite(c) ? b : NAN,
                    x->cell[0] && x->r.kind >= TRACK_REGRESSION && x->r.kind <= TRACK_IMPROVEMENT ? (int)x->r.kind
                    : x->cell[0] && x->r.kind == TRACK_WATCH                                      ? 3
                                                                                                  : 0);
        }
        fputc('\n', dat);
    }
    return report_file_close(&rf, err, errlen);
}

/* One panel of a figure's plot: side s's band, baseline, figure and the nights it called. */
static void figure_panel(FILE *gp, const char *stem, int s, const char *title, const char *ylabel)
{
    const int c = 2 + 5 * s; /* the side's first column */
    fputs("set title ", gp);
    report_gp_quote(gp, title);
    fputs(" font ',14' offset 0,-0.4\nset ylabel ", gp);
    report_gp_quote(gp, ylabel);
    fprintf(gp,
            "\nplot '%s.dat' using 1:%d:%d with filledcurves lc rgb '#C8D8F0' notitle, \\\n"
            "  '' using 1:%d with lines lc rgb '#5070A0' dt 2 lw 2 notitle, \\\n"
            "  '' using 1:%d with linespoints lc rgb 'black' pt 7 ps 0.9 lw 2 notitle, \\\n"
            "  '' using 1:(column(%d) == 1 ? column(%d) : NaN) with points lc rgb '#D00000' pt 9 ps 2.4 notitle, \\\n"
            "  '' using 1:(column(%d) == 2 ? column(%d) : NaN) with points lc rgb '#008000' pt 11 ps 2.4 notitle\n",
            stem, c + 1, c + 2, c + 3, c, c + 4, c, c + 4, c);
}

/* The legend: one row across the figure under its title, above the panels (never over data). */
static void figure_legend(FILE *gp, double y, double h)
{
    fprintf(gp, "set origin 0,%.3f\nset size 1,%.3f\n", y, h);
    fputs("unset border\nunset tics\nunset grid\nunset xlabel\nunset ylabel\nunset title\nset xrange [0:1]\n"
          "set yrange [0:1]\nset margins 0,0,0,0\nset key center center horizontal maxrows 2 font ',12' samplen 2\n"
          "plot 2 notitle, \\\n"
          "  keyentry with filledcurves lc rgb '#C8D8F0' title 'no-call band', \\\n"
          "  keyentry with lines lc rgb '#5070A0' dt 2 lw 2 title 'baseline', \\\n"
          "  keyentry with linespoints lc rgb 'black' pt 7 ps 0.9 lw 2 title 'the night', \\\n"
          "  keyentry with points lc rgb '#D00000' pt 9 ps 2.4 title 'regression', \\\n"
          "  keyentry with points lc rgb '#008000' pt 11 ps 2.4 title 'improvement', \\\n"
          "  keyentry with lines lc rgb '#C04000' dt 2 lw 1.5 title 'env. change'\n"
          "set border\nset tics\nset grid xtics ytics lc rgb '#DDDDDD' lw 1\nset autoscale\nunset key\n",
          gp);
}

/* A side's panel title: which cell, and which series the night judged it on. */
static void side_title(int s, const track_judged *x, char *buf, size_t n)
{
    const int measured = x->as_measured || !x->has_raw;
    const char *shift = !x->shift                        ? ""
                        : strcmp(x->shift, "calls") == 0 ? "the cudaMemcpy calls'"
                        : strcmp(x->shift, "host") == 0  ? "the host's"
                                                         : "the machine's";
    snprintf(buf, n, "%s%s%s%s", s == HL_NATIVE ? "native" : mode_path_title(MODE_PATH_FALLBACK),
             s == HL_NATIVE && x->pooled ? " modes, pooled"
             : s == HL_NATIVE            ? " path"
                                         : "",
             measured ? ", as measured" : ", beyond ", measured ? "" : shift);
    if (!measured)
        snprintf(buf + strlen(buf), n - strlen(buf), " shift");
}

/* DIR/plots/STEM.gp: one panel per side that has a figure, stacked under one legend; written whole or
 * not at all. Returns 0, or -1 with err. */
static int figure_gp(const char *pdir, const char *stem, const page_night *p, size_t n, int k, const int has[2],
                     const char *title, char *err, size_t errlen)
{
    char name[160];
    report_file rf;
    snprintf(name, sizeof name, "%s.gp", stem);
    if (report_file_open(&rf, pdir, name, err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    const int panels = has[0] + has[1];
    const double top = panels == 2 ? 0.855 : 0.75, legend = panels == 2 ? 0.07 : 0.12; /* under title and legend */
    report_gp_begin(gp, stem, title, (report_canvas){960, panels == 2 ? 720 : 420});
    report_gp_title(gp, title, NULL);
    figure_legend(gp, top, legend);
    fputs("set lmargin 12\nset rmargin 3\nset tmargin 1.6\nset bmargin 2\nset style fill transparent solid 0.6 "
          "noborder\nset format y '%.3g'\nset offsets 0, 0, graph 0.1, graph 0.1\n",
          gp);
    night_xtics(gp, p, n);
    const double h = top / (panels ? panels : 1);
    for (int s = 0, row = 0; s < 2; s++) {
        if (!has[s])
            continue;
        const track_judged *x = &p[n - 1].hl[k][s];
        char panel[160];
        const char *unit;
        plot_unit(k, x, &unit);
        side_title(s, x, panel, sizeof panel);
        fprintf(gp, "set origin 0,%.3f\nset size 1,%.3f\n", top - h * (row + 1), h);
        figure_panel(gp, stem, s, panel, unit);
        row++;
    }
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

/* Headline figure k's plot over the machine's nights p (prefix: the machine's): its data and script in
 * pdir, rendered with gnuplot (NULL: not), and its line in the page. Returns 0, or -1 with err. */
static int figure_plot(FILE *md, const char *pdir, const char *prefix, const page_night *p, size_t n, int k,
                       const char *gnuplot, char *err, size_t errlen)
{
    char stem[128], name[160], title[128], sz[32];
    int has[2];
    const headline_def *d = &headline_defs[k];
    snprintf(stem, sizeof stem, "%s_%s", prefix, d->key);
    snprintf(name, sizeof name, "%s.dat", stem);
    if (figure_dat(pdir, name, p, n, k, has, err, errlen) != 0)
        return -1;
    if (d->fastest && !d->full_window)
        has[HL_FALLBACK] = 0; /* the fallback's round trip, plotted with the other figure at its size */
    const track_judged *x = &p[n - 1].hl[k][has[HL_NATIVE] ? HL_NATIVE : HL_FALLBACK];
    snprintf(title, sizeof title, "%s%s%s%s",
             d->full_window ? "full window"
             : d->fastest   ? "round trip"
                            : d->label,
             d->size != HL_SIZE_NONE ? ", " : "",
             d->size != HL_SIZE_NONE ? report_size_str(x->size, sz, sizeof sz) : "",
             d->fastest && !d->full_window ? ", the fastest native mode" : "");
    if (!has[0] && !has[1]) {
        fprintf(md, "- %s: not measured in these nights.\n", title);
        return 0;
    }
    if (figure_gp(pdir, stem, p, n, k, has, title, err, errlen) != 0)
        return -1;
    char script[160], gerr[600];
    snprintf(script, sizeof script, "%s.gp", stem);
    if (gnuplot && report_gnuplot_run(gnuplot, pdir, script, gerr, sizeof gerr) != 0 && !report_stopped())
        fprintf(stderr, "ringbench track: warning: %s\n", gerr);
    fprintf(md, "![%s](plots/%s.png)\n\n", title, stem);
    return 0;
}

/* The floor, a reference never judged: its p50 and interval per night, last on the page. Returns 0, or -1
 * with err. */
static int floor_plot(FILE *md, hist *h, const char *pdir, const char *prefix, const page_night *p, size_t n,
                      const char *gnuplot, char *err, size_t errlen)
{
    char stem[128], name[160];
    report_file rf;
    snprintf(stem, sizeof stem, "%s_floor", prefix);
    snprintf(name, sizeof name, "%s.dat", stem);
    if (report_file_open(&rf, pdir, name, err, errlen) != 0)
        return -1;
    FILE *dat = rf.f;
    const char *none[4] = {NULL, NULL, NULL, NULL};
    int any = 0, failed = 0;
    fputs("# night, the floor's p50 and its 95 % interval (us)\n", dat);
    for (size_t i = 0; i < n; i++) {
        hist_figures f;
        const int found = hist_cell_estimate(h, p[i].run.id, "base_floor", none, -1, &f);
        failed |= found < 0;
        any |= found == 1;
        fprintf(dat, "%zu %.6g %.6g %.6g\n", i, found == 1 ? f.p50 : NAN, found == 1 ? f.ci_lo : NAN,
                found == 1 ? f.ci_hi : NAN);
    }
    if (failed) {
        report_file_discard(&rf);
        snprintf(err, errlen, "index query: %s", hist_error(h));
        return -1;
    }
    if (report_file_close(&rf, err, errlen) != 0)
        return -1;
    if (!any)
        return 0;
    snprintf(name, sizeof name, "%s.gp", stem);
    if (report_file_open(&rf, pdir, name, err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    const char *title = "the floor: one-word ping-pong through mapped pinned memory";
    report_gp_begin(gp, stem, title, (report_canvas){960, 460});
    report_gp_title(gp, title, "a reference of the machine, never judged");
    fputs("set key outside bottom center horizontal font ',12'\nset lmargin 12\nset rmargin 3\n"
          "set style fill transparent solid 0.6 noborder\nset ylabel 'p50 (µs)'\nset format y '%.3g'\n",
          gp);
    night_xtics(gp, p, n);
    fprintf(gp,
            "plot '%s.dat' using 1:3:4 with filledcurves lc rgb '#DDDDDD' title '95 %% interval', \\\n"
            "  '' using 1:2 with linespoints lc rgb '#404040' pt 7 ps 0.9 lw 2 title 'p50'\n",
            stem);
    report_gp_end(gp);
    if (report_file_close(&rf, err, errlen) != 0)
        return -1;
    char script[160], gerr[600];
    snprintf(script, sizeof script, "%s.gp", stem);
    if (gnuplot && report_gnuplot_run(gnuplot, pdir, script, gerr, sizeof gerr) != 0 && !report_stopped())
        fprintf(stderr, "ringbench track: warning: %s\n", gerr);
    fprintf(md, "![the floor, a reference](plots/%s.png)\n", stem);
    return 0;
}

// --- the page ----------------------------------------------------------------------------------------------

/* What a machine's section needs. */
typedef struct page_ctx {
    hist *h;
    const track_options *o;
    const char *pdir, *gnuplot;
    char *err;
    size_t errlen;
} page_ctx;

/* The last PAGE_NIGHTS complete runs of a machine (runs[0..n-1]), each judged, into a malloc'd array. */
static page_night *judge_nights(const page_ctx *c, const hist_run *runs, size_t n, size_t *np)
{
    const size_t first = n > PAGE_NIGHTS ? n - PAGE_NIGHTS : 0;
    page_night *p = calloc(n - first ? n - first : 1, sizeof *p);
    *np = 0;
    if (!p)
        return NULL;
    for (size_t r = first; r < n; r++) {
        char why[1024];
        if (page_judge(c->h, &runs[r], c->o, &p[*np], why, sizeof why) != 0)
            fprintf(stderr, "ringbench track: history page: %s: %s\n", runs[r].file, why);
        (*np)++;
    }
    return p;
}

/* The history page's section of one machine (number m). Returns 0, or -1 with c->err. */
static int machine_section(FILE *md, const page_ctx *c, const char *machine, int m)
{
    hist_run *runs = NULL;
    size_t n = 0, np = 0;
    if (hist_complete_runs(c->h, machine, &runs, &n) != 0) {
        snprintf(c->err, c->errlen, "index query: %s", hist_error(c->h));
        return -1;
    }
    char prefix[16], t0[32], t1[32];
    snprintf(prefix, sizeof prefix, "m%d", m);
    fprintf(md, "\n## Machine %d: `", m);
    report_md_code(md, machine);
    fprintf(md, "`\n\n%zu complete runs, %s to %s UTC.\n", n, n ? when(runs[0].start, t0, sizeof t0) : "-",
            n ? when(runs[n - 1].start, t1, sizeof t1) : "-");
    page_night *p = n ? judge_nights(c, runs, n, &np) : NULL;
    int rc = n && !p ? -1 : 0;
    if (rc != 0)
        snprintf(c->err, c->errlen, "out of memory");
    if (p && np) {
        nights_md(md, p, np);
        fprintf(md,
                "\n### Headline figures, the last %zu nights\n\nEach night's figure as `track` judged it (a full "
                "window in messages per second), the band around its baseline that the night would not call, and "
                "the nights it called a regression (red) or an improvement (green).\n\n",
                np);
    }
    for (int k = 0; rc == 0 && p && np && k < HL_COUNT; k++)
        rc = figure_plot(md, c->pdir, prefix, p, np, k, c->gnuplot, c->err, c->errlen);
    if (rc == 0) {
        fputs("\n### Environment changes\n", md);
        env_md(md, runs, n);
        fputs("\n### References\n\n", md);
        if (p && np)
            rc = floor_plot(md, c->h, c->pdir, prefix, p, np, c->gnuplot, c->err, c->errlen);
    }
    free(p);
    free(runs);
    return rc;
}

/* The newest complete run of the history (by start time, then the last added) into *out. Returns 1, 0
 * when there is none, -1 on an index error. */
static int newest_run(hist *h, char **machines, size_t nm, hist_run *out)
{
    int found = 0;
    for (size_t m = 0; m < nm; m++) {
        hist_run *runs;
        size_t n;
        if (hist_complete_runs(h, machines[m], &runs, &n) != 0)
            return -1;
        const int later = found ? strcmp(runs[n - 1].start, out->start) : 1;
        if (n && (later > 0 || (later == 0 && runs[n - 1].id > out->id))) {
            *out = runs[n - 1];
            found = 1;
        }
        free(runs);
    }
    return found;
}

/* The page into md: the newest run's verdict, then every machine's section. Returns 0, or -1 with c->err. */
static int page_body(FILE *md, const page_ctx *c)
{
    char **machines = NULL;
    size_t nm = 0;
    hist_run newest;
    if (hist_machines(c->h, &machines, &nm) != 0) {
        snprintf(c->err, c->errlen, "index query: %s", hist_error(c->h));
        return -1;
    }
    int rc = 0, have = newest_run(c->h, machines, nm, &newest);
    if (have < 0) {
        snprintf(c->err, c->errlen, "index query: %s", hist_error(c->h));
        rc = -1;
    } else if (have)
        rc = newest_md(md, c->h, &newest, c->o, c->err, c->errlen);
    else
        fputs("\nNo complete run in this history yet.\n", md);
    for (size_t m = 0; rc == 0 && !report_stopped() && m < nm; m++)
        rc = machine_section(md, c, machines[m], (int)m);
    hist_strings_free(machines, nm);
    return rc;
}

void track_page_watch(volatile sig_atomic_t *stop) { report_watch(stop); }

int track_history_page(hist *h, const track_options *o, char *err, size_t errlen)
{
    char pdir[4200], gnuplot[4096];
    snprintf(pdir, sizeof pdir, "%s/plots", hist_dir(h));
    if (mkdir(pdir, 0755) != 0 && access(pdir, W_OK) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", pdir, strerror(errno));
        return -1;
    }
    /* history.md is written whole or not at all (report_file_open): an interrupted or failed page
     * leaves the one before. */
    report_file rf;
    if (report_file_open(&rf, hist_dir(h), "history.md", err, errlen) != 0)
        return -1;
    FILE *md = rf.f;
    const int have_gnuplot = report_gnuplot_find(gnuplot, sizeof gnuplot) == 0;
    const page_ctx c = {h, o, pdir, have_gnuplot ? gnuplot : NULL, err, errlen};
    fputs("# Run history\n", md);
    int rc = page_body(md, &c);
    fputs("\n---\n\nWritten by `ringbench track` from the history index (`index.sqlite`); the run files next to it "
          "are the record. Runs are compared only within one machine fingerprint (host, backend, GPU, PCI bus id, "
          "WSL2 or native); each night is judged as `track` judges it (docs/tracking.md).\n",
          md);
    if (!have_gnuplot)
        fputs("\n*gnuplot was not found: the data and scripts are in `plots/`, the images are missing.*\n", md);
    if (rc == 0 && report_stopped()) {
        snprintf(err, errlen, "interrupted: %s/history.md left as it was", hist_dir(h));
        rc = -1;
    }
    if (rc != 0) {
        report_file_discard(&rf);
        return -1;
    }
    return report_file_close(&rf, err, errlen);
}
