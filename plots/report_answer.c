/* report_answer.c - the headline figures outside report.md: `ringbench export FILE --headline` (Bencher
 * Metric Format or CSV, only the headline cells, so a Bencher threshold applies to a dozen benchmarks
 * rather than every cell) and the answer plot (answer.gp: each figure's fallback / native ratio with its
 * interval beside the claimed 10-30 %). The figures are harness/headline.h's. Exercised by
 * tests/test_report.c (export, plot) and tests/track_cli.sh (the BMF through `ringbench export`).
 */
#define _POSIX_C_SOURCE 200809L

#include "report_headline.h"
#include "export.h"
#include "report_plots.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#ifdef RINGBENCH_HAVE_JANSSON
#include <jansson.h>
#endif

// --- names ---------------------------------------------------------------------------------------------

/* The figure's stable name: "round_trip_8B", "cb_read", "throughput_4MiB", "full_window_8B". */
static void fig_key(const headline_fig *f, char *buf, size_t n)
{
    static const char *const stem[HL_COUNT] = {
        [HL_RT_SMALL] = "round_trip",       [HL_RT_FASTEST] = "round_trip",  [HL_RT_LARGE] = "round_trip",
        [HL_THR_LARGE] = "throughput",      [HL_CB_READ] = "cb_read",        [HL_CB_WRITE] = "cb_write",
        [HL_CB_HANDSHAKE] = "cb_handshake", [HL_FULL_WINDOW] = "full_window"};
    const int k = (int)(f->def - headline_defs);
    uint64_t b = f->size;
    if (f->def->size == HL_SIZE_NONE)
        snprintf(buf, n, "%s", stem[k]);
    else if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, n, "%s_%" PRIu64 "MiB", stem[k], b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%s_%" PRIu64 "KiB", stem[k], b >> 10);
    else
        snprintf(buf, n, "%s_%" PRIu64 "B", stem[k], b);
}

/* The side's name: "native" (the claim's native path), "fastest" (the fastest pinned mode), "fallback". */
static const char *side_name(const headline_fig *f, int side)
{
    return side == HL_FALLBACK ? mode_path_name(MODE_PATH_FALLBACK)
           : f->def->fastest   ? "fastest"
                               : mode_path_name(MODE_PATH_NATIVE);
}

/* 1 when figure k's side is a cell an earlier figure already names (the fallback's 8 B round trip). */
static int side_seen(const headline_fig *figs, int k, int side)
{
    for (int j = 0; j < k; j++)
        for (int s = 0; s < 2; s++)
            if (s == side && figs[j].side[s].ok && figs[j].side[s].row == figs[k].side[side].row &&
                strcmp(side_name(&figs[j], s), side_name(&figs[k], side)) == 0)
                return 1;
    return 0;
}

// --- export --------------------------------------------------------------------------------------------

static void csv_out(FILE *out, const headline_fig *figs)
{
    char key[64];
    fputs("figure,side,mode,size_bytes,window,unit,value,ci_lo,ci_hi,spread_cv,trials,ratio,ratio_lo,ratio_hi,"
          "against_claim,why\n",
          out);
    for (int k = 0; k < HL_COUNT; k++) {
        const headline_fig *f = &figs[k];
        fig_key(f, key, sizeof key);
        for (int s = 0; s < 2; s++) {
            const headline_side *d = &f->side[s];
            fprintf(out, "%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%s,", key, side_name(f, s), report_mode_str(&d->mode),
                    f->size, f->window, rb_family_unit(f->def->family));
            if (d->ok)
                fprintf(out, "%.9g,%.9g,%.9g,%.6g,%zu,", d->value, d->lo, d->hi, d->spread, d->trials);
            else
                fputs(",,,,,", out);
            if (f->ratio_ok)
                fprintf(out, "%.6g,%.6g,%.6g,%s,", f->ratio, f->ratio_lo, f->ratio_hi,
                        report_claim_name(headline_claim(f)));
            else
                fputs(",,,,", out);
            export_csv_field(out, d->ok ? (f->ratio_ok ? "" : f->why) : d->why);
            fputc('\n', out);
        }
    }
}

