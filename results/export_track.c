/* export_track.c - the judgements of a night of `ringbench track` in the formats other tools read
 * (export.h): CSV, or JSON through jansson. The judging is harness/track_night.c's; this file only
 * writes what it decided. Exercised by tests/track_cli.sh (test_track_cli_track) and tests/test_history.c.
 */
#include <math.h>
#include <stdio.h>

#include "export.h"
#include "outfs.h"

#ifdef RINGBENCH_HAVE_JANSSON
#include <jansson.h>
#endif

/* The judged cells of the newest run as CSV rows into f (export_judgements), one per cell with its header. */
static void export_csv_judged(FILE *f, const char *run, const export_judgement *j, size_t n)
{
    fputs("run,cell,unit,verdict,newest,baseline,change,change_lo,change_hi,z,baseline_runs,first_run,"
          "environment_change,change_as_measured,z_as_measured,beyond_shift_only,judged_as_measured,"
          "change_beyond_shift,z_beyond_shift,as_measured_only,this_mode_only,shift\n",
          f);
    for (size_t i = 0; i < n; i++) {
        export_csv_field(f, run);
        fputc(',', f);
        export_csv_field(f, j[i].cell);
        fprintf(f, ",%s,%s,%.10g,%.10g,%.10g,%.10g,%.10g,%.4g,%zu,", j[i].unit, j[i].verdict, j[i].newest,
                j[i].baseline, j[i].change, j[i].change_lo, j[i].change_hi, j[i].z, j[i].baseline_runs);
        export_csv_field(f, j[i].first_run);
        fputc(',', f);
        export_csv_field(f, j[i].environment_change);
        if (j[i].both)
            fprintf(f, ",%.10g,%.4g,%d,%d,%.10g,%.4g,%d,%d,%s\n", j[i].change_as_measured, j[i].z_as_measured,
                    j[i].shift_only && !j[i].as_measured, j[i].as_measured, j[i].change_beyond_shift,
                    j[i].z_beyond_shift, j[i].shift_only && j[i].as_measured, j[i].this_mode_only, j[i].shift);
        else
            fprintf(f, ",,,0,0,,,0,%d,\n", j[i].this_mode_only);
    }
}

#ifdef RINGBENCH_HAVE_JANSSON
static json_t *real_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* One judged cell as a JSON object. */
static json_t *judgement_json(const export_judgement *j)
{
    json_t *o = json_object();
    json_object_set_new(o, "cell", export_json_text(j->cell, NULL));
    json_object_set_new(o, "unit", export_json_text(j->unit, NULL));
    json_object_set_new(o, "verdict", json_string(j->verdict));
    json_object_set_new(o, "newest", real_or_null(j->newest));
    json_object_set_new(o, "baseline", real_or_null(j->baseline));
    json_object_set_new(o, "change", real_or_null(j->change));
    json_object_set_new(o, "change_lo", real_or_null(j->change_lo));
    json_object_set_new(o, "change_hi", real_or_null(j->change_hi));
    json_object_set_new(o, "z", real_or_null(j->z));
    json_object_set_new(o, "baseline_runs", json_integer((json_int_t)j->baseline_runs));
    json_object_set_new(o, "first_run", export_json_text(j->first_run, NULL));
    json_object_set_new(o, "environment_change", export_json_text(j->environment_change, NULL));
    json_object_set_new(o, "change_as_measured", j->both ? real_or_null(j->change_as_measured) : json_null());
    json_object_set_new(o, "z_as_measured", j->both ? real_or_null(j->z_as_measured) : json_null());
    json_object_set_new(o, "change_beyond_shift", j->both ? real_or_null(j->change_beyond_shift) : json_null());
    json_object_set_new(o, "z_beyond_shift", j->both ? real_or_null(j->z_beyond_shift) : json_null());
    json_object_set_new(o, "beyond_shift_only", json_boolean(j->shift_only && !j->as_measured));
    json_object_set_new(o, "as_measured_only", json_boolean(j->shift_only && j->as_measured));
    json_object_set_new(o, "judged_as_measured", json_boolean(j->as_measured));
    json_object_set_new(o, "this_mode_only", json_boolean(j->this_mode_only));
    json_object_set_new(o, "shift", j->both ? json_string(j->shift) : json_null());
    return o;
}
#endif

/* The JSON document into f. Returns 0, or -1 with err. */
static int export_json_judged(FILE *f, const char *run, const char *machine, const export_judgement *j, size_t n,
                              char *err, size_t errlen)
{
#ifdef RINGBENCH_HAVE_JANSSON
    json_t *doc = json_object(), *arr = json_array();
    json_object_set_new(doc, "run", export_json_text(run, NULL));
    json_object_set_new(doc, "machine", export_json_text(machine, NULL));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, judgement_json(&j[i]));
    json_object_set_new(doc, "cells", arr);
    int rc = json_dumpf(doc, f, JSON_INDENT(1));
    json_decref(doc);
    (void)err, (void)errlen;
    return rc;
#else
    (void)f, (void)run, (void)machine, (void)j, (void)n;
    snprintf(err, errlen, "JSON export needs jansson, which this build lacks (install libjansson-dev)");
    return -1;
#endif
}

int export_judgements(const char *path, int json, const char *run, const char *machine, const export_judgement *j,
                      size_t n, char *err, size_t errlen)
{
    /* Written as PATH.tmp-PID and renamed (outfs.h): on a write error or an interrupt the export
     * before stays as it was. */
    outfs_file o;
    if (outfs_path_check("--export", path, err, errlen) != 0 || outfs_file_open(&o, path, err, errlen) != 0)
        return -1;
    int rc = 0;
    err[0] = '\0';
    if (json)
        rc = export_json_judged(o.f, run, machine, j, n, err, errlen);
    else
        export_csv_judged(o.f, run, j, n);
    /* A write that failed is said by the commit, with its errno; any other failure here (a build
     * without jansson) has said why and is discarded. */
    if (rc != 0 && outfs_stream_errno(o.f) == 0) {
        if (!err[0])
            snprintf(err, errlen, "cannot write %s: the JSON could not be encoded", path);
        outfs_file_discard(&o);
        return -1;
    }
    return outfs_file_commit(&o, err, errlen);
}
