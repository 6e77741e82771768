/* report.c - report_write (report.h), what `ringbench report` does: one results file into a directory of
 * gnuplot data, scripts, rendered plots (PNG + SVG) and report.md with the environment, capabilities,
 * what could not be measured and why, best and worst modes, key numbers and the verdict on the WSL2
 * claim. Reads the file only; needs no GPU. Exercised by tests/test_report.c (ctest -L unit).
 */
#define _POSIX_C_SOURCE 200809L

#include "report.h"
#include "attribution_md.h"
#include "report_headline.h"
#include "report_plots.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_opts_default(report_opts *o)
{
    *o = (report_opts){NULL, 1, REPORT_DEFAULT_REPS, REPORT_DEFAULT_SEED, NULL, REPORT_DEFAULT_MIN_EFFECT, 0, 0, NULL};
}

// --- report.md sections ----------------------------------------------------------------------------------

/* Cells that failed (a reply that never came, came late or stale, a verification that failed): listed
 * before anything else, each with its reason, since every figure of the run is read beside them. At
 * most 20 lines, then how many more. */
static void failed_cells_md(FILE *md, const report_run *run, const char *name)
{
    size_t n = report_nrows(run), failed = 0;
    for (size_t i = 0; i < n; i++)
        failed += strcmp(report_row(run, i)->status, RB_STATUS_FAILED) == 0;
    if (failed == 0)
        return;
    fprintf(md, "> **FAILED CELLS (%s):** %zu row%s failed; each is left out of every figure below:\n", name, failed,
            failed == 1 ? "" : "s");
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < 20; i++) {
        const rb_row *r = report_row(run, i);
        char size[32];
        if (strcmp(r->status, RB_STATUS_FAILED) != 0)
            continue;
        mode_spec m;
        fprintf(md, "> - %s %s", r->family, report_row_mode(r, &m) ? report_mode_str(&m) : "(baseline)");
        if (r->size_bytes)
            fprintf(md, " %s", report_size_str(r->size_bytes, size, sizeof size));
        if (strcmp(r->family, "throughput") == 0 && r->window)
            fprintf(md, " W=%llu", (unsigned long long)r->window);
        fputs(": ", md);
        report_md_text(md, r->reason);
        fputs("\n", md);
        shown++;
    }
    if (failed > shown)
        fprintf(md, "> - ... and %zu more (the table \"Not measured\" below has them all)\n", failed - shown);
    fputs("\n", md);
}

void report_notes_md(FILE *md, const report_run *run, const char *name)
{
    failed_cells_md(md, run, name);
    if (!run->complete) {
        fprintf(md, "> **WARNING — INCOMPLETE RUN (%s):** `complete = 0`, interrupted by ", name);
        report_md_text(md, run->interrupted_by[0] ? run->interrupted_by : "unknown (crash or still running)");
        fputs(". The sweep stopped early: modes and sizes after the interruption are missing, and everything "
              "below describes only the rows that were written.\n\n",
              md);
    }
    if (strcmp(run->backend, "cuda") != 0)
        fprintf(md,
                "> **WARNING — CPU REFERENCE BACKEND (%s):** these rows come from the `%s` backend%s, not "
                "from a GPU. The CPU backend runs the same ring protocol with a host thread in the kernel's "
                "place and memcpy for the copies, so that the sweep, the results file, the report and the "
                "tests run and can be checked on any machine. Its numbers are **not GPU numbers** and say "
                "nothing about WSL2 or native CUDA costs; this report draws no verdict from them.\n\n",
                name, run->backend, strcmp(run->backend, "mixed") == 0 ? " (partly)" : "");
    /* Too few CPUs for the run's threads (placement.h): every latency and throughput then includes
     * time the threads spent waiting for each other's core. Said where a reader starts. */
    const char *place = report_prov(run, "placement_warning");
    if (place[0] != '\0' && strcmp(place, "(not recorded)") != 0) {
        fprintf(md, "> **WARNING — TOO FEW CPUs (%s):** ", name);
        report_md_text(md, place);
        fputs(". The polling thread, the thread that plays the kernel (CPU backend) or the CUDA driver's, and "
              "the verification pool take turns on shared cores: round trips include scheduling delays and "
              "throughput is bounded by the CPUs, not by the ring. Compare such numbers only with runs on the "
              "same CPUs.\n\n",
              md);
    }
    if (report_nrows(run) == 0)
        fprintf(md, "> **WARNING (%s):** the file holds no rows.\n\n", name);
    report_label_note_md(md, run, name); /* INJECTED / LIMITS APPLIED (issue 21) */
    size_t damaged = h5in_ndamaged(run->in), nw = h5in_nwarnings(run->in);
    if (damaged == 0 && nw == 1) {
        /* one warning and nothing damaged (a schema-2 file has no checksums): one line, not a block */
        fprintf(md, "> **UNCHECKED FILE (%s):** ", name);
        report_md_text(md, h5in_warning(run->in, 0));
        fputs("\n\n", md);
    } else if (damaged > 0 || nw > 0) {
        fprintf(md,
                "> **WARNING — DAMAGED OR UNCHECKED FILE (%s):** %zu row%s marked `damaged` (status column; "
                "left out of every verdict and pair). What the reader found:\n",
                name, damaged, damaged == 1 ? "" : "s");
        for (size_t i = 0; i < nw && i < 3; i++) { /* the first screen stays short; stderr has them all */
            fputs("> - ", md);
            report_md_text(md, h5in_warning(run->in, i));
            fputs("\n", md);
        }
        if (nw > 3)
            fprintf(md, "> - ... %zu more on standard error\n", nw - 3);
        fputs("\n", md);
    }
}