#ifdef RINGBENCH_HAVE_JANSSON
/* {"value": v, "lower_value": lo, "upper_value": hi}, each times scale; bounds only when finite. */
static json_t *measure(double v, double lo, double hi, double scale)
{
    json_t *m = json_object();
    json_object_set_new(m, "value", json_real(v * scale));
    if (isfinite(lo) && isfinite(hi)) {
        json_object_set_new(m, "lower_value", json_real(fmin(lo, hi) * scale));
        json_object_set_new(m, "upper_value", json_real(fmax(lo, hi) * scale));
    }
    return m;
}

/* One benchmark per measured headline cell and one per ratio. */
static json_t *bmf_doc(const headline_fig *figs)
{
    json_t *doc = json_object();
    char key[64], name[128];
    for (int k = 0; k < HL_COUNT; k++) {
        const headline_fig *f = &figs[k];
        fig_key(f, key, sizeof key);
        for (int s = 0; s < 2; s++) {
            const headline_side *d = &f->side[s];
            if (!d->ok || side_seen(figs, k, s))
                continue;
            json_t *b = json_object();
            if (f->def->full_window)
                json_object_set_new(b, "throughput", measure(d->msgs_per_s, NAN, NAN, 1.0));
            else if (f->def->family == RB_FAM_THROUGHPUT)
                json_object_set_new(b, "bandwidth-gb-s", measure(d->value, d->lo, d->hi, 1.0));
            else
                json_object_set_new(b, "latency", measure(d->value, d->lo, d->hi, 1e3)); /* Bencher: ns */
            snprintf(name, sizeof name, "headline/%s/%s", key, side_name(f, s));
            json_object_set_new(doc, name, b);
        }
        if (!f->ratio_ok)
            continue;
        json_t *b = json_object();
        json_object_set_new(b, "ratio", measure(f->ratio, f->ratio_lo, f->ratio_hi, 1.0));
        snprintf(name, sizeof name, "headline/%s/fallback_over_%s", key, side_name(f, HL_NATIVE));
        json_object_set_new(doc, name, b);
    }
    return doc;
}
#endif

