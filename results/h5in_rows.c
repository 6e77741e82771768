/* h5in_rows.c - a results file read row by row in bounded memory (h5in.h, h5in_rows_*), for exports of
 * files of any length: a 10^6-row file held whole by h5in_open is a gigabyte of rows before anything
 * is written.
 *
 * Open makes one pass over /cells, /trials and /trial_samples, a block at a time, and runs every check
 * h5in_open runs (h5in_check.c: the per-row and per-trial checks are the same functions; the checks
 * across rows are done here on a small record per row: its identity's hash, its cell and what its
 * trials hold). A row found damaged gets the reason h5in_open gives it: each check has its phase, in
 * h5in_validate's order, and a row keeps the reason of the first. The warnings are the same lines.
 * h5in_rows_next then reads /cells again, a block at a time, and hands out each row with its damage
 * applied. Files before schema 4 (whose bimodal columns are computed from every sample) are read whole
 * by h5in_open: they come from runs of at most a few thousand rows. tests/test_h5_damaged.c checks that
 * both readers mark the same rows the same way, for every damaged file it makes.
 */
#define _POSIX_C_SOURCE 200809L

#include "h5in_internal.h"
#include "h5out.h" /* h5out_row_type, h5out_trial_type: the memory types */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_BLOCK 4096 /* rows (or trials) read at a time: ~3.6 MiB of rb_row */

/* The checks that mark rows, in the order h5in_validate runs them: a row keeps its first reason. */
enum { PH_ROW, PH_IDENTITY, PH_CELL_ID, PH_TRIAL, PH_ROUND, PH_SAMPLES, PH_OWN_SAMPLES, PH_COUNT };

/* A reason found for a row: the first by (phase, seq) is the row's. */
typedef struct row_mark {
    size_t row, seq;
    int phase;
    char *why;
} row_mark;

/* What the checks across rows need of a row. */
typedef struct row_rec {
    uint64_t ident, fam; /* hashes of the cell's identity and of its family */
    uint64_t n, ok_sum;  /* its n; the samples of its ok trials */
    uint32_t ntrials;    /* its trials in /trials */
    int32_t cell_id;
    unsigned char ok;          /* status ok as written */
    unsigned char own;         /* its samples_check says it has samples of its own (schema 3+) */
    unsigned char own_dataset; /* /samples holds its dataset */
} row_rec;

/* A trial as the round check needs it. */
typedef struct trial_rec {
    size_t row, idx;
    int32_t round, raw; /* its round for the order (0 for a negative one, as h5in_trials_index), as written */
} trial_rec;

struct h5in_rows {
    h5in *meta; /* attributes, schema and warnings; no rows (h5in_rows_next hands them out) */
    h5in *full; /* schema < 4: the file read whole */
    h5in_table cells;
    size_t nrows, next;
    rb_row *block;
    size_t block_at, block_n;
    row_rec *rec;
    row_mark *marks; /* sorted by row once open is done: one per damaged row */
    size_t nmarks, mcap, mnext, mseq;
    rb_row cur;
};

// --- marks ----------------------------------------------------------------------------------------------

static int add_mark(h5in_rows *s, size_t row, int phase, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (s->nmarks == s->mcap) {
        size_t cap = s->mcap ? 2 * s->mcap : 64;
        row_mark *m = realloc(s->marks, cap * sizeof *m);
        if (m == NULL)
            return -1;
        s->marks = m;
        s->mcap = cap;
    }
    char *copy = strdup(why);
    if (copy == NULL)
        return -1;
    s->marks[s->nmarks++] = (row_mark){row, s->mseq++, phase, copy};
    return 0;
}

