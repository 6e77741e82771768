/* compare.c - compare_write (report.h), what `ringbench compare` does (bench/cmd_compare.c): pairs the rows
 * of two results files by family, mode and size (whatever their backends), and for each pair gives the
 * overhead of OTHER over BASE with a trial-level 95% CI (report_verdict.c) and a verdict (faster /
 * slower only when the CI excludes 0 and the overhead is at least --min-effect, else same within noise); then the
 * verdict on the WSL2 claim across the two files (typically BASE = native Linux, OTHER = WSL2). Writes
 * compare_pairs.dat, gnuplot scripts, plots and compare.md. Warns loudly when the files come from different GPUs,
 * drivers or suite versions; refuses files with nothing in common. Exercised by tests/test_report.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "report.h"
#include "attribution_md.h"
#include "report_headline.h"
#include "report_plots.h"
#include "run_label.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const compare_scripts[] = {"compare_latency.gp", "compare_throughput.gp", "compare_heatmap.gp",
                                              "compare_ops.gp", NULL};

/* Provenance that must match for a comparison to be of like with like, and what a file that does not
 * record it ran with: files from before the early take, the leader's reply and stream ops ran
 * without them, files from before --cb-batch timed control-block operations one at a time, and files from before
 * --post-max posted a window's free room at once, files from before --verify-split verified every reply
 * on the polling thread, files from before refill_first verified a window's replies before posting
 * their refill, and files from before refill_headers counted a reply answered only once out_tail
 * announced it. */
static const struct {
    const char *name, *absent;
} must_match[] = {{"gpu_name", ""},
                  {"driver_version", ""},
                  {"suite_version", ""},
                  {"early_take", "off"},
                  {"leader_reply", "off"},
                  {"stream_ops", "off"},
                  {"cb_batch", "1"},
                  {"post_max", "0"},
                  {"verify_split", "0"},
                  {"refill_first", "off"},
                  {"refill_headers", "off"},
                  {RB_PROV_INJECT_CALL_US, ""},
                  {RB_PROV_PLATFORM_LIMITS, ""}};

typedef struct pair {
    long ia, ib;  /* rows in BASE and OTHER */
    report_ov ov; /* overhead of OTHER over BASE */
} pair;

typedef struct compare_ctx {
    report_run base, other;
    pair *pairs;
    size_t npairs;
    char warnings[1024]; /* the loud lines, also written at the top of compare.md */
} compare_ctx;

static int same_key(const rb_row *a, const rb_row *b)
{
    return a->size_bytes == b->size_bytes && a->window == b->window && strcmp(a->family, b->family) == 0 &&
           strcmp(a->host_mem, b->host_mem) == 0 && strcmp(a->xfer, b->xfer) == 0 &&
           strcmp(a->launch, b->launch) == 0 && strcmp(a->ctrl, b->ctrl) == 0;
}

static int pairable(const rb_row *r) { return report_row_ok(r) && r->n > 0 && report_row_family(r) >= 0; }

/* Pairs the ok rows with samples; the backend is deliberately not part of the key. */
static int make_pairs(compare_ctx *c, const report_opts *o)
{
    size_t nb = report_nrows(&c->base), no = report_nrows(&c->other);
    c->pairs = calloc(nb + 1, sizeof *c->pairs);
    if (c->pairs == NULL)
        return -1;
    for (size_t i = 0; i < nb; i++) {
        const rb_row *a = report_row(&c->base, i);
        if (!pairable(a))
            continue;
        for (size_t j = 0; j < no; j++) {
            const rb_row *b = report_row(&c->other, j);
            if (!pairable(b) || !same_key(a, b))
                continue;
            pair *p = &c->pairs[c->npairs];
            p->ia = (long)i;
            p->ib = (long)j;
            report_overhead(&c->base, p->ia, "BASE", &c->other, p->ib, "OTHER", o, &p->ov);
            c->npairs++;
            break;
        }
    }
    return 0;
}

/* Values longer than this are cut (with "...") so that a file's text, however long, never fills the
 * warning buffer: every warning stays one whole line, ended by its newline. */
#define WARN_VALUE_MAX 160

