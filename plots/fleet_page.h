/* fleet_page.h - a shared history rendered: `ringbench track --list` (one line per run) and the fleet page
 * (`track --history URI --page DIR`: DIR/fleet.md and its plots), from harness/fleet.h's reading of
 * the history; and the summariser that computes each run's headline figures (harness/headline.h)
 * when a history indexes it, so that the page needs only what the history holds. Decides nothing.
 * Built only when SQLite was found (RINGBENCH_HAVE_SQLITE), as the history is.
 */
#ifndef RINGBENCH_FLEET_PAGE_H
#define RINGBENCH_FLEET_PAGE_H

#include <stdio.h>

#include "fleet.h"
#include "history.h"

/* hist_summary_fn: the headline figures of the run file at path (headline_compute with the report's
 * bootstrap), one hist_headline per figure in headline_defs order. Returns 0, or -1 when the file
 * cannot be read. */
int fleet_summarise(const char *path, hist_headline *out, size_t max, size_t *n, void *ctx);

/* The runs of a history, one line each under a header: machine (host), platform (native / wsl2), GPU,
 * driver, start time, commit and the night's verdict ("no verdict stored" where none is). */
void fleet_print_list(FILE *out, const hist_listed *runs, size_t n);

/* A run's stored verdict as --list and the page say it: "OK" (no change), "REGRESSION (3 cells)",
 * "improvement (2 cells)", "new machine", "not judged yet", "no verdict stored", with ", interrupted run" after it for
 * an incomplete run. Returns buf. */
const char *fleet_verdict_words(const hist_listed *x, char *buf, size_t n);

/* What the fleet page found, for the command's summary line and exit status. */
typedef struct fleet_page_summary {
    size_t machines, runs, pairs, regressions, improvements;
} fleet_page_summary;

/* Writes DIR/fleet.md (through a temporary file, renamed into place) and DIR/plots/fleet_*.{dat,gp}
 * with their PNG and SVG where gnuplot is found: the machines and their last verdicts, the
 * cross-platform ratio of each WSL2 / native pair with its judgement, every machine's headline
 * figures side by side, and a section per machine with its trends. Returns 0, or -1 with err. */
int fleet_page_write(hist *h, const char *dir, fleet_page_summary *sum, char *err, size_t errlen);

#endif