static void environment_md(FILE *md, const report_run *run)
{
    const char *wsl2 = report_prov(run, "wsl2");
    fputs("## Environment\n\n", md);
    fprintf(md, "GPU **");
    report_md_text(md, report_prov(run, "gpu_name"));
    fputs("** (driver ", md);
    report_md_text(md, report_prov(run, "driver_version"));
    fputs(", runtime ", md);
    report_md_text(md, report_prov(run, "runtime_version"));
    fputs("), OS ", md);
    report_md_text(md, report_prov(run, "os"));
    fputs(", kernel ", md);
    report_md_text(md, report_prov(run, "kernel_release"));
    fprintf(md, ", **%s**, backend **%s**.\n\n",
            strcmp(wsl2, "1") == 0   ? "WSL2"
            : strcmp(wsl2, "0") == 0 ? "not WSL2"
                                     : "WSL2 unknown",
            run->backend);
    size_t n = h5in_attr_count(run->in, RB_H5_PROVENANCE);
    if (n == 0) {
        fputs("The file has no provenance.\n\n", md);
        return;
    }
    fputs("| provenance | value |\n| --- | --- |\n", md);
    for (size_t i = 0; i < n; i++) {
        const char *k = h5in_attr_name(run->in, RB_H5_PROVENANCE, i);
        fputs("| ", md);
        report_md_text(md, k);
        fputs(" | ", md);
        report_md_text(md, report_prov(run, k));
        fputs(" |\n", md);
    }
    fputs("\n", md);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void capabilities_md(FILE *md, const report_run *run)
{
    static const char err_suffix[] = "_error";
    size_t n = h5in_attr_count(run->in, RB_H5_CAPABILITIES);
    char key[256];
    fputs("## Capabilities\n\n", md);
    if (n == 0) {
        fputs("The file has no capabilities.\n\n", md);
        return;
    }
    fputs("| capability | value | error |\n| --- | --- | --- |\n", md);
    for (size_t i = 0; i < n; i++) {
        const char *k = h5in_attr_name(run->in, RB_H5_CAPABILITIES, i);
        if (ends_with(k, err_suffix)) {
            /* An error whose capability has no value of its own still gets a row. */
            snprintf(key, sizeof key, "%.*s", (int)(strlen(k) - strlen(err_suffix)), k);
            if (h5in_attr(run->in, RB_H5_CAPABILITIES, key) != NULL)
                continue;
        } else {
            snprintf(key, sizeof key, "%s", k);
        }
        char ek[300];
        snprintf(ek, sizeof ek, "%s%s", key, err_suffix);
        fputs("| ", md);
        report_md_text(md, key);
        fputs(" | ", md);
        report_md_text(md, h5in_attr(run->in, RB_H5_CAPABILITIES, key));
        fputs(" | ", md);
        report_md_text(md, h5in_attr(run->in, RB_H5_CAPABILITIES, ek));
        fputs(" |\n", md);
    }
    fputs("\n", md);
}

/* The mode label of a row, or "baseline <family>". */
static void row_what(const rb_row *r, char *buf, size_t n)
{
    mode_spec m;
    if (report_row_mode(r, &m))
        snprintf(buf, n, "%s", report_mode_str(&m));
    else
        snprintf(buf, n, "baseline %s", r->family);
}

/* Not ok rows, deduplicated by (mode, status, reason), with the families they cover. */
static void not_measured_md(FILE *md, const report_run *run)
{
    size_t n = report_nrows(run), shown = 0;
    char what[128], other[128];
    fputs("## Not measured: unsupported, invalid and failed modes\n\n", md);
    for (size_t i = 0; i < n; i++) {
        const rb_row *r = report_row(run, i);
        if (strcmp(r->status, RB_STATUS_OK) == 0)
            continue;
        row_what(r, what, sizeof what);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const rb_row *q = report_row(run, j);
            row_what(q, other, sizeof other);
            seen = strcmp(q->status, r->status) == 0 && strcmp(q->reason, r->reason) == 0 && strcmp(other, what) == 0;
        }
        if (seen)
            continue;
        if (shown++ == 0)
            fputs("| mode | status | reason | rows | families |\n| --- | --- | --- | ---: | --- |\n", md);
        size_t count = 0;
        fprintf(md, "| %s | **%s** | ", what, r->status);
        report_md_text(md, r->reason);
        fputs(" | ", md);
        char fams[512] = "";
        for (size_t j = i; j < n; j++) {
            const rb_row *q = report_row(run, j);
            row_what(q, other, sizeof other);
            if (strcmp(q->status, r->status) || strcmp(q->reason, r->reason) || strcmp(other, what))
                continue;
            count++;
            if (strstr(fams, q->family) == NULL && strlen(fams) + strlen(q->family) + 3 < sizeof fams)
                snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s", fams[0] ? ", " : "", q->family);
        }
        fprintf(md, "%zu | %s |\n", count, fams);
    }
    if (shown == 0)
        fputs("Every row of the file is `ok`.\n", md);
    fputs("\n", md);
}

