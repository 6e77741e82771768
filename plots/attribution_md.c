/* attribution_md.c - the "what the CUDA calls explain" sections of compare.md and report.md, their
 * stacked-bar plot (attribution.gp -> .png/.svg) and, with --call-overhead, the MODEL section.
 * One call each from compare.c and report.c (attr_section_md); the numbers come from attribution.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "attribution_md.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attribution.h"
#include "report_plots.h"

typedef struct side {
    const report_run *run;
    double pinned[CC_KIND_COUNT], pageable[CC_KIND_COUNT];
    int known;
} side;

static void side_load(side *s, const report_run *run)
{
    s->run = run;
    const size_t n = report_nrows(run);
    rb_row *rows = calloc(n ? n : 1, sizeof *rows);
    s->known = 0;
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++)
        rows[i] = *report_row(run, i);
    s->known = attr_costs(rows, n, 1, s->pinned);
    attr_costs(rows, n, 0, s->pageable);
    free(rows);
}

static const double *side_costs(const side *s, const mode_spec *m)
{
    return m->v[RB_AXIS_HOST] == RB_HOST_PINNED ? s->pinned : s->pageable;
}

static const rb_row *find_row(const report_run *run, rb_family f, const mode_spec *m, uint64_t size)
{
    long i = report_find(run, f, m, size);
    return i >= 0 && report_row_ok(report_row(run, (size_t)i)) ? report_row(run, (size_t)i) : NULL;
}

static void costs_md(FILE *md, const side *b, const side *o, int two)
{
    fputs("\nPer-call costs (p50 of the call_* baselines, us; memcpy is the mean of both directions):\n\n"
          "| call kind | pinned | pageable |",
          md);
    if (two)
        fputs(" OTHER pinned | OTHER pageable |", md);
    fputs("\n| --- | --- | --- |", md);
    if (two)
        fputs(" --- | --- |", md);
    fputs("\n", md);
    for (int k = 0; k < CC_KIND_COUNT; k++) {
        fprintf(md, "| %s | %s | %s |", cc_kind_name((cc_kind)k), report_num(b->pinned[k]), report_num(b->pageable[k]));
        if (two)
            fprintf(md, " %s | %s |", report_num(o->pinned[k]), report_num(o->pageable[k]));
        fputs("\n", md);
    }
}

/* One table row plus one data line; returns 1 when the pair could be attributed. */
static int pair_out(FILE *md, FILE *dat, const char *label, const char *short_label, const side *b, const mode_spec *mb,
                    const rb_row *rb, const side *o, const mode_spec *mo, const rb_row *ro)
{
    attr_result a;
    if (!rb || !ro || attr_compute(rb, side_costs(b, mb), ro, side_costs(o, mo), &a) != 0) {
        fprintf(md, "| %s | %s | %s | n/a | n/a | n/a | n/a |\n", label, rb ? report_num(rb->p50) : "n/a",
                ro ? report_num(ro->p50) : "n/a");
        return 0;
    }
    fprintf(md, "| %s | %s | %s | %s | %s | %s | %s |\n", label, report_num(a.base_us), report_num(a.other_us),
            report_num(a.delta_us), report_num(a.by_cost_us), report_num(a.by_count_us), report_num(a.remainder_us));
    if (dat != NULL && a.delta_us != 0)
        fprintf(dat, "\"%s\" %.6g %.6g %.6g %.6g \"%s%s\"\n", short_label, a.delta_us, a.by_cost_us, a.by_count_us,
                a.remainder_us, a.delta_us > 0 ? "+" : "", report_time(a.delta_us));
    return 1;
}

/* The plot: per pair, the difference as 100 %, split into what the per-call costs, the number of calls
 * and the rest explain, each part drawn from where the last ended (a part against the difference runs
 * back), clipped to -25..125 %. One bar per pair of attribution.dat, its difference written right of
 * the frame. */
