/* report_fixture.c - writes synthetic results files through the real writer (h5out), with medians
 * built from one factor per axis value and family, so that the tests know every answer: which mode is
 * best and worst at each size, the fallback's overhead over the native path, and which single axis
 * costs most. Samples are lognormal around the median (plus a 1% tail), drawn from a generator seeded
 * per row, so two files written with the same seed hold the same samples, and an injected factor
 * changes exactly the rows it names.
 *
 * The designed answers (fallback = malloc/sync/noncoop/device against pinned/async/coop/mapped):
 *   latency      x1.2617 (inside 10-30%), costliest axis xfer (x1.08); best pinned/zerocopy/coop/mapped
 *   throughput   time x2.148 (above), costliest axis host (x1.5)
 *   cb_read      x1.681 (above), costliest axis ctrl (x1.6)
 *   cb_write     x1.04 (below)
 *   cb_handshake x1.20 (inside)
 */
#define _POSIX_C_SOURCE 200809L

#include "report_fixture.h"
#include "bimodal.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "h5out.h"
#include "rng.h"
#include "stats.h"

const uint64_t fixture_sizes[FIXTURE_NSIZES] = {8, 64, 512, 4096, 32768, 262144, 4194304};

/* Factors per axis value: [host][xfer][launch][ctrl] in the value order of modes.h. */
typedef struct factors {
    double host[RB_HOST_COUNT], xfer[RB_XFER_COUNT], launch[RB_LAUNCH_COUNT], ctrl[RB_CTRL_COUNT];
} factors;

static const factors f_latency = {{1.0, 1.06}, {1.0, 1.08, 0.92}, {1.0, 1.03}, {1.04, 1.07, 1.0}};
static const factors f_throughput = {{1.0, 1.5}, {1.0, 1.3, 0.95}, {1.0, 1.02}, {1.03, 1.08, 1.0}}; /* on time */
static const factors f_cb_read = {{1.0, 1.02}, {1.0, 1.03, 1.0}, {1.0, 1.0}, {1.1, 1.6, 1.0}};
static const factors f_cb_write = {{1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 1.0}, {1.0, 1.04, 1.0}};
static const factors f_cb_handshake = {{1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 1.0}, {1.05, 1.2, 1.0}};
static const factors f_lifecycle = {{1.0, 1.1}, {1.0, 1.05, 1.0}, {1.0, 1.2}, {1.0, 1.02, 1.01}};

static double product(const factors *f, const mode_spec *m)
{
    return f->host[m->v[RB_AXIS_HOST]] * f->xfer[m->v[RB_AXIS_XFER]] * f->launch[m->v[RB_AXIS_LAUNCH]] *
           f->ctrl[m->v[RB_AXIS_CTRL]];
}

double fixture_median(rb_family f, const mode_spec *m, uint64_t size)
{
    double s = (double)size;
    switch (f) {
    case RB_FAM_LATENCY: return (2.5 + s / 12000.0) * product(&f_latency, m);
    case RB_FAM_THROUGHPUT: return s / ((1.0 + s / 20000.0) * product(&f_throughput, m)) / 1000.0;
    case RB_FAM_CB_READ: return 1.0 * product(&f_cb_read, m);
    case RB_FAM_CB_WRITE: return 0.8 * product(&f_cb_write, m);
    case RB_FAM_CB_HANDSHAKE: return 2.0 * product(&f_cb_handshake, m);
    case RB_FAM_LC_LAUNCH: return 50.0 * product(&f_lifecycle, m);
    case RB_FAM_LC_ACTIVATE: return 3.0 * product(&f_lifecycle, m);
    case RB_FAM_LC_DEACTIVATE: return 3.2 * product(&f_lifecycle, m);
    case RB_FAM_LC_TERMINATE: return 20.0 * product(&f_lifecycle, m);
    case RB_FAM_BASE_FLOOR: return 2.5;
    case RB_FAM_BASE_LAUNCH: return 8.8 + s / 12000.0;
    case RB_FAM_BASE_GRAPH: return 6.5 + s / 12000.0;
    case RB_FAM_MEMCPY_H2D_PINNED: return s / (1.5 + s / 54600.0) / 1000.0;
    case RB_FAM_MEMCPY_D2H_PINNED: return s / (1.5 + s / 55100.0) / 1000.0;
    case RB_FAM_MEMCPY_H2D_PAGEABLE: return s / (3.0 + s / 8800.0) / 1000.0;
    case RB_FAM_MEMCPY_D2H_PAGEABLE: return s / (3.0 + s / 16300.0) / 1000.0;
    default: return NAN;
    }
}

