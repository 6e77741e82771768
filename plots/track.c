/* track.c - `ringbench track`'s printout: a judged night (harness/track_night.h decides) as the text a
 * reader meets on the terminal. The first line is the night's verdict ("OK: ..." or "REGRESSION (exit
 * 1): ..." naming the worst cells); then the run, the headline figures of harness/headline.h as tonight
 * judged them (the change against the baseline, and the smallest change the night would call), the
 * regressions with where each was first seen, and one line each for improvements and watched cells. A
 * green night fits in 20 lines. --verbose adds the shifts divided out, the method and the budget, every
 * headline cell's z and noise, and every watched cell. Figures are written as report.md writes them (3
 * significant digits in scaled units); a figure that is missing says why, never "nan".
 * It prints and decides nothing. The history page is track_page.c.
 * Exercised by tests/test_history.c and tests/track_cli.sh.
 */
#include "track.h"

#include <math.h>
#include <string.h>

#include "report_internal.h"

/* At most this many regressions are listed without --verbose; the rest are counted. */
#define TRACK_SHOWN_REGRESSIONS 8

// --- words and numbers -------------------------------------------------------------------------------------

const char *track_change_str(double change, char *buf, size_t n)
{
    if (!isfinite(change))
        snprintf(buf, n, "n/a");
    else if (change >= 1.0)
        snprintf(buf, n, "%s", report_times(1 + change));
    else
        snprintf(buf, n, "%+.*f %%", fabs(change) < 0.1 ? 1 : 0, 100 * change);
    return buf;
}

const char *track_change_interval_str(double change, double lo, double hi, char *buf, size_t n)
{
    char a[32], b[32], c[32];
    if (isfinite(hi) && hi >= 1.0) /* all three as ratios: "1.99× [1.81×, 2.18×]" */
        snprintf(buf, n, "%s [%s, %s]", report_times(1 + change), report_times(1 + lo), report_times(1 + hi));
    else
        snprintf(buf, n, "%s [%s, %s]", track_change_str(change, a, sizeof a), track_change_str(lo, b, sizeof b),
                 track_change_str(hi, c, sizeof c));
    return buf;
}

/* A judged cell's figure in its unit: a time or a rate scaled; the full window in messages per second. */
static const char *figure_str(const track_judged *x, double v, int msgs)
{
    if (msgs && isfinite(v) && x->size > 0)
        return report_msgs(v * 1e9 / (double)x->size);
    return report_value(v, x->unit);
}

/* How many cells tonight's verdict rests on: judged against a baseline. */
static size_t judged_cells(const track_night *night)
{
    return night->ncells - night->count[TRACK_NO_HISTORY] - night->count[TRACK_NO_DATA];
}

/* "not judged yet (3 of 5 runs)": x's earlier runs against the --min-history it needs. */
static const char *not_judged(const track_night *night, const track_judged *x, char *buf, size_t n)
{
    snprintf(buf, n, "not judged yet (%zu of %zu runs)", x->r.n_baseline, night->o.params.min_history);
    return buf;
}

// --- the verdict line --------------------------------------------------------------------------------------

/* A headline figure's name with its size, as report.md's table names it: "round trip, 8 B", "control-block
 * read", "full window, 8 B" (size 0: none known), and with fastest ", fastest" where the figure is the
 * fastest native mode's round trip. */
static const char *figure_name(const headline_def *d, uint64_t size, int fastest, char *buf, size_t n)
{
    char sz[32];
    const int sized = d->size != HL_SIZE_NONE && size > 0;
    snprintf(buf, n, "%s%s%s%s",
             d->full_window ? "full window"
             : d->fastest   ? "round trip"
                            : d->label,
             sized ? ", " : "", sized ? report_size_str(size, sz, sizeof sz) : "",
             fastest && d->fastest && !d->full_window ? ", fastest" : "");
    return buf;
}

/* The headline figure x stands for and its side ("round trip, 8 B, native path", "round trip, 8 B,
 * fastest native mode", "control-block read, native modes", "round trip, 8 B, WSL2 fallback"), into buf;
 * "" when it is no headline figure's. */
static const char *headline_name(const track_judged *x, char *buf, size_t n)
{
    char fig[96];
    buf[0] = '\0';
    for (int k = 0; k < HL_COUNT; k++)
        for (int s = 0; s < 2; s++)
            if (x->hl_sides & TRACK_HL_BIT(k, s)) {
                const headline_def *d = &headline_defs[k];
                snprintf(buf, n, "%s, %s", figure_name(d, x->size, 0, fig, sizeof fig),
                         s == HL_FALLBACK ? mode_path_title(MODE_PATH_FALLBACK)
                         : d->fastest     ? "fastest native mode"
                         : x->pooled      ? "native modes"
                                          : "native path");
                return buf;
            }
    return buf;
}

