/* report_internal.h - what the files of plots/ share; nothing here is public API (that is report.h).
 *
 *   report_data.c     a results file loaded for reporting: row lookups by family, mode and size,
 *                     samples and percentiles, number and size formatting, Markdown text
 *   report_files.c    the output directory, put in place only when complete, and its files, each
 *                     written as NAME.tmp-PID and renamed (results/outfs.h)
 *   report_gp.c       gnuplot: one visual code for modes, script skeletons, faceted plots, heat maps,
 *                     and running gnuplot (fork + exec, no shell, cwd = the output directory)
 *   report_verdict.c  overheads with bootstrap CIs and the verdict on the WSL2 claim, rendered (the
 *                     rules are harness/verdict.c's)
 *   report.c          a report of one run;  compare.c  two runs compared;  sensitivity.c  an
 *                     injected-cost sweep (their command lines: bench/cmd_report.c, cmd_compare.c,
 *                     cmd_sensitivity.c)
 */
#ifndef RINGBENCH_REPORT_INTERNAL_H
#define RINGBENCH_REPORT_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "h5in.h"
#include "outfs.h"
#include "report.h"
#include "modes.h"
#include "schema.h"
#include "stats.h"
#include "verdict.h"

/* The claim under test (REFERENCE.md): "10-30% slower for control block operations" (verdict.h). */
#define REPORT_CLAIM_LO VERDICT_CLAIM_LO
#define REPORT_CLAIM_HI VERDICT_CLAIM_HI
#define REPORT_DEFAULT_REPS STATS_HBOOT_REPS
#define REPORT_DEFAULT_SEED STATS_HBOOT_SEED
/* "slower"/"faster" need an interval that excludes 0 AND an overhead at least this large (--min-effect). */
#define REPORT_DEFAULT_MIN_EFFECT 0.05

#define REPORT_PATH_MAX 4096

// --- a loaded results file (report_data.c) -----------------------------------------------------------

struct report_cell;

typedef struct report_run {
    h5in *in;
    struct report_cell *cells; /* per row: its trials, sorted once, loaded on first use (report_trials) */
    const char *path;
    const char *backend;        /* "cuda", "cpu", "mixed" or "none": of the rows that were measured */
    int complete;               /* root attribute complete */
    const char *interrupted_by; /* "" when complete or not said */
} report_run;

/* Opens path. Returns 0, or -1 with one line (naming the file) in err. */
int report_run_open(report_run *run, const char *path, char *err, size_t errlen);
void report_run_close(report_run *run);
size_t report_nrows(const report_run *run);
const rb_row *report_row(const report_run *run, size_t i);
/* Provenance attribute, or "" when absent (never NULL). */
const char *report_prov(const report_run *run, const char *name);

/* 1 when the row's four mode fields name a mode (set into *m when m is not NULL), 0 otherwise. */
int report_row_mode(const rb_row *row, mode_spec *m);
/* The family of a row, or -1 for a family this build does not know. */
int report_row_family(const rb_row *row);
/* 1 when the row is status ok with a finite median. */
int report_row_ok(const rb_row *row);
/* Index of the row of family f for mode m (NULL: a baseline, mode fields "-") and size, or -1. A
 * family measured at several windows (throughput) gives its widest window: the ring kept full. */
long report_find(const report_run *run, rb_family f, const mode_spec *m, uint64_t size);
/* The same at one window (messages in flight), or REPORT_WINDOW_FULL for the widest. */
#define REPORT_WINDOW_FULL UINT64_MAX
long report_find_window(const report_run *run, rb_family f, const mode_spec *m, uint64_t size, uint64_t window);
/* Sorts v[0..n) ascending. */
void report_sort_u64(uint64_t *v, size_t n);
/* Ascending distinct sizes of the rows of family f (any status), malloc'd into *out; the count. */
size_t report_sizes(const report_run *run, rb_family f, uint64_t **out);
/* Samples of row i (malloc'd) or NULL with *n = 0 when it has none or they cannot be read. */
double *report_samples(const report_run *run, long i, size_t *n);
/* The ok trials of row i as the statistics use them: each trial's finite samples sorted ascending, as
 * time per byte (1/x, positive samples only) when the row is a rate, so that bigger is slower. Loaded
 * and sorted on the first call and cached until report_run_close, because the verdict and compare
 * use a row many times. A schema-1 row is one trial (the reader presents it so). *k = the count; when
 * round is not NULL *round gets each trial's round (rb_trial.trial), for pairing trials measured
 * back to back. Returns NULL with *k = 0 when the row has no usable trial. */