const char *fixture_unsupported(const mode_spec *m)
{
    if (m->v[RB_AXIS_HOST] == RB_HOST_PINNED && m->v[RB_AXIS_XFER] == RB_XFER_ZEROCOPY &&
        m->v[RB_AXIS_LAUNCH] == RB_LAUNCH_NONCOOP && m->v[RB_AXIS_CTRL] != RB_CTRL_MAPPED)
        return "cudaErrorNotSupported from cudaLaunchKernel: zero-copy rings need a cooperative grid here";
    return NULL;
}

#define MANAGED_REASON "concurrentManagedAccess = 0: the host cannot touch managed memory while a kernel runs"

fixture_opts fixture_defaults(void)
{
    fixture_opts o = {"cuda", 1, 1.0, 1.0, 0, 0, 0, NULL, NULL, 0, 0.0, 0, 0.0, 0.0, 0, NULL, NULL, NULL, NULL};
    return o;
}

// --- samples ----------------------------------------------------------------------------------------------

typedef struct fix_rng {
    uint64_t s;
} fix_rng;

static uint64_t fix_next(fix_rng *r)
{
    /* splitmix64 (rng.h): small, seedable, and good enough for synthetic samples. */
    return rng_splitmix64(&r->s);
}

static double fix_unit(fix_rng *r) { return ((double)(fix_next(r) >> 11) + 0.5) / 9007199254740992.0; }

static double fix_normal(fix_rng *r) { return sqrt(-2.0 * log(fix_unit(r))) * cos(6.283185307179586 * fix_unit(r)); }

/* n samples around median: lognormal with sigma, plus 1% of them 1.5x-4x in the tail (slow for a
 * time, low for a rate). */
static void draw(fix_rng *r, double median, double sigma, int rate, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = median * exp(sigma * fix_normal(r));
        if (fix_unit(r) < 0.01) {
            double tail = 1.5 + 2.5 * fix_unit(r);
            v = rate ? v / tail : v * tail;
        }
        x[i] = v;
    }
}

// --- rows ---------------------------------------------------------------------------------------------------

typedef struct writer {
    h5out *w;
    const fixture_opts *o;
    uint64_t row_seq;
    double floor_p50;
    double memcpy_p50[2][FIXTURE_NSIZES]; /* [pinned, pageable] H2D at each size */
    uint64_t window;                      /* of the throughput row being written (fixture_opts.windows) */
} writer;

static void set(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s); }

static void row_mode(rb_row *r, const mode_spec *m)
{
    if (m == NULL) {
        set(r->host_mem, sizeof r->host_mem, RB_NOT_APPLICABLE);
        set(r->xfer, sizeof r->xfer, RB_NOT_APPLICABLE);
        set(r->launch, sizeof r->launch, RB_NOT_APPLICABLE);
        set(r->ctrl, sizeof r->ctrl, RB_NOT_APPLICABLE);
        return;
    }
    set(r->host_mem, sizeof r->host_mem, mode_axis_value(RB_AXIS_HOST, m->v[RB_AXIS_HOST]));
    set(r->xfer, sizeof r->xfer, mode_axis_value(RB_AXIS_XFER, m->v[RB_AXIS_XFER]));
    set(r->launch, sizeof r->launch, mode_axis_value(RB_AXIS_LAUNCH, m->v[RB_AXIS_LAUNCH]));
    set(r->ctrl, sizeof r->ctrl, mode_axis_value(RB_AXIS_CTRL, m->v[RB_AXIS_CTRL]));
}