/* Best and worst mode per size for latency (lowest p50 is best) or throughput (highest). */
static void best_worst_md(FILE *md, const report_run *run, rb_family fam)
{
    uint64_t *sizes = NULL;
    size_t ns = report_sizes(run, fam, &sizes);
    int rate = report_unit_is_rate(rb_family_unit(fam));
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    char sz[32];
    const char *unit = rb_family_unit(fam);
    fprintf(md, "\n### %s p50, best and worst mode per size\n\n", rb_family_name(fam));
    if (ns == 0) {
        fprintf(md, "No %s rows.\n", rb_family_name(fam));
        free(sizes);
        return;
    }
    fprintf(md, "| size | best mode | best p50 | worst mode | worst p50 | worst / best | native (mapped) | "
                "WSL2 fallback | modes ok |\n| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t s = 0; s < ns; s++) {
        long best = -1, worst = -1;
        int ok = 0;
        for (size_t i = 0; i < report_nrows(run); i++) {
            const rb_row *r = report_row(run, i);
            if (report_row_family(r) != (int)fam || r->size_bytes != sizes[s] || !report_row_mode(r, NULL) ||
                !report_row_ok(r))
                continue;
            ok++;
            double v = r->p50;
            if (best < 0 || (rate ? v > report_row(run, (size_t)best)->p50 : v < report_row(run, (size_t)best)->p50))
                best = (long)i;
            if (worst < 0 || (rate ? v < report_row(run, (size_t)worst)->p50 : v > report_row(run, (size_t)worst)->p50))
                worst = (long)i;
        }
        long in = report_find(run, fam, &nat, sizes[s]), ifb = report_find(run, fam, &fb, sizes[s]);
        double vn = in >= 0 && report_row_ok(report_row(run, (size_t)in)) ? report_row(run, (size_t)in)->p50 : NAN;
        double vf = ifb >= 0 && report_row_ok(report_row(run, (size_t)ifb)) ? report_row(run, (size_t)ifb)->p50 : NAN;
        fprintf(md, "| %s | ", report_size_str(sizes[s], sz, sizeof sz));
        if (best < 0) {
            fprintf(md, "n/a | n/a | n/a | n/a | n/a | %s | %s | 0 |\n", report_value(vn, unit),
                    report_value(vf, unit));
            continue;
        }
        mode_spec mb, mw;
        const rb_row *B = report_row(run, (size_t)best), *W = report_row(run, (size_t)worst);
        report_row_mode(B, &mb);
        report_row_mode(W, &mw);
        double spread = rate ? B->p50 / W->p50 : W->p50 / B->p50;
        fprintf(md, "%s | %s | %s | %s | %s× | %s | %s | %d |\n", report_mode_str(&mb), report_value(B->p50, unit),
                report_mode_str(&mw), report_value(W->p50, unit), report_num(spread), report_value(vn, unit),
                report_value(vf, unit), ok);
    }
    free(sizes);
}

/* p50 [CI] of a row, or its status. */
static void cell_md(FILE *md, const report_run *run, rb_family f, const mode_spec *m, uint64_t size)
{
    long i = report_find(run, f, m, size);
    const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
    if (r == NULL)
        fputs(" - |", md);
    else if (!report_row_ok(r))
        fprintf(md, " %s |", r->status);
    else if (isfinite(r->ci_lo) && isfinite(r->ci_hi))
        fprintf(md, " %s [%s, %s] |", report_value(r->p50, r->unit), report_value(r->ci_lo, r->unit),
                report_value(r->ci_hi, r->unit));
    else
        fprintf(md, " %s |", report_value(r->p50, r->unit));
}

