/* test_report.c - `ringbench report` and `ringbench compare` (plots/) against fixture files whose
 * answers are known (tests/report_fixture.c): report.md's numbers, best/worst modes, verdict and
 * unsupported reasons; the plots gnuplot renders (valid PNG of the size the script sets, non-empty SVG);
 * compare's verdicts on an injected difference and on identical files; refusals of damaged, foreign
 * and newer files and of files with nothing in common; incomplete and CPU-reference files; paths with
 * spaces and quotes; a missing gnuplot; a cell with two modes, recorded in the file and listed by both.
 * Run it under -DRINGBENCH_SANITIZE=address as well.
 *
 * Usage: test_report CASE WORKDIR, CASE one of content, render, compare, damaged, paths, nognuplot,
 * trials, hostile, modes, slowtrials, windows, headline (report --answer, the headline export).
 * render exits 77 (skipped) when gnuplot is not on PATH.
 */
#define _XOPEN_SOURCE 700 /* nftw */

#include "check.h"
#include "bimodal.h"
#include "modes.h"
#include "commands.h"
#include "report.h"
#include "report_fixture.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "h5in.h"
#include "h5out.h"
#include "headline.h"

/* HDF5 itself leaks a little when it meets damaged metadata (see test_h5_damaged.c); our own
 * allocations stay checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libhdf5\n"; }

static char work[4096];
static const char *const reps = "500"; /* fewer bootstrap resamples: the same verdicts, faster under ASan */

// --- helpers ----------------------------------------------------------------------------------------------

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", work, name); }

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL) {
        if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
            free(buf);
            buf = NULL;
        } else {
            buf[size] = '\0';
            if (len)
                *len = (size_t)size;
        }
    }
    if (f)
        fclose(f);
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void write_fixture(const char *path, const fixture_opts *o)
{
    char err[512];
    CHECK_MSG(fixture_write(path, o, err, sizeof err) == 0, "fixture %s: %s", path, err);
}

/* Where run_cmd puts the command's standard output (malloc'd), when not NULL; reset after each call. */
static char **run_cmd_stdout;

/* Runs a command entry point with stderr captured into *errtext (malloc'd), and its stdout into
 * *run_cmd_stdout when that is set. Returns its exit code. */
static int run_cmd(int (*cmd)(int, char **), char **errtext, int argc, ...)
{
    char *argv[16];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc && i < 15; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    argv[argc] = NULL;
    char cap[4200], out[4200];
    path_in(cap, sizeof cap, "stderr.txt");
    path_in(out, sizeof out, "stdout.txt");
    fflush(stderr);
    fflush(stdout);
    int saved = dup(STDERR_FILENO), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int saved_out = run_cmd_stdout ? dup(STDOUT_FILENO) : -1;
    dup2(fd, STDERR_FILENO);
    close(fd);
    if (run_cmd_stdout) {
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, STDOUT_FILENO);
        close(fd);
    }
    int rc = cmd(argc, argv);
    fflush(stderr);
    fflush(stdout);
    dup2(saved, STDERR_FILENO);
    close(saved);
    if (run_cmd_stdout) {
        dup2(saved_out, STDOUT_FILENO);
        close(saved_out);
        *run_cmd_stdout = slurp(out, NULL);
        run_cmd_stdout = NULL;
    }
    char *text = slurp(cap, NULL);
    if (text && *text)
        fprintf(stderr, "[captured stderr] %s", text);
    if (errtext)
        *errtext = text;
    else
        free(text);
    return rc;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* The 1-based number of the first line of text holding needle, or -1. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (at == NULL)
        return -1;
    int n = 1;
    for (const char *p = text; p < at; p++)
        n += *p == '\n';
    return n;
}

/* The line of text that contains all of the given needles (NULL-terminated), copied into buf. */
static int find_line(const char *text, char *buf, size_t n, const char *const *needles)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        snprintf(buf, n, "%.*s", (int)len, line);
        int all = 1;
        for (size_t i = 0; needles[i] && all; i++)
            all = strstr(buf, needles[i]) != NULL;
        if (all)
            return 1;
        line = end ? end + 1 : NULL;
    }
    buf[0] = '\0';
    return 0;
}

/* Parses "+25.0% [+23.1%, +26.9%]", or from +100 % the ratio "2.50× [2.31×, 2.69×]", out of a line into
 * fractions (overheads: ratio - 1). */
static int parse_ov(const char *line, double *est, double *lo, double *hi)
{
    for (const char *p = line; (p = strpbrk(p, "+-")) != NULL; p++)
        if (sscanf(p, "%lf%% [%lf%%, %lf%%]", est, lo, hi) == 3) {
            *est /= 100;
            *lo /= 100;
            *hi /= 100;
            return 1;
        }
    for (const char *p = line; (p = strstr(p, "| ")) != NULL; p++)
        if (sscanf(p, "| %lf× [%lf×, %lf×]", est, lo, hi) == 3) {
            *est -= 1;
            *lo -= 1;
            *hi -= 1;
            return 1;
        }
    return 0;
}

/* A figure as report.md writes it, "2.39 µs", "54.0 ns", "8.00 MB/s", "43.9 GB/s", in us or GB/s.
 * Returns 1, or 0 when s does not start with a number and a known unit. */
static int parse_value(const char *s, double *v)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1e-3}, {"µs", 1}, {"ms", 1e3}, {"s", 1e6}, {"MB/s", 1e-3}, {"GB/s", 1}, {"TB/s", 1e3}};
    char unit[16];
    double x;
    if (sscanf(s, " %lf %15s", &x, unit) != 2)
        return 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0) {
            *v = x * units[i].scale;
            return 1;
        }
    return 0;
}

/* 1 when text holds "nan" (any case) as a word of its own: what a printf of a NaN writes. */
static int has_nan(const char *text)
{
    for (const char *p = text; *p; p++)
        if (strncasecmp(p, "nan", 3) == 0 && (p == text || !isalpha((unsigned char)p[-1])) &&
            !isalpha((unsigned char)p[3]))
            return 1;
    return 0;
}

/* The first overhead of +100 % or more written in percent ("+147983%"), or NULL: such ratios are ×. */
static const char *big_percent(const char *text)
{
    for (const char *p = text; (p = strchr(p, '+')) != NULL; p++) {
        char *end;
        double v = strtod(p + 1, &end);
        if (end > p + 1 && v >= 100 && (*end == '%' || (end[0] == ' ' && end[1] == '%')))
            return p;
    }
    return NULL;
}

static const char *claim_class(double ratio)
{
    return ratio - 1 < 0.10 ? "| below |" : ratio - 1 > 0.30 ? "| above |" : "| inside |";
}

/* A verdict line: the known overhead lies in the reported CI (widened by 1 point) and the class matches. */
static void check_verdict(const char *md, const char *cell, const char *against, double ratio)
{
    char line[2048];
    double est, lo, hi;
    const char *needles[] = {cell, against, NULL};
    CHECK_MSG(find_line(md, line, sizeof line, needles), "no verdict line for %s %s", cell, against);
    CHECK_MSG(parse_ov(line, &est, &lo, &hi), "no overhead in '%s'", line);
    CHECK_MSG(ratio - 1 >= lo - 0.01 && ratio - 1 <= hi + 0.01, "%s %s: known %+.3f outside [%+.3f, %+.3f]", cell,
              against, ratio - 1, lo, hi);
    CHECK_MSG(strstr(line, claim_class(ratio)) != NULL, "%s %s: expected %s in '%s'", cell, against, claim_class(ratio),
              line);
}

static mode_spec mode_of(int host, int xfer, int launch, int ctrl)
{
    mode_spec m = {{host, xfer, launch, ctrl}};
    return m;
}

// --- content: report.md against the fixture's known answers ------------------------------------------------

/* The headline table's row starting with name: its ratio and interval (as fractions over 1) and its
 * native value, in us or GB/s. Returns 1 when all parse. */
static int headline_row(const char *md, const char *name, double *ratio, double *lo, double *hi, double *native)
{
    char line[2048], start[160];
    snprintf(start, sizeof start, "| %s |", name);
    const char *needles[] = {start, "**", NULL};
    if (!find_line(md, line, sizeof line, needles) || strncmp(line, start, strlen(start)) != 0)
        return 0;
    const char *r = strstr(line, "**");
    return parse_value(line + strlen(start), native) && sscanf(r, "**%lf×** [%lf×, %lf×]", ratio, lo, hi) == 3;
}

