/* compare.c - compare_write (report.h), what `ringbench compare` does (bench/cmd_compare.c): pairs the rows
 * of two results files by family, mode and size (whatever their backends), and for each pair gives the
 * overhead of OTHER over BASE with a trial-level 95% CI (report_verdict.c) and a verdict (faster /
 * slower only when the CI excludes 0 and the overhead is at least --min-effect, else same within noise); then the
 * verdict on the WSL2 claim across the two files (typically BASE = native Linux, OTHER = WSL2). Writes
 * compare_pairs.dat, gnuplot scripts, plots and compare.md. Warns loudly when the files come from different GPUs,
 * drivers or suite versions; refuses files with nothing in common. Exercised by tests/test_report.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "report.h"
#include "attribution_md.h"
#include "report_headline.h"
#include "compare_internal.h"
#include "report_plots.h"
#include "run_label.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const compare_scripts[] = {"compare_changes.gp", "compare_heatmap.gp", "compare_ops.gp", "answer.gp",
                                              NULL};

/* Provenance that must match for a comparison to be of like with like, and what a file that does not
 * record it ran with: files from before the early take, the leader's reply and stream ops ran
 * without them, files from before --cb-batch timed control-block operations one at a time, and files from before
 * --post-max posted a window's free room at once, files from before --verify-split verified every reply
 * on the polling thread, files from before refill_first verified a window's replies before posting
 * their refill, and files from before refill_headers counted a reply answered only once out_tail
 * announced it. */
static const struct {
    const char *name, *absent;
} must_match[] = {{"gpu_name", ""},
                  {"driver_version", ""},
                  {"suite_version", ""},
                  {"early_take", "off"},
                  {"leader_reply", "off"},
                  {"stream_ops", "off"},
                  {"cb_batch", "1"},
                  {"post_max", "0"},
                  {"verify_split", "0"},
                  {"refill_first", "off"},
                  {"refill_headers", "off"},
                  {RB_PROV_INJECT_CALL_US, ""},
                  {RB_PROV_PLATFORM_LIMITS, ""}};

static int same_key(const rb_row *a, const rb_row *b)
{
    return a->size_bytes == b->size_bytes && a->window == b->window && strcmp(a->family, b->family) == 0 &&
           strcmp(a->host_mem, b->host_mem) == 0 && strcmp(a->xfer, b->xfer) == 0 &&
           strcmp(a->launch, b->launch) == 0 && strcmp(a->ctrl, b->ctrl) == 0;
}

static int pairable(const rb_row *r) { return report_row_ok(r) && r->n > 0 && report_row_family(r) >= 0; }

/* Pairs the ok rows with samples; the backend is deliberately not part of the key. */
static int make_pairs(compare_ctx *c, const report_opts *o)
{
    size_t nb = report_nrows(&c->base), no = report_nrows(&c->other);
    c->pairs = calloc(nb + 1, sizeof *c->pairs);
    if (c->pairs == NULL)
        return -1;
    for (size_t i = 0; i < nb; i++) {
        const rb_row *a = report_row(&c->base, i);
        if (!pairable(a))
            continue;
        for (size_t j = 0; j < no; j++) {
            const rb_row *b = report_row(&c->other, j);
            if (!pairable(b) || !same_key(a, b))
                continue;
            pair *p = &c->pairs[c->npairs];
            p->ia = (long)i;
            p->ib = (long)j;
            report_overhead(&c->base, p->ia, "BASE", &c->other, p->ib, "OTHER", o, &p->ov);
            c->npairs++;
            break;
        }
    }
    return 0;
}

/* Values longer than this are cut (with "...") so that a file's text, however long, never fills the
 * warning buffer: every warning stays one whole line, ended by its newline. */
#define WARN_VALUE_MAX 160

static void add_warning(compare_ctx *c, const char *fmt, const char *what, const char *a, const char *b)
{
    char va[WARN_VALUE_MAX + 4], vb[WARN_VALUE_MAX + 4], line[3 * WARN_VALUE_MAX + 256];
    size_t len = strlen(c->warnings);
    snprintf(va, sizeof va, "%.*s%s", WARN_VALUE_MAX, a, strlen(a) > WARN_VALUE_MAX ? "..." : "");
    snprintf(vb, sizeof vb, "%.*s%s", WARN_VALUE_MAX, b, strlen(b) > WARN_VALUE_MAX ? "..." : "");
    int n = snprintf(line, sizeof line, fmt, what, va, vb);
    /* A line that does not fit whole is left out rather than cut: readers split on newlines. */
    if (n > 0 && (size_t)n < sizeof line && (size_t)n < sizeof c->warnings - len)
        memcpy(c->warnings + len, line, (size_t)n + 1);
}

