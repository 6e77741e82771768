/* headline.c - the headline figures (headline.h): which cells they are, and their ratios. */
#include "headline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "verdict.h"

const headline_def headline_defs[HL_COUNT] = {
    [HL_RT_SMALL] = {"round_trip_small", "round trip", RB_FAM_LATENCY, HL_SIZE_SMALLEST, 0, 0, 0},
    [HL_RT_FASTEST] = {"round_trip_small_fastest", "round trip, fastest native mode", RB_FAM_LATENCY, HL_SIZE_SMALLEST,
                       1, 0, 0},
    [HL_RT_LARGE] = {"round_trip_large", "round trip", RB_FAM_LATENCY, HL_SIZE_LARGEST, 0, 0, 0},
    [HL_THR_LARGE] = {"throughput_large", "throughput", RB_FAM_THROUGHPUT, HL_SIZE_LARGEST, 0, 0, 0},
    [HL_CB_READ] = {"cb_read", "control-block read", RB_FAM_CB_READ, HL_SIZE_NONE, 0, 0, 1},
    [HL_CB_WRITE] = {"cb_write", "control-block write", RB_FAM_CB_WRITE, HL_SIZE_NONE, 0, 0, 1},
    [HL_CB_HANDSHAKE] = {"cb_handshake", "control-block handshake", RB_FAM_CB_HANDSHAKE, HL_SIZE_NONE, 0, 0, 1},
    [HL_FULL_WINDOW] = {"full_window_small", "full window, fastest native mode", RB_FAM_THROUGHPUT, HL_SIZE_SMALLEST, 1,
                        1, 0},
};

// --- finding cells ----------------------------------------------------------------------------------------

static const rb_row *src_row(const headline_source *s, size_t i) { return s->row(s->ctx, i); }

/* 1 when the row's mode fields name a mode (into *m), 0 for a baseline or an unknown mode. */
static int row_mode(const rb_row *r, mode_spec *m)
{
    const char *fields[RB_AXIS_COUNT] = {r->host_mem, r->xfer, r->launch, r->ctrl};
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        if ((m->v[a] = mode_axis_parse((mode_axis)a, fields[a])) < 0)
            return 0;
    return 1;
}

static int mode_eq(const mode_spec *a, const mode_spec *b) { return memcmp(a->v, b->v, sizeof a->v) == 0; }

static int row_ok(const rb_row *r) { return strcmp(r->status, RB_STATUS_OK) == 0 && isfinite(r->p50); }

uint64_t headline_size_end(const headline_source *s, rb_family f, int largest)
{
    uint64_t v = 0;
    int any = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        const rb_row *r = src_row(s, i);
        if (rb_family_parse(r->family) != (int)f)
            continue;
        if (!any++ || (largest ? r->size_bytes > v : r->size_bytes < v))
            v = r->size_bytes;
    }
    return v;
}

/* The row of family f, mode m and size at its widest window (any status), or -1. */
static long find_row(const headline_source *s, rb_family f, const mode_spec *m, uint64_t size)
{
    long best = -1;
    mode_spec rm;
    for (size_t i = 0; i < s->nrows; i++) {
        const rb_row *r = src_row(s, i);
        if (r->size_bytes != size || rb_family_parse(r->family) != (int)f || !row_mode(r, &rm) || !mode_eq(&rm, m))
            continue;
        if (best < 0 || r->window > src_row(s, (size_t)best)->window)
            best = (long)i;
    }
    return best;
}

/* The fastest ok mode on pinned host memory (lowest time, or highest rate) at its widest window; -1 when
 * none was measured. Pinned host memory is what the native fast paths need and WSL2 denies. */
static long find_fastest(const headline_source *s, rb_family f, uint64_t size)
{
    const int rate = strcmp(rb_family_unit(f), "GB/s") == 0;
    long best = -1;
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        if (m.v[RB_AXIS_HOST] != RB_HOST_PINNED)
            continue;
        long i = find_row(s, f, &m, size);
        if (i < 0 || !row_ok(src_row(s, (size_t)i)))
            continue;
        double v = src_row(s, (size_t)i)->p50, b = best >= 0 ? src_row(s, (size_t)best)->p50 : NAN;
        if (best < 0 || (rate ? v > b : v < b))
            best = i;
    }
    return best;
}

// --- the figures ------------------------------------------------------------------------------------------

