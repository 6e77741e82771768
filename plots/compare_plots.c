/* compare_plots.c - the plots of `ringbench compare`, each answering one question at docs size (800 px):
 *   compare_changes.gp  which cells changed, and by how much: the changed cells, largest first, as
 *                       OTHER / BASE with their intervals on a log scale, beside the noise between the
 *                       runs (the band 95 % of the unchanged cells lie in)
 *   compare_heatmap.gp  where the changes are, every mode x size: changed cells coloured by how much,
 *                       cells the same within noise grey (their estimates set no colour)
 *   compare_ops.gp      control-block operations per mode, OTHER / BASE with intervals
 * The scale of each is set by the changed cells and the noise band, never by a cell the comparison
 * calls the same within noise. Pairs and verdicts come from compare.c. Exercised by tests/test_report.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "compare_internal.h"
#include "report_plots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// --- shared with compare.c ----------------------------------------------------------------------------

const char *compare_token(const report_ov *ov) { return report_speed_token(report_speed(ov)); }

int compare_changed(const report_ov *ov)
{
    const verdict_speed v = report_speed(ov);
    return v == VERDICT_SLOWER || v == VERDICT_FASTER;
}

const pair *compare_find(const compare_ctx *c, rb_family f, const mode_spec *m, uint64_t size)
{
    long i = report_find(&c->base, f, m, size);
    for (size_t k = 0; i >= 0 && k < c->npairs; k++)
        if (c->pairs[k].ia == i)
            return &c->pairs[k];
    return NULL;
}

size_t compare_sizes(const compare_ctx *c, rb_family f, uint64_t **out)
{
    uint64_t *all = NULL;
    size_t n = report_sizes(&c->base, f, &all), k = 0;
    for (size_t s = 0; s < n; s++) {
        int any = 0;
        for (size_t p = 0; p < c->npairs && !any; p++) {
            const rb_row *a = report_row(&c->base, (size_t)c->pairs[p].ia);
            any = report_row_family(a) == (int)f && a->size_bytes == all[s];
        }
        if (any)
            all[k++] = all[s];
    }
    *out = all;
    return k;
}

/* A changed pair and the size of its change: how far its ratio is from 1 on a log scale, so that
 * twice and half as fast rank alike. */
typedef struct ranked {
    size_t i;
    double effect;
} ranked;

static int by_effect(const void *pa, const void *pb)
{
    const double a = ((const ranked *)pa)->effect, b = ((const ranked *)pb)->effect;
    return (a < b) - (a > b);
}

size_t compare_changed_pairs(const compare_ctx *c, size_t **out)
{
    size_t n = 0, *v = malloc((c->npairs + 1) * sizeof *v);
    ranked *r = malloc((c->npairs + 1) * sizeof *r);
    for (size_t i = 0; v && r && i < c->npairs; i++)
        if (compare_changed(&c->pairs[i].ov))
            r[n++] = (ranked){i, fabs(log1p(c->pairs[i].ov.est))};
    if (v && r) {
        qsort(r, n, sizeof *r, by_effect);
        for (size_t k = 0; k < n; k++)
            v[k] = r[k].i;
    } else {
        n = 0;
    }
    free(r);
    *out = v;
    return n;
}

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double compare_noise(const compare_ctx *c)
{
    double *d = malloc((c->npairs + 1) * sizeof *d), p95 = NAN;
    size_t n = 0;
    for (size_t i = 0; d && i < c->npairs; i++)
        if (c->pairs[i].ov.state == REPORT_OV_OK && report_speed(&c->pairs[i].ov) == VERDICT_SAME)
            d[n++] = fabs(c->pairs[i].ov.est);
    if (n > 0) {
        qsort(d, n, sizeof *d, cmp_dbl);
        p95 = stats_percentile_sorted(d, n, 95);
    }
    free(d);
    return p95;
}

/* The x axis of OTHER / BASE from lo to hi: a log scale where it spans a decade or more, else linear
 * (a log axis over 0.8-1.3 has one labelled tic). */
