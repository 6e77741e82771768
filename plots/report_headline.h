/* report_headline.h - the opening of report.md and compare.md: the verdict and the headline figures. */
#ifndef RINGBENCH_REPORT_HEADLINE_H
#define RINGBENCH_REPORT_HEADLINE_H

#include "report_internal.h"

/* Writes "## Verdict in brief": a short paragraph (the WSL2 fallback path of other against the native
 * path of base, for control-block operations, round trips at the smallest and largest size and
 * throughput at the largest, classified against the claimed 10-30% like the full verdict), one table
 * of headline figures (the floor, the best round trip at the smallest size, the fallback / native
 * ratios, the throughput ceiling) and the plot that carries the answer (plot, a .png in the same
 * directory; NULL for none). base == other for one file; for two, the table has a column per file. */
void report_headline_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o,
                        const char *plot);

#endif