/* The order the verdict names regressions in: headline figures first, then by the size of the change. */
static int worse_first(const track_judged *a, const track_judged *b)
{
    if ((a->role == TRACK_CELL_HEADLINE) != (b->role == TRACK_CELL_HEADLINE))
        return a->role == TRACK_CELL_HEADLINE;
    return fabs(a->r.change) > fabs(b->r.change);
}

int track_verdict_line(const track_night *night, char *buf, size_t n)
{
    const size_t k = night->count[TRACK_REGRESSION];
    char ch[32], name[160];
    if (k == 0) {
        const size_t judged = judged_cells(night);
        if (judged == 0)
            return snprintf(buf, n, "OK: not judged yet (%zu of %zu runs): this machine's first runs form its baseline",
                            night->n - 1, night->o.params.min_history);
        if (!isfinite(night->shift))
            return snprintf(buf, n, "OK: no regression in %zu judged cells (no machine shift: no references)", judged);
        return snprintf(buf, n, "OK: no regression in %zu judged cells (shift %s)", judged,
                        track_change_str(expm1(night->shift), ch, sizeof ch));
    }
    /* the three worst, headline figures first */
    const track_judged *pick[3] = {NULL, NULL, NULL};
    for (size_t i = 0; i < night->ncells; i++) {
        const track_judged *x = &night->cells[i];
        if (x->r.kind != TRACK_REGRESSION)
            continue;
        for (int p = 0; p < 3; p++)
            if (!pick[p] || worse_first(x, pick[p])) {
                for (int q = 2; q > p; q--)
                    pick[q] = pick[q - 1];
                pick[p] = x;
                break;
            }
    }
    int len = snprintf(buf, n, "REGRESSION (exit 1): %zu cell%s —", k, k == 1 ? "" : "s");
    for (int p = 0; p < 3 && pick[p] && len >= 0 && (size_t)len < n; p++) {
        const char *hl = headline_name(pick[p], name, sizeof name);
        len += snprintf(buf + len, n - (size_t)len, "%s %s %s", p ? "," : "", hl[0] ? hl : pick[p]->cell,
                        track_change_str(pick[p]->r.change, ch, sizeof ch));
    }
    if (k > 3 && len >= 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, ", and %zu more", k - 3);
    return len;
}

// --- the run -----------------------------------------------------------------------------------------------

/* "RUN.h5, DATE TIME UTC, commit COMMIT, 11 earlier runs of this machine (MACHINE)", and an environment
 * change since the run before, where there is one. */
static void print_run_line(FILE *out, const track_night *night)
{
    const hist_run *newest = &night->runs[night->n - 1];
    const char *t = newest->start;
    fprintf(out, "%s, %.10s %.5s UTC, commit %.12s%s, ", newest->file, t, strlen(t) > 11 ? t + 11 : "",
            newest->env[HIST_ENV_git_commit], newest->complete ? "" : " -- INCOMPLETE (interrupted)");
    if (night->n == 1)
        fprintf(out, "a new machine: no earlier complete run%s (%s)\n",
                night->o.same_env ? " with this environment" : "", newest->machine);
    else
        fprintf(out, "%zu earlier run%s of this machine (%s)\n", night->n - 1, night->n == 2 ? "" : "s",
                newest->machine);
    char diff[1024];
    if (night->n > 1 && track_env_diff(&night->runs[night->n - 2], newest, diff, sizeof diff))
        fprintf(out, "environment change since the previous run (%s): %s\n", night->runs[night->n - 2].file, diff);
}

// --- the headline figures ----------------------------------------------------------------------------------

