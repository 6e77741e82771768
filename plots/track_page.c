/* track_page.c - the history page of `ringbench track`: per machine, trend plots of the key
 * figures over time (intervals as bands, environment changes as labelled vertical lines) and
 * DIR/history.md, a page docs can include. Reads the history index only.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_internal.h"
#include "track.h"

#define MIB4 4194304LL

/* The mode a series follows: none (a baseline), the two named paths of the mode table, and two
 * variations of the native one. */
enum { BASELINE = 0, NATIVE, MANAGED, FALLBACK, ZEROCOPY };

typedef struct series_spec {
    const char *title, *family; /* title NULL: the path's (mode_path_title) */
    int mode;                   /* BASELINE, NATIVE, ... */
    long long size;             /* -1: any size */
} series_spec;

typedef struct figure_spec {
    const char *stem, *title, *ylabel;
    int logy, ratio; /* ratio: series come in pairs (fallback, native) and are divided */
    series_spec s[6];
} figure_spec;

static const figure_spec figures[] = {
    {"floor",
     "Floor: one-word ping-pong through mapped pinned memory",
     "p50 (us)",
     0,
     0,
     {{"floor", "base_floor", BASELINE, -1}}},
    {"latency_8B",
     "Round trip, 8 B",
     "p50 (us)",
     1,
     0,
     {{"native (mapped)", "latency", NATIVE, 8},
      {"native (managed)", "latency", MANAGED, 8},
      {NULL, "latency", FALLBACK, 8},
      {"zero-copy", "latency", ZEROCOPY, 8}}},
    {"latency_4MiB",
     "Round trip, 4 MiB",
     "p50 (us)",
     1,
     0,
     {{"native (mapped)", "latency", NATIVE, MIB4},
      {"native (managed)", "latency", MANAGED, MIB4},
      {NULL, "latency", FALLBACK, MIB4}}},
    {"throughput_4MiB",
     "Throughput, 4 MiB messages",
     "GB/s",
     1,
     0,
     {{"native (mapped)", "throughput", NATIVE, MIB4},
      {"native (managed)", "throughput", MANAGED, MIB4},
      {NULL, "throughput", FALLBACK, MIB4}}},
    {"control_block",
     "Control-block operations",
     "p50 (us)",
     1,
     0,
     {{"read, native", "cb_read", NATIVE, -1},
      {"read, fallback", "cb_read", FALLBACK, -1},
      {"write, native", "cb_write", NATIVE, -1},
      {"write, fallback", "cb_write", FALLBACK, -1},
      {"handshake, native", "cb_handshake", NATIVE, -1},
      {"handshake, fallback", "cb_handshake", FALLBACK, -1}}},
    {"fallback_ratio",
     "WSL2 fallback / native (mapped), p50 ratio",
     "fallback / native",
     1,
     1,
     {{"latency 8 B", "latency", FALLBACK, 8},
      {"", "latency", NATIVE, 8},
      {"latency 4 MiB", "latency", FALLBACK, MIB4},
      {"", "latency", NATIVE, MIB4},
      {"handshake", "cb_handshake", FALLBACK, -1},
      {"", "cb_handshake", NATIVE, -1}}},
};

typedef struct pt {
    double est, lo, hi;
} pt;

/* One run's point of series s; NAN where the run did not measure it. A failed query sets *failed. */
/* The four mode fields of series s, from the mode table (mode[0] NULL for a baseline). */
static void series_mode(const series_spec *s, const char *mode[4])
{
    mode_spec m = mode_path_spec(s->mode == FALLBACK ? MODE_PATH_FALLBACK : MODE_PATH_NATIVE);
    if (s->mode == MANAGED)
        m.v[RB_AXIS_CTRL] = RB_CTRL_MANAGED;
    if (s->mode == ZEROCOPY) { /* the rings in mapped pinned memory, an ordinary launch */
        m.v[RB_AXIS_XFER] = RB_XFER_ZEROCOPY;
        m.v[RB_AXIS_LAUNCH] = RB_LAUNCH_NONCOOP;
    }
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        mode[a] = s->mode == BASELINE ? NULL : mode_axis_value((mode_axis)a, m.v[a]);
}

static pt query_point(hist *h, long long run_id, const series_spec *s, int *failed)
{
    hist_figures f;
    const char *mode[4];
    series_mode(s, mode);
    int found = hist_cell_estimate(h, run_id, s->family, mode, s->size, &f);
    if (found < 0)
        *failed = 1;
    return found == 1 ? (pt){f.p50, f.ci_lo, f.ci_hi} : (pt){NAN, NAN, NAN};
}

static void put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %.6g", v);
    else
        fputs(" NaN", f);
}

typedef struct mrun {
    long long id;
    char start[32], label[512], file[256];
} mrun;

/* The complete runs of one machine in time order, each with the environment change that precedes it
 * (label "" when none): the fields of the environment but the PCI id, in the page's short words. */