static void side_fill(const headline_source *s, long i, const mode_spec *m, int fastest, headline_side *out)
{
    char mode[64];
    memset(out, 0, sizeof *out);
    out->row = i;
    out->mode = *m;
    out->value = out->lo = out->hi = out->spread = out->msgs_per_s = NAN;
    mode_label(m, mode, sizeof mode);
    if (i < 0) {
        if (fastest)
            snprintf(out->why, sizeof out->why, "no mode on pinned host memory was measured");
        else
            snprintf(out->why, sizeof out->why, "%s: not in this file", mode);
        return;
    }
    const rb_row *r = src_row(s, (size_t)i);
    if (!row_ok(r)) {
        snprintf(out->why, sizeof out->why, "%s: %s%s%.*s", mode, r->status, r->reason[0] ? ": " : "",
                 (int)(sizeof out->why / 2), r->reason);
        return;
    }
    out->ok = 1;
    out->value = r->p50;
    out->lo = r->ci_lo;
    out->hi = r->ci_hi;
    out->spread = r->trial_cv;
    out->trials = (size_t)r->trials;
    if (strcmp(r->unit, "GB/s") == 0)
        out->msgs_per_s =
            isfinite(r->msgs_per_s) ? r->msgs_per_s : r->p50 * 1e9 / (double)(r->size_bytes ? r->size_bytes : 1);
}

/* The ratio of the two sides: the one estimator of headline.h. */
static void ratio_fill(const headline_source *ns, const headline_source *fs, int reps, uint64_t seed, headline_fig *f)
{
    const headline_side *n = &f->side[HL_NATIVE], *b = &f->side[HL_FALLBACK];
    f->ratio = f->ratio_lo = f->ratio_hi = NAN;
    if (!n->ok || !b->ok) {
        snprintf(f->why, sizeof f->why, "%s", !n->ok ? n->why : b->why);
        return;
    }
    size_t ka = 0, kb = 0;
    const int32_t *ra = NULL, *rb = NULL;
    const stats_trial *a = ns->trials(ns->ctx, (size_t)n->row, &ka, &ra);
    const stats_trial *t = fs->trials(fs->ctx, (size_t)b->row, &kb, &rb);
    if (a == NULL || t == NULL) {
        snprintf(f->why, sizeof f->why, "%s has no raw samples to bootstrap",
                 a == NULL ? "the native cell" : "the fallback cell");
        return;
    }
    stats_interval ci;
    f->paired = verdict_pairable(ns->ctx == fs->ctx, ra, ka, rb, kb);
    if (verdict_overhead(a, ka, t, kb, f->paired, reps, seed, &ci) != 0) {
        snprintf(f->why, sizeof f->why, "the bootstrap refused these samples (a zero median?)");
        return;
    }
    f->ratio_ok = 1;
    f->ratio = 1 + ci.est;
    f->ratio_lo = 1 + ci.lo;
    f->ratio_hi = 1 + ci.hi;
    f->method = ci.method;
}

static void fig_compute(const headline_source *ns, const headline_source *fs, int reps, uint64_t seed, headline_fig *f)
{
    const headline_def *d = f->def;
    const mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    f->size = d->size == HL_SIZE_NONE ? 0 : headline_size_end(ns, d->family, d->size == HL_SIZE_LARGEST);
    long in = d->fastest ? find_fastest(ns, d->family, f->size) : find_row(ns, d->family, &nat, f->size);
    mode_spec nm = nat;
    if (d->fastest && in >= 0)
        row_mode(src_row(ns, (size_t)in), &nm);
    side_fill(ns, in, &nm, d->fastest, &f->side[HL_NATIVE]);
    side_fill(fs, find_row(fs, d->family, &fb, f->size), &fb, 0, &f->side[HL_FALLBACK]);
    f->window = in >= 0 ? src_row(ns, (size_t)in)->window : 0;
    ratio_fill(ns, fs, reps, seed, f);
}

void headline_compute(const headline_source *native, const headline_source *fallback, int reps, uint64_t seed,
                      headline_fig out[HL_COUNT])
{
    for (int k = 0; k < HL_COUNT; k++) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].def = &headline_defs[k];
        fig_compute(native, fallback, reps, seed, &out[k]);
    }
}

verdict_claim headline_claim(const headline_fig *f)
{
    return f->ratio_ok ? verdict_claim_of(f->ratio_lo - 1, f->ratio_hi - 1) : VERDICT_CLAIM_NONE;
}

verdict_claim headline_verdict(const headline_fig f[HL_COUNT], double *lo, double *hi)
{
    int n = 0, above = 0, inside = 0, below = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < HL_COUNT; k++) {
        if (!f[k].def->claim || !f[k].ratio_ok)
            continue;
        const verdict_claim v = headline_claim(&f[k]);
        n++;
        above += v == VERDICT_ABOVE;
        inside += v == VERDICT_INSIDE;
        below += v == VERDICT_BELOW;
        *lo = fmin(*lo, f[k].ratio);
        *hi = fmax(*hi, f[k].ratio);
    }
    if (n == 0)
        return VERDICT_CLAIM_NONE;
    return above == n ? VERDICT_ABOVE : inside == n ? VERDICT_INSIDE : below == n ? VERDICT_BELOW : VERDICT_MIXED;
}
