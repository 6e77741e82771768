/* fleet_list.c - `ringbench track --list` (fleet_page.h): every run of a history on one line, and the
 * summariser that stores each run's headline figures with it. Exercised by tests/fleet_cli.sh.
 */
#include "fleet_page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_headline.h"
#include "report_internal.h"

int fleet_summarise(const char *path, hist_headline *out, size_t max, size_t *n, void *ctx)
{
    (void)ctx;
    report_run run;
    headline_source s;
    headline_fig figs[HL_COUNT];
    char err[512];
    *n = 0;
    if (report_run_open(&run, path, err, sizeof err) != 0)
        return -1;
    report_headline_source(&run, &s);
    headline_compute(&s, &s, REPORT_DEFAULT_REPS, REPORT_DEFAULT_SEED, figs);
    for (int k = 0; k < HL_COUNT && *n < max; k++) {
        const headline_fig *f = &figs[k];
        hist_headline *x = &out[(*n)++];
        memset(x, 0, sizeof *x);
        snprintf(x->key, sizeof x->key, "%s", f->def->key);
        x->rate = report_unit_is_rate(rb_family_unit(f->def->family));
        for (int side = 0; side < 2; side++) {
            const headline_side *sd = &f->side[side];
            x->value[side] = sd->ok ? sd->value : NAN;
            x->lo[side] = sd->ok ? sd->lo : NAN;
            x->hi[side] = sd->ok ? sd->hi : NAN;
        }
        x->ratio = f->ratio_ok ? f->ratio : NAN;
        x->ratio_lo = f->ratio_ok ? f->ratio_lo : NAN;
        x->ratio_hi = f->ratio_ok ? f->ratio_hi : NAN;
        x->size = f->size;
        x->window = f->window;
    }
    report_run_close(&run);
    return 0;
}

const char *fleet_verdict_words(const hist_listed *x, char *buf, size_t n)
{
    const hist_judgement *j = &x->j;
    const char *tail = x->run.complete ? "" : ", interrupted run";
    if (!j->verdict[0])
        snprintf(buf, n, "no verdict stored%s", tail);
    else if (strcmp(j->verdict, "regression") == 0)
        snprintf(buf, n, "REGRESSION (%d cell%s)%s", j->regressions, j->regressions == 1 ? "" : "s", tail);
    else if (strcmp(j->verdict, "improvement") == 0)
        snprintf(buf, n, "improvement (%d cell%s)%s", j->improvements, j->improvements == 1 ? "" : "s", tail);
    else if (strcmp(j->verdict, "no change") == 0)
        snprintf(buf, n, "OK%s", tail); /* the terminal's and history.md's word for a green night */
    else
        snprintf(buf, n, "%s%s", j->verdict, tail);
    return buf;
}

/* The columns of a listed run, as printed. */
enum { COL_MACHINE, COL_PLATFORM, COL_GPU, COL_DRIVER, COL_START, COL_COMMIT, COL_VERDICT, NCOLS };

static void columns(const hist_listed *x, char col[NCOLS][160])
{
    const int cpu = strcmp(x->backend, "cuda") != 0;
    snprintf(col[COL_MACHINE], 160, "%s", x->host);
    snprintf(col[COL_PLATFORM], 160, "%s", x->wsl2 ? "wsl2" : "native");
    snprintf(col[COL_GPU], 160, "%s", cpu ? "CPU backend (no GPU)" : x->gpu);
    snprintf(col[COL_DRIVER], 160, "%s", cpu ? "-" : x->run.env[HIST_ENV_driver]);
    snprintf(col[COL_START], 160, "%s", x->run.start);
    snprintf(col[COL_COMMIT], 160, "%.12s", x->run.env[HIST_ENV_git_commit]);
    fleet_verdict_words(x, col[COL_VERDICT], 160);
}

void fleet_print_list(FILE *out, const hist_listed *runs, size_t n)
{
    static const char *const head[NCOLS] = {"machine", "platform", "GPU", "driver", "start (UTC)", "commit", "verdict"};
    int width[NCOLS];
    char col[NCOLS][160];
    for (int c = 0; c < NCOLS; c++)
        width[c] = (int)strlen(head[c]);
    for (size_t i = 0; i < n; i++) {
        columns(&runs[i], col);
        for (int c = 0; c < NCOLS; c++)
            if ((int)strlen(col[c]) > width[c])
                width[c] = (int)strlen(col[c]);
    }
    for (int c = 0; c < NCOLS; c++)
        fprintf(out, "%-*s%s", c + 1 < NCOLS ? width[c] : 0, head[c], c + 1 < NCOLS ? "  " : "\n");
    for (size_t i = 0; i < n; i++) {
        columns(&runs[i], col);
        for (int c = 0; c < NCOLS; c++)
            fprintf(out, "%-*s%s", c + 1 < NCOLS ? width[c] : 0, col[c], c + 1 < NCOLS ? "  " : "\n");
    }
}
