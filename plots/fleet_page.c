/* fleet_page.c - the fleet page of a history (fleet_page.h): DIR/fleet.md and DIR/plots/fleet_*.
 *
 * The first screen says what a fleet's maintainer needs: every machine with its newest verdict, then
 * for each WSL2 / native pair of one GPU the cross-platform ratio of every headline figure on the
 * newest night with its interval and its change against the nights before (a regression named with
 * the version change beside it). Then every machine's headline figures side by side, and a section per
 * machine with its own trends. Plots are made for docs at 800 px: 960 x 540, 14 pt text, the legend
 * under the plot, never over data; version changes are dashed vertical lines with their words.
 * What is judged and how is harness/fleet.h's; this file only renders it. Exercised by
 * tests/fleet_cli.sh.
 */
#include "fleet_page.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_internal.h"

/* The two plots of a pair or machine: the round trips and throughputs, and the control-block
 * operations (three figures whose ratios are two orders of magnitude above the others). */
static const struct {
    const char *stem, *title;
    headline_id figs[5];
    size_t n;
} GROUPS[] = {
    {"rt", "round trips and throughput", {HL_RT_SMALL, HL_RT_FASTEST, HL_RT_LARGE, HL_THR_LARGE, HL_FULL_WINDOW}, 5},
    {"cb", "control-block operations", {HL_CB_READ, HL_CB_WRITE, HL_CB_HANDSHAKE}, 3},
};
#define NGROUPS (sizeof GROUPS / sizeof *GROUPS)

static const char *const COLOURS[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};

typedef struct page {
    const fleet *f;
    const char *dir;
    char pdir[4200];
    char gnuplot[4096]; /* "" without gnuplot */
    FILE *md;
} page;

// --- words ----------------------------------------------------------------------------------------------

/* "round trip 8 B", "round trip 8 B, fastest", "control-block read": figure k with its size, from the
 * first run that stored it. */
static const char *fig_label(const fleet *f, headline_id k, char *buf, size_t n)
{
    const headline_def *d = &headline_defs[k];
    const hist_headline *x = NULL;
    for (size_t i = 0; i < f->nruns && !x; i++)
        x = fleet_figure(&f->runs[i], k);
    char sz[32] = "";
    if (d->size != HL_SIZE_NONE && x)
        report_size_str(x->size, sz, sizeof sz);
    snprintf(buf, n, "%s%s%s%s",
             d->full_window ? "full window"
             : d->fastest   ? "round trip"
                            : d->label,
             sz[0] ? " " : "", sz, d->fastest && !d->full_window ? ", fastest" : "");
    return buf;
}

/* "host-a · native · NVIDIA H100 80GB HBM3" */
static const char *machine_label(const fleet_machine *m, char *buf, size_t n)
{
    const hist_listed *l = &m->first->l;
    snprintf(buf, n, "%s · %s · %s", l->host, l->wsl2 ? "WSL2" : "native",
             strcmp(l->backend, "cuda") == 0 ? l->gpu : "CPU backend");
    return buf;
}

static const char *pct(double x, char *buf, size_t n)
{
    if (isfinite(x))
        snprintf(buf, n, "%+.1f %%", 100 * x);
    else
        snprintf(buf, n, "n/a");
    return buf;
}

// --- plots ------------------------------------------------------------------------------------------------

/* One row of a plot's data: the run's start, then per figure est lo hi. */
typedef struct plot_row {
    const char *start;
    double v[5][3];
    const char *mark; /* a version change at this row, or NULL */
} plot_row;

/* The page's lines under a plot: its image, and what each numbered dashed line marks. */
static void plot_md(page *pg, const char *stem, const char *title, const plot_row *rows, size_t n)
{
    fprintf(pg->md, "\n![%s](plots/%s.png)\n", title, stem);
    for (size_t r = 0, k = 0; r < n; r++)
        if (rows[r].mark) {
            fprintf(pg->md, "%s%zu: %.10s, ", k ? "; " : "\nDashed lines: ", k + 1, rows[r].start);
            report_md_text(pg->md, rows[r].mark);
            k++;
        }
    for (size_t r = 0; r < n; r++)
        if (rows[r].mark) {
            fputs(".\n", pg->md);
            break;
        }
}

