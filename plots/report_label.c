/* report_label.c - what report and compare do for an injected, limits-applied or faulted run (issues 21, 53,
 * results/run_label.h): the label in every heading of report.md and compare.md, in every plot title,
 * a loud note at the top, and a line on stderr. A plain run (every run made before issue 21) gets
 * nothing. Exercised by tests/inject_cli.sh.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_internal.h"
#include "run_label.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void report_label_of(const report_run *run, char *buf, size_t n)
{
    rb_run_label(report_prov(run, RB_PROV_INJECT_CALL_US), report_prov(run, RB_PROV_PLATFORM_LIMITS), buf, n);
    rb_run_label_faults(report_prov(run, RB_PROV_INJECT_FAULT), buf, n);
}

void report_label_pair(const report_run *base, const report_run *other, char *buf, size_t n)
{
    char a[512], b[512];
    report_label_of(base, a, sizeof a);
    if (base == other) {
        snprintf(buf, n, "%s", a);
        return;
    }
    report_label_of(other, b, sizeof b);
    if (a[0] && b[0])
        snprintf(buf, n, "BASE: %s; OTHER: %s", a, b);
    else if (a[0])
        snprintf(buf, n, "BASE: %s", a);
    else if (b[0])
        snprintf(buf, n, "OTHER: %s", b);
    else if (n)
        buf[0] = '\0';
}

void report_label_title(char *title, size_t n, const char *label)
{
    size_t len = strlen(title);
    if (label[0] && len < n)
        snprintf(title + len, n - len, " - %s", label);
}

void report_label_note_md(FILE *md, const report_run *run, const char *name)
{
    const char *inj = report_prov(run, RB_PROV_INJECT_CALL_US), *lim = report_prov(run, RB_PROV_PLATFORM_LIMITS);
    if (inj[0]) {
        fprintf(md,
                "> **WARNING — INJECTED PER-CALL COST (%s):** before every counted CUDA call of these kinds "
                "the calling thread spent the given time in a busy wait: `",
                name);
        report_md_text(md, inj);
        fputs("` (microseconds per call). These numbers measure what such a per-call cost *would* do to this "
              "machine; they are not this machine's own figures and not a WSL2 measurement.\n\n",
              md);
    }
    const char *faults = report_prov(run, RB_PROV_INJECT_FAULT);
    if (faults[0]) {
        fprintf(md, "> **WARNING — FAULTS INJECTED (%s):** `", name);
        report_md_text(md, faults);
        fputs("`: on purpose, replies of these modes never arrived, arrived after the host's wait, or arrived "
              "stale (`ringbench run --inject-fault`). Their failed cells test ringbench, not this machine.\n\n",
              md);
    }
    if (lim[0]) {
        fprintf(md, "> **WARNING — LIMITS APPLIED (%s):** the documented limits of `", name);
        report_md_text(md, lim);
        fputs("` were applied to this machine (modes they forbid are recorded unsupported, \"limit applied: "
              "...\"; the others were measured here). This is **not** a run on that platform.\n\n",
              md);
    }
}

void report_machine_lines_md(FILE *md, const report_run *run)
{
    const char *note = report_prov(run, "pinned_ceiling_note");
    if (!note[0] && !report_prov(run, "pinned_ceiling_total_bytes")[0])
        return;
    fputs("**This machine, per CUDA call and pinned memory** (what WSL2 changes; `ringbench probe` prints the "
          "same): ",
          md);
    int any = 0;
    for (int f = 0; f < RB_FAM_COUNT; f++) {
        const char *name = rb_family_name((rb_family)f);
        if (strncmp(name, "call_", 5) != 0)
            continue;
        for (size_t i = 0; i < report_nrows(run); i++) {
            const rb_row *r = report_row(run, i);
            if (strcmp(r->family, name) != 0 || !report_row_ok(r))
                continue;
            fprintf(md, "%s`%s` %s [%s, ", any++ ? ", " : "", name + 5, report_time(r->p50), report_time(r->ci_lo));
            fprintf(md, "%s]", report_time(r->ci_hi));
            break;
        }
    }
    if (!any)
        fputs("per-call costs not measured (no CUDA device: the CPU backend records none)", md);
    const char *largest = report_prov(run, "pinned_ceiling_largest_bytes");
    const char *total = report_prov(run, "pinned_ceiling_total_bytes"),
               *bound = report_prov(run, "pinned_ceiling_bound_bytes");
    if (largest[0] && total[0])
        fprintf(md,
                ". Pinned-memory ceiling: largest single `cudaHostAlloc` %.2f GiB, total %.2f GiB, searched up "
                "to %.2f GiB",
                strtod(largest, NULL) / 1073741824.0, strtod(total, NULL) / 1073741824.0,
                strtod(bound, NULL) / 1073741824.0);
    else
        fputs(". Pinned-memory ceiling: ", md);
    if (note[0]) {
        fputs(largest[0] ? " (" : "", md);
        report_md_text(md, note);
        fputs(largest[0] ? ")" : "", md);
    }
    fputs(".\n\n", md);
}

int report_label_headings(const char *dir, const char *name, const char *label, char *err, size_t errlen)
{
    if (!label[0])
        return 0;
    char *path = outfs_path("%s/%s", dir, name);
    FILE *in = path ? fopen(path, "r") : NULL;
    if (!in) {
        snprintf(err, errlen, "%s: %s", path ? path : name, path ? strerror(errno) : "out of memory");
        free(path);
        return -1;
    }
    report_file rf;
    if (report_file_open(&rf, dir, name, err, errlen) != 0) {
        fclose(in);
        free(path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int fenced = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (strncmp(line, "```", 3) == 0)
            fenced = !fenced;
        if (fenced || line[0] != '#') {
            fputs(line, rf.f);
            continue;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        fprintf(rf.f, "%s — ", line);
        report_md_text(rf.f, label);
        fputc('\n', rf.f);
    }
    int bad = ferror(in);
    free(line);
    fclose(in);
    if (bad) {
        report_file_discard(&rf);
        snprintf(err, errlen, "%s: read error", path);
        free(path);
        return -1;
    }
    free(path);
    return report_file_close(&rf, err, errlen);
}
