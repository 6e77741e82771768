/* run_header.h - the provenance a results file opens with (bench/run_header.c): who, where, which
 * build, which machine and GPU, what CUDA allows. `ringbench run` writes it before the sweep and
 * `ringbench probe -o` writes it alone. Each function returns 0, or -1 when h5out failed
 * (h5out_error says why). */
#ifndef RINGBENCH_RUN_HEADER_H
#define RINGBENCH_RUN_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "h5out.h"
#include "probe.h"
#include "ring.h"

typedef struct run_meta {
    const char *command_line, *preset, *modes, *sizes, *backend_notice;
    ring_backend backend;
    uint32_t seed;
} run_meta;

/* The provenance and capability attributes, and NVML's clocks at the start when CUDA is usable. */
int run_header_write(h5out *w, const env_info *env, const probe_caps *caps, const run_meta *m);

/* NVML's clocks and PCIe link as provenance keys nvml_<when>_*, or the reason NVML is unavailable. */
int run_header_nvml(h5out *w, const probe_caps *caps, const char *when);

/* A (key, value) pair into the provenance: the callback of the *_foreach functions. ctx is the h5out. */
int run_header_put(void *ctx, const char *key, const char *value);

/* The UTC time in fmt (strftime) into buf. */
void run_header_utc(char *buf, size_t n, const char *fmt);

#endif