/* The plot's script after its data: a time series per figure of group g on a log2 scale (ticks at
 * 1x, 2x, 4x, ... whatever the range), bands for the intervals, and a dashed line at each mark,
 * numbered in the top margin (the words are under the plot on the page, never over data). */
static void plot_script(FILE *gp, page *pg, const char *stem, const char *title, size_t g, const plot_row *rows,
                        size_t n)
{
    report_gp_begin(gp, stem, title, (report_canvas){960, 540});
    fputs("set xdata time\nset timefmt '%Y-%m-%dT%H:%M:%SZ'\nset format x '%m-%d'\nset xtics rotate by -30\n"
          "set rmargin 6\nset tmargin 4\nset key outside below center horizontal\n"
          "set style fill transparent solid 0.18 noborder\nset logscale y 2\nset ylabel 'ratio on time'\n"
          "set format y '%g×'\n",
          gp);
    fputs("set title ", gp);
    report_gp_quote(gp, title);
    fputs(" font ',15' offset 0,0.6\n", gp);
    for (size_t r = 0, k = 0; r < n; r++)
        if (rows[r].mark) {
            k++;
            fprintf(gp, "set arrow %zu from '%s', graph 0 to '%s', graph 1 nohead lc rgb '#C04000' dt 2 lw 1.5\n", k,
                    rows[r].start, rows[r].start);
            fprintf(gp, "set label %zu '%zu' at '%s', graph 1.03 center front font ',13' tc rgb '#C04000'\n", k, k,
                    rows[r].start);
        }
    fputs("plot ", gp);
    for (size_t k = 0; k < GROUPS[g].n; k++) {
        char label[96];
        int c = 2 + 3 * (int)k;
        fprintf(gp,
                "%s'%s.dat' using 1:%d:%d with filledcurves lc rgb '%s' notitle, \\\n  '%s.dat' using 1:%d with "
                "linespoints lc rgb '%s' pt 7 ps 0.7 lw 2 title ",
                k ? ", \\\n  " : "", stem, c + 1, c + 2, COLOURS[k], stem, c, COLOURS[k]);
        report_gp_quote(gp, fig_label(pg->f, GROUPS[g].figs[k], label, sizeof label));
    }
    fputc('\n', gp);
    report_gp_end(gp);
}

/* Writes STEM.dat and STEM.gp, renders it, and puts it on the page. Returns 0, or -1 with err. */
static int write_plot(page *pg, const char *stem, const char *title, size_t g, const plot_row *rows, size_t n,
                      char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.dat", pg->pdir, stem);
    FILE *dat = fopen(path, "w"), *gp = NULL;
    if (!dat)
        goto fail;
    fputs("# night (UTC), then per figure: ratio and its 95 % interval (lo hi)\n", dat);
    for (size_t r = 0; r < n; r++) {
        fputs(rows[r].start, dat);
        for (size_t k = 0; k < GROUPS[g].n; k++)
            for (int c = 0; c < 3; c++)
                fprintf(dat, isfinite(rows[r].v[k][c]) ? " %.6g" : " NaN", rows[r].v[k][c]);
        fputc('\n', dat);
    }
    if (fclose(dat) != 0)
        goto fail;
    snprintf(path, sizeof path, "%s/%s.gp", pg->pdir, stem);
    if (!(gp = fopen(path, "w")))
        goto fail;
    plot_script(gp, pg, stem, title, g, rows, n);
    if (fclose(gp) != 0)
        goto fail;
    char script[160], gerr[600];
    snprintf(script, sizeof script, "%s.gp", stem);
    if (pg->gnuplot[0] && report_gnuplot_run(pg->gnuplot, pg->pdir, script, gerr, sizeof gerr) != 0)
        fprintf(stderr, "ringbench track: warning: %s\n", gerr);
    plot_md(pg, stem, title, rows, n);
    return 0;
fail:
    snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
    return -1;
}