static void add_warning(compare_ctx *c, const char *fmt, const char *what, const char *a, const char *b)
{
    char va[WARN_VALUE_MAX + 4], vb[WARN_VALUE_MAX + 4], line[3 * WARN_VALUE_MAX + 256];
    size_t len = strlen(c->warnings);
    snprintf(va, sizeof va, "%.*s%s", WARN_VALUE_MAX, a, strlen(a) > WARN_VALUE_MAX ? "..." : "");
    snprintf(vb, sizeof vb, "%.*s%s", WARN_VALUE_MAX, b, strlen(b) > WARN_VALUE_MAX ? "..." : "");
    int n = snprintf(line, sizeof line, fmt, what, va, vb);
    /* A line that does not fit whole is left out rather than cut: readers split on newlines. */
    if (n > 0 && (size_t)n < sizeof line && (size_t)n < sizeof c->warnings - len)
        memcpy(c->warnings + len, line, (size_t)n + 1);
}

static void check_like(compare_ctx *c)
{
    for (size_t i = 0; i < sizeof must_match / sizeof must_match[0]; i++) {
        const char *name = must_match[i].name;
        const char *a = report_prov(&c->base, name), *b = report_prov(&c->other, name);
        a = *a ? a : must_match[i].absent;
        b = *b ? b : must_match[i].absent;
        if (strcmp(a, b) != 0)
            add_warning(c, "the files differ in %s: BASE '%s', OTHER '%s'\n", name, a, b);
    }
    if (strcmp(c->base.backend, c->other.backend) != 0)
        add_warning(c, "the files differ in %s: BASE '%s', OTHER '%s' (CPU-reference rows are not GPU numbers)\n",
                    "backend", c->base.backend, c->other.backend);
}

static const char *verdict_token(const report_ov *ov)
{
    const char *w = report_speed_word(ov);
    return strcmp(w, "same within noise") == 0 ? "same" : w;
}

// --- data and plots -------------------------------------------------------------------------------------

static int write_pairs_dat(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, "compare_pairs.dat", err, errlen) != 0)
        return -1;
    fputs("# every pair: overhead of OTHER over BASE = est(OTHER)/est(BASE) - 1, est = mean of trial medians (GB/s\n"
          "# families: on time per byte), with its 95% trial-level CI; verdict faster|slower|same (same = interval\n"
          "# includes 0 or |overhead| < --min-effect) or n/a; window: messages in flight (throughput), else 0\n"
          "# family mode size_bytes base_p50 other_p50 overhead ci_lo ci_hi verdict window\n",
          rf.f);
    char label[1100]; /* injected or limits-applied files (issue 21): `ringbench export` carries it on */
    report_label_pair(&c->base, &c->other, label, sizeof label);
    if (label[0])
        fprintf(rf.f, "# run_label: %s\n", label);
    for (size_t i = 0; i < c->npairs; i++) {
        const rb_row *a = report_row(&c->base, (size_t)c->pairs[i].ia);
        const report_ov *ov = &c->pairs[i].ov;
        mode_spec m;
        fprintf(rf.f, "%s %s %llu %.9g %.9g %.6f %.6f %.6f %s %llu\n", a->family,
                report_row_mode(a, &m) ? report_mode_str(&m) : "baseline", (unsigned long long)a->size_bytes, ov->p50_a,
                ov->p50_b, ov->est, ov->lo, ov->hi, verdict_token(ov), (unsigned long long)a->window);
    }
    return report_file_close(&rf, err, errlen);
}

static const pair *find_pair(const compare_ctx *c, rb_family f, const mode_spec *m, uint64_t size)
{
    long i = report_find(&c->base, f, m, size);
    for (size_t k = 0; i >= 0 && k < c->npairs; k++)
        if (c->pairs[k].ia == i)
            return &c->pairs[k];
    return NULL;
}

/* Sizes of family f that have at least one pair. */
static size_t paired_sizes(const compare_ctx *c, rb_family f, uint64_t **out)
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

static const char claim_band[] =
    "set object 1 rect from graph 0, first 10 to graph 1, first 30 fc rgb '#CDE8CD' "
    "fs solid 0.6 noborder behind\n"
    "set label 1 'claimed 10-30%' at graph 0.02, first 20 left font ',9' tc rgb '#2E7D32' front\n"
    "set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lc rgb '#000000' lw 1 back";

