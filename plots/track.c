/* track.c - `ringbench track`'s printout: a judged night (harness/track_night.h decides) as the text a
 * reader meets on the terminal: the run, its machine and environment, the shifts divided out, the
 * method and headline cells, then the regressions, improvements, watched and unchanged cells. It
 * prints and decides nothing. The history page is track_page.c.
 * Exercised by tests/test_history.c and tests/track_cli.sh.
 */
#include "track.h"

#include <math.h>
#include <string.h>

#include "report_internal.h"

/* One judged cell: its change with interval, the two figures, its noise and z (and the z it needs), what
 * it is to the night and how it was judged; for a regression or improvement, the first run that shows
 * it and the environment change it coincides with. */
static void print_judged(FILE *out, const track_judged *j, const hist_run *runs)
{
    fprintf(out, "  %-52s %+7.1f%% [%+.1f%%, %+.1f%%]  %.4g vs %.4g %s (baseline %zu runs, noise %.1f%%, z %.1f",
            j->cell, 100 * j->r.change, 100 * j->r.change_lo, 100 * j->r.change_hi, j->r.newest, j->r.baseline, j->unit,
            j->r.n_baseline, 100 * j->r.sigma, j->r.z);
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
    if (j->machine_only && j->as_measured)
        fprintf(out, " [as measured only: beyond the %s shift %+.1f%%, z %.1f]", j->shift, 100 * j->raw.change,
                j->raw.z);
    else if (j->machine_only)
        fprintf(out, " [beyond the %s shift only: as measured %+.1f%%, z %.1f]", j->shift, 100 * j->raw.change,
                j->raw.z);
    else if (j->has_raw && j->as_measured && (j->r.kind == TRACK_REGRESSION || j->r.kind == TRACK_IMPROVEMENT))
        fprintf(out, " [judged as measured; beyond the %s shift %+.1f%%]", j->shift, 100 * j->raw.change);
    else if (j->has_raw && (j->r.kind == TRACK_REGRESSION || j->r.kind == TRACK_IMPROVEMENT) &&
             strcmp(j->shift, "machine") == 0)
        fprintf(out, " [as measured %+.1f%%]", 100 * j->raw.change);
    else if (j->has_raw && (j->r.kind == TRACK_REGRESSION || j->r.kind == TRACK_IMPROVEMENT))
        fprintf(out, " [as measured %+.1f%%; beyond the %s shift]", 100 * j->raw.change, j->shift);
    else if (j->as_measured)
        fputs(" [judged as measured]", out);
    if (j->grp_only)
        fprintf(out, " [this mode only: the median of the %zu %s cells' best trials %+.1f%%, z %.1f]", j->grp_n,
                j->ctrl, 100 * j->grp.change, j->grp.z);
    fputc('\n', out);
    if (j->r.kind == TRACK_REGRESSION || j->r.kind == TRACK_IMPROVEMENT)
        fprintf(out, "  %-52s first seen in %s (%s)%s%s\n", "", runs[j->first_run].file, runs[j->first_run].start,
                j->coincides[0] ? "; coincides with an environment change: " : "", j->coincides);
}

/* Other machines in the history: how many runs and machines, never compared. */
static void print_others(FILE *out, const track_night *night)
{
    if (night->other_runs > 0)
        fprintf(out,
                "other machines: %lld runs of %lld other fingerprints in this history, never compared with this one\n",
                night->other_runs, night->other_machines);
}

/* The judged run, its machine and environment, and what it is compared with. */
static void print_run(FILE *out, const track_night *night)
{
    const hist_run *runs = night->runs;
    const size_t n = night->n;
    const track_options *o = &night->o;
    const hist_run *newest = &runs[n - 1];
    fprintf(out, "run: %s (%s)%s\n", newest->file, newest->start,
            newest->complete ? "" : " -- INCOMPLETE (interrupted)");
    fprintf(out, "machine: %s\nenvironment:", newest->machine);
    for (int i = 0; i < HIST_ENV_COUNT; i++)
        fprintf(out, "%s %s %s", i ? "," : "", hist_env_word(i), newest->env[i]);
    fputc('\n', out);
    print_others(out, night);
    if (n == 1)
        fprintf(out, "fingerprint: NEW -- no earlier complete run of this machine%s; nothing to compare yet\n",
                o->same_env ? " with this environment" : "");
    else {
        char diff[1024];
        if (track_env_diff(&runs[n - 2], newest, diff, sizeof diff))
            fprintf(out, "environment change since the previous run (%s): %s\n", runs[n - 2].file, diff);
        fprintf(out, "history: %zu earlier runs of this machine; baseline = the last %zu at most\n", n - 1,
                o->params.window);
    }
    if (newest->schema < 2)
        fprintf(out,
                "note: a schema-%d run: its intervals are sample-level and do not cover run-to-run variation; "
                "the history's own spread is its noise\n",
                newest->schema);
}