/* The pair's plots: a row per night of its WSL2 machine, each figure's cross-platform ratio. */
static int pair_plots(page *pg, size_t pi, char *err, size_t errlen)
{
    const fleet_pair *p = &pg->f->pairs[pi];
    const fleet_machine *w = &pg->f->m[p->wsl];
    plot_row *rows = calloc(w->n ? w->n : 1, sizeof *rows);
    int rc = rows ? 0 : -1;
    for (size_t g = 0; g < NGROUPS && rc == 0; g++) {
        for (size_t r = 0; r < w->n; r++) {
            rows[r] = (plot_row){.start = pg->f->runs[w->runs[r]].l.run.start};
            for (size_t k = 0; k < GROUPS[g].n; k++) {
                const fleet_series *s = &p->s[GROUPS[g].figs[k]];
                rows[r].v[k][0] = rows[r].v[k][1] = rows[r].v[k][2] = NAN;
                for (size_t i = 0; i < s->n; i++)
                    if (s->pts[i].wsl == w->runs[r]) {
                        rows[r].v[k][0] = s->pts[i].est;
                        rows[r].v[k][1] = s->pts[i].lo;
                        rows[r].v[k][2] = s->pts[i].hi;
                        if (s->pts[i].change[0])
                            rows[r].mark = s->pts[i].change;
                    }
            }
        }
        char stem[64], title[160];
        snprintf(stem, sizeof stem, "fleet_pair%zu_%s", pi, GROUPS[g].stem);
        snprintf(title, sizeof title, "WSL2 over native, %s", GROUPS[g].title);
        rc = write_plot(pg, stem, title, g, rows, w->n, err, errlen);
    }
    if (!rows)
        snprintf(err, errlen, "out of memory");
    free(rows);
    return rc;
}

/* The marked fields that changed between two runs of one machine, "driver 580.1 -> 590.2, kernel a -> b". */
static void run_change(const fleet_run *a, const fleet_run *b, char *buf, size_t n)
{
    static const int fields[] = {HIST_ENV_driver, HIST_ENV_cuda_runtime, HIST_ENV_kernel_release};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < 3 && len < n; k++)
        if (strcmp(a->l.run.env[fields[k]], b->l.run.env[fields[k]]) != 0)
            len += (size_t)snprintf(buf + len, n - len, "%s%s %s -> %s", len ? ", " : "", hist_env_word(fields[k]),
                                    a->l.run.env[fields[k]], b->l.run.env[fields[k]]);
}

/* A machine's plots: its own fallback / native ratios, run by run. */
static int machine_plots(page *pg, size_t mi, char *err, size_t errlen)
{
    const fleet_machine *m = &pg->f->m[mi];
    plot_row *rows = calloc(m->n ? m->n : 1, sizeof *rows);
    char(*marks)[256] = calloc(m->n ? m->n : 1, sizeof *marks);
    int rc = rows && marks ? 0 : -1;
    for (size_t g = 0; g < NGROUPS && rc == 0; g++) {
        for (size_t r = 0; r < m->n; r++) {
            const fleet_run *run = &pg->f->runs[m->runs[r]];
            rows[r] = (plot_row){.start = run->l.run.start};
            if (r > 0) {
                run_change(&pg->f->runs[m->runs[r - 1]], run, marks[r], sizeof marks[r]);
                rows[r].mark = marks[r][0] ? marks[r] : NULL;
            }
            for (size_t k = 0; k < GROUPS[g].n; k++) {
                const hist_headline *x = fleet_figure(run, GROUPS[g].figs[k]);
                rows[r].v[k][0] = x ? x->ratio : NAN;
                rows[r].v[k][1] = x ? x->ratio_lo : NAN;
                rows[r].v[k][2] = x ? x->ratio_hi : NAN;
            }
        }
        char stem[64], title[160];
        snprintf(stem, sizeof stem, "fleet_m%zu_%s", mi, GROUPS[g].stem);
        snprintf(title, sizeof title, "WSL2 fallback over native path on this machine, %s", GROUPS[g].title);
        rc = write_plot(pg, stem, title, g, rows, m->n, err, errlen);
    }
    if (!rows || !marks)
        snprintf(err, errlen, "out of memory");
    free(rows);
    free(marks);
    return rc;
}