static int compare_facet(const compare_ctx *c, const char *dir, rb_family f, const char *stem, char *err, size_t errlen)
{
    uint64_t *sizes = NULL;
    size_t ns = paired_sizes(c, f, &sizes);
    unsigned char has[RB_MODE_COUNT] = {0};
    char name[64], title[256], band[1024];
    double vmin = -5, vmax = 35; /* always show 0 and the claimed band */
    report_file rf;
    int rc = -1;
    snprintf(name, sizeof name, "%s.dat", stem);
    if (report_file_open(&rf, dir, name, err, errlen) != 0)
        goto out;
    fprintf(rf.f, "# %s overhead of OTHER over BASE (%%) per size; column 1 size_bytes, then one column per mode\n",
            rb_family_name(f));
    for (size_t s = 0; s < ns; s++) {
        fprintf(rf.f, "%llu", (unsigned long long)sizes[s]);
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            const pair *p = find_pair(c, f, &m, sizes[s]);
            double v = p && p->ov.state == REPORT_OV_OK ? 100 * p->ov.est : NAN;
            has[k] |= isfinite(v);
            if (isfinite(v)) {
                vmin = v < vmin ? v : vmin;
                vmax = v > vmax ? v : vmax;
            }
            fprintf(rf.f, " %.6g", v);
        }
        fputs("\n", rf.f);
    }
    if (report_file_close(&rf, err, errlen) != 0)
        goto out;
    snprintf(name, sizeof name, "%s.gp", stem);
    if (report_file_open(&rf, dir, name, err, errlen) != 0)
        goto out;
    snprintf(title, sizeof title, "%s: overhead of OTHER over BASE per mode and size", rb_family_name(f));
    char label[1100];
    report_label_pair(&c->base, &c->other, label, sizeof label);
    report_label_title(title, sizeof title, label);
    snprintf(name, sizeof name, "%s.dat", stem);
    /* gnuplot cannot autoscale a panel whose values are all 0 (identical files): the range is set here. */
    snprintf(band, sizeof band, "%s\nset yrange [%.6g:%.6g]", claim_band, vmin - 0.05 * (vmax - vmin),
             vmax + 0.05 * (vmax - vmin));
    report_facet p = {title,
                      "overhead of OTHER over BASE (%, + = OTHER slower)",
                      name,
                      has,
                      sizes,
                      ns,
                      0,
                      NULL,
                      0,
                      band,
                      report_unit_is_rate(rb_family_unit(f))
                          ? "throughput overhead on time per byte (1/GB/s); green band: the claimed 10-30%"
                          : "green band: the claimed 10-30%; 0 = same speed"};
    report_gp_begin(rf.f, stem, "overhead of OTHER over BASE per mode and size",
                    (report_canvas){REPORT_FACET_W, REPORT_FACET_H});
    report_gp_facet(rf.f, &p);
    report_gp_end(rf.f);
    rc = report_file_close(&rf, err, errlen);
out:
    free(sizes);
    return rc;
}