/* A modes x families table at size 0 (control block, lifecycle). */
static void ops_table_md(FILE *md, const report_run *run, const char *title, const rb_family *fams, size_t nf)
{
    fprintf(md, "\n### %s: p50 [95%% CI of the median]\n\n| mode |", title);
    for (size_t j = 0; j < nf; j++)
        fprintf(md, " %s |", rb_family_name(fams[j]));
    fputs("\n| --- |", md);
    for (size_t j = 0; j < nf; j++)
        fputs(" ---: |", md);
    fputs("\n", md);
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = report_plot_mode(k);
        if (mode_invalid_reason(&m) != NULL)
            continue;
        fprintf(md, "| %s%s |", report_mode_str(&m), report_mode_note(&m));
        for (size_t j = 0; j < nf; j++)
            cell_md(md, run, fams[j], &m, 0);
        fputs("\n", md);
    }
}

/* A modes x sizes table of p50 for one family. */
static void sized_table_md(FILE *md, const report_run *run, rb_family fam)
{
    uint64_t *sizes = NULL;
    size_t ns = report_sizes(run, fam, &sizes);
    char sz[32];
    if (ns == 0) {
        free(sizes);
        return;
    }
    fprintf(md, "\n### %s p50 per mode and size\n\n| mode |", rb_family_name(fam));
    for (size_t s = 0; s < ns; s++)
        fprintf(md, " %s |", report_size_str(sizes[s], sz, sizeof sz));
    fputs("\n| --- |", md);
    for (size_t s = 0; s < ns; s++)
        fputs(" ---: |", md);
    fputs("\n", md);
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = report_plot_mode(k);
        if (mode_invalid_reason(&m) != NULL)
            continue;
        fprintf(md, "| %s |", report_mode_str(&m));
        for (size_t s = 0; s < ns; s++) {
            long i = report_find(run, fam, &m, sizes[s]);
            const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
            fprintf(md, " %s |", r == NULL ? "-" : report_row_ok(r) ? report_value(r->p50, r->unit) : r->status);
        }
        fputs("\n", md);
    }
    free(sizes);
}

static void baselines_md(FILE *md, const report_run *run)
{
    static const rb_family base[] = {RB_FAM_BASE_FLOOR,         RB_FAM_BASE_LAUNCH,       RB_FAM_BASE_GRAPH,
                                     RB_FAM_MEMCPY_H2D_PINNED,  RB_FAM_MEMCPY_D2H_PINNED, RB_FAM_MEMCPY_H2D_PAGEABLE,
                                     RB_FAM_MEMCPY_D2H_PAGEABLE};
    char sz[32];
    int any = 0;
    fputs("\n### Baselines (p50 per size)\n\n", md);
    for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
        uint64_t *sizes = NULL;
        size_t ns = report_sizes(run, base[b], &sizes);
        if (ns > 0) {
            if (!any++)
                fputs("| baseline | unit | p50 at size |\n| --- | --- | --- |\n", md);
            fprintf(md, "| %s | %s |", rb_family_name(base[b]), rb_family_unit(base[b]));
            for (size_t s = 0; s < ns; s++) {
                long i = report_find(run, base[b], NULL, sizes[s]);
                const rb_row *r = i >= 0 ? report_row(run, (size_t)i) : NULL;
                fprintf(md, "%s%s: %s", s ? "," : "", report_size_str(sizes[s], sz, sizeof sz),
                        r && report_row_ok(r) ? report_value(r->p50, r->unit)
                        : r                   ? r->status
                                              : "-");
            }
            fputs(" |\n", md);
        }
        free(sizes);
    }
    if (!any)
        fputs("No baseline rows (a CPU reference run has none).\n", md);
}

/* Issue 19's "no window slower than a smaller one": at each size, every window whose best rate is below
 * that of a smaller window, by how much, and whether beyond noise (its p50's 95 % interval wholly below
 * the smaller window's; one size, so bytes and messages per second scale alike). */
