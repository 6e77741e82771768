/* platform_faults.c - the faults of a platform that fails, per mode (see platform_faults.h). Exercised by
 * tests/io_cli.sh (fault) and tests/test_ring_cpu.c. */
#include "platform_faults.h"

#include <stdio.h>
#include <string.h>

#include "ring.h"

static const struct {
    const char *name;
    int kind;
} faults[] = {{"never", RING_FAULT_NEVER}, {"late", RING_FAULT_LATE}, {"stale", RING_FAULT_STALE}};

/* One MODE=FAULT term (len bytes at s) into f. */
static int parse_term(const char *s, size_t len, platform_faults *f, char *err, size_t errlen)
{
    char term[128];
    const char *eq = memchr(s, '=', len);
    if (len == 0 || len >= sizeof term || eq == NULL || eq == s || eq + 1 == s + len) {
        snprintf(err, errlen,
                 "--inject-fault: '%.*s' is not MODE=FAULT (e.g. all=never, pinned/zerocopy/coop/mapped=stale)",
                 (int)(len < 100 ? len : 100), s);
        return -1;
    }
    memcpy(term, s, len);
    term[len] = '\0';
    term[eq - s] = '\0';
    const char *mode = term, *fault = term + (eq - s) + 1;
    int kind = 0;
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        if (strcmp(fault, faults[i].name) == 0)
            kind = faults[i].kind;
    mode_spec m;
    if (kind == 0) {
        snprintf(err, errlen, "--inject-fault: unknown fault '%s' (never, late or stale)", fault);
        return -1;
    }
    if (strcmp(mode, "all") != 0 && mode_parse_label(mode, &m) != 0) {
        snprintf(err, errlen, "--inject-fault: '%s' is not a mode (HOST/XFER/LAUNCH/CTRL, or all)", mode);
        return -1;
    }
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec k = mode_at(i);
        if (strcmp(mode, "all") == 0 || memcmp(k.v, m.v, sizeof k.v) == 0)
            f->kind[i] = (unsigned char)kind;
    }
    return 0;
}

int platform_faults_parse(const char *spec, platform_faults *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (const char *s = spec;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (parse_term(s, len, out, err, errlen) != 0)
            return -1;
        if (!comma)
            break;
        s = comma + 1;
    }
    if (strlen(spec) >= sizeof out->text) {
        snprintf(err, errlen, "--inject-fault: longer than %zu characters", sizeof out->text - 1);
        return -1;
    }
    snprintf(out->text, sizeof out->text, "%s", spec);
    return 0;
}

int platform_faults_kind(const platform_faults *f, const mode_spec *m)
{
    if (f == NULL)
        return 0;
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec k = mode_at(i);
        if (memcmp(k.v, m->v, sizeof k.v) == 0)
            return f->kind[i];
    }
    return 0;
}
