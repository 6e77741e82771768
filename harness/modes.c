/* modes.c - names, documentation and parsing of the mode axes (see modes.h). */
#include "modes.h"

#include <stdio.h>
#include <string.h>

typedef struct axis_value {
    const char *name;
    const char *doc;
} axis_value;

static const axis_value host_values[RB_HOST_COUNT] = {
    {"pinned", "host buffers from cudaHostAlloc (page-locked)"},
    {"malloc", "host buffers from malloc (pageable), the WSL2 fallback"},
};
static const axis_value xfer_values[RB_XFER_COUNT] = {
    {"async", "cudaMemcpyAsync on non-blocking streams; completion by event query (an event per copy run, "
              "none for the newest reply copy: cudaStreamQuery)"},
    {"sync", "synchronous cudaMemcpy, the WSL2 fallback"},
    {"zerocopy", "no copies: the rings live in mapped pinned memory that the kernel reads and writes"},
};
static const axis_value launch_values[RB_LAUNCH_COUNT] = {
    {"coop", "cudaLaunchCooperativeKernel; grid.sync() between consume and publish"},
    {"noncoop", "ordinary launch; the last block done publishes the reply, the WSL2 fallback"},
};
static const axis_value ctrl_values[RB_CTRL_COUNT] = {
    {"managed", "control block in cudaMallocManaged memory the host reads and writes directly"},
    {"device", "control block in cudaMalloc memory; every host access is a staged copy, the WSL2 fallback"},
    {"mapped", "control block in mapped pinned host memory (zero-copy)"},
};

static const struct {
    const char *name;
    const axis_value *values;
    size_t n;
} axes[RB_AXIS_COUNT] = {
    {"host", host_values, RB_HOST_COUNT},
    {"xfer", xfer_values, RB_XFER_COUNT},
    {"launch", launch_values, RB_LAUNCH_COUNT},
    {"ctrl", ctrl_values, RB_CTRL_COUNT},
};

const char *mode_axis_name(mode_axis a) { return (unsigned)a < RB_AXIS_COUNT ? axes[a].name : NULL; }

size_t mode_axis_size(mode_axis a) { return (unsigned)a < RB_AXIS_COUNT ? axes[a].n : 0; }

const char *mode_axis_value(mode_axis a, int v)
{
    if ((unsigned)a >= RB_AXIS_COUNT || v < 0 || (size_t)v >= axes[a].n)
        return NULL;
    return axes[a].values[v].name;
}

const char *mode_axis_doc(mode_axis a, int v)
{
    if ((unsigned)a >= RB_AXIS_COUNT || v < 0 || (size_t)v >= axes[a].n)
        return NULL;
    return axes[a].values[v].doc;
}

int mode_axis_parse(mode_axis a, const char *name)
{
    if ((unsigned)a >= RB_AXIS_COUNT || !name)
        return -1;
    for (size_t v = 0; v < axes[a].n; v++)
        if (strcmp(axes[a].values[v].name, name) == 0)
            return (int)v;
    return -1;
}

int mode_parse_label(const char *label, mode_spec *m)
{
    mode_spec tmp;
    const char *p = label;
    for (int a = 0; a < RB_AXIS_COUNT; a++) {
        const char *end = strchr(p, '/');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        char name[32];
        if ((end == NULL) != (a == RB_AXIS_COUNT - 1) || n >= sizeof name)
            return -1;
        memcpy(name, p, n);
        name[n] = 0;
        if ((tmp.v[a] = mode_axis_parse((mode_axis)a, name)) < 0)
            return -1;
        p = end ? end + 1 : p + n;
    }
    *m = tmp;
    return 0;
}

mode_spec mode_at(size_t i)
{
    mode_spec m;
    for (int a = RB_AXIS_COUNT - 1; a >= 0; a--) {
        m.v[a] = (int)(i % axes[a].n);
        i /= axes[a].n;
    }
    return m;
}

const char *mode_invalid_reason(const mode_spec *m)
{
    if (m->v[RB_AXIS_HOST] == RB_HOST_MALLOC && m->v[RB_AXIS_CTRL] == RB_CTRL_MAPPED)
        return "a mapped control block is pinned host memory: it cannot be malloc memory";
    if (m->v[RB_AXIS_HOST] == RB_HOST_MALLOC && m->v[RB_AXIS_XFER] == RB_XFER_ZEROCOPY)
        return "zero-copy rings are mapped pinned memory: they cannot be malloc memory";
    return NULL;
}

char *mode_label(const mode_spec *m, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s/%s/%s", mode_axis_value(RB_AXIS_HOST, m->v[RB_AXIS_HOST]),
             mode_axis_value(RB_AXIS_XFER, m->v[RB_AXIS_XFER]), mode_axis_value(RB_AXIS_LAUNCH, m->v[RB_AXIS_LAUNCH]),
             mode_axis_value(RB_AXIS_CTRL, m->v[RB_AXIS_CTRL]));
    return buf;
}

static const struct {
    const char *name, *title;
    mode_spec mode;
} paths[MODE_PATH_COUNT] = {
    [MODE_PATH_FALLBACK] = {"fallback",
                            "WSL2 fallback",
                            {{RB_HOST_MALLOC, RB_XFER_SYNC, RB_LAUNCH_NONCOOP, RB_CTRL_DEVICE}}},
    [MODE_PATH_NATIVE] = {"native", "native", {{RB_HOST_PINNED, RB_XFER_ASYNC, RB_LAUNCH_COOP, RB_CTRL_MAPPED}}},
};