static void window_order_md(FILE *md, const report_run *run, const uint64_t *sizes, size_t ns, const uint64_t *wins,
                            size_t nw)
{
    int found = 0;
    for (size_t k = 0; k < ns; k++) {
        const rb_row *top = NULL; /* the fastest smaller window at this size */
        for (size_t w = 0; w < nw; w++) {
            const rb_row *r = report_window_best(run, sizes[k], wins[w]);
            if (!r)
                continue;
            if (top && r->msgs_per_s < top->msgs_per_s) {
                char sz[32];
                report_size_str(sizes[k], sz, sizeof sz);
                if (!found++)
                    fputs("\nWindows slower than a smaller one (the best mode's rate at each; beyond noise: its "
                          "interval wholly below the smaller window's):\n\n",
                          md);
                fprintf(md, "- %s: W = %llu, %s M msg/s, against W = %llu, %s (%+.1f %%, %s)\n", sz,
                        (unsigned long long)r->window, report_num(r->msgs_per_s * 1e-6),
                        (unsigned long long)top->window, report_num(top->msgs_per_s * 1e-6),
                        100 * (r->msgs_per_s / top->msgs_per_s - 1),
                        r->ci_hi < top->ci_lo ? "beyond noise" : "within noise");
            }
            if (!top || r->msgs_per_s > top->msgs_per_s)
                top = r;
        }
    }
    if (!found)
        fputs("\nNo window is slower than a smaller one, at any size (the best mode's rate at each).\n", md);
}

/* Throughput against the window (messages in flight), the axis of the pipelined ring: for each size,
 * messages per second of the best mode, the native path and the WSL2 fallback at every window
 * measured, and the fallback's cost against native at each window (time per message, trial-level
 * p50s), which says whether batching changes the answer to the "10-30%" claim. */
static void window_md(FILE *md, const report_run *run)
{
    uint64_t *sizes = NULL, wins[REPORT_WINDOWS_MAX];
    const size_t ns = report_sizes(run, RB_FAM_THROUGHPUT, &sizes), nw = report_window_list(run, wins);
    if (ns == 0 || nw < 2) {
        free(sizes);
        return;
    }
    const mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    fputs("\n## Throughput against window\n\nMessages per second (millions) with W messages kept in flight "
          "(`--window`); a window larger than a size's ring is capped to its capacity. \"fb/nat\" is the "
          "fallback's time per message over the native path's at that window: whether batching changes the "
          "fallback's cost. \"bound\" is Little's law for the best mode: W / its round trip at one message in "
          "flight, capped by its rate at the widest window; \"share\" is how much of it the ring reached (plot (f)). "
          "\"of W x W1\" sets the same rate against W times that mode's own rate at W = 1, capped the same way: "
          "how well the ring keeps W messages going, whatever checking a reply costs the host.",
          md);
    if (strcmp(report_prov(run, "refill_first"), "on") == 0)
        fputs(" That round trip ends when the host has checked the reply, which this run's zero-copy windows did "
              "not wait for (provenance refill_first): where a check takes microseconds, the share at W = 1 can "
              "pass 100 %, the reply checked while the next message is already out.",
              md);
    fputs("\n\n"
          "| size | window | best mode | best Mmsg/s | bound | share | of W x W1 | native Mmsg/s | fallback Mmsg/s | "
          "fb/nat |\n"
          "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
          md);
    for (size_t k = 0; k < ns; k++) {
        char sz[32];
        report_size_str(sizes[k], sz, sizeof sz);
        for (size_t w = 0; w < nw; w++) {
            const rb_row *best = report_window_best(run, sizes[k], wins[w]);
            if (!best)
                continue;
            long in = report_find_window(run, RB_FAM_THROUGHPUT, &nat, sizes[k], wins[w]);
            long ifb = report_find_window(run, RB_FAM_THROUGHPUT, &fb, sizes[k], wins[w]);
            const rb_row *n = in >= 0 ? report_row(run, (size_t)in) : NULL,
                         *f = ifb >= 0 ? report_row(run, (size_t)ifb) : NULL;
            const double nm = n && report_row_ok(n) ? n->msgs_per_s : NAN,
                         fm = f && report_row_ok(f) ? f->msgs_per_s : NAN;
            mode_spec bm;
            report_row_mode(best, &bm);
            const double bound = report_window_bound(run, &bm, sizes[k], wins[w]),
                         scaling = report_window_scaling(run, &bm, sizes[k], wins[w]);
            fprintf(md, "| %s | %llu | `%s` | %s | %s | %s%% | %s%% | %s | %s | %s |\n", sz,
                    (unsigned long long)wins[w], report_mode_str(&bm), report_num(best->msgs_per_s * 1e-6),
                    report_num(bound * 1e-6), report_num(100 * best->msgs_per_s / bound),
                    report_num(100 * best->msgs_per_s / scaling), report_num(nm * 1e-6), report_num(fm * 1e-6),
                    report_num(nm / fm));
        }
    }
    window_order_md(md, run, sizes, ns, wins, nw);
    free(sizes);
}

