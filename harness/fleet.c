/* fleet.c - a history of many machines read as a fleet (fleet.h): machines, their runs and headline
 * figures, and the cross-platform ratio of every WSL2 / native pair of one GPU, judged night by night.
 * Exercised by tests/test_fleet.c and tests/fleet_cli.sh.
 */
#include "fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The environment fields a cross-platform series marks where they change: what updates under a
 * fleet every month (the Windows driver, the CUDA runtime, the WSL or Linux kernel). */
static const int MARKED[] = {HIST_ENV_driver, HIST_ENV_cuda_runtime, HIST_ENV_kernel_release};

/* A pair's false-alarm chance per night over its figures, and the lookback (track_detect.h). */
#define FLEET_ALPHA 0.05
#define FLEET_WINDOW 20
#define FLEET_MIN_HISTORY 5
#define FLEET_MIN_EFFECT 0.03

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's days_from_civil). */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

time_t fleet_parse_utc(const char *s)
{
    int y, mo, d, h, mi, sec;
    char z;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &sec, &z) != 7 || z != 'Z' || mo < 1 || mo > 12 ||
        d < 1 || d > 31)
        return 0;
    return (time_t)(days_from_civil(y, mo, d) * 86400L + h * 3600L + mi * 60L + sec);
}

const hist_headline *fleet_figure(const fleet_run *r, headline_id fig)
{
    return fig >= 0 && fig < HL_COUNT && r->hl[fig].key[0] ? &r->hl[fig] : NULL;
}

/* A side's standard error in log space from its 95 % interval; NAN without one. */
static double side_se(double v, double lo, double hi)
{
    if (!(v > 0 && lo > 0 && hi > 0 && hi >= lo))
        return NAN;
    return (log(hi) - log(lo)) / (2 * 1.96);
}

int fleet_cross_ratio(const hist_headline *wsl, const hist_headline *native, double *est, double *lo, double *hi)
{
    const double w = wsl->value[HL_FALLBACK], n = native->value[HL_NATIVE];
    *est = *lo = *hi = NAN;
    if (!(w > 0 && n > 0 && isfinite(w) && isfinite(n)))
        return -1;
    /* On time: a time's ratio as it is, a rate's inverted (the fallback's time per byte over the native's). */
    *est = wsl->rate ? n / w : w / n;
    double sw = side_se(w, wsl->lo[HL_FALLBACK], wsl->hi[HL_FALLBACK]);
    double sn = side_se(n, native->lo[HL_NATIVE], native->hi[HL_NATIVE]);
    if (isfinite(sw) && isfinite(sn)) {
        double se = sqrt(sw * sw + sn * sn);
        *lo = *est * exp(-1.96 * se);
        *hi = *est * exp(1.96 * se);
    }
    return 0;
}

size_t fleet_nearest(const fleet_run *runs, const size_t *idx, size_t n, time_t t)
{
    size_t best = 0;
    double bestd = INFINITY;
    for (size_t k = 0; k < n; k++) {
        double d = fabs(difftime(runs[idx[k]].start, t));
        if (d < bestd) { /* strictly nearer: a tie keeps the earlier run */
            bestd = d;
            best = k;
        }
    }
    return idx[best];
}

// --- runs and machines ------------------------------------------------------------------------------------

