/* track.h - `ringbench track`'s output: a judged night (harness/track_night.h) printed as text, and
 * the history's trend plots and history.md page. Reads the history index (results/history.h) through
 * its typed queries and never a live run; decides nothing. Built only when SQLite was found
 * (RINGBENCH_HAVE_SQLITE).
 */
#ifndef RINGBENCH_TRACK_H
#define RINGBENCH_TRACK_H

#include <stdio.h>

#include "history.h"
#include "track_night.h"

/* Prints the judged night on out: the fingerprint and environment changes, the shifts divided out,
 * the method and headline cells, the regressions (size, interval, first run that shows it,
 * coinciding environment changes), improvements, watched cells and the unchanged count. */
void track_print_night(FILE *out, const track_night *night);

/* Writes DIR/plots/trend_*.{dat,gp,png,svg} and DIR/history.md for every machine of the history
 * (figures: floor, latency at 8 B and 4 MiB, throughput at 4 MiB, control-block operations, and the
 * fallback/native ratio, intervals as bands and environment changes marked). Images need gnuplot;
 * without it the data and scripts are written and the page says so. Returns 0, or -1 with err. */
int track_history_page(hist *h, char *err, size_t errlen);

#endif