static int size_index(uint64_t size)
{
    for (int i = 0; i < FIXTURE_NSIZES; i++)
        if (fixture_sizes[i] == size)
            return i;
    return -1;
}

/* The row's bimodal columns from its samples x[0..n) (all trials'), as a run's writer fills them. */
static int fill_modes(rb_row *r, const double *x, size_t n)
{
    double *sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL)
        return -1;
    memcpy(sorted, x, n * sizeof *sorted);
    stats_sort(sorted, n);
    int rc = bimodal_row_fill(r, sorted, n);
    free(sorted);
    return rc;
}

/* Appends one row: ok with samples, or status/reason without. */
static int put_row(writer *wr, rb_family f, const mode_spec *m, uint64_t size, const char *status, const char *reason)
{
    rb_row r;
    int rate = strcmp(rb_family_unit(f), "GB/s") == 0;
    size_t n = rate ? 40 : (f >= RB_FAM_LC_LAUNCH && f <= RB_FAM_LC_TERMINATE) ? 60 : 300;
    size_t k = wr->o->trials > 1 ? (size_t)wr->o->trials : 1;
    if (f == RB_FAM_LATENCY && wr->o->latency_samples > 0)
        n = wr->o->latency_samples;
    int32_t cell = (int32_t)wr->row_seq + 1; /* 0 is no cell: the id of every row written without trials */
    fix_rng g = {wr->o->seed * 1000003ull + wr->row_seq++};

    memset(&r, 0, sizeof r);
    bimodal_row_clear(&r);
    set(r.backend, sizeof r.backend, wr->o->backend ? wr->o->backend : "cuda");
    set(r.family, sizeof r.family, rb_family_name(f));
    set(r.unit, sizeof r.unit, rb_family_unit(f));
    row_mode(&r, m);
    r.size_bytes = size;
    r.window = f == RB_FAM_THROUGHPUT ? wr->window : 0;
    set(r.status, sizeof r.status, status);
    set(r.reason, sizeof r.reason, reason ? reason : "");
    r.msgs_per_s = r.ratio_floor = r.ratio_memcpy = NAN;
    if (strcmp(status, RB_STATUS_OK) != 0) {
        set(r.stop_rule, sizeof r.stop_rule, "fixed");
        r.min = r.p50 = r.p90 = r.p99 = r.p999 = r.max = r.mean = r.stddev = r.ci_lo = r.ci_hi = NAN;
        return h5out_append(wr->w, &r, NULL, 0);
    }
    double median = fixture_median(f, m ? m : &(mode_spec){{0, 0, 0, 0}}, size);
    if (r.window > 0)
        median *= sqrt((double)r.window);
    /* fixture_opts.windows 3: the widest window slower than W = 8, by 15 % at the largest size and by
     * 1 % at 8 B, within the rates' noise. */
    if (wr->o->windows == 3 && r.window == 256 && (size == 8 || size == fixture_sizes[FIXTURE_NSIZES - 1]))
        median *= sqrt(8.0 / 256.0) * (size == 8 ? 0.99 : 0.85);
    double *x = malloc(k * n * sizeof *x);
    if (x == NULL)
        return -1;
    for (size_t j = 0; j < k; j++) {
        double t_scale = 1.0;
        if (k > 1) {
            /* The round's drift is the same for every row of the file (seeded by seed and round). */
            fix_rng round = {wr->o->seed * 7919ull + j};
            t_scale = exp(wr->o->trial_sd * (fix_normal(&round) + fix_normal(&g)));
        }
        draw(&g, median * (rate ? 1.0 / t_scale : t_scale), rate ? 0.02 : 0.04, rate, x + j * n, n);
    }
    if (wr->o->slow_trial > 0 && k > 1 && f == RB_FAM_LATENCY && size == 256 * 1024)
        for (size_t i = 0; i < n; i++)
            x[i] *= wr->o->slow_trial;
    n *= k; /* from here on x holds every trial's samples, trial by trial */
    double scale = 1.0;
    if (f == RB_FAM_LATENCY && m && m->v[RB_AXIS_HOST] == RB_HOST_MALLOC && m->v[RB_AXIS_XFER] == RB_XFER_SYNC &&
        m->v[RB_AXIS_LAUNCH] == RB_LAUNCH_NONCOOP && m->v[RB_AXIS_CTRL] == RB_CTRL_DEVICE)
        scale = wr->o->fallback_latency;
    if (f == RB_FAM_CB_READ)
        scale = wr->o->cb_read;
    for (size_t i = 0; i < n; i++)
        x[i] *= scale;
    if (wr->o->slow_share > 0 && f == RB_FAM_LATENCY && size == 8 && m && m->v[RB_AXIS_HOST] == RB_HOST_PINNED &&
        m->v[RB_AXIS_XFER] == RB_XFER_ASYNC && m->v[RB_AXIS_LAUNCH] == RB_LAUNCH_COOP &&
        m->v[RB_AXIS_CTRL] == RB_CTRL_MAPPED)
        for (size_t i = 0; i < n; i++)
            if (fix_unit(&g) < wr->o->slow_share)
                x[i] *= FIXTURE_SLOW_MODE;

    stats_summary s;
    if (stats_summarize(x, n, &s) != 0) {
        free(x);
        return -1;
    }
    set(r.stop_rule, sizeof r.stop_rule, rate ? "fixed" : "converged");
    r.n = s.n;
    r.min = s.min;
    r.p50 = s.p50;
    r.p90 = s.p90;
    r.p99 = s.p99;
    r.p999 = s.p999;
    r.max = s.max;
    r.mean = s.mean;
    r.stddev = s.stddev;
    r.ci_lo = s.ci_lo;
    r.ci_hi = s.ci_hi;
    if (fill_modes(&r, x, n) != 0) {
        free(x);
        return -1;
    }
    r.messages = rate ? n * 4096 : n;
    r.elapsed_s = 0.01 * (double)n;
    if (f == RB_FAM_BASE_FLOOR)
        wr->floor_p50 = s.p50;
    if (rate && size > 0) {
        r.msgs_per_s = s.p50 * 1e9 / (double)size;
        int k = size_index(size);
        if (f == RB_FAM_MEMCPY_H2D_PINNED && k >= 0)
            wr->memcpy_p50[0][k] = s.p50;
        if (f == RB_FAM_MEMCPY_H2D_PAGEABLE && k >= 0)
            wr->memcpy_p50[1][k] = s.p50;
        if (f == RB_FAM_THROUGHPUT && m && k >= 0)
            r.ratio_memcpy = s.p50 / wr->memcpy_p50[m->v[RB_AXIS_HOST] == RB_HOST_PINNED ? 0 : 1][k];
    } else if (!rate && f != RB_FAM_BASE_FLOOR && wr->floor_p50 > 0) {
        r.ratio_floor = s.p50 / wr->floor_p50;
    }
    int rc = 0;
    if (k > 1) {
        /* Trials first (as a run writes them), then the row without samples of its own. */
        size_t per = n / k;
        r.cell_id = cell;
        r.trials = k;
        set(r.ci_method, sizeof r.ci_method, RB_CI_TRIALS);
        for (size_t j = 0; j < k && rc == 0; j++) {
            rb_trial t;
            memset(&t, 0, sizeof t);
            t.cell_id = cell;
            set(t.family, sizeof t.family, r.family);
            set(t.host_mem, sizeof t.host_mem, r.host_mem);
            set(t.xfer, sizeof t.xfer, r.xfer);
            set(t.launch, sizeof t.launch, r.launch);
            set(t.ctrl, sizeof t.ctrl, r.ctrl);
            set(t.status, sizeof t.status, RB_STATUS_OK);
            t.size_bytes = size;
            t.window = r.window;
            t.trial = (int32_t)j;
            t.seq = (int32_t)(cell * k + j);
            t.n = per;
            t.p50 = t.ci_lo = t.ci_hi = t.mean = t.msgs_per_s = NAN;
            t.sm_mhz_start = t.sm_mhz_end = t.mem_mhz_start = t.mem_mhz_end = NAN;
            t.cpu_start = t.cpu_end = -1;
            stats_summary ts;
            if (stats_summarize(x + j * per, per, &ts) == 0) /* a run records each trial's median */
                t.p50 = ts.p50;
            t.elapsed_s = 1.0;
            t.part_s = 0.5;
            t.payload_s = t.cpu_steal_ms = t.irq_ms = t.others_ms = 0;
            t.steal_ms = t.max_steal_ms = 0;
            if (wr->o->slow_trial > 0 && j == 0 && f == RB_FAM_LATENCY && size == 256 * 1024)
                t.steal_ms = 800, t.max_steal_ms = 100;
            rc = h5out_append_trial(wr->w, &t, x + j * per, per);
        }
        if (rc == 0)
            rc = h5out_append(wr->w, &r, NULL, 0);
    } else {
        rc = h5out_append(wr->w, &r, x, n);
    }
    free(x);
    return rc;
}

