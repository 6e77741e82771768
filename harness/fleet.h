/* fleet.h - a history of many machines read as a fleet: each machine's runs and headline figures,
 * and for every two machines with the same GPU on different platforms (a WSL2 one and a native one)
 * the cross-platform ratio night by night, judged like any tracked figure.
 *
 * The cross-platform ratio of a headline figure (harness/headline.h's list, one definition) on one
 * night is what moving to WSL2 costs: the WSL2 machine's figure on its fallback path (side
 * HL_FALLBACK: what a ring-kernel runtime can use there) over the native machine's on its native
 * reference (side HL_NATIVE), on time (a rate's inverse), the native machine's run being the one
 * nearest in time. Its 95 % interval combines the two sides' intervals in log space as independent
 * (two machines, two runs): se = sqrt(se_wsl^2 + se_native^2), se = (log hi - log lo) / (2 x 1.96).
 * The newest night is judged against the nights before it with track_detect.h's lookback z-score
 * (window 20, at least 5 earlier nights, 3 % minimum effect), the |z| it needs set so that a pair's
 * figures together keep a 5 % false-alarm chance per night (track_family_threshold). A ratio that grew
 * is a regression; the driver, CUDA runtime and kernel changes of either machine at the night the
 * change first shows are named beside it (docs/decisions/0160-shared-history-schema.md).
 *
 * Reads the history through results/history.h only (its list of runs and their stored headline
 * figures: what the database holds, never a run file). plots/fleet_page.c renders it. Tests:
 * tests/fleet_cli.sh (the page of a native and a WSL2 machine), tests/test_fleet.c (the ratio, its
 * interval and the nearest run on synthetic series).
 */
#ifndef RINGBENCH_FLEET_H
#define RINGBENCH_FLEET_H

#include <stddef.h>
#include <time.h>

#include "headline.h"
#include "history.h"
#include "track_detect.h"

/* A run of the history with its headline figures by headline_id (key "" where none is stored). */
typedef struct fleet_run {
    hist_listed l;
    time_t start; /* l.run.start as a time (0 when unreadable) */
    hist_headline hl[HL_COUNT];
} fleet_run;

/* A machine (one fingerprint): its runs, oldest first. */
typedef struct fleet_machine {
    const char *fingerprint; /* runs[...].l.run.machine of its first run */
    const fleet_run *first;  /* for its host, backend, GPU and platform */
    size_t *runs, n;         /* indices into fleet.runs of its complete runs, oldest first */
    size_t nall;             /* its runs, complete or not */
    long newest;             /* index of its newest run, complete or not */
} fleet_machine;

/* One night of a cross-platform series. */
typedef struct fleet_point {
    double est, lo, hi; /* WSL2 over native, on time, with its 95 % interval (NAN: none) */
    size_t wsl, native; /* the two runs (indices into fleet.runs) */
    char change[256];   /* versions that changed since the night before ("" when none) */
} fleet_point;

typedef struct fleet_series {
    headline_id fig;
    fleet_point *pts; /* nights with the figure measured on both sides, oldest first */
    size_t n;
    track_result r; /* the newest night against the nights before (kind TRACK_NO_HISTORY: too few) */
    double thr;     /* the |z| it needed */
} fleet_series;

typedef struct fleet_pair {
    size_t wsl, native; /* machine indices */
    fleet_series s[HL_COUNT];
    size_t regressions, improvements; /* series whose newest night is one */
} fleet_pair;

typedef struct fleet {
    fleet_run *runs;
    size_t nruns;
    fleet_machine *m;
    size_t nm;
    fleet_pair *pairs;
    size_t np;
    size_t regressions; /* over every pair */
} fleet;

/* Reads the history h into *f (freed with fleet_free, also after a failure): runs, machines, pairs
 * and their judged series. Returns 0, or -1 with a one-line message in err. */
int fleet_load(hist *h, fleet *f, char *err, size_t errlen);
void fleet_free(fleet *f);

/* The headline figure of run r by its id, or NULL when the history holds none for it. */
const hist_headline *fleet_figure(const fleet_run *r, headline_id fig);

/* One night's cross-platform ratio of figure fig: wsl's fallback side over native's native side, on
 * time, with the interval above. Returns 0 and fills est, lo, hi (lo, hi NAN without intervals), or
 * -1 when either side was not measured. */
int fleet_cross_ratio(const hist_headline *wsl, const hist_headline *native, double *est, double *lo, double *hi);

/* Index into runs (of n, sorted by start) of the run nearest in time to t; ties: the earlier. */
size_t fleet_nearest(const fleet_run *runs, const size_t *idx, size_t n, time_t t);

/* "2026-11-22T17:50:41Z" as a time; 0 when it is not one. */
time_t fleet_parse_utc(const char *s);

#endif