static void check_like(compare_ctx *c)
{
    for (size_t i = 0; i < sizeof must_match / sizeof must_match[0]; i++) {
        const char *name = must_match[i].name;
        const char *a = report_prov(&c->base, name), *b = report_prov(&c->other, name);
        a = *a ? a : must_match[i].absent;
        b = *b ? b : must_match[i].absent;
        if (strcmp(a, b) != 0)
            add_warning(c, "the files differ in %s: BASE '%s', OTHER '%s'\n", name, a, b);
    }
    if (strcmp(c->base.backend, c->other.backend) != 0)
        add_warning(c, "the files differ in %s: BASE '%s', OTHER '%s' (CPU-reference rows are not GPU numbers)\n",
                    "backend", c->base.backend, c->other.backend);
}

// --- data and plots -------------------------------------------------------------------------------------

static int write_pairs_dat(const compare_ctx *c, const char *dir, char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, "compare_pairs.dat", err, errlen) != 0)
        return -1;
    fputs("# every pair: overhead of OTHER over BASE = est(OTHER)/est(BASE) - 1, est = median of trial medians (GB/s\n"
          "# families: on time per byte), with its 95% trial-level CI; verdict faster|slower|same (same = interval\n"
          "# includes 0 or |overhead| < --min-effect) or n/a; window: messages in flight (throughput), else 0\n"
          "# family mode size_bytes base_p50 other_p50 overhead ci_lo ci_hi verdict window\n",
          rf.f);
    char label[1100]; /* injected or limits-applied files (issue 21): `ringbench export` carries it on */
    report_label_pair(&c->base, &c->other, label, sizeof label);
    if (label[0])
        fprintf(rf.f, "# run_label: %s\n", label);
    for (size_t i = 0; i < c->npairs; i++) {
        const rb_row *a = report_row(&c->base, (size_t)c->pairs[i].ia);
        const report_ov *ov = &c->pairs[i].ov;
        mode_spec m;
        fprintf(rf.f, "%s %s %llu %.9g %.9g %.6f %.6f %.6f %s %llu\n", a->family,
                report_row_mode(a, &m) ? report_mode_str(&m) : "baseline", (unsigned long long)a->size_bytes, ov->p50_a,
                ov->p50_b, ov->est, ov->lo, ov->hi, compare_token(ov), (unsigned long long)a->window);
    }
    return report_file_close(&rf, err, errlen);
}

// --- compare.md -------------------------------------------------------------------------------------------

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Per family: the verdict counts, the median overhead, and the noise between the two runs: median and
 * p95 of |Δp50| (|est OTHER / est BASE − 1|, the trial-level estimates) and how many cells have an interval
 * that excludes 0 whatever the size of the difference. For two runs of one machine (an A/A test) the
 * last columns say how far apart repeated runs are; "same within noise" is what the verdict calls them. */