// --- the page ---------------------------------------------------------------------------------------------

static const char *date_of(const char *start, char *buf, size_t n)
{
    snprintf(buf, n, "%.10s", start[0] ? start : "-");
    return buf;
}

static void machines_md(page *pg)
{
    const fleet *f = pg->f;
    char label[400], d[16], v[96];
    fputs("| machine | runs | newest run | its verdict |\n| --- | ---: | --- | --- |\n", pg->md);
    for (size_t m = 0; m < f->nm; m++) {
        const fleet_run *nr = &f->runs[f->m[m].newest];
        fputs("| ", pg->md);
        report_md_text(pg->md, machine_label(&f->m[m], label, sizeof label));
        fprintf(pg->md, " | %zu | %s | %s |\n", f->m[m].nall, date_of(nr->l.run.start, d, sizeof d),
                fleet_verdict_words(&nr->l, v, sizeof v));
    }
}

/* The sentence that leads a pair's section: its newest night's regressions and improvements, each
 * with the version change beside it, or that nothing moved beyond noise. */
static void pair_verdict_md(page *pg, const fleet_pair *p)
{
    char label[96], a[32], b[32], c[32], d[16];
    size_t said = 0;
    for (int k = 0; k < HL_COUNT; k++) {
        const fleet_series *s = &p->s[k];
        if (s->r.kind != TRACK_REGRESSION && s->r.kind != TRACK_IMPROVEMENT)
            continue;
        const fleet_point *first = &s->pts[s->r.first];
        fprintf(pg->md,
                "%s**%s** of the WSL2 / native ratio of %s: %s → %s (%s [%s, %s], z %.1f, needs %.1f), first "
                "seen on %s; ",
                said++ ? "\n" : "", s->r.kind == TRACK_REGRESSION ? "REGRESSION" : "Improvement",
                fig_label(pg->f, (headline_id)k, label, sizeof label), report_times(s->r.baseline),
                report_times(s->r.newest), pct(s->r.change, a, sizeof a), pct(s->r.change_lo, b, sizeof b),
                pct(s->r.change_hi, c, sizeof c), s->r.z, s->thr,
                date_of(pg->f->runs[first->wsl].l.run.start, d, sizeof d));
        if (first->change[0]) {
            fputs("beside: ", pg->md);
            report_md_text(pg->md, first->change);
            fputs(".\n", pg->md);
        } else {
            fputs("no driver, CUDA runtime or kernel change beside it.\n", pg->md);
        }
    }
    if (!said)
        fputs("No change of the WSL2 / native ratio beyond noise on the newest night.\n", pg->md);
}

/* The pair's table: per figure the newest night's ratio, its change and what it was judged. */
static void pair_table_md(page *pg, const fleet_pair *p)
{
    char label[96], a[32], b[32], c[32], d[16];
    fputs("\n| headline figure | newest night | WSL2 / native [95 % interval] | change against the nights before | "
          "judged |\n| --- | --- | --- | --- | --- |\n",
          pg->md);
    for (int k = 0; k < HL_COUNT; k++) {
        const fleet_series *s = &p->s[k];
        fprintf(pg->md, "| %s | ", fig_label(pg->f, (headline_id)k, label, sizeof label));
        if (s->n == 0) {
            fputs("- | not measured on both machines | | |\n", pg->md);
            continue;
        }
        const fleet_point *x = &s->pts[s->n - 1];
        fprintf(pg->md, "%s | **%s** [%s, %s] | ", date_of(pg->f->runs[x->wsl].l.run.start, d, sizeof d),
                report_times(x->est), report_times(x->lo), report_times(x->hi));
        if (s->r.kind == TRACK_NO_HISTORY)
            fprintf(pg->md, "%zu earlier nights (%d needed) | not judged |\n", s->n - 1, 5);
        else
            fprintf(pg->md, "%s [%s, %s] over %zu nights | %s |\n", pct(s->r.change, a, sizeof a),
                    pct(s->r.change_lo, b, sizeof b), pct(s->r.change_hi, c, sizeof c), s->r.n_baseline,
                    track_kind_name(s->r.kind));
    }
}

