/* track.h - `ringbench track`: judge a run against the history of its machine, and the history's
 * trend plots and history.md page. Reads the history index (results/history.h) and never a live
 * run. Built only when SQLite was found (RINGBENCH_HAVE_SQLITE).
 */
#ifndef RINGBENCH_TRACK_H
#define RINGBENCH_TRACK_H

#include <stdio.h>
#include "history.h"
#include "track_detect.h"

typedef struct track_options {
    track_params params;
    int same_env;            /* compare only with runs whose whole fingerprint (environment too) matches */
    const char *export_path; /* write every judgement there (NULL: no export) */
    int export_json;         /* 1: JSON (jansson), 0: CSV */
    int raw;                 /* 1: judge raw figures, without removing the machine's shift (--raw) */
    int p50;                 /* 1: judge ring cells on their p50 and trial-level interval (--p50), not their
                                best trial */
} track_options;

/* Judges run run_id against the earlier runs of its machine; prints the fingerprint and environment
 * changes, the regressions (size, interval, first run that shows it, coinciding environment
 * changes), improvements, and the unchanged count on out. *regressions gets their number.
 * Returns 0, or -1 with a one-line message in err. */

int track_judge_run(hist *h, long long run_id, const track_options *o, FILE *out, int *regressions, char *err,
                    size_t errlen);

/* Writes DIR/plots/trend_*.{dat,gp,png,svg} and DIR/history.md for every machine of the history
 * (figures: floor, latency at 8 B and 4 MiB, throughput at 4 MiB, control-block operations, and the
 * fallback/native ratio, intervals as bands and environment changes marked). Images need gnuplot;
 * without it the data and scripts are written and the page says so. Returns 0, or -1 with err. */
int track_history_page(hist *h, char *err, size_t errlen);

#endif
