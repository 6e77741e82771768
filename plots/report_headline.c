/* report_headline.c - the answer at a glance: report.md's and compare.md's first screen, the README's
 * answer table (`ringbench report FILE --answer`), the headline export and the answer plot.
 *
 * Which cells are headline figures and how their ratios are estimated is harness/headline.h's; this
 * file only phrases them, so report, README, export and tracking cannot disagree. Numbers follow the
 * house rules: 3 significant digits in scaled units, ratios as ×, and where a figure is missing the
 * reason, never "nan". Exercised by tests/test_report.c (first screen, answer) and tests/answer_test.sh
 * (the README's table equals the command's output on the committed reference run).
 */
#define _POSIX_C_SOURCE 200809L

#include "report_headline.h"
#include "report_plots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef RINGBENCH_HAVE_JANSSON
#include <jansson.h>
#endif

// --- the figures -----------------------------------------------------------------------------------------

static const rb_row *src_row(void *ctx, size_t i) { return report_row(ctx, i); }

static const stats_trial *src_trials(void *ctx, size_t i, size_t *k, const int32_t **round)
{
    return report_trials(ctx, (long)i, k, round);
}

void report_headline_source(const report_run *run, headline_source *s)
{
    *s = (headline_source){(void *)run, report_nrows(run), src_row, src_trials};
}

void report_headlines(const report_run *base, const report_run *other, const report_opts *o,
                      headline_fig figs[HL_COUNT])
{
    headline_source b, f;
    report_headline_source(base, &b);
    report_headline_source(other, &f);
    if (base == other)
        f = b; /* one context: rows of one file, paired where measured in the same rounds */
    headline_compute(&b, &f, o->reps, o->seed, figs);
}

// --- the machine line -------------------------------------------------------------------------------------

/* A recorded value, or "" when absent or recorded as not known. */
static const char *known(const report_run *run, const char *name)
{
    const char *v = report_prov(run, name);
    return strcmp(v, "(not recorded)") == 0 || strcmp(v, "unknown") == 0 ? "" : v;
}

/* A CUDA version as the runtime reports it (13000) or as text ("13.0"), as "13.0". */
static void cuda_version(const char *v, char *buf, size_t n)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (*v && *end == '\0' && x >= 1000)
        snprintf(buf, n, "%ld.%ld", x / 1000, x % 1000 / 10);
    else
        snprintf(buf, n, "%s", v);
}

void report_machine_str(const report_run *run, char *buf, size_t n)
{
    const char *gpu = known(run, "gpu_name"), *drv = known(run, "nvml_driver_version");
    const char *date = known(run, "start_utc"), *commit = known(run, "git_commit");
    char cuda[32];
    cuda_version(known(run, "runtime_version"), cuda, sizeof cuda);
    if (!drv[0])
        drv = known(run, "driver_version");
    if (strcmp(drv, "0") == 0) /* cudaDriverGetVersion's answer where no driver is loaded */
        drv = "none";
    if (strcmp(run->backend, "cuda") != 0)
        gpu = "CPU reference backend (not a GPU)";
    snprintf(buf, n, "%s · driver %s · CUDA %s · %.10s · commit %.12s%s", gpu[0] ? gpu : "GPU not recorded",
             drv[0] ? drv : "not recorded", cuda[0] ? cuda : "not recorded", date[0] ? date : "date not recorded",
             commit[0] ? commit : "not recorded", strcmp(known(run, "git_dirty"), "yes") == 0 ? " (dirty)" : "");
}

// --- the table ----------------------------------------------------------------------------------------------

/* The figure's name with its size, window and reference: "round trip, 8 B". */
static void fig_name(const headline_fig *f, char *buf, size_t n)
{
    char sz[32];
    const char *what = f->def->full_window ? "full window" : f->def->label;
    if (f->def->fastest && !f->def->full_window)
        what = "round trip";
    size_t len = (size_t)snprintf(buf, n, "%s", what);
    if (f->def->size != HL_SIZE_NONE && len < n)
        len += (size_t)snprintf(buf + len, n - len, ", %s", report_size_str(f->size, sz, sizeof sz));
    if (f->def->full_window && f->window && len < n)
        len += (size_t)snprintf(buf + len, n - len, " (W = %llu)", (unsigned long long)f->window);
    if (f->def->fastest && len < n)
        len += (size_t)snprintf(buf + len, n - len, ", fastest native mode");
    if (f->def->family == RB_FAM_THROUGHPUT && !f->def->full_window && len < n)
        snprintf(buf + len, n - len, " (ratio on time per byte)");
}