/* The stored headline figures of run r, each under its headline_id. */
static int load_figures(hist *h, fleet_run *r)
{
    hist_headline *hl = NULL;
    size_t n = 0;
    if (hist_run_headlines(h, r->l.run.id, &hl, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < HL_COUNT; k++)
            if (strcmp(hl[i].key, headline_defs[k].key) == 0)
                r->hl[k] = hl[i];
    free(hl);
    return 0;
}

static int load_runs(hist *h, fleet *f, char *err, size_t errlen)
{
    hist_listed *l = NULL;
    size_t n = 0;
    if (hist_list(h, &l, &n) != 0) {
        snprintf(err, errlen, "history query: %s", hist_error(h));
        return -1;
    }
    f->runs = n ? calloc(n, sizeof *f->runs) : NULL;
    if (n && !f->runs) {
        free(l);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    f->nruns = n;
    for (size_t i = 0; i < n; i++) {
        f->runs[i].l = l[i];
        f->runs[i].start = fleet_parse_utc(l[i].run.start);
    }
    free(l);
    for (size_t i = 0; i < n; i++)
        if (load_figures(h, &f->runs[i]) != 0) {
            snprintf(err, errlen, "history query: %s", hist_error(h));
            return -1;
        }
    return 0;
}

/* The machine of fingerprint fp, added when new; -1 when out of memory. */
static long machine_of(fleet *f, const fleet_run *r)
{
    for (size_t m = 0; m < f->nm; m++)
        if (strcmp(f->m[m].fingerprint, r->l.run.machine) == 0)
            return (long)m;
    fleet_machine *t = realloc(f->m, (f->nm + 1) * sizeof *t);
    if (!t)
        return -1;
    f->m = t;
    f->m[f->nm] = (fleet_machine){.fingerprint = r->l.run.machine, .first = r, .newest = -1};
    f->m[f->nm].runs = malloc(f->nruns * sizeof *f->m[f->nm].runs);
    if (!f->m[f->nm].runs)
        return -1;
    return (long)f->nm++;
}

static int group_machines(fleet *f, char *err, size_t errlen)
{
    for (size_t i = 0; i < f->nruns; i++) {
        long m = machine_of(f, &f->runs[i]);
        if (m < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        fleet_machine *x = &f->m[m];
        x->nall++;
        x->newest = (long)i; /* runs come oldest first */
        if (f->runs[i].l.run.complete)
            x->runs[x->n++] = i;
    }
    return 0;
}

// --- cross-platform pairs -------------------------------------------------------------------------------

/* What changed between two runs of one machine in the marked fields, after "who: ". */
static void changes(const fleet_run *a, const fleet_run *b, const char *who, char *buf, size_t n)
{
    size_t len = strlen(buf);
    for (size_t k = 0; k < sizeof MARKED / sizeof *MARKED && len < n; k++) {
        const char *x = a->l.run.env[MARKED[k]], *y = b->l.run.env[MARKED[k]];
        if (strcmp(x, y) != 0)
            len += (size_t)snprintf(buf + len, n - len, "%s%s %s %s -> %s", len ? "; " : "", who,
                                    hist_env_word(MARKED[k]), x, y);
    }
}

/* Series fig of pair p: a point per complete run of the WSL2 machine whose figure and the nearest
 * native run's were both measured. */
static int build_series(const fleet *f, const fleet_pair *p, fleet_series *s)
{
    const fleet_machine *w = &f->m[p->wsl], *nat = &f->m[p->native];
    s->pts = calloc(w->n ? w->n : 1, sizeof *s->pts);
    if (!s->pts)
        return -1;
    for (size_t k = 0; k < w->n; k++) {
        const fleet_run *rw = &f->runs[w->runs[k]];
        size_t jn = fleet_nearest(f->runs, nat->runs, nat->n, rw->start);
        const hist_headline *hw = fleet_figure(rw, s->fig), *hn = fleet_figure(&f->runs[jn], s->fig);
        fleet_point *pt = &s->pts[s->n];
        if (!hw || !hn || fleet_cross_ratio(hw, hn, &pt->est, &pt->lo, &pt->hi) != 0)
            continue;
        pt->wsl = w->runs[k];
        pt->native = jn;
        if (s->n > 0) {
            const fleet_point *prev = &s->pts[s->n - 1];
            changes(&f->runs[prev->wsl], rw, "WSL2", pt->change, sizeof pt->change);
            changes(&f->runs[prev->native], &f->runs[jn], "native", pt->change, sizeof pt->change);
        }
        s->n++;
    }
    return 0;
}

/* Judges the newest night of every series of p, the pair's figures sharing FLEET_ALPHA. */
static int judge_pair(fleet_pair *p)
{
    size_t nfig = 0;
    for (int k = 0; k < HL_COUNT; k++)
        nfig += p->s[k].n > 0;
    for (int k = 0; k < HL_COUNT; k++) {
        fleet_series *s = &p->s[k];
        s->r.kind = TRACK_NO_HISTORY;
        if (s->n == 0)
            continue;
        track_point *pts = malloc(s->n * sizeof *pts);
        if (!pts)
            return -1;
        for (size_t i = 0; i < s->n; i++)
            pts[i] = (track_point){s->pts[i].est, s->pts[i].lo, s->pts[i].hi};
        size_t base = s->n - 1 < FLEET_WINDOW ? s->n - 1 : FLEET_WINDOW;
        s->thr = track_family_threshold(FLEET_ALPHA, nfig, base);
        const track_params tp = {FLEET_WINDOW, FLEET_MIN_HISTORY, s->thr, FLEET_MIN_EFFECT};
        track_judge(pts, s->n, 0, &tp, &s->r);
        free(pts);
        p->regressions += s->r.kind == TRACK_REGRESSION;
        p->improvements += s->r.kind == TRACK_IMPROVEMENT;
    }
    return 0;
}

/* 1 when machines a (WSL2) and b (native) are one GPU model on the two platforms. */
static int is_pair(const fleet_machine *a, const fleet_machine *b)
{
    const hist_listed *x = &a->first->l, *y = &b->first->l;
    return x->wsl2 && !y->wsl2 && a->n > 0 && b->n > 0 && strcmp(x->gpu, y->gpu) == 0 &&
           strcmp(x->backend, y->backend) == 0;
}

static int find_pairs(fleet *f, char *err, size_t errlen)
{
    f->pairs = calloc(f->nm * f->nm + 1, sizeof *f->pairs);
    if (!f->pairs)
        goto oom;
    for (size_t a = 0; a < f->nm; a++)
        for (size_t b = 0; b < f->nm; b++) {
            if (!is_pair(&f->m[a], &f->m[b]))
                continue;
            fleet_pair *p = &f->pairs[f->np++];
            p->wsl = a;
            p->native = b;
            for (int k = 0; k < HL_COUNT; k++) {
                p->s[k].fig = (headline_id)k;
                if (build_series(f, p, &p->s[k]) != 0)
                    goto oom;
            }
            if (judge_pair(p) != 0)
                goto oom;
            f->regressions += p->regressions;
        }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int fleet_load(hist *h, fleet *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (load_runs(h, f, err, errlen) != 0 || group_machines(f, err, errlen) != 0)
        return -1;
    return find_pairs(f, err, errlen);
}

void fleet_free(fleet *f)
{
    for (size_t m = 0; m < f->nm; m++)
        free(f->m[m].runs);
    for (size_t p = 0; p < f->np; p++)
        for (int k = 0; k < HL_COUNT; k++)
            free(f->pairs[p].s[k].pts);
    free(f->pairs);
    free(f->m);
    free(f->runs);
    memset(f, 0, sizeof *f);
}