/* One side of a headline figure: tonight's figure, its change and what the night makes of it. */
static void print_side(FILE *out, const track_night *night, int fig, int side, size_t width)
{
    char buf[160], ch[32], note[96];
    const long i = night->headline[fig][side];
    if (i < 0) {
        report_put_padded(out, "not in this run", width, 0);
        return;
    }
    for (int k = 0; k < fig; k++)
        if (night->headline[k][side] == i) { /* the same cell as an earlier figure's, shown there */
            report_put_padded(out, "as above", width, 0);
            return;
        }
    const track_judged *x = &night->cells[i];
    const int msgs = headline_defs[fig].full_window;
    if (x->r.kind == TRACK_NO_DATA) {
        report_put_padded(out, "no figure tonight", width, 0);
        return;
    }
    if (x->r.kind == TRACK_NO_HISTORY) /* the whole night not judged yet: the header says so once */
        snprintf(note, sizeof note, "%s(%zu of %zu runs)", judged_cells(night) ? "not judged yet " : "",
                 x->r.n_baseline, night->o.params.min_history);
    else if (x->r.kind == TRACK_REGRESSION || x->r.kind == TRACK_IMPROVEMENT)
        snprintf(note, sizeof note, "%s", x->r.kind == TRACK_REGRESSION ? "REGRESSION" : "improvement");
    else {
        double thr;
        snprintf(note, sizeof note, "(catches %.0f %%)%s", 100 * track_night_catch(night, x, &thr),
                 x->r.kind == TRACK_WATCH ? " watch" : "");
    }
    snprintf(buf, sizeof buf, "%s", figure_str(x, x->r.newest, msgs));
    report_put_padded(out, buf, 12, 1);
    fputc(' ', out);
    report_put_padded(out, x->r.kind == TRACK_NO_HISTORY ? "" : track_change_str(x->r.change, ch, sizeof ch), 7, 1);
    fputc(' ', out);
    report_put_padded(out, note, width > 21 ? width - 21 : 0, 0);
}

/* The headline figures' table: one row per figure of harness/headline.h, its native and fallback sides. */
static void print_headlines(FILE *out, const track_night *night)
{
    char name[96];
    const size_t wname = 26, wside = 38;
    report_put_padded(out, "headline figure", wname, 0);
    report_put_padded(out, mode_path_title(MODE_PATH_NATIVE), wside, 0);
    fputs(mode_path_title(MODE_PATH_FALLBACK), out);
    fputs(judged_cells(night) ? "\n" : "   (not judged yet)\n", out);
    for (int k = 0; k < HL_COUNT; k++) {
        const long n = night->headline[k][HL_NATIVE], f = night->headline[k][HL_FALLBACK];
        const long any = n >= 0 ? n : f;
        report_put_padded(
            out, figure_name(&headline_defs[k], any >= 0 ? night->cells[any].size : 0, 1, name, sizeof name), wname, 0);
        print_side(out, night, k, HL_NATIVE, wside);
        print_side(out, night, k, HL_FALLBACK, 0);
        fputc('\n', out);
    }
    char nat[64];
    const mode_spec m = mode_native();
    fprintf(out, "native: the round trips of %s, as report.md quotes them; the rest pooled over the native modes\n",
            mode_label(&m, nat, sizeof nat));
    fprintf(out,
            "(catches X %%): the smallest change tonight would call, given the figure's noise and the night's "
            "%.0f %% false-alarm budget\n",
            100 * (TRACK_ALPHA_HEADLINE + TRACK_ALPHA_RING));
}

// --- the cells that changed --------------------------------------------------------------------------------

/* One changed cell in a line: its change with interval, the two figures, z and the |z| it needs, and the
 * headline figure it stands for. */
static void print_changed(FILE *out, const track_judged *x)
{
    char ch[96], name[160], a[48];
    snprintf(a, sizeof a, "%s", report_value(x->r.newest, x->unit));
    fprintf(out, "  %s %s  %s against %s, z %.1f", x->cell,
            track_change_interval_str(x->r.change, x->r.change_lo, x->r.change_hi, ch, sizeof ch), a,
            report_value(x->r.baseline, x->unit), x->r.z);
    if (isfinite(x->thr))
        fprintf(out, " (needs %.1f)", x->thr);
    if (headline_name(x, name, sizeof name)[0])
        fprintf(out, "  [headline: %s]", name);
    fputc('\n', out);
}

/* Where the regressions were first seen: one line per earlier run (tonight's are not said), with the
 * environment change each coincides with. */
static void print_first_seen(FILE *out, const track_night *night)
{
    for (size_t r = 0; r + 1 < night->n; r++) {
        size_t k = 0;
        const char *env = "";
        for (size_t i = 0; i < night->ncells; i++)
            if (night->cells[i].r.kind == TRACK_REGRESSION && night->cells[i].first_run == r) {
                k++;
                env = night->cells[i].coincides;
            }
        if (k)
            fprintf(out, "  %zu of them first seen in %s (%s)%s%s\n", k, night->runs[r].file, night->runs[r].start,
                    env[0] ? "; coincides with an environment change: " : "", env);
    }
}

