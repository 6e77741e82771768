/* presets.c - the presets of `ringbench run` and the --sizes and --windows grammars (see sweep.h).
 * Exercised by tests/cli_test.sh (every grammar error path) and by every run. */
#include "sweep.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- presets ------------------------------------------------------------------------------------ */

/* Budgets are per TRIAL: a cell is measured in `trials` independent trials (fresh buffers, a fresh
 * kernel launch), interleaved with every other mode's at the same size, so the count and time caps
 * per trial are small and the run-to-run spread is measured rather than averaged away. The count
 * cap keeps results files small enough to commit and send around; the quick and default presets take
 * a fixed count per trial (no minimum time, which made a 0.03 us control-block write take 160 000
 * samples a trial), or fewer when the time cap comes first. */
#define RULE(minn, mins, maxs, maxn)                                                                \
    {                                                                                               \
        .min_samples = (minn), .min_seconds = (mins), .max_seconds = (maxs), .max_samples = (maxn), \
        .rel_ci_width = 0.01                                                                        \
    }

static const preset_def presets[] = {
    {.name = "quick",
     .doc = "a few sizes, all modes, 3 trials: a smoke run (under 30 s on the H100)",
     .sizes = "8,4K,1M",
     .windows = "1,8,cap",
     .trials = 3,
     .latency = {.warmup = 20, .rule = RULE(500, 0, 0.02, 500)},
     .cb = {.warmup = 20, .rule = RULE(500, 0, 0.01, 500)},
     .tput_reps = 2,
     .tput_rep_seconds = 0.005,
     .memcpy_reps = 2,
     .memcpy_rep_seconds = 0.003,
     .lifecycle_cycles = 2},
    {.name = "default",
     .doc = "powers of 4 from 8 B to 4 MiB, 5 trials (under 5 minutes on the H100)",
     .sizes = "8,16..4M:x4",
     .windows = "1,8,64,cap",
     .trials = 5,
     .latency = {.warmup = 50, .rule = RULE(1000, 0, 0.04, 1000)},
     .cb = {.warmup = 50, .rule = RULE(1000, 0, 0.02, 1000)},
     .tput_reps = 2,
     .tput_rep_seconds = 0.01,
     .memcpy_reps = 3,
     .memcpy_rep_seconds = 0.005,
     .lifecycle_cycles = 4},
    {.name = "full",
     .doc = "powers of 2 from 8 B to 16 MiB, 10 trials, longer trials",
     .sizes = "8..16M",
     .windows = "1,2,4,8,16,32,64,128,256,cap",
     .trials = 10,
     .latency = {.warmup = 100, .rule = RULE(2000, 0.05, 0.2, 20000)},
     .cb = {.warmup = 100, .rule = RULE(2000, 0.05, 0.1, 20000)},
     .tput_reps = 3,
     .tput_rep_seconds = 0.02,
     .memcpy_reps = 5,
     .memcpy_rep_seconds = 0.01,
     .lifecycle_cycles = 8},
};

size_t preset_count(void) { return sizeof presets / sizeof *presets; }

const preset_def *preset_at(size_t i) { return i < preset_count() ? &presets[i] : NULL; }

const preset_def *preset_find(const char *name)
{
    for (size_t i = 0; i < preset_count(); i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

/* --- sizes -------------------------------------------------------------------------------------- */

#define MAX_SIZE (1u << 30)

/* Parses one size with an optional K/M/G suffix from s[0..len). */
static int parse_size(const char *s, size_t len, uint64_t *out, char *err, size_t errlen)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && isdigit((unsigned char)s[i]); i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > (1ull << 40))
            break;
    }
    if (i == 0) {
        snprintf(err, errlen, "--sizes: '%.*s' is not a size (expected e.g. 8, 4K, 16M)", (int)len, s);
        return -1;
    }
    if (i < len) {
        char c = (char)toupper((unsigned char)s[i]);
        uint64_t mul = c == 'K' ? 1024u : c == 'M' ? 1024u * 1024u : c == 'G' ? 1024u * 1024u * 1024u : 0;
        if (!mul || i + 1 != len) {
            snprintf(err, errlen, "--sizes: '%.*s': unknown suffix (use K, M or G)", (int)len, s);
            return -1;
        }
        v *= mul;
    }
    if (v == 0 || v % 4 || v > MAX_SIZE) {
        snprintf(err, errlen, "--sizes: %.*s = %llu bytes: sizes must be multiples of 4 from 4 B to 1 GiB", (int)len, s,
                 (unsigned long long)v);
        return -1;
    }
    *out = v;
    return 0;
}

