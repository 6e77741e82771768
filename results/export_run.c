/* export_run.c - a results file's rows as CSV, JSON, Bencher Metric Format, and its provenance (see
 * export.h), written as they stream from the reader (h5in_rows): memory stays bounded whatever the
 * length of the file (a 10^6-row file's JSON once took 8 GB, built whole in jansson before a byte was
 * written). The columns come from RB_ROW_COLUMNS (schema.h), so a new rb_row field is exported without
 * a change here. Exercised by tests/track_cli.sh, tests/inject_cli.sh, tests/export_stream.sh.
 */
#include "export.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run_label.h"

#define CHECK_EVERY 4096 /* rows between two looks at the output's error flag */

// --- the run's id and commit -----------------------------------------------------------------------------

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0xFFu) * 0x100000001b3ull; /* the end of a text */
}

void export_run_id(const h5in *m, char *buf, size_t n)
{
    static const char *const groups[] = {"/", RB_H5_PROVENANCE};
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t g = 0; g < 2; g++)
        for (size_t i = 0; i < h5in_attr_count(m, groups[g]); i++) {
            const char *name = h5in_attr_name(m, groups[g], i), *v = name ? h5in_attr(m, groups[g], name) : NULL;
            h = fnv(fnv(fnv(h, groups[g]), name ? name : ""), v ? v : "");
        }
    snprintf(buf, n, "%016" PRIx64, h);
}

void export_run_commit(const h5in *m, char *buf, size_t n)
{
    const char *c = h5in_attr(m, RB_H5_PROVENANCE, "git_commit");
    snprintf(buf, n, "%.40s", c ? c : "");
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
}

// --- the loop --------------------------------------------------------------------------------------------

/* What every row of an export is written with: the run's texts, the output, and what the writers note. */
typedef struct export_ctx {
    FILE *out;
    char run_id[32], commit[48], label[512], schema[16];
    size_t rows, escaped, big, repeated;
    void *seen; /* BMF: the names written so far (name_set) */
} export_ctx;

typedef int (*row_writer)(export_ctx *x, const rb_row *row);

/* Every row through write, in order. Returns 0, or -1 with err: a read error, an interrupt (*stop), a
 * write error (seen on the output every CHECK_EVERY rows, and at the end by the caller). */
static int each_row(h5in_rows *s, export_ctx *x, row_writer write, volatile sig_atomic_t *stop, char *err,
                    size_t errlen)
{
    const rb_row *row;
    while ((row = h5in_rows_next(s, err, errlen)) != NULL) {
        if (stop && *stop) {
            snprintf(err, errlen, "interrupted");
            return -1;
        }
        if (write(x, row) != 0 || (++x->rows % CHECK_EVERY == 0 && ferror(x->out))) {
            snprintf(err, errlen, "write error");
            return -1;
        }
    }
    return err[0] ? -1 : 0;
}

// --- CSV -------------------------------------------------------------------------------------------------

static void csv_header(FILE *out)
{
    fputs("run_id,commit,run_label,schema_version,cell", out);
#define CSV_HEAD(kind, field, unit) fputs("," #field, out);
    RB_ROW_COLUMNS(CSV_HEAD)
#undef CSV_HEAD
    fputc('\n', out);
}

static int csv_row(export_ctx *x, const rb_row *row)
{
    FILE *out = x->out;
    char key[256];
    export_cell_key(row, key, sizeof key);
    fprintf(out, "%s,%s,", x->run_id, x->commit);
    export_csv_field(out, x->label);
    fprintf(out, ",%s,", x->schema);
    export_csv_field(out, key);
#define CSV_STR(f)   \
    fputc(',', out); \
    export_csv_field(out, row->f);
#define CSV_I32(f) fprintf(out, ",%" PRId32, row->f);
#define CSV_I64(f) fprintf(out, ",%" PRId64, (int64_t)row->f);
#define CSV_U64(f) fprintf(out, ",%" PRIu64, row->f);
#define CSV_F64(f)                      \
    if (isfinite(row->f))               \
        fprintf(out, ",%.17g", row->f); \
    else                                \
        fputc(',', out);
#define CSV_CELL(kind, field, unit) CSV_##kind(field)
    RB_ROW_COLUMNS(CSV_CELL)
#undef CSV_CELL
#undef CSV_STR
#undef CSV_I32
#undef CSV_I64
#undef CSV_U64
#undef CSV_F64
    return fputc('\n', out) == EOF ? -1 : 0;
}