static void print_regressions(FILE *out, const track_night *night)
{
    const size_t k = night->count[TRACK_REGRESSION];
    if (k == 0)
        return;
    fprintf(out, "REGRESSIONS: %zu (first seen tonight unless said)\n", k);
    size_t shown = 0;
    for (size_t i = 0; i < night->ncells && shown < TRACK_SHOWN_REGRESSIONS; i++)
        if (night->cells[i].r.kind == TRACK_REGRESSION) {
            print_changed(out, &night->cells[i]);
            shown++;
        }
    if (k > shown)
        fprintf(out, "  and %zu more (--verbose lists them; --export FILE writes every cell)\n", k - shown);
    print_first_seen(out, night);
}

/* "watch: 17 cells ..., largest CELL -32.8 %" in one line (none: nothing). */
static void print_count_line(FILE *out, const track_night *night, track_kind kind, const char *what)
{
    const size_t k = night->count[kind];
    char ch[32];
    if (k == 0)
        return;
    for (size_t i = 0; i < night->ncells; i++)
        if (night->cells[i].r.kind == kind) {
            fprintf(out, "%s: %zu cell%s%s, largest %s %s\n", kind == TRACK_WATCH ? "watch" : "improvements", k,
                    k == 1 ? "" : "s", what, night->cells[i].cell,
                    track_change_str(night->cells[i].r.change, ch, sizeof ch));
            return;
        }
}

static void print_compact(FILE *out, const track_night *night)
{
    print_headlines(out, night);
    print_regressions(out, night);
    print_count_line(out, night, TRACK_IMPROVEMENT, "");
    print_count_line(out, night, TRACK_WATCH, " moved beyond |z| 3.5 within the night's budget (or a reference)");
    fputs("--verbose: the shifts, the method and its budget, every watched cell; docs/tracking.md\n", out);
}

// --- --verbose ---------------------------------------------------------------------------------------------

/* One judged cell with everything the night knows of it (--verbose): its change with interval, the two
 * figures, its noise and z (and the z it needs), what it is to the night and how it was judged; for a
 * regression or improvement, the first run that shows it and the environment change it coincides with. */
static void print_judged(FILE *out, const track_judged *j, const hist_run *runs)
{
    char ch[96], a[48];
    snprintf(a, sizeof a, "%s", report_value(j->r.newest, j->unit));
    fprintf(out, "  %-52s %s  %s vs %s (baseline %zu runs, noise %.1f %%, z %.1f", j->cell,
            track_change_interval_str(j->r.change, j->r.change_lo, j->r.change_hi, ch, sizeof ch), a,
            report_value(j->r.baseline, j->unit), j->r.n_baseline, 100 * j->r.sigma, j->r.z);
    if (isfinite(j->thr))
        fprintf(out, ", needs %.1f", j->thr);
    fputs(")", out);
    if (j->role == TRACK_CELL_HEADLINE)
        fputs(" [headline]", out);
    if (j->role == TRACK_CELL_MACHINE)
        fputs(" [machine reference]", out);
    if (j->pooled)
        fprintf(out,
                strcmp(j->family, "throughput_procs") == 0
                    ? " [best of %zu native cells, each the median of its processes]"
                : track_pool_is_median(j->family) ? " [median of %zu native cells' best trials]"
                                                  : " [best trial of %zu native cells]",
                j->pool_n);
    if (j->bimodal)
        fprintf(out, isfinite(j->slow_share) ? " [bimodal: fast mode; slow share %.0f%%]" : " [bimodal: fast mode]",
                100 * j->slow_share);
    const int called = j->r.kind == TRACK_REGRESSION || j->r.kind == TRACK_IMPROVEMENT;
    char raw[32];
    track_change_str(j->raw.change, raw, sizeof raw);
    if (j->machine_only && j->as_measured)
        fprintf(out, " [as measured only: beyond the %s shift %s, z %.1f]", j->shift, raw, j->raw.z);
    else if (j->machine_only)
        fprintf(out, " [beyond the %s shift only: as measured %s, z %.1f]", j->shift, raw, j->raw.z);
    else if (j->has_raw && j->as_measured && called)
        fprintf(out, " [judged as measured; beyond the %s shift %s]", j->shift, raw);
    else if (j->has_raw && called && strcmp(j->shift, "machine") == 0)
        fprintf(out, " [as measured %s]", raw);
    else if (j->has_raw && called)
        fprintf(out, " [as measured %s; beyond the %s shift]", raw, j->shift);
    else if (j->as_measured)
        fputs(" [judged as measured]", out);
    if (j->grp_only)
        fprintf(out, " [this mode only: the median of the %zu %s cells' best trials %s, z %.1f]", j->grp_n, j->ctrl,
                track_change_str(j->grp.change, raw, sizeof raw), j->grp.z);
    fputc('\n', out);
    if (called)
        fprintf(out, "  %-52s first seen in %s (%s)%s%s\n", "", runs[j->first_run].file, runs[j->first_run].start,
                j->coincides[0] ? "; coincides with an environment change: " : "", j->coincides);
}

