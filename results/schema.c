/* schema.c - names, units and descriptions of the metric families, all taken from the RB_FAMILIES
 * X-macro in schema.h so that the runner, the writer, the reader and the docs cannot disagree; and
 * the schema-3 checksums of rows, trials and samples, defined column by column from the same lists
 * (a row's as its file's schema made it).
 * Exercised by tests/test_h5_roundtrip.c and tests/test_h5_damaged.c.
 */
#include "schema.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const family_names[RB_FAM_COUNT] = {
#define RB_FAMILY_NAME(e, name, unit, doc) [RB_FAM_##e] = name,
    RB_FAMILIES(RB_FAMILY_NAME)
#undef RB_FAMILY_NAME
};

static const char *const family_units[RB_FAM_COUNT] = {
#define RB_FAMILY_UNIT(e, name, unit, doc) [RB_FAM_##e] = unit,
    RB_FAMILIES(RB_FAMILY_UNIT)
#undef RB_FAMILY_UNIT
};

static const char *const family_docs[RB_FAM_COUNT] = {
#define RB_FAMILY_DOC(e, name, unit, doc) [RB_FAM_##e] = doc,
    RB_FAMILIES(RB_FAMILY_DOC)
#undef RB_FAMILY_DOC
};

/* The enum is signed or unsigned at the compiler's choice; compare through int so that a negative
 * value passed by a caller is rejected either way. */
static int family_valid(rb_family f) { return (int)f >= 0 && (int)f < (int)RB_FAM_COUNT; }

const char *rb_family_name(rb_family f) { return family_valid(f) ? family_names[f] : NULL; }

const char *rb_family_unit(rb_family f) { return family_valid(f) ? family_units[f] : NULL; }

const char *rb_family_doc(rb_family f) { return family_valid(f) ? family_docs[f] : NULL; }

int rb_unit_is_rate(const char *unit) { return strcmp(unit, rb_family_unit(RB_FAM_THROUGHPUT)) == 0; }

char *rb_size_label(uint64_t bytes, char *buf, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = (double)bytes;
    /* Only exact multiples move up a unit, so "1536 B" stays honest rather than "1.5 KiB". */
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%.0f %s", v, units[u]);
    return buf;
}

int rb_family_parse(const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < (int)RB_FAM_COUNT; i++)
        if (strcmp(family_names[i], name) == 0)
            return i;
    return -1;
}

// --- checksums (schema 3) ---------------------------------------------------------------------------

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* An integer as its `bytes` little-endian bytes, whatever the host's byte order. */
static uint64_t fnv_le(uint64_t h, uint64_t v, size_t bytes)
{
    unsigned char b[8];
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv_bytes(h, b, bytes);
}

static uint64_t fnv_f64(uint64_t h, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return fnv_le(h, u, sizeof u);
}

/* A fixed string field: its bytes up to the first NUL (never past the field), then one 0 byte. */
static uint64_t fnv_str(uint64_t h, const char *s, size_t size)
{
    size_t len = 0;
    while (len < size && s[len] != '\0')
        len++;
    h = fnv_bytes(h, (const unsigned char *)s, len);
    return fnv_bytes(h, (const unsigned char *)"", 1);
}

uint64_t rb_check_samples_more(uint64_t h, const double *samples, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = fnv_f64(h, samples[i]);
    return h;
}

uint64_t rb_check_samples(const double *samples, size_t n) { return rb_check_samples_more(FNV_OFFSET, samples, n); }

#define CHECK_STR(f) h = fnv_str(h, x->f, sizeof x->f);
#define CHECK_I32(f) h = fnv_le(h, (uint64_t)(uint32_t)x->f, 4);
#define CHECK_I64(f) h = fnv_le(h, (uint64_t)x->f, 8);
#define CHECK_U64(f)        \
    if (&x->f != &x->check) \
        h = fnv_le(h, x->f, 8);
#define CHECK_F64(f) h = fnv_f64(h, x->f);
#define CHECK_COLUMN(kind, field, unit) CHECK_##kind(field)

int rb_row_column_new_in_schema4(const char *name)
{
    static const char *const added[] = {"mode_fast", "mode_slow", "slow_share", "bimodal"};
    for (size_t i = 0; i < sizeof added / sizeof *added; i++)
        if (strcmp(added[i], name) == 0)
            return 1;
    return 0;
}