/* Heat map: modes x sizes, one panel per sized family, the overhead in % (diverging around 0). */
static int compare_heatmap(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    static const rb_family fams[2] = {RB_FAM_LATENCY, RB_FAM_THROUGHPUT};
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    uint64_t *sizes[2] = {NULL, NULL};
    size_t ns[2];
    double maxabs = 5;
    report_file rf;
    int rc = -1;
    if (report_file_open(&rf, dir, "compare_heatmap.dat", err, errlen) != 0)
        return -1;
    for (int b = 0; b < 2; b++) {
        ns[b] = paired_sizes(c, fams[b], &sizes[b]);
        fprintf(rf.f, "# %s: x = size index, y = mode row, overhead %%, label (~0 = same within noise)\n",
                rb_family_name(fams[b]));
        for (size_t s = 0; s < ns[b]; s++)
            for (size_t k = 0; k < RB_MODE_COUNT; k++) {
                mode_spec m = mode_at(k);
                if (ypos[k] < 0)
                    continue;
                const pair *p = find_pair(c, fams[b], &m, sizes[b][s]);
                double v = p && p->ov.state == REPORT_OV_OK ? 100 * p->ov.est : NAN;
                if (isfinite(v) && fabs(v) > maxabs)
                    maxabs = fabs(v);
                fprintf(rf.f, "%zu %d %.6g ", s, ypos[k], v);
                if (!isfinite(v))
                    fputs("-\n", rf.f);
                else if (strcmp(verdict_token(&p->ov), "same") == 0)
                    fputs("~0\n", rf.f);
                else
                    fprintf(rf.f, "%+.0f\n", v);
            }
        fputs("\n\n", rf.f);
    }
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "compare_heatmap.gp", err, errlen) != 0)
        goto out;
    FILE *gp = rf.f;
    report_canvas cv = {REPORT_HEAT_W, 240 + REPORT_MODE_ROW_H * nrows};
    report_gp_begin(gp, "compare_heatmap", "overhead of OTHER over BASE, every mode x size", cv);
    char label[1100], title[1200] = "Overhead of OTHER over BASE (%) per mode and size";
    report_label_pair(&c->base, &c->other, label, sizeof label);
    report_label_title(title, sizeof title, label);
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . "
          "'red = OTHER slower, blue = OTHER faster; ~0 = same within noise (95% CI includes 0 or under --min-effect); "
          "- = not paired' font ',14'\n",
          gp);
    fprintf(gp,
            "unset key\nset cbrange [%.6g:%.6g]\nset palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')\n"
            "set cblabel 'overhead (%%)'\nset grid noxtics noytics\nset xlabel 'message size'\n",
            -maxabs, maxabs);
    for (int b = 0; b < 2; b++) {
        char title[128];
        snprintf(title, sizeof title, "%s%s", rb_family_name(fams[b]), b ? " (on time per byte)" : "");
        report_heatmap_panel(gp, b, cv.height, sizes[b], ns[b], title, "compare_heatmap.dat",
                             "plot [0:1] NaN title 'no pairs'");
    }
    report_gp_end(gp);
    rc = report_file_close(&rf, err, errlen);
out:
    free(sizes[0]);
    free(sizes[1]);
    return rc;
}

