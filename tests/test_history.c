/* test_history.c - the run history of `ringbench track` on synthetic run files written with h5out.
 *
 *   test_history WORKDIR
 *
 * Checks: a step of 30% injected into one cell of machine A is reported as a regression, with the
 * first run that shows it and the driver change it coincides with, and nothing else is; machine B's
 * runs (values twice as large) are never compared with A's; the first run of a new machine is
 * reported as a new fingerprint; damaged and foreign files in the history are reported and skipped
 * while every other run stays; a deleted and a damaged index are rebuilt from the files; the history
 * page is written. Machine C: a whole-machine shift is no regression (a regression on raw figures),
 * and machine references that move alone are watched, never regressions; a change beyond the shift is
 * called only when the figures as measured confirm it. Machine E: how far they must confirm it
 * (TRACK_RAW_CONFIRM, half the |z| the cell needs) is pinned by two nights either side. Machine F: the
 * change a headline cell "catches" is what tracking catches (2% above it is a regression, 0.8 of it is
 * not), whichever term sets it: the noise beyond the shift, as measured, or the minimum effect. The index
 * takes a latency cell's two modes from its file's schema-4 columns, and only a bimodal latency cell's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "bimodal.h"
#include "h5out.h"
#include "history.h"
#include "track.h"

static char g_work[1024];
static uint64_t g_rng = 12345;
static double g_min_effect = 0.03; /* track's --min-effect, as a fraction */

static double noise(void)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(g_rng >> 11) / 9007199254740992.0 - 0.5) * 0.02; /* +-1% */
}

static void set_str(char *dst, const char *s) { snprintf(dst, RB_NAME_LEN, "%s", s); }

/* A row as add_row appends it: an ok cell of p50 with a +-1% trial-level interval. */
static void fill_row(rb_row *rp, const char *family, const char *const mode[4], uint64_t size, const char *unit,
                     double p50)
{
    rb_row r;
    memset(&r, 0, sizeof r);
    bimodal_row_clear(&r);
    set_str(r.backend, "cpu");
    set_str(r.family, family);
    set_str(r.host_mem, mode[0]);
    set_str(r.xfer, mode[1]);
    set_str(r.launch, mode[2]);
    set_str(r.ctrl, mode[3]);
    r.size_bytes = size;
    r.window = strcmp(family, "throughput") == 0 ? 64 : 1;
    set_str(r.status, RB_STATUS_OK);
    set_str(r.unit, unit);
    set_str(r.stop_rule, "fixed");
    set_str(r.ci_method, RB_CI_TRIALS);
    r.trials = 5;
    r.n = 100;
    r.p50 = r.mean = r.min = r.max = r.p90 = r.p99 = r.p999 = p50;
    r.ci_lo = p50 * 0.99;
    r.ci_hi = p50 * 1.01;
    r.trial_cv = 0.01;
    r.stddev = r.msgs_per_s = r.ratio_floor = r.ratio_memcpy = r.trial_p50_min = r.trial_p50_max = NAN;
    rb_row_calls_clear(&r);
    *rp = r;
}

/* A row as add_row appends it; edit (may be NULL) changes it before it is written. */
static int add_row_edited(h5out *w, const char *family, const char *const mode[4], uint64_t size, const char *unit,
                          double p50, void (*edit)(rb_row *))
{
    rb_row r;
    fill_row(&r, family, mode, size, unit, p50);
    if (edit != NULL)
        edit(&r);
    return h5out_append(w, &r, NULL, 0);
}

static int add_row(h5out *w, const char *family, const char *const mode[4], uint64_t size, const char *unit, double p50)
{
    return add_row_edited(w, family, mode, size, unit, p50, NULL);
}

