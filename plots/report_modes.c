/* report_modes.c - the cells whose samples have two modes, as report.md and compare.md show them.
 *
 * Some cells switch between two latencies (on the H100 a zero-copy ring with a device control block
 * answers 8 B in ~2.7 or ~8.7 us), and the share of slow samples varies from trial to trial, so the
 * cell's median flips between runs with nothing changed. stats_two_modes (harness/stats.h) finds
 * them; this section names them with both modes and the slow share, overall and per trial, so a
 * reader compares modes, not a median that can land on either. Time cells only (rates are one
 * repetition per sample, too few to split).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* The modes of row i over all its trials, and the range of the per-trial slow share (samples above
 * the geometric mean of the two modes). Returns 1 when the row is bimodal, 0 when not or unreadable. */
static int row_modes(const report_run *run, long i, stats_modes *m, double *share_min, double *share_max)
{
    size_t k = 0, n = 0;
    const stats_trial *t = report_trials(run, i, &k, NULL);
    for (size_t j = 0; j < k; j++)
        n += t[j].n;
    double *all = n >= 20 ? malloc(n * sizeof *all) : NULL;
    if (!all)
        return 0;
    size_t at = 0;
    for (size_t j = 0; j < k; j++) {
        memcpy(all + at, t[j].sorted, t[j].n * sizeof *all);
        at += t[j].n;
    }
    const int ok = stats_sort(all, n) == 0 && stats_two_modes(all, n, m) == 0 && m->bimodal;
    free(all);
    if (!ok)
        return 0;
    const double split = sqrt(m->lo * m->hi);
    *share_min = 1, *share_max = 0;
    for (size_t j = 0; j < k; j++) {
        size_t above = 0;
        while (above < t[j].n && t[j].sorted[t[j].n - 1 - above] > split)
            above++;
        const double s = t[j].n ? (double)above / (double)t[j].n : 0;
        *share_min = s < *share_min ? s : *share_min;
        *share_max = s > *share_max ? s : *share_max;
    }
    return 1;
}

void report_modes_md(FILE *md, const report_run *run, const char *which)
{
    size_t found = 0;
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        mode_spec m;
        stats_modes sm;
        double smin, smax;
        if (!report_row_ok(r) || report_unit_is_rate(r->unit) || !row_modes(run, (long)i, &sm, &smin, &smax))
            continue;
        if (found++ == 0)
            fprintf(md,
                    "\n## Cells with two modes%s%s\n\nThese cells' samples fall into two groups (Otsu's split of "
                    "the log samples; each group at least 3%%, medians at least 1.5x apart, well separated): "
                    "their p50 lands on either mode depending on the slow share, so compare the modes and the "
                    "share, not the p50.\n\n| family | mode | size | p50 | fast mode | slow mode | slow share "
                    "| per trial | unit |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
                    which[0] ? " in " : "", which);
        char sz[32];
        fprintf(md, "| %s | `%s` | %s | %s | %s | %s | %.0f%% | %.0f–%.0f%% | %s |\n", r->family,
                report_row_mode(r, &m) ? report_mode_str(&m) : "baseline",
                report_size_str(r->size_bytes, sz, sizeof sz), report_num(r->p50), report_num(sm.lo), report_num(sm.hi),
                100 * sm.hi_share, 100 * smin, 100 * smax, r->unit);
    }
    if (found == 0)
        fprintf(md, "\n## Cells with two modes%s%s\n\nNone: no time cell's samples split into two modes.\n",
                which[0] ? " in " : "", which);
}