/* 1.4826 x the median absolute deviation of v[0..n) (logs), as a percentage; v is overwritten. */
static double log_spread_pct(double *v, size_t n)
{
    const double m = stats_median_select(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - m);
    return 100 * 1.4826 * stats_median_select(v, n);
}

/* The leg's processes are its rows' rounds: 0 .. K - 1, K at most run --window-procs' bound (1000). A
 * round beyond this, which only a damaged file can hold, is left out. */
#define PROCS_ROUND_MAX 4096

/* Per leg process (a round of the leg's rows), the log of its full window - the median of its modes'
 * figures, each its best trial in that process - into lf[round], NAN where it has none; lf has nproc
 * entries. report_trials gives a rate's samples as time per byte (1/x), turned back here. */
static void procs_levels(const report_run *run, double *lf, size_t nproc)
{
    double *v = calloc(nproc * 4, sizeof *v);
    size_t *nv = calloc(nproc, sizeof *nv);
    for (size_t i = 0; v && nv && i < report_nrows(run); i++) {
        size_t k;
        const int32_t *round;
        const stats_trial *t = report_row_family(report_row(run, i)) == RB_FAM_THROUGHPUT_PROCS
                                   ? report_trials(run, (long)i, &k, &round)
                                   : NULL;
        for (size_t j = 0; t && round && j < k; j++)
            if (round[j] >= 0 && (size_t)round[j] < nproc && nv[round[j]] < 4 && t[j].n > 0 && t[j].sorted[0] > 0)
                v[(size_t)round[j] * 4 + nv[round[j]]++] = 1.0 / t[j].sorted[0];
    }
    for (size_t p = 0; p < nproc; p++)
        lf[p] = v && nv && nv[p] ? log(stats_median_select(v + p * 4, nv[p])) : NAN;
    free(v);
    free(nv);
}

/* The leg's own references (window_procs.h): how far the processes' levels spread as measured and
 * divided by each process's own memcpy of the same size, pinned where measured, else pageable. */
static void procs_refs_md(FILE *md, const report_run *run)
{
    static const rb_family fams[2] = {RB_FAM_MEMCPY_H2D_PINNED_PROCS, RB_FAM_MEMCPY_H2D_PAGEABLE_PROCS};
    long ref = -1;
    int pinned = 0;
    for (int f = 0; f < 2 && ref < 0; f++)
        for (size_t i = 0; i < report_nrows(run) && ref < 0; i++)
            if (report_row_family(report_row(run, i)) == (int)fams[f] && report_row_ok(report_row(run, i))) {
                ref = (long)i;
                pinned = f == 0;
            }
    size_t k = 0;
    const int32_t *round = NULL;
    const stats_trial *t = ref >= 0 ? report_trials(run, ref, &k, &round) : NULL;
    if (!t || !round || k < 3)
        return;
    size_t nproc = 0;
    for (size_t j = 0; j < k; j++)
        if (round[j] >= 0 && round[j] < PROCS_ROUND_MAX && (size_t)round[j] + 1 > nproc)
            nproc = (size_t)round[j] + 1;
    double *lf = malloc(nproc * sizeof *lf), *a = malloc(k * sizeof *a), *b = malloc(k * sizeof *b);
    size_t n = 0;
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    if (lf && a && b) {
        procs_levels(run, lf, nproc);
        for (size_t j = 0; j < k; j++) {
            if (round[j] < 0 || (size_t)round[j] >= nproc || t[j].n == 0 || !(t[j].sorted[0] > 0) ||
                !isfinite(lf[round[j]]))
                continue;
            const double x = -log(t[j].sorted[0]), y = lf[round[j]]; /* time per byte back to GB/s */
            a[n] = y;
            b[n++] = y - x;
            sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
        }
    }
    if (n >= 3) {
        const double cov = sxy - sx * sy / (double)n, vx = sxx - sx * sx / (double)n, vy = syy - sy * sy / (double)n;
        fprintf(md,
                "\nEach process also timed its own `cudaMemcpy` of this size, host to device from %s memory (`%s`, "
                "its median trial), in the same seconds as its full window. Over the %zu processes with both, the "
                "full window (the median of the modes' best trials) correlates %s with that memcpy's speed and "
                "spreads %s %% as measured, %s %% divided by it (1.4826 x MAD of the log; on two H100s, 24 processes "
                "a night: 3.3-15.5 %% against 2.7-8.6 %%, docs/decisions/0035-full-window-in-fresh-processes.md). "
                "Tracking judges the "
                "leg's median beyond the machine's shift, not this memcpy's: over the 12 nights of the second, the "
                "median divided by the processes' memcpy was no steadier night to night (4.4 %% against 2.5 %%).\n",
                pinned ? "pinned" : "pageable", report_row(run, (size_t)ref)->family, n,
                report_num(vx > 0 && vy > 0 ? cov / sqrt(vx * vy) : NAN), report_num(log_spread_pct(a, n)),
                report_num(log_spread_pct(b, n)));
    }
    free(lf);
    free(a);
    free(b);
}