static int cmp_mark(const void *a, const void *b)
{
    const row_mark *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reads row i alone (for a warning's label, or to compare two rows). */
static int row_at(h5in_rows *s, size_t i, rb_row *row, char *err, size_t errlen)
{
    memset(row, 0, sizeof *row);
    if (h5in_table_block(s->meta, &s->cells, RB_H5_CELLS, i, 1, row, err, errlen) != 0)
        return -1;
    h5in_row_terminate(row);
    return 0;
}

/* Keeps each damaged row's first reason, and says it in a warning, as h5in_open does. */
static int settle_marks(h5in_rows *s, char *err, size_t errlen)
{
    size_t kept = 0;
    if (s->nmarks > 1)
        qsort(s->marks, s->nmarks, sizeof *s->marks, cmp_mark);
    for (size_t k = 0; k < s->nmarks; k++) {
        if (kept > 0 && s->marks[kept - 1].row == s->marks[k].row) {
            free(s->marks[k].why);
            continue;
        }
        s->marks[kept++] = s->marks[k];
        rb_row row;
        if (row_at(s, s->marks[k].row, &row, err, errlen) != 0)
            return -1;
        h5in_warn_row(s->meta, s->marks[k].row, &row, s->marks[k].why);
    }
    s->nmarks = kept;
    return 0;
}

// --- /cells: each row by itself -------------------------------------------------------------------------

static uint64_t hash_text(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return (h ^ 0xFFu) * 0x100000001b3ull; /* the end of a field */
}

/* The hash of what makes a row's cell (h5in_check.c's same_cell). */
static uint64_t cell_hash(const rb_row *r)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *const f[] = {r->family, r->backend, r->host_mem, r->xfer, r->launch, r->ctrl};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        h = hash_text(h, f[i], RB_NAME_LEN);
    for (int b = 0; b < 8; b++)
        h = (h ^ ((r->size_bytes >> (8 * b)) & 0xFF)) * 0x100000001b3ull;
    for (int b = 0; b < 8; b++)
        h = (h ^ ((r->window >> (8 * b)) & 0xFF)) * 0x100000001b3ull;
    return h;
}

/* Every row, a block at a time: the checks of a row alone (h5in_row_problem) and its record. */
static int scan_cells(h5in_rows *s, char *err, size_t errlen)
{
    char why[512];
    const uint64_t none = rb_check_samples(NULL, 0);
    for (size_t at = 0; at < s->nrows; at += ROWS_BLOCK) {
        size_t n = s->nrows - at < ROWS_BLOCK ? s->nrows - at : ROWS_BLOCK;
        memset(s->block, 0, n * sizeof *s->block);
        if (h5in_table_block(s->meta, &s->cells, RB_H5_CELLS, at, n, s->block, err, errlen) != 0)
            return -1;
        for (size_t k = 0; k < n; k++) {
            rb_row *row = &s->block[k];
            row_rec *rc = &s->rec[at + k];
            h5in_row_terminate(row);
            rc->ident = cell_hash(row);
            rc->fam = hash_text(0xcbf29ce484222325ull, row->family, RB_NAME_LEN);
            rc->cell_id = row->cell_id;
            rc->n = row->n;
            rc->ok = strcmp(row->status, RB_STATUS_OK) == 0;
            rc->own = row->samples_check != none;
            const char *p = h5in_row_problem(row, at + k, s->meta->schema, why, sizeof why);
            if (p != NULL && add_mark(s, at + k, PH_ROW, "%s", p) != 0)
                return -1;
        }
    }
    return 0;
}

// --- across rows: one row per cell, one cell_id per family ----------------------------------------------

static const row_rec *sort_recs; /* qsort has no context argument; one thread reads at a time */

static int cmp_ident(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (sort_recs[x].ident != sort_recs[y].ident)
        return sort_recs[x].ident < sort_recs[y].ident ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_cell_fam(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const row_rec *p = &sort_recs[x], *q = &sort_recs[y];
    if (p->cell_id != q->cell_id)
        return p->cell_id < q->cell_id ? -1 : 1;
    if (p->fam != q->fam)
        return p->fam < q->fam ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Whether rows i and j are the same cell: their hashes matched, their columns are compared. */
static int same_cell_at(h5in_rows *s, size_t i, size_t j, int *same, char *err, size_t errlen)
{
    rb_row a, b;
    if (row_at(s, i, &a, err, errlen) != 0 || row_at(s, j, &b, err, errlen) != 0)
        return -1;
    *same = strcmp(a.family, b.family) == 0 && strcmp(a.backend, b.backend) == 0 &&
            strcmp(a.host_mem, b.host_mem) == 0 && strcmp(a.xfer, b.xfer) == 0 && strcmp(a.launch, b.launch) == 0 &&
            strcmp(a.ctrl, b.ctrl) == 0 && a.size_bytes == b.size_bytes && a.window == b.window;
    return 0;
}

/* Two rows of one cell are both marked (h5in_check.c validate_identity); so are two rows of one cell_id
 * and family where trials are involved (schema 2+: trials find their row by them). */
static int check_identity(h5in_rows *s, size_t *order, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->nrows; i++)
        order[i] = i;
    sort_recs = s->rec;
    qsort(order, s->nrows, sizeof *order, cmp_ident);
    for (size_t k = 1; k < s->nrows; k++) {
        size_t a = order[k - 1], b = order[k];
        int same = 0;
        if (s->rec[a].ident != s->rec[b].ident)
            continue;
        if (same_cell_at(s, a, b, &same, err, errlen) != 0)
            return -1;
        if (same && (add_mark(s, a, PH_IDENTITY, "the same cell as row %zu", b) != 0 ||
                     add_mark(s, b, PH_IDENTITY, "the same cell as row %zu", a) != 0))
            return -1;
    }
    qsort(order, s->nrows, sizeof *order, cmp_cell_fam);
    for (size_t k = 1; k < s->nrows; k++) {
        size_t a = order[k - 1], b = order[k];
        const row_rec *x = &s->rec[a], *y = &s->rec[b];
        if ((x->ntrials || y->ntrials) && x->cell_id == y->cell_id && x->fam == y->fam &&
            (add_mark(s, a, PH_CELL_ID, "row %zu has the same cell_id %d", b, (int)y->cell_id) != 0 ||
             add_mark(s, b, PH_CELL_ID, "row %zu has the same cell_id %d", a, (int)y->cell_id) != 0))
            return -1;
    }
    return 0;
}

// --- /trials --------------------------------------------------------------------------------------------

/* The row trial t belongs to: the first row of its cell_id and family (h5in_trials_index), or SIZE_MAX.
 * order holds the rows sorted by cmp_cell_fam. */
static size_t row_of(const h5in_rows *s, const size_t *order, const rb_trial *t)
{
    const uint64_t fam = hash_text(0xcbf29ce484222325ull, t->family, RB_NAME_LEN);
    size_t lo = 0, hi = s->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const row_rec *m = &s->rec[order[mid]];
        if (m->cell_id < t->cell_id || (m->cell_id == t->cell_id && m->fam < fam))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->nrows && s->rec[order[lo]].cell_id == t->cell_id && s->rec[order[lo]].fam == fam)
        return order[lo];
    return SIZE_MAX;
}

/* A trial found damaged: its row is marked with it, or a trial of no row is warned about alone. */
static int mark_trial(h5in_rows *s, unsigned char *bad, size_t t, size_t row, int phase, const char *why)
{
    bad[t] = 1;
    if (row != SIZE_MAX)
        return add_mark(s, row, phase, RB_H5_TRIALS " row %zu: %s", t, why);
    h5in_add_warning(s->meta, "%s: " RB_H5_TRIALS " row %zu (of no row in " RB_H5_CELLS "): %s", s->meta->path, t, why);
    return 0;
}

/* The trials as the checks of /trial_samples need them. */
typedef struct trials_seen {
    size_t n;
    size_t *row;         /* the row of each trial, or SIZE_MAX */
    uint64_t *off, *len; /* its samples */
    uint64_t *check;     /* their checksum */
    unsigned char *bad;  /* marked */
    unsigned char *ok;   /* status ok as written */
    trial_rec *rounds;   /* (row, round) of the trials that have a row */
    size_t nrounds;
} trials_seen;

static void trials_seen_free(trials_seen *t)
{
    free(t->row);
    free(t->off);
    free(t->len);
    free(t->check);
    free(t->bad);
    free(t->ok);
    free(t->rounds);
}

static int trials_alloc(h5in_rows *s, trials_seen *ts, size_t n, char *err, size_t errlen)
{
    size_t m = n ? n : 1;
    ts->n = n;
    ts->row = malloc(m * sizeof *ts->row);
    ts->off = malloc(m * sizeof *ts->off);
    ts->len = malloc(m * sizeof *ts->len);
    ts->check = malloc(m * sizeof *ts->check);
    ts->bad = calloc(m, 1);
    ts->ok = calloc(m, 1);
    ts->rounds = malloc(m * sizeof *ts->rounds);
    if (!ts->row || !ts->off || !ts->len || !ts->check || !ts->bad || !ts->ok || !ts->rounds) {
        h5in_put_err(err, errlen, "%s: out of memory for %zu trials", s->meta->path, n);
        return -1;
    }
    return 0;
}

/* One block of trials: each by itself (h5in_trial_problem), in order. */
static int trials_block(h5in_rows *s, const size_t *order, trials_seen *ts, rb_trial *b, size_t at, size_t n,
                        uint64_t *next)
{
    char why[512];
    for (size_t k = 0; k < n; k++) {
        const size_t t = at + k;
        rb_trial *tr = &b[k];
        h5in_trial_terminate(tr);
        if (tr->trial_id != (int32_t)t)
            return -2;
        ts->row[t] = row_of(s, order, tr);
        ts->off[t] = tr->sample_offset;
        ts->len[t] = tr->n;
        ts->check[t] = tr->samples_check;
        ts->ok[t] = strcmp(tr->status, RB_STATUS_OK) == 0;
        if (ts->row[t] != SIZE_MAX) {
            s->rec[ts->row[t]].ntrials++;
            ts->rounds[ts->nrounds++] = (trial_rec){ts->row[t], t, tr->trial < 0 ? 0 : tr->trial, tr->trial};
        }
        const char *p = h5in_trial_problem(tr, s->meta->schema, next, why, sizeof why);
        if (p != NULL && mark_trial(s, ts->bad, t, ts->row[t], PH_TRIAL, p) != 0)
            return -1;
    }
    return 0;
}

/* Every trial, a block at a time. A trial that says it is another is a damaged file (as h5in_open). */
static int scan_trials(h5in_rows *s, const size_t *order, trials_seen *ts, char *err, size_t errlen)
{
    h5in_table t = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, 0};
    hid_t full = h5out_trial_type();
    rb_trial *b = malloc(ROWS_BLOCK * sizeof *b);
    uint64_t next = 0;
    int rc = -1;
    if (full < 0 || b == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", s->meta->path);
        goto out;
    }
    if (!H5Lexists(s->meta->file, RB_H5_TRIALS, H5P_DEFAULT)) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: not a ringbench results file of schema %d (no " RB_H5_TRIALS " table)",
                     s->meta->path, s->meta->schema);
        goto out;
    }
    if (h5in_table_open(s->meta, RB_H5_TRIALS, full, h5in_trials_optional(s->meta->schema), &t, err, errlen) != 0 ||
        trials_alloc(s, ts, t.count, err, errlen) != 0)
        goto out;
    for (size_t at = 0; at < t.count; at += ROWS_BLOCK) {
        size_t n = t.count - at < ROWS_BLOCK ? t.count - at : ROWS_BLOCK;
        memset(b, 0, n * sizeof *b);
        if (h5in_table_block(s->meta, &t, RB_H5_TRIALS, at, n, b, err, errlen) != 0)
            goto out;
        int brc = trials_block(s, order, ts, b, at, n, &next);
        if (brc == -2) {
            h5in_put_err(err, errlen, "%s: damaged file: " RB_H5_TRIALS " row says it is another trial", s->meta->path);
            goto out;
        }
        if (brc != 0)
            goto out;
    }
    rc = 0;