const stats_trial *report_trials(const report_run *run, long i, size_t *k, const int32_t **round);

/* Index of a mode in mode_at order; the mode of the plots' order (ctrl slowest, so modes sharing
 * a control block sit together); whether a mode is on the native path or is the WSL2 fallback. */
size_t report_mode_index(const mode_spec *m);
mode_spec report_plot_mode(size_t k);
int report_mode_is_native(const mode_spec *m);   /* pinned/async/coop with mapped or managed ctrl */
int report_mode_is_fallback(const mode_spec *m); /* malloc/sync/noncoop/device */
/* " (native)" or " (WSL2 fallback)" (mode_path_title) after the label of a mode on one of those paths;
 * "" for another mode. */
const char *report_mode_note(const mode_spec *m);
int report_mode_eq(const mode_spec *a, const mode_spec *b);
const char *report_mode_str(const mode_spec *m); /* label in a rotating static buffer (8 in flight) */

/* The loud notes that head a report about run (called name there): incomplete, CPU reference. */
void report_notes_md(FILE *md, const report_run *run, const char *name);

/* The section of report.md / compare.md naming the time cells of run whose samples have two modes, as
 * the file records them (report_modes.c); which says whose cells they are in a comparison ("" in a
 * report). */
void report_modes_md(FILE *md, const report_run *run, const char *which);
/* The section of report.md counting slow trials per size, with the machine's load beside them
 * (report_slow.c). */
void report_slow_md(FILE *md, const report_run *run);

/* "8 B", "4 KiB", "4 MiB" into buf; returns buf. */
char *report_size_str(uint64_t bytes, char *buf, size_t n);
/* Numbers as every table and plot writes them: 3 significant digits, no exponent, "n/a" for NaN (the
 * caller says why a figure is missing), in rotating static buffers (24 in flight). report_num a plain
 * number; report_time a time given in us, in ns, µs, ms or s ("54.0 ns", "2.39 µs"); report_rate a
 * bandwidth given in GB/s ("43.9 GB/s", "850 MB/s"); report_msgs messages per second ("23.1 M msg/s");
 * report_value by the unit of a row ("us", "GB/s", else the number and the unit); report_times a
 * ratio ("188×", "1.92×"). */
const char *report_num(double v);
const char *report_time(double us);
const char *report_rate(double gb_s);
const char *report_msgs(double per_s);
const char *report_value(double v, const char *unit);
const char *report_times(double ratio);
/* s on out padded with spaces to width characters as a terminal shows them (UTF-8 continuation bytes
 * take none: "µs", "×"); right: aligned right. A longer s is written whole. */
void report_put_padded(FILE *out, const char *s, size_t width, int right);
/* Markdown cell text: '|' escaped, control characters as spaces, "" as "-". */
void report_md_text(FILE *f, const char *s);
/* s for a code span in running text (not a table cell): as it is, control characters as spaces. */
void report_md_code(FILE *f, const char *s);
/* 1 for a unit in GB/s (bigger is better), 0 for time (smaller is better). */
int report_unit_is_rate(const char *unit);

// --- output files (report_files.c) --------------------------------------------------------------------

/* The default output directory for input path: next to it, "<stem><suffix>", malloc'd (NULL when out
 * of memory). */
char *report_default_dir(const char *path, const char *suffix);

/* Begins a report's folder: dir, or the default for input with suffix; its staging folder, in which
 * everything is written, is d->stage (outfs_dir_begin). Returns 0, or -1 after one line on stderr
 * ("ringbench CMD: ..."): a path over the system's limit, a folder of other things, no permission. */
int report_dir_begin(outfs_dir *d, const char *cmd, const char *dir, const char *input, const char *suffix);
/* Ends it: with ok and no interrupt (report_stopped) the staging folder replaces d->path, otherwise it
 * is removed and the report before stays. Returns 0 when the new report is in place, else -1 (said on
 * stderr, except for !ok, which the caller has said). */
int report_dir_end(outfs_dir *d, const char *cmd, int ok);

/* A file written as DIR/NAME.tmp-PID and renamed to DIR/NAME by report_file_close, so a reader never
 * sees half a file (results/outfs.h). name is always one of ours (no slashes), so nothing lands
 * outside DIR. */
typedef struct report_file {
    FILE *f;
    outfs_file o;
} report_file;
int report_file_open(report_file *rf, const char *dir, const char *name, char *err, size_t errlen);
/* Closes and renames; on a write error removes the temporary. Returns 0 or -1 (message in err, with the
 * errno of the write that failed). */
