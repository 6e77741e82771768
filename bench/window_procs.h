/* window_procs.h - `run --window-procs K`: the smallest size's full window measured in K fresh processes.
 *
 * The full window's rate is the host's, and each process draws a level of its own that all its trials
 * share: 72 short processes on one H100 spread 12.5 % from one to the next while a trial sat 8.9 %
 * around its own process's median, and a fresh CUDA context for every ring did not draw the level
 * anew (docs/decisions/0035-full-window-in-fresh-processes.md). More trials in one process
 * therefore cannot steady it; the median of several processes does. After the sweep, the run starts K
 * child processes of its own binary one after another, each `ringbench run --preset quick` of the four
 * native zero-copy modes (pinned/zerocopy/{coop,noncoop}/{mapped,managed}) at that size and the full
 * window with 3 trials, plus the options of the parent that change what is measured (backend, device,
 * CPUs, workers, the ring's switches, limits, injection). Each child is one trial of a cell of family
 * throughput_procs per mode: the best of its 3 trials, with that trial's conditions, and the messages
 * it verified (lost, duplicated, corrupted summed over the child's trials of the mode). bench/sweep.c
 * records those trials and rows like any other, so a cell's p50 is the median over the K processes.
 *
 * Each child also gives one trial of two reference cells: its own memcpy_h2d_pinned and
 * memcpy_h2d_pageable at that size (families memcpy_h2d_{pinned,pageable}_procs, its median trial),
 * measured in the same seconds as its full window. A process's level of the full window moves with its
 * own memcpy (correlation +0.72 over 96 processes on an H100, the spread between processes 11.3 % ->
 * 6.4 % divided by it; docs/decisions/0035-full-window-in-fresh-processes.md), which the sweep's references,
 * measured minutes apart, cannot see.
 */
#ifndef RINGBENCH_WINDOW_PROCS_H
#define RINGBENCH_WINDOW_PROCS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "schema.h"

#define WINDOW_PROCS_MAX 1000 /* --window-procs bound */
#define WINDOW_PROCS_MODES 4
#define WINDOW_PROCS_TRIALS 3 /* trials per cell inside each child (the quick preset's) */
#define WINDOW_PROCS_REFS 2   /* reference cells: memcpy_h2d_pinned_procs, memcpy_h2d_pageable_procs */
#define WINDOW_PROCS_CELLS (WINDOW_PROCS_MODES + WINDOW_PROCS_REFS)

/* What every child shares. */
typedef struct window_procs_cfg {
    int k;                   /* processes */
    const char *const *args; /* the parent's options each child gets, NULL-terminated (may be NULL) */
    uint32_t size;           /* the message size: the run's smallest */
    uint32_t seed;           /* child i gets seed + i */
    int keep;                /* leave each child's file and log in the folder (run --window-procs-keep) */
    volatile sig_atomic_t *stop;
} window_procs_cfg;

/* The indices (modes.h mode_at) of the four modes, in a fixed order. Returns WINDOW_PROCS_MODES. */
size_t window_procs_modes(int idx[WINDOW_PROCS_MODES]);

/* The family of reference cell j (0 <= j < WINDOW_PROCS_REFS): RB_FAM_MEMCPY_H2D_PINNED_PROCS, then
 * RB_FAM_MEMCPY_H2D_PAGEABLE_PROCS. */
rb_family window_procs_ref_family(int j);

/* One child's outcome: per cell - the modes in window_procs_modes' order, then the references - a trial
 * row whose status, reason, window, conditions and verification counts are filled (the family, ids,
 * round and seq are the caller's) and the figure in GB/s (NaN when not ok). */
typedef struct window_procs_proc {
    rb_trial t[WINDOW_PROCS_CELLS];
    double gbps[WINDOW_PROCS_CELLS];
    uint64_t start_ns; /* when the child started (timing_now_ns) */
    double wall_s;     /* how long it ran */
    int exit_status;   /* its exit status; -1 when it did not exit normally or did not start */
} window_procs_proc;

/* The folder for the children's files, malloc'd into *dir: keep (created if missing) when it is not NULL,
 * else a fresh one under $TMPDIR (default /tmp). Returns 0, or -1 with err (*dir NULL). */
int window_procs_dir(const char *keep, char **dir, char *err, size_t errlen);

/* Runs child `index` (0-based) with its file and log in dir, waits for it, reads its file and removes
 * both (unless c->keep). A child that fails or leaves no usable file gives failed trials that say why
 * (its exit status and the last line of its log). Returns 0 when it ran (whatever its outcome), 1 when
 * *c->stop was raised (the child is stopped too and *out is not to be used). */
int window_procs_one(const window_procs_cfg *c, const char *dir, int index, window_procs_proc *out);

/* Removes dir (and anything left in it). */
void window_procs_dir_remove(const char *dir);

#endif