/* Control-block and lifecycle overheads per mode, with their CIs. */
static int compare_ops(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    static const rb_family fams[] = {RB_FAM_CB_READ,     RB_FAM_CB_WRITE,      RB_FAM_CB_HANDSHAKE, RB_FAM_LC_LAUNCH,
                                     RB_FAM_LC_ACTIVATE, RB_FAM_LC_DEACTIVATE, RB_FAM_LC_TERMINATE};
    static const char *const colour[] = {"#000000", "#7B3294", "#A6611A", "#000000", "#7B3294", "#A6611A", "#008837"};
    static const int point[] = {7, 5, 9, 7, 5, 9, 13};
    int ypos[RB_MODE_COUNT], nrows = report_mode_rows(ypos);
    unsigned char has[7] = {0};
    report_file rf;
    if (report_file_open(&rf, dir, "compare_ops.dat", err, errlen) != 0)
        return -1;
    fputs("# overhead of OTHER over BASE (%) per mode, one block per family: y overhead ci_lo ci_hi\n", rf.f);
    for (size_t j = 0; j < 7; j++) {
        double off = ((double)(j < 3 ? j : j - 3) - (j < 3 ? 1.0 : 1.5)) * 0.2;
        fprintf(rf.f, "# %s\n", rb_family_name(fams[j]));
        for (size_t k = 0; k < RB_MODE_COUNT; k++) {
            mode_spec m = mode_at(k);
            const pair *p = ypos[k] >= 0 ? find_pair(c, fams[j], &m, 0) : NULL;
            if (p == NULL || p->ov.state != REPORT_OV_OK)
                continue;
            fprintf(rf.f, "%.3f %.6g %.6g %.6g\n", ypos[k] + off, 100 * p->ov.est, 100 * p->ov.lo, 100 * p->ov.hi);
            has[j] = 1;
        }
        fputs("\n\n", rf.f);
    }
    if (report_file_close(&rf, err, errlen) != 0 || report_file_open(&rf, dir, "compare_ops.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    report_canvas cv = {REPORT_CB_W, 260 + REPORT_MODE_ROW_H * nrows};
    report_gp_begin(gp, "compare_ops", "control-block and lifecycle overhead of OTHER over BASE per mode", cv);
    char label[1100], title[1200] = "Control-block and lifecycle operations: overhead of OTHER over BASE";
    report_label_pair(&c->base, &c->other, label, sizeof label);
    report_label_title(title, sizeof title, label);
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    fputs(" . \"\\n\" . "
          "'point = overhead, bar = 95% bootstrap CI; green band = the claimed 10-30%' font ',14'\n"
          "set xlabel 'overhead (%, + = OTHER slower)'\nset grid xtics\nset xrange [*<-5:35<*]\n",
          gp);
    for (int panel = 0; panel < 2; panel++) {
        size_t j0 = panel ? 3 : 0, j1 = panel ? 7 : 3;
        int first = 1;
        fprintf(gp, "set origin %s,0\nset size %s,%.4f\nset lmargin %s\nset rmargin 2\n", panel ? "0.6" : "0",
                panel ? "0.4" : "0.6", 1.0 - 80.0 / cv.height, panel ? "2" : "at screen 0.19");
        fprintf(gp, "set title '%s' font ',13'\n", panel ? "kernel lifecycle" : "control-block operations");
        report_mode_rows_axis(gp, panel == 0);
        fputs("set object 1 rect from first 10, graph 0 to first 30, graph 1 fc rgb '#CDE8CD' fs solid 0.6 noborder "
              "behind\nset arrow 1 from first 0, graph 0 to first 0, graph 1 nohead lc rgb 'black' back\n"
              "set key outside below horizontal maxrows 1 samplen 2 font ',11'\nplot ",
              gp);
        for (size_t j = j0; j < j1; j++) {
            if (!has[j])
                continue;
            fprintf(gp,
                    "%s'compare_ops.dat' index %zu using 2:1:3:4 with xerrorbars lc rgb '%s' pt %d ps 1.2 lw 1.5 "
                    "title '%s'",
                    first ? "" : ", \\\n  ", j, colour[j], point[j], rb_family_name(fams[j]));
            first = 0;
        }
        if (first)
            fputs("[0:1] NaN title 'no pairs'", gp);
        fputs("\nunset object\nunset arrow\nunset label\n", gp);
    }
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}

// --- compare.md -------------------------------------------------------------------------------------------

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Per family: the verdict counts, the median overhead, and the noise between the two runs: median and
 * p95 of |Δp50| (|est OTHER / est BASE − 1|, the trial-level estimates) and how many cells have an interval
 * that excludes 0 whatever the size of the difference. For two runs of one machine (an A/A test) the
 * last columns say how far apart repeated runs are; "same within noise" is what the verdict calls them. */
static void summary_md(FILE *md, const compare_ctx *c, const report_opts *o)
{
    int all = 0, all_same = 0, all_excl = 0;
    fprintf(
        md,
        "\n## Summary per family\n\n\"slower\"/\"faster\": the 95%% interval excludes 0 and the overhead is at "
        "least %.0f%% (--min-effect). Noise between the runs: |Δp50| = |est OTHER / est BASE − 1| per cell, est the cell's trial-level estimate (the median of its trial medians; time per byte for rates); "
        "\"CI excludes 0\" counts cells whose interval excludes 0 whatever the size of the difference.\n\n"
        "| family | pairs | OTHER slower | OTHER faster | same within noise | not compared | median overhead | "
        "median \\|Δp50\\| | p95 \\|Δp50\\| | CI excludes 0 |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        100 * o->min_effect);
    double *est = malloc((c->npairs + 1) * sizeof *est), *dp = malloc((c->npairs + 1) * sizeof *dp);
    for (int f = 0; f < RB_FAM_COUNT && est && dp; f++) {
        int n = 0, slower = 0, faster = 0, same = 0, na = 0, excl = 0;
        size_t ne = 0, nd = 0;
        for (size_t i = 0; i < c->npairs; i++) {
            const rb_row *a = report_row(&c->base, (size_t)c->pairs[i].ia);
            const report_ov *ov = &c->pairs[i].ov;
            if (report_row_family(a) != f)
                continue;
            const char *t = verdict_token(ov);
            n++;
            slower += strcmp(t, "slower") == 0;
            faster += strcmp(t, "faster") == 0;
            same += strcmp(t, "same") == 0;
            na += strcmp(t, "n/a") == 0;
            excl += report_ov_excludes_zero(ov);
            if (ov->state == REPORT_OV_OK)
                est[ne++] = ov->est;
            if (ov->state == REPORT_OV_OK)
                dp[nd++] = fabs(ov->est); /* the trial-level estimates, as the verdict uses */
            else if (ov->p50_a > 0 && isfinite(ov->p50_b))
                dp[nd++] = fabs(ov->p50_b / ov->p50_a - 1.0);
        }
        if (n == 0)
            continue;
        all += n;
        all_same += same;
        all_excl += excl;
        /* Medians and p95 as robust one-number summaries, not statistics to test. */
        qsort(est, ne, sizeof *est, cmp_dbl);
        qsort(dp, nd, sizeof *dp, cmp_dbl);
        double med = stats_percentile_sorted(est, ne, 50), dmed = stats_percentile_sorted(dp, nd, 50),
               d95 = stats_percentile_sorted(dp, nd, 95);
        fprintf(md, "| %s | %d | %d | %d | %d | %d | ", rb_family_name((rb_family)f), n, slower, faster, same, na);
        if (isfinite(med))
            fprintf(md, "%+.1f%% | ", 100 * med);
        else
            fputs("n/a | ", md);
        if (isfinite(dmed))
            fprintf(md, "%.1f%% | %.1f%% | %d |\n", 100 * dmed, 100 * d95, excl);
        else
            fprintf(md, "n/a | n/a | %d |\n", excl);
    }
    free(est);
    free(dp);
    fprintf(md,
            "\nOver all families: %d of %d pairs (%.1f%%) same within noise; %d have an interval that excludes 0.\n",
            all_same, all, all ? 100.0 * all_same / all : 0.0, all_excl);
}

static void pairs_md(FILE *md, const compare_ctx *c)
{
    char sz[32], buf[RB_REASON_LEN + 160];
    fputs(
        "\n## Every pair\n\nOverhead = est(OTHER) / est(BASE) − 1, est = median of the trial medians (GB/s families on time per byte), "
        "95% trial-level interval (\"samples\": one trial, sample noise only).\n\n| family | mode | size | BASE p50 | OTHER p50 | unit | "
        "overhead [95% CI] | OTHER is | interval from |\n"
        "| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |\n",
        md);
    for (size_t i = 0; i < c->npairs; i++) {
        const rb_row *a = report_row(&c->base, (size_t)c->pairs[i].ia);
        mode_spec m;
        fprintf(md, "| %s | %s | %s | %s | %s | %s | ", a->family,
                report_row_mode(a, &m) ? report_mode_str(&m) : "baseline",
                report_size_str(a->size_bytes, sz, sizeof sz), report_num(c->pairs[i].ov.p50_a),
                report_num(c->pairs[i].ov.p50_b), a->unit);
        report_md_text(md, report_ov_str(&c->pairs[i].ov, buf, sizeof buf));
        fprintf(md, " | %s | %s |\n", report_speed_word(&c->pairs[i].ov),
                report_ov_method_str(&c->pairs[i].ov, buf, sizeof buf));
    }
}

static void file_line_md(FILE *md, const char *which, const report_run *r)
{
    fprintf(md, "- **%s**: `", which);
    report_md_text(md, r->path);
    fputs("` — GPU ", md);
    report_md_text(md, report_prov(r, "gpu_name"));
    fputs(", driver ", md);
    report_md_text(md, report_prov(r, "driver_version"));
    fputs(", suite ", md);
    report_md_text(md, report_prov(r, "suite_version"));
    fputs(", OS ", md);
    report_md_text(md, report_prov(r, "os"));
    fprintf(md, ", wsl2 = %s, backend %s, %zu rows, complete = %d\n",
            report_prov(r, "wsl2")[0] ? report_prov(r, "wsl2") : "?", r->backend, report_nrows(r), r->complete);
}

static int write_compare_md(const compare_ctx *c, const char *dir, const report_opts *o, char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, "compare.md", err, errlen) != 0)
        return -1;
    FILE *md = rf.f;
    fputs("# ringbench compare\n\n", md);
    if (c->warnings[0]) {
        fputs("> **WARNING — THESE FILES ARE NOT LIKE FOR LIKE:**\n", md);
        for (const char *s = c->warnings; *s;) {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)len, s);
            fputs("> - ", md);
            report_md_text(md, line);
            fputs("\n", md);
            s += len + (nl != NULL);
        }
        fputs("> Differences below mix the platform with these differences.\n\n", md);
    }
    report_notes_md(md, &c->base, "BASE");
    report_notes_md(md, &c->other, "OTHER");
    /* The answer first (issue 11): the verdict in brief across the two files, then the files, the
     * full verdict, the per-family summary, plots and every pair. */
    report_headline_md(md, &c->base, &c->other, o, "compare_ops");
    file_line_md(md, "BASE", &c->base);
    file_line_md(md, "OTHER", &c->other);
    fprintf(md, "\n%zu pairs (same family, mode and size; status ok with samples in both files).\n", c->npairs);
    report_verdict_md(md, &c->base, &c->other, o);
    if (attr_section_md(md, &c->base, &c->other, dir, o, err, errlen) != 0)
        return -1;
    summary_md(md, c, o);
    report_modes_md(md, &c->base, "BASE");
    report_modes_md(md, &c->other, "OTHER");
    fputs("\n## Plots\n\n![latency overhead](compare_latency.png)\n\n![throughput overhead](compare_throughput.png)\n\n"
          "![overhead heat map](compare_heatmap.png)\n\n![control-block and lifecycle overhead](compare_ops.png)\n\n"
          "Each has an SVG twin and a gnuplot script (`gnuplot NAME.gp` in this directory).\n",
          md);
    pairs_md(md, c);
    return report_file_close(&rf, err, errlen);
}

