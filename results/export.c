/* export.c - what the exports share (formats, cell keys, CSV fields, JSON text) and the export of
 * compare_pairs.dat; a results file's rows are exported by export_run.c (see export.h). JSON goes
 * through jansson when the build found it (RINGBENCH_HAVE_JANSSON).
 */
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_label.h"

#ifdef RINGBENCH_HAVE_JANSSON
#include <jansson.h>
#endif

int export_format_parse(const char *name)
{
    if (!name)
        return -1;
    if (strcmp(name, "csv") == 0)
        return EXPORT_CSV;
    if (strcmp(name, "json") == 0)
        return EXPORT_JSON;
    if (strcmp(name, "bmf") == 0)
        return EXPORT_BMF;
    if (strcmp(name, "provenance") == 0)
        return EXPORT_PROVENANCE;
    return -1;
}

int export_format_available(export_format f, char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
#ifndef RINGBENCH_HAVE_JANSSON
    if (f == EXPORT_JSON || f == EXPORT_BMF) {
        if (why)
            snprintf(why, whylen,
                     "this ringbench was built without jansson, which the %s format needs "
                     "(install libjansson-dev and rebuild; csv works without it)",
                     f == EXPORT_BMF ? "bmf" : "json");
        return 0;
    }
#else
    (void)f;
#endif
    return 1;
}

static void size_text(uint64_t b, char *buf, size_t n)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, n, "%" PRIu64 "MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%" PRIu64 "KiB", b >> 10);
    else
        snprintf(buf, n, "%" PRIu64 "B", b);
}

int export_cell_key(const rb_row *r, char *buf, size_t n)
{
    const char *parts[] = {r->host_mem, r->xfer, r->launch, r->ctrl};
    size_t len = (size_t)snprintf(buf, n, "%s", r->family);
    for (size_t i = 0; i < 4 && len < n; i++)
        if (parts[i][0] && strcmp(parts[i], RB_NOT_APPLICABLE) != 0)
            len += (size_t)snprintf(buf + len, n - len, "/%s", parts[i]);
    if (r->size_bytes && len < n) {
        char s[32];
        size_text(r->size_bytes, s, sizeof s);
        len += (size_t)snprintf(buf + len, n - len, "/%s", s);
    }
    if (strcmp(r->family, "throughput") == 0 && r->window && len < n)
        len += (size_t)snprintf(buf + len, n - len, "/w%" PRIu64, r->window);
    return len < n ? 0 : -1;
}

void export_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* --- JSON and BMF (jansson) ------------------------------------------------------------------- */

#ifdef RINGBENCH_HAVE_JANSSON
json_t *export_num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The length of the UTF-8 sequence s starts, when it is one jansson accepts, else 0. */
static size_t utf8_length(const char *s)
{
    unsigned char c = (unsigned char)s[0];
    size_t len = c < 0x80                 ? 1
                 : c >= 0xC2 && c <= 0xDF ? 2
                 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4
                                          : 0;
    for (size_t k = 1; k < len; k++)
        if (((unsigned char)s[k] & 0xC0) != 0x80)
            return 0;
    json_t *probe = len ? json_stringn(s, len) : NULL; /* overlongs and surrogates: jansson decides */
    json_decref(probe);
    return probe ? len : 0;
}

json_t *export_json_text(const char *s, size_t *escaped)
{
    json_t *j = json_string(s);
    if (j != NULL)
        return j;
    /* Not UTF-8: every byte that is not part of a valid sequence becomes the text \xNN, so nothing
     * is lost and the reader of the JSON sees where the file's text was not UTF-8. */
    size_t n = strlen(s);
    char *out = malloc(4 * n + 1), *p = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_length(s + i);
        if (len == 0) {
            p += sprintf(p, "\\x%02X", (unsigned char)s[i]);
            i++;
        } else {
            memcpy(p, s + i, len);
            p += len;
            i += len;
        }
    }
    *p = '\0';
    j = json_string(out);
    free(out);
    if (escaped != NULL)
        (*escaped)++;
    return j;
}

/* One BMF measure: value with its interval, each scaled; bounds only when both are finite. */
void export_bmf_measure(json_t *bench, const char *slug, double v, double lo, double hi, double scale)
{
    if (!isfinite(v))
        return;
    json_t *m = json_object();
    json_object_set_new(m, "value", json_real(v * scale));
    if (isfinite(lo) && isfinite(hi)) {
        double a = lo * scale, b = hi * scale;
        json_object_set_new(m, "lower_value", json_real(a < b ? a : b));
        json_object_set_new(m, "upper_value", json_real(a < b ? b : a));
    }
    json_object_set_new(bench, slug, m);
}

#endif

/* --- compare_pairs.dat -------------------------------------------------------------------------- */

typedef struct pair_line {
    char family[64], mode[128], verdict[32];
    unsigned long long size, window; /* window: 0 where the pair has none (and in files before it) */
    double base, other, ov, lo, hi;
} pair_line;

FILE *export_open_regular(const char *path, char *err, size_t errlen)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (a FIFO, device or directory is not read)", path);
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "r");
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int export_is_compare_pairs(const char *path)
{
    char why[256];
    FILE *f = export_open_regular(path, why, sizeof why);
    char line[256] = "";
    int yes = f && fgets(line, sizeof line, f) && strstr(line, "overhead of OTHER over BASE") != NULL;
    if (f)
        fclose(f);
    return yes;
}