/* The provenance of a synthetic run of host `host` started at `when` with driver `driver`. */
static void write_provenance(h5out *w, const char *host, const char *when, const char *driver)
{
    const char *kv[][2] = {{"hostname", host},
                           {"backend", "cpu"},
                           {"gpu_name", ""},
                           {"pci_bus_id", ""},
                           {"wsl2", "0"},
                           {"kernel_release", "6.1.0"},
                           {"suite_version", "0.1.0"},
                           {"git_commit", "abc"},
                           {"nvml_driver_version", driver},
                           {"start_utc", when},
                           {"runtime_version", "13000"},
                           {"preset", "default"}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        CHECK(h5out_attr_str(w, RB_H5_PROVENANCE, kv[i][0], kv[i][1]) == 0);
}

/* A synthetic run of host `host` at day `day` with driver `driver`; `step` multiplies the 8 B
 * latency of the native mode. */
static void write_run(const char *path, const char *host, int day, const char *driver, double step)
{
    static const char *const native[4] = {"pinned", "async", "coop", "mapped"};
    static const char *const fallback[4] = {"malloc", "sync", "noncoop", "device"};
    static const char *const none[4] = {"-", "-", "-", "-"};
    h5out *w;
    char err[512], when[64];
    double scale = strcmp(host, "B") == 0 ? 2.0 : 1.0;
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    snprintf(when, sizeof when, "2026-11-%02dT02:00:00Z", day);
    write_provenance(w, host, when, driver);
    CHECK(add_row(w, "base_floor", none, 4, "us", scale * 1.9 * (1 + noise())) == 0);
    CHECK(add_row(w, "latency", native, 8, "us", scale * 23.0 * step * (1 + noise())) == 0);
    CHECK(add_row(w, "latency", fallback, 8, "us", scale * 27.0 * (1 + noise())) == 0);
    CHECK(add_row(w, "latency", native, 4194304, "us", scale * 250.0 * (1 + noise())) == 0);
    CHECK(add_row(w, "throughput", native, 4194304, "GB/s", 44.0 / scale * (1 + noise())) == 0);
    CHECK(add_row(w, "cb_handshake", native, 0, "us", scale * 1.9 * (1 + noise())) == 0);
    CHECK(add_row(w, "cb_handshake", fallback, 0, "us", scale * 12.4 * (1 + noise())) == 0);
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* A synthetic run of machine C: every figure (ring cells and machine references) times `machine`
 * (GB/s divided by it), and the machine references alone times `refs`. */
static void write_run_c(const char *path, int day, double machine, double refs)
{
    static const char *const native[4] = {"pinned", "async", "coop", "mapped"};
    static const char *const fallback[4] = {"malloc", "sync", "noncoop", "device"};
    static const char *const none[4] = {"-", "-", "-", "-"};
    h5out *w;
    char err[512], when[64];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    snprintf(when, sizeof when, "2026-12-%02dT02:00:00Z", day);
    write_provenance(w, "C", when, "580.95");
    const double m = machine, r = machine * refs;
    CHECK(add_row(w, "base_floor", none, 4, "us", r * 1.9 * (1 + noise())) == 0);
    CHECK(add_row(w, "base_launch", none, 8, "us", r * 9.0 * (1 + noise())) == 0);
    for (uint64_t size = 8; size <= 4194304; size *= 64) {
        CHECK(add_row(w, "memcpy_h2d_pinned", none, size, "GB/s", (double)size / 1e4 / r * (1 + noise())) == 0);
        CHECK(add_row(w, "memcpy_d2h_pinned", none, size, "GB/s", (double)size / 1e4 / r * (1 + noise())) == 0);
        CHECK(add_row(w, "latency", native, size, "us", m * (2.0 + (double)size / 1e4) * (1 + noise())) == 0);
        CHECK(add_row(w, "latency", fallback, size, "us", m * (9.0 + (double)size / 2e3) * (1 + noise())) == 0);
    }
    CHECK(add_row(w, "cb_handshake", native, 0, "us", m * 1.9 * (1 + noise())) == 0);
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* Reads a whole file into a malloc'd string. */
static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    char *s = malloc((size_t)n + 1);
    rewind(f);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    return s;
}

/* Tracks path into the history at dir; returns the judgement text (caller frees), sets *regr. */
static char *track_with(const char *dir, const char *path, int raw, int *regr, long long *nruns)
{
    hist *h = NULL;
    char err[1024];
    FILE *notes = tmpfile(), *out = tmpfile();
    track_options o = {TRACK_PARAMS_DEFAULT, 0, raw, 0};
    o.params.min_effect = g_min_effect;
    *regr = -1;
    CHECK_MSG(hist_open(dir, notes, &h, err, sizeof err) == 0, "%s", err);
    if (!h)
        return strdup("");
    long long id;
    int already;
    CHECK_MSG(hist_add(h, path, &id, &already, err, sizeof err) == 0, "%s", err);
    track_night night;
    CHECK_MSG(track_night_judge(h, id, &o, &night, err, sizeof err) == 0, "%s", err);
    track_print_night(out, &night, 1);
    *regr = (int)night.count[TRACK_REGRESSION];
    track_night_free(&night);
    *nruns = hist_nruns(h);
    hist_close(h);
    char *s = slurp(out), *n = slurp(notes);
    fclose(out);
    fclose(notes);
    fputs(n, stdout);
    free(n);
    return s;
}

static char *track(const char *dir, const char *path, int *regr, long long *nruns)
{
    return track_with(dir, path, 0, regr, nruns);
}

/* A fresh copy of the history at from, at to (a night is tracked onto it, from stays as it was). */
static void copy_history(const char *from, const char *to)
{
    char cmd[3500];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", to, from, to);
    CHECK(system(cmd) == 0);
}

/* A change beyond the machine's shift is called only when the figures as measured confirm it: on a
 * night when the machine references alone run 10% faster, the unmoved ring cells are +11% beyond the
 * shift and only watched; a night when the ring alone is 12% slower is a regression both ways. Each
 * night is tracked onto a copy of machine C's quiet history at dir. */
static void test_shift_confirmed(const char *dir)
{
    struct {
        const char *name;
        double machine, refs;
        int regression;
    } nights[] = {{"the machine references alone 10% faster", 1.0, 0.9, 0},
                  {"the ring alone 12% slower", 1.12, 1 / 1.12, 1}};
    for (size_t k = 0; k < sizeof nights / sizeof *nights; k++) {
        char copy[1120], path[1300];
        int regr;
        long long nruns;
        snprintf(copy, sizeof copy, "%.1100s-confirm%zu", dir, k);
        copy_history(dir, copy);
        snprintf(path, sizeof path, "%s/C-confirm%zu.h5", g_work, k);
        write_run_c(path, 13, nights[k].machine, nights[k].refs);
        char *s = track(copy, path, &regr, &nruns);
        if (nights[k].regression) {
            CHECK_MSG(regr > 0, "%s: no regression:\n%s", nights[k].name, s);
            CHECK_MSG(strstr(s, "[headline] [as measured +1") != NULL, "%s: not confirmed as measured:\n%s",
                      nights[k].name, s);
        } else {
            CHECK_MSG(regr == 0, "%s: called a regression:\n%s", nights[k].name, s);
            CHECK_MSG(strstr(s, "[beyond the machine shift only: as measured ") != NULL,
                      "%s: the unconfirmed change is not watched:\n%s", nights[k].name, s);
        }
        free(s);
    }
    /* The night after the references-only night, the ring alone 12% slower: first seen that night, never
     * the night before, which moved beyond the shift only. */
    char copy[1120], path[1300];
    int regr;
    long long nruns;
    snprintf(copy, sizeof copy, "%.1100s-confirm0", dir);
    snprintf(path, sizeof path, "%s/C-confirm-next.h5", g_work);
    write_run_c(path, 14, 1.12, 1 / 1.12);
    char *s = track(copy, path, &regr, &nruns);
    CHECK_MSG(regr > 0 && strstr(s, "first seen in C-confirm-next.h5") != NULL &&
                  strstr(s, "first seen in C-confirm0.h5") == NULL,
              "the slowdown after a references-only night is not first seen on its own night:\n%s", s);
    free(s);
}

/* Twelve quiet nights of machine `host` (write(path, day, 1, 1)) tracked in order into dir: none is a
 * regression. */
static void quiet_nights(const char *dir, const char *host, void (*write)(const char *, int, double, double))
{
    char path[1300];
    int regr;
    long long nruns;
    for (int day = 1; day <= 12; day++) {
        snprintf(path, sizeof path, "%s/%s-day%02d.h5", g_work, host, day);
        write(path, day, 1.0, 1.0);
        free(track(dir, path, &regr, &nruns));
        CHECK_MSG(regr == 0, "%s day %d: a regression in a quiet series", host, day);
    }
}

/* The machine apart from the code: a night when the whole machine is 12% slower (ring cells and
 * machine references alike) is no regression, but is one on raw figures (--raw), and the shift is
 * reported; a night when only the machine references move 40% is no regression either (they are
 * watched, never regressions). */
static void test_machine_shift(void)
{
    char dir[1100], raw_dir[1100], path[1300];
    snprintf(dir, sizeof dir, "%s/history-c", g_work);
    snprintf(raw_dir, sizeof raw_dir, "%s/history-c-raw", g_work);
    int regr;
    long long nruns;
    quiet_nights(dir, "C", write_run_c);
    copy_history(dir, raw_dir);
    test_shift_confirmed(dir);
    snprintf(path, sizeof path, "%s/C-day13.h5", g_work);
    write_run_c(path, 13, 1.12, 1.0);
    char *s = track(dir, path, &regr, &nruns);
    CHECK_MSG(regr == 0, "a whole-machine shift of 12%% was called a regression:\n%s", s);
    CHECK_MSG(strstr(s, "machine shift tonight: +1") != NULL, "the shift is not reported:\n%s", s);
    CHECK_MSG(strstr(s, "cudaMemcpy call shift tonight: none recorded") != NULL,
              "a run without memcpy call costs is given a calls' shift:\n%s", s);
    free(s);
    s = track_with(raw_dir, path, 1, &regr, &nruns);
    CHECK_MSG(regr > 0, "--raw: the 12%% slower ring was not a regression:\n%s", s);
    CHECK_MSG(strstr(s, "[headline]") != NULL, "--raw: no headline cell named:\n%s", s);
    free(s);
    snprintf(path, sizeof path, "%s/C-day14.h5", g_work);
    write_run_c(path, 14, 1.0, 1.4);
    s = track_with(raw_dir, path, 1, &regr, &nruns);
    CHECK_MSG(regr == 0, "machine references alone were called a regression:\n%s", s);
    CHECK_MSG(strstr(s, "[machine reference]") != NULL, "the moved references are not watched:\n%s", s);
    free(s);
}

/* Machine C's references, unmoved, with noise: the floor, a launch, pinned memcpy both ways at 8 B to 4 MiB. */
static void add_quiet_refs(h5out *w)
{
    static const char *const none[4] = {"-", "-", "-", "-"};
    CHECK(add_row(w, "base_floor", none, 4, "us", 1.9 * (1 + noise())) == 0);
    CHECK(add_row(w, "base_launch", none, 8, "us", 9.0 * (1 + noise())) == 0);
    for (uint64_t size = 8; size <= 4194304; size *= 64) {
        CHECK(add_row(w, "memcpy_h2d_pinned", none, size, "GB/s", (double)size / 1e4 * (1 + noise())) == 0);
        CHECK(add_row(w, "memcpy_d2h_pinned", none, size, "GB/s", (double)size / 1e4 * (1 + noise())) == 0);
    }
}

/* A synthetic run of machine G: the machine references of machine C, the four cudaMemcpy call costs
 * times `calls`, the native 8 B latency and handshake, and the fallback's (staged) handshake times
 * `staged`. */
static void write_run_g(const char *path, int day, double calls, double staged)
{
    static const char *const native[4] = {"pinned", "async", "coop", "mapped"};
    static const char *const fallback[4] = {"malloc", "sync", "noncoop", "device"};
    static const char *const none[4] = {"-", "-", "-", "-"};
    static const char *const call[4] = {"call_memcpy_h2d_pinned", "call_memcpy_d2h_pinned", "call_memcpy_h2d_pageable",
                                        "call_memcpy_d2h_pageable"};
    h5out *w;
    char err[512], when[64];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    snprintf(when, sizeof when, "2026-10-%02dT02:00:00Z", day);
    write_provenance(w, "G", when, "580.95");
    add_quiet_refs(w);
    for (int k = 0; k < 4; k++)
        CHECK(add_row(w, call[k], none, 64, "us", calls * (4.0 + k) * (1 + noise())) == 0);
    CHECK(add_row(w, "latency", native, 8, "us", 2.0 * (1 + noise())) == 0);
    CHECK(add_row(w, "cb_handshake", native, 0, "us", 1.9 * (1 + noise())) == 0);
    CHECK(add_row(w, "cb_handshake", fallback, 0, "us", staged * 12.4 * (1 + noise())) == 0);
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* Night 13 of machine `host` (write(path, 13, a, b), file NAME.h5 in g_work) tracked onto a copy of the
 * quiet history at dir (dir-NAME), so that no night becomes another's baseline; returns track's output
 * (the caller frees it) and sets *regr. */
static char *night_on_copy(const char *dir, const char *name, void (*write)(const char *, int, double, double),
                           double a, double b, int *regr)
{
    char copy[1200], path[1300];
    long long nruns;
    snprintf(copy, sizeof copy, "%.1100s-%s", dir, name);
    copy_history(dir, copy);
    snprintf(path, sizeof path, "%s/%s.h5", g_work, name);
    write(path, 13, a, b);
    return track(copy, path, regr, &nruns);
}

/* The staged control block's operations are a few blocking cudaMemcpy calls, so they are judged beyond
 * the shift of those calls, not the machine's (the red night of an H200 series, decision 0034): a night
 * when the four memcpy call costs and the fallback's handshake are 15% slower together, the rest of the
 * machine unmoved, is no regression and the calls' shift is reported; a night when the handshake alone
 * is 15% slower is one, named. */
static void test_calls_shift(void)
{
    char dir[1100];
    int regr;
    snprintf(dir, sizeof dir, "%s/history-g", g_work);
    quiet_nights(dir, "G", write_run_g);
    char *s = night_on_copy(dir, "G-calls", write_run_g, 1.15, 1.15, &regr);
    CHECK_MSG(regr == 0, "the staged handshake moving with the memcpy calls was called a regression:\n%s", s);
    CHECK_MSG(strstr(s, "cudaMemcpy call shift tonight: +1") != NULL, "the calls' shift is not reported:\n%s", s);
    free(s);
    s = night_on_copy(dir, "G-staged", write_run_g, 1.0, 1.15, &regr);
    CHECK_MSG(regr > 0 && strstr(s, "cb_handshake/malloc/sync/noncoop/device") != NULL,
              "the staged handshake alone 15%% slower is not a named regression:\n%s", s);
    free(s);
}

/* Sets a row's best trial to its p50 (a time: the lowest trial median), as the runs of the ring have it. */
static void best_trial_is_p50(rb_row *r) { r->trial_p50_min = r->p50; }

/* A synthetic run of machine W: machine C's references, and the control-block write of two native
 * modes with a mapped control block and three with a managed one, each at its best trial; the write of
 * the first managed mode times `one`, of the other two times `other`. */
static void write_run_w(const char *path, int day, double one, double other)
{
    static const char *const modes[5][4] = {{"pinned", "async", "coop", "mapped"},
                                            {"pinned", "sync", "noncoop", "mapped"},
                                            {"pinned", "async", "coop", "managed"},
                                            {"pinned", "zerocopy", "noncoop", "managed"},
                                            {"malloc", "sync", "coop", "managed"}};
    const double factor[5] = {1.0, 1.0, one, other, other};
    h5out *w;
    char err[512], when[64];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    snprintf(when, sizeof when, "2027-03-%02dT02:00:00Z", day);
    write_provenance(w, "W", when, "580.95");
    add_quiet_refs(w);
    for (int k = 0; k < 5; k++)
        CHECK(add_row_edited(w, "cb_write", modes[k], 0, "us", factor[k] * 0.0038 * (1 + noise()), best_trial_is_p50) ==
              0);
    for (int k = 0; k < 2; k++) /* the 8 B round trip, with best trials: its pool is judged */
        CHECK(add_row_edited(w, "latency", modes[k], 8, "us", 2.3 * (1 + noise()), best_trial_is_p50) == 0);
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* One mode's control-block writes with every trial slow (the red night of an H200 series,
 * docs/decisions/0034-control-block-cells-own-shifts.md):
 * a night when one managed mode's best trial is 50% slower and the other managed modes' are not is
 * watched ("this mode only"), not a regression; a night when every managed mode's is 50% slower is a
 * regression that names them. */
static void test_ctrl_group(void)
{
    char dir[1100];
    int regr;
    snprintf(dir, sizeof dir, "%s/history-w", g_work);
    quiet_nights(dir, "W", write_run_w);
    char *s = night_on_copy(dir, "W-one", write_run_w, 1.5, 1.0, &regr);
    CHECK_MSG(regr == 0, "one managed mode's slow writes were called a regression:\n%s", s);
    CHECK_MSG(strstr(s, "cb_write/pinned/async/coop/managed") != NULL && strstr(s, "[this mode only: ") != NULL,
              "one managed mode's slow writes are not watched as that mode's only:\n%s", s);
    /* Where the round trip's pool is judged it is the fastest mode's headline, and the best single cell is
     * none; the claim's native path's cell is report.md's round trip, a headline of its own. */
    const char *head = strstr(s, "headline cells:"), *end = head ? strstr(head, "\n\n") : NULL;
    const char *pool = head ? strstr(head, "latency/native-best") : NULL,
               *cell = head ? strstr(head, "latency/pinned/sync/noncoop/mapped/") : NULL,
               *claim = head ? strstr(head, "latency/pinned/async/coop/mapped/8B") : NULL;
    CHECK_MSG(end && pool && pool < end && (!cell || cell > end) && claim && claim < end,
              "the round trip's headlines are not its pool and the claim's path's cell:\n%s", s);
    free(s);
    s = night_on_copy(dir, "W-both", write_run_w, 1.5, 1.5, &regr);
    CHECK_MSG(regr > 0 && strstr(s, "cb_write/pinned/async/coop/managed") != NULL &&
                  strstr(s, "cb_write/pinned/zerocopy/noncoop/managed") != NULL && strstr(s, "[this mode only") == NULL,
              "every managed mode's writes 50%% slower is not a regression naming them:\n%s", s);
    free(s);
    /* The pooled headline is the median of the modes' best trials: one mode's trial landing 30% faster
     * than every other (the rare fast trial that moved the best of all trials) does not move it. */
    s = night_on_copy(dir, "W-fast", write_run_w, 0.7, 1.0, &regr);
    const char *imp = strstr(s, "improvements:"), *watch = strstr(s, "watch:");
    const char *hit = imp ? strstr(imp, "cb_write/native-best") : NULL;
    CHECK_MSG(imp && watch && (!hit || hit > watch), "one mode's faster write moved the pooled headline:\n%s", s);
    free(s);
}

/* A control trial's row as a run writes it: window 0, its best trial its p50. */
static void control_row(rb_row *r)
{
    r->window = 0;
    best_trial_is_p50(r);
}

static int g_h_ref_from = 1; /* machine H's runs have host_ref from this day on (an upgrade) */
static int g_h_steady = 0;   /* 1: no night of machine H has the slow host */

/* A synthetic run of machine H, whose host runs some nights 1.5x slower (every host operation, as the
 * lent H100 of a calibration series did for whole stretches): the machine references of machine C, and
 * for two native modes with a mapped control block and two with a managed one the control-block read
 * and write and the host reference measured beside them (host_ref), each at its best trial. Tonight's
 * host is `host` times slower still, and the reads and writes alone `ops` times slower. */
static void write_run_h(const char *path, int day, double host, double ops)
{
    static const char *const modes[4][4] = {{"pinned", "async", "coop", "mapped"},
                                            {"pinned", "zerocopy", "noncoop", "mapped"},
                                            {"pinned", "async", "coop", "managed"},
                                            {"malloc", "sync", "noncoop", "managed"}};
    static const int slow_night[13] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0};
    const double h = host * (slow_night[(day - 1) % 13] && !g_h_steady ? 1.5 : 1.0);
    h5out *w;
    char err[512], when[64];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    snprintf(when, sizeof when, "2027-04-%02dT02:00:00Z", day);
    write_provenance(w, "H", when, "580.95");
    add_quiet_refs(w);
    for (int k = 0; k < 4; k++) {
        CHECK(add_row_edited(w, "cb_read", modes[k], 0, "us", h * ops * 0.0125 * (1 + noise()), control_row) == 0);
        CHECK(add_row_edited(w, "cb_write", modes[k], 0, "us", h * ops * 0.0042 * (1 + noise()), control_row) == 0);
        if (day >= g_h_ref_from)
            CHECK(add_row_edited(w, "host_ref", modes[k], 0, "us", h * 0.0065 * (1 + noise()), control_row) == 0);
    }
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* Native control-block reads and writes are judged beyond the host's shift (host_ref): on machine H,
 * whose quiet history has three nights with the host 1.5x slower, a night with the host 1.5x slower is
 * no regression and the host's shift is reported; a night with the reads and writes alone 12% slower is
 * a regression of both pools, and so is the same on a night with the host 1.5x slower. */
static void test_host_shift(void)
{
    char dir[1100];
    int regr;
    snprintf(dir, sizeof dir, "%s/history-h", g_work);
    quiet_nights(dir, "H", write_run_h);
    char *s = night_on_copy(dir, "H-host", write_run_h, 1.5, 1.0, &regr);
    CHECK_MSG(regr == 0, "a 1.5x slower host was called a regression:\n%s", s);
    const char *line = strstr(s, "host shift tonight: ");
    double shift = line ? strtod(line + strlen("host shift tonight: "), NULL) : NAN;
    CHECK_MSG(shift > 45 && shift < 55, "the host's shift (+50%%) is not reported:\n%s", s);
    free(s);
    s = night_on_copy(dir, "H-ops", write_run_h, 1.0, 1.12, &regr);
    CHECK_MSG(regr > 0 && strstr(s, "cb_write/native-best") != NULL && strstr(s, "cb_read/native-best") != NULL,
              "reads and writes 12%% slower on a steady host are not regressions of both pools:\n%s", s);
    free(s);
    s = night_on_copy(dir, "H-both", write_run_h, 1.5, 1.12, &regr);
    const char *reg = strstr(s, "REGRESSIONS:"), *imp = strstr(s, "improvements:");
    const char *w = reg ? strstr(reg, "cb_write/native-best") : NULL,
               *r = reg ? strstr(reg, "cb_read/native-best") : NULL;
    CHECK_MSG(regr > 0 && w && r && imp && w < imp && r < imp,
              "reads and writes 12%% slower on a 1.5x slower host are not regressions of their pools:\n%s", s);
    CHECK_MSG(strstr(s, "; beyond the host shift]") != NULL,
              "a read or write called beyond the host's shift does not say which shift:\n%s", s);
    free(s);
    /* An upgrade: runs with host_ref in only 3 of the baseline's runs (days 10-12) are judged beyond the
     * machine's shift (a median of so few runs would shift every night by their noise), and say so. */
    g_h_ref_from = 10;
    g_h_steady = 1;
    snprintf(dir, sizeof dir, "%s/history-h-upgrade", g_work);
    quiet_nights(dir, "HU", write_run_h);
    s = night_on_copy(dir, "HU-quiet", write_run_h, 1.0, 1.0, &regr);
    CHECK_MSG(regr == 0 && strstr(s, "host shift tonight: none (host_ref in fewer baseline runs than --min-history)"),
              "a history with host_ref in 3 runs is judged beyond the host's shift:\n%s", s);
    free(s);
    s = night_on_copy(dir, "HU-ops", write_run_h, 1.0, 1.12, &regr);
    CHECK_MSG(regr > 0 && strstr(s, "cb_write/native-best") != NULL,
              "reads and writes 12%% slower after the upgrade are not called:\n%s", s);
    free(s);
    g_h_ref_from = 1;
    g_h_steady = 0;
}

/* A synthetic run of machine E at day `day`, free of noise: the machine references (floor, launch,
 * pinned memcpy both ways at 8 B and 4 MiB) times `refs` (GB/s divided by it), and the one ring cell,
 * the native 8 B latency (so the night's only headline cell), times `ring`. */
static void write_run_e(const char *path, int day, double refs, double ring)
{
    static const char *const native[4] = {"pinned", "async", "coop", "mapped"};
    static const char *const none[4] = {"-", "-", "-", "-"};
    h5out *w;
    char err[512], when[64];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    snprintf(when, sizeof when, "2027-02-%02dT02:00:00Z", day);
    write_provenance(w, "E", when, "580.95");
    CHECK(add_row(w, "base_floor", none, 4, "us", refs * 1.9) == 0);
    CHECK(add_row(w, "base_launch", none, 8, "us", refs * 9.0) == 0);
    for (uint64_t size = 8; size <= 4194304; size *= 524288) {
        CHECK(add_row(w, "memcpy_h2d_pinned", none, size, "GB/s", (double)size / 1e4 / refs) == 0);
        CHECK(add_row(w, "memcpy_d2h_pinned", none, size, "GB/s", (double)size / 1e4 / refs) == 0);
    }
    CHECK(add_row(w, "latency", native, 8, "us", ring * 2.0) == 0);
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* Machine E's quiet history: night `day` (1..E_NIGHTS) the whole machine, ring and references alike,
 * times exp(3.3% x -1, 0 or +1). Beyond the shift the ring never moves; as measured it carries the
 * machine's noise: MAD 3.3%, a spread of 1.4826 x 3.3% = 4.9% (the handshake's as measured on an H100
 * series, track_detect.h TRACK_RAW_CONFIRM), median exactly 1. */
#define E_NIGHTS 12
/* The headline figures of a run of machine E: its one ring cell, the smallest size's round trip, and
 * the same pooled as the native modes' best trial (harness/track_night.c add_pooled_headlines). */
#define E_HEADLINES 2
static double e_machine(int day)
{
    static const int c[E_NIGHTS] = {0, 1, -1, 1, -1, 0, 1, -1, 1, -1, 0, 0};
    return exp(0.033 * c[(day - 1) % E_NIGHTS]);
}

/* The ring factor whose change as measured has |z| = frac x the |z| the night's headline ring cell
 * needs (*thr), from the detector itself: E's ring series as the tracker reads it (p50, trial-level
 * interval of 5 trials unwidened, harness/track_night.c run_figure) judged by track_judge, whose sigma_d does
 * not depend on the newest figure (its own standard error is under the history's spread). */
static double e_raw_factor(double frac, double *thr)
{
    track_point s[E_NIGHTS + 1];
    for (int i = 0; i <= E_NIGHTS; i++) {
        double est = 2.0 * (i < E_NIGHTS ? e_machine(i + 1) : 1.0);
        s[i] = (track_point){est, est * 0.99, est * 1.01};
        track_unwiden_trials_interval(&s[i], 5);
    }
    track_params p = TRACK_PARAMS_DEFAULT;
    track_result r;
    CHECK(track_judge(s, E_NIGHTS + 1, 0, &p, &r) == 0);
    *thr = track_family_threshold(TRACK_ALPHA_HEADLINE, E_HEADLINES, E_NIGHTS);
    double f = exp(frac * *thr * r.sd);
    CHECK_MSG(f - 1 >= 1.2 * p.min_effect, "frac %.2f: %+.1f%% as measured is too close to the minimum effect", frac,
              100 * (f - 1));
    return f;
}

/* TRACK_RAW_CONFIRM itself: on two nights of machine E the references run 8% faster and the ring as
 * measured is slower by more than the minimum effect (3%), so beyond the shift it is far slower (+14%
 * and +17%, z 34 and 40); its |z| as measured is 0.6 x the 2.26 the headline cell needs on one night
 * (+7.3%: a regression) and 0.4 x on the other (+4.8%: watched, beyond the machine shift only). Any
 * factor outside (0.4, 0.6] calls one of them wrongly: at 1.0 the first is watched, at 0.25 the
 * second is a regression (shown when the factor was introduced). */
static void test_raw_confirm_factor(void)
{
    char dir[1100], copy[1120], path[1300], needs[32];
    int regr;
    long long nruns;
    snprintf(dir, sizeof dir, "%s/history-e", g_work);
    for (int day = 1; day <= E_NIGHTS; day++) {
        snprintf(path, sizeof path, "%s/E-day%02d.h5", g_work, day);
        write_run_e(path, day, e_machine(day), e_machine(day));
        free(track(dir, path, &regr, &nruns));
        CHECK_MSG(regr == 0, "machine E day %d: a regression in a quiet series", day);
    }
    const struct {
        double frac;
        int regression;
    } nights[] = {{0.6, 1}, {0.4, 0}};
    for (size_t k = 0; k < sizeof nights / sizeof *nights; k++) {
        double thr, f = e_raw_factor(nights[k].frac, &thr);
        snprintf(copy, sizeof copy, "%.1100s-%zu", dir, k);
        copy_history(dir, copy);
        snprintf(path, sizeof path, "%s/E-raw%02.0f.h5", g_work, 10 * nights[k].frac);
        write_run_e(path, E_NIGHTS + 1, 0.92, f);
        char *s = track(copy, path, &regr, &nruns);
        snprintf(needs, sizeof needs, ", needs %.1f)", thr);
        CHECK_MSG(strstr(s, needs) != NULL, "the headline cell does not need |z| %.2f:\n%s", thr, s);
        const char *tag = strstr(s, "[beyond the machine shift only: as measured +");
        if (nights[k].regression)
            CHECK_MSG(regr == 1 && tag == NULL && strstr(s, "[as measured +") != NULL,
                      "raw |z| %.2f x the %.2f needed (%+.1f%% as measured) is not confirmed:\n%s", nights[k].frac, thr,
                      100 * (f - 1), s);
        else
            CHECK_MSG(regr == 0 && tag != NULL,
                      "raw |z| %.2f x the %.2f needed (%+.1f%% as measured) is not only watched:\n%s", nights[k].frac,
                      thr, 100 * (f - 1), s);
        free(s);
    }
}

/* The catches figure of the headline cells (track_night_catch, printed by plots/track.c): machine F is
 * machine E with the ring's own noise apart from the machine's. Night k moves the ring by exp(own x f_own[k]) beyond
 * the machine, and the whole machine, ring and references alike, by exp(mach x f_mach[k]). The pairs
 * (f_own[k], f_mach[k]) are symmetric under negation, so the ring's baseline median is exactly 2 us both
 * beyond the shift and as measured, and a night whose references are at 1 has a shift of exactly 0. */
static const int f_own[E_NIGHTS] = {1, -1, 0, 1, -1, 0, 0, 0, 1, -1, 1, -1};
static const int f_mach[E_NIGHTS] = {1, -1, 0, -1, 1, 1, -1, 0, 1, -1, 1, -1};

/* One history of machine F: its noise beyond the shift and the machine's, what sets its catches
 * figure (0 the minimum effect, 1 the noise beyond the shift, 2 TRACK_RAW_CONFIRM x the noise as
 * measured), and the minimum effect tracked with (--min-effect). */
typedef struct catches_case {
    const char *name;
    double own, mach;
    int sets;
    double min_effect;
} catches_case;

/* Machine F's references and its ring as measured on night `day` (1..E_NIGHTS; a later night: 1). */
static double f_refs(const catches_case *c, int day) { return day <= E_NIGHTS ? exp(c->mach * f_mach[day - 1]) : 1; }
static double f_ring(const catches_case *c, int day)
{
    return f_refs(c, day) * (day <= E_NIGHTS ? exp(c->own * f_own[day - 1]) : 1);
}

/* The catches figure as print_judgement computes it, from the detector itself: F's ring series as the
 * tracker reads it (run_figure, as in e_raw_factor; the cell is a headline of the report, so each point's
 * standard error is at least TRACK_HEADLINE_FLOOR) with a quiet 13th night, judged as measured and with
 * the machine's shift removed; *sets: which of the three terms is the largest (0, 1, 2 as in
 * catches_case), each checked to be clear of the others by 15%, so that the case exercises its branch. */
static double catches_exact(const catches_case *c, int *sets)
{
    track_point s[E_NIGHTS + 1];
    double shift[E_NIGHTS + 1];
    for (int day = 1; day <= E_NIGHTS + 1; day++) {
        double est = f_ring(c, day) * 2.0;
        s[day - 1] = (track_point){est, est * 0.99, est * 1.01};
        track_unwiden_trials_interval(&s[day - 1], 5);
        track_floor_point(&s[day - 1], TRACK_HEADLINE_FLOOR);
        shift[day - 1] = log(f_refs(c, day));
    }
    track_params p = TRACK_PARAMS_DEFAULT;
    p.min_effect = c->min_effect;
    track_result r, raw;
    CHECK(track_judge(s, E_NIGHTS + 1, 0, &p, &raw) == 0);
    track_remove_shift(s, E_NIGHTS + 1, shift, 0);
    CHECK(track_judge(s, E_NIGHTS + 1, 0, &p, &r) == 0);
    const double thr = track_family_threshold(TRACK_ALPHA_HEADLINE, E_HEADLINES, E_NIGHTS);
    const double term[3] = {p.min_effect, expm1(thr * r.sd), expm1(thr * TRACK_RAW_CONFIRM * raw.sd)};
    *sets = 0;
    for (int k = 1; k < 3; k++)
        *sets = term[k] > term[*sets] ? k : *sets;
    for (int k = 0; k < 3; k++)
        CHECK_MSG(k == *sets || term[*sets] >= 1.15 * term[k],
                  "%s: the terms are too close to tell the branch: min %.2f%%, beyond %.2f%%, as measured %.2f%%",
                  c->name, 100 * term[0], 100 * term[1], 100 * term[2]);
    return term[*sets];
}

/* The line of the ring cell (write_run_e), one of the night's two headlines, in a list of cells. */
#define F_CELL_LINE "\n  latency/pinned/async/coop/mapped/8B "
/* The other: the same cell pooled as the native modes' best trial (harness/track_night.c add_pooled_headlines). */
#define F_POOL_LINE "\n  latency/native-best "

/* The ring cell's catches figure printed in s (whole percent), checked to be the only one: its pool has
 * no figure (machine E's runs have no best trials) and says so; -1: none. */
static int printed_catches(const char *s)
{
    static const char key[] = "catches a change of ";
    const char *hit = NULL;
    int n = 0, pooled = 0, pct = -1;
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
        const char *line = p;
        while (line > s && line[0] != '\n')
            line--;
        n++;
        if (strncmp(line, F_CELL_LINE, strlen(F_CELL_LINE)) == 0)
            hit = p;
        pooled += strncmp(line, F_POOL_LINE, strlen(F_POOL_LINE)) == 0;
    }
    CHECK_MSG(n == 1 && hit && pooled == 0 && strstr(s, F_POOL_LINE) && strstr(s, "no figure tonight"),
              "not exactly one catches figure, the cell's, and its pool without a figure:\n%s", s);
    if (hit == NULL || sscanf(hit + sizeof key - 1, "%d%%", &pct) != 1)
        return -1;
    return pct;
}

/* Night 13 of F's history `dir` (case k) tracked onto a copy named `tag`: the references at 1 (no
 * shift) and the ring times `ring`. Returns the text (caller frees) and *regr. */
static char *catches_night(const char *dir, size_t k, const char *tag, double ring, int *regr)
{
    char copy[1200], path[1300];
    long long nruns;
    snprintf(copy, sizeof copy, "%.1100s-%s", dir, tag);
    copy_history(dir, copy);
    snprintf(path, sizeof path, "%s/F%zu-%s.h5", g_work, k, tag);
    write_run_e(path, E_NIGHTS + 1, 1.0, ring);
    return track(copy, path, regr, &nruns);
}

/* The figure is what tracking catches: on F's history of case k, a night whose ring alone is slower by
 * 2% more than the printed figure X (above its rounding to whole percent) is a regression naming the
 * ring cell, one slower by 0.8 X is not. The printed X is the exact figure rounded. */
static void test_catches_case(const catches_case *c, size_t k)
{
    char dir[1100], path[1300];
    int regr, sets;
    long long nruns;
    snprintf(dir, sizeof dir, "%s/history-f%zu", g_work, k);
    for (int day = 1; day <= E_NIGHTS; day++) {
        snprintf(path, sizeof path, "%s/F%zu-day%02d.h5", g_work, k, day);
        write_run_e(path, day, f_refs(c, day), f_ring(c, day));
        free(track(dir, path, &regr, &nruns));
        CHECK_MSG(regr == 0, "%s: day %d: a regression in a quiet series", c->name, day);
    }
    const double exact = catches_exact(c, &sets);
    CHECK_MSG(sets == c->sets, "%s: the figure is set by term %d, not %d", c->name, sets, c->sets);
    char *s = catches_night(dir, k, "quiet", 1.0, &regr);
    const int pct = printed_catches(s);
    CHECK_MSG(regr == 0 && fabs(pct - 100 * exact) <= 0.5 + 1e-9, "%s: prints %d%%, not %.2f%% rounded:\n%s", c->name,
              pct, 100 * exact, s);
    free(s);
    printf("%s: catches %d%% (exact %.3f%%)\n", c->name, pct, 100 * exact);
    if (pct < 0)
        return;
    const double x = pct / 100.0;
    s = catches_night(dir, k, "above", (1 + x) * 1.02, &regr);
    const char *reg = strstr(s, "REGRESSIONS: 1" F_CELL_LINE);
    CHECK_MSG(regr == 1 && reg != NULL, "%s: a change of %.1f%% (printed %d%%, x 1.02) is not caught:\n%s", c->name,
              100 * ((1 + x) * 1.02 - 1), pct, s);
    free(s);
    s = catches_night(dir, k, "below", 1 + 0.8 * x, &regr);
    CHECK_MSG(regr == 0, "%s: a change of %.1f%% (0.8 x the printed %d%%) is a regression:\n%s", c->name, 80 * x, pct,
              s);
    free(s);
}

/* Four histories, one for each term of the catches figure: the ring's own noise (3%) over the machine's
 * (2%), so that as measured it is noisier but not twice; the machine's (6%) far over the ring's own (1%);
 * both 0.3%, under the headline cell's floor (TRACK_HEADLINE_FLOOR: a quiet machine); and the same
 * tracked with a minimum effect of 10 %, over what the floor allows. */
static void test_catches(void)
{
    static const catches_case cases[] = {{"F: noise beyond the shift", 0.03, 0.02, 1, 0.03},
                                         {"F: the machine's noise as measured", 0.01, 0.06, 2, 0.03},
                                         {"F: quiet, the headline floor", 0.003, 0.003, 1, 0.03},
                                         {"F: quiet, --min-effect 10", 0.003, 0.003, 0, 0.10}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        g_min_effect = cases[k].min_effect;
        test_catches_case(&cases[k], k);
    }
    g_min_effect = 0.03;
}

/* Reads path into a malloc'd string ("" when it cannot be read). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    char *s = slurp(f);
    fclose(f);
    return s;
}

/* The history page of machines A and B (test_history): it opens with the newest run's verdict (B's day
 * 17, green: it started with A's day 17 and was added after it), has each machine's table of nights and one plot per
 * headline figure before the floor (a reference, last), the plots' nights labelled by date and time (not one day for
 * all), and no "nan". */
static void check_page(const char *dir)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/history.md", dir);
    char *md = read_file(path);
    const char *line3 = strchr(md, '\n') ? strchr(strchr(md, '\n') + 1, '\n') : NULL;
    CHECK_MSG(line3 && strncmp(line3 + 1, "**Last night: OK: no regression in ", 35) == 0,
              "history.md does not open with the newest night's verdict:\n%.600s", md);
    CHECK_MSG(strstr(md, "`B-day17.h5`") != NULL, "the newest run is not B's day 17:\n%.600s", md);
    const char *table = strstr(md, "| date (UTC) | commit | run | verdict | regressions |");
    const char *rt = strstr(md, "(plots/m0_round_trip_small.png)"), *floor = strstr(md, "(plots/m0_floor.png)");
    CHECK_MSG(table && rt && floor && table < rt && rt < floor, "history.md: nights, headline plots, floor last:\n%s",
              md);
    CHECK_MSG(strstr(md, "| **REGRESSION** | 1 |") != NULL, "A's regressed nights are not in its table:\n%s", md);
    CHECK_MSG(strstr(md, "nan") == NULL && strstr(md, "NaN") == NULL, "history.md says nan:\n%s", md);
    free(md);
    snprintf(path, sizeof path, "%s/plots/m0_round_trip_small.gp", dir);
    char *gp = read_file(path);
    CHECK_MSG(strstr(gp, "\"11-14 02:00") != NULL && strstr(gp, "\"11-17 02:00") != NULL,
              "the round trip's nights are not labelled by date and time:\n%s", gp);
    free(gp);
}

static void test_history(void)
{
    char dir[1100], path[1300];
    snprintf(dir, sizeof dir, "%s/history", g_work);
    int regr;
    long long nruns = 0;
    char *s;
    /* Machines A and B alternate nights; A's driver changes on day 16 along with a 30% step. */
    for (int day = 1; day <= 17; day++) {
        for (int m = 0; m < 2; m++) {
            const char *host = m ? "B" : "A";
            int stepped = !m && day >= 16;
            snprintf(path, sizeof path, "%s/%s-day%02d.h5", g_work, host, day);
            write_run(path, host, day, stepped ? "590.10" : "580.95", stepped ? 1.3 : 1.0);
            s = track(dir, path, &regr, &nruns);
            if (day == 1 && m == 1)
                CHECK_MSG(strstr(s, "a new machine: no earlier complete run") &&
                              strstr(s, "1 runs of 1 other fingerprints"),
                          "new machine B not reported: %s", s);
            if (day <= 15)
                CHECK_MSG(regr == 0, "day %d host %s: unexpected regression:\n%s", day, host, s);
            if (day == 16 && !m) {
                CHECK_MSG(regr == 1, "the 30%% step was not the one regression:\n%s", s);
                CHECK(strstr(s, "latency/pinned/async/coop/mapped/8B") != NULL);
                CHECK(strstr(s, "driver 580.95 -> 590.10") != NULL);
            }
            if (day == 17 && !m) {
                CHECK_MSG(regr == 1, "day 17: the step is still a regression:\n%s", s);
                CHECK_MSG(strstr(s, "first seen in A-day16.h5") != NULL, "first run not named:\n%s", s);
            }
            if (m == 1)
                CHECK_MSG(regr == 0, "machine B compared with A:\n%s", s);
            free(s);
        }
    }
    CHECK_INT(nruns, 34);

    /* Damaged and foreign files: reported, skipped, every run kept. */
    FILE *f;
    snprintf(path, sizeof path, "%s/garbage.h5", dir);
    f = fopen(path, "w");
    fputs("not an HDF5 file", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    f = fopen(path, "w");
    fputs("hello", f);
    fclose(f);
    char src[1300], cmd[3000];
    snprintf(src, sizeof src, "%s/A-day01.h5", dir);
    snprintf(path, sizeof path, "%s/truncated.h5", dir);
    snprintf(cmd, sizeof cmd, "head -c 3000 '%s' > '%s'", src, path);
    CHECK(system(cmd) == 0);
    hist *h = NULL;
    char err[1024];
    FILE *notes = tmpfile();
    CHECK_MSG(hist_open(dir, notes, &h, err, sizeof err) == 0, "%s", err);
    s = slurp(notes);
    CHECK_MSG(strstr(s, "skipped") && strstr(s, "garbage.h5") && strstr(s, "truncated.h5") && strstr(s, "notes.txt"),
              "damaged/foreign files not reported:\n%s", s);
    free(s);
    fclose(notes);
    CHECK_INT(hist_nruns(h), 34);
    const track_options page_opts = {TRACK_PARAMS_DEFAULT, 0, 0, 0};
    CHECK(track_history_page(h, &page_opts, err, sizeof err) == 0);
    hist_close(h);
    snprintf(path, sizeof path, "%s/history.md", dir);
    CHECK(access(path, R_OK) == 0);
    check_page(dir);

    /* A deleted index is rebuilt from the files. */
    snprintf(path, sizeof path, "%s/%s", dir, HIST_INDEX_NAME);
    CHECK(unlink(path) == 0);
    notes = tmpfile();
    CHECK_MSG(hist_open(dir, notes, &h, err, sizeof err) == 0, "%s", err);
    CHECK_INT(h ? hist_nruns(h) : -1, 34);
    s = slurp(notes);
    CHECK(strstr(s, "building it from the run files") != NULL);
    free(s);
    fclose(notes);
    hist_close(h);

    /* A damaged index is moved aside and rebuilt. */
    f = fopen(path, "r+");
    CHECK(f != NULL);
    if (f) {
        fseek(f, 0, SEEK_SET);
        fputs("this is no longer a SQLite database at all, sorry", f);
        fclose(f);
    }
    CHECK_MSG(hist_open(dir, NULL, &h, err, sizeof err) == 0, "%s", err);
    CHECK_INT(h ? hist_nruns(h) : -1, 34);
    hist_close(h);
    snprintf(path, sizeof path, "%s/%s.damaged", dir, HIST_INDEX_NAME);
    CHECK(access(path, F_OK) == 0);

    /* A file the reader refuses is not tracked (and not copied). */
    snprintf(path, sizeof path, "%s/garbage.h5", dir);
    CHECK(hist_open(dir, NULL, &h, err, sizeof err) == 0);
    long long id;
    int already;
    CHECK(hist_add(h, path, &id, &already, err, sizeof err) == -1);
    CHECK_INT(hist_nruns(h), 34);
    hist_close(h);
}

/* Issue 22: a machine fingerprint longer than any buffer (D2: it was cut, matched no run and
 * runs[-1] was read) and a run without one ok cell (D4: qsort(NULL, 0)) are judged like any other. */
static void test_hostile_runs(void)
{
    char dir[1100], path[1300], host[700], err[512];
    int regr;
    long long nruns = 0;
    snprintf(dir, sizeof dir, "%s/hostile", g_work);
    memset(host, 'H', 600);
    host[600] = '\0';
    for (int day = 1; day <= 2; day++) {
        snprintf(path, sizeof path, "%s/long-day%02d.h5", g_work, day);
        write_run(path, host, day, "580.95", 1.0);
        char *s = track(dir, path, &regr, &nruns);
        if (day == 1)
            CHECK_MSG(strstr(s, "a new machine: no earlier complete run") != NULL, "long fingerprint, first run:\n%s",
                      s);
        else
            CHECK_MSG(strstr(s, "history: 1 earlier runs of this machine") != NULL && strstr(s, "long-day02.h5"),
                      "long fingerprint, second run not judged against the first:\n%s", s);
        CHECK_MSG(regr == 0, "long fingerprint, day %d: %d regressions", day, regr);
        free(s);
    }
    /* A run interrupted before its first cell: one failed row, nothing ok. */
    h5out *w = NULL;
    snprintf(path, sizeof path, "%s/no-ok-cell.h5", g_work);
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    CHECK(h5out_attr_str(w, RB_H5_PROVENANCE, "hostname", "Z") == 0);
    rb_row r;
    memset(&r, 0, sizeof r);
    bimodal_row_clear(&r);
    set_str(r.backend, "cpu");
    set_str(r.family, "latency");
    set_str(r.host_mem, "pinned");
    set_str(r.xfer, "async");
    set_str(r.launch, "coop");
    set_str(r.ctrl, "mapped");
    set_str(r.status, RB_STATUS_FAILED);
    set_str(r.unit, "us");
    r.size_bytes = 8;
    r.window = 1;
    r.p50 = r.min = r.max = r.mean = r.ci_lo = r.ci_hi = NAN;
    CHECK(h5out_append(w, &r, NULL, 0) == 0);
    CHECK_MSG(h5out_close(w, 0, "SIGINT", err, sizeof err) == 0, "%s", err);
    char *s = track(dir, path, &regr, &nruns);
    CHECK_MSG(strstr(s, "unchanged: 0 cells") != NULL && regr == 0, "run without an ok cell:\n%s", s);
    free(s);
}

/* Two modes as a schema-4 file records them (results/bimodal.h). */
static void two_modes(rb_row *r)
{
    r->bimodal = 1;
    r->mode_fast = 2.7;
    r->mode_slow = 8.7;
    r->slow_share = 0.3;
}

/* The index takes a cell's modes from its file's columns, for bimodal ok latency cells only: a
 * unimodal latency cell and a bimodal control-block cell have none (NULL). */
static void test_modes_from_file(void)
{
    static const char *const native[4] = {"pinned", "async", "coop", "mapped"};
    char dir[1100], path[1300], err[512];
    snprintf(dir, sizeof dir, "%s/history-modes", g_work);
    snprintf(path, sizeof path, "%s/modes.h5", g_work);
    h5out *w;
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    if (w == NULL)
        return;
    write_provenance(w, "M", "2026-12-01T02:00:00Z", "580.95");
    CHECK(add_row_edited(w, "latency", native, 8, "us", 2.9, two_modes) == 0);
    CHECK(add_row(w, "latency", native, 64, "us", 3.1) == 0);
    CHECK(add_row_edited(w, "cb_read", native, 0, "us", 0.05, two_modes) == 0);
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);

    hist *h = NULL;
    long long id = 0;
    int already = 0;
    CHECK_MSG(hist_open(dir, NULL, &h, err, sizeof err) == 0, "%s", err);
    if (h == NULL)
        return;
    CHECK_MSG(hist_add(h, path, &id, &already, err, sizeof err) == 0, "%s", err);
    hist_cell *cells = NULL;
    size_t rows = 0;
    CHECK_MSG(hist_run_cells(h, id, &cells, &rows) == 0, "%s", hist_error(h));
    for (size_t k = 0; k < rows; k++) {
        hist_figures *f = NULL;
        size_t nf = 0;
        const int two = strcmp(cells[k].family, "latency") == 0 && cells[k].size == 8;
        CHECK_MSG(hist_cell_series(h, cells[k].cell, &f, &nf) == 0 && nf == 1, "%s", cells[k].cell);
        if (nf != 1) {
            free(f);
            continue;
        }
        const double m[3] = {f->mode_lo, f->mode_hi, f->slow_share};
        for (int c = 0; c < 3; c++)
            CHECK_MSG(isnan(m[c]) == !two, "%s %llu: mode column %d", cells[k].family,
                      (unsigned long long)cells[k].size, c);
        if (two)
            CHECK(m[0] == 2.7 && m[1] == 8.7 && m[2] == 0.3);
        free(f);
    }
    CHECK_INT(rows, 3);
    free(cells);
    hist_close(h);
}

/* The leg of run --window-procs in a run of machine D (write_run_d): leg > 0 adds the throughput_procs
 * cells of two native modes at 8 B, p50 0.5 x leg GB/s, whose processes spread from 0.8 to `spread`
 * times it (trial_p50_min, trial_p50_max); 0 adds none. */
static double g_leg, g_leg_spread = 1.2;

/* A synthetic run of machine D at day `day`: control-block writes and handshakes in three native modes
 * and the fallback's device control block, each cell's best trial 2% under its p50, and throughput at
 * 4 MiB and 8 B at the full window in two native modes. slow[k] multiplies native mode k's write and
 * handshake (k = 3: the fallback's), fast[k] its best trial alone (a mode whose trials land slow but
 * one), win the full window's rate in both, lat the 8 B round trip of two native modes; with g_leg,
 * the leg of --window-procs too. */
static void write_run_d(const char *path, int day, const double slow[4], const double fast[4], double win, double lat)
{
    static const char *const modes[4][4] = {{"pinned", "async", "coop", "mapped"},
                                            {"pinned", "zerocopy", "noncoop", "managed"},
                                            {"malloc", "sync", "coop", "managed"},
                                            {"malloc", "sync", "noncoop", "device"}};
    h5out *w;
    char err[512], when[64];
    CHECK_MSG(h5out_open(path, 1, &w, err, sizeof err) == 0, "%s", err);
    snprintf(when, sizeof when, "2027-01-%02dT02:00:00Z", day);
    write_provenance(w, "D", when, "580.95");
    for (int k = 0; k < 2; k++) {
        rb_row r;
        double p50 = (k ? 2.6 : 2.4) * lat * (1 + noise());
        fill_row(&r, "latency", modes[k], 8, "us", p50);
        r.trial_p50_min = p50 * 0.98;
        r.trial_p50_max = p50 * 1.02;
        CHECK(h5out_append(w, &r, NULL, 0) == 0);
    }
    for (int k = 0; k < 8; k++) {
        rb_row r;
        const int hs = k >= 4; /* the handshakes */
        double p50 = (k % 4 == 3 ? (hs ? 12.4 : 6.5) : (hs ? 1.9 : 0.0040)) * slow[k % 4] * (1 + noise());
        fill_row(&r, hs ? "cb_handshake" : "cb_write", modes[k % 4], 0, "us", p50);
        r.trial_p50_min = p50 * 0.98 * fast[k % 4];
        r.trial_p50_max = p50 * 1.02;
        CHECK(h5out_append(w, &r, NULL, 0) == 0);
    }
    for (int k = 0; k < 2; k++)
        for (int full = 0; full < 2; full++) { /* 4 MiB at W = 64; 8 B at its full window */
            rb_row r;
            double p50 = (full ? 0.5 * win : 20.0) * (1 + noise());
            fill_row(&r, "throughput", modes[k], full ? 8 : 4194304, "GB/s", p50);
            r.window = full ? 4096 : r.window;
            r.trial_p50_min = p50 * 0.98;
            r.trial_p50_max = p50 * 1.02;
            CHECK(h5out_append(w, &r, NULL, 0) == 0);
        }
    for (int k = 0; k < 2 && g_leg > 0; k++) {
        rb_row r;
        double p50 = 0.5 * g_leg * (1 + noise());
        fill_row(&r, "throughput_procs", modes[k], 8, "GB/s", p50);
        r.window = 4096;
        r.trials = r.n = 24;
        r.trial_p50_min = p50 * 0.8;
        r.trial_p50_max = p50 * g_leg_spread;
        CHECK(h5out_append(w, &r, NULL, 0) == 0);
    }
    CHECK_MSG(h5out_close(w, 1, NULL, err, sizeof err) == 0, "%s", err);
}

/* Where the line of cell (a "\n  name " prefix) falls in track's output s after judged: 1 regression,
 * 2 improvement, 3 watch, 0 unchanged or absent. */
static int pooled_kind(const char *s, const char *judged, const char *cell, const char *const section[4])
{
    const char *hit = judged ? strstr(judged, cell) : NULL;
    int kind = 0;
    for (int m = 0; m < 3 && hit; m++)
        if (strstr(s, section[m]) < hit && hit < strstr(s, section[m + 1]))
            kind = m + 1;
    return kind;
}

/* Whether the line of cell (a "\n  name " prefix, its first in judged) carries tag. */
static int line_tagged(const char *judged, const char *cell, const char *tag)
{
    const char *line = judged ? strstr(judged, cell) : NULL;
    const char *eol = line ? strchr(line + 1, '\n') : NULL, *hit = line ? strstr(line, tag) : NULL;
    return hit && (!eol || hit < eol);
}

/* Checks that night's pool on line cell (a "\n  name " prefix) is called want (pooled_kind) and, when it
 * is a regression and tag is set, that its line carries tag. */
static void check_pool(const char *night, const char *s, const char *judged, const char *const section[4],
                       const char *cell, int want, const char *tag)
{
    const int kind = pooled_kind(s, judged, cell, section);
    CHECK_MSG(kind == want, "%s: %s is %d, not %d:\n%s", night, cell + 3, kind, want, s);
    if (kind == 1 && tag)
        CHECK_MSG(line_tagged(judged, cell, tag), "%s: %s is not tagged %s:\n%s", night, cell + 3, tag, s);
}

/* Twelve quiet nights of machine D (write_run_d, nothing slowed), files PREFIX-dayNN.h5 in g_work,
 * tracked in turn into the history dir, none of them a regression. Returns night 12's track output
 * (the caller frees it). */
static char *quiet_nights_d(const char *dir, const char *prefix)
{
    const double one[4] = {1, 1, 1, 1};
    char path[1300], *s = NULL;
    int regr;
    long long nruns;
    for (int day = 1; day <= 12; day++) {
        free(s);
        snprintf(path, sizeof path, "%s/%s-day%02d.h5", g_work, prefix, day);
        write_run_d(path, day, one, one, 1, 1);
        s = track(dir, path, &regr, &nruns);
        CHECK_MSG(regr == 0, "%s day %d: a regression in a quiet series:\n%s", prefix, day, s);
    }
    return s;
}

/* Night 13 of machine D (write_run_d's arguments), file PREFIX-day13-K.h5, tracked against a copy of
 * the history dir (dir-K), so that no night 13 becomes another's baseline. Returns track's output. */
static char *night13_d(const char *dir, const char *prefix, size_t k, const double slow[4], const double fast[4],
                       double win, double lat)
{
    char copy[1120], path[1300];
    int regr;
    long long nruns;
    snprintf(copy, sizeof copy, "%.1100s-%zu", dir, k);
    copy_history(dir, copy);
    snprintf(path, sizeof path, "%s/%s-day13-%zu.h5", g_work, prefix, k);
    write_run_d(path, 13, slow, fast, win, lat);
    return track(copy, path, &regr, &nruns);
}

/* Pooled headline figures: the control-block write is judged, besides each cell, on the best trial of
 * every native mode (cb_write/native-best), and the throughput at the largest size and at the smallest
 * size's full window likewise (the single cells are then no headline). A night
 * when one native mode's trials all land slow, or when only the fallback's device control block is
 * slower, leaves it unchanged; a night when every native mode's writes are 12% slower is a headline
 * regression. */
static void test_pooled_headlines(void)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/history-d", g_work);
    char *s = quiet_nights_d(dir, "D");
    CHECK_MSG(strstr(s, "cb_write/native-best ") != NULL && strstr(s, "cb_handshake/native-best ") != NULL &&
                  strstr(s, "latency/native-best ") != NULL && strstr(s, "throughput/native-best/4 MiB/w64") &&
                  strstr(s, "throughput/native-best/8 B/w4096"),
              "no pooled headline figures:\n%s", s);
    const char *hs = strstr(s, "headline cells:"), *he = hs ? strstr(hs, "\n\n") : NULL;
    const char *single = hs ? strstr(hs, "\n  cb_write/pinned/") : NULL;
    const char *shake = hs ? strstr(hs, "\n  cb_handshake/pinned/") : NULL;
    const char *win = hs ? strstr(hs, "\n  throughput/pinned/") : NULL;
    CHECK_MSG(he && !(single && single < he) && !(shake && shake < he) && !(win && win < he),
              "a single cell is still a headline:\n%s", s);
    free(s);
    /* What the pooled write (or, with win_kind set, the pooled full window) is called each night: 0
     * unchanged, 1 regression, 2 improvement, 3 watch. The full window's pool has a floor of 10 %
     * (TRACK_POOL_FLOOR_WINDOW): every native cell 22.5 % slower, as on a night of one build's series
     * (docs/decisions/0032-pooled-headline-figures.md), is not a regression (with the 6 % floor before, or
     * the 2.5 % of the other pools, it would be), 40 % slower is. */
    struct {
        const char *name;
        double slow[4], fast[4], win, lat;
        int kind, win_kind;
    } nights[] = {
        {"one native mode's trials slow but one", {1.6, 1, 1, 1}, {1 / 1.6, 1, 1, 1}, 1, 1, 0, -1},
        {"the fallback's device control block as fast as native", {1, 1, 1, 0.0006}, {1, 1, 1, 0.9}, 1, 1, 0, -1},
        {"every native mode 12% slower", {1.12, 1.12, 1.12, 1}, {1, 1, 1, 1}, 1, 1.12, 1, -1},
        {"the full window 22.5% slower", {1, 1, 1, 1}, {1, 1, 1, 1}, 0.775, 1, 0, 0},
        {"the full window 40% slower", {1, 1, 1, 1}, {1, 1, 1, 1}, 0.60, 1, 0, 1}};
    static const char *const section[] = {"REGRESSIONS:", "improvements:", "watch:", "unchanged:"};
    for (size_t k = 0; k < sizeof nights / sizeof *nights; k++) {
        s = night13_d(dir, "D", k, nights[k].slow, nights[k].fast, nights[k].win, nights[k].lat);
        const char *judged = strstr(s, "REGRESSIONS:");
        check_pool(nights[k].name, s, judged, section, "\n  cb_write/native-best ", nights[k].kind,
                   "[headline] [median of 3 native cells' best trials] [as measured ");
        /* The handshake's pool is judged as measured, confirmed beyond the shift (add_pooled_headlines). */
        check_pool(nights[k].name, s, judged, section, "\n  cb_handshake/native-best ", nights[k].kind,
                   "[judged as measured; beyond the machine shift ");
        if (nights[k].win_kind >= 0)
            check_pool(nights[k].name, s, judged, section, "\n  throughput/native-best/8 B/w4096 ", nights[k].win_kind,
                       NULL);
        /* So is the round trip's pool: every native 8 B round trip 12% slower is a regression of it. */
        check_pool(nights[k].name, s, judged, section, "\n  latency/native-best ", nights[k].kind,
                   "[best trial of 2 native cells] [judged as measured; beyond the machine shift ");
        free(s);
    }
}