static void ratio_axis(FILE *gp, double lo, double hi)
{
    if (hi / lo >= 10)
        fprintf(gp, "set logscale x 10\nset format x '%%gx'\nset xrange [%.6g:%.6g]\nset grid xtics mxtics\n", lo, hi);
    else
        fprintf(gp,
                "unset logscale x\nset format x '%%gx'\nset xrange [%.6g:%.6g]\nset xtics autofreq\nset grid xtics\n",
                lo, hi);
    fputs("set xlabel 'OTHER / BASE (time; > 1 = OTHER slower)'\n", gp);
}

// --- the changed cells -----------------------------------------------------------------------------------

/* At most this many changed cells are drawn (the largest); compare.md lists them all. */
#define CHANGES_MAX 20

/* "latency pinned/async/coop/mapped 8 B" (with the window of a throughput cell) into buf. */
static void cell_label(const compare_ctx *c, const pair *p, char *buf, size_t n)
{
    const rb_row *a = report_row(&c->base, (size_t)p->ia);
    mode_spec m;
    char sz[32];
    int len = snprintf(buf, n, "%s %s", a->family, report_row_mode(a, &m) ? report_mode_str(&m) : "baseline");
    if ((a->size_bytes || report_row_family(a) == RB_FAM_LATENCY) && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " %s", report_size_str(a->size_bytes, sz, sizeof sz));
    if (a->window > 1 && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " W%llu", (unsigned long long)a->window);
}

/* The overhead as a label: "+12.3%", or from +100 % the ratio "3.61×". */
static const char *change_label(double est)
{
    static char buf[4][32];
    static unsigned next;
    char *b = buf[next++ % 4];
    if (est >= 1.0)
        snprintf(b, sizeof buf[0], "%s", report_times(1 + est));
    else
        snprintf(b, sizeof buf[0], "%+.1f%%", 100 * est);
    return b;
}

/* compare_changes.dat: row, ratio, lo, hi, label; ytics into tics. Returns how many rows; the x range
 * the rows and the noise band need into *xlo, *xhi, the longest tick label's length into *widest. */
static size_t changes_dat(const compare_ctx *c, FILE *f, char *tics, size_t ticlen, double band, double *xlo,
                          double *xhi, size_t *widest)
{
    size_t *idx = NULL, n = compare_changed_pairs(c, &idx), used = 0;
    char label[160];
    *xlo = 1.0 / (1.0 + band);
    *xhi = 1.0 + band;
    fputs("# changed cells, largest first: row, OTHER / BASE (time; rates on time per byte), 95 % interval, label\n",
          f);
    snprintf(tics, ticlen, "set ytics (");
    for (size_t k = 0; k < n && k < CHANGES_MAX; k++) {
        const pair *p = &c->pairs[idx[k]];
        const double r = 1 + p->ov.est, lo = 1 + p->ov.lo, hi = 1 + p->ov.hi;
        fprintf(f, "%zu %.6g %.6g %.6g \"%s\"\n", k, r, lo > 0 ? lo : r, hi, change_label(p->ov.est));
        *xlo = fmin(*xlo, lo > 0 ? lo : r);
        *xhi = fmax(*xhi, hi);
        cell_label(c, p, label, sizeof label);
        *widest = strlen(label) > *widest ? strlen(label) : *widest;
        size_t len = strlen(tics);
        snprintf(tics + len, ticlen - len, "%s'%s' %zu", k ? ", " : "", label, k);
        used++;
    }
    size_t len = strlen(tics);
    snprintf(tics + len, ticlen - len, ") nomirror font ',13'\n");
    if (used == 0)
        fputs("NaN NaN NaN NaN \"\"\n", f);
    free(idx);
    return used;
}

