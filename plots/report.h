/* report.h - the renderers of plots/ as library calls: a report of one results file, a comparison of
 * two, and the report of an injected-cost sweep. Their command lines are bench/cmd_report.c,
 * bench/cmd_compare.c and bench/cmd_sensitivity.c.
 *
 * Each reads results files only, never a live run, needs no GPU, says what it wrote or why it failed
 * on stdout/stderr, and returns 0 ok (also when gnuplot is missing: data and scripts are written, with
 * a warning), 1 a runtime failure, 2 an input that cannot be used (not HDF5, truncated, newer schema,
 * nothing to pair): the exit status the command returns.
 */
#ifndef RINGBENCH_REPORT_H
#define RINGBENCH_REPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How to render: what report, compare and sensitivity report share. */
typedef struct report_opts {
    const char *out_dir;       /* -o DIR, or NULL for the default next to the (first) input */
    int render;                /* 0 with --no-render: write data and scripts, do not run gnuplot */
    int reps;                  /* bootstrap resamples */
    uint64_t seed;             /* bootstrap seed */
    const char *call_overhead; /* --call-overhead SPEC|FILE: the MODEL section (attribution.h), or NULL */
    double min_effect;         /* --min-effect PCT / 100: smallest |overhead| called slower or faster */
    int fail_on_change;        /* compare --fail-on-change: exit 1 when a cell is slower or faster */
    int answer;                /* report --answer: print the answer table on stdout, write nothing */
    /* Raised by SIGINT/SIGTERM (the command's handler), or NULL: gnuplot is ended, the report folder
     * is not put in place (the one before stays) and the call returns 1. */
    volatile sig_atomic_t *stop;
} report_opts;

/* The defaults: render, the stats module's bootstrap (reps, seed), minimum effect 5%. */
void report_opts_default(report_opts *o);

/* RUN.h5 into o->out_dir (default RUN-report next to it): data, scripts, plots and report.md. */
int report_write(const char *file, const report_opts *o);

/* OTHER.h5 against BASE.h5 into o->out_dir (default OTHER-compare next to OTHER.h5): compare.md,
 * the pairs table, data, scripts and plots; prints the summary line (how many cells are the same,
 * slower and faster). With o->fail_on_change it returns 1 when a cell is slower or faster. */
int compare_write(const char *base, const char *other, const report_opts *o);

/* `ringbench report FILE --answer`: the answer table and its one line of provenance on stdout, as the
 * README carries them. Returns 0, or 2 when the file cannot be read (said on stderr). */
int report_answer_print(const char *file, const report_opts *o);

/* `ringbench run`'s summary on out: the machine line, the verdict in one sentence and the headline figures
 * of report.md's first screen (native, fallback, fallback / native with its 95 % interval, or why a figure
 * is missing) for the results file at file. Returns 0, or -1 with one line in err. */
int report_summary_print(FILE *out, const char *file, char *err, size_t errlen);

/* `ringbench export FILE --headline`: only the headline figures, as Bencher Metric Format JSON (bmf:
 * one benchmark per headline cell, measure latency in ns, bandwidth-gb-s or throughput in messages
 * per second, with the cell's 95 % interval; one per figure with the measure "ratio", fallback /
 * native with its interval) or CSV (csv: one line per figure and side). Returns 0, or -1 with one line
 * in err. */
int report_headline_export(const char *file, int bmf, FILE *out, char *err, size_t errlen);

/* The runs `ringbench sensitivity run` wrote into dir, into o->out_dir (default DIR/report). */
int sensitivity_report_write(const char *dir, const report_opts *o);

/* The modes a sensitivity sweep measures, as a --modes list, into buf: the WSL2 fallback, the native
 * path and the native path with zero-copy rings (from the mode table; the report reads the same
 * three back). Returns buf. */
char *sensitivity_modes(char *buf, size_t n);

#endif