out:
    h5in_table_close(&t);
    if (full >= 0)
        H5Tclose(full);
    free(b);
    return rc;
}

static int cmp_round(const void *a, const void *b)
{
    const trial_rec *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* One trial per round of its row (h5in_check.c validate_trials): the first two of a round mark it. */
static int check_rounds(h5in_rows *s, trials_seen *ts)
{
    if (ts->nrounds > 1)
        qsort(ts->rounds, ts->nrounds, sizeof *ts->rounds, cmp_round);
    for (size_t k = 1; k < ts->nrounds; k++) {
        const trial_rec *a = &ts->rounds[k - 1], *b = &ts->rounds[k];
        if (a->row == b->row && a->raw == b->raw &&
            add_mark(s, b->row, PH_ROUND, "two trials (%zu and %zu) of round %d", a->idx, b->idx, (int)b->raw) != 0)
            return -1;
    }
    return 0;
}

// --- /trial_samples, a block at a time ------------------------------------------------------------------

typedef struct samples_reader {
    hid_t dset, space;
    size_t n, block, nblocks, at; /* samples; per block; blocks; the block in buf (SIZE_MAX: none) */
    double *buf;
    unsigned char *state; /* per block: 0 not read, 1 read, 2 its chunk index entry is damaged, 3 unreadable */
    char why[160];        /* HDF5's reason for the block last found unreadable */
    char **whys;          /* per unreadable block its reason (few: NULL for every other) */
} samples_reader;

static void samples_close(samples_reader *r)
{
    for (size_t k = 0; r->whys && k < r->nblocks; k++)
        free(r->whys[k]);
    free(r->whys);
    free(r->buf);
    free(r->state);
    h5util_close_id(&r->space, H5Sclose);
    h5util_close_id(&r->dset, H5Dclose);
}

/* Opens /trial_samples as tsamples_load does (absent: no samples). Returns 0, or -1 with err. */
static int samples_open(h5in_rows *s, samples_reader *r, char *err, size_t errlen)
{
    const h5in *m = s->meta;
    hid_t dcpl = H5I_INVALID_HID;
    hsize_t dims = 0, block = SAMPLES_BLOCK;
    htri_t exists;
    memset(r, 0, sizeof *r);
    r->dset = r->space = H5I_INVALID_HID;
    r->at = SIZE_MAX;
    if ((exists = H5Lexists(m->file, RB_H5_TRIAL_SAMPLES, H5P_DEFAULT)) < 0) {
        h5in_put_damaged(err, errlen, m->path, "looking up " RB_H5_TRIAL_SAMPLES);
        return -1;
    }
    if (!exists)
        return 0;
    if ((r->dset = H5Dopen2(m->file, RB_H5_TRIAL_SAMPLES, H5P_DEFAULT)) < 0 || (r->space = H5Dget_space(r->dset)) < 0 ||
        (dcpl = H5Dget_create_plist(r->dset)) < 0) {
        h5in_put_damaged(err, errlen, m->path, "opening " RB_H5_TRIAL_SAMPLES);
        h5util_close_id(&dcpl, H5Pclose);
        return -1;
    }
    if (H5Sget_simple_extent_ndims(r->space) != 1 || H5Sget_simple_extent_dims(r->space, &dims, NULL) < 0 ||
        !h5in_plausible(m, dims, sizeof(double))) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: damaged file: " RB_H5_TRIAL_SAMPLES " has an impossible shape", m->path);
        h5util_close_id(&dcpl, H5Pclose);
        return -1;
    }
    const int chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
    if (chunked && H5Pget_chunk(dcpl, 1, &block) != 1)
        block = SAMPLES_BLOCK;
    H5Eclear2(H5E_DEFAULT);
    if (block == 0 || block > dims)
        block = dims ? dims : 1;
    r->n = (size_t)dims;
    r->block = (size_t)block;
    r->nblocks = r->n / r->block + 1;
    r->buf = malloc(r->block * sizeof *r->buf);
    r->state = calloc(r->nblocks, 1);
    r->whys = calloc(r->nblocks, sizeof *r->whys);
    if (r->buf == NULL || r->state == NULL || r->whys == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for %zu samples", m->path, r->n);
        h5util_close_id(&dcpl, H5Pclose);
        return -1;
    }
    if (chunked) {
        unsigned char *bad = calloc(r->nblocks, 1);
        if (bad != NULL) {
            h5in_chunk_index_check(m, r->dset, r->space, dims, block, sizeof(double), bad);
            for (size_t k = 0; k < r->nblocks; k++)
                r->state[k] = bad[k] ? 2 : 0;
        }
        free(bad);
    }
    h5util_close_id(&dcpl, H5Pclose);
    return 0;
}