/* The provenance once, as CSV: run_id,group,name,value. */
static int provenance_csv(const h5in *m, export_ctx *x)
{
    static const char *const groups[] = {"/", RB_H5_PROVENANCE, RB_H5_CAPABILITIES};
    fputs("run_id,group,name,value\n", x->out);
    for (size_t g = 0; g < 3; g++)
        for (size_t i = 0; i < h5in_attr_count(m, groups[g]); i++) {
            const char *name = h5in_attr_name(m, groups[g], i), *v = name ? h5in_attr(m, groups[g], name) : NULL;
            if (!name || !v)
                continue;
            fprintf(x->out, "%s,%s,", x->run_id, groups[g]);
            export_csv_field(x->out, name);
            fputc(',', x->out);
            export_csv_field(x->out, v);
            fputc('\n', x->out);
        }
    return ferror(x->out) ? -1 : 0;
}

// --- JSON and BMF (jansson) ------------------------------------------------------------------------------

#ifdef RINGBENCH_HAVE_JANSSON
/* An unsigned column: a checksum as "0x" + 16 hex digits; a value above JSON's (jansson's) signed
 * 64-bit range as its exact decimal text, rather than wrapped to a negative number. */
static json_t *u64_json(const char *name, uint64_t v, export_ctx *x)
{
    char buf[32];
    size_t len = strlen(name);
    if (len >= 5 && strcmp(name + len - 5, "check") == 0) {
        snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
        return json_string(buf);
    }
    if (sizeof(json_int_t) >= sizeof(int64_t) && v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    x->big++;
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return json_string(buf);
}

static json_t *row_object(const rb_row *row, export_ctx *x)
{
    json_t *o = json_object();
    char key[256];
    export_cell_key(row, key, sizeof key);
    json_object_set_new(o, "cell", export_json_text(key, &x->escaped));
    json_object_set_new(o, "run_id", json_string(x->run_id));
    json_object_set_new(o, "commit", export_json_text(x->commit, &x->escaped));
    json_object_set_new(o, "run_label", export_json_text(x->label, &x->escaped));
#define JS_STR(f) json_object_set_new(o, #f, export_json_text(row->f, &x->escaped));
#define JS_I32(f) json_object_set_new(o, #f, json_integer(row->f));
#define JS_I64(f) json_object_set_new(o, #f, json_integer((json_int_t)row->f));
#define JS_U64(f) json_object_set_new(o, #f, u64_json(#f, row->f, x));
#define JS_F64(f) json_object_set_new(o, #f, export_num_or_null(row->f));
#define JS_CELL(kind, field, unit) JS_##kind(field)
    RB_ROW_COLUMNS(JS_CELL)
#undef JS_CELL
#undef JS_STR
#undef JS_I32
#undef JS_I64
#undef JS_U64
#undef JS_F64
    return o;
}

/* A row's keys in the order of its columns (RB_ROW_COLUMNS), the cell first; the document's and the
 * provenance's sorted. */
#define JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_ENCODE_ANY)

/* v as JSON (flags with JSON_FLAGS), every line after its first indented by `indent` spaces (its place in
 * the document), and freed. Returns 0, or -1 when it could not be written. */
static int put_json(FILE *out, json_t *v, int indent, size_t flags)
{
    char *text = v ? json_dumps(v, JSON_FLAGS | flags) : NULL;
    json_decref(v);
    if (text == NULL)
        return -1;
    for (const char *p = text, *nl; *p; p = nl + 1) {
        if ((nl = strchr(p, '\n')) == NULL) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(nl - p) + 1, out);
        fprintf(out, "%*s", indent, "");
    }
    free(text);
    return ferror(out) ? -1 : 0;
}