/* report.md's first screen (issue 52): within 25 lines the title with GPU, driver, CUDA, date and
 * commit, one sentence of verdict, the headline table with fallback / native and its interval (the
 * fixture's known ratios inside), both native references, the verdict words and the answer plot; no
 * "nan" and no ratio written as hundreds of percent anywhere. */
static void check_first_screen(const char *md)
{
    static const char title[] =
        "# ringbench report: NVIDIA H100 80GB HBM3 · driver 580.65.06 · CUDA 13.0 · 2026-11-22 · commit 0123456789ab\n";
    CHECK_MSG(strncmp(md, title, strlen(title)) == 0, "title: %.160s", md);
    /* the fixture's reads are 68 % slower on the fallback, its writes 4 %: above and below the claim */
    CHECK_MSG(line_of(md, "**Verdict: mixed against the claim.**") == 3, "verdict at line %d",
              line_of(md, "**Verdict"));
    CHECK(line_of(md, "| headline figure | native | WSL2 fallback | fallback / native [95 % interval] |") == 5);
    CHECK(line_of(md, "Native references: **the claim's native path** `pinned/async/coop/mapped`") < 25);
    CHECK(line_of(md, "**the fastest native mode** `pinned/zerocopy/coop/mapped`") < 25);
    CHECK(line_of(md, "Verdict words: **above**") < 25);
    CHECK_MSG(line_of(md, "](answer.png)") > 0 && line_of(md, "](answer.png)") <= 25, "the answer plot at line %d",
              line_of(md, "](answer.png)"));
    CHECK_MSG(!has_nan(md), "report.md writes nan");
    CHECK_MSG(big_percent(md) == NULL, "a ratio in percent: %.60s", big_percent(md));

    mode_spec nat = mode_native(), fb = mode_wsl2_fallback(), fast = nat;
    fast.v[RB_AXIS_XFER] = RB_XFER_ZEROCOPY;
    const struct {
        const char *name;
        rb_family f;
        const mode_spec *native;
        uint64_t size;
    } rows[] = {{"control-block read", RB_FAM_CB_READ, &nat, 0},
                {"control-block write", RB_FAM_CB_WRITE, &nat, 0},
                {"control-block handshake", RB_FAM_CB_HANDSHAKE, &nat, 0},
                {"round trip, 8 B", RB_FAM_LATENCY, &nat, 8},
                {"round trip, 8 B, fastest native mode", RB_FAM_LATENCY, &fast, 8},
                {"round trip, 4 MiB", RB_FAM_LATENCY, &nat, 4 << 20}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double ratio = 0, lo = 0, hi = 0, native = 0;
        const double known =
            fixture_median(rows[i].f, &fb, rows[i].size) / fixture_median(rows[i].f, rows[i].native, rows[i].size);
        CHECK_MSG(headline_row(md, rows[i].name, &ratio, &lo, &hi, &native), "no headline row '%s'", rows[i].name);
        CHECK_MSG(fabs(ratio / known - 1) < 0.03 && lo <= known * 1.01 && known <= hi * 1.01,
                  "%s: %g× [%g×, %g×], known %g×", rows[i].name, ratio, lo, hi, known);
        CHECK_MSG(fabs(native / fixture_median(rows[i].f, rows[i].native, rows[i].size) - 1) < 0.03, "%s: native %g",
                  rows[i].name, native);
    }
    /* throughput on time per byte: native GB/s over fallback GB/s */
    double ratio = 0, lo = 0, hi = 0, native = 0;
    CHECK(headline_row(md, "throughput, 4 MiB (ratio on time per byte)", &ratio, &lo, &hi, &native));
    const double known =
        fixture_median(RB_FAM_THROUGHPUT, &nat, 4 << 20) / fixture_median(RB_FAM_THROUGHPUT, &fb, 4 << 20);
    CHECK_MSG(fabs(ratio / known - 1) < 0.03, "throughput ratio %g, known %g", ratio, known);
}

static void case_content(void)
{
    char file[4200], dir[4200], md_path[4300], line[2048], label[256], sz[64];
    path_in(file, sizeof file, "run.h5");
    path_in(dir, sizeof dir, "run report");
    fixture_opts o = fixture_defaults();
    write_fixture(file, &o);
    CHECK_INT(run_cmd(cmd_report, NULL, 6, "report", file, "-o", dir, "--no-render", "--reps"),
              2); /* --reps needs a value */
    CHECK_INT(run_cmd(cmd_report, NULL, 7, "report", file, "-o", dir, "--no-render", "--reps", reps), 0);
    snprintf(md_path, sizeof md_path, "%s/report.md", dir);
    char *md = slurp(md_path, NULL);
    CHECK_MSG(md != NULL, "no %s", md_path);
    if (md == NULL)
        return;

    check_first_screen(md);

    /* The full verdict next; environment and capabilities after the tables. */
    CHECK(line_of(md, "## Method") > line_of(md, "](answer.png)"));
    CHECK(line_of(md, "## Verdict: the WSL2 fallback") > line_of(md, "## Method"));
    CHECK(line_of(md, "## Environment") > line_of(md, "## Key numbers"));
    CHECK(line_of(md, "## Capabilities") > line_of(md, "## Environment"));

    /* Environment, capabilities with errors, unsupported and invalid reasons deduplicated by mode. */
    CHECK(strstr(md, "GPU **NVIDIA H100 80GB HBM3** (driver 580.65.06") != NULL);
    CHECK(strstr(md, "| concurrent_managed_access | 1 | - |") != NULL);
    CHECK(strstr(md, "| nvml | - | NVML_ERROR_NOT_SUPPORTED \\| in this VM |") != NULL);
    CHECK(strstr(md, "| pinned/zerocopy/noncoop/device | **unsupported** | cudaErrorNotSupported from "
                     "cudaLaunchKernel") != NULL);
    CHECK(strstr(md, "| malloc/async/coop/mapped | **invalid** | a mapped control block is pinned host memory") !=
          NULL);
    const char *first = strstr(md, "| malloc/sync/coop/mapped | **invalid**");
    CHECK(first != NULL && strstr(first + 1, "| malloc/sync/coop/mapped | **invalid**") == NULL);
    CHECK(strstr(md, "INCOMPLETE") == NULL && strstr(md, "CPU REFERENCE") == NULL);

    /* Best and worst mode per size, with the medians the file holds. */
    mode_spec best = mode_of(RB_HOST_PINNED, RB_XFER_ZEROCOPY, RB_LAUNCH_COOP, RB_CTRL_MAPPED);
    mode_spec worst = mode_wsl2_fallback();
    char best_l[96], worst_l[96];
    mode_label(&best, best_l, sizeof best_l);
    mode_label(&worst, worst_l, sizeof worst_l);
    for (int s = 0; s < FIXTURE_NSIZES; s++) {
        uint64_t size = fixture_sizes[s];
        snprintf(sz, sizeof sz, "| %llu %s |",
                 (unsigned long long)(size >= 1048576 ? size >> 20
                                      : size >= 1024  ? size >> 10
                                                      : size),
                 size >= 1048576 ? "MiB"
                 : size >= 1024  ? "KiB"
                                 : "B");
        for (int fam = 0; fam < 2; fam++) {
            const char *hdr = fam ? "### throughput p50" : "### latency p50";
            const char *sec = strstr(md, hdr);
            const char *needles[] = {sz, NULL};
            CHECK(sec != NULL && find_line(sec, line, sizeof line, needles));
            snprintf(label, sizeof label, "%s | ", best_l);
            CHECK_MSG(strncmp(line + strlen(sz) + 1, label, strlen(label)) == 0, "best at %s: '%s'", sz, line);
            CHECK_MSG(strstr(line, worst_l) != NULL, "worst at %s: '%s'", sz, line);
            /* the known median, to within the sampling noise of the fixture */
            double p50 = 0;
            CHECK(parse_value(line + strlen(sz) + 1 + strlen(label), &p50));
            rb_family f = fam ? RB_FAM_THROUGHPUT : RB_FAM_LATENCY;
            CHECK_MSG(fabs(p50 / fixture_median(f, &best, size) - 1) < 0.03, "%s best p50 %g vs known %g", sz, p50,
                      fixture_median(f, &best, size));
        }
    }

    /* The verdict: known overheads inside the reported CIs, classified against 10-30%. */
    mode_spec nat = mode_native(), man = mode_native(), fb = mode_wsl2_fallback();
    man.v[RB_AXIS_CTRL] = RB_CTRL_MANAGED;
    const char *verdict = strstr(md, "## Verdict");
    CHECK(verdict != NULL);
    if (verdict) {
        static const rb_family cb[] = {RB_FAM_CB_READ, RB_FAM_CB_WRITE, RB_FAM_CB_HANDSHAKE};
        for (int k = 0; k < 3; k++) {
            snprintf(label, sizeof label, "| %s | native (ctrl mapped)", rb_family_name(cb[k]));
            check_verdict(verdict, label, "|", fixture_median(cb[k], &fb, 0) / fixture_median(cb[k], &nat, 0));
            snprintf(label, sizeof label, "| %s | native (ctrl managed)", rb_family_name(cb[k]));
            check_verdict(verdict, label, "|", fixture_median(cb[k], &fb, 0) / fixture_median(cb[k], &man, 0));
        }
        const char *lat = strstr(verdict, "End-to-end latency per message size");
        for (int s = 0; lat && s < FIXTURE_NSIZES; s++) {
            uint64_t size = fixture_sizes[s];
            snprintf(sz, sizeof sz, "| %llu %s | native (ctrl mapped)",
                     (unsigned long long)(size >= 1048576 ? size >> 20
                                          : size >= 1024  ? size >> 10
                                                          : size),
                     size >= 1048576 ? "MiB"
                     : size >= 1024  ? "KiB"
                                     : "B");
            check_verdict(lat, sz, "|",
                          fixture_median(RB_FAM_LATENCY, &fb, size) / fixture_median(RB_FAM_LATENCY, &nat, size));
        }
        const char *thr = strstr(verdict, "End-to-end throughput per message size");
        CHECK(thr != NULL);
        if (thr) /* on time per byte: the ratio of bandwidths, native over fallback */
            check_verdict(thr, "| 8 B | native (ctrl mapped)", "|",
                          fixture_median(RB_FAM_THROUGHPUT, &nat, 8) / fixture_median(RB_FAM_THROUGHPUT, &fb, 8));
        CHECK(strstr(verdict, "- **Control-block operations:** the costliest single axis is **ctrl mapped→device**") !=
              NULL);
        CHECK(strstr(verdict, "- **End-to-end latency:** the costliest single axis is **xfer async→sync**") != NULL);
        CHECK(strstr(verdict, "- **Throughput:** the costliest single axis is **host pinned→malloc**") != NULL);
        CHECK(strstr(verdict, "so that step starts from pinned/async/coop/managed") != NULL);
    }

    /* Data and scripts written, nothing rendered with --no-render; no temporaries left. */
    static const char *const files[] = {"latency_p50.dat",
                                        "latency.gp",
                                        "latency_dist.dat",
                                        "latency_dist.gp",
                                        "throughput_p50.dat",
                                        "throughput.gp",
                                        "heatmap.dat",
                                        "heatmap.gp",
                                        "cb.dat",
                                        "cb.gp",
                                        NULL};
    for (size_t i = 0; files[i]; i++) {
        snprintf(md_path, sizeof md_path, "%s/%s", dir, files[i]);
        CHECK_MSG(exists(md_path), "missing %s", files[i]);
    }
    snprintf(md_path, sizeof md_path, "%s/latency.png", dir);
    CHECK(!exists(md_path));
    snprintf(md_path, sizeof md_path, "%s/report.md.tmp", dir);
    CHECK(!exists(md_path));
    free(md);

    /* An interrupted run is reported, loudly, with exit 0. */
    o.interrupted = 1;
    path_in(file, sizeof file, "interrupted.h5");
    write_fixture(file, &o);
    char *err = NULL;
    CHECK_INT(run_cmd(cmd_report, &err, 7, "report", file, "-o", dir, "--no-render", "--reps", reps), 0);
    CHECK(err && strstr(err, "INCOMPLETE") != NULL);
    free(err);
    snprintf(md_path, sizeof md_path, "%s/report.md", dir);
    md = slurp(md_path, NULL);
    CHECK(md && strstr(md, "WARNING — INCOMPLETE RUN") && strstr(md, "SIGINT"));
    free(md);

    /* A CPU-reference file (no baselines, managed unsupported) is labelled so; missing rows are named. */
    o = fixture_defaults();
    o.backend = "cpu";
    o.managed_unsupported = 1;
    path_in(file, sizeof file, "cpu.h5");
    write_fixture(file, &o);
    CHECK_INT(run_cmd(cmd_report, NULL, 7, "report", file, "-o", dir, "--no-render", "--reps", reps), 0);
    md = slurp(md_path, NULL);
    CHECK(md && strstr(md, "CPU REFERENCE BACKEND") && strstr(md, "not GPU numbers"));
    CHECK(md && strstr(md, "n/a (native (ctrl managed): unsupported: concurrentManagedAccess = 0"));
    CHECK(md && strstr(md, "No baseline rows"));
    free(md);
    snprintf(md_path, sizeof md_path, "%s/latency.gp", dir);
    md = slurp(md_path, NULL);
    CHECK(md && strstr(md, "CPU REFERENCE BACKEND, not GPU numbers"));
    free(md);
}