/* Block k into r->buf. Returns 0, or -1 when it cannot be read (r->state says why). */
static int samples_block(samples_reader *r, size_t k)
{
    if (r->state[k] == 2 || r->state[k] == 3)
        return -1;
    if (r->at == k)
        return 0;
    hid_t mspace = H5I_INVALID_HID;
    hsize_t at = (hsize_t)k * r->block, count = r->n - (size_t)at < r->block ? r->n - (size_t)at : r->block;
    int ok = (mspace = H5Screate_simple(1, &count, NULL)) >= 0 &&
             H5Sselect_hyperslab(r->space, H5S_SELECT_SET, &at, NULL, &count, NULL) >= 0 &&
             H5Dread(r->dset, H5T_NATIVE_DOUBLE, mspace, r->space, H5P_DEFAULT, r->buf) >= 0;
    if (!ok) { /* the reason before any other HDF5 call, which would clear the error stack */
        char why[160];
        h5util_detail(why, sizeof why, "");
        r->whys[k] = strdup(why);
    }
    h5util_close_id(&mspace, H5Sclose);
    r->state[k] = ok ? 1 : 3;
    r->at = ok ? k : SIZE_MAX;
    return ok ? 0 : -1;
}

/* What trial samples [lo, hi) hold: their checksum and the first sample no measurement is (hi - lo if
 * none), or the reason of the first block of them that cannot be read (returns -1). */