mode_spec mode_path_spec(mode_path p) { return paths[(unsigned)p < MODE_PATH_COUNT ? p : MODE_PATH_NATIVE].mode; }

const char *mode_path_name(mode_path p) { return (unsigned)p < MODE_PATH_COUNT ? paths[p].name : NULL; }

const char *mode_path_title(mode_path p) { return (unsigned)p < MODE_PATH_COUNT ? paths[p].title : NULL; }

mode_spec mode_wsl2_fallback(void) { return mode_path_spec(MODE_PATH_FALLBACK); }

mode_spec mode_native(void) { return mode_path_spec(MODE_PATH_NATIVE); }

/* Parses "V1|V2|..." of one axis into a bit mask of values. */
static int parse_values(mode_axis a, const char *s, size_t len, unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    if (len == 0) { /* "host=": no value at all would select none of the axis, so only the baselines ran */
        snprintf(err, errlen, "--modes: '%s=' names no value (e.g. %s=%s)", axes[a].name, axes[a].name,
                 axes[a].values[0].name);
        return -1;
    }
    while (len > 0) {
        const char *bar = memchr(s, '|', len);
        size_t n = bar ? (size_t)(bar - s) : len;
        char name[32];
        if (n == 0 || n >= sizeof name) {
            snprintf(err, errlen, "--modes: empty or over-long value for axis '%s'", axes[a].name);
            return -1;
        }
        memcpy(name, s, n);
        name[n] = '\0';
        int v = mode_axis_parse(a, name);
        if (v < 0) {
            char allowed[128] = "";
            for (size_t i = 0; i < axes[a].n; i++) {
                strncat(allowed, axes[a].values[i].name, sizeof allowed - strlen(allowed) - 1);
                if (i + 1 < axes[a].n)
                    strncat(allowed, "|", sizeof allowed - strlen(allowed) - 1);
            }
            snprintf(err, errlen, "--modes: unknown %s '%s' (expected %s)", axes[a].name, name, allowed);
            return -1;
        }
        *mask |= 1u << v;
        if (!bar)
            break;
        s = bar + 1;
        len -= n + 1;
        if (len == 0) {
            snprintf(err, errlen, "--modes: trailing '|' after axis '%s'", axes[a].name);
            return -1;
        }
    }
    return 0;
}

/* "HOST/XFER/LAUNCH/CTRL[,HOST/XFER/LAUNCH/CTRL...]": exactly those modes. */
static int parse_mode_list(const char *spec, mode_set *out, char *err, size_t errlen)
{
    memset(out->selected, 0, sizeof out->selected);
    for (const char *s = spec;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char label[64];
        mode_spec m;
        if (len == 0 || len >= sizeof label) {
            snprintf(err, errlen, "--modes: empty or over-long mode in '%s'", spec);
            return -1;
        }
        memcpy(label, s, len);
        label[len] = '\0';
        if (mode_parse_label(label, &m) != 0) {
            snprintf(err, errlen, "--modes: '%s' is not a mode (HOST/XFER/LAUNCH/CTRL, e.g. pinned/async/coop/mapped)",
                     label);
            return -1;
        }
        for (size_t i = 0; i < RB_MODE_COUNT; i++) {
            mode_spec k = mode_at(i);
            if (memcmp(k.v, m.v, sizeof k.v) == 0)
                out->selected[i] = 1;
        }
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

int mode_set_parse(const char *spec, mode_set *out, char *err, size_t errlen)
{
    unsigned masks[RB_AXIS_COUNT];
    int named[RB_AXIS_COUNT] = {0};
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        masks[a] = (1u << axes[a].n) - 1;
    if (!spec || !*spec) {
        snprintf(err, errlen, "--modes: empty selection");
        return -1;
    }
    if (strchr(spec, '/'))
        return parse_mode_list(spec, out, err, errlen);
    if (strcmp(spec, "all") != 0) {
        const char *s = spec;
        for (;;) {
            const char *comma = strchr(s, ',');
            size_t len = comma ? (size_t)(comma - s) : strlen(s);
            const char *eq = memchr(s, '=', len);
            if (len == 0 || !eq) {
                snprintf(err, errlen, "--modes: expected AXIS=VALUE[|VALUE...] terms, got '%.*s'", (int)len, s);
                return -1;
            }
            int a;
            for (a = 0; a < RB_AXIS_COUNT; a++)
                if (strlen(axes[a].name) == (size_t)(eq - s) && strncmp(axes[a].name, s, (size_t)(eq - s)) == 0)
                    break;
            if (a == RB_AXIS_COUNT) {
                snprintf(err, errlen, "--modes: unknown axis '%.*s' (expected host, xfer, launch or ctrl)",
                         (int)(eq - s), s);
                return -1;
            }
            if (named[a]) {
                snprintf(err, errlen, "--modes: axis '%s' given twice", axes[a].name);
                return -1;
            }
            named[a] = 1;
            if (parse_values((mode_axis)a, eq + 1, len - (size_t)(eq + 1 - s), &masks[a], err, errlen) < 0)
                return -1;
            if (!comma)
                break;
            s = comma + 1;
        }
    }
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        int sel = 1;
        for (int a = 0; a < RB_AXIS_COUNT; a++)
            sel &= (masks[a] >> m.v[a]) & 1u;
        out->selected[i] = (unsigned char)sel;
    }
    return 0;
}