static void plot_gp(const char *dir, const char *title, int nbars, char *err, size_t errlen, int *ok)
{
    report_file rf;
    *ok = 0;
    if (report_file_open(&rf, dir, "attribution.gp", err, errlen) != 0)
        return;
    report_canvas c = {REPORT_DOC_W, 230 + 34 * nbars};
    report_gp_begin(rf.f, "attribution", "each difference split into CUDA calls x cost and the rest", c);
    report_gp_title(rf.f, title, "share of each difference in p50: 100 % is the whole difference, written right");
    fprintf(
        rf.f,
        "set yrange [%d.6:-0.6]\nset xrange [-25:125]\nset xtics ('0' 0, '25' 25, '50' 50, '75' 75, '100 %%%%' 100)\n"
        "set grid xtics noytics\nset lmargin at screen 0.30\nset rmargin at screen 0.84\n"
        "set arrow 1 from first 100, graph 0 to first 100, graph 1 nohead lc rgb '#888888' dt 2 back\n"
        "set key outside bottom center horizontal maxrows 2 font ',13'\nset style fill solid 0.9 noborder\n",
        nbars - 1);
    fputs("s(x, d) = 100 * x / d\n"
          "plot 'attribution.dat' using (s($3,$2)/2):0:(0):(s($3,$2)):($0-0.3):($0+0.3):ytic(1) with boxxyerror "
          "lc rgb '#D62728' title 'per-call costs changed', \\\n"
          "  '' using 0:0:(s($3,$2)):(s($3,$2)+s($4,$2)):($0-0.3):($0+0.3) with boxxyerror lc rgb '#FF9896' "
          "title 'number of calls changed', \\\n"
          "  '' using 0:0:(s($3,$2)+s($4,$2)):(100):($0-0.3):($0+0.3) with boxxyerror lc rgb '#1F77B4' "
          "title 'the rest: PCIe, memory, scheduling', \\\n"
          "  '' using (125):0:6 with labels left offset 1,0 font ',13' notitle\n",
          rf.f);
    report_gp_end(rf.f);
    *ok = report_file_close(&rf, err, errlen) == 0;
}

static void model_md(FILE *md, const side *b, const side *o, int two, const double ov[CC_KIND_COUNT])
{
    fputs("\n## MODEL: what WSL2 would add (per-call overheads, not a measurement)\n\n"
          "**MODEL.** Each mode's latency as measured in BASE plus, for every CUDA call it makes per "
          "message, the overhead given with `--call-overhead`:",
          md);
    for (int k = 0; k < CC_KIND_COUNT; k++)
        if (ov[k] > 0)
            fprintf(md, " %s +%s us", cc_kind_name((cc_kind)k), report_num(ov[k]));
    fputs(". Calls made while polling overlap with waiting, so poll-heavy modes (ctrl=device) are "
          "overestimated.\n\n",
          md);
    fprintf(md, "| mode | size | BASE p50 (us) | MODEL added (us) | MODEL p50 (us) |%s\n",
            two ? " OTHER p50 (us) | MODEL error |" : "");
    fprintf(md, "| --- | --- | --- | --- | --- |%s\n", two ? " --- | --- |" : "");
    uint64_t *sizes = NULL;
    size_t ns = report_sizes(b->run, RB_FAM_LATENCY, &sizes);
    double abs_err = 0;
    int nerr = 0;
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = report_plot_mode(k);
        for (size_t j = 0; j < ns; j++) {
            const rb_row *r = find_row(b->run, RB_FAM_LATENCY, &m, sizes[j]);
            double added, pred = r ? attr_predict(r, ov, &added) : NAN;
            if (!isfinite(pred))
                continue;
            char sz[32];
            fprintf(md, "| %s | %s | %s | %s | %s |", report_mode_str(&m), report_size_str(sizes[j], sz, sizeof sz),
                    report_num(r->p50), report_num(added), report_num(pred));
            if (two) {
                const rb_row *ro = find_row(o->run, RB_FAM_LATENCY, &m, sizes[j]);
                if (ro) {
                    double e = (pred - ro->p50) / ro->p50;
                    fprintf(md, " %s | %+.1f%% |", report_num(ro->p50), 100 * e);
                    abs_err += fabs(e);
                    nerr++;
                } else {
                    fputs(" n/a | n/a |", md);
                }
            }
            fputs("\n", md);
        }
    }
    free(sizes);
    if (two)
        fprintf(md, "\nMODEL error against the measured OTHER file: mean |error| %s over %d cells%s.\n",
                nerr ? report_num(100 * abs_err / nerr) : "n/a", nerr, nerr ? " (percent)" : "");
}

/* The table rows (every mode of two files at their smallest and largest size, or the native path
 * against the fallback at every size of one file) and the plot's data: of two files only the native and
 * the fallback path, so that the plot has a dozen bars, not a hundred. Returns how many bars. */
