/* h5out_internal.h - what the parts of the results writer share (h5out.c: errors, the row type,
 * datasets, open/append/close; h5out_attr.c: the attributes). Not a public interface: include h5out.h.
 */
#ifndef RINGBENCH_H5OUT_INTERNAL_H
#define RINGBENCH_H5OUT_INTERNAL_H

#include "h5out.h"
#include "h5util.h"

#include <stdint.h>

#define CELLS_CHUNK_ROWS 64 /* rows per chunk of /cells: ~40 KiB, one chunk for most sweeps */
#define SAMPLES_CHUNK 16384 /* doubles per chunk of a samples dataset (128 KiB) */
#define DEFLATE_LEVEL 4     /* a good ratio for a small cost; rows are seconds apart anyway */

struct h5out {
    char *path;     /* where the finished file goes */
    char *partial;  /* path + ".partial": where it is written until h5out_close */
    int force;      /* replace an existing path */
    int deflate;    /* this HDF5 can encode deflate */
    int fletcher32; /* this HDF5 has the checksum filter, so damaged chunks are detected on read */
    hid_t file;
    hid_t cells;    /* the /cells dataset */
    hid_t row_type; /* memory type of rb_row */
    int32_t nrows;
    hid_t trials;      /* the /trials dataset */
    hid_t tsamples;    /* the /trial_samples dataset */
    uint64_t nsamples; /* its length */
    hid_t trial_type;  /* memory type of rb_trial */
    int32_t ntrials;
    int failed; /* H5OUT_OK, or what went wrong: see h5out_close */
    char err[512];
};

/* What a writer that failed may still do. ROOM: the room for the next write could not be taken
 * (outfs_reserve), so nothing was written since the last flush and the file can still be closed,
 * marked incomplete, in the room kept for that. WRITE: a write failed part-way: HDF5 must not write
 * into the file again, which stays as the last flush left it. */
enum { H5OUT_OK = 0, H5OUT_FAILED_ROOM, H5OUT_FAILED_WRITE };

/* Formats the writer's error message (what h5out_error returns). */
void h5out_fail(h5out *w, const char *fmt, ...);
/* A failed HDF5 call: what we were doing, on which file, and HDF5's own innermost reason. */
void h5out_fail_h5(h5out *w, const char *what);
/* Writes a scalar attribute on obj, replacing one of the same name. */
int h5out_attr_write(h5out *w, hid_t obj, const char *name, hid_t type, const void *value);
/* Strings are stored fixed-length and NUL-terminated, the size of the text plus its terminator. */
int h5out_attr_write_str(h5out *w, hid_t obj, const char *name, const char *value);
/* The attributes that make /cells self-describing: the unit of every numeric column, the families. */
int h5out_cells_describe(h5out *w);

#define H5_CHECK(w, call, what)         \
    do {                                \
        if ((call) < 0) {               \
            h5out_fail_h5((w), (what)); \
            goto out;                   \
        }                               \
    } while (0)

#endif