static size_t machine_runs(hist *h, const char *machine, mrun **out)
{
    static const char *const words[] = {"driver", "CUDA", "kernel", "version", "commit", "schema"};
    hist_run *runs;
    size_t n = 0;
    *out = NULL;
    if (hist_complete_runs(h, machine, &runs, &n) != 0 || n == 0 || !(*out = malloc(n * sizeof **out))) {
        free(runs);
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        mrun *r = &(*out)[k];
        r->id = runs[k].id;
        snprintf(r->start, sizeof r->start, "%s", runs[k].start);
        snprintf(r->file, sizeof r->file, "%s", runs[k].file);
        r->label[0] = '\0';
        size_t len = 0;
        for (int i = 0; i < 6; i++) {
            const char *v = runs[k].env[i];
            if (k > 0 && strcmp(runs[k - 1].env[i], v) != 0 && len < sizeof r->label)
                len += (size_t)snprintf(r->label + len, sizeof r->label - len, "%s%s %s", len ? ", " : "", words[i], v);
        }
    }
    free(runs);
    return n;
}

/* gnuplot single-quoted text: ' doubled. */
static void gp_quote(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', gp);
        fputc(*s, gp);
    }
    fputc('\'', gp);
}

static int write_figure(hist *h, const char *pdir, const char *prefix, const figure_spec *f, const mrun *runs, size_t n,
                        int *has_data)
{
    char path[4400], stem[128];
    snprintf(stem, sizeof stem, "%s_%s", prefix, f->stem);
    snprintf(path, sizeof path, "%s/%s.dat", pdir, stem);
    FILE *dat = fopen(path, "w");
    if (!dat)
        return -1;
    size_t ns = 0;
    while (ns < 6 && f->s[ns].family)
        ns++;
    size_t ncols = f->ratio ? ns / 2 : ns;
    fprintf(dat, "# run time, then per series: p50 and its 95%% interval (lo hi)\n");
    *has_data = 0;
    int failed = 0;
    for (size_t r = 0; r < n; r++) {
        fprintf(dat, "%s", runs[r].start);
        for (size_t k = 0; k < ncols; k++) {
            pt p;
            if (f->ratio) {
                pt a = query_point(h, runs[r].id, &f->s[2 * k], &failed),
                   b = query_point(h, runs[r].id, &f->s[2 * k + 1], &failed);
                p = (pt){a.est / b.est, a.lo / b.hi, a.hi / b.lo};
            } else {
                p = query_point(h, runs[r].id, &f->s[k], &failed);
            }
            *has_data |= isfinite(p.est);
            put_num(dat, p.est);
            put_num(dat, p.lo);
            put_num(dat, p.hi);
        }
        fputc('\n', dat);
    }
    fclose(dat);
    if (failed)
        return -2;

    snprintf(path, sizeof path, "%s/%s.gp", pdir, stem);
    FILE *gp = fopen(path, "w");
    if (!gp)
        return -1;
    report_gp_begin(gp, stem, f->title, (report_canvas){1000, 520});
    fputs("set xdata time\nset timefmt '%Y-%m-%dT%H:%M:%SZ'\nset format x '%Y-%m-%d'\nset xtics rotate by -30\n"
          "set key outside right top\nset style fill transparent solid 0.2 noborder\n",
          gp);
    fprintf(gp, "set title ");
    gp_quote(gp, f->title);
    fprintf(gp, "\nset ylabel ");
    gp_quote(gp, f->ylabel);
    fputc('\n', gp);
    if (f->logy)
        fputs("set logscale y\n", gp);
    /* Environment changes: a vertical line at the first run of the new environment. */
    for (size_t r = 1, k = 0; r < n; r++) {
        if (!runs[r].label[0])
            continue;
        fprintf(gp, "set arrow %zu from '%s', graph 0 to '%s', graph 1 nohead lc rgb '#C04000' dt 2\n", ++k,
                runs[r].start, runs[r].start);
        fprintf(gp, "set label %zu ", k);
        gp_quote(gp, runs[r].label);
        fprintf(gp, " at '%s', graph 0.98 rotate by 90 right front font ',8' tc rgb '#C04000'\n", runs[r].start);
    }
    static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    fputs("plot ", gp);
    for (size_t k = 0; k < ncols; k++) {
        const series_spec *sk = f->ratio ? &f->s[2 * k] : &f->s[k];
        const char *title =
            sk->title ? sk->title : mode_path_title(sk->mode == FALLBACK ? MODE_PATH_FALLBACK : MODE_PATH_NATIVE);
        int c = 2 + 3 * (int)k;
        fprintf(gp,
                "%s'%s.dat' using 1:%d:%d with filledcurves lc rgb '%s' notitle, \\\n  '%s.dat' using 1:%d "
                "with linespoints lc rgb '%s' pt 7 ps 0.6 lw 2 title ",
                k ? ", \\\n  " : "", stem, c + 1, c + 2, colours[k % 6], stem, c, colours[k % 6]);
        gp_quote(gp, title);
    }
    fputc('\n', gp);
    report_gp_end(gp);
    return fclose(gp) == 0 ? 0 : -1;
}