static int pairs_md(FILE *md, FILE *dat, const side *b, const side *s, int two)
{
    static const rb_family fams[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
    uint64_t *sizes = NULL;
    size_t ns = report_sizes(b->run, RB_FAM_LATENCY, &sizes);
    int bars = 0;
    for (size_t k = 0; k < (two ? RB_MODE_COUNT : 1); k++) {
        mode_spec mb = two ? report_plot_mode(k) : mode_native(), mo = two ? mb : mode_wsl2_fallback();
        if (two && !find_row(b->run, RB_FAM_LATENCY, &mb, ns ? sizes[0] : 0))
            continue;
        const mode_spec nat = mode_native();
        const int plotted = !two || report_mode_eq(&mb, &nat) || report_mode_is_fallback(&mb);
        const char *who = !two ? "" : report_mode_is_fallback(&mb) ? "fallback " : "native ";
        char label[96], short_label[64], sz[32];
        for (size_t f = 0; f < 3 + ns; f++) {
            const int cb = f < 3;
            const size_t j = cb ? 0 : f - 3;
            if (!cb && two && j != 0 && j + 1 != ns)
                continue; /* two files: smallest and largest size per mode; all sizes in one file */
            const rb_family fam = cb ? fams[f] : RB_FAM_LATENCY;
            const uint64_t size = cb ? 0 : sizes[j];
            report_size_str(size, sz, sizeof sz);
            snprintf(label, sizeof label, "%s %s%s%s", two ? report_mode_str(&mb) : "",
                     cb ? rb_family_name(fam) : "latency ", cb ? "" : sz, "");
            snprintf(short_label, sizeof short_label, "%s%s", who, cb ? rb_family_name(fam) : sz);
            const rb_row *rb = find_row(b->run, fam, &mb, size), *ro = find_row(s->run, fam, &mo, size);
            int got = pair_out(md, plotted ? dat : NULL, label, short_label, b, &mb, rb, s, &mo, ro);
            bars += got && plotted;
        }
    }
    free(sizes);
    return bars;
}

int attr_section_md(FILE *md, const report_run *base, const report_run *other, const char *dir, const report_opts *o,
                    char *err, size_t errlen)
{
    const int two = base != other;
    side b, s;
    side_load(&b, base);
    side_load(&s, other);
    fprintf(md, "\n## What the CUDA calls explain%s\n\n",
            two ? ": OTHER against BASE" : ": WSL2 fallback against native");
    fputs("Difference of p50 split into *per-call costs changed* (calls per operation x change of each call's "
          "cost), *number of calls changed*, and the *remainder* (PCIe, memory, scheduling: what is not a "
          "call's cost). Counts from the rows' calls_* columns, costs from each file's call_* baselines "
          "(harness/attribution.h).\n",
          md);
    if (!b.known || !s.known) {
        fputs("\nNot available: a file has no per-call cost baselines (call_*: a CPU-backend run, or a file "
              "older than schema 2).\n",
              md);
    } else {
        report_file dat;
        if (report_file_open(&dat, dir, "attribution.dat", err, errlen) != 0)
            return -1;
        costs_md(md, &b, &s, two);
        fprintf(md,
                "\n| %s | BASE p50 (us) | OTHER p50 (us) | difference (us) | per-call costs | number of calls | "
                "remainder |\n| --- | --- | --- | --- | --- | --- | --- |\n",
                two ? "mode, operation" : "operation (native -> fallback)");
        const int bars = pairs_md(md, dat.f, &b, &s, two);
        if (report_file_close(&dat, err, errlen) != 0)
            return -1;
        int ok = 0;
        if (bars > 0) {
            char title[1400], label[1100];
            snprintf(title, sizeof title, "%s",
                     two ? "What the CUDA calls explain: OTHER against BASE"
                         : "What the CUDA calls explain: WSL2 fallback against native");
            report_label_pair(base, other, label, sizeof label); /* INJECTED / LIMITS APPLIED */
            report_label_title(title, sizeof title, label);
            plot_gp(dir, title, bars, err, errlen, &ok);
            const char *scripts[] = {"attribution.gp", NULL};
            if (ok && report_render(two ? "compare" : "report", dir, scripts, o->render) == 0)
                fputs("\n![calls x cost attribution](attribution.png)\n", md);
        }
    }
    if (o->call_overhead) {
        double ov[CC_KIND_COUNT];
        if (attr_parse_overhead(o->call_overhead, ov, err, errlen) != 0)
            return -1;
        model_md(md, &b, &s, two, ov);
    }
    return 0;
}