static void summary_md(FILE *md, const compare_ctx *c, const report_opts *o)
{
    int all = 0, all_same = 0, all_excl = 0;
    fprintf(
        md,
        "\n## Summary per family\n\n\"slower\"/\"faster\": the 95%% interval excludes 0 and the overhead is at "
        "least %.0f%% (--min-effect). Noise between the runs: |Δp50| = |est OTHER / est BASE − 1| per cell, est the cell's trial-level estimate (the median of its trial medians; time per byte for rates); "
        "\"CI excludes 0\" counts cells whose interval excludes 0 whatever the size of the difference.\n\n"
        "| family | pairs | OTHER slower | OTHER faster | same within noise | not compared | median overhead | "
        "median \\|Δp50\\| | p95 \\|Δp50\\| | CI excludes 0 |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        100 * o->min_effect);
    double *est = malloc((c->npairs + 1) * sizeof *est), *dp = malloc((c->npairs + 1) * sizeof *dp);
    for (int f = 0; f < RB_FAM_COUNT && est && dp; f++) {
        int n = 0, slower = 0, faster = 0, same = 0, na = 0, excl = 0;
        size_t ne = 0, nd = 0;
        for (size_t i = 0; i < c->npairs; i++) {
            const rb_row *a = report_row(&c->base, (size_t)c->pairs[i].ia);
            const report_ov *ov = &c->pairs[i].ov;
            if (report_row_family(a) != f)
                continue;
            const verdict_speed v = report_speed(ov);
            n++;
            slower += v == VERDICT_SLOWER;
            faster += v == VERDICT_FASTER;
            same += v == VERDICT_SAME;
            na += v == VERDICT_SPEED_NONE;
            excl += report_ov_excludes_zero(ov);
            if (ov->state == REPORT_OV_OK)
                est[ne++] = ov->est;
            if (ov->state == REPORT_OV_OK)
                dp[nd++] = fabs(ov->est); /* the trial-level estimates, as the verdict uses */
            else if (ov->p50_a > 0 && isfinite(ov->p50_b))
                dp[nd++] = fabs(ov->p50_b / ov->p50_a - 1.0);
        }
        if (n == 0)
            continue;
        all += n;
        all_same += same;
        all_excl += excl;
        /* Medians and p95 as robust one-number summaries, not statistics to test. */
        qsort(est, ne, sizeof *est, cmp_dbl);
        qsort(dp, nd, sizeof *dp, cmp_dbl);
        double med = stats_percentile_sorted(est, ne, 50), dmed = stats_percentile_sorted(dp, nd, 50),
               d95 = stats_percentile_sorted(dp, nd, 95);
        fprintf(md, "| %s | %d | %d | %d | %d | %d | ", rb_family_name((rb_family)f), n, slower, faster, same, na);
        if (isfinite(med))
            fprintf(md, "%+.1f%% | ", 100 * med);
        else
            fputs("n/a | ", md);
        if (isfinite(dmed))
            fprintf(md, "%.1f%% | %.1f%% | %d |\n", 100 * dmed, 100 * d95, excl);
        else
            fprintf(md, "n/a | n/a | %d |\n", excl);
    }
    free(est);
    free(dp);
    fprintf(md,
            "\nOver all families: %d of %d pairs (%.1f%%) same within noise; %d have an interval that excludes 0.\n",
            all_same, all, all ? 100.0 * all_same / all : 0.0, all_excl);
}

// --- the summary and the changed cells -----------------------------------------------------------------

/* How many pairs are the same, slower, faster or not compared. */
typedef struct tallies {
    int n, same, slower, faster, na;
} tallies;

static tallies count_pairs(const compare_ctx *c)
{
    tallies t = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < c->npairs; i++) {
        const verdict_speed v = report_speed(&c->pairs[i].ov);
        t.n++;
        t.same += v == VERDICT_SAME;
        t.slower += v == VERDICT_SLOWER;
        t.faster += v == VERDICT_FASTER;
        t.na += v == VERDICT_SPEED_NONE;
    }
    return t;
}

/* "1629 of 1638 cells the same within noise, 5 slower, 4 faster" into buf. */
static void summary_str(const tallies *t, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%d of %d cells the same within noise, %d slower, %d faster", t->same, t->n, t->slower,
                       t->faster);
    if (t->na && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - len, ", %d not compared", t->na);
}

/* The files differ in platform: one native and one WSL2, or platform limits applied in one only. Only
 * then does compare.md lead with the WSL2 claim: otherwise the two files answer the same question and
 * what changed between them comes first. */
static int platform_differs(const compare_ctx *c)
{
    const char *wa = report_prov(&c->base, "wsl2"), *wb = report_prov(&c->other, "wsl2");
    const char *la = report_prov(&c->base, RB_PROV_PLATFORM_LIMITS),
               *lb = report_prov(&c->other, RB_PROV_PLATFORM_LIMITS);
    return (wa[0] && wb[0] && strcmp(wa, wb) != 0) || (la[0] != '\0') != (lb[0] != '\0');
}

/* "8 B", or "8 B, W = 64" for a cell measured at a window of messages in flight. */
static const char *cell_size(const rb_row *a, char *buf, size_t n)
{
    char sz[32];
    report_size_str(a->size_bytes, sz, sizeof sz);
    if (a->window > 1)
        snprintf(buf, n, "%s, W = %llu", sz, (unsigned long long)a->window);
    else
        snprintf(buf, n, "%s", a->size_bytes || report_row_family(a) == RB_FAM_LATENCY ? sz : "-");
    return buf;
}