static int samples_range(samples_reader *r, size_t lo, size_t hi, uint64_t *check, size_t *bad_at, const char **why)
{
    *check = rb_check_samples(NULL, 0);
    *bad_at = hi - lo;
    for (size_t k = lo / r->block; lo < hi && k <= (hi - 1) / r->block; k++) {
        if (samples_block(r, k) != 0) {
            *why = r->state[k] == 2              ? "HDF5's chunk index entry of their chunk is damaged or missing"
                   : r->whys[k] && r->whys[k][0] ? r->whys[k]
                                                 : "HDF5 gave no reason";
            return -1;
        }
    }
    for (size_t at = lo; at < hi;) {
        size_t k = at / r->block, end = (k + 1) * r->block < hi ? (k + 1) * r->block : hi;
        samples_block(r, k);
        const double *x = r->buf + (at - k * r->block);
        *check = rb_check_samples_more(*check, x, end - at);
        size_t b = h5in_bad_sample(x, end - at);
        if (*bad_at == hi - lo && b < end - at)
            *bad_at = at - lo + b;
        at = end;
    }
    return 0;
}

/* Every trial's samples: where its row says, readable, matching their checksum, measurements
 * (h5in_check.c validate_tsamples). */
static int check_tsamples(h5in_rows *s, trials_seen *ts, char *err, size_t errlen)
{
    samples_reader r;
    long long want;
    if (samples_open(s, &r, err, errlen) != 0) {
        samples_close(&r);
        return -1;
    }
    if (h5in_root_int(s->meta, RB_H5_ATTR_NSAMPLES, &want) == 0 && (want < 0 || (unsigned long long)want != r.n))
        h5in_add_warning(s->meta, "%s: " RB_H5_TRIAL_SAMPLES " holds %zu samples, but the file was closed with %lld",
                         s->meta->path, r.n, want);
    char why[512];
    int rc = 0;
    for (size_t t = 0; t < ts->n && rc == 0; t++) {
        if (ts->bad[t])
            continue;
        const char *cut = NULL;
        uint64_t check;
        size_t lo = (size_t)ts->off[t], hi = lo + (size_t)ts->len[t], k;
        if (ts->off[t] > r.n || ts->len[t] > r.n - ts->off[t])
            snprintf(why, sizeof why, "its samples [%llu, +%llu) lie outside " RB_H5_TRIAL_SAMPLES " (%zu samples)",
                     (unsigned long long)ts->off[t], (unsigned long long)ts->len[t], r.n);
        else if (samples_range(&r, lo, hi, &check, &k, &cut) != 0)
            snprintf(why, sizeof why, "its samples in " RB_H5_TRIAL_SAMPLES " [%zu, %zu) cannot be read (%s)", lo, hi,
                     cut);
        else if (s->meta->schema >= 3 && check != ts->check[t])
            snprintf(why, sizeof why, "its samples in " RB_H5_TRIAL_SAMPLES " [%zu, %zu) do not match their checksum",
                     lo, hi);
        else if (ts->ok[t] && k < hi - lo && samples_block(&r, (lo + k) / r.block) == 0)
            snprintf(why, sizeof why, "sample %zu is %g, which no measurement is", k, r.buf[(lo + k) % r.block]);
        else
            continue;
        rc = mark_trial(s, ts->bad, t, ts->row[t], PH_SAMPLES, why);
    }
    samples_close(&r);
    return rc;
}