// --- render: PNG and SVG as the scripts say --------------------------------------------------------------

static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char buf[4200];
    while (path && *path) {
        const char *c = strchr(path, ':');
        size_t len = c ? (size_t)(c - path) : strlen(path);
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)len, path);
        if (len && access(buf, X_OK) == 0)
            return 1;
        path = c ? c + 1 : NULL;
    }
    return 0;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* stem.png is a PNG whose IHDR has the size stem.gp sets; stem.svg is a non-empty SVG of that size. */
static void check_plot(const char *dir, const char *stem)
{
    char path[4300], want[64];
    int w = 0, h = 0;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
    char *gp = slurp(path, NULL);
    const char *t = gp ? strstr(gp, "set terminal pngcairo size ") : NULL;
    CHECK_MSG(t && sscanf(t, "set terminal pngcairo size %d,%d", &w, &h) == 2, "%s: no pngcairo size", stem);
    free(gp);
    snprintf(path, sizeof path, "%s/%s.png", dir, stem);
    unsigned char *png = (unsigned char *)slurp(path, &len);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK_MSG(png && len > 1000 && memcmp(png, sig, 8) == 0 && memcmp(png + 12, "IHDR", 4) == 0, "%s.png invalid",
              stem);
    if (png && len > 24) {
        CHECK_INT(be32(png + 16), w);
        CHECK_INT(be32(png + 20), h);
    }
    free(png);
    snprintf(path, sizeof path, "%s/%s.svg", dir, stem);
    char *svg = slurp(path, &len);
    snprintf(want, sizeof want, "width=\"%d\" height=\"%d\"", w, h);
    CHECK_MSG(svg && len > 1000 && strstr(svg, "<svg") && strstr(svg, want) && strstr(svg, "</svg>"), "%s.svg invalid",
              stem);
    free(svg);
}

static void case_render(void)
{
    char file[4200], other[4200], dir[4200], path[4300];
    if (!have_gnuplot())
        TEST_SKIP("gnuplot not on PATH: rendering not tested");
    path_in(file, sizeof file, "render.h5");
    path_in(other, sizeof other, "render other.h5");
    path_in(dir, sizeof dir, "render out");
    fixture_opts o = fixture_defaults();
    write_fixture(file, &o);
    o.fallback_latency = 1.25;
    write_fixture(other, &o);
    CHECK_INT(run_cmd(cmd_report, NULL, 6, "report", file, "-o", dir, "--reps", reps), 0);
    static const char *const stems[] = {"answer",  "latency", "latency_dist", "throughput",
                                        "heatmap", "cb",      "window",       NULL};
    for (size_t i = 0; stems[i]; i++)
        check_plot(dir, stems[i]);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path, NULL);
    for (size_t i = 0; md && stems[i]; i++) {
        char link[64];
        snprintf(link, sizeof link, "](%s.png)", stems[i]);
        CHECK_MSG(strstr(md, link) != NULL, "report.md does not embed %s.png", stems[i]);
    }
    free(md);
    CHECK_INT(run_cmd(cmd_compare, NULL, 7, "compare", file, other, "-o", dir, "--reps", reps), 0);
    static const char *const cstems[] = {"compare_changes", "compare_heatmap", "compare_ops", "answer", NULL};
    for (size_t i = 0; cstems[i]; i++)
        check_plot(dir, cstems[i]);
    /* gnuplot said nothing: no warnings, no errors. */
    snprintf(path, sizeof path, "%s/gnuplot.log", dir);
    char *log = slurp(path, &(size_t){0});
    CHECK_MSG(log == NULL || log[0] == '\0', "gnuplot.log: %s", log ? log : "");
    free(log);

    /* A file with lifecycle rows and no control-block rows (an interrupted run can be one): plot (e)
     * still renders, its lifecycle panel from the right data sets. */
    o = fixture_defaults();
    o.only_families = 1u << RB_FAM_LC_LAUNCH | 1u << RB_FAM_LC_ACTIVATE;
    path_in(other, sizeof other, "render lifecycle only.h5");
    path_in(dir, sizeof dir, "render lifecycle only out");
    write_fixture(other, &o);
    CHECK_INT(run_cmd(cmd_report, NULL, 6, "report", other, "-o", dir, "--reps", reps), 0);
    check_plot(dir, "cb");
    snprintf(path, sizeof path, "%s/gnuplot.log", dir);
    log = slurp(path, &(size_t){0});
    CHECK_MSG(log == NULL || strstr(log, "cb.gp") == NULL, "gnuplot.log: %s", log ? log : "");
    free(log);
}

