/* cuda_calls.c - the per-thread CUDA call counters and their snapshots (see cuda_calls.h).
 * Exercised by tests/test_cuda_calls.c (API and cost) and tests/test_call_counts.c (counts per mode). */
#include "cuda_calls.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

_Thread_local uint64_t cc_counts[CC_KIND_COUNT];
uint64_t cc_inject_ns[CC_KIND_COUNT];
int cc_inject_on;
_Thread_local uint64_t cc_injected_ns[CC_KIND_COUNT];

static const char *const kind_names[CC_KIND_COUNT] = {
#define CC_KIND_NAME(e, name, doc) [CC_##e] = name,
    CC_KINDS(CC_KIND_NAME)
#undef CC_KIND_NAME
};

static const char *const kind_docs[CC_KIND_COUNT] = {
#define CC_KIND_DOC(e, name, doc) [CC_##e] = doc,
    CC_KINDS(CC_KIND_DOC)
#undef CC_KIND_DOC
};

void cc_snap(cc_snapshot *s) { memcpy(s->n, cc_counts, sizeof s->n); }

uint64_t cc_diff(const cc_snapshot *before, const cc_snapshot *after, cc_kind k) { return after->n[k] - before->n[k]; }

void cc_per_op(const cc_snapshot *before, const cc_snapshot *after, uint64_t nops, double out[CC_KIND_COUNT])
{
    for (int k = 0; k < CC_KIND_COUNT; k++)
        out[k] = nops ? (double)cc_diff(before, after, (cc_kind)k) / (double)nops : NAN;
}

/* Compared through int: the enum's signedness is the compiler's choice. */
static int kind_valid(cc_kind k) { return (int)k >= 0 && (int)k < (int)CC_KIND_COUNT; }

const char *cc_kind_name(cc_kind k) { return kind_valid(k) ? kind_names[k] : NULL; }
const char *cc_kind_doc(cc_kind k) { return kind_valid(k) ? kind_docs[k] : NULL; }

int cc_kind_parse(const char *name)
{
    if (!name)
        return -1;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

/* --- injection ---------------------------------------------------------------------------------- */

void cc_inject_wait(int k)
{
    const uint64_t ns = cc_inject_ns[k];
    if (!ns)
        return;
    const uint64_t deadline = timing_now_ns() + ns;
    while (timing_now_ns() < deadline)
        ;
    cc_injected_ns[k] += ns;
}

void cc_inject_set(const double us[CC_KIND_COUNT])
{
    int any = 0;
    for (int k = 0; k < CC_KIND_COUNT; k++) {
        cc_inject_ns[k] = us && us[k] > 0 ? (uint64_t)llround(us[k] * 1e3) : 0;
        any |= cc_inject_ns[k] != 0;
    }
    cc_inject_on = any;
}

double cc_inject_check(double us, int n)
{
    uint64_t saved[CC_KIND_COUNT];
    const int saved_on = cc_inject_on;
    memcpy(saved, cc_inject_ns, sizeof saved);
    memset(cc_inject_ns, 0, sizeof cc_inject_ns);
    cc_inject_ns[CC_OTHER] = (uint64_t)llround(us * 1e3);
    const uint64_t before = cc_injected_ns[CC_OTHER], t0 = timing_now_ns();
    for (int i = 0; i < n; i++)
        cc_inject_wait(CC_OTHER);
    const double mean = n > 0 ? (double)(timing_now_ns() - t0) * 1e-3 / n : NAN;
    cc_injected_ns[CC_OTHER] = before; /* a check, not an injected call */
    memcpy(cc_inject_ns, saved, sizeof saved);
    cc_inject_on = saved_on;
    return mean;
}

/* One KIND=US term into us[]; 0 or -1 with err. */
static int inject_term(const char *t, size_t len, double us[CC_KIND_COUNT], char *err, size_t errlen)
{
    char term[64], *end;
    const char *eq = memchr(t, '=', len);
    if (len == 0 || len >= sizeof term || !eq || eq == t) {
        snprintf(err, errlen, "--inject-call-us: '%.*s' is not KIND=US (e.g. memcpy=5 or all=2)", (int)len, t);
        return -1;
    }
    memcpy(term, t, len);
    term[len] = '\0';
    term[eq - t] = '\0';
    const char *key = term, *val = term + (eq - t) + 1;
    double v = strtod(val, &end);
    if (end == val || isspace((unsigned char)*val) || (*end && strcmp(end, "us") != 0) || !isfinite(v) || v < 0 ||
        v > CC_INJECT_MAX_US) {
        snprintf(err, errlen, "--inject-call-us: '%.*s': the cost is microseconds from 0 to %g", (int)len, t,
                 CC_INJECT_MAX_US);
        return -1;
    }
    int k = cc_kind_parse(key);
    if (k >= 0) {
        us[k] = v;
    } else if (!strcmp(key, "all")) {
        for (int i = 0; i < CC_KIND_COUNT; i++)
            us[i] = v;
    } else if (!strcmp(key, "copies")) {
        us[CC_MEMCPY] = us[CC_MEMCPY_ASYNC] = v;
    } else if (!strcmp(key, "queries")) {
        us[CC_EVENT_QUERY] = us[CC_STREAM_QUERY] = v;
    } else {
        snprintf(err, errlen,
                 "--inject-call-us: unknown call kind '%s' (memcpy, memcpy_async, event_record, "
                 "event_query, stream_query, stream_sync, launch, other, all, copies, queries)",
                 key);
        return -1;
    }
    return 0;
}

int cc_inject_parse(const char *spec, double us[CC_KIND_COUNT], char *err, size_t errlen)
{
    for (int k = 0; k < CC_KIND_COUNT; k++)
        us[k] = 0;
    if (!spec || !*spec) {
        snprintf(err, errlen, "--inject-call-us needs KIND=US terms, e.g. memcpy=5 or all=2");
        return -1;
    }
    for (const char *s = spec;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (inject_term(s, len, us, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

char *cc_inject_format(const double us[CC_KIND_COUNT], char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (int k = 0; k < CC_KIND_COUNT && len < n; k++)
        if (us[k] > 0)
            len += (size_t)snprintf(buf + len, n - len, "%s%s=%g", len ? "," : "", kind_names[k], us[k]);
    return buf;
}