int report_file_close(report_file *rf, char *err, size_t errlen);
/* Closes and removes the temporary (after an error elsewhere). */
void report_file_discard(report_file *rf);

/* The interrupt flag the report polls (SIGINT/SIGTERM raise it; report_opts.stop), or NULL; while it is
 * raised gnuplot children are ended and no report is put in place. report_stopped: whether it is. */
void report_watch(volatile sig_atomic_t *stop);
int report_stopped(void);

// --- gnuplot (report_gp.c) -----------------------------------------------------------------------------

/* The plot canvas; scripts set exactly these sizes for PNG and SVG (the tests read them back). */
typedef struct report_canvas {
    int width, height;
} report_canvas;

/* Writes the start of stem.gp: a header comment saying how to re-run it, a loop over PNG (pngcairo,
 * falling back to png) and SVG terminals writing stem.png and stem.svg. report_gp_end closes it. */
void report_gp_begin(FILE *gp, const char *stem, const char *what, report_canvas c);
void report_gp_end(FILE *gp);
/* The title of a one-panel plot and its note under it (NULL for none), centred on the canvas (a plain
 * title centres on the panel, which a wide left margin of names pushes off the canvas). */
void report_gp_title(FILE *gp, const char *title, const char *note);
/* s as a gnuplot single-quoted string (quotes doubled), so no file-derived text can end it. */
void report_gp_quote(FILE *gp, const char *s);
/* The line style of a mode: colour per xfer, dash per launch, point per host. */
void report_gp_mode_style(FILE *gp, const mode_spec *m);

/* A reference line of a faceted figure: column col of its data file, drawn in every panel. */
typedef struct report_ref {
    int col;
    const char *title, *style;
} report_ref;

/* A figure of one panel per control-block mode (managed | device | mapped) sharing one legend strip
 * below: y against message size for every mode with data, native and fallback paths underlaid. */
typedef struct report_facet {
    const char *title, *ylabel;
    const char *data;         /* file: col 1 size, col 2+k the mode report_mode_index k */
    const unsigned char *has; /* has[k]: the mode has at least one finite value */
    const uint64_t *sizes;    /* the sizes, for tic labels */
    size_t nsizes;
    int logy;
    const report_ref *refs; /* reference lines (may be NULL) */
    size_t nrefs;
    const char *band; /* gnuplot commands drawn in every panel, e.g. a claim band (may be NULL) */
    const char *note; /* a line under the title (may be NULL) */
} report_facet;
void report_gp_facet(FILE *gp, const report_facet *p);
/* "set xtics (...)" labelling sizes ("8 B", "4 KiB") at their values, thinned to at most ~12 labels. */
void report_gp_size_xtics(FILE *gp, const uint64_t *sizes, size_t n);

/* Finds gnuplot on PATH into out. Returns 0, or -1 when there is none. */
int report_gnuplot_find(char *out, size_t n);
/* Runs gnuplot script (a name inside dir) with cwd = dir, output to dir/gnuplot.log.
 * Returns 0, or -1 with a message in err. */
int report_gnuplot_run(const char *gnuplot, const char *dir, const char *script, char *err, size_t errlen);
/* Renders each script of the NULL-terminated list, or warns when gnuplot is missing. Returns 0 when
 * everything that could be rendered was (a missing gnuplot is not a failure), -1 otherwise. */
int report_render(const char *cmd, const char *dir, const char *const *scripts, int render);

// --- overheads and the verdict (report_verdict.c) --------------------------------------------------

typedef enum report_ov_state {
    REPORT_OV_OK = 0,
    REPORT_OV_MISSING,    /* no such row in the file */
    REPORT_OV_NOT_OK,     /* unsupported, invalid or failed: why says which and its reason */
    REPORT_OV_NO_SAMPLES, /* ok, but no raw samples to bootstrap */
    REPORT_OV_ERROR       /* the bootstrap refused (e.g. a zero median) */
} report_ov_state;

/* Overhead of row b over row a: est(b)/est(a) - 1, positive = b slower, where est is the median of a
 * row's trial medians (its p50): the one estimator of harness/headline.h. For GB/s rows the samples are first turned
 * into time per byte (1/x), so "positive = slower" holds there too. The interval (stats.h): paired rounds when both
 * rows are in one file with the same rounds (k >= 2), else independent hierarchical bootstraps of both rows; calibrated
 * for the number of trials, or sample-level only when a side has one trial. */