// --- compare -----------------------------------------------------------------------------------------------

/* Checks every line of compare_pairs.dat: expect(family, mode) gives the known overhead or 0 for none. */
static void check_pairs(const char *dir, double (*expect)(const char *fam, const char *mode), int *npairs)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/compare_pairs.dat", dir);
    char *dat = slurp(path, NULL);
    CHECK(dat != NULL);
    *npairs = 0;
    for (char *line = dat; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char fam[64], mode[128], verdict[32];
        unsigned long long size;
        double a, b, est, lo, hi;
        if (line[0] != '#' && sscanf(line, "%63s %127s %llu %lf %lf %lf %lf %lf %31s", fam, mode, &size, &a, &b, &est,
                                     &lo, &hi, verdict) == 9) {
            double want = expect(fam, mode);
            (*npairs)++;
            if (want == 0) {
                CHECK_MSG(strcmp(verdict, "same") == 0, "%s %s %llu: expected same, got %s", fam, mode, size, verdict);
            } else {
                CHECK_MSG(strcmp(verdict, "slower") == 0, "%s %s %llu: expected slower, got %s", fam, mode, size,
                          verdict);
                CHECK_MSG(want >= lo - 0.005 && want <= hi + 0.005 && fabs(est - want) < 0.02,
                          "%s %s %llu: %+.3f [%+.3f, %+.3f], known %+.3f", fam, mode, size, est, lo, hi, want);
            }
        }
        line = end ? end + 1 : NULL;
    }
    free(dat);
}

static double expect_injected(const char *fam, const char *mode)
{
    char fb[128];
    mode_spec m = mode_wsl2_fallback();
    mode_label(&m, fb, sizeof fb);
    if (strcmp(fam, rb_family_name(RB_FAM_LATENCY)) == 0 && strcmp(mode, fb) == 0)
        return 0.25;
    if (strcmp(fam, rb_family_name(RB_FAM_CB_READ)) == 0)
        return 0.5;
    return 0;
}

static double expect_nothing(const char *fam, const char *mode)
{
    (void)fam;
    (void)mode;
    return 0;
}

/* compare.md of BASE against a copy with the fallback's latency 25 % slower and every cb_read 50 %
 * slower (issue 52): how many cells are the same, slower and faster in the first 15 lines, the machines
 * and commits, then only the changed cells, largest first (cb_read's +50 % before the +25 %); the WSL2
 * claim after them (one platform); the terminal's line says the same. */
static void check_compare_lead(const char *md, const char *out, int npairs)
{
    char want[160], line[2048];
    int slower = 0;
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        slower += !mode_invalid_reason(&m) && !fixture_unsupported(&m); /* each mode's cb_read */
    }
    slower += FIXTURE_NSIZES; /* the fallback's latency at every size */
    snprintf(want, sizeof want, "**%d of %d cells the same within noise, %d slower, 0 faster**", npairs - slower,
             npairs, slower);
    CHECK_MSG(line_of(md, want) == 3, "wanted '%s' on line 3: %.300s", want, md);
    CHECK(line_of(md, "- **BASE**: NVIDIA H100 80GB HBM3 · driver 580.65.06") == 5);
    snprintf(want, sizeof want, "## Changed cells: %d, largest change first", slower);
    CHECK_MSG(line_of(md, want) > 0 && line_of(md, want) <= 15, "'%s' at line %d", want, line_of(md, want));
    const char *cb = strstr(md, "| cb_read |"), *lat = strstr(md, "| latency | malloc/sync/noncoop/device |");
    CHECK_MSG(cb && lat && cb < lat, "the changed cells are not sorted by effect");
    const char *needles[] = {"| latency | malloc/sync/noncoop/device | 8 B |", NULL};
    CHECK(find_line(md, line, sizeof line, needles) && strstr(line, "| slower |"));
    CHECK(line_of(md, "## The WSL2 claim: OTHER's fallback path against BASE's native path") > line_of(md, want));
    CHECK_MSG(!has_nan(md), "compare.md writes nan");
    CHECK_MSG(big_percent(md) == NULL, "a ratio in percent: %.60s", big_percent(md));
    snprintf(want, sizeof want, "ringbench compare: %d of %d cells the same within noise, %d slower, 0 faster",
             npairs - slower, npairs, slower);
    CHECK_MSG(out && strstr(out, want), "stdout: '%s'", out ? out : "");
}

static void case_compare(void)
{
    char base[4200], inj[4200], same[4200], dir[4200], path[4300];
    int n = 0;
    char *err = NULL;
    path_in(base, sizeof base, "base.h5");
    path_in(inj, sizeof inj, "injected.h5");
    path_in(same, sizeof same, "identical copy.h5");
    path_in(dir, sizeof dir, "compare out");
    fixture_opts o = fixture_defaults();
    write_fixture(base, &o);
    write_fixture(same, &o);
    o.fallback_latency = 1.25;
    o.cb_read = 1.5;
    write_fixture(inj, &o);

    char *out = NULL;
    run_cmd_stdout = &out;
    CHECK_INT(run_cmd(cmd_compare, &err, 8, "compare", base, inj, "-o", dir, "--no-render", "--reps", reps), 0);
    CHECK(err && err[0] == '\0'); /* like for like: no warning */
    free(err);
    check_pairs(dir, expect_injected, &n);
    CHECK_MSG(n > 500, "%d pairs", n);
    snprintf(path, sizeof path, "%s/compare.md", dir);
    char *md = slurp(path, NULL);
    CHECK(md && strstr(md, "## Verdict") && strstr(md, "BASE fallback (same mode)"));
    CHECK(md && strstr(md, "| cb_read | 24 | 24 | 0 | 0 | 0 | +50.0% |") != NULL);
    if (md)
        check_compare_lead(md, out, n);
    free(out);
    /* across the files: OTHER's fallback latency is 1.2617 x 1.25 over BASE's native path: above 30% */
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    if (md) {
        const char *lat = strstr(md, "End-to-end latency per message size");
        CHECK(lat != NULL);
        if (lat)
            check_verdict(lat, "| 8 B | BASE native (ctrl mapped)", "|",
                          1.25 * fixture_median(RB_FAM_LATENCY, &fb, 8) / fixture_median(RB_FAM_LATENCY, &nat, 8));
        if (lat) {
            char line[2048];
            const char *needles[] = {"| 8 B | BASE fallback (same mode)", "| slower |", NULL};
            CHECK(find_line(lat, line, sizeof line, needles));
        }
    }
    free(md);

    /* --fail-on-change: exit 1 with a changed cell, 0 without; report does not take it. */
    CHECK_INT(run_cmd(cmd_compare, &err, 9, "compare", base, inj, "-o", dir, "--no-render", "--reps", reps,
                      "--fail-on-change"),
              1);
    CHECK(err && strstr(err, "changed beyond the threshold (--fail-on-change)"));
    free(err);
    CHECK_INT(run_cmd(cmd_report, NULL, 6, "report", base, "-o", dir, "--no-render", "--fail-on-change"), 2);

    /* Identical files: every pair the same within noise, and --fail-on-change passes. */
    CHECK_INT(run_cmd(cmd_compare, NULL, 9, "compare", base, same, "-o", dir, "--no-render", "--reps", reps,
                      "--fail-on-change"),
              0);
    check_pairs(dir, expect_nothing, &n);
    CHECK(n > 500);
    md = slurp(path, NULL);
    CHECK(md && strstr(md, "None: every compared cell is the same within noise."));
    free(md);

    /* Native against WSL2: the claim leads, before the changed cells. */
    o = fixture_defaults();
    o.wsl2 = "1";
    o.fallback_latency = 1.25;
    path_in(same, sizeof same, "wsl2.h5");
    write_fixture(same, &o);
    CHECK_INT(run_cmd(cmd_compare, NULL, 8, "compare", base, same, "-o", dir, "--no-render", "--reps", reps), 0);
    md = slurp(path, NULL);
    CHECK_MSG(md && line_of(md, "## The WSL2 claim: OTHER's fallback path") > 0 &&
                  line_of(md, "## The WSL2 claim: OTHER's fallback path") < line_of(md, "## Changed cells:") &&
                  line_of(md, "| headline figure | native (BASE) | WSL2 fallback (OTHER) |") < 25,
              "native against WSL2: the claim does not lead");
    free(md);

    /* A different GPU and driver, and the CPU backend: loud warnings, still compared. */
    o = fixture_defaults();
    o.gpu_name = "NVIDIA GeForce RTX 4090";
    o.driver_version = "581.15";
    path_in(same, sizeof same, "other gpu.h5");
    write_fixture(same, &o);
    CHECK_INT(run_cmd(cmd_compare, &err, 8, "compare", base, same, "-o", dir, "--no-render", "--reps", reps), 0);
    CHECK(err && strstr(err, "WARNING: the files differ in gpu_name") && strstr(err, "differ in driver_version"));
    free(err);
    md = slurp(path, NULL);
    CHECK(md && line_of(md, "> **WARNING — THESE FILES ARE NOT LIKE FOR LIKE:**") > 0 &&
          line_of(md, "> **WARNING — THESE FILES ARE NOT LIKE FOR LIKE:**") <= 15);
    free(md);
    o = fixture_defaults();
    o.backend = "cpu";
    write_fixture(same, &o);
    CHECK_INT(run_cmd(cmd_compare, &err, 8, "compare", base, same, "-o", dir, "--no-render", "--reps", reps), 0);
    CHECK(err && strstr(err, "differ in backend: BASE 'cuda', OTHER 'cpu'"));
    free(err);

    /* Nothing in common: one line, exit 2, no directory made. */
    char a[4200], b[4200], none[4200];
    o = fixture_defaults();
    o.only_families = 1u << RB_FAM_LC_LAUNCH;
    path_in(a, sizeof a, "only lc.h5");
    write_fixture(a, &o);
    o.only_families = 1u << RB_FAM_LATENCY;
    path_in(b, sizeof b, "only latency.h5");
    write_fixture(b, &o);
    path_in(none, sizeof none, "nothing in common");
    CHECK_INT(run_cmd(cmd_compare, &err, 5, "compare", a, b, "-o", none), 2);
    CHECK(err && count_lines(err) == 1 && strstr(err, "share no pairable rows"));
    free(err);
    CHECK(!exists(none));
}