// --- rows with samples of their own, and counts ---------------------------------------------------------

/* The rows whose /samples/row_N dataset exists, from one listing of the group (not a lookup per row). */
typedef struct own_list {
    h5in_rows *s;
} own_list;

static herr_t own_cb(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    own_list *o = data;
    char back[64];
    (void)group;
    (void)info;
    if (strncmp(name, "row_", 4) != 0 || name[4] < '0' || name[4] > '9')
        return 0;
    char *end;
    unsigned long long i = strtoull(name + 4, &end, 10);
    snprintf(back, sizeof back, RB_H5_SAMPLE_FMT, (int)i);
    if (*end == '\0' && i < o->s->nrows && i <= 0x7FFFFFFFull && strcmp(back, name) == 0)
        o->s->rec[i].own_dataset = 1;
    return 0;
}

/* One row's own samples dataset, as validate_row_samples checks it. */
static int check_own_row(h5in_rows *s, size_t i, uint64_t *own_n, char *err, size_t errlen)
{
    char name[64], why[512], tail_err[512];
    double *x = NULL;
    size_t n = 0, k;
    rb_row row;
    if (row_at(s, i, &row, err, errlen) != 0)
        return -1;
    if (row.row_id != (int32_t)i)
        return 0; /* marked: its dataset's name cannot be trusted */
    snprintf(name, sizeof name, RB_H5_SAMPLES "/" RB_H5_SAMPLE_FMT, (int)row.row_id);
    tail_err[0] = '\0';
    int rc = 0;
    if (h5in_read_samples(s->meta, RB_H5_SAMPLES, name, &x, &n, tail_err, sizeof tail_err) != 0) {
        const char *tail =
            strncmp(tail_err, s->meta->path, strlen(s->meta->path)) == 0 ? tail_err + strlen(s->meta->path) : tail_err;
        return add_mark(s, i, PH_OWN_SAMPLES, "its samples %s cannot be read%s", name, tail);
    }
    *own_n = n;
    why[0] = '\0';
    if (n == 0 && s->meta->schema >= 3 && rb_check_samples(NULL, 0) != row.samples_check)
        snprintf(why, sizeof why, "its samples %s are missing (their checksum says some were written)", name);
    else if (n > 0 && s->meta->schema >= 3 && rb_check_samples(x, n) != row.samples_check)
        snprintf(why, sizeof why, "its samples %s do not match their checksum", name);
    else if (n > 0 && row.n != (uint64_t)n)
        snprintf(why, sizeof why, "n = %llu, but %s holds %zu samples", (unsigned long long)row.n, name, n);
    else if (n > 0 && strcmp(row.status, RB_STATUS_OK) == 0 && (k = h5in_bad_sample(x, n)) < n)
        snprintf(why, sizeof why, "sample %zu of %s is %g, which no measurement is", k, name, x[k]);
    if (why[0])
        rc = add_mark(s, i, PH_OWN_SAMPLES, "%s", why);
    free(x);
    return rc;
}