static void changed_md(FILE *md, const compare_ctx *c)
{
    size_t *idx = NULL, n = compare_changed_pairs(c, &idx);
    char sz[80], buf[RB_REASON_LEN + 160];
    fprintf(md, "## Changed cells: %zu, largest change first\n\n", n);
    if (n == 0)
        fputs("None: every compared cell is the same within noise.\n", md);
    else
        fputs("| family | mode | size | BASE p50 | OTHER p50 | change [95% interval] | OTHER is | interval from |\n"
              "| --- | --- | --- | ---: | ---: | --- | --- | --- |\n",
              md);
    for (size_t k = 0; k < n; k++) {
        const pair *p = &c->pairs[idx[k]];
        const rb_row *a = report_row(&c->base, (size_t)p->ia);
        mode_spec m;
        fprintf(md, "| %s | %s | %s | %s | %s | ", a->family, report_row_mode(a, &m) ? report_mode_str(&m) : "baseline",
                cell_size(a, sz, sizeof sz), report_value(p->ov.p50_a, a->unit), report_value(p->ov.p50_b, a->unit));
        report_md_text(md, report_ov_str(&p->ov, buf, sizeof buf));
        fprintf(md, " | %s | %s |\n", report_speed_word(&p->ov), report_ov_method_str(&p->ov, buf, sizeof buf));
    }
    fputs("\nRates (GB/s) change on time per byte: + is slower. Every pair, changed or not, is in "
          "`compare_pairs.dat` (`ringbench export compare_pairs.dat --format csv`).\n",
          md);
    free(idx);
}

static void file_line_md(FILE *md, const char *which, const report_run *r)
{
    char machine[512];
    report_machine_str(r, machine, sizeof machine);
    fprintf(md, "- **%s**: ", which);
    report_md_text(md, machine);
    fputs(" — `", md);
    report_md_text(md, r->path);
    fputs("`\n", md);
}

static void warnings_md(FILE *md, const compare_ctx *c)
{
    if (!c->warnings[0])
        return;
    fputs("> **WARNING — THESE FILES ARE NOT LIKE FOR LIKE:**\n", md);
    for (const char *s = c->warnings; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        fputs("> - ", md);
        report_md_text(md, line);
        fputs("\n", md);
        s += len + (nl != NULL);
    }
    fputs("> Differences below mix the platform with these differences.\n\n", md);
}

/* The WSL2 claim across the two files: OTHER's fallback path against BASE's native path. */
static void claim_md(FILE *md, const compare_ctx *c, const headline_fig *figs, int lead)
{
    fprintf(md, "## The WSL2 claim: OTHER's fallback path against BASE's native path\n\n");
    if (!lead)
        fputs("The two files are of one platform, so this sets the fallback of one run against the native path "
              "of the other; each file's own report has the same within one run.\n\n",
              md);
    report_first_screen_md(md, &c->base, &c->other, figs, "answer");
}

static int write_compare_md(const compare_ctx *c, const headline_fig *figs, const char *dir, const report_opts *o,
                            char *err, size_t errlen)
{
    report_file rf;
    if (report_file_open(&rf, dir, "compare.md", err, errlen) != 0)
        return -1;
    FILE *md = rf.f;
    const tallies t = count_pairs(c);
    const int lead = platform_differs(c);
    char summary[256];
    summary_str(&t, summary, sizeof summary);
    /* The answer first (issue 52): how many cells changed, the two machines and commits, then only the
     * changed cells, largest first; the WSL2 claim leads only when the files differ in platform. */
    fprintf(md,
            "# ringbench compare: OTHER against BASE\n\n**%s** (slower or faster: the 95%% interval excludes 0 "
            "and the change is at least %.0f%%, --min-effect).\n\n",
            summary, 100 * o->min_effect);
    file_line_md(md, "BASE", &c->base);
    file_line_md(md, "OTHER", &c->other);
    fputs("\n", md);
    warnings_md(md, c);
    report_notes_md(md, &c->base, "BASE");
    report_notes_md(md, &c->other, "OTHER");
    if (lead)
        claim_md(md, c, figs, lead);
    changed_md(md, c);
    summary_md(md, c, o);
    if (!lead)
        claim_md(md, c, figs, lead);
    report_method_md(md, &c->base, &c->other, o);
    report_verdict_md(md, &c->base, &c->other, o);
    if (attr_section_md(md, &c->base, &c->other, dir, o, err, errlen) != 0)
        return -1;
    report_modes_md(md, &c->base, "BASE");
    report_modes_md(md, &c->other, "OTHER");
    fputs("\n## Plots\n\n![changed cells](compare_changes.png)\n\n![change heat map](compare_heatmap.png)\n\n"
          "![control-block and lifecycle change](compare_ops.png)\n\n"
          "Each has an SVG twin and a gnuplot script (`gnuplot NAME.gp` in this directory).\n",
          md);
    return report_file_close(&rf, err, errlen);
}

