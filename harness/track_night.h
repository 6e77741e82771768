/* track_night.h - the night's verdict of `ringbench track`: the newest run of a machine judged against
 * the earlier runs of the same machine in a history (results/history.h), every cell at once.
 *
 * track_detect.h judges one series; this module decides everything around it: which runs form the
 * baseline, which cells are judged and what each is to the verdict (ring cell, headline, machine
 * reference), the machine's, the host's and the cudaMemcpy calls' shifts divided out, the headline
 * figures pooled over modes, the confirmations a change needs, and the night's false-alarm budget.
 * It returns the night as data (track_night); plots/track.c prints it, track_night_export writes it
 * for other tools (results/export.h), bench/cmd_track.c chooses the exit status.
 * Exercised by tests/test_history.c and tests/track_cli.sh. Built only when SQLite was found
 * (RINGBENCH_HAVE_SQLITE), as the history is.
 */
#ifndef RINGBENCH_TRACK_NIGHT_H
#define RINGBENCH_TRACK_NIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "headline.h"
#include "history.h"
#include "track_detect.h"

typedef struct track_options {
    track_params params;
    int same_env; /* compare only with runs whose whole fingerprint (environment too) matches */
    int raw;      /* 1: judge raw figures, without removing the machine's shift (--raw) */
    int p50;      /* 1: judge ring cells on their p50 and trial-level interval (--p50), not their
                     best trial */
} track_options;

/* What a cell is to the night's verdict. Ring cells (latency, throughput, control block, lifecycle,
 * harness overhead) can be regressions; the headline cells among them get most of the night's
 * false-alarm budget; machine references (memcpy, launch, graph, call costs, the floor) measure the
 * machine and CUDA, not ringbench, and are watched, never called regressions. */
typedef enum track_role { TRACK_CELL_RING = 0, TRACK_CELL_HEADLINE, TRACK_CELL_MACHINE } track_role;
#define TRACK_ROLES 3

typedef struct track_judged {
    char cell[256], unit[16], family[32], mode[64], ctrl[16];
    uint64_t size, window;
    int role;          /* TRACK_CELL_* */
    int bimodal;       /* a latency cell with two modes in some run of its series: judged on its fast mode */
    int pooled;        /* a headline figure pooled over modes (load_pooled), not one cell of the file */
    size_t pool_n;     /* pooled: how many cells the newest run's figure was taken from */
    double pool_floor; /* pooled: each point's standard error (TRACK_POOL_FLOOR, _WINDOW); a headline cell of
                          the file: the floor under each point's (TRACK_HEADLINE_FLOOR); 0: none */
    unsigned hl_sides; /* the sides of harness/headline.h's figures this cell stands for: bit 2 x figure + side
                          (HL_NATIVE, HL_FALLBACK); 0 for a cell that is no headline figure's */
    double slow_share; /* the newest run's share of samples in the slow mode (NAN: unimodal) */
    double thr;        /* the |z| its family needs tonight */
    track_result r;    /* the judgement: a ring cell's figures beyond the machine's shift, or as measured for
                          the figures judged so (as_measured); as measured with --raw, and for references */
    track_result raw;  /* a ring cell's other series (has_raw), which must confirm r's change: as measured, or
                          beyond the shift where r is as measured */
    int has_raw;
    const char *shift; /* the shift divided out where has_raw (shift_name): "machine", "host" or "calls" */
    int as_measured;   /* r is the figures as measured, raw beyond the shift (add_pooled_headlines says which) */
    int machine_only;  /* r changed, raw did not confirm it: watched (apply_budget); "beyond the <shift>
                          shift only", or "as measured only" where as_measured */
    track_result grp;  /* a native control-block read or write about to be called (ctrl_pooled): the
                          median of the best trials of every mode with its control block, judged like r;
                          must confirm r (ctrl_group_confirms) */
    size_t grp_n;      /* how many cells the newest run's group figure was taken from */
    int grp_only;      /* r changed, grp did not confirm it: watched (apply_budget) */
    size_t first_run;  /* index in the runs array */
    char coincides[512];
} track_judged;