int report_headline_export(const char *file, int bmf, FILE *out, char *err, size_t errlen)
{
    report_run run;
    report_opts o;
    headline_fig figs[HL_COUNT];
    report_opts_default(&o);
    if (report_run_open(&run, file, err, errlen) != 0)
        return -1;
    report_headlines(&run, &run, &o, figs);
    report_run_close(&run);
    int rc = 0;
    if (!bmf) {
        csv_out(out, figs);
    } else {
#ifdef RINGBENCH_HAVE_JANSSON
        json_t *doc = bmf_doc(figs);
        rc = doc && json_dumpf(doc, out, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 ? 0 : -1;
        json_decref(doc);
        fputc('\n', out);
#else
        snprintf(err, errlen, "this ringbench was built without jansson, which the bmf format needs");
        return -1;
#endif
    }
    if (rc != 0 || ferror(out)) {
        snprintf(err, errlen, "write error");
        return -1;
    }
    return 0;
}

// --- the answer plot -------------------------------------------------------------------------------------

/* answer.dat: y, ratio, lo, hi, label per measured figure (y = its row from the top). */
static int answer_dat(const headline_fig *figs, const char *dir, double *xmin, double *xmax, int *n, char *err,
                      size_t errlen)
{
    report_file rf;
    char name[160];
    if (report_file_open(&rf, dir, "answer.dat", err, errlen) != 0)
        return -1;
    fputs("# headline figure: row, fallback / native, 95 % interval lo hi, label\n", rf.f);
    *xmin = 1.0;
    *xmax = 1 + VERDICT_CLAIM_HI; /* the claimed band always shows */
    *n = 0;
    for (int k = 0; k < HL_COUNT; k++) {
        const headline_fig *f = &figs[k];
        if (!f->ratio_ok)
            continue;
        fig_key(f, name, sizeof name);
        fprintf(rf.f, "%d %.6g %.6g %.6g \"%s\"\n", k, f->ratio, f->ratio_lo, f->ratio_hi, report_times(f->ratio));
        *xmin = fmin(*xmin, f->ratio_lo > 0 ? f->ratio_lo : f->ratio);
        *xmax = fmax(*xmax, f->ratio_hi);
        (*n)++;
    }
    if (*n == 0)
        fputs("NaN NaN NaN NaN \"\"\n", rf.f);
    return report_file_close(&rf, err, errlen);
}

/* The figure names as y tics, top to bottom, short enough for an 800 px column. */
static void answer_ytics(FILE *gp, const headline_fig *figs)
{
    static const char *const what[HL_COUNT] = {[HL_RT_SMALL] = "round trip %s",
                                               [HL_RT_FASTEST] = "round trip %s vs fastest",
                                               [HL_RT_LARGE] = "round trip %s",
                                               [HL_THR_LARGE] = "throughput %s",
                                               [HL_CB_READ] = "control-block read",
                                               [HL_CB_WRITE] = "control-block write",
                                               [HL_CB_HANDSHAKE] = "control-block handshake",
                                               [HL_FULL_WINDOW] = "full window %s vs fastest"};
    char sz[32], label[96];
    fputs("set ytics (", gp);
    for (int k = 0; k < HL_COUNT; k++) {
        snprintf(label, sizeof label, what[k], report_size_str(figs[k].size, sz, sizeof sz));
        fprintf(gp, "%s", k ? ", " : "");
        report_gp_quote(gp, label);
        fprintf(gp, " %d", k);
    }
    fputs(") nomirror\n", gp);
}

int report_plot_answer(const headline_fig figs[HL_COUNT], const char *title, const char *dir, char *err, size_t errlen)
{
    double xmin, xmax;
    int n;
    if (answer_dat(figs, dir, &xmin, &xmax, &n, err, errlen) != 0)
        return -1;
    report_file rf;
    if (report_file_open(&rf, dir, "answer.gp", err, errlen) != 0)
        return -1;
    FILE *gp = rf.f;
    char band[32], sub[160];
    report_gp_begin(gp, "answer", "fallback / native per headline figure, beside the claimed " VERDICT_CLAIM_LABEL,
                    (report_canvas){REPORT_DOC_W, 480});
    snprintf(sub, sizeof sub, "fallback / native (time) and its 95 %% interval; green: the claimed %s",
             verdict_claim_ratio(band, sizeof band));
    report_gp_title(gp, title, sub);
    answer_ytics(gp, figs);
    /* The labels sit right of each interval, so the x range leaves a decade's fifth for them. */
    fprintf(gp,
            "unset key\nset logscale x 10\nset format x '%%gx'\nset xrange [%.6g:%.6g]\nset yrange [%d.6:-0.6]\n"
            "set xlabel 'fallback / native (time, log scale; 1x = as fast)'\nset grid xtics mxtics noytics\n"
            "set lmargin 27\nset rmargin 3\n"
            "set object 1 rect from first %.6g, graph 0 to first %.6g, graph 1 fc rgb '#A5D6A7' fs solid 0.7 "
            "noborder behind\n"
            "set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lc rgb '#444444' dt 2 back\n",
            xmin / 1.3, xmax * 2.5, HL_COUNT - 1, 1 + VERDICT_CLAIM_LO, 1 + VERDICT_CLAIM_HI);
    if (n == 0)
        fputs("set label 1 'no ratio could be computed (see report.md)' at graph 0.5, graph 0.5 center\n"
              "plot [1:10] NaN notitle\n",
              gp);
    else
        fputs("plot 'answer.dat' using 2:1:3:4 with xerrorbars lc rgb '#C2185B' pt 7 ps 1.4 lw 2 notitle, \\\n"
              "  '' using 4:1:5 with labels left offset 1,0 font ',14' notitle\n",
              gp);
    report_gp_end(gp);
    return report_file_close(&rf, err, errlen);
}
