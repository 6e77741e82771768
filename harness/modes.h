/* modes.h - the mode axes of a ring-kernel system, their names, and the --modes grammar.
 *
 * This is the single source of truth for mode names: the runner, the results file, the report and the
 * README all use these tables. A mode is one value on each of four independent axes:
 *   host   pinned | malloc        where host-side staging buffers live (cudaHostAlloc or malloc)
 *   xfer   async | sync | zerocopy how payload and staged control-block copies move
 *                                  (cudaMemcpyAsync + stream sync, cudaMemcpy, or none: the rings
 *                                  live in mapped pinned memory the kernel reads directly)
 *   launch coop | noncoop          cudaLaunchCooperativeKernel + grid.sync(), or an ordinary launch
 *                                  completing through a last-block-done counter
 *   ctrl   managed | device | mapped  where the control block lives
 */
#ifndef RINGBENCH_MODES_H
#define RINGBENCH_MODES_H

#include <stddef.h>

typedef enum { RB_HOST_PINNED, RB_HOST_MALLOC, RB_HOST_COUNT } mode_host_mem;
typedef enum { RB_XFER_ASYNC, RB_XFER_SYNC, RB_XFER_ZEROCOPY, RB_XFER_COUNT } mode_xfer;
typedef enum { RB_LAUNCH_COOP, RB_LAUNCH_NONCOOP, RB_LAUNCH_COUNT } mode_launch;
typedef enum { RB_CTRL_MANAGED, RB_CTRL_DEVICE, RB_CTRL_MAPPED, RB_CTRL_COUNT } mode_ctrl;

typedef enum { RB_AXIS_HOST, RB_AXIS_XFER, RB_AXIS_LAUNCH, RB_AXIS_CTRL, RB_AXIS_COUNT } mode_axis;

typedef struct mode_spec {
    int v[RB_AXIS_COUNT]; /* v[RB_AXIS_HOST] is an mode_host_mem, and so on */
} mode_spec;

#define RB_MODE_COUNT (RB_HOST_COUNT * RB_XFER_COUNT * RB_LAUNCH_COUNT * RB_CTRL_COUNT)

const char *mode_axis_name(mode_axis a);            /* "host", "xfer", "launch", "ctrl" */
size_t mode_axis_size(mode_axis a);                 /* number of values on the axis */
const char *mode_axis_value(mode_axis a, int v);    /* "pinned", ...; NULL when out of range */
const char *mode_axis_doc(mode_axis a, int v);      /* one sentence on what the value means */
int mode_axis_parse(mode_axis a, const char *name); /* value index, or -1 */

/* The i-th mode in the canonical order (host slowest, ctrl fastest), i < RB_MODE_COUNT. */
mode_spec mode_at(size_t i);

/* NULL when the combination makes sense, else why not (the "invalid" reason in results). */
const char *mode_invalid_reason(const mode_spec *m);

/* "pinned/async/coop/mapped". Returns buf. */
char *mode_label(const mode_spec *m, char *buf, size_t n);

/* The inverse of mode_label: 0 with *m set, or -1 (m untouched) unless label names one value of
 * every axis, in axis order, separated by '/'. */
int mode_parse_label(const char *label, mode_spec *m);

/* The named paths: the WSL2 fallback of the document under test and the native path it is compared
 * with. Their modes and the words outputs call them by are defined here (the paths table of modes.c)
 * and nowhere else. */
typedef enum mode_path { MODE_PATH_FALLBACK = 0, MODE_PATH_NATIVE, MODE_PATH_COUNT } mode_path;
mode_spec mode_path_spec(mode_path p);
const char *mode_path_name(mode_path p);  /* "fallback", "native": a side or a column */
const char *mode_path_title(mode_path p); /* "WSL2 fallback", "native": a legend or a mode's note */

mode_spec mode_wsl2_fallback(void); /* mode_path_spec(MODE_PATH_FALLBACK): malloc/sync/noncoop/device */
mode_spec mode_native(void);        /* mode_path_spec(MODE_PATH_NATIVE): pinned/async/coop/mapped */

/* A set of modes: selected[i] for mode_at(i). */
typedef struct mode_set {
    unsigned char selected[RB_MODE_COUNT];
} mode_set;

/* Parses the --modes grammar: "all", or comma-separated AXIS=V1|V2 terms, e.g.
 * "host=pinned,ctrl=mapped|managed" (an axis not named keeps all its values), or a comma-separated
 * list of whole modes, e.g. "malloc/sync/noncoop/device,pinned/async/coop/mapped" (the sensitivity
 * sweep's three paths, which no product of axes selects alone). Returns 0, or -1 with a one-line
 * message in err (unknown axis, value or mode, repeated axis, empty term). */
int mode_set_parse(const char *spec, mode_set *out, char *err, size_t errlen);

#endif