static int wanted(const fixture_opts *o, rb_family f) { return o->only_families == 0 || (o->only_families >> f & 1u); }

static int put_baselines(writer *wr)
{
    static const rb_family sized[] = {RB_FAM_BASE_LAUNCH,       RB_FAM_BASE_GRAPH,          RB_FAM_MEMCPY_H2D_PINNED,
                                      RB_FAM_MEMCPY_D2H_PINNED, RB_FAM_MEMCPY_H2D_PAGEABLE, RB_FAM_MEMCPY_D2H_PAGEABLE};
    if (wanted(wr->o, RB_FAM_BASE_FLOOR) && put_row(wr, RB_FAM_BASE_FLOOR, NULL, 4, RB_STATUS_OK, NULL) != 0)
        return -1;
    for (size_t b = 0; b < sizeof sized / sizeof sized[0]; b++)
        for (int s = 0; wanted(wr->o, sized[b]) && s < FIXTURE_NSIZES; s++)
            if (put_row(wr, sized[b], NULL, fixture_sizes[s], RB_STATUS_OK, NULL) != 0)
                return -1;
    return 0;
}

static int put_family(writer *wr, rb_family f)
{
    int sized = f == RB_FAM_LATENCY || f == RB_FAM_THROUGHPUT;
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        const char *invalid = mode_invalid_reason(&m), *unsup = fixture_unsupported(&m);
        if (wr->o->managed_unsupported && m.v[RB_AXIS_CTRL] == RB_CTRL_MANAGED && !invalid)
            unsup = MANAGED_REASON;
        static const uint64_t wins[] = FIXTURE_WINDOWS;
        const size_t nw = f == RB_FAM_THROUGHPUT && wr->o->windows ? sizeof wins / sizeof wins[0] : 1;
        for (int s = 0; s < (sized ? FIXTURE_NSIZES : 1); s++)
            for (size_t w = wr->o->windows == 2; w < nw; w++) {
                uint64_t size = sized ? fixture_sizes[s] : 0;
                const char *status = invalid ? RB_STATUS_INVALID : unsup ? RB_STATUS_UNSUPPORTED : RB_STATUS_OK;
                wr->window = nw > 1 ? wins[w] : 0;
                if (put_row(wr, f, &m, size, status, invalid ? invalid : unsup) != 0)
                    return -1;
            }
        wr->window = 0;
    }
    return 0;
}

