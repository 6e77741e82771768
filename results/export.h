/* export.h - a results file in the formats other tools read: CSV for spreadsheets and pandas,
 * Bencher Metric Format (BMF) JSON for a Bencher server, and a plain JSON of rows and provenance.
 *
 * JSON is written with jansson (a maintained library, not hand-written escaping); jansson is an
 * optional dependency: without it (RINGBENCH_HAVE_JANSSON undefined) the JSON formats report what is
 * missing and CSV still works. Exercised by `ringbench export` and tests/track.cmake (test_track_cli_export, _pandas).
 */
#ifndef RINGBENCH_EXPORT_H
#define RINGBENCH_EXPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include "h5in.h"

typedef enum export_format { EXPORT_CSV = 0, EXPORT_JSON, EXPORT_BMF, EXPORT_PROVENANCE } export_format;

/* "csv", "json", "bmf", "provenance" -> the format; -1 for anything else. */
int export_format_parse(const char *name);

/* 1 when this build can write the format; otherwise 0 with what is missing in why. */
int export_format_available(export_format f, char *why, size_t whylen);

/* The stable name of a row's cell across runs, also the BMF benchmark name:
 * family/host_mem/xfer/launch/ctrl/SIZE (SIZE as 8B, 4KiB, 4MiB; "-" fields dropped), plus /wN for
 * throughput rows, whose window is part of what was measured. Returns 0, or -1 when buf is short. */
int export_cell_key(const rb_row *r, char *buf, size_t n);

/* A run's id: 16 hex digits of FNV-1a 64 over its provenance (every attribute's name and value) and
 * schema version, the same for every export of one file and different for every run. buf needs 17
 * bytes. The run's commit: its provenance git_commit, at most 40 characters, non-printable bytes '?'. */
void export_run_id(const h5in *m, char *buf, size_t n);
void export_run_commit(const h5in *m, char *buf, size_t n);

/* Writes every row of a file as it streams from the reader (h5in_rows: bounded memory for a file of
 * any length; one row in hand at a time):
 *   CSV         one line per row: run_id, commit, run_label, schema_version, cell, then every rb_row
 *               column (RB_ROW_COLUMNS); the run's other provenance is once in the provenance format
 *   JSON        {"complete", "provenance": {...}, "rows": [...], "run_id", "run_label", "schema_version",
 *               "tool"}, each row with cell, run_id, commit and run_label too
 *   BMF         one benchmark per ok row, measures "latency" in nanoseconds for time-like families,
 *               "throughput" in messages per second and "bandwidth-gb-s" for throughput rows,
 *               "bandwidth-gb-s" for the cudaMemcpy baselines, each with the row's 95% interval as
 *               lower/upper values; the name prefixed "LABEL/" for an injected, limits-applied or faulted
 *               run; a name met before is written once (said in err)
 *   PROVENANCE  run_id,group,name,value: the file's root, /provenance and /capabilities attributes, one
 *               line each, to join the CSV's rows on run_id
 * run_label is run_label.h's label: "" for a plain run. JSON holds only UTF-8 and signed 64-bit integers:
 * a text of the file that is not UTF-8 is written with "\xNN" for each offending byte, an unsigned value
 * above 2^63-1 as its decimal text, and the checksum columns as "0x" + 16 hex digits; nothing is dropped or
 * wrapped. *stop (when not NULL) raised ends the export with "interrupted". Returns 0 (with err empty,
 * or holding one line that says what was escaped, written as text or written once), or -1 with a
 * one-line message in err (a write error: "write error", the caller has its errno). */
int export_run(h5in_rows *s, export_format f, FILE *out, volatile sig_atomic_t *stop, char *err, size_t errlen);

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
/* v as a JSON number, or null when it is not finite. */
json_t *export_num_or_null(double v);
/* One BMF measure into bench: value with its interval, each scaled; bounds only when both are finite;
 * nothing for a value that is not finite. */
void export_bmf_measure(json_t *bench, const char *slug, double v, double lo, double hi, double scale);
#endif

/* A CSV field: quoted (with "" for ") when it holds a comma, quote or line break. */
void export_csv_field(FILE *out, const char *s);

/* One cell's judgement by `ringbench track` (harness/track_night.h), as the judgement export writes
 * it. Numbers are NAN where there is none. */
typedef struct export_judgement {
    const char *cell, *unit, *verdict; /* verdict: track_kind_name's word */
    double newest, baseline, change, change_lo, change_hi, z;
    size_t baseline_runs;
    const char *first_run;          /* the run file that first showed the change */
    const char *environment_change; /* the environment change it coincides with ("" when none) */
    int both;                       /* judged both ways: as measured and beyond a shift */
    double change_as_measured, z_as_measured, change_beyond_shift, z_beyond_shift; /* where both */
    int as_measured;    /* the verdict came from the figures as measured, the other series confirmed it */
    int shift_only;     /* the change showed in the verdict's series only, not in the other one */
    int this_mode_only; /* one mode's control-block operation that its control block's modes did not confirm */
    const char *shift;  /* the shift divided out where both: "machine", "host" or "calls" */
} export_judgement;

/* Writes the judgements of run (its file name) of machine (its fingerprint) to path: JSON
 * {"run", "machine", "cells": [...]} (json = 1; needs jansson) or CSV with a header and one line per
 * cell. The file is written whole or not at all (a temporary file renamed into place, outfs.h): on a
 * write error the export before stays. Returns 0, or -1 with a one-line message in err ("cannot write
 * PATH: " and the errno of the write that failed). */
int export_judgements(const char *path, int json, const char *run, const char *machine, const export_judgement *j,
                      size_t n, char *err, size_t errlen);

#endif