/* A history whose runs have the leg of run --window-procs: the full window's headline is the leg's
 * (throughput_procs/native-best/8 B, the best cell's median over the processes), not the best trial
 * of the run's own full-window cells. A night whose processes spread wider but whose median holds is
 * unchanged (the pool takes the cells' medians, not their fastest process); 12 % slower is a
 * regression, even with the run's own full window unchanged. */
static void test_procs_headline(void)
{
    char dir[1100];
    const double one[4] = {1, 1, 1, 1};
    snprintf(dir, sizeof dir, "%s/history-leg", g_work);
    g_leg = 1;
    char *s = quiet_nights_d(dir, "L");
    const char *hs = strstr(s, "headline cells:"), *he = hs ? strstr(hs, "\n\n") : NULL;
    const char *leg = hs ? strstr(hs, "\n  throughput_procs/native-best/8 B ") : NULL;
    const char *own = hs ? strstr(hs, "\n  throughput/native-best/8 B/") : NULL;
    CHECK_MSG(he && leg && leg < he && !(own && own < he),
              "the leg is not the full window's headline (or the run's own pool still is):\n%s", s);
    free(s);
    static const char *const section[] = {"REGRESSIONS:", "improvements:", "watch:", "unchanged:"};
    const struct {
        const char *name;
        double leg, spread;
        int kind;
    } nights[] = {{"the processes spread to 1.6x, their median holds", 1, 1.6, 0},
                  {"the leg 12% slower", 0.88, 1.2, 1}};
    for (size_t k = 0; k < sizeof nights / sizeof *nights; k++) {
        g_leg = nights[k].leg;
        g_leg_spread = nights[k].spread;
        s = night13_d(dir, "L", k, one, one, 1, 1);
        check_pool(nights[k].name, s, strstr(s, "REGRESSIONS:"), section, "\n  throughput_procs/native-best/8 B ",
                   nights[k].kind, "[headline] [best of 2 native cells, each the median of its processes]");
        free(s);
    }
    g_leg = 0;
    g_leg_spread = 1.2;
}

