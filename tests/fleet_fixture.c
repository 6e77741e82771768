/* fleet_fixture.c - the nights of a synthetic fleet, for tests/fleet_cli.sh and the fleet benchmarks
 * of docs/tracking.md: two machines with one GPU (an RTX 4090), one native and one WSL2, measuring
 * every night.
 *
 *   fleet_fixture OUTDIR NIGHTS [STEP]
 *
 * writes OUTDIR/fleet-native-NNN.h5 and OUTDIR/fleet-wsl-NNN.h5 for nights 1..NIGHTS (2026-08-01 on,
 * native at 02:00 UTC, WSL2 at 03:00). From night STEP on (0 or absent: never) the WSL2 machine runs a
 * new driver (581.15 -> 591.44) and its control-block reads take 1.6 times as long, so the
 * cross-platform ratio of the control-block read steps up beside a driver change and nothing else
 * does. A night is a copy of its machine's measurement (report_fixture.c: every family, size and
 * mode, 5 trials; written once, in OUTDIR/templates/, as writing one takes seconds) with its own start
 * time and driver in the provenance, so every night is a file of its own content. Exit status 0, or 1
 * with one line on stderr.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report_fixture.h"
#include "schema.h"

#define FLEET_DAY0 1785542400L /* 2026-08-01T00:00:00Z */

enum { NATIVE, WSL, WSL_STEP, NKINDS };

static int write_template(const char *path, int kind)
{
    char err[512];
    fixture_opts o = fixture_defaults();
    o.seed = kind == NATIVE ? 1 : 2;
    o.trials = 5;
    o.trial_sd = 0.01;
    o.latency_samples = 60; /* a fifth of the default: the template is written in a few seconds */
    o.gpu_name = "NVIDIA GeForce RTX 4090";
    o.hostname = kind == NATIVE ? "fleet-native" : "fleet-wsl";
    o.wsl2 = kind == NATIVE ? "0" : "1";
    o.kernel_release = kind == NATIVE ? "6.1.0-28-amd64" : "5.15.167.4-microsoft-standard-WSL2";
    o.cb_read = kind == WSL_STEP ? 1.6 : 1.0;
    if (fixture_write(path, &o, err, sizeof err) != 0) {
        fprintf(stderr, "fleet_fixture: %s\n", err);
        return -1;
    }
    return 0;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

/* Replaces string attribute name of the open group g. */
static int put_attr(hid_t g, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
    int rc = type < 0 || space < 0 || H5Tset_size(type, strlen(value) + 1) < 0 ? -1 : 0;
    if (rc == 0 && H5Aexists(g, name) > 0 && H5Adelete(g, name) < 0)
        rc = -1;
    if (rc == 0 &&
        ((a = H5Acreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 || H5Awrite(a, type, value) < 0))
        rc = -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

static int night(const char *dir, int k, int wsl, int step)
{
    char path[4200], tmpl[4200], when[32];
    const int stepped = wsl && step > 0 && k >= step;
    time_t t = (time_t)(FLEET_DAY0 + (long)(k - 1) * 86400L + (wsl ? 3 : 2) * 3600L);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(tmpl, sizeof tmpl, "%s/templates/%d.h5", dir, !wsl ? NATIVE : stepped ? WSL_STEP : WSL);
    snprintf(path, sizeof path, "%s/fleet-%s-%03d.h5", dir, wsl ? "wsl" : "native", k);
    hid_t f = H5I_INVALID_HID, g = H5I_INVALID_HID;
    int rc = copy_file(tmpl, path) == 0 && (f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) >= 0 &&
                     (g = H5Gopen2(f, RB_H5_PROVENANCE, H5P_DEFAULT)) >= 0 && put_attr(g, "start_utc", when) == 0 &&
                     put_attr(g, "end_utc", when) == 0 &&
                     put_attr(g, "driver_version",
                              !wsl      ? "580.65.06"
                              : stepped ? "591.44"
                                        : "581.15") == 0
                 ? 0
                 : -1;
    if (g >= 0)
        H5Gclose(g);
    if (f >= 0 && H5Fclose(f) < 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "fleet_fixture: cannot write %s from %s\n", path, tmpl);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fleet_fixture OUTDIR NIGHTS [STEP]\n");
        return 1;
    }
    int n = atoi(argv[2]), step = argc > 3 ? atoi(argv[3]) : 0;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/templates", argv[1]);
    mkdir(argv[1], 0755);
    mkdir(dir, 0755);
    for (int kind = 0; kind < NKINDS; kind++) {
        char path[4300];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%d.h5", dir, kind);
        if ((kind != WSL_STEP || step > 0) && stat(path, &sb) != 0 && write_template(path, kind) != 0)
            return 1;
    }
    for (int k = 1; k <= n; k++)
        if (night(argv[1], k, 0, step) != 0 || night(argv[1], k, 1, step) != 0)
            return 1;
    return 0;
}
