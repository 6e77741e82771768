/* run_label.c - the label of injected and limits-applied runs (see run_label.h). Exercised by
 * tests/inject_cli.sh through report, compare, export and track. */
#include "run_label.h"

#include <stdio.h>
#include <string.h>

char *rb_run_label(const char *inject, const char *limits, char *buf, size_t n)
{
    const int inj = inject && *inject, lim = limits && *limits;
    if (!n)
        return buf;
    buf[0] = '\0';
    if (inj && lim)
        snprintf(buf, n, "INJECTED (%s us/call); LIMITS APPLIED (%s), not a %s run", inject, limits, limits);
    else if (inj)
        snprintf(buf, n, "INJECTED (%s us/call)", inject);
    else if (lim)
        snprintf(buf, n, "LIMITS APPLIED (%s), not a %s run", limits, limits);
    return buf;
}

char *rb_run_label_faults(const char *faults, char *buf, size_t n)
{
    size_t len = n ? strlen(buf) : 0;
    if (faults && *faults && len < n)
        snprintf(buf + len, n - len, "%sFAULTS INJECTED (%s), not a measurement", len ? "; " : "", faults);
    return buf;
}

char *rb_run_label_h5(const h5in *r, char *buf, size_t n)
{
    rb_run_label(h5in_attr(r, RB_H5_PROVENANCE, RB_PROV_INJECT_CALL_US),
                 h5in_attr(r, RB_H5_PROVENANCE, RB_PROV_PLATFORM_LIMITS), buf, n);
    return rb_run_label_faults(h5in_attr(r, RB_H5_PROVENANCE, RB_PROV_INJECT_FAULT), buf, n);
}