/* A log change as "+1.2 %", or why there is none. */
static const char *shift_str(double log_change, const char *none, char *buf, size_t n)
{
    if (!isfinite(log_change))
        snprintf(buf, n, "%s", none);
    else
        snprintf(buf, n, "%+.1f %%", 100 * expm1(log_change));
    return buf;
}

/* How far the machine moved tonight, with its memcpy sizes and floor (n > 1 only). */
static void print_shift(FILE *out, const track_night *night)
{
    const track_machine_detail *md = &night->md;
    const int raw = night->o.raw;
    char a[48], b[48];
    if (night->n <= 1)
        return;
    fputs("machine shift (same-run pinned memcpy time of each size, against the baseline's median):", out);
    for (size_t k = 0; k < md->nsizes; k++) {
        char sz[32];
        fprintf(out, " %s %s", report_size_str(md->sizes[k], sz, sizeof sz),
                shift_str(md->change[k], "n/a", a, sizeof a));
    }
    fprintf(out, "%s; median %s; floor %s\n", md->nsizes ? "" : " none recorded",
            shift_str(md->median, "none", a, sizeof a), shift_str(md->floor, "not measured", b, sizeof b));
    fprintf(out,
            "machine shift tonight: %s (median over every machine reference: memcpy, launch, graph, CUDA "
            "call costs, floor); ring cells are judged %s\n",
            shift_str(night->shift, "none (no machine references in the baseline)", a, sizeof a),
            raw ? "on their raw figures (--raw)"
                : "beyond it (each run's ring figures divided by its shift) and as measured: a change must show both "
                  "ways (the pooled round trip, handshake and largest-size throughput: judged as measured, confirmed "
                  "beyond it)");
    if (!raw && md->ncalls > 0)
        fprintf(out,
                "cudaMemcpy call shift tonight: %s (median over the memcpy call costs); the staged control "
                "block's operations (cb_*/.../device) are judged beyond it instead\n",
                shift_str(night->calls_shift, "none", a, sizeof a));
    else if (!raw)
        fputs("cudaMemcpy call shift tonight: none recorded (no memcpy call costs in this run); the staged control "
              "block's operations are judged beyond the machine's shift\n",
              out);
}

/* Whether native control-block reads and writes are judged beyond the host's shift tonight, and how far
 * it moved (n > 1, neither --raw nor --p50). */
static void print_host_shift(FILE *out, const track_night *night)
{
    char a[48];
    if (night->n <= 1 || night->o.raw || night->o.p50)
        return; /* --p50: the machine's shift (host_judged); --raw: none */
    if (night->host_ok)
        fprintf(out,
                "host shift tonight: %s (host_ref, the same loads and store on ordinary memory, timed beside "
                "the reads and writes: the median of %zu native cells' best trials); native control-block reads and "
                "writes are judged beyond it instead\n",
                shift_str(night->host_shift, "none", a, sizeof a), night->host_cells);
    else
        fprintf(out,
                "host shift tonight: none (host_ref %s); native control-block reads and writes are judged beyond the "
                "machine's shift\n",
                night->host_tonight ? "in fewer baseline runs than --min-history" : "not in this run");
}