int compare_plot_changes(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    report_file dat, rf;
    const double noise = compare_noise(c), band = isfinite(noise) ? noise : 0.0;
    char tics[CHANGES_MAX * 180 + 64], title[1400], label[1100];
    double xlo, xhi;
    size_t *idx = NULL, nchanged = compare_changed_pairs(c, &idx), widest = 0;
    free(idx);
    if (report_file_open(&dat, dir, "compare_changes.dat", err, errlen) != 0)
        return -1;
    const size_t n = changes_dat(c, dat.f, tics, sizeof tics, band, &xlo, &xhi, &widest);
    /* The tick labels (13 pt, about 10 px a character) get the room they need, at most 60 % of the width. */
    const double lmargin = fmin(0.6, fmax(0.3, (10.0 * (double)widest + 30) / REPORT_DOC_W));
    if (report_file_close(&dat, err, errlen) != 0 || report_file_open(&rf, dir, "compare_changes.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    report_gp_begin(gp, "compare_changes", "the changed cells, largest first, beside the noise between the runs",
                    (report_canvas){REPORT_DOC_W, 200 + 34 * (int)(n ? n : 3)});
    snprintf(title, sizeof title, "What changed: %zu of %zu cells, OTHER against BASE%s", nchanged, c->npairs,
             nchanged > n ? " (the largest shown)" : "");
    report_label_pair(&c->base, &c->other, label, sizeof label);
    report_label_title(title, sizeof title, label);
    char note[160];
    snprintf(note, sizeof note, "OTHER / BASE, 95 %% interval; grey: noise (95 %% of unchanged cells within ±%.1f%%)",
             100 * band);
    report_gp_title(gp, title, note);
    ratio_axis(gp, xlo / 1.15, xhi * (xhi / xlo >= 8 ? 2.5 : 1.25)); /* room right of each interval for its label */
    fprintf(gp,
            "unset key\nset yrange [%d.6:-0.6]\nset grid noytics\nset lmargin at screen %.3f\nset rmargin 3\n"
            "set object 1 rect from first %.6g, graph 0 to first %.6g, graph 1 fc rgb '#DDDDDD' fs solid 0.8 "
            "noborder behind\nset arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lc rgb '#444444' back\n",
            n ? (int)n - 1 : 2, lmargin, 1.0 / (1.0 + band), 1.0 + band);
    if (n == 0)
        fputs("set ytics ('' 1)\nset label 1 'no cell changed beyond the noise' at graph 0.5, graph 0.5 center "
              "font ',16'\nplot 1 lc rgb '#FFFFFF' notitle\n",
              gp);
    else
        fprintf(gp,
                "%splot 'compare_changes.dat' using 2:1:3:4 with xerrorbars lc rgb '#B2182B' pt 7 ps 1.3 lw 2 "
                "notitle, \\\n  '' using 4:1:5 with labels left offset 1,0 font ',13' notitle\n",
                tics);
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

// --- the heat map ------------------------------------------------------------------------------------------

/* One block of compare_heatmap.dat: x = size index, y = mode row, colour (log2 of OTHER / BASE for a
 * changed cell, NaN otherwise), 1 for a cell the same within noise, label. Returns the largest |log2|. */
static double heat_block(FILE *f, const compare_ctx *c, rb_family fam, const uint64_t *sizes, size_t ns,
                         const int *ypos, int count[2])
{
    double maxabs = 0;
    count[0] = count[1] = 0;
    fprintf(f, "# %s: size index, mode row, log2(OTHER / BASE) of a changed cell, same (1/0), label\n",
            rb_family_name(fam));
    for (size_t s = 0; s < ns; s++)
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            if (ypos[k] < 0)
                continue;
            const pair *p = compare_find(c, fam, &m, sizes[s]);
            const int changed = p && compare_changed(&p->ov);
            const double v = changed ? log2(1 + p->ov.est) : NAN;
            if (changed)
                maxabs = fmax(maxabs, fabs(v));
            count[changed] += p != NULL;
            char label[32] = "-";
            if (changed && p->ov.est >= 1.0)
                snprintf(label, sizeof label, "%s", report_times(1 + p->ov.est));
            else if (changed) /* whole percent: a cell is ~45 px wide at 800 px */
                snprintf(label, sizeof label, "%+.0f", 100 * p->ov.est);
            else if (p)
                label[0] = '\0';
            fprintf(f, "%zu %d %.6g %d \"%s\"\n", s, ypos[k], v, p && !changed, label);
        }
    fputs("\n\n", f);
    return maxabs;
}

/* The colour box's tics: ratios within +-m (log2 units), powers of two where the range is wide. */
static void heat_cbtics(FILE *gp, double m)
{
    static const double near[] = {0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2};
    fputs("set cbtics (", gp);
    int first = 1;
    if (m <= 1.0) {
        for (size_t i = 0; i < sizeof near / sizeof near[0]; i++)
            if (fabs(log2(near[i])) <= m + 1e-9) {
                fprintf(gp, "%s'%gx' %.6g", first ? "" : ", ", near[i], log2(near[i]));
                first = 0;
            }
    } else {
        for (int e = -(int)ceil(m); e <= (int)ceil(m); e++) {
            fprintf(gp, "%s'%gx' %d", first ? "" : ", ", pow(2, e), e);
            first = 0;
        }
    }
    fputs(") font ',13'\n", gp);
}

/* The plot command of panel b: the grey cells, the coloured ones and their labels, each only where the
 * panel has such cells (gnuplot warns of a layer without a point). */
static void heat_plot(char *buf, size_t n, int b, const int count[2])
{
    static const char *const layer[2] = {
        "using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):($4 > 0 ? 0 : NaN) with boxxyerror fs solid 1.0 noborder "
        "lc rgb '#E4E4E4' notitle",
        "using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxyerror fs solid 1.0 noborder lc palette notitle, "
        "\\\n  '' index %d using 1:2:5 with labels font ',13' notitle"};
    size_t len = (size_t)snprintf(buf, n, "plot ");
    int any = 0;
    for (int k = 0; k < 2 && len < n; k++) {
        if (count[k] == 0)
            continue;
        char part[512];
        snprintf(part, sizeof part, layer[k], b);
        len += (size_t)snprintf(buf + len, n - len, "%s'compare_heatmap.dat' index %d %s", any++ ? ", \\\n  " : "", b,
                                part);
    }
    if (!any && len < n)
        snprintf(buf + len, n - len, "[0:1] NaN notitle");
    len = strlen(buf);
    if (len + 1 < n)
        strcat(buf, "\n");
}

int compare_plot_heatmap(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    static const rb_family fams[2] = {RB_FAM_LATENCY, RB_FAM_THROUGHPUT};
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    uint64_t *sizes[2] = {NULL, NULL};
    size_t ns[2];
    int count[2][2];      /* per panel: cells the same, cells changed */
    double m = log2(1.1); /* a changed cell of 10 % is not the darkest */
    report_file rf;
    int rc = -1;
    if (report_file_open(&rf, dir, "compare_heatmap.dat", err, errlen) != 0)
        return -1;
    for (int b = 0; b < 2; b++) {
        ns[b] = compare_sizes(c, fams[b], &sizes[b]);
        m = fmax(m, heat_block(rf.f, c, fams[b], sizes[b], ns[b], ypos, count[b]));
    }
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "compare_heatmap.gp", err, errlen) != 0)
        goto out;
    FILE *gp = rf.f;
    report_canvas cv = {REPORT_DOC_W, report_heat_height(nrows)};
    report_gp_begin(gp, "compare_heatmap", "where the changed cells are, every mode x size", cv);
    char label[1100], title[1200] = "Where OTHER differs from BASE: every mode and size";
    report_label_pair(&c->base, &c->other, label, sizeof label);
    report_label_title(title, sizeof title, label);
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . 'changed cells in % (red: OTHER slower, blue: faster); grey: the same within noise' "
          "font ',15'\nunset key\n",
          gp);
    fprintf(gp, "set cbrange [%.6g:%.6g]\nset palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')\n", -m, m);
    heat_cbtics(gp, m);
    fputs("set grid noxtics noytics\n", gp);
    static const char *const what[2] = {"round trip", "throughput, ring kept full (on time per byte)"};
    for (int b = 0; b < 2; b++) {
        char plot[1024];
        heat_plot(plot, sizeof plot, b, count[b]);
        report_heatmap_panel(gp, b, cv.height, sizes[b], ns[b], what[b], ns[b] ? plot : "plot [0:1] NaN notitle");
    }
    report_gp_end(gp);
    rc = report_file_close(&rf, err, errlen);