/* One side's cell: "14.9 µs ±1.6 %", or why there is none. */
static void side_md(FILE *md, const headline_fig *f, const headline_side *s)
{
    if (!s->ok) {
        fputs(" not measured: ", md);
        report_md_text(md, s->why);
        fputs(" |", md);
        return;
    }
    fprintf(md, " %s",
            f->def->full_window ? report_msgs(s->msgs_per_s) : report_value(s->value, rb_family_unit(f->def->family)));
    if (isfinite(s->spread)) /* two digits: a spread is itself a rough figure */
        fprintf(md, " ±%.*f %%", 100 * s->spread >= 10 ? 0 : 1, 100 * s->spread);
    fputs(" |", md);
}

void report_answer_table_md(FILE *md, const headline_fig figs[HL_COUNT], int across, int claim)
{
    char name[160];
    fprintf(md,
            "| headline figure | native%s | WSL2 fallback%s | fallback / native [95 %% interval] | against the "
            "claimed " VERDICT_CLAIM_FMT " |\n| --- | ---: | ---: | --- | --- |\n",
            across ? " (BASE)" : "", across ? " (OTHER)" : "");
    for (int k = 0; k < HL_COUNT; k++) {
        const headline_fig *f = &figs[k];
        fig_name(f, name, sizeof name);
        fprintf(md, "| %s |", name);
        side_md(md, f, &f->side[HL_NATIVE]);
        side_md(md, f, &f->side[HL_FALLBACK]);
        if (f->ratio_ok)
            fprintf(md, " **%s** [%s, %s] | %s |\n", report_times(f->ratio), report_times(f->ratio_lo),
                    report_times(f->ratio_hi),
                    claim ? report_claim_name(headline_claim(f)) : "not judged: CPU backend");
        else {
            fputs(" no ratio: ", md);
            report_md_text(md, f->why);
            fputs(" | n/a |\n", md);
        }
    }
}

// --- the first screen ---------------------------------------------------------------------------------------

/* The one sentence of verdict. */
static void verdict_md(FILE *md, const report_run *base, const report_run *other, const headline_fig *figs)
{
    double lo, hi;
    const verdict_claim v = headline_verdict(figs, &lo, &hi);
    const headline_fig *rt = &figs[HL_RT_SMALL];
    char sz[32];
    mode_spec fb = mode_wsl2_fallback();
    if (!report_claim_applies(base, other))
        fputs("**No verdict: these are CPU reference backend numbers, not GPU numbers.** For checking the tools "
              "only, on this machine's CPUs: ",
              md);
    else if (v == VERDICT_CLAIM_NONE)
        fputs("**No verdict:** the control-block operations of the two paths were not both measured (the table "
              "says why); ",
              md);
    else
        fprintf(md, "**Verdict: %s the claim.** ", v == VERDICT_MIXED ? "mixed against" : report_claim_name(v));
    fprintf(md, "The WSL2 fallback path `%s`%s ", report_mode_str(&fb), base != other ? " (OTHER)" : "");
    char band[32];
    if (isfinite(lo))
        fprintf(md,
                "takes %s%s%s the native path's time for control-block operations (claimed: %s, "
                "\"" VERDICT_CLAIM_FMT " slower\")",
                report_times(lo), lo != hi ? " to " : "", lo != hi ? report_times(hi) : "",
                verdict_claim_ratio(band, sizeof band));
    else
        fputs("could not be set against the native path for control-block operations", md);
    if (rt->ratio_ok)
        fprintf(md, ", and %s for a whole %s round trip", report_times(rt->ratio),
                report_size_str(rt->size, sz, sizeof sz));
    fputs(".\n\n", md);
}