static int add_size(preset_sizes *o, uint64_t v, char *err, size_t errlen)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i] == v)
            return 0;
    if (o->n == sizeof o->v / sizeof *o->v) {
        snprintf(err, errlen, "--sizes: more than %zu sizes", sizeof o->v / sizeof *o->v);
        return -1;
    }
    o->v[o->n++] = (uint32_t)v;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int parse_range(const char *s, size_t len, preset_sizes *o, char *err, size_t errlen)
{
    const char *dots = strstr(s, "..");
    const char *colon = memchr(s, ':', len);
    uint64_t lo, hi, factor = 0;
    if (parse_size(s, (size_t)(dots - s), &lo, err, errlen) < 0)
        return -1;
    const char *hs = dots + 2;
    size_t hl = colon ? (size_t)(colon - hs) : len - (size_t)(hs - s);
    if (parse_size(hs, hl, &hi, err, errlen) < 0)
        return -1;
    if (colon) {
        const char *f = colon + 1;
        char *end;
        if (*f != 'x' || (factor = strtoull(f + 1, &end, 10)) < 2 || end != s + len) {
            snprintf(err, errlen, "--sizes: '%.*s': the step is written :xF with an integer F >= 2", (int)len, s);
            return -1;
        }
    }
    if (lo > hi) {
        snprintf(err, errlen, "--sizes: '%.*s': the range runs backwards", (int)len, s);
        return -1;
    }
    if (add_size(o, lo, err, errlen) < 0)
        return -1;
    if (factor) {
        uint64_t v = lo;
        while ((v *= factor) <= hi)
            if (add_size(o, v, err, errlen) < 0)
                return -1;
        return add_size(o, hi, err, errlen);
    }
    for (uint64_t p = 4; p <= hi; p *= 2)
        if (p > lo && add_size(o, p, err, errlen) < 0)
            return -1;
    return 0;
}

int preset_sizes_parse(const char *spec, preset_sizes *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) {
        snprintf(err, errlen, "--sizes: empty list");
        return -1;
    }
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char term[64];
        if (len == 0 || len >= sizeof term) {
            snprintf(err, errlen, "--sizes: empty or over-long term in '%s'", spec);
            return -1;
        }
        memcpy(term, s, len);
        term[len] = '\0';
        int rc;
        if (strstr(term, "..")) {
            rc = parse_range(term, len, out, err, errlen);
        } else {
            uint64_t v;
            rc = parse_size(term, len, &v, err, errlen);
            if (rc == 0)
                rc = add_size(out, v, err, errlen);
        }
        if (rc < 0)
            return -1;
        if (!comma)
            break;
        s = comma + 1;
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_u32);
    return 0;
}

char *preset_size_name(uint64_t b, char *buf, size_t n)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0)
        snprintf(buf, n, "%llu GiB", (unsigned long long)(b >> 30));
    else if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, n, "%llu MiB", (unsigned long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%llu KiB", (unsigned long long)(b >> 10));
    else
        snprintf(buf, n, "%llu B", (unsigned long long)b);
    return buf;
}

/* --- windows ------------------------------------------------------------------------------------- */

int preset_windows_parse(const char *spec, uint32_t *out, size_t max, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    if (!spec || !*spec) {
        snprintf(err, errlen, "--window: empty list");
        return -1;
    }
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        uint32_t v;
        if (len == 3 && strncmp(s, "cap", 3) == 0) {
            v = RB_WINDOW_CAP;
        } else {
            char *end;
            unsigned long x = strtoul(s, &end, 10);
            if (len == 0 || end != s + len || !isdigit((unsigned char)*s) || x < 1 || x > 65536) {
                snprintf(err, errlen, "--window: '%.*s' is not a window (1..65536 messages, or cap)", (int)len, s);
                return -1;
            }
            v = (uint32_t)x;
        }
        int dup = 0;
        for (size_t i = 0; i < *n; i++)
            dup |= out[i] == v;
        if (!dup) {
            if (*n == max) {
                snprintf(err, errlen, "--window: more than %zu windows", max);
                return -1;
            }
            out[(*n)++] = v;
        }
        if (!comma)
            break;
        s = comma + 1;
    }
    return 0;
}