/* Opens the history at dir with notes into a temporary file; returns the notes (caller frees) and the
 * handle in *h (NULL when hist_open failed, err says why). */
static char *open_noted(const char *dir, hist **h, char *err, size_t errlen)
{
    FILE *notes = tmpfile();
    *h = NULL;
    if (hist_open(dir, notes, h, err, errlen) != 0)
        *h = NULL;
    char *n = slurp(notes);
    fclose(notes);
    return n;
}

/* Runs are their bytes (issue 53): the same file under two names in the folder is indexed once (the
 * other skipped, saying which run holds its bytes), and adding it again under a third name copies
 * nothing. Leftovers of jobs that died (a copy-in's .incoming-PID.h5, the page's and a new index's
 * temporary files) are removed by the next open, and nothing else is. */
static void test_same_bytes_and_leftovers(void)
{
    char dir[1100], a[1300], b[1300], c[1300], err[3000];
    snprintf(dir, sizeof dir, "%s/bytes", g_work);
    snprintf(a, sizeof a, "%s/night-a.h5", g_work);
    write_run(a, "K", 1, "580.95", 1.0);
    hist *h;
    long long id = 0, again = 0;
    int already = -1;
    free(open_noted(dir, &h, err, sizeof err));
    CHECK_MSG(h && hist_add(h, a, &id, &already, err, sizeof err) == 0 && already == 0, "%s", err);
    hist_close(h);
    snprintf(b, sizeof b, "%s/night-a-copy.h5", dir);
    snprintf(err, sizeof err, "cp '%s' '%s'", a, b);
    CHECK(system(err) == 0);
    const char *left[] = {
        ".incoming-999999.h5",     "history.md.tmp-999999",           "history.md.tmp",
        "index.sqlite.tmp-999999", "index.sqlite.tmp-999999-journal", "plots/m0_floor.dat.tmp-999999"};
    snprintf(c, sizeof c, "%s/plots", dir);
    mkdir(c, 0755);
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        snprintf(c, sizeof c, "%s/%s", dir, left[i]);
        FILE *f = fopen(c, "w");
        CHECK(f && fclose(f) == 0);
    }
    char *n = open_noted(dir, &h, err, sizeof err);
    CHECK_MSG(strstr(n, "skipped") && strstr(n, "night-a-copy.h5: the same bytes as night-a.h5"), "%s", n);
    CHECK_MSG(strstr(n, "removed 6 temporary files left in"), "%s", n);
    free(n);
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        snprintf(c, sizeof c, "%s/%s", dir, left[i]);
        CHECK_MSG(access(c, F_OK) != 0, "%s is still there", left[i]);
    }
    CHECK(access(b, F_OK) == 0); /* a run file is never removed, whatever it holds */
    CHECK_INT(h ? hist_nruns(h) : -1, 1);
    snprintf(c, sizeof c, "%s/renamed.h5", g_work);
    snprintf(err, sizeof err, "cp '%s' '%s'", a, c);
    CHECK(system(err) == 0);
    CHECK_MSG(h && hist_add(h, c, &again, &already, err, sizeof err) == 0, "%s", err);
    CHECK(already == 1 && again == id);
    CHECK_INT(h ? hist_nruns(h) : -1, 1);
    snprintf(c, sizeof c, "%s/renamed.h5", dir);
    CHECK(access(c, F_OK) != 0);
    hist_close(h);
}