static int json_row(export_ctx *x, const rb_row *row)
{
    fputs(x->rows ? ",\n  " : "\n  ", x->out);
    return put_json(x->out, row_object(row, x), 2, JSON_PRESERVE_ORDER);
}

static json_t *provenance_object(const h5in *m, export_ctx *x)
{
    json_t *p = json_object();
    for (size_t i = 0; i < h5in_attr_count(m, RB_H5_PROVENANCE); i++) {
        const char *name = h5in_attr_name(m, RB_H5_PROVENANCE, i);
        const char *v = name ? h5in_attr(m, RB_H5_PROVENANCE, name) : NULL;
        if (!name || !v)
            continue;
        json_t *k = export_json_text(name, &x->escaped); /* a key must be UTF-8 too */
        if (k != NULL)
            json_object_set_new(p, json_string_value(k), export_json_text(v, &x->escaped));
        json_decref(k);
    }
    return p;
}

/* The document's keys in order (as JSON_SORT_KEYS had them): complete, provenance, rows, run_id,
 * run_label, schema_version, tool; the rows between, one at a time. */
static int json_export(h5in_rows *s, export_ctx *x, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    const h5in *m = h5in_rows_meta(s);
    fprintf(x->out, "{\n \"complete\": %d,\n \"provenance\": ", h5in_complete(m));
    if (put_json(x->out, provenance_object(m, x), 1, JSON_SORT_KEYS) != 0) {
        snprintf(err, errlen, "write error");
        return -1;
    }
    fputs(",\n \"rows\": [", x->out);
    if (each_row(s, x, json_row, stop, err, errlen) != 0)
        return -1;
    fprintf(x->out, "%s],\n \"run_id\": \"%s\",\n \"run_label\": ", x->rows ? "\n " : "", x->run_id);
    if (put_json(x->out, export_json_text(x->label, &x->escaped), 1, 0) != 0) {
        snprintf(err, errlen, "write error");
        return -1;
    }
    fprintf(x->out, ",\n \"schema_version\": %s,\n \"tool\": \"ringbench\"\n}\n", x->schema);
    return 0;
}

/* The BMF names written so far, by hash: open addressing over a table that doubles at half full. */
typedef struct name_set {
    uint64_t *slot;
    size_t cap, used;
} name_set;

/* 1 when name was written before, else 0 after adding it; -1 when out of memory. */
static int name_seen(name_set *set, const char *name)
{
    uint64_t h = fnv(0xcbf29ce484222325ull, name) | 1u; /* 0 marks a free slot */
    if (2 * (set->used + 1) > set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return -1;
        for (size_t i = 0; i < set->cap; i++)
            for (size_t k = set->slot[i] % cap; set->slot[i]; k = (k + 1) % cap)
                if (t[k] == 0) {
                    t[k] = set->slot[i];
                    break;
                }
        free(set->slot);
        set->slot = t;
        set->cap = cap;
    }
    for (size_t k = h % set->cap;; k = (k + 1) % set->cap) {
        if (set->slot[k] == h)
            return 1;
        if (set->slot[k] == 0) {
            set->slot[k] = h;
            set->used++;
            return 0;
        }
    }
}

