/* attribution_md.h - the calls x cost sections of compare.md and report.md (attribution_md.c). */
#ifndef RINGBENCH_ATTRIBUTION_MD_H
#define RINGBENCH_ATTRIBUTION_MD_H

#include <stdio.h>
#include <stdlib.h>

#include "report_internal.h"

/* Appends "What the CUDA calls explain" to md: OTHER against BASE per mode (two files), or the WSL2
 * fallback against the native path (base == other), with attribution.dat/.gp (rendered when
 * o->render) in dir; then, when o->call_overhead is set, the MODEL section (with the model's error
 * against OTHER when there are two files). Returns 0, or -1 with a message in err. */
int attr_section_md(FILE *md, const report_run *base, const report_run *other, const char *dir, const report_opts *o,
                    char *err, size_t errlen);

#endif
