/* track.h - `ringbench track`'s output: a judged night (harness/track_night.h) printed as text, and
 * the history's trend plots and history.md page. Reads the history index (results/history.h) through
 * its typed queries and never a live run; decides nothing. Built only when SQLite was found
 * (RINGBENCH_HAVE_SQLITE).
 */
#ifndef RINGBENCH_TRACK_H
#define RINGBENCH_TRACK_H

#include <signal.h>
#include <stdio.h>

#include "history.h"
#include "track_night.h"

/* Prints the judged night on out. The first line is the verdict (track_verdict_line); then the run,
 * and the headline figures of harness/headline.h with their change and the smallest change the night
 * would call; the regressions (at most 8, with where each was first seen) and one line each for
 * improvements and watched cells. verbose adds the shifts divided out, the method and its false-alarm
 * budget, every headline cell's z and noise, and every changed cell. */
void track_print_night(FILE *out, const track_night *night, int verbose);

/* The night's verdict in one line into buf: "OK: no regression in N judged cells (shift +x %)", "OK: not
 * judged yet (k of 5 runs): ...", or "REGRESSION (exit 1): K cells — " and the three worst (headline
 * figures first, by the size of their change). Returns snprintf's count. */
int track_verdict_line(const track_night *night, char *buf, size_t n);

/* A relative change as a reader takes it into buf: "+4.1 %", "-56 %", or for a figure that more than
 * doubled "3.17×" (ratios of 2 or more as ×); "n/a" when not finite. Returns buf. */
const char *track_change_str(double change, char *buf, size_t n);
/* A change with its 95 % interval, "+56 % [+48 %, +65 %]", all three as ratios where the interval reaches
 * twice the figure: "1.99× [1.81×, 2.18×]". Returns buf. */
const char *track_change_interval_str(double change, double lo, double hi, char *buf, size_t n);

/* Writes DIR/history.md and DIR/plots/ for every machine of the history: the newest run's verdict and
 * its regressed cells; per machine a table of its last nights (date, commit, verdict, counts), one plot
 * per headline figure as the nights judged it (figure, the band the night would not call, the nights it
 * called), its environment changes, and the floor, a reference. Each night is judged with options o, as
 * `track` judges it. Images (PNG and SVG) need gnuplot; without it the data and scripts are written and
 * the page says so. Returns 0, or -1 with err. */
int track_history_page(hist *h, const track_options *o, char *err, size_t errlen);

/* An interrupt flag (SIGINT/SIGTERM raise it; NULL: none): while it is raised, gnuplot is ended and
 * track_history_page returns -1 ("interrupted"), history.md left as it was. */
void track_page_watch(volatile sig_atomic_t *stop);

#endif