/* Reads the pairs; returns their number, or -1 with err. */
static long read_pairs(const char *path, pair_line **out, char *err, size_t errlen)
{
    FILE *f = export_open_regular(path, err, errlen);
    if (!f)
        return -1;
    char line[1024];
    long n = 0, cap = 0, lineno = 0;
    *out = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            pair_line *t = realloc(*out, (size_t)cap * sizeof **out);
            if (!t)
                break;
            *out = t;
        }
        pair_line *p = &(*out)[n];
        char nums[5][64];
        p->window = 0;
        const int got = sscanf(line, "%63s %127s %llu %63s %63s %63s %63s %63s %31s %llu", p->family, p->mode, &p->size,
                               nums[0], nums[1], nums[2], nums[3], nums[4], p->verdict, &p->window);
        if (got != 9 && got != 10) {
            snprintf(err, errlen, "%s:%ld: not a compare_pairs.dat line", path, lineno);
            fclose(f);
            free(*out);
            *out = NULL;
            return -1;
        }
        double *v[5] = {&p->base, &p->other, &p->ov, &p->lo, &p->hi};
        for (int i = 0; i < 5; i++)
            *v[i] = strtod(nums[i], NULL); /* "nan" reads as NaN */
        n++;
    }
    fclose(f);
    return n;
}

static void pair_key(const pair_line *p, const char *label, char *buf, size_t n)
{
    char s[32];
    size_text(p->size, s, sizeof s);
    char w[32] = "";
    if (p->window && strcmp(p->family, "throughput") == 0) /* as a row's key (cell_key) */
        snprintf(w, sizeof w, "/w%llu", p->window);
    snprintf(buf, n, "%s%scompare/%s/%s%s%s%s", label, label[0] ? "/" : "", p->family, p->mode, p->size ? "/" : "",
             p->size ? s : "", w);
}

/* The "# run_label: ..." line compare writes for injected or limits-applied files (run_label.h);
 * "" when there is none. */
static void pairs_label(const char *path, char *buf, size_t n)
{
    static const char tag[] = "# run_label: ";
    char line[1400];
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    while (f && fgets(line, sizeof line, f) && line[0] == '#')
        if (strncmp(line, tag, sizeof tag - 1) == 0) {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(buf, n, "%s", line + sizeof tag - 1);
            break;
        }
    if (f)
        fclose(f);
}

int export_compare_pairs(const char *path, export_format f, FILE *out, char *err, size_t errlen)
{
    if (!export_format_available(f, err, errlen))
        return -1;
    pair_line *p = NULL;
    long n = read_pairs(path, &p, err, errlen);
    if (n < 0)
        return -1;
    char label[1400];
    pairs_label(path, label, sizeof label);
    int rc = 0;
    if (f == EXPORT_CSV) {
        fputs("cell,family,mode,size_bytes,window,base_p50,other_p50,overhead,ci_lo,ci_hi,verdict,run_label\n", out);
        for (long i = 0; i < n; i++) {
            char key[1800];
            pair_key(&p[i], label, key, sizeof key);
            export_csv_field(out, key);
            fprintf(out, ",%s,%s,%llu,%llu,", p[i].family, p[i].mode, p[i].size, p[i].window);
            double v[5] = {p[i].base, p[i].other, p[i].ov, p[i].lo, p[i].hi};
            for (int k = 0; k < 5; k++) {
                if (isfinite(v[k]))
                    fprintf(out, "%.9g", v[k]);
                fputc(',', out);
            }
            fprintf(out, "%s,", p[i].verdict);
            export_csv_field(out, label);
            fputc('\n', out);
        }
        rc = ferror(out) ? -1 : 0;
    }
#ifdef RINGBENCH_HAVE_JANSSON
    else {
        json_t *doc = json_object();
        json_t *arr = f == EXPORT_JSON ? json_array() : NULL;
        for (long i = 0; i < n; i++) {
            char key[1800];
            pair_key(&p[i], label, key, sizeof key);
            if (f == EXPORT_BMF) {
                if (!isfinite(p[i].ov))
                    continue;
                json_t *bench = json_object();
                export_bmf_measure(bench, "overhead-pct", p[i].ov, p[i].lo, p[i].hi, 100.0);
                json_object_set_new(doc, key, bench);
                continue;
            }
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(key));
            json_object_set_new(o, "family", json_string(p[i].family));
            json_object_set_new(o, "mode", json_string(p[i].mode));
            json_object_set_new(o, "size_bytes", json_integer((json_int_t)p[i].size));
            json_object_set_new(o, "window", json_integer((json_int_t)p[i].window));
            json_object_set_new(o, "base_p50", export_num_or_null(p[i].base));
            json_object_set_new(o, "other_p50", export_num_or_null(p[i].other));
            json_object_set_new(o, "overhead", export_num_or_null(p[i].ov));
            json_object_set_new(o, "ci_lo", export_num_or_null(p[i].lo));
            json_object_set_new(o, "ci_hi", export_num_or_null(p[i].hi));
            json_object_set_new(o, "verdict", json_string(p[i].verdict));
            json_object_set_new(o, "run_label", json_string(label));
            json_array_append_new(arr, o);
        }
        if (arr)
            json_object_set_new(doc, "pairs", arr);
        rc = json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
        json_decref(doc);
        if (rc == 0 && fputc('\n', out) == EOF)
            rc = -1;
    }
#endif
    free(p);
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "write error");
    return rc;
}