static int pairs_md(page *pg, char *err, size_t errlen)
{
    const fleet *f = pg->f;
    char wl[400], nl[400];
    fputs("\n## WSL2 over native, same GPU\n\n", pg->md);
    if (f->np == 0) {
        fputs("No two machines of one GPU on different platforms in this history: no cross-platform ratio yet "
              "(a pair needs a WSL2 and a native machine with the same GPU and backend, each with a complete run).\n",
              pg->md);
        return 0;
    }
    fputs("Each night's ratio is the WSL2 machine's figure on its fallback path over the native machine's on its "
          "native path, on time (larger: WSL2 costs more), with the native run nearest in time; the interval combines "
          "both runs' 95 % intervals. The newest night is judged against the nights before it like any tracked "
          "figure; dashed lines mark driver, CUDA runtime and kernel changes of either machine.\n",
          pg->md);
    for (size_t i = 0; i < f->np; i++) {
        const fleet_pair *p = &f->pairs[i];
        fputs("\n### ", pg->md);
        report_md_text(pg->md, machine_label(&f->m[p->wsl], wl, sizeof wl));
        fputs(" over ", pg->md);
        report_md_text(pg->md, machine_label(&f->m[p->native], nl, sizeof nl));
        fputs("\n\n", pg->md);
        pair_verdict_md(pg, p);
        pair_table_md(pg, p);
        if (pair_plots(pg, i, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* One machine's figure k in its newest complete run: the ratio, or what it has without one. */
static void machine_figure_md(page *pg, const fleet_machine *m, headline_id k)
{
    const hist_headline *x = m->n ? fleet_figure(&pg->f->runs[m->runs[m->n - 1]], k) : NULL;
    if (x && isfinite(x->ratio))
        fprintf(pg->md, " %s [%s, %s] |", report_times(x->ratio), report_times(x->ratio_lo), report_times(x->ratio_hi));
    else if (x && isfinite(x->value[HL_FALLBACK]))
        fputs(" no ratio: the native path was not measured |", pg->md);
    else
        fputs(" - |", pg->md);
}

static void headlines_md(page *pg)
{
    const fleet *f = pg->f;
    char label[400];
    fputs("\n## Headline figures, every machine\n\nEach machine's newest complete run: its WSL2 fallback path "
          "over its native path, on time, with the 95 % interval (harness/headline.h's figures, as `ringbench "
          "report` shows them).\n\n| headline figure |",
          pg->md);
    for (size_t m = 0; m < f->nm; m++) {
        fputc(' ', pg->md);
        report_md_text(pg->md, machine_label(&f->m[m], label, sizeof label));
        fputs(" |", pg->md);
    }
    fputs("\n| --- |", pg->md);
    for (size_t m = 0; m < f->nm; m++)
        fputs(" --- |", pg->md);
    fputc('\n', pg->md);
    for (int k = 0; k < HL_COUNT; k++) {
        fprintf(pg->md, "| %s |", fig_label(f, (headline_id)k, label, sizeof label));
        for (size_t m = 0; m < f->nm; m++)
            machine_figure_md(pg, &f->m[m], (headline_id)k);
        fputc('\n', pg->md);
    }
}

static int machine_md(page *pg, size_t mi, char *err, size_t errlen)
{
    const fleet_machine *m = &pg->f->m[mi];
    const fleet_run *nr = &pg->f->runs[m->newest];
    char label[400], d0[16], d1[16], v[96];
    fputs("\n## ", pg->md);
    report_md_text(pg->md, machine_label(m, label, sizeof label));
    fprintf(pg->md, "\n\nNewest run `%s` (%s): **%s**", nr->l.run.file, nr->l.run.start,
            fleet_verdict_words(&nr->l, v, sizeof v));
    if (nr->l.j.verdict[0])
        fprintf(pg->md, ", %d cell%s watched", nr->l.j.watch, nr->l.j.watch == 1 ? "" : "s");
    fprintf(pg->md, ". %zu complete runs of %zu, %s to %s; driver %s, kernel %s, commit %.12s.\n", m->n, m->nall,
            m->n ? date_of(pg->f->runs[m->runs[0]].l.run.start, d0, sizeof d0) : "-",
            m->n ? date_of(pg->f->runs[m->runs[m->n - 1]].l.run.start, d1, sizeof d1) : "-",
            nr->l.run.env[HIST_ENV_driver], nr->l.run.env[HIST_ENV_kernel_release], nr->l.run.env[HIST_ENV_git_commit]);
    fputs("Fingerprint: `", pg->md);
    for (const char *c = m->fingerprint; *c; c++) /* a code span: no escapes, no backtick */
        fputc(*c == '`' ? '\'' : (unsigned char)*c < 0x20 ? ' ' : *c, pg->md);
    fputs("`\n", pg->md);
    if (m->n == 0)
        return 0;
    return machine_plots(pg, mi, err, errlen);
}

static int page_body(page *pg, hist *h, char *err, size_t errlen)
{
    const fleet *f = pg->f;
    char d0[16], d1[16];
    fprintf(pg->md, "# Fleet: %zu machine%s, one history\n\n%zu runs from %s to %s in `", f->nm, f->nm == 1 ? "" : "s",
            f->nruns, f->nruns ? date_of(f->runs[0].l.run.start, d0, sizeof d0) : "-",
            f->nruns ? date_of(f->runs[f->nruns - 1].l.run.start, d1, sizeof d1) : "-");
    report_md_text(pg->md, hist_location(h));
    fputs("`. Written by `ringbench track --page` from what the history holds (runs, machines, headline figures, "
          "judgements), never from a run file.\n\n",
          pg->md);
    if (!pg->gnuplot[0])
        fputs("*gnuplot was not found: the data and scripts are in `plots/`, the images are missing.*\n\n", pg->md);
    machines_md(pg);
    if (pairs_md(pg, err, errlen) != 0)
        return -1;
    headlines_md(pg);
    for (size_t m = 0; m < f->nm; m++)
        if (machine_md(pg, m, err, errlen) != 0)
            return -1;
    return 0;
}

int fleet_page_write(hist *h, const char *dir, fleet_page_summary *sum, char *err, size_t errlen)
{
    fleet f;
    page pg = {.f = &f, .dir = dir};
    char mdpath[4300], tmp[4400];
    memset(sum, 0, sizeof *sum);
    if (fleet_load(h, &f, err, errlen) != 0) {
        fleet_free(&f);
        return -1;
    }
    snprintf(pg.pdir, sizeof pg.pdir, "%s/plots", dir);
    snprintf(mdpath, sizeof mdpath, "%s/fleet.md", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", mdpath, (long)getpid());
    int rc = -1;
    if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || (mkdir(pg.pdir, 0755) != 0 && errno != EEXIST))
        snprintf(err, errlen, "%s: cannot create: %s", pg.pdir, strerror(errno));
    else if (!(pg.md = fopen(tmp, "w")))
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
    else {
        if (report_gnuplot_find(pg.gnuplot, sizeof pg.gnuplot) != 0)
            pg.gnuplot[0] = '\0';
        rc = page_body(&pg, h, err, errlen);
        if (fclose(pg.md) != 0 && rc == 0) {
            snprintf(err, errlen, "%s: write error: %s", tmp, strerror(errno));
            rc = -1;
        }
        if (rc == 0 && rename(tmp, mdpath) != 0) {
            snprintf(err, errlen, "%s: cannot rename into place: %s", mdpath, strerror(errno));
            rc = -1;
        }
        if (rc != 0)
            remove(tmp);
    }
    *sum = (fleet_page_summary){f.nm, f.nruns, f.np, f.regressions, 0};
    for (size_t i = 0; i < f.np; i++)
        sum->improvements += f.pairs[i].improvements;
    fleet_free(&f);
    return rc;
}
