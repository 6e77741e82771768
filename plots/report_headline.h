/* report_headline.h - the first screen of report.md and compare.md, the README's answer table and the
 * headline export: the figures of harness/headline.h, rendered. */
#ifndef RINGBENCH_REPORT_HEADLINE_H
#define RINGBENCH_REPORT_HEADLINE_H

#include "headline.h"
#include "report_internal.h"

/* run's rows as a headline source (its trials cached by report_trials). */
void report_headline_source(const report_run *run, headline_source *s);

/* The headline figures: the native side from base, the fallback side from other (base == other for
 * one file), bootstrapped with the options' reps and seed. */
void report_headlines(const report_run *base, const report_run *other, const report_opts *o,
                      headline_fig figs[HL_COUNT]);

/* "NVIDIA H100 80GB HBM3 · driver 580.65.06 · CUDA 13.0 · 2026-11-22 · commit 0123456" (what is
 * recorded; "GPU not recorded" and the like where not), into buf. */
void report_machine_str(const report_run *run, char *buf, size_t n);

/* The answer table: one row per headline figure, native, fallback (each with its run-to-run spread),
 * fallback / native with its 95 % interval, and the word against the claimed 10-30 % (claim: 0 for
 * CPU-backend rows, which are not judged). across: the two sides come from two files (BASE native,
 * OTHER fallback). */
void report_answer_table_md(FILE *md, const headline_fig figs[HL_COUNT], int across, int claim);

/* The first screen after the title and the notes: one sentence of verdict, the answer table, the two
 * native references, the verdict words in one line, and the answer plot (plot.png; NULL for none). */
void report_first_screen_md(FILE *md, const report_run *base, const report_run *other,
                            const headline_fig figs[HL_COUNT], const char *plot);

/* The answer plot: the fallback / native ratios with their intervals on a log scale, beside the
 * claimed 10-30 %, one line per headline figure. Writes DIR/answer.dat and DIR/answer.gp. title: the
 * plot's title. Returns 0, or -1 with err. */
int report_plot_answer(const headline_fig figs[HL_COUNT], const char *title, const char *dir, char *err, size_t errlen);

#endif