/* The leg of run --window-procs (family throughput_procs): the smallest size's full window over K fresh
 * processes, beside the run's own full window of the same mode, which is one process's level. */
static void procs_md(FILE *md, const report_run *run)
{
    int any = 0;
    for (size_t i = 0; i < report_nrows(run); i++) {
        const rb_row *r = report_row(run, i);
        if (report_row_family(r) != RB_FAM_THROUGHPUT_PROCS)
            continue;
        if (!any++)
            fputs("\n## The full window in fresh processes\n\n`run --window-procs K` measured the smallest size's full "
                  "window again in K processes started one after another (a quick run of each mode, 3 trials, its "
                  "best trial). Each process draws a level of this rate that all its trials share, so the run's own "
                  "full-window cell (one process) can sit 10-20 % off; the median over the processes is the steadier "
                  "figure, and nightly tracking judges it. Million messages per second; the interval is the "
                  "median's 95 % interval over the processes, the spread their CV.\n\n"
                  "| mode | size | processes (ok) | median Mmsg/s [95 % interval] | spread | slowest - fastest | this "
                  "run's own |\n| --- | --- | ---: | --- | ---: | --- | ---: |\n",
                  md);
        mode_spec m;
        report_row_mode(r, &m);
        char sz[32];
        const double per = 1e3 / (double)(r->size_bytes ? r->size_bytes : 1); /* GB/s to Mmsg/s */
        const long own = report_find_window(run, RB_FAM_THROUGHPUT, &m, r->size_bytes, r->window);
        const rb_row *o = own >= 0 ? report_row(run, (size_t)own) : NULL;
        fprintf(md, "| `%s` | %s | %llu (%llu) | ", report_mode_str(&m), report_size_str(r->size_bytes, sz, sizeof sz),
                (unsigned long long)r->trials, (unsigned long long)(report_row_ok(r) ? r->n : 0));
        if (!report_row_ok(r)) {
            fprintf(md, "%s: ", r->status);
            report_md_text(md, r->reason);
            fputs(" | | | |\n", md);
            continue;
        }
        fprintf(md, "%s [%s, ", report_num(r->p50 * per), report_num(r->ci_lo * per));
        fprintf(md, "%s] | %s%% | ", report_num(r->ci_hi * per), report_num(100 * r->trial_cv));
        fprintf(md, "%s - ", report_num(r->trial_p50_min * per));
        fprintf(md, "%s | %s |\n", report_num(r->trial_p50_max * per),
                report_num(o && report_row_ok(o) ? o->p50 * per : NAN));
    }
    if (any)
        procs_refs_md(md, run);
}

static void plots_md(FILE *md)
{
    fputs("\n## Plots\n\nEach plot has a gnuplot script next to it (`gnuplot NAME.gp` in this directory redraws it "
          "from NAME's .dat file) and an SVG twin. Colour = transfer mode, dash = launch, point = host memory; "
          "gold = native path, magenta = WSL2 fallback.\n",
          md);
    for (size_t i = 0; i < report_plot_count; i++) {
        const report_plot_def *p = &report_plot_defs[i];
        fprintf(md, "\n### %s\n\n![%s](%s.png)\n\n[SVG](%s.svg) · [script](%s.gp)\n", p->caption, p->name, p->name,
                p->name, p->name);
    }
}

/* The title line: what, and the machine, driver, CUDA, date and commit of the run. */
void report_title_md(FILE *md, const char *what, const report_run *run)
{
    char machine[512];
    report_machine_str(run, machine, sizeof machine);
    fprintf(md, "# %s: ", what);
    report_md_text(md, machine);
    fputs("\n\n", md);
}

