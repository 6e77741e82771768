/* report_modes.c - the cells whose samples have two modes, as report.md and compare.md show them.
 *
 * Some cells switch between two latencies (on the H100 a zero-copy ring with a device control block
 * answers 8 B in ~2.7 or ~8.7 us), and the share of slow samples varies from trial to trial, so the
 * cell's median flips between runs with nothing changed. The results file records them (schema 4:
 * mode_fast, mode_slow, slow_share, bimodal; results/bimodal.h has the rule, and the reader computes
 * them for older files); this section names them with both modes and the slow share, overall and
 * per trial, so a reader compares modes, not a median that can land on either. Time cells only
 * (rates are one repetition per sample, too few to split).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* The range of row r's per-trial slow share: the share of each trial's samples above the geometric
 * mean of the row's two modes (NaN when its trials cannot be read). */
static void trial_shares(const report_run *run, long i, const rb_row *r, double *share_min, double *share_max)
{
    size_t k = 0;
    const stats_trial *t = report_trials(run, i, &k, NULL);
    const double split = sqrt(r->mode_fast * r->mode_slow);
    *share_min = 1, *share_max = 0;
    for (size_t j = 0; j < k; j++) {
        size_t above = 0;
        while (above < t[j].n && t[j].sorted[t[j].n - 1 - above] > split)
            above++;
        const double s = t[j].n ? (double)above / (double)t[j].n : 0;
        *share_min = s < *share_min ? s : *share_min;
        *share_max = s > *share_max ? s : *share_max;
    }
    if (k == 0)
        *share_min = *share_max = NAN;
}

void report_modes_md(FILE *md, const report_run *run, const char *which)
{
    size_t found = 0;
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        mode_spec m;
        double smin, smax;
        if (!report_row_ok(r) || report_unit_is_rate(r->unit) || r->bimodal != 1)
            continue;
        trial_shares(run, (long)i, r, &smin, &smax);
        if (found++ == 0)
            fprintf(md,
                    "\n## Cells with two modes%s%s\n\nThese cells' samples fall into two groups (Otsu's split of "
                    "the log samples; each group at least 3%%, medians at least 1.5x apart, well separated): "
                    "their p50 lands on either mode depending on the slow share, so compare the modes and the "
                    "share, not the p50.\n\n| family | mode | size | p50 | fast mode | slow mode | slow share "
                    "| per trial | unit |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
                    which[0] ? " in " : "", which);
        char sz[32], per[64] = "-";
        if (isfinite(smin))
            snprintf(per, sizeof per, "%.0f–%.0f%%", 100 * smin, 100 * smax);
        fprintf(md, "| %s | `%s` | %s | %s | %s | %s | %.0f%% | %s | %s |\n", r->family,
                report_row_mode(r, &m) ? report_mode_str(&m) : "baseline",
                report_size_str(r->size_bytes, sz, sizeof sz), report_num(r->p50), report_num(r->mode_fast),
                report_num(r->mode_slow), 100 * r->slow_share, per, r->unit);
    }
    if (found == 0)
        fprintf(md, "\n## Cells with two modes%s%s\n\nNone: no time cell's samples split into two modes.\n",
                which[0] ? " in " : "", which);
}