static void md_escape_pipes(FILE *md, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", md);
        else
            fputc(*s, md);
    }
}

/* The history page's section of one machine (number m): its runs, environment changes and one figure
 * each (data and script in pdir, rendered when gnuplot is not NULL). Returns 0, or -1 with err. */
static int machine_section(FILE *md, hist *h, const char *machine, int m, const char *pdir, const char *gnuplot,
                           char *err, size_t errlen)
{
    mrun *runs = NULL;
    size_t n = machine_runs(h, machine, &runs);
    char prefix[16];
    int rc = 0;
    snprintf(prefix, sizeof prefix, "m%d", m);
    fprintf(md, "\n## Machine %d: ", m);
    md_escape_pipes(md, machine);
    fprintf(md, "\n\n%zu complete runs, %s to %s.\n", n, n ? runs[0].start : "-", n ? runs[n - 1].start : "-");
    int changes = 0;
    for (size_t r = 1; r < n; r++)
        if (runs[r].label[0]) {
            if (!changes++)
                fputs("\n| first run of the new environment | time | change |\n| --- | --- | --- |\n", md);
            fprintf(md, "| `%s` | %s | ", runs[r].file, runs[r].start);
            md_escape_pipes(md, runs[r].label);
            fputs(" |\n", md);
        }
    if (!changes)
        fputs("\nNo environment change in this history.\n", md);
    fputc('\n', md);
    for (size_t f = 0; f < sizeof figures / sizeof *figures; f++) {
        int has_data = 0;
        int wrc = write_figure(h, pdir, prefix, &figures[f], runs, n, &has_data);
        if (wrc != 0) {
            if (wrc == -2)
                snprintf(err, errlen, "index query: %s", hist_error(h));
            else
                snprintf(err, errlen, "%s: cannot write the %s plot", pdir, figures[f].stem);
            rc = -1;
            break;
        }
        if (!has_data) {
            fprintf(md, "- %s: not measured in these runs.\n", figures[f].title);
            continue;
        }
        char script[160], gerr[600];
        snprintf(script, sizeof script, "%s_%s.gp", prefix, figures[f].stem);
        if (gnuplot && report_gnuplot_run(gnuplot, pdir, script, gerr, sizeof gerr) != 0)
            fprintf(stderr, "ringbench track: warning: %s\n", gerr);
        fprintf(md, "![%s](plots/%s_%s.png)\n\n", figures[f].title, prefix, figures[f].stem);
    }
    free(runs);
    return rc;
}

int track_history_page(hist *h, char *err, size_t errlen)
{
    char pdir[4200], mdpath[4200], tmp[4300];
    snprintf(pdir, sizeof pdir, "%s/plots", hist_dir(h));
    snprintf(mdpath, sizeof mdpath, "%s/history.md", hist_dir(h));
    snprintf(tmp, sizeof tmp, "%s.tmp", mdpath);
    if (mkdir(pdir, 0755) != 0 && access(pdir, W_OK) != 0) {
        snprintf(err, errlen, "%s: cannot create", pdir);
        return -1;
    }
    char **machines = NULL;
    size_t nmachines = 0;
    FILE *md = fopen(tmp, "w");
    if (!md) {
        snprintf(err, errlen, "%s: cannot write", tmp);
        return -1;
    }
    char gnuplot[4096];
    int have_gnuplot = report_gnuplot_find(gnuplot, sizeof gnuplot) == 0;
    int rc = 0;
    fputs("# Run history\n\nWritten by `ringbench track` from the history index (`index.sqlite`); the run files "
          "next to it are the record. Runs are compared only within one machine fingerprint (host, backend, GPU, "
          "PCI bus id, WSL2 or native). Bands are the runs' 95% intervals (trial-level for schema-2 runs, "
          "sample-level for schema-1 runs); dashed vertical lines mark environment changes (driver, CUDA runtime, "
          "kernel, ringbench version or commit, schema).\n",
          md);
    if (!have_gnuplot)
        fputs("\n*gnuplot was not found: the data and scripts are in `plots/`, the images are missing.*\n", md);
    if (hist_machines(h, &machines, &nmachines) != 0) {
        snprintf(err, errlen, "index query: %s", hist_error(h));
        rc = -1;
    }
    for (size_t m = 0; rc == 0 && m < nmachines; m++)
        rc = machine_section(md, h, machines[m], (int)m, pdir, have_gnuplot ? gnuplot : NULL, err, errlen);
    hist_strings_free(machines, nmachines);
    if (fclose(md) != 0 && rc == 0) {
        snprintf(err, errlen, "%s: write error", tmp);
        rc = -1;
    }
    if (rc == 0 && rename(tmp, mdpath) != 0) {
        snprintf(err, errlen, "%s: cannot rename into place", mdpath);
        rc = -1;
    }
    if (rc != 0)
        remove(tmp);
    return rc;
}