static int write_report_md(const report_run *run, const headline_fig *figs, const char *dir, const report_opts *o,
                           char *err, size_t errlen)
{
    static const rb_family cb[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
    static const rb_family lc[] = {RB_FAM_LC_LAUNCH, RB_FAM_LC_ACTIVATE, RB_FAM_LC_DEACTIVATE, RB_FAM_LC_TERMINATE};
    report_file rf;
    if (report_file_open(&rf, dir, "report.md", err, errlen) != 0)
        return -1;
    FILE *md = rf.f;
    /* The answer first (issue 52): machine and commit, one sentence of verdict, the headline figures
     * with their ratios and the answer plot within the first 25 lines; the method, every mode, windows,
     * distributions and the environment follow as sections. The incomplete-run, CPU-backend and
     * damaged-file warnings stay on top: they qualify everything. */
    report_title_md(md, "ringbench report", run);
    report_notes_md(md, run, "this file");
    report_machine_lines_md(md, run); /* make wsl2: per-call costs and the pinned ceiling first */
    report_first_screen_md(md, run, run, figs, "answer");
    report_method_md(md, run, run, o);
    report_verdict_md(md, run, run, o);
    if (attr_section_md(md, run, run, dir, o, err, errlen) != 0)
        return -1;
    fputs("\n## Best and worst modes\n", md);
    best_worst_md(md, run, RB_FAM_LATENCY);
    best_worst_md(md, run, RB_FAM_THROUGHPUT);
    fputs("\n", md);
    not_measured_md(md, run);
    fputs("## Key numbers\n", md);
    ops_table_md(md, run, "Control-block operations", cb, 3);
    ops_table_md(md, run, "Kernel lifecycle", lc, 4);
    sized_table_md(md, run, RB_FAM_LATENCY);
    sized_table_md(md, run, RB_FAM_THROUGHPUT);
    window_md(md, run);
    procs_md(md, run);
    report_modes_md(md, run, "");
    report_slow_md(md, run);
    baselines_md(md, run);
    plots_md(md);
    fputs("\n", md);
    environment_md(md, run);
    capabilities_md(md, run);
    return report_file_close(&rf, err, errlen);
}

/* The title of the answer plot: the machine, or the CPU reference, with the run's label. */
static void answer_title(const report_run *run, char *buf, size_t n)
{
    report_plot_title(buf, n, run, "The WSL2 fallback path against the native path");
}

/* Everything of the report into dir (its staging folder). Returns 1 when all of it was written, else 0
 * after one line on stderr (none when interrupted: report_dir_end says that). */
static int report_into(const report_run *run, const report_opts *o, const char *label, const char *dir,
                       headline_fig *figs)
{
    char err[REPORT_PATH_MAX + 512], title[640];
    report_headlines(run, run, o, figs);
    answer_title(run, title, sizeof title);
    int ok = report_plot_answer(figs, title, dir, err, sizeof err) == 0 &&
             report_plots_write(run, dir, err, sizeof err) == 0 &&
             write_report_md(run, figs, dir, o, err, sizeof err) == 0 &&
             report_label_headings(dir, "report.md", label, err, sizeof err) == 0;
    if (!ok && !report_stopped())
        fprintf(stderr, "ringbench report: %s\n", err);
    return ok && report_plots_render("report", dir, o->render) == 0;
}

int report_write(const char *file, const report_opts *opts)
{
    const report_opts o = *opts;
    char err[REPORT_PATH_MAX + 512];
    report_run run;
    outfs_dir d;
    if (report_run_open(&run, file, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench report: %s\n", err);
        return 2;
    }
    if (!run.complete)
        fprintf(stderr,
                "ringbench report: WARNING: %s is an INCOMPLETE run (interrupted by %s): reporting the rows "
                "it has\n",
                file, run.interrupted_by[0] ? run.interrupted_by : "unknown");
    if (strcmp(run.backend, "cuda") != 0)
        fprintf(stderr, "ringbench report: note: %s holds %s-backend rows: CPU reference results, not GPU numbers\n",
                file, run.backend);
    char label[512];
    report_label_of(&run, label, sizeof label);
    if (label[0])
        fprintf(stderr, "ringbench report: WARNING: %s is %s\n", file, label);

    report_watch(o.stop);
    int rc = report_dir_begin(&d, "report", o.out_dir, file, "-report") != 0 ? 2 : 1;
    if (rc == 1) {
        /* Everything goes into the staging folder, which becomes the report only when complete. */
        headline_fig figs[HL_COUNT];
        char *md = outfs_path("%s/report.md", d.path);
        rc = report_dir_end(&d, "report", md != NULL && report_into(&run, &o, label, d.stage, figs)) == 0 ? 0 : 1;
        double lo, hi;
        const verdict_claim v = rc == 0 ? headline_verdict(figs, &lo, &hi) : VERDICT_CLAIM_NONE;
        if (rc == 0 && report_claim_applies(&run, &run) &&
            isfinite(lo)) /* the verdict in one line, as report.md's first */
            printf("ringbench report: %s the claim: control-block operations take %s to %s the native path's time; ",
                   v == VERDICT_MIXED ? "mixed against" : report_claim_name(v), report_times(lo), report_times(hi));
        else if (rc == 0)
            printf("ringbench report: ");
        if (rc == 0)
            printf("wrote %s\n", md);
        free(md);
    }
    report_watch(NULL);
    report_run_close(&run);
    return rc;
}