/* The newest run's reference movement by kind, for the printed line: each size's pinned memcpy
 * (the mean of the H2D and D2H cells' log changes) and the floor's. */
typedef struct track_machine_detail {
    size_t nsizes;
    uint64_t sizes[64]; /* ascending */
    double sum[64];
    int count[64];
    double change[64]; /* sum / count: each size's log change */
    double median;     /* the median of change[]; NAN when there is none */
    double floor;      /* log change; NAN when the run has no floor */
    int ncalls;        /* cudaMemcpy call costs (is_memcpy_call) with a change */
} track_machine_detail;

/* The bit of track_judged.hl_sides for side (HL_NATIVE, HL_FALLBACK) of headline figure fig (headline_id). */
#define TRACK_HL_BIT(fig, side) (1u << (2 * (unsigned)(fig) + (unsigned)(side)))

/* A judged night. */
typedef struct track_night {
    track_options o;
    hist_run *runs; /* the judged run's machine, oldest first, up to and including it (runs[n - 1]):
                       complete runs (with --same-env, of the same environment) form its baseline */
    size_t n;
    long long other_runs, other_machines; /* runs and fingerprints of other machines, never compared */
    track_machine_detail md;              /* tonight's references by kind (n > 1) */
    double shift, calls_shift;            /* tonight's log shift of the machine and of the cudaMemcpy calls */
    int host_ok;                          /* native reads and writes judged beyond the host's shift */
    int host_tonight;                     /* tonight's run measured host_ref */
    double host_shift;                    /* tonight's log shift of the host_ref pool */
    size_t host_cells;                    /* how many cells tonight's host_ref figure was taken from */
    track_judged *cells;                  /* every judged cell and pooled figure, largest change first */
    size_t ncells;
    long headline[HL_COUNT][2]; /* the cell each side of each headline figure is judged on: an index into
                                   cells, -1 where tonight's run has none */
    size_t nfam[TRACK_ROLES];   /* cells per role */
    size_t count[TRACK_KINDS];  /* cells per final kind */
} track_night;

/* Judges run run_id of h against the earlier runs of its machine into *night (freed with
 * track_night_free, also after a failure). Returns 0, or -1 with a one-line message in err. */
int track_night_judge(hist *h, long long run_id, const track_options *o, track_night *night, char *err, size_t errlen);
void track_night_free(track_night *night);

/* The |z| headline cell x needs tonight into *thr, and the smallest change it can catch: a change must
 * show beyond the shift and as measured (TRACK_RAW_CONFIRM), and be at least min_effect. */
double track_night_catch(const track_night *night, const track_judged *x, double *thr);

/* Is a pool of this family the median over its cells of each cell's best trial (a native control-block
 * read or write, or the host reference measured beside them), rather than the best trial of all? */
int track_pool_is_median(const char *family);

/* "driver 580.1 -> 590.2, kernel a -> b" into buf; returns the number of fields that differ. */
int track_env_diff(const hist_run *a, const hist_run *b, char *buf, size_t n);

/* The night's verdict in a few words, as `track --list` shows it and a history stores it:
 * "regression" (a cell called one), "improvement" (none, but a cell improved), "no change",
 * "new machine" (no earlier complete run of it: nothing to compare), or "not judged yet" (earlier runs,
 * but fewer than --min-history, so no cell was judged: the terminal's and history.md's words). */
const char *track_night_verdict(const track_night *night);

/* Writes the night's judgement of every cell to path (results/export.h export_judgements): JSON
 * (json = 1, needs jansson) or CSV. Returns 0, or -1 with a one-line message in err. */
int track_night_export(const track_night *night, const char *path, int json, char *err, size_t errlen);

#endif