static int put_attrs(writer *wr)
{
    const fixture_opts *o = wr->o;
    int cpu = o->backend && strcmp(o->backend, "cpu") == 0;
    static const char *const prov[][2] = {
        {"os", "Debian GNU/Linux 12 (bookworm)"},
        {"kernel_version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1"},
        {"wsl2_evidence", "no 'microsoft' in /proc/sys/kernel/osrelease; no /dev/dxg"},
        {"virtualization", "kvm"},
        {"cpu_model", "Intel(R) Xeon(R) Platinum 8480+"},
        {"cpu_count", "16"},
        {"pci_bus_id", "0000:00:05.0"},
        {"compute_capability", "9.0"},
        {"sm_count", "132"},
        {"runtime_version", "13.0"},
        {"suite_version", "0.1.0"},
        {"git_commit", "0123456789ab"},
        {"command_line", "ringbench run --preset full -o \"run 1.h5\""},
        {"preset", "full"},
        {"seed", "1"},
        {"nvml_sm_clock_mhz", "1980"},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof prov / sizeof prov[0]; i++)
        rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, prov[i][0], prov[i][1]);
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "hostname", o->hostname ? o->hostname : "h100-test-01");
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "kernel_release",
                         o->kernel_release ? o->kernel_release : "6.1.0-28-amd64");
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "start_utc", o->start_utc ? o->start_utc : "2026-11-22T10:00:00Z");
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "end_utc", o->start_utc ? o->start_utc : "2026-11-22T10:42:00Z");
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "gpu_name",
                         cpu           ? ""
                         : o->gpu_name ? o->gpu_name
                                       : "NVIDIA H100 80GB HBM3");
    rc |=
        h5out_attr_str(wr->w, RB_H5_PROVENANCE, "driver_version", o->driver_version ? o->driver_version : "580.65.06");
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "backend", cpu ? "cpu" : "cuda");
    rc |= h5out_attr_str(wr->w, RB_H5_PROVENANCE, "wsl2", o->wsl2 ? o->wsl2 : "0");

    static const char *const caps[][2] = {
        {"concurrent_managed_access", "1"},
        {"cooperative_launch", "1"},
        {"pinned_alloc", "1"},
        {"mapped_alloc", "1"},
        {"managed_alloc", "1"},
        {"pageable_memory_access", "0"},
        {"host_native_atomic_supported", "0"},
        {"can_map_host_memory", "1"},
        {"async_engine_count", "3"},
        {"ring_kernel_coresident_blocks", "264"},
    };
    rc |= h5out_attr_i64(wr->w, RB_H5_CAPABILITIES, "cuda_usable", cpu ? 0 : 1);
    if (cpu)
        rc |= h5out_attr_str(wr->w, RB_H5_CAPABILITIES, "cuda_usable_error",
                             "cudaErrorNoDevice: no CUDA-capable device is detected");
    for (size_t i = 0; !cpu && i < sizeof caps / sizeof caps[0]; i++)
        rc |= h5out_attr_str(
            wr->w, RB_H5_CAPABILITIES, caps[i][0],
            o->managed_unsupported && strcmp(caps[i][0], "concurrent_managed_access") == 0 ? "0" : caps[i][1]);
    rc |= h5out_attr_str(wr->w, RB_H5_CAPABILITIES, "nvml_error", "NVML_ERROR_NOT_SUPPORTED | in this VM");
    return rc ? -1 : 0;
}

int fixture_write(const char *path, const fixture_opts *o, char *err, size_t errlen)
{
    writer wr;
    memset(&wr, 0, sizeof wr);
    wr.o = o;
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    unlink(partial);
    if (h5out_open(path, 1, &wr.w, err, errlen) != 0)
        return -1;
    int cpu = o->backend && strcmp(o->backend, "cpu") == 0;
    int rc = put_attrs(&wr);
    if (rc == 0 && !cpu)
        rc = put_baselines(&wr);
    for (int f = RB_FAM_LATENCY; rc == 0 && f <= RB_FAM_LC_TERMINATE; f++)
        if (wanted(o, (rb_family)f))
            rc = put_family(&wr, (rb_family)f);
    if (rc != 0)
        snprintf(err, errlen, "fixture: %s", h5out_error(wr.w));
    char close_err[512];
    if (h5out_close(wr.w, o->interrupted ? 0 : 1, o->interrupted ? "SIGINT" : NULL, close_err, sizeof close_err) != 0) {
        if (rc == 0)
            snprintf(err, errlen, "%s", close_err);
        rc = -1;
    }
    return rc;
}