static int bmf_row(export_ctx *x, const rb_row *row)
{
    if (strcmp(row->status, RB_STATUS_OK) != 0 || !isfinite(row->p50))
        return 0;
    char cell[256], key[800];
    export_cell_key(row, cell, sizeof cell);
    /* An injected, limits-applied or faulted run's benchmarks carry its label in their names, so that a
     * Bencher project never files them beside the machine's real ones. */
    snprintf(key, sizeof key, "%s%s%s", x->label, x->label[0] ? "/" : "", cell);
    json_t *bench = json_object();
    if (strcmp(row->unit, "us") == 0) {
        export_bmf_measure(bench, "latency", row->p50, row->ci_lo, row->ci_hi, 1e3); /* Bencher: ns */
    } else if (strcmp(row->unit, "GB/s") == 0) {
        export_bmf_measure(bench, "bandwidth-gb-s", row->p50, row->ci_lo, row->ci_hi, 1.0);
        if (strcmp(row->family, "throughput") == 0 && row->size_bytes) /* Bencher: ops/s */
            export_bmf_measure(bench, "throughput", row->p50, row->ci_lo, row->ci_hi, 1e9 / (double)row->size_bytes);
    }
    int seen = json_object_size(bench) ? name_seen(x->seen, key) : 1;
    if (seen != 0) {
        x->repeated += seen > 0 && json_object_size(bench);
        json_decref(bench);
        return seen < 0 ? -1 : 0;
    }
    fputs(((name_set *)x->seen)->used > 1 ? ",\n " : "\n ", x->out);
    if (put_json(x->out, export_json_text(key, &x->escaped), 1, 0) != 0)
        return -1;
    fputs(": ", x->out);
    return put_json(x->out, bench, 1, JSON_SORT_KEYS);
}

static int bmf_export(h5in_rows *s, export_ctx *x, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    name_set set = {NULL, 0, 0};
    x->seen = &set;
    fputc('{', x->out);
    int rc = each_row(s, x, bmf_row, stop, err, errlen);
    fputs(set.used ? "\n}\n" : "}\n", x->out);
    free(set.slot);
    return rc;
}
#endif

// --- export_run ------------------------------------------------------------------------------------------

/* What was changed to write the document, said in err after a successful export (empty when nothing). */
static void notes(const export_ctx *x, char *err, size_t errlen)
{
    size_t len = 0;
    err[0] = '\0';
    if (x->escaped || x->big)
        len = (size_t)snprintf(err, errlen,
                               "%zu text%s not UTF-8, written with \\xNN for each byte that is not; %zu unsigned "
                               "value%s above 2^63-1, written as decimal strings",
                               x->escaped, x->escaped == 1 ? " was" : "s were", x->big, x->big == 1 ? "" : "s");
    if (x->repeated && len < errlen)
        snprintf(err + len, errlen - len,
                 "%s%zu benchmark%s named as one before (the same cell, another backend): "
                 "written once",
                 len ? "; " : "", x->repeated, x->repeated == 1 ? "" : "s");
}

int export_run(h5in_rows *s, export_format f, FILE *out, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    const h5in *m = h5in_rows_meta(s);
    export_ctx x;
    memset(&x, 0, sizeof x);
    x.out = out;
    err[0] = '\0';
    export_run_id(m, x.run_id, sizeof x.run_id);
    export_run_commit(m, x.commit, sizeof x.commit);
    rb_run_label_h5(m, x.label, sizeof x.label);
    snprintf(x.schema, sizeof x.schema, "%d", h5in_schema_version(m));
    if (f == EXPORT_PROVENANCE)
        return provenance_csv(m, &x) == 0 ? 0 : (snprintf(err, errlen, "write error"), -1);
    if (f == EXPORT_CSV) {
        csv_header(out);
        return each_row(s, &x, csv_row, stop, err, errlen);
    }
    if (!export_format_available(f, err, errlen))
        return -1;
#ifdef RINGBENCH_HAVE_JANSSON
    int rc = f == EXPORT_BMF ? bmf_export(s, &x, stop, err, errlen) : json_export(s, &x, stop, err, errlen);
    if (rc == 0)
        notes(&x, err, errlen);
    return rc;
#else
    return -1;
#endif
}
