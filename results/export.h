/* export.h - a results file in the formats other tools read: CSV for spreadsheets and pandas,
 * Bencher Metric Format (BMF) JSON for a Bencher server, and a plain JSON of rows and provenance.
 *
 * JSON is written with jansson (a maintained library, not hand-written escaping); jansson is an
 * optional dependency: without it (RINGBENCH_HAVE_JANSSON undefined) the JSON formats report what is
 * missing and CSV still works. Exercised by `ringbench export` and tests/track.cmake (test_track_cli_export, _pandas).
 */
#ifndef RINGBENCH_EXPORT_H
#define RINGBENCH_EXPORT_H

#include <stddef.h>
#include <stdio.h>
#include "h5in.h"

typedef enum export_format { EXPORT_CSV = 0, EXPORT_JSON, EXPORT_BMF } export_format;

/* "csv", "json", "bmf" -> the format; -1 for anything else. */
int export_format_parse(const char *name);

/* 1 when this build can write the format; otherwise 0 with what is missing in why. */
int export_format_available(export_format f, char *why, size_t whylen);

/* The stable name of a row's cell across runs, also the BMF benchmark name:
 * family/host_mem/xfer/launch/ctrl/SIZE (SIZE as 8B, 4KiB, 4MiB; "-" fields dropped), plus /wN for
 * throughput rows, whose window is part of what was measured. Returns 0, or -1 when buf is short. */
int export_cell_key(const rb_row *r, char *buf, size_t n);

/* Writes every row of the file (CSV: one line per row with every rb_row column, plus the run's
 * start time, host, GPU and run_label; JSON: {"schema_version", "run_label", "provenance": {...},
 * "rows": [...]}, each row with run_label too;
 * BMF: one benchmark per ok row, measures "latency" in nanoseconds for time-like families,
 * "throughput" in messages per second and "bandwidth-gb-s" for throughput rows, "bandwidth-gb-s"
 * for the cudaMemcpy baselines, each with the row's 95% interval as lower/upper values; the name
 * prefixed "LABEL/" for an injected or limits-applied run). run_label is run_label.h's label: "" for
 * a plain run, "INJECTED (...)" or "LIMITS APPLIED (...)" otherwise.
 * JSON holds only UTF-8 and signed 64-bit integers: a text of the file that is not UTF-8 is written
 * with "\xNN" for each offending byte, an unsigned value above 2^63-1 as its decimal text, and the
 * checksum columns as "0x" + 16 hex digits; nothing is dropped or wrapped.
 * Returns 0 (with err empty, or holding one line that says what was escaped or written as text),
 * or -1 with a one-line message in err. */
int export_run(const h5in *r, export_format f, FILE *out, char *err, size_t errlen);

/* Opens path for reading only when it is a regular file: a FIFO, a device or a directory is refused
 * at once (never waited on). Returns the stream, or NULL with a one-line message in err. */
FILE *export_open_regular(const char *path, char *err, size_t errlen);

/* 1 when path looks like the pairs table `ringbench compare` writes (compare_pairs.dat). */
int export_is_compare_pairs(const char *path);

/* Writes compare_pairs.dat (family mode size_bytes base_p50 other_p50 overhead ci_lo ci_hi verdict)
 * in the same formats: CSV with those columns, JSON {"pairs": [...]}, BMF one benchmark per pair
 * ("compare/" + cell) with the measure "overhead-pct" (percent, its 95% interval as bounds).
 * Returns 0, or -1 with a one-line message in err. */
int export_compare_pairs(const char *path, export_format f, FILE *out, char *err, size_t errlen);

#ifdef RINGBENCH_HAVE_JANSSON
#include <jansson.h>
/* s as a JSON string; when s is not valid UTF-8, each byte outside a valid sequence is written as
 * the text \xNN and *escaped (when not NULL) is incremented. NULL only when out of memory. */
json_t *export_json_text(const char *s, size_t *escaped);
#endif

/* A CSV field: quoted (with "" for ") when it holds a comma, quote or line break. */
void export_csv_field(FILE *out, const char *s);

#endif
