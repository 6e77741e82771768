/* cuda_calls.c - the per-thread CUDA call counters and their snapshots (see cuda_calls.h).
 * Exercised by tests/test_cuda_calls.c (API and cost) and tests/test_call_counts.c (counts per mode). */
#include "cuda_calls.h"

#include <math.h>
#include <string.h>

_Thread_local uint64_t cc_counts[CC_KIND_COUNT];

static const char *const kind_names[CC_KIND_COUNT] = {
#define CC_KIND_NAME(e, name, doc) [CC_##e] = name,
    CC_KINDS(CC_KIND_NAME)
#undef CC_KIND_NAME
};

static const char *const kind_docs[CC_KIND_COUNT] = {
#define CC_KIND_DOC(e, name, doc) [CC_##e] = doc,
    CC_KINDS(CC_KIND_DOC)
#undef CC_KIND_DOC
};

void cc_snap(cc_snapshot *s)
{
    memcpy(s->n, cc_counts, sizeof s->n);
}

uint64_t cc_diff(const cc_snapshot *before, const cc_snapshot *after, cc_kind k)
{
    return after->n[k] - before->n[k];
}

void cc_per_op(const cc_snapshot *before, const cc_snapshot *after, uint64_t nops, double out[CC_KIND_COUNT])
{
    for (int k = 0; k < CC_KIND_COUNT; k++)
        out[k] = nops ? (double)cc_diff(before, after, (cc_kind)k) / (double)nops : NAN;
}

/* Compared through int: the enum's signedness is the compiler's choice. */
static int kind_valid(cc_kind k) { return (int)k >= 0 && (int)k < (int)CC_KIND_COUNT; }

const char *cc_kind_name(cc_kind k) { return kind_valid(k) ? kind_names[k] : NULL; }
const char *cc_kind_doc(cc_kind k) { return kind_valid(k) ? kind_docs[k] : NULL; }

int cc_kind_parse(const char *name)
{
    if (!name)
        return -1;
    for (int k = 0; k < CC_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}