out:
    free(sizes[0]);
    free(sizes[1]);
    return rc;
}

// --- control-block operations ------------------------------------------------------------------------------

static const rb_family op_fams[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
static const char *const op_colour[] = {"#000000", "#7B3294", "#A6611A"};
static const int op_point[] = {7, 5, 9};
#define NOPS 3

/* compare_ops.dat: per family two blocks, changed cells then the others: y, ratio, lo, hi. The x range
 * the changed cells and the noise band need into *xlo, *xhi. */
static void ops_dat(FILE *f, const compare_ctx *c, const int *ypos, unsigned char has[2 * NOPS], double band,
                    double *xlo, double *xhi)
{
    *xlo = 1.0 / (1.0 + band) / 1.1;
    *xhi = (1.0 + band) * 1.1;
    fputs("# OTHER / BASE per mode, per family a block of changed cells and one of the others: y ratio lo hi\n", f);
    for (size_t j = 0; j < 2 * NOPS; j++) {
        const int changed = j % 2 == 0;
        fprintf(f, "# %s, %s\n", rb_family_name(op_fams[j / 2]), changed ? "changed" : "same or not compared");
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            const pair *p = ypos[k] >= 0 ? compare_find(c, op_fams[j / 2], &m, 0) : NULL;
            if (p == NULL || p->ov.state != REPORT_OV_OK || compare_changed(&p->ov) != changed)
                continue;
            const double off = ((double)(j / 2) - 1.0) * 0.22, lo = 1 + p->ov.lo, hi = 1 + p->ov.hi;
            fprintf(f, "%.3f %.6g %.6g %.6g\n", ypos[k] + off, 1 + p->ov.est, lo > 0 ? lo : 1 + p->ov.est, hi);
            has[j] = 1;
            if (changed) {
                *xlo = fmin(*xlo, (lo > 0 ? lo : 1 + p->ov.est) / 1.2);
                *xhi = fmax(*xhi, hi * 1.2);
            }
        }
        if (!has[j])
            fputs("NaN NaN NaN NaN\n", f);
        fputs("\n\n", f);
    }
}