/* The method and its false-alarm budget (--verbose). */
static void print_method(FILE *out, const track_night *night)
{
    const track_options *o = &night->o;
    const size_t *nfam = night->nfam;
    fprintf(out,
            "method: lookback z-score over log p50 (throughput, cb_read and cb_write: each run's best trial; the "
            "native-best pools: the best trial of every mode but the fallback's device control block, for cb_read and "
            "cb_write the median of those modes' best trials%s; bimodal latency cells: their fast mode), noise = "
            "max(history MAD, median trial-level standard error), at least %.1f %% for a headline cell\n",
            o->p50 ? "; --p50: every cell on its p50" : "", 100 * TRACK_HEADLINE_FLOOR);
    fprintf(out,
            "budget: a change needs >= %.0f %% and a |z| that keeps the night's false-alarm chance at %.0f %%: %.1f %% "
            "over %zu headline cells, %.1f %% over %zu other ring cells (Bonferroni on a t with the baseline's degrees "
            "of freedom); %zu machine references are watched, never regressions\n",
            100 * o->params.min_effect, 100 * (TRACK_ALPHA_HEADLINE + TRACK_ALPHA_RING), 100 * TRACK_ALPHA_HEADLINE,
            nfam[TRACK_CELL_HEADLINE], 100 * TRACK_ALPHA_RING, nfam[TRACK_CELL_RING], nfam[TRACK_CELL_MACHINE]);
}

/* Every headline cell: its z, the |z| it needs and what it can catch, or why it is not judged. */
static void print_headline_cells(FILE *out, const track_night *night)
{
    char why[64];
    fputs("headline cells:", out);
    for (size_t i = 0, k = 0; i < night->ncells; i++) {
        const track_judged *x = &night->cells[i];
        if (x->role != TRACK_CELL_HEADLINE)
            continue;
        fprintf(out, "%s\n  %-52s ", k++ ? "," : "", x->cell);
        if (x->r.kind == TRACK_NO_HISTORY || x->r.kind == TRACK_NO_DATA || !isfinite(x->r.z)) {
            fputs(x->r.kind == TRACK_NO_DATA ? "no figure tonight" : not_judged(night, x, why, sizeof why), out);
            continue;
        }
        double thr, catch = track_night_catch(night, x, &thr);
        fprintf(out, "z %+5.1f, needs %.1f: catches a change of %.0f%% or more (noise %.1f%%)", x->r.z, thr,
                100 * catch, 100 * x->r.sigma);
    }
    fputs("\n\n", out);
}

static void print_verbose(FILE *out, const track_night *night)
{
    const track_judged *j = night->cells;
    const size_t nj = night->ncells, *count = night->count;
    const track_options *o = &night->o;
    if (night->other_runs > 0)
        fprintf(out,
                "other machines: %lld runs of %lld other fingerprints in this history, never compared with this one\n",
                night->other_runs, night->other_machines);
    if (night->n > 1)
        fprintf(out, "history: %zu earlier runs of this machine; baseline = the last %zu at most\n", night->n - 1,
                o->params.window);
    if (night->runs[night->n - 1].schema < 2)
        fprintf(out,
                "note: a schema-%d run: its intervals are sample-level and do not cover run-to-run variation; "
                "the history's own spread is its noise\n",
                night->runs[night->n - 1].schema);
    print_shift(out, night);
    print_host_shift(out, night);
    print_method(out, night);
    print_headline_cells(out, night);
    for (int k = TRACK_REGRESSION; k <= TRACK_IMPROVEMENT; k++) {
        fprintf(out, "%s: %zu\n", k == TRACK_REGRESSION ? "REGRESSIONS" : "improvements", count[k]);
        for (size_t i = 0; i < nj; i++)
            if (j[i].r.kind == (track_kind)k)
                print_judged(out, &j[i], night->runs);
    }
    fprintf(out,
            "watch: %zu (|z| >= %.1f and >= %.0f%% but within the budget, machine references, a bimodal "
            "cell in one mode, a change the other series does not confirm, or one mode's control-block read or write "
            "that its control block's other modes do not confirm)\n",
            count[TRACK_WATCH], o->params.z_min, 100 * o->params.min_effect);
    for (size_t i = 0; i < nj; i++)
        if (j[i].r.kind == TRACK_WATCH)
            print_judged(out, &j[i], night->runs);
    fprintf(out, "unchanged: %zu cells", count[TRACK_UNCHANGED]);
    if (count[TRACK_NO_HISTORY])
        fprintf(out, "; not judged yet (fewer than %zu comparable earlier runs): %zu", o->params.min_history,
                count[TRACK_NO_HISTORY]);
    fputc('\n', out);
}

void track_print_night(FILE *out, const track_night *night, int verbose)
{
    char line[1024];
    track_verdict_line(night, line, sizeof line);
    fprintf(out, "%s\n", line);
    print_run_line(out, night);
    if (verbose) {
        print_headlines(out, night);
        print_verbose(out, night);
    } else
        print_compact(out, night);
}