int compare_write(const char *base, const char *other, const report_opts *opts)
{
    const report_opts o = *opts;
    const char *files[2] = {base, other};
    char dir[REPORT_PATH_MAX], err[REPORT_PATH_MAX + 512];
    compare_ctx c;
    int rc;
    memset(&c, 0, sizeof c);
    if (report_run_open(&c.base, files[0], err, sizeof err) != 0 ||
        report_run_open(&c.other, files[1], err, sizeof err) != 0) {
        fprintf(stderr, "ringbench compare: %s\n", err);
        rc = 2;
        goto out;
    }
    rc = 1;
    if (make_pairs(&c, &o) != 0) {
        fprintf(stderr, "ringbench compare: out of memory\n");
        goto out;
    }
    if (c.npairs == 0) {
        fprintf(stderr,
                "ringbench compare: %s and %s share no pairable rows (same family, mode and size, "
                "status ok, with samples): nothing to compare\n",
                files[0], files[1]);
        rc = 2;
        goto out;
    }
    check_like(&c);
    char label[1100];
    report_label_pair(&c.base, &c.other, label, sizeof label);
    if (label[0])
        fprintf(stderr, "ringbench compare: WARNING: %s\n", label);
    for (const char *s = c.warnings; *s;) {
        size_t len = strcspn(s, "\n");
        fprintf(stderr, "ringbench compare: WARNING: %.*s\n", (int)len, s);
        s += len + (s[len] == '\n');
    }
    for (int i = 0; i < 2; i++) {
        const report_run *r = i ? &c.other : &c.base;
        if (!r->complete)
            fprintf(stderr, "ringbench compare: WARNING: %s is an INCOMPLETE run (interrupted by %s)\n", r->path,
                    r->interrupted_by[0] ? r->interrupted_by : "unknown");
    }
    if (o.out_dir)
        snprintf(dir, sizeof dir, "%s", o.out_dir);
    else
        report_default_dir(files[1], "-compare", dir, sizeof dir);
    if (report_mkdir_p(dir, err, sizeof err) != 0 || write_pairs_dat(&c, dir, err, sizeof err) != 0 ||
        compare_facet(&c, dir, RB_FAM_LATENCY, "compare_latency", err, sizeof err) != 0 ||
        compare_facet(&c, dir, RB_FAM_THROUGHPUT, "compare_throughput", err, sizeof err) != 0 ||
        compare_heatmap(&c, dir, err, sizeof err) != 0 || compare_ops(&c, dir, err, sizeof err) != 0 ||
        write_compare_md(&c, dir, &o, err, sizeof err) != 0 ||
        report_label_headings(dir, "compare.md", label, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench compare: %s\n", err);
        goto out;
    }
    if (report_render("compare", dir, compare_scripts, o.render) != 0)
        goto out;
    printf("ringbench compare: wrote %s/compare.md\n", dir);
    rc = 0;
out:
    free(c.pairs);
    report_run_close(&c.base);
    report_run_close(&c.other);
    return rc;
}