typedef struct report_ov {
    report_ov_state state;
    char why[RB_REASON_LEN + 96];
    double p50_a, p50_b;    /* the rows' own medians, in their unit */
    double est, lo, hi;     /* overhead and its 95% interval */
    stats_ci_method method; /* TRIALS, or SAMPLES when a side had a single trial */
    int paired;             /* 1 when the interval came from paired rounds */
    size_t ka, kb;          /* trials on each side */
    double min_effect;      /* the options' minimum effect, for report_speed_word */
} report_ov;

/* ia / ib: row indices from report_find (-1 = missing); la / lb name the two sides in messages. */
void report_overhead(const report_run *ra, long ia, const char *la, const report_run *rb, long ib, const char *lb,
                     const report_opts *o, report_ov *ov);
/* The verdicts on an overhead (verdict.h): its speed (VERDICT_SLOWER or _FASTER when the CI excludes 0
 * and |est| >= the minimum effect, else VERDICT_SAME) and where it lies against the claim;
 * VERDICT_SPEED_NONE and VERDICT_CLAIM_NONE when there is no overhead. */
verdict_speed report_speed(const report_ov *ov);
verdict_claim report_claim(const report_ov *ov);
/* The words of the verdicts, spelled in one table (report_verdict.c): what report.md and compare.md
 * print ("slower", "same within noise", "inside", "straddles 10%", "n/a"), and a speed's token in
 * compare_pairs.dat ("same" for the same within noise). */
const char *report_speed_name(verdict_speed v);
const char *report_speed_token(verdict_speed v);
const char *report_claim_name(verdict_claim v);
/* report_speed_name(report_speed(ov)): "faster", "slower", "same within noise" or "n/a". */
const char *report_speed_word(const report_ov *ov);
/* 1 when the overhead's interval excludes 0, whatever its size. */
int report_ov_excludes_zero(const report_ov *ov);
/* "trials k=5/5 paired", "trials k=5/5" or "samples (1 trial)": where the interval came from. */
const char *report_ov_method_str(const report_ov *ov, char *buf, size_t n);
/* report_claim_name(report_claim(ov)): "inside", "below", "above" the claimed 10-30%, "straddles 10%"
 * / "straddles 30%", or "n/a". */
const char *report_claim_word(const report_ov *ov);
/* "+25.0% [+23.1%, +26.9%]" into buf, or for an overhead of +100 % or more the ratio "188× [153×, 205×]". */
char *report_ov_str(const report_ov *ov, char *buf, size_t n);

/* The verdict section: the WSL2 fallback path (rows of other) against the native path (rows of base),
 * for control-block operations, latency per size and throughput per size, then one axis at a time
 * (within each file). base == other within one file. */
/* Whether the WSL2 claim may be judged on these files: only when every row of both was measured on a
 * GPU (backend "cuda"). CPU reference backend numbers describe this machine's CPUs, not CUDA or WSL2:
 * the report then shows the same overheads with no verdict against the claim. */
int report_claim_applies(const report_run *base, const report_run *other);

void report_verdict_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o);
/* "## Method": the file(s), what a figure, a ratio and its interval are, and the words. */
void report_method_md(FILE *md, const report_run *base, const report_run *other, const report_opts *o);
/* "# WHAT: GPU · driver · CUDA · date · commit" (report_headline.h's machine line). */
void report_title_md(FILE *md, const char *what, const report_run *run);

// --- INJECTED / LIMITS APPLIED labels (report_label.c, results/run_label.h) ---------------------------

/* The label of one run ("" for a plain run) and of a pair of runs: base == other gives the run's
 * label; two runs give "BASE: label; OTHER: label" for those that have one, "" when neither. */
void report_label_of(const report_run *run, char *buf, size_t n);
void report_label_pair(const report_run *base, const report_run *other, char *buf, size_t n);
/* Appends " - LABEL" to a plot title (nothing for ""). */
void report_label_title(char *title, size_t n, const char *label);
/* The loud note at the top of report.md / compare.md for a labelled run (nothing for a plain one). */
void report_label_note_md(FILE *md, const report_run *run, const char *name);
/* The report's first lines for `make wsl2` (issue 21): this machine's per-call costs (call_* rows)
 * and the pinned-memory ceiling its run measured; nothing when the run did not measure the ceiling. */
void report_machine_lines_md(FILE *md, const report_run *run);
/* Rewrites DIR/NAME so that every Markdown heading (a line starting with '#', outside code fences)
 * ends with " — LABEL"; nothing for "". Returns 0, or -1 with err. */
int report_label_headings(const char *dir, const char *name, const char *label, char *err, size_t errlen);

#endif
