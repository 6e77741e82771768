/* sweep.h - what `ringbench run` measures: presets, the --sizes grammar, and the sweep over every
 * selected mode x message size, written row by row to a results file.
 *
 * Per run: baselines first (floor, launch and graph per message, memcpy bandwidth; the ring's
 * ratios refer to them), the harness's own overhead, then per mode one control cell (control-block
 * operations and lifecycle cycles) and one cell per size (latency, then throughput), each cell with
 * a fresh kernel launch so that no kernel outlives a cell (the Windows watchdog on WSL2).
 */
#ifndef RINGBENCH_SWEEP_H
#define RINGBENCH_SWEEP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "h5out.h"
#include "measure.h"
#include "modes.h"
#include "probe.h"
#include "ring.h"

typedef struct rb_preset {
    const char *name;
    const char *doc;
    const char *sizes;       /* in the --sizes grammar */
    rb_policy latency;       /* per latency cell */
    rb_policy cb;            /* per control-block operation */
    int tput_reps;           /* throughput repetitions per cell */
    double tput_rep_seconds; /* each keeps the ring full this long, then drains */
    int memcpy_reps;
    double memcpy_rep_seconds;
    int lifecycle_cycles;    /* launch..terminate cycles per mode */
} rb_preset;

size_t rb_preset_count(void);
const rb_preset *rb_preset_at(size_t i);
const rb_preset *rb_preset_find(const char *name); /* NULL when unknown */

/* Message sizes, ascending, without duplicates. */
typedef struct rb_sizes {
    uint32_t v[64];
    size_t n;
} rb_sizes;

/* Parses the --sizes grammar: comma-separated terms, each a size or a range.
 *   size   = digits with an optional binary suffix K, M or G (KiB, MiB, GiB): 8, 4K, 16M
 *   range  = LO..HI       every power of two from LO to HI (LO itself kept even if not a power)
 *          | LO..HI:xF    LO, LO*F, LO*F^2, ... up to HI (F an integer >= 2), then HI if missed
 * Sizes must be multiples of 4 between 4 B and 1 GiB. Returns 0, or -1 with one line in err. */
int rb_sizes_parse(const char *spec, rb_sizes *out, char *err, size_t errlen);

/* "8 B", "4 KiB", "16 MiB". Returns buf. */
char *rb_size_name(uint64_t bytes, char *buf, size_t n);

typedef struct rb_sweep_opts {
    ring_backend backend;
    int device;
    const rb_preset *preset;
    rb_mode_set modes;
    rb_sizes sizes;
    uint32_t seed;
    double timeout_s;
    double max_lifetime_s;
    int quiet;               /* no progress on stderr */
} rb_sweep_opts;

typedef struct rb_sweep_result {
    size_t units_done, units_total;
    size_t ok, unsupported, invalid, failed; /* rows by status */
    int interrupted;
    rb_row *rows;            /* every row written, for the summary */
    size_t nrows, caprows;
    double floor_p50;        /* NaN when not measured */
} rb_sweep_result;

/* Runs the sweep, appending rows to w. Returns 0 when it ran to the end (some rows may be failed:
 * see res), 1 when *stop was raised, -1 when the results file could not be written (err says why). */
int rb_sweep_run(const rb_sweep_opts *o, const rb_caps *caps, h5out *w, volatile sig_atomic_t *stop,
                 rb_sweep_result *res, char *err, size_t errlen);

/* Prints the summary table (best and worst modes per size, fallback vs native) to out. */
void rb_sweep_summary(const rb_sweep_result *res, FILE *out);

void rb_sweep_result_free(rb_sweep_result *res);

#endif