/* Every row's own samples (validate_row_samples), then every ok row's n against its ok trials'
 * samples (validate_row_counts). A row whose row_id is not its place is skipped: its dataset's name
 * cannot be trusted (h5in_row_problem marked it). */
static int check_rows_samples(h5in_rows *s, const trials_seen *ts, char *err, size_t errlen)
{
    own_list o = {s};
    hsize_t idx = 0;
    htri_t group = H5Lexists(s->meta->file, RB_H5_SAMPLES, H5P_DEFAULT);
    if (group > 0 && H5Literate(s->meta->file, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, own_cb, &o) < 0)
        H5Eclear2(H5E_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    uint64_t *own_n = calloc(s->nrows ? s->nrows : 1, sizeof *own_n);
    if (own_n == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", s->meta->path);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < s->nrows && rc == 0; i++) {
        if (s->rec[i].own_dataset || s->rec[i].own)
            rc = check_own_row(s, i, &own_n[i], err, errlen);
    }
    for (size_t t = 0; t < ts->n; t++)
        if (ts->ok[t] && !ts->bad[t] && ts->row[t] != SIZE_MAX)
            s->rec[ts->row[t]].ok_sum += ts->len[t];
    for (size_t i = 0; i < s->nrows && rc == 0; i++) {
        const row_rec *x = &s->rec[i];
        if (!x->ok || x->n == 0 || own_n[i] > 0 || x->ntrials == 0 || x->ok_sum == x->n)
            continue;
        rc = add_mark(s, i, PH_COUNT, "n = %llu, but its ok trials in " RB_H5_TRIALS " hold %llu samples",
                      (unsigned long long)x->n, (unsigned long long)x->ok_sum);
    }
    free(own_n);
    return rc;
}

// --- open, next, close ----------------------------------------------------------------------------------

/* The lengths the file was closed with (schema 3): rows cut off or added refuse it, as h5in_open. */
static int check_counts(h5in_rows *s, size_t ntrials, char *err, size_t errlen)
{
    static const char *const attr[2] = {RB_H5_ATTR_NROWS, RB_H5_ATTR_NTRIALS};
    static const char *const what[2] = {RB_H5_CELLS " rows", RB_H5_TRIALS " rows"};
    const size_t have[2] = {s->nrows, ntrials};
    for (int k = 0; k < 2; k++) {
        long long want;
        if (h5in_root_int(s->meta, attr[k], &want) != 0)
            continue;
        if (want < 0 || (unsigned long long)want != (unsigned long long)have[k]) {
            h5in_put_err(err, errlen, "%s: damaged file: it holds %zu %s, but was closed with %lld (root attribute %s)",
                         s->meta->path, have[k], what[k], want, attr[k]);
            return -1;
        }
    }
    return 0;
}

/* Opens /cells for the passes and allocates what they keep. */
static int cells_open(h5in_rows *s, char *err, size_t errlen)
{
    hid_t full = h5out_row_type();
    if (full < 0) {
        h5in_put_damaged(err, errlen, s->meta->path, "building the rb_row type");
        return -1;
    }
    if (!H5Lexists(s->meta->file, RB_H5_CELLS, H5P_DEFAULT)) {
        H5Eclear2(H5E_DEFAULT);
        h5in_put_err(err, errlen, "%s: not a ringbench results file (no " RB_H5_CELLS " table)", s->meta->path);
        H5Tclose(full);
        return -1;
    }
    int rc = h5in_table_open(s->meta, RB_H5_CELLS, full, h5in_cells_optional(s->meta->schema), &s->cells, err, errlen);
    H5Tclose(full);
    if (rc != 0)
        return -1;
    s->nrows = s->cells.count;
    s->block = malloc(ROWS_BLOCK * sizeof *s->block);
    s->rec = calloc(s->nrows ? s->nrows : 1, sizeof *s->rec);
    if (s->block == NULL || s->rec == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory for %zu rows", s->meta->path, s->nrows);
        return -1;
    }
    return 0;
}

/* Every check of h5in_validate, in its order, on records and blocks. */
static int scan(h5in_rows *s, char *err, size_t errlen)
{
    trials_seen ts;
    memset(&ts, 0, sizeof ts);
    size_t *order = malloc((s->nrows ? s->nrows : 1) * sizeof *order);
    int rc = -1;
    if (order == NULL) {
        h5in_put_err(err, errlen, "%s: out of memory", s->meta->path);
        goto out;
    }
    for (size_t i = 0; i < s->nrows; i++)
        order[i] = i;
    if (scan_cells(s, err, errlen) != 0)
        goto out;
    sort_recs = s->rec; /* trials find their row by cell_id and family */
    qsort(order, s->nrows, sizeof *order, cmp_cell_fam);
    if (scan_trials(s, order, &ts, err, errlen) != 0 || check_counts(s, ts.n, err, errlen) != 0 ||
        check_identity(s, order, err, errlen) != 0 || check_rounds(s, &ts) != 0 ||
        check_tsamples(s, &ts, err, errlen) != 0 || check_rows_samples(s, &ts, err, errlen) != 0 ||
        settle_marks(s, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    free(order);
    trials_seen_free(&ts);
    return rc;
}

int h5in_rows_open(const char *path, h5in_rows **out, char *err, size_t errlen)
{
    long long complete = 0;
    h5in_rows *s = calloc(1, sizeof *s);
    *out = NULL;
    if (s == NULL || path == NULL || path[0] == '\0') {
        h5in_put_err(err, errlen, s ? "h5in_rows_open: no path" : "h5in_rows_open: out of memory");
        free(s);
        return -1;
    }
    s->cells = (h5in_table){H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, 0};
    if (h5in_open_head(path, &s->meta, err, errlen) != 0)
        goto fail;
    if (s->meta->schema < 4) { /* bimodal columns from every sample: the whole file (see the top) */
        h5in_close(s->meta);
        s->meta = NULL;
        if (h5in_open(path, &s->full, err, errlen) != 0)
            goto fail;
        s->nrows = h5in_nrows(s->full);
        *out = s;
        return 0;
    }
    if (cells_open(s, err, errlen) != 0 || h5in_groups_load(s->meta, err, errlen) != 0 || scan(s, err, errlen) != 0)
        goto fail;
    s->meta->complete = h5in_root_int(s->meta, RB_H5_ATTR_COMPLETE, &complete) == 0 && complete != 0;
    free(s->rec);
    s->rec = NULL;
    s->block_n = 0;
    *out = s;
    return 0;
fail:
    h5in_rows_close(s);
    return -1;
}

const rb_row *h5in_rows_next(h5in_rows *s, char *err, size_t errlen)
{
    if (errlen > 0)
        err[0] = '\0';
    if (s->next >= s->nrows)
        return NULL;
    if (s->full != NULL)
        return h5in_row(s->full, s->next++);
    const size_t i = s->next;
    if (i >= s->block_at + s->block_n || i < s->block_at) {
        size_t n = s->nrows - i < ROWS_BLOCK ? s->nrows - i : ROWS_BLOCK;
        memset(s->block, 0, n * sizeof *s->block);
        if (h5in_table_block(s->meta, &s->cells, RB_H5_CELLS, i, n, s->block, err, errlen) != 0)
            return NULL;
        s->block_at = i;
        s->block_n = n;
    }
    s->cur = s->block[i - s->block_at];
    h5in_row_terminate(&s->cur);
    while (s->mnext < s->nmarks && s->marks[s->mnext].row < i)
        s->mnext++;
    if (s->mnext < s->nmarks && s->marks[s->mnext].row == i)
        h5in_damage_row(&s->cur, s->marks[s->mnext].why);
    s->next++;
    return &s->cur;
}

size_t h5in_rows_count(const h5in_rows *s) { return s ? s->nrows : 0; }

const h5in *h5in_rows_meta(const h5in_rows *s) { return s ? (s->full ? s->full : s->meta) : NULL; }

void h5in_rows_close(h5in_rows *s)
{
    if (s == NULL)
        return;
    h5in_table_close(&s->cells);
    h5in_close(s->meta);
    h5in_close(s->full);
    for (size_t k = 0; k < s->nmarks; k++)
        free(s->marks[k].why);
    free(s->marks);
    free(s->block);
    free(s->rec);
    free(s);
}