// --- damaged, foreign, newer, usage -------------------------------------------------------------------------

static void expect_refusal(const char *what, const char *file, const char *expect)
{
    char dir[4200], valid[4200];
    char *err = NULL;
    path_in(dir, sizeof dir, "refused out");
    path_in(valid, sizeof valid, "valid.h5");
    CHECK_MSG(run_cmd(cmd_report, &err, 5, "report", file, "-o", dir, "--no-render") == 2, "report %s", what);
    CHECK_MSG(err && count_lines(err) == 1 && strstr(err, expect), "report %s: '%s'", what, err ? err : "");
    free(err);
    CHECK_MSG(run_cmd(cmd_compare, &err, 6, "compare", valid, file, "-o", dir, "--no-render") == 2, "compare %s", what);
    CHECK_MSG(err && count_lines(err) == 1 && strstr(err, expect), "compare %s: '%s'", what, err ? err : "");
    free(err);
    CHECK_MSG(!exists(dir), "%s: an output directory was made", what);
}

static void case_damaged(void)
{
    char valid[4200], path[4200];
    size_t len = 0;
    path_in(valid, sizeof valid, "valid.h5");
    fixture_opts o = fixture_defaults();
    o.only_families = 1u << RB_FAM_CB_READ | 1u << RB_FAM_LATENCY;
    write_fixture(valid, &o);
    char *data = slurp(valid, &len);
    CHECK(data != NULL && len > 4096);
    if (data == NULL)
        return;

    path_in(path, sizeof path, "text 'file'.h5");
    FILE *f = fopen(path, "w");
    fputs("family,p50\nlatency,2.5\n", f);
    fclose(f);
    expect_refusal("a text file", path, "not an HDF5 file");

    path_in(path, sizeof path, "truncated \"copy\".h5");
    size_t cuts[] = {100, len / 3, len / 2, len - 100};
    for (size_t i = 0; i < 4; i++) {
        f = fopen(path, "wb");
        fwrite(data, 1, cuts[i], f);
        fclose(f);
        expect_refusal("a truncated file", path, "truncated");
    }

    path_in(path, sizeof path, "missing.h5");
    expect_refusal("a missing file", path, "No such file");

    /* A newer schema: the valid file with its version attribute raised. */
    path_in(path, sizeof path, "newer schema.h5");
    f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    hid_t h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t a = H5Aopen(h, RB_H5_ATTR_SCHEMA, H5P_DEFAULT);
    int version = RB_SCHEMA_VERSION + 1;
    CHECK(H5Awrite(a, H5T_NATIVE_INT, &version) >= 0);
    H5Aclose(a);
    H5Fclose(h);
    expect_refusal("a newer schema", path, "newer ringbench");
    free(data);

    /* Usage errors are exit 2 with one line; --help is exit 0. */
    char *err = NULL;
    CHECK_INT(run_cmd(cmd_report, &err, 1, "report"), 2);
    CHECK(err && strstr(err, "expected 1 results file"));
    free(err);
    CHECK_INT(run_cmd(cmd_report, NULL, 3, "report", valid, "--bogus"), 2);
    CHECK_INT(run_cmd(cmd_compare, NULL, 2, "compare", valid), 2);
    CHECK_INT(run_cmd(cmd_compare, NULL, 5, "compare", valid, valid, "--seed", "x"), 2);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    int help = cmd_report(2, (char *[]){"report", "--help", NULL});
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(devnull);
    close(saved);
    CHECK_INT(help, 0);
}

// --- paths with spaces and quotes; nothing outside DIR --------------------------------------------------------

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void case_paths(void)
{
    char sub[4200], file[4400], out[4400], path[4600];
    path_in(sub, sizeof sub, "odd 'dir' \"with\" $(quotes) & spaces");
    CHECK(mkdir(sub, 0755) == 0 || errno == EEXIST);
    snprintf(file, sizeof file, "%s/run \"1\" it's.h5", sub);
    fixture_opts o = fixture_defaults();
    o.only_families = 1u << RB_FAM_LATENCY | 1u << RB_FAM_CB_READ | 1u << RB_FAM_BASE_FLOOR;
    write_fixture(file, &o);
    /* Default DIR: next to the file, "<stem>-report"; rendered when gnuplot is here. */
    if (have_gnuplot())
        CHECK_INT(run_cmd(cmd_report, NULL, 4, "report", file, "--reps", reps), 0);
    else
        CHECK_INT(run_cmd(cmd_report, NULL, 5, "report", file, "--no-render", "--reps", reps), 0);
    snprintf(out, sizeof out, "%s/run \"1\" it's-report", sub);
    snprintf(path, sizeof path, "%s/report.md", out);
    CHECK_MSG(exists(path), "no %s", path);
    if (have_gnuplot()) {
        snprintf(path, sizeof path, "%s/latency.png", out);
        CHECK(exists(path));
    }
    CHECK_INT(count_entries(sub), 2); /* the file and its report directory: nothing else */

    /* -o with a nested, not yet existing directory: mkdir -p. */
    snprintf(out, sizeof out, "%s/a b/c 'd'/e", sub);
    CHECK_INT(run_cmd(cmd_compare, NULL, 8, "compare", file, file, "-o", out, "--no-render", "--reps", reps), 0);
    snprintf(path, sizeof path, "%s/compare.md", out);
    CHECK(exists(path));
    CHECK_INT(count_entries(sub), 3);
}

// --- no gnuplot on PATH --------------------------------------------------------------------------------------