/* How far the machine moved tonight, with its memcpy sizes and floor (n > 1 only). */
static void print_shift(FILE *out, const track_night *night)
{
    const track_machine_detail *md = &night->md;
    const int raw = night->o.raw;
    if (night->n <= 1)
        return;
    fputs("machine shift (same-run pinned memcpy time of each size, against the baseline's median):", out);
    for (size_t k = 0; k < md->nsizes; k++) {
        char sz[32];
        fprintf(out, " %s %+.1f%%", report_size_str(md->sizes[k], sz, sizeof sz), 100 * expm1(md->change[k]));
    }
    fprintf(out, "%s; median %+.1f%%; floor %+.1f%%\n", md->nsizes ? "" : " none recorded", 100 * expm1(md->median),
            100 * expm1(md->floor));
    fprintf(
        out,
        "machine shift tonight: %+.1f%% (median over every machine reference: memcpy, launch, graph, CUDA "
        "call costs, floor); ring cells are judged %s\n",
        100 * expm1(night->shift),
        raw ? "on their raw figures (--raw)"
            : "beyond it (each run's ring figures divided by its shift) and as measured: a change must show both "
              "ways (the pooled round trip, handshake and largest-size throughput: judged as measured, confirmed beyond it)");
    if (!raw && md->ncalls > 0)
        fprintf(out,
                "cudaMemcpy call shift tonight: %+.1f%% (median over the memcpy call costs); the staged control "
                "block's operations (cb_*/.../device) are judged beyond it instead\n",
                100 * expm1(night->calls_shift));
    else if (!raw)
        fputs("cudaMemcpy call shift tonight: none recorded (no memcpy call costs in this run); the staged control "
              "block's operations are judged beyond the machine's shift\n",
              out);
}

/* Whether native control-block reads and writes are judged beyond the host's shift tonight, and how far
 * it moved (n > 1, neither --raw nor --p50). */
static void print_host_shift(FILE *out, const track_night *night)
{
    if (night->n <= 1 || night->o.raw || night->o.p50)
        return; /* --p50: the machine's shift (host_judged); --raw: none */
    if (night->host_ok)
        fprintf(out,
                "host shift tonight: %+.1f%% (host_ref, the same loads and store on ordinary memory, timed beside "
                "the reads and writes: the median of %zu native cells' best trials); native control-block reads and "
                "writes are judged beyond it instead\n",
                100 * expm1(night->host_shift), night->host_cells);
    else
        fprintf(out,
                "host shift tonight: none (host_ref %s); native control-block reads and writes are judged beyond the "
                "machine's shift\n",
                night->host_tonight ? "in fewer baseline runs than --min-history" : "not in this run");
}

/* The method line, the headline cells with what each can catch, then every kind with its cells. */
static void print_judgement(FILE *out, const track_night *night)
{
    const track_judged *j = night->cells;
    const size_t nj = night->ncells, *nfam = night->nfam, *count = night->count;
    const hist_run *runs = night->runs;
    const track_options *o = &night->o;
    fprintf(
        out,
        "method: lookback z-score over log %s (bimodal latency cells: their fast mode), noise = %s; a change needs "
        ">= %.0f%% and a |z| that keeps the night's false-alarm budget at %.0f%%: %.1f%% over %zu headline cells, "
        "%.1f%% over %zu other ring cells (Bonferroni on a t with the baseline's degrees of freedom); %zu machine "
        "references are watched, never regressions\n",
        o->p50
            ? "p50"
            : "p50 (throughput, cb_read and cb_write: each run's best trial; the native-best headlines: the "
              "best trial of every mode but the fallback's device control block, for cb_read and cb_write the median of "
              "those modes' best trials; --p50: their p50)",
        "max(history MAD, median trial-level standard error)", 100 * o->params.min_effect,
        100 * (TRACK_ALPHA_HEADLINE + TRACK_ALPHA_RING), 100 * TRACK_ALPHA_HEADLINE, nfam[TRACK_CELL_HEADLINE],
        100 * TRACK_ALPHA_RING, nfam[TRACK_CELL_RING], nfam[TRACK_CELL_MACHINE]);
    fputs("headline cells:", out);
    for (size_t i = 0, k = 0; i < nj; i++)
        if (j[i].role == TRACK_CELL_HEADLINE) {
            double thr, catch = track_night_catch(night, &j[i], &thr);
            fprintf(out, "%s\n  %-52s z %+5.1f, needs %.1f: catches a change of %.0f%% or more (noise %.1f%%)",
                    k++ ? "," : "", j[i].cell, j[i].r.z, thr, 100 * catch, 100 * j[i].r.sigma);
        }
    fputs("\n\n", out);
    for (int k = TRACK_REGRESSION; k <= TRACK_IMPROVEMENT; k++) {
        fprintf(out, "%s: %zu\n", k == TRACK_REGRESSION ? "REGRESSIONS" : "improvements", count[k]);
        for (size_t i = 0; i < nj; i++)
            if (j[i].r.kind == (track_kind)k)
                print_judged(out, &j[i], runs);
    }
    fprintf(out,
            "watch: %zu (|z| >= %.1f and >= %.0f%% but within the budget, machine references, a bimodal "
            "cell in one mode, a change the other series does not confirm, or one mode's control-block read or write "
            "that its control block's other modes do not confirm)%s\n",
            count[TRACK_WATCH], o->params.z_min, 100 * o->params.min_effect,
            count[TRACK_WATCH] > 12 ? "; the 12 largest" : "");
    for (size_t i = 0, shown = 0; i < nj && shown < 12; i++)
        if (j[i].r.kind == TRACK_WATCH) {
            print_judged(out, &j[i], runs);
            shown++;
        }
    fprintf(out, "unchanged: %zu cells", count[TRACK_UNCHANGED]);
    if (count[TRACK_NO_HISTORY])
        fprintf(out, "; not judged (fewer than %zu comparable earlier runs): %zu", o->params.min_history,
                count[TRACK_NO_HISTORY]);
    fputc('\n', out);
}

void track_print_night(FILE *out, const track_night *night)
{
    print_run(out, night);
    print_shift(out, night);
    print_host_shift(out, night);
    print_judgement(out, night);
}