/* Everything of the comparison into dir (its staging folder). Returns 1 when all of it was written, else
 * 0 after one line on stderr (none when interrupted: report_dir_end says that). */
static int compare_into(compare_ctx *c, const report_opts *o, const char *label, const char *dir, headline_fig *figs)
{
    char err[REPORT_PATH_MAX + 512], title[1400] = "The WSL2 fallback path (OTHER) against the native path (BASE)";
    report_headlines(&c->base, &c->other, o, figs);
    report_label_title(title, sizeof title, label);
    int ok = write_pairs_dat(c, dir, err, sizeof err) == 0 && compare_plot_changes(c, dir, err, sizeof err) == 0 &&
             compare_plot_heatmap(c, dir, err, sizeof err) == 0 && compare_plot_ops(c, dir, err, sizeof err) == 0 &&
             report_plot_answer(figs, title, dir, err, sizeof err) == 0 &&
             write_compare_md(c, figs, dir, o, err, sizeof err) == 0 &&
             report_label_headings(dir, "compare.md", label, err, sizeof err) == 0;
    if (!ok && !report_stopped())
        fprintf(stderr, "ringbench compare: %s\n", err);
    return ok && report_render("compare", dir, compare_scripts, o->render) == 0;
}

int compare_write(const char *base, const char *other, const report_opts *opts)
{
    const report_opts o = *opts;
    const char *files[2] = {base, other};
    char err[REPORT_PATH_MAX + 512];
    compare_ctx c;
    int rc;
    memset(&c, 0, sizeof c);
    if (report_run_open(&c.base, files[0], err, sizeof err) != 0 ||
        report_run_open(&c.other, files[1], err, sizeof err) != 0) {
        fprintf(stderr, "ringbench compare: %s\n", err);
        rc = 2;
        goto out;
    }
    rc = 1;
    if (make_pairs(&c, &o) != 0) {
        fprintf(stderr, "ringbench compare: out of memory\n");
        goto out;
    }
    if (c.npairs == 0) {
        fprintf(stderr,
                "ringbench compare: %s and %s share no pairable rows (same family, mode and size, "
                "status ok, with samples): nothing to compare\n",
                files[0], files[1]);
        rc = 2;
        goto out;
    }
    check_like(&c);
    char label[1100];
    report_label_pair(&c.base, &c.other, label, sizeof label);
    if (label[0])
        fprintf(stderr, "ringbench compare: WARNING: %s\n", label);
    for (const char *s = c.warnings; *s;) {
        size_t len = strcspn(s, "\n");
        fprintf(stderr, "ringbench compare: WARNING: %.*s\n", (int)len, s);
        s += len + (s[len] == '\n');
    }
    for (int i = 0; i < 2; i++) {
        const report_run *r = i ? &c.other : &c.base;
        if (!r->complete)
            fprintf(stderr, "ringbench compare: WARNING: %s is an INCOMPLETE run (interrupted by %s)\n", r->path,
                    r->interrupted_by[0] ? r->interrupted_by : "unknown");
    }
    report_watch(o.stop);
    outfs_dir d;
    if (report_dir_begin(&d, "compare", o.out_dir, files[1], "-compare") != 0) {
        rc = 2;
        goto out;
    }
    /* Everything goes into the staging folder, which becomes the comparison only when complete. */
    headline_fig figs[HL_COUNT];
    char *md = outfs_path("%s/compare.md", d.path);
    if (report_dir_end(&d, "compare", md != NULL && compare_into(&c, &o, label, d.stage, figs)) == 0) {
        const tallies t = count_pairs(&c);
        char summary[256];
        summary_str(&t, summary, sizeof summary);
        printf("ringbench compare: %s (OTHER against BASE); wrote %s\n", summary, md);
        rc = 0;
        if (o.fail_on_change && t.slower + t.faster > 0) {
            fprintf(stderr, "ringbench compare: %d cells changed beyond the threshold (--fail-on-change): exit 1\n",
                    t.slower + t.faster);
            rc = 1;
        }
    }
    free(md);
out:
    report_watch(NULL);
    free(c.pairs);
    report_run_close(&c.base);
    report_run_close(&c.other);
    return rc;
}