/* One job at a time (issue 53): while another process holds the history, hist_open waits, says so
 * once, and opens it when the other closes; an interrupt while it waits ends the wait with
 * "interrupted". */
static void test_one_job_at_a_time(void)
{
    char dir[1100], err[1024];
    int ready[2];
    snprintf(dir, sizeof dir, "%s/jobs", g_work);
    CHECK(pipe(ready) == 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        hist *h = NULL;
        int ok = hist_open(dir, NULL, &h, err, sizeof err) == 0;
        ssize_t w = write(ready[1], ok ? "1" : "0", 1);
        nanosleep(&(struct timespec){0, 400 * 1000 * 1000}, NULL);
        hist_close(h);
        _exit(w == 1 && ok ? 0 : 1);
    }
    char got = 0;
    CHECK(child > 0 && read(ready[0], &got, 1) == 1 && got == '1');
    volatile sig_atomic_t stop = 1;
    hist *h;
    hist_watch(&stop);
    free(open_noted(dir, &h, err, sizeof err));
    CHECK_MSG(h == NULL && strstr(err, "interrupted while waiting for another job"), "%s", err);
    hist_watch(NULL);
    char *n = open_noted(dir, &h, err, sizeof err);
    CHECK_MSG(h != NULL, "%s", err);
    CHECK_MSG(strstr(n, "waiting for another job on") && strstr(n, "to finish"), "%s", n);
    free(n);
    hist_close(h);
    int status = -1;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]);
    close(ready[1]);
}