int compare_plot_ops(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    unsigned char has[2 * NOPS] = {0};
    const double noise = compare_noise(c), band = isfinite(noise) ? noise : 0.0;
    double xlo, xhi;
    report_file rf;
    if (report_file_open(&rf, dir, "compare_ops.dat", err, errlen) != 0)
        return -1;
    ops_dat(rf.f, c, ypos, has, band, &xlo, &xhi);
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "compare_ops.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    report_gp_begin(gp, "compare_ops", "control-block operations per mode, OTHER against BASE",
                    (report_canvas){REPORT_DOC_W, report_rows_height(nrows)});
    char label[1100], title[1200] = "Control-block operations: OTHER against BASE per mode";
    report_label_pair(&c->base, &c->other, label, sizeof label);
    report_label_title(title, sizeof title, label);
    report_gp_title(gp, title, "OTHER / BASE and its 95 % interval; filled: changed, open: the same within noise");
    ratio_axis(gp, xlo, xhi);
    fprintf(gp,
            "set lmargin at screen %.2f\nset rmargin 3\n"
            "set object 1 rect from first %.6g, graph 0 to first %.6g, graph 1 fc rgb '#DDDDDD' fs solid 0.8 "
            "noborder behind\nset arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lc rgb '#444444' back\n",
            REPORT_MODE_LMARGIN, 1.0 / (1.0 + band), 1.0 + band);
    report_mode_rows_axis(gp, 1);
    fputs("set bmargin 6.5\nset key at screen 0.6, screen 0.01 center bottom horizontal samplen 1 font ',14'\nplot ",
          gp);
    int first = 1;
    for (size_t j = 0; j < 2 * NOPS; j++) {
        if (!has[j])
            continue; /* gnuplot warns of a data set without a point */
        fprintf(gp, "%s'compare_ops.dat' index %zu using 2:1:3:4 with xerrorbars lc rgb '%s' pt %d ps 1.3 lw 1.5 ",
                first ? "" : ", \\\n  ", j, op_colour[j / 2], op_point[j / 2] - (int)(j % 2));
        if (j % 2 == 0 || !has[j - 1])
            fprintf(gp, "title '%s'", rb_family_name(op_fams[j / 2]));
        else
            fputs("notitle", gp);
        first = 0;
    }
    if (first)
        fputs("[1:2] NaN title 'no control-block operation compared'", gp);
    fputs("\n", gp);
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}
