/* attribution.c - calls x cost attribution and the per-call overhead MODEL (see attribution.h).
 * Pure computation on rows: tests/test_attribution.c checks it on synthetic pairs with known per-call
 * deltas; attribution_md.c turns it into compare.md / report.md sections and a plot. */
#define _POSIX_C_SOURCE 200809L
#include "attribution.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double base_p50(const rb_row *rows, size_t n, const char *family)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].family, family))
            return !strcmp(rows[i].status, RB_STATUS_OK) && isfinite(rows[i].p50) ? rows[i].p50 : NAN;
    return NAN;
}

int attr_costs(const rb_row *rows, size_t n, int pinned, double cost[CC_KIND_COUNT])
{
    const double h2d = base_p50(rows, n, pinned ? "call_memcpy_h2d_pinned" : "call_memcpy_h2d_pageable");
    const double d2h = base_p50(rows, n, pinned ? "call_memcpy_d2h_pinned" : "call_memcpy_d2h_pageable");
    const double aq = base_p50(rows, n, "call_memcpy_async_query");
    const double eq = base_p50(rows, n, "call_event_query_done");
    for (int k = 0; k < CC_KIND_COUNT; k++) /* a kind without a baseline has no known cost */
        cost[k] = NAN;
    cost[CC_MEMCPY] = (h2d + d2h) / 2;
    cost[CC_MEMCPY_ASYNC] = isfinite(aq) && isfinite(eq) ? fmax(aq - eq, 0) : NAN;
    cost[CC_EVENT_RECORD] = isfinite(cost[CC_MEMCPY_ASYNC]) ? 0 : NAN;
    cost[CC_EVENT_QUERY] = eq;
    cost[CC_STREAM_QUERY] = base_p50(rows, n, "call_stream_query_idle");
    cost[CC_STREAM_SYNC] = base_p50(rows, n, "call_stream_sync_idle");
    cost[CC_LAUNCH] = base_p50(rows, n, "call_launch_empty");
    cost[CC_OTHER] = 0;
    int known = 0;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        known += k != CC_OTHER && isfinite(cost[k]);
    return known;
}

int attr_row_calls(const rb_row *r, double c[CC_KIND_COUNT])
{
    rb_row_calls_get(r, c); /* cc_kind order is call_kinds.h order */
    for (int k = 0; k < CC_KIND_COUNT; k++)
        if (!isfinite(c[k]))
            return 0;
    return 1;
}

int attr_compute(const rb_row *base, const double pb[CC_KIND_COUNT], const rb_row *other,
                 const double po[CC_KIND_COUNT], attr_result *out)
{
    double cb[CC_KIND_COUNT], co[CC_KIND_COUNT];
    memset(out, 0, sizeof *out);
    if (!isfinite(base->p50) || !isfinite(other->p50) || !attr_row_calls(base, cb) || !attr_row_calls(other, co))
        return -1;
    out->base_us = base->p50;
    out->other_us = other->p50;
    out->delta_us = other->p50 - base->p50;
    for (int k = 0; k < CC_KIND_COUNT; k++) {
        if (cb[k] == 0 && co[k] == 0)
            continue; /* no call of this kind on either side: its cost does not matter */
        if (!isfinite(pb[k]) || !isfinite(po[k]))
            return -1;
        const double cbar = (cb[k] + co[k]) / 2, pbar = (pb[k] + po[k]) / 2;
        out->calls_base_us += cb[k] * pb[k];
        out->calls_other_us += co[k] * po[k];
        out->by_kind_us[k] = co[k] * po[k] - cb[k] * pb[k];
        out->by_cost_us += cbar * (po[k] - pb[k]);
        out->by_count_us += (co[k] - cb[k]) * pbar;
    }
    out->explained_us = out->calls_other_us - out->calls_base_us;
    out->remainder_us = out->delta_us - out->explained_us;
    return 0;
}

/* One KEY=VALUE[unit] term. */
static int parse_term(const char *term, double o[CC_KIND_COUNT], char *err, size_t errlen)
{
    char key[64];
    const char *eq = strchr(term, '=');
    if (!eq || eq == term || (size_t)(eq - term) >= sizeof key) {
        snprintf(err, errlen, "--call-overhead: '%s' is not KEY=VALUE (e.g. memcpy=12us)", term);
        return -1;
    }
    snprintf(key, sizeof key, "%.*s", (int)(eq - term), term);
    char *end;
    double v = strtod(eq + 1, &end);
    double scale = 1;
    if (!strcmp(end, "ns"))
        scale = 1e-3;
    else if (!strcmp(end, "ms"))
        scale = 1e3;
    else if (*end && strcmp(end, "us"))
        end = NULL;
    if (end == eq + 1 || !end || !isfinite(v) || v < 0) {
        snprintf(err, errlen, "--call-overhead: '%s': expected a non-negative time in us, ns or ms", term);
        return -1;
    }
    v *= scale;
    int k = cc_kind_parse(key);
    if (k >= 0)
        o[k] = v;
    else if (!strcmp(key, "query"))
        o[CC_EVENT_QUERY] = o[CC_STREAM_QUERY] = v;
    else if (!strcmp(key, "sync"))
        o[CC_STREAM_SYNC] = v;
    else if (!strcmp(key, "async"))
        o[CC_MEMCPY_ASYNC] = v;
    else {
        snprintf(err, errlen,
                 "--call-overhead: unknown call kind '%s' (memcpy, memcpy_async, event_record, "
                 "event_query, stream_query, stream_sync, launch, other, query, sync, async)",
                 key);
        return -1;
    }
    return 0;
}

int attr_parse_overhead(const char *spec, double o[CC_KIND_COUNT], char *err, size_t errlen)
{
    char buf[4096];
    for (int k = 0; k < CC_KIND_COUNT; k++)
        o[k] = 0;
    if (!spec || !*spec) {
        snprintf(err, errlen, "--call-overhead needs KEY=VALUE terms or a file");
        return -1;
    }
    if (!strchr(spec, '=')) { /* a file of KEY=VALUE lines */
        FILE *f = fopen(spec, "r");
        if (!f) {
            snprintf(err, errlen, "--call-overhead: cannot read '%s' (and it has no KEY=VALUE)", spec);
            return -1;
        }
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        for (char *p = buf; *p; p++) /* comments out, lines into terms */
            if (*p == '#')
                while (*p && *p != '\n')
                    *p++ = ' ';
        for (char *p = buf; *p; p++)
            if (*p == '\n' || *p == '\r' || *p == '\t')
                *p = ',';
    } else {
        snprintf(buf, sizeof buf, "%s", spec);
    }
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *w = t; /* spaces mean nothing inside a term: "memcpy = 7 us" */
        for (char *r = t; *r; r++)
            if (!isspace((unsigned char)*r))
                *w++ = *r;
        *w = '\0';
        if (*t && parse_term(t, o, err, errlen) != 0)
            return -1;
    }
    return 0;
}

double attr_predict(const rb_row *r, const double o[CC_KIND_COUNT], double *added_us)
{
    double c[CC_KIND_COUNT], add = 0;
    if (added_us)
        *added_us = NAN;
    if (!isfinite(r->p50) || !attr_row_calls(r, c))
        return NAN;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        add += c[k] * o[k];
    if (added_us)
        *added_us = add;
    return r->p50 + add;
}