/* The two native references in one line. */
static void references_md(FILE *md, const headline_fig *figs)
{
    mode_spec nat = mode_native();
    const headline_fig *rt = &figs[HL_RT_SMALL], *fast = &figs[HL_RT_FASTEST], *win = &figs[HL_FULL_WINDOW];
    char sz[32];
    fprintf(md,
            "Native references: **the claim's native path** `%s` (pinned memory, async copies, cooperative "
            "launch, mapped control block); **the fastest native mode** ",
            report_mode_str(&nat));
    if (fast->side[HL_NATIVE].ok) {
        fprintf(md, "`%s`", report_mode_str(&fast->side[HL_NATIVE].mode));
        if (rt->side[HL_NATIVE].ok && fast->side[HL_NATIVE].value > 0)
            fprintf(md, ", %s faster than the native path at %s",
                    report_times(rt->side[HL_NATIVE].value / fast->side[HL_NATIVE].value),
                    report_size_str(rt->size, sz, sizeof sz));
    } else {
        fputs("not measured (", md);
        report_md_text(md, fast->side[HL_NATIVE].why);
        fputs(")", md);
    }
    if (win->side[HL_NATIVE].ok && memcmp(&win->side[HL_NATIVE].mode, &fast->side[HL_NATIVE].mode, sizeof nat) != 0)
        fprintf(md, " (at the full window `%s`)", report_mode_str(&win->side[HL_NATIVE].mode));
    fputs(". ± is the run-to-run spread (CV of the trial medians).\n", md);
}

void report_first_screen_md(FILE *md, const report_run *base, const report_run *other,
                            const headline_fig figs[HL_COUNT], const char *plot)
{
    verdict_md(md, base, other, figs);
    report_answer_table_md(md, figs, base != other, report_claim_applies(base, other));
    fputs("\n", md);
    references_md(md, figs);
    char band[32];
    fprintf(md,
            "\nVerdict words: **above** / **inside** / **below**: the whole 95 %% interval of fallback / native lies "
            "above / inside / below the claimed %s; **straddles**: it crosses a bound. The method is under "
            "[Method](#method).\n\n",
            verdict_claim_ratio(band, sizeof band));
    if (plot != NULL)
        fprintf(md, "![the answer: fallback / native per headline figure](%s.png)\n\n", plot);
}

// --- report --answer ----------------------------------------------------------------------------------------