static void case_nognuplot(void)
{
    char file[4200], dir[4200], empty[4200], path[4300];
    char *err = NULL;
    path_in(file, sizeof file, "plain.h5");
    path_in(dir, sizeof dir, "plain out");
    path_in(empty, sizeof empty, "empty bin");
    CHECK(mkdir(empty, 0755) == 0 || errno == EEXIST);
    fixture_opts o = fixture_defaults();
    o.only_families = 1u << RB_FAM_LATENCY | 1u << RB_FAM_THROUGHPUT;
    write_fixture(file, &o);
    setenv("PATH", empty, 1);
    CHECK_INT(run_cmd(cmd_report, &err, 6, "report", file, "-o", dir, "--reps", reps), 0);
    CHECK(err && count_lines(err) == 1 && strstr(err, "WARNING: gnuplot not found on PATH"));
    free(err);
    snprintf(path, sizeof path, "%s/latency.gp", dir);
    CHECK(exists(path));
    snprintf(path, sizeof path, "%s/latency.png", dir);
    CHECK(!exists(path));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

// --- trials: schema-2 files, trial-level intervals --------------------------------------------------------

/* Counts the verdict tokens of compare_pairs.dat, and checks every fallback-latency pair against a known
 * overhead when want != 0. */
static void count_pairs(const char *dir, int *same, int *total, double want)
{
    int checked = 0, covered = 0;
    char path[4300];
    snprintf(path, sizeof path, "%s/compare_pairs.dat", dir);
    char *dat = slurp(path, NULL), fb[128];
    mode_spec m = mode_wsl2_fallback();
    mode_label(&m, fb, sizeof fb);
    *same = *total = 0;
    CHECK(dat != NULL);
    for (char *line = dat; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char fam[64], mode[128], verdict[32];
        unsigned long long size;
        double a, b, est, lo, hi;
        if (line[0] != '#' && sscanf(line, "%63s %127s %llu %lf %lf %lf %lf %lf %31s", fam, mode, &size, &a, &b, &est,
                                     &lo, &hi, verdict) == 9) {
            (*total)++;
            *same += strcmp(verdict, "same") == 0;
            if (want != 0 && strcmp(fam, rb_family_name(RB_FAM_LATENCY)) == 0 && strcmp(mode, fb) == 0) {
                CHECK_MSG(strcmp(verdict, "slower") == 0, "fallback latency %llu: %s", size, verdict);
                checked++;
                covered += lo <= want && want <= hi;
            }
        }
        line = end ? end + 1 : NULL;
    }
    free(dat);
    /* Each 95% interval misses the truth 1 time in 20 (the runs' own drift is part of what it covers),
     * so of 7 sizes one or two may miss; three or more would be a 1-in-250 event. */
    if (want != 0) {
        printf("known %+.0f%% on the fallback's latency: inside the interval at %d of %d sizes\n", 100 * want, covered,
               checked);
        CHECK_MSG(checked == FIXTURE_NSIZES && covered >= checked - 2, "%d of %d intervals cover", covered, checked);
    }
}

static void case_trials(void)
{
    char a[4200], b[4200], inj[4200], dir[4200], path[4300];
    int same, total;
    path_in(a, sizeof a, "trials a.h5");
    path_in(b, sizeof b, "trials b.h5");
    path_in(inj, sizeof inj, "trials injected.h5");
    path_in(dir, sizeof dir, "trials out");
    /* Two runs of one machine: the same true medians, 5 trials each, trials disagreeing by ~3% (a
     * drift shared by every row of a round, and a part of their own). */
    fixture_opts o = fixture_defaults();
    o.trials = 5;
    o.trial_sd = 0.03;
    write_fixture(a, &o);
    o.seed = 2;
    write_fixture(b, &o);
    o.seed = 3;
    o.fallback_latency = 1.25;
    write_fixture(inj, &o);

    /* A/A: at least 95% of the cells "same within noise" (the goal for two runs). */
    CHECK_INT(run_cmd(cmd_compare, NULL, 8, "compare", a, b, "-o", dir, "--no-render", "--reps", reps), 0);
    count_pairs(dir, &same, &total, 0);
    printf("A/A compare of two 5-trial files: %d of %d pairs same within noise\n", same, total);
    CHECK_MSG(total > 500 && same >= 0.95 * total, "%d of %d same", same, total);
    snprintf(path, sizeof path, "%s/compare.md", dir);
    char *md = slurp(path, NULL);
    CHECK(md && strstr(md, "p95 \\|Δp50\\|") && strstr(md, "same within noise;"));
    free(md);

    /* A known 25% on the fallback's latency is found, inside its interval, and called slower. */
    CHECK_INT(run_cmd(cmd_compare, NULL, 8, "compare", a, inj, "-o", dir, "--no-render", "--reps", reps), 0);
    count_pairs(dir, &same, &total, 0.25);
    md = slurp(path, NULL);
    CHECK(md && strstr(md, "| slower | trials k=5/5 |"));
    free(md);

    /* Within one file the fallback is compared with the native path round by round. */
    CHECK_INT(run_cmd(cmd_report, NULL, 7, "report", a, "-o", dir, "--no-render", "--reps", reps), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    md = slurp(path, NULL);
    CHECK(md && strstr(md, "| trials k=5/5 paired |"));
    free(md);

    /* --min-effect: a 25% overhead is not "slower" when 30% is asked for, and bad values are refused. */
    CHECK_INT(run_cmd(cmd_compare, NULL, 10, "compare", a, inj, "-o", dir, "--no-render", "--reps", reps,
                      "--min-effect", "30"),
              0);
    count_pairs(dir, &same, &total, 0);
    CHECK_INT(same, total);
    CHECK_INT(run_cmd(cmd_compare, NULL, 8, "compare", a, inj, "-o", dir, "--no-render", "--min-effect", "x"), 2);
}

// --- slow trials (issue 18) -------------------------------------------------------------------------------

/* The "Slow trials" row of the ring cells at one size, from report.md. */
static const char *slow_line(const char *md, const char *size)
{
    char key[64];
    snprintf(key, sizeof key, "| ring | %s |", size);
    const char *sec = md ? strstr(md, "## Slow trials") : NULL;
    return sec ? strstr(sec, key) : NULL;
}

/* case_windows' fixtures: the report of a fixture with fixture_opts.windows = windows, written to file and dir;
 * returns report.md (path) as text, or NULL. */
static char *windows_report(int windows, const char *file, const char *dir, const char *path)
{
    fixture_opts o = fixture_defaults();
    o.windows = windows;
    write_fixture(file, &o);
    CHECK_INT(run_cmd(cmd_report, NULL, 5, "report", file, "-o", dir, "--no-render"), 0);
    return slurp(path, NULL);
}

/* The window table's last word (issue 19): a window slower than a smaller one is listed, beyond noise
 * where its interval lies wholly below the smaller window's; here W = 256 at 4 MiB (15 % under W = 8)
 * and, within noise, at 8 B (1 %), and nothing else. */
static void case_window_order(const char *file, const char *dir, const char *path)
{
    char *md = windows_report(3, file, dir, path);
    const char *sec = md ? strstr(md, "Windows slower than a smaller one") : NULL;
    CHECK_MSG(sec != NULL, "no list of slower windows in %s", path);
    const char *big = sec ? strstr(sec, "- 4 MiB: W = 256,") : NULL,
               *small = sec ? strstr(sec, "- 8 B: W = 256,") : NULL;
    const char *big_eol = big ? strchr(big, '\n') : NULL, *small_eol = small ? strchr(small, '\n') : NULL;
    const char *beyond = big ? strstr(big, " (-1") : NULL, *bn = big ? strstr(big, "beyond noise") : NULL;
    double pct = 0;
    CHECK_MSG(beyond && sscanf(beyond, " (%lf", &pct) == 1 && pct < -10 && pct > -20, "4 MiB: %.4g %%, expected -15",
              pct);
    const char *wn = small ? strstr(small, "within noise") : NULL;
    CHECK_MSG(big && big_eol && beyond && bn && beyond < big_eol && bn < big_eol, "4 MiB: %.160s",
              big ? big : "(none)");
    CHECK_MSG(small && small_eol && wn && wn < small_eol, "8 B: %.160s", small ? small : "(none)");
    /* The list runs from the blank line after its heading to the next blank line. */
    const char *list = sec ? strstr(sec, "\n\n") : NULL, *end = list ? strstr(list + 2, "\n\n") : NULL;
    int items = 0;
    for (const char *l = list; l && (l = strstr(l, "\n- ")) != NULL && (!end || l < end); l += 3)
        items++;
    CHECK_MSG(items == 2, "%d windows listed as slower, expected 2", items);
    free(md);
}

/* The window table (issue 19): with throughput at windows 1, 8 and 256 growing as sqrt(W), each row's
 * "of W x W1" is its rate against W times the same mode's rate at W = 1, capped by its rate at the
 * widest window: 100 % at W = 1 and 256 (the cap), 1 / sqrt(8) at W = 8 within the fixture's noise.
 * "share" sets the same rate against W over the latency round trip, another figure. Without window 1
 * the column says n/a, never the rate against the full window's. */
static void case_windows(void)
{
    char file[4200], dir[4200], path[4300];
    path_in(file, sizeof file, "win.h5");
    path_in(dir, sizeof dir, "win-report");
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = windows_report(1, file, dir, path);
    const char *sec = md ? strstr(md, "## Throughput against window") : NULL;
    CHECK_MSG(sec != NULL, "no window table in %s", path);
    if (sec == NULL) {
        free(md);
        return;
    }
    CHECK(strstr(sec, "| share | of W x W1 |") != NULL);
    int rows = 0, eights = 0;
    for (const char *l = strchr(sec, '\n'); l && strncmp(l + 1, "## ", 3) != 0; l = strchr(l + 1, '\n')) {
        unsigned long long w;
        double best, bound, share, scaling;
        /* | size | window | `mode` | best | bound | share% | of W x W1% | ... */
        const char *p = l + 1;
        if (*p != '|' || !isdigit((unsigned char)p[2]))
            continue;
        p = strchr(p + 1, '|');
        if (p == NULL ||
            sscanf(p, "| %llu | `%*[^`]` | %lf | %lf | %lf%% | %lf%% |", &w, &best, &bound, &share, &scaling) != 5)
            continue;
        rows++;
        if (w == 8) {
            eights++;
            CHECK_MSG(fabs(scaling - 100 / sqrt(8.0)) < 3, "W = 8: %.4g %% of W x W1, expected %.4g", scaling,
                      100 / sqrt(8.0));
            CHECK_MSG(fabs(share - scaling) > 1, "W = 8: share %.4g %% is the scaling figure", share);
        } else
            CHECK_MSG(fabs(scaling - 100) < 1e-9, "W = %llu: %.4g %% of W x W1, expected 100", w, scaling);
    }
    CHECK_MSG(eights == FIXTURE_NSIZES && rows == 3 * FIXTURE_NSIZES, "window table: %d rows, %d at W = 8", rows,
              eights);
    CHECK_MSG(strstr(sec, "No window is slower than a smaller one") != NULL, "rates that grow with W: %.300s", sec);
    free(md);

    md = windows_report(2, file, dir, path);
    sec = md ? strstr(md, "## Throughput against window") : NULL;
    const char *row = sec ? strstr(sec, "| 8 B | 8 |") : NULL;
    const char *eol = row ? strchr(row, '\n') : NULL, *na = row ? strstr(row, "% | n/a% |") : NULL;
    CHECK_MSG(row && na && eol && na < eol, "without window 1, 8 B at W = 8 reads %.120s", row ? row : "(no row)");
    free(md);
    case_window_order(file, dir, path);
}

/* Round 0 of every latency cell at 256 KiB runs 2x slow with 800 ms/s of steal: the report counts
 * exactly those trials as slow at that size, none elsewhere, shows their steal beside the others', and
 * the slow share of the trials with steal apart from that of the trials without. */
static void case_slowtrials(void)
{
    char a[4200], dir[4200], path[4300];
    path_in(a, sizeof a, "slow trials.h5");
    path_in(dir, sizeof dir, "slow trials out");
    fixture_opts o = fixture_defaults();
    o.trials = 5;
    o.trial_sd = 0.01;
    o.slow_trial = 2.0;
    write_fixture(a, &o);
    size_t cells = 0;
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        cells += !mode_invalid_reason(&m) && !fixture_unsupported(&m);
    }
    CHECK_INT(run_cmd(cmd_report, NULL, 7, "report", a, "-o", dir, "--no-render", "--reps", reps), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path, NULL);
    const char *l256 = slow_line(md, "256 KiB"), *l8 = slow_line(md, "8 B");
    char want[128];
    /* Each latency cell has 5 trials; the throughput cells beside them are not slowed. */
    snprintf(want, sizeof want, "| ring | 256 KiB | %zu | %zu | **", 5 * cells * 2, cells);
    CHECK_MSG(l256 && strncmp(l256, want, strlen(want)) == 0, "wanted '%s', got '%.80s'", want, l256 ? l256 : "");
    CHECK_MSG(l256 && strstr(l256, "| 800 / 0 | 100 / 0 |"), "steal not beside: '%.160s'", l256 ? l256 : "");
    /* The slow trials are exactly the ones with steal: all of those slow, none of the others. */
    snprintf(want, sizeof want, "| 100.0%% of %zu / 0.0%% of %zu |", cells, 5 * cells * 2 - cells);
    CHECK_MSG(l256 && strstr(l256, want), "wanted '%s' in '%.160s'", want, l256 ? l256 : "");
    snprintf(want, sizeof want, "| ring | 8 B | %zu | 0 | 0.0%% | - / 0.0%% of %zu |", 5 * cells * 2, 5 * cells * 2);
    CHECK_MSG(l8 && strncmp(l8, want, strlen(want)) == 0, "wanted '%s', got '%.80s'", want, l8 ? l8 : "");
    free(md);
}

// --- two modes (issue 18) ---------------------------------------------------------------------------------

/* The report's or comparison's "Cells with two modes" line of the 8 B native latency cell. */
static const char *modes_line(const char *md)
{
    return md ? strstr(md, "| latency | `pinned/async/coop/mapped` | 8 B |") : NULL;
}

/* A cell whose samples have two modes is recorded so in the file (the fixture writes the columns as a
 * run does), and report and compare list it with both modes and the slow share, from those columns;
 * a file without such a cell says there is none. */
static void case_modes(void)
{
    char a[4200], b[4200], plain[4200], dir[4200], path[4300], err[512];
    path_in(a, sizeof a, "modes a.h5");
    path_in(b, sizeof b, "modes b.h5");
    path_in(plain, sizeof plain, "modes none.h5");
    path_in(dir, sizeof dir, "modes out");
    fixture_opts o = fixture_defaults();
    o.trials = 5;
    o.trial_sd = 0.03;
    write_fixture(plain, &o);
    o.slow_share = 0.3;
    write_fixture(a, &o);
    o.seed = 2;
    write_fixture(b, &o);

    h5in *r = NULL;
    CHECK_MSG(h5in_open(a, &r, err, sizeof err) == 0, "%s", err);
    size_t bimodal = 0;
    for (size_t i = 0; r != NULL && i < h5in_nrows(r); i++) {
        const rb_row *row = h5in_row(r, i);
        if (row->bimodal != 1)
            continue;
        bimodal++;
        CHECK_STR(row->family, "latency");
        CHECK(row->size_bytes == 8 && strcmp(row->ctrl, "mapped") == 0);
        const double ratio = row->mode_slow / row->mode_fast;
        CHECK_MSG(ratio > 0.9 * FIXTURE_SLOW_MODE && ratio < 1.1 * FIXTURE_SLOW_MODE, "modes %g %g", row->mode_fast,
                  row->mode_slow);
        CHECK_MSG(fabs(row->slow_share - 0.3) < 0.05, "slow share %g", row->slow_share);
    }
    CHECK_INT(bimodal, 1);
    h5in_close(r);

    CHECK_INT(run_cmd(cmd_report, NULL, 7, "report", a, "-o", dir, "--no-render", "--reps", reps), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path, NULL);
    CHECK(md && strstr(md, "\n## Cells with two modes\n"));
    CHECK_MSG(modes_line(md) != NULL, "report.md lacks the bimodal cell");
    free(md);

    CHECK_INT(run_cmd(cmd_compare, NULL, 8, "compare", a, b, "-o", dir, "--no-render", "--reps", reps), 0);
    snprintf(path, sizeof path, "%s/compare.md", dir);
    md = slurp(path, NULL);
    CHECK(md && strstr(md, "## Cells with two modes in "));
    CHECK_MSG(modes_line(md) != NULL, "compare.md lacks the bimodal cell");
    free(md);

    CHECK_INT(run_cmd(cmd_report, NULL, 7, "report", plain, "-o", dir, "--no-render", "--reps", reps), 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    md = slurp(path, NULL);
    CHECK(md && strstr(md, "None: no time cell's samples split into two modes."));
    CHECK(md && modes_line(md) == NULL);
    free(md);
}

// --- hostile files: long texts, a trial without samples (issue 22) --------------------------------------

/* A text of n copies of c (static buffers, two in flight). */
static const char *long_text(char c, size_t n)
{
    static char bufs[2][2048];
    static int next;
    char *b = bufs[next++ % 2];
    if (n >= sizeof bufs[0])
        n = sizeof bufs[0] - 1;
    memset(b, c, n);
    b[n] = '\0';
    return b;
}

/* A file with one ok latency cell of two trials, the first of which kept no samples. */
static void write_empty_trial(const char *path)
{
    char err[512] = "";
    h5out *w = NULL;
    double s[50];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    for (int t = 0; t < 2; t++) {
        rb_trial tr;
        memset(&tr, 0, sizeof tr);
        snprintf(tr.family, sizeof tr.family, "latency");
        snprintf(tr.host_mem, sizeof tr.host_mem, "pinned");
        snprintf(tr.xfer, sizeof tr.xfer, "async");
        snprintf(tr.launch, sizeof tr.launch, "coop");
        snprintf(tr.ctrl, sizeof tr.ctrl, "mapped");
        snprintf(tr.status, sizeof tr.status, "%s", RB_STATUS_OK);
        tr.size_bytes = 8;
        tr.window = 1;
        tr.trial = t;
        for (int k = 0; k < 50; k++)
            s[k] = 10.0 + k * 0.01;
        CHECK_MSG(h5out_append_trial(w, &tr, s, t == 0 ? 0 : 50) == 0, "%s", h5out_error(w));
    }
    rb_row row;
    memset(&row, 0, sizeof row);
    bimodal_row_clear(&row);
    snprintf(row.backend, sizeof row.backend, "cpu");
    snprintf(row.family, sizeof row.family, "latency");
    snprintf(row.host_mem, sizeof row.host_mem, "pinned");
    snprintf(row.xfer, sizeof row.xfer, "async");
    snprintf(row.launch, sizeof row.launch, "coop");
    snprintf(row.ctrl, sizeof row.ctrl, "mapped");
    snprintf(row.status, sizeof row.status, "%s", RB_STATUS_OK);
    snprintf(row.unit, sizeof row.unit, "us");
    snprintf(row.ci_method, sizeof row.ci_method, "%s", RB_CI_TRIALS);
    row.size_bytes = 8;
    row.window = 1;
    row.trials = 2;
    row.n = 50;
    row.p50 = row.min = row.mean = 10.25;
    row.ci_lo = row.ci_hi = NAN;
    CHECK_MSG(h5out_append(w, &row, NULL, 0) == 0, "%s", h5out_error(w));
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

static void case_hostile(void)
{
    char a[4200], b[4200], dir[4200], md[4400];
    char *err = NULL;
    /* D1: provenance texts of 1000 characters that differ between the files: compare crashed when
     * they filled its warning list. Every warning line must come out whole. */
    path_in(a, sizeof a, "long texts A.h5");
    path_in(b, sizeof b, "long texts B.h5");
    path_in(dir, sizeof dir, "long texts compare");
    fixture_opts o = fixture_defaults();
    o.only_families = 1u << RB_FAM_CB_READ | 1u << RB_FAM_LATENCY;
    o.gpu_name = long_text('A', 1000);
    o.driver_version = long_text('D', 1000);
    write_fixture(a, &o);
    o.gpu_name = long_text('B', 1000);
    o.driver_version = long_text('E', 1000);
    write_fixture(b, &o);
    CHECK_INT(run_cmd(cmd_compare, &err, 6, "compare", a, b, "-o", dir, "--no-render"), 0);
    int warnings = 0;
    for (const char *s = err; s && (s = strstr(s, "WARNING: the files differ in")) != NULL; s++)
        warnings++;
    CHECK_MSG(warnings == 2, "%d 'differ in' warnings in '%s'", warnings, err ? err : "");
    CHECK_MSG(err && strstr(err, "...") != NULL, "long values are not marked as cut: '%s'", err ? err : "");
    free(err);
    snprintf(md, sizeof md, "%s/compare.md", dir);
    CHECK(exists(md));

    /* D3: a trial that kept no samples (qsort(NULL, 0) under UBSan); report and compare run. */
    path_in(a, sizeof a, "empty trial.h5");
    path_in(dir, sizeof dir, "empty trial report");
    write_empty_trial(a);
    CHECK_INT(run_cmd(cmd_report, NULL, 5, "report", a, "-o", dir, "--no-render"), 0);
    CHECK_INT(run_cmd(cmd_compare, NULL, 6, "compare", a, a, "-o", dir, "--no-render"), 0);
}

// --- the answer and the headline export (issue 52) --------------------------------------------------------

/* `report --answer` prints the answer table and writes nothing; `export --headline` (the library call
 * behind it) writes the headline cells only: a dozen BMF benchmarks, each figure's ratio among them. */
static void case_headline(void)
{
    char file[4200], path[4300], err[512];
    char *out = NULL;
    path_in(file, sizeof file, "headline.h5");
    fixture_opts o = fixture_defaults();
    write_fixture(file, &o);
    run_cmd_stdout = &out;
    CHECK_INT(run_cmd(cmd_report, NULL, 5, "report", file, "--answer", "--reps", reps), 0);
    static const char head[] =
        "Measured at `0123456789ab` on NVIDIA H100 80GB HBM3 · driver 580.65.06 · CUDA 13.0 · 2026-11-22, ";
    CHECK_MSG(out && strncmp(out, head, strlen(head)) == 0, "answer: %.200s", out ? out : "");
    CHECK(out && line_of(out, "| headline figure | native | WSL2 fallback |") == 3);
    CHECK(out && strstr(out, "| control-block read |") && !has_nan(out));
    free(out);
    snprintf(path, sizeof path, "%s/headline-report", work);
    CHECK(!exists(path));

    /* CSV: one line per figure and side, with the ratio beside each. */
    snprintf(path, sizeof path, "%s/headline.csv", work);
    FILE *f = fopen(path, "w");
    CHECK(f && report_headline_export(file, 0, f, err, sizeof err) == 0);
    if (f)
        fclose(f);
    char *csv = slurp(path, NULL);
    CHECK(csv && count_lines(csv) == 1 + 2 * HL_COUNT);
    CHECK(csv && strstr(csv, "\ncb_read,native,pinned/async/coop/mapped,0,") && strstr(csv, "\ncb_read,fallback,"));
    free(csv);

    snprintf(path, sizeof path, "%s/headline.json", work);
    f = fopen(path, "w");
    int rc = f ? report_headline_export(file, 1, f, err, sizeof err) : -1;
    if (f)
        fclose(f);
    char why[256];
    if (!export_format_available(EXPORT_BMF, why, sizeof why)) {
        CHECK(rc == -1 && strstr(err, "jansson"));
        return;
    }
    CHECK_MSG(rc == 0, "export --headline: %s", err);
    char *json = slurp(path, NULL);
    int benchmarks = 0;
    for (const char *p = json; p && (p = strstr(p, "\"headline/")) != NULL; p++)
        benchmarks++;
    CHECK_MSG(benchmarks >= 12 && benchmarks <= 2 * HL_COUNT + HL_COUNT, "%d headline benchmarks", benchmarks);
    CHECK(json && strstr(json, "\"headline/cb_read/native\"") && strstr(json, "\"headline/cb_read/fallback\"") &&
          strstr(json, "\"headline/cb_read/fallback_over_native\"") &&
          strstr(json, "\"headline/round_trip_8B/fastest\""));
    CHECK(json && strstr(json, "\"latency\"") && strstr(json, "\"ratio\"") && strstr(json, "\"lower_value\""));
    free(json);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(
            stderr,
            "usage: %s content|render|compare|damaged|paths|nognuplot|trials|hostile|modes|slowtrials|windows|headline "
            "WORKDIR\n",
            argv[0]);
        return 2;
    }
    snprintf(work, sizeof work, "%s", argv[2]);
    if (mkdir(work, 0755) != 0 && errno != EEXIST) {
        perror(work);
        return 1;
    }
    snprintf(work + strlen(work), sizeof work - strlen(work), "/%s", argv[1]);
    nftw(work, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* a fresh start: the checks count what is made */
    if (mkdir(work, 0755) != 0 && errno != EEXIST) {
        perror(work);
        return 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (strcmp(argv[1], "content") == 0)
        case_content();
    else if (strcmp(argv[1], "render") == 0)
        case_render();
    else if (strcmp(argv[1], "compare") == 0)
        case_compare();
    else if (strcmp(argv[1], "damaged") == 0)
        case_damaged();
    else if (strcmp(argv[1], "paths") == 0)
        case_paths();
    else if (strcmp(argv[1], "nognuplot") == 0)
        case_nognuplot();
    else if (strcmp(argv[1], "trials") == 0)
        case_trials();
    else if (strcmp(argv[1], "hostile") == 0)
        case_hostile();
    else if (strcmp(argv[1], "modes") == 0)
        case_modes();
    else if (strcmp(argv[1], "slowtrials") == 0)
        case_slowtrials();
    else if (strcmp(argv[1], "windows") == 0)
        case_windows();
    else if (strcmp(argv[1], "headline") == 0)
        case_headline();
    else {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    CHECK_DONE();
}
