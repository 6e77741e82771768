/* run_header.c - the provenance a results file opens with (run_header.h). */
#include "run_header.h"

#include <stdio.h>
#include <time.h>

#include "rb_provenance.h" /* generated at every build: RINGBENCH_GIT_COMMIT, _DIRTY, _COMMIT_SOURCE */
#include "wsl.h"

#ifndef RINGBENCH_VERSION
#define RINGBENCH_VERSION "0.0.0"
#endif

void run_header_utc(char *buf, size_t n, const char *fmt)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, fmt, &tm);
}

int run_header_put(void *ctx, const char *key, const char *value)
{
    return h5out_attr_str(ctx, RB_H5_PROVENANCE, key, value);
}

static int put_cap(void *ctx, const char *key, const char *value, const char *error)
{
    h5out *w = ctx;
    if (h5out_attr_str(w, RB_H5_CAPABILITIES, key, value) != 0)
        return -1;
    if (error && *error) {
        char k[96];
        snprintf(k, sizeof k, "%s_error", key);
        return h5out_attr_str(w, RB_H5_CAPABILITIES, k, error);
    }
    return 0;
}

int run_header_nvml(h5out *w, const probe_caps *caps, const char *when)
{
    env_nvml nv;
    env_nvml_query(caps->pci_bus_id, &nv);
    char k[64];
    snprintf(k, sizeof k, "nvml_%s", when);
    if (!nv.available) {
        return h5out_attr_str(w, RB_H5_PROVENANCE, k, nv.reason);
    }
    struct {
        const char *name;
        int v;
    } f[] = {{"sm_clock_mhz", nv.sm_clock_mhz}, {"mem_clock_mhz", nv.mem_clock_mhz},
             {"pcie_gen", nv.pcie_gen},         {"pcie_width", nv.pcie_width},
             {"pcie_gen_max", nv.pcie_gen_max}, {"pcie_width_max", nv.pcie_width_max}};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        snprintf(k, sizeof k, "nvml_%s_%s", when, f[i].name);
        if (h5out_attr_i64(w, RB_H5_PROVENANCE, k, f[i].v) != 0)
            return -1;
    }
    return h5out_attr_str(w, RB_H5_PROVENANCE, "nvml_driver_version", nv.driver_version);
}

int run_header_write(h5out *w, const env_info *env, const probe_caps *caps, const run_meta *m)
{
    char v[64], pci_id[64];
    wsl_info wsl; /* which kind of WSL, with its evidence (wsl_kind, wsl_evidence, ...) */
    wsl_detect(NULL, NULL, NULL, &wsl);
    if (env_foreach(env, run_header_put, w) != 0 || wsl_foreach(&wsl, run_header_put, w) != 0 ||
        probe_caps_foreach(caps, put_cap, w) != 0)
        return -1;
    env_pci_id("/", caps->pci_bus_id, pci_id, sizeof pci_id); /* part of the machine fingerprint */
    run_header_utc(v, sizeof v, "%Y-%m-%dT%H:%M:%SZ");
    struct {
        const char *k, *v;
    } s[] = {{"suite_version", RINGBENCH_VERSION},
             {"git_commit", RINGBENCH_GIT_COMMIT},
             {"git_dirty", RINGBENCH_GIT_DIRTY},
             {"git_commit_source", RINGBENCH_GIT_COMMIT_SOURCE},
             {"command_line", m->command_line},
             {"start_utc", v},
             {"backend", ring_backend_name(m->backend)},
             {"backend_notice", m->backend_notice},
             {"preset", m->preset},
             {"modes", m->modes},
             {"sizes", m->sizes},
             {"gpu_name", caps->name},
             {"pci_bus_id", caps->pci_bus_id},
             {"pci_id", pci_id}};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        if (h5out_attr_str(w, RB_H5_PROVENANCE, s[i].k, s[i].v ? s[i].v : "") != 0)
            return -1;
    snprintf(v, sizeof v, "%d.%d", caps->cc_major, caps->cc_minor);
    if (h5out_attr_str(w, RB_H5_PROVENANCE, "compute_capability", v) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "sm_count", caps->sm_count) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "driver_version", caps->driver_version) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "runtime_version", caps->runtime_version) != 0 ||
        h5out_attr_i64(w, RB_H5_PROVENANCE, "seed", m->seed) != 0)
        return -1;
    return caps->cuda_usable ? run_header_nvml(w, caps, "start") : 0;
}