int report_answer_print(const char *file, const report_opts *o)
{
    report_run run;
    char err[REPORT_PATH_MAX + 512], machine[512];
    headline_fig figs[HL_COUNT];
    if (report_run_open(&run, file, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench report: %s\n", err);
        return 2;
    }
    report_headlines(&run, &run, o, figs);
    /* The README names its commit on this one "Measured at" line (tests/house_text.sh). */
    const char *commit = known(&run, "git_commit"), *trials = known(&run, "trials");
    report_machine_str(&run, machine, sizeof machine);
    char *cut = strstr(machine, " · commit "); /* the commit leads instead */
    if (cut)
        *cut = '\0';
    if (commit[0])
        printf("Measured at `%.12s` on %s", commit, machine);
    else
        printf("Measured at a commit the file does not record, on %s", machine);
    printf(", %s trials a figure:\n\n", trials[0] ? trials : "the file's");
    report_answer_table_md(stdout, figs, 0, report_claim_applies(&run, &run));
    printf("\n");
    references_md(stdout, figs);
    report_run_close(&run);
    return fflush(stdout) == 0 ? 0 : 1;
}

// --- the run's summary on the terminal ----------------------------------------------------------------------

/* The reasons figures are missing, numbered in the order met, each once. */
typedef struct why_notes {
    const char *why[2 * HL_COUNT];
    int n;
} why_notes;

/* The number of reason why among the notes (1, 2, ...), added if new. */
static int why_note(why_notes *w, const char *why)
{
    for (int i = 0; i < w->n; i++)
        if (strcmp(w->why[i], why) == 0)
            return i + 1;
    w->why[w->n] = why;
    return ++w->n;
}

/* One side as the terminal shows it: "11.7 µs ±1.6 %", or "not measured [1]" with the reason noted. */
static void side_text(const headline_fig *f, const headline_side *s, why_notes *w, char *buf, size_t n)
{
    if (!s->ok) {
        snprintf(buf, n, "not measured [%d]", why_note(w, s->why));
        return;
    }
    const char *v =
        f->def->full_window ? report_msgs(s->msgs_per_s) : report_value(s->value, rb_family_unit(f->def->family));
    if (isfinite(s->spread))
        snprintf(buf, n, "%s ±%.*f %%", v, 100 * s->spread >= 10 ? 0 : 1, 100 * s->spread);
    else
        snprintf(buf, n, "%s", v);
}

/* The verdict in one plain sentence (report.md's, without its markup). */
static void verdict_text(FILE *out, const report_run *run, const headline_fig *figs)
{
    double lo, hi;
    char band[32], sz[32];
    const verdict_claim v = headline_verdict(figs, &lo, &hi);
    const headline_fig *rt = &figs[HL_RT_SMALL];
    if (!report_claim_applies(run, run))
        fputs("No verdict: CPU reference backend numbers, not GPU numbers (for checking the tools only).\n", out);
    else if (v == VERDICT_CLAIM_NONE)
        fputs("No verdict: the control-block operations of the two paths were not both measured (below: why).\n", out);
    else {
        fprintf(out,
                "Verdict: %s the claim. The WSL2 fallback takes %s%s%s the native path's time for control-block "
                "operations (claimed: %s)",
                v == VERDICT_MIXED ? "mixed against" : report_claim_name(v), report_times(lo), lo != hi ? " to " : "",
                lo != hi ? report_times(hi) : "", verdict_claim_ratio(band, sizeof band));
        if (rt->ratio_ok)
            fprintf(out, ", and %s for a whole %s round trip", report_times(rt->ratio),
                    report_size_str(rt->size, sz, sizeof sz));
        fputs(".\n", out);
    }
}

/* The headline figures as an aligned table: name, native, fallback, fallback / native with its interval;
 * a missing figure or ratio points to its reason, listed under the table. */
static void figures_text(FILE *out, const headline_fig figs[HL_COUNT])
{
    char name[160], a[64], b[64];
    why_notes w = {.n = 0};
    report_put_padded(out, "headline figure", 50, 0);
    report_put_padded(out, mode_path_title(MODE_PATH_NATIVE), 20, 0);
    report_put_padded(out, mode_path_title(MODE_PATH_FALLBACK), 20, 0);
    fputs("fallback / native [95 % interval]\n", out);
    for (int k = 0; k < HL_COUNT; k++) {
        const headline_fig *f = &figs[k];
        fig_name(f, name, sizeof name);
        side_text(f, &f->side[HL_NATIVE], &w, a, sizeof a);
        side_text(f, &f->side[HL_FALLBACK], &w, b, sizeof b);
        report_put_padded(out, name, 49, 0);
        fputc(' ', out);
        report_put_padded(out, a, 19, 0);
        fputc(' ', out);
        report_put_padded(out, b, 19, 0);
        fputc(' ', out);
        if (f->ratio_ok)
            fprintf(out, "%s [%s, %s]\n", report_times(f->ratio), report_times(f->ratio_lo), report_times(f->ratio_hi));
        else
            fprintf(out, "no ratio [%d]\n", why_note(&w, f->why));
    }
    for (int i = 0; i < w.n; i++)
        fprintf(out, "[%d] %s\n", i + 1, w.why[i]);
}

int report_summary_print(FILE *out, const char *file, char *err, size_t errlen)
{
    report_run run;
    report_opts o;
    char machine[512];
    headline_fig figs[HL_COUNT];
    report_opts_default(&o);
    if (report_run_open(&run, file, err, errlen) != 0)
        return -1;
    report_headlines(&run, &run, &o, figs);
    report_machine_str(&run, machine, sizeof machine);
    const char *trials = known(&run, "trials");
    fprintf(out, "\n%s, %s trial%s a figure\n", machine, trials[0] ? trials : "the file's",
            strcmp(trials, "1") == 0 ? "" : "s");
    verdict_text(out, &run, figs);
    figures_text(out, figs);
    fputs("± is the run-to-run spread (CV of the trial medians); the method and every mode: ringbench report "
          "FILE\n",
          out);
    report_run_close(&run);
    return 0;
}