/* hist_file_key: the SHA-256 of the file's bytes (FIPS 180-2's "abc"), the same for a copy under
 * another name, another for one byte more, and one line with the errno for a file that is not there. */
static void test_file_key(void)
{
    char a[1100], b[1100], c[1100], key[65], again[65], other[65], err[256] = "";
    snprintf(a, sizeof a, "%s/key-a.bin", g_work);
    snprintf(b, sizeof b, "%s/key-b.bin", g_work);
    snprintf(c, sizeof c, "%s/key-c.bin", g_work);
    const char *text[3] = {"abc", "abc", "abcd"}, *path[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(path[i], "wb");
        CHECK(f && fputs(text[i], f) >= 0 && fclose(f) == 0);
    }
    CHECK_INT(hist_file_key(a, key, err, sizeof err), 0);
    CHECK_STR(key, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_INT(hist_file_key(b, again, err, sizeof err), 0);
    CHECK_STR(again, key);
    CHECK_INT(hist_file_key(c, other, err, sizeof err), 0);
    CHECK(strcmp(other, key) != 0 && strlen(other) == 64);
    snprintf(c, sizeof c, "%s/no-such-file.h5", g_work);
    CHECK_INT(hist_file_key(c, key, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "no-such-file.h5: No such file or directory") && !strchr(err, '\n'), "%s", err);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_history WORKDIR\n");
        return 2;
    }
    snprintf(g_work, sizeof g_work, "%s/history_test", argv[1]);
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", g_work, g_work);
    if (system(cmd) != 0)
        return 1;
    test_file_key();
    test_same_bytes_and_leftovers();
    test_one_job_at_a_time();
    test_history();
    test_machine_shift();
    test_calls_shift();
    test_ctrl_group();
    test_host_shift();
    test_raw_confirm_factor();
    test_catches();
    test_hostile_runs();
    test_modes_from_file();
    test_pooled_headlines();
    test_procs_headline();
    CHECK_DONE();
}