/* A row column counts when the schema had it: a schema-3 writer hashed none of schema 4's. */
#define CHECK_ROW_COLUMN(kind, field, unit)                     \
    if (schema >= 4 || !rb_row_column_new_in_schema4(#field)) { \
        CHECK_##kind(field)                                     \
    }

uint64_t rb_row_check_schema(const rb_row *x, int schema)
{
    uint64_t h = FNV_OFFSET;
    RB_ROW_COLUMNS(CHECK_ROW_COLUMN)
    return h;
}

#undef CHECK_ROW_COLUMN

uint64_t rb_row_check(const rb_row *x) { return rb_row_check_schema(x, RB_SCHEMA_VERSION); }

uint64_t rb_trial_check_schema(const rb_trial *x, int schema)
{
    uint64_t h = FNV_OFFSET;
    RB_TRIAL_COLUMNS_3(CHECK_COLUMN)
    if (schema >= 4) {
        RB_TRIAL_COLUMNS_4(CHECK_COLUMN)
    }
    return h;
}

uint64_t rb_trial_check(const rb_trial *x) { return rb_trial_check_schema(x, RB_SCHEMA_VERSION); }

#undef CHECK_COLUMN
#undef CHECK_STR
#undef CHECK_I32
#undef CHECK_I64
#undef CHECK_U64
#undef CHECK_F64

// --- the calls_<name> columns (call_kinds.h) ----------------------------------------------------------

void rb_row_calls_get(const rb_row *r, double out[RB_CALL_KIND_COUNT])
{
    size_t k = 0;
#define RB_GET_CALLS(A, e, name, doc) out[k++] = r->calls_##name;
    RB_CALL_KINDS(RB_GET_CALLS, ~)
#undef RB_GET_CALLS
}

void rb_row_calls_set(rb_row *r, const double in[RB_CALL_KIND_COUNT])
{
    size_t k = 0;
#define RB_SET_CALLS(A, e, name, doc) r->calls_##name = in[k++];
    RB_CALL_KINDS(RB_SET_CALLS, ~)
#undef RB_SET_CALLS
}

void rb_set_field(char *dst, size_t n, const char *src)
{
    size_t len = src ? strlen(src) : 0;
    if (len >= n)
        len = n - 1;
    memcpy(dst, src ? src : "", len);
    dst[len] = '\0';
}

void rb_trial_columns4_unknown(rb_trial *t)
{
#define RB_UNKNOWN_F64(field) t->field = NAN;
#define RB_UNKNOWN_I64(field) t->field = -1;
#define RB_UNKNOWN(kind, field, unit) RB_UNKNOWN_##kind(field)
    RB_TRIAL_COLUMNS_4(RB_UNKNOWN)
#undef RB_UNKNOWN
#undef RB_UNKNOWN_I64
#undef RB_UNKNOWN_F64
}

void rb_trial_conditions_unknown(rb_trial *t)
{
    t->cpu_start = t->cpu_end = -1;
    t->ctx_switches = -1;
    t->sm_mhz_start = t->sm_mhz_end = t->mem_mhz_start = t->mem_mhz_end = NAN;
    rb_trial_columns4_unknown(t);
}

void rb_row_calls_clear(rb_row *r)
{
#define RB_CLEAR_CALLS(A, e, name, doc) r->calls_##name = NAN;
    RB_CALL_KINDS(RB_CLEAR_CALLS, ~)
#undef RB_CLEAR_CALLS
}

int rb_row_calls_column(const char *name)
{
#define RB_IS_CALLS(A, e, name_, doc) strcmp(name, "calls_" #name_) == 0 ||
    return RB_CALL_KINDS(RB_IS_CALLS, ~) 0;
#undef RB_IS_CALLS
}

// --- the values of the text columns --------------------------------------------------------------------

#define RB_ONE_OF(v) || strcmp(value, v) == 0
static int known_backend(const char *value) { return 0 RB_BACKEND_VALUES(RB_ONE_OF); }
static int known_host_mem(const char *value)
{
    return strcmp(value, RB_NOT_APPLICABLE) == 0 RB_HOST_MEM_VALUES(RB_ONE_OF);
}
static int known_xfer(const char *value) { return strcmp(value, RB_NOT_APPLICABLE) == 0 RB_XFER_VALUES(RB_ONE_OF); }
static int known_launch(const char *value) { return strcmp(value, RB_NOT_APPLICABLE) == 0 RB_LAUNCH_VALUES(RB_ONE_OF); }
static int known_ctrl(const char *value) { return strcmp(value, RB_NOT_APPLICABLE) == 0 RB_CTRL_VALUES(RB_ONE_OF); }
static int known_status(const char *value) { return 0 RB_STATUS_VALUES(RB_ONE_OF); }
static int known_family(const char *value) { return rb_family_parse(value) >= 0; }
#undef RB_ONE_OF

/* The first of n columns whose value is not known, said in buf; NULL when all are. */
static const char *first_unknown(const char *const *names, const char *const *values, int (*const *known)(const char *),
                                 size_t ncols, char *buf, size_t n)
{
    for (size_t i = 0; i < ncols; i++) {
        if (known[i](values[i]))
            continue;
        char shown[RB_NAME_LEN];
        rb_set_field(shown, sizeof shown, values[i]);
        for (char *p = shown; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                *p = '?';
        snprintf(buf, n, "%s '%s' is not a value ringbench writes", names[i], shown);
        return buf;
    }
    return NULL;
}

const char *rb_row_unknown_text(const rb_row *row, char *buf, size_t n)
{
    static const char *const names[] = {"backend", "family", "host_mem", "xfer", "launch", "ctrl", "status"};
    static int (*const known[])(const char *) = {known_backend, known_family, known_host_mem, known_xfer,
                                                 known_launch,  known_ctrl,   known_status};
    const char *const values[] = {row->backend, row->family, row->host_mem, row->xfer,
                                  row->launch,  row->ctrl,   row->status};
    return first_unknown(names, values, known, sizeof names / sizeof *names, buf, n);
}

const char *rb_trial_unknown_text(const rb_trial *t, char *buf, size_t n)
{
    static const char *const names[] = {"family", "host_mem", "xfer", "launch", "ctrl", "status"};
    static int (*const known[])(const char *) = {known_family, known_host_mem, known_xfer,
                                                 known_launch, known_ctrl,     known_status};
    const char *const values[] = {t->family, t->host_mem, t->xfer, t->launch, t->ctrl, t->status};
    return first_unknown(names, values, known, sizeof names / sizeof *names, buf, n);
}
