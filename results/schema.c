/* schema.c - names, units and descriptions of the metric families, all taken from the RB_FAMILIES
 * X-macro in schema.h so that the runner, the writer, the reader and the docs cannot disagree.
 * Exercised by tests/test_h5_roundtrip.c.
 */
#include "schema.h"

#include <stddef.h>
#include <string.h>

static const char *const family_names[RB_FAM_COUNT] = {
#define RB_FAMILY_NAME(e, name, unit, doc) [RB_FAM_##e] = name,
    RB_FAMILIES(RB_FAMILY_NAME)
#undef RB_FAMILY_NAME
};

static const char *const family_units[RB_FAM_COUNT] = {
#define RB_FAMILY_UNIT(e, name, unit, doc) [RB_FAM_##e] = unit,
    RB_FAMILIES(RB_FAMILY_UNIT)
#undef RB_FAMILY_UNIT
};

static const char *const family_docs[RB_FAM_COUNT] = {
#define RB_FAMILY_DOC(e, name, unit, doc) [RB_FAM_##e] = doc,
    RB_FAMILIES(RB_FAMILY_DOC)
#undef RB_FAMILY_DOC
};

/* The enum is signed or unsigned at the compiler's choice; compare through int so that a negative
 * value passed by a caller is rejected either way. */
static int family_valid(rb_family f)
{
    return (int)f >= 0 && (int)f < (int)RB_FAM_COUNT;
}

const char *rb_family_name(rb_family f)
{
    return family_valid(f) ? family_names[f] : NULL;
}

const char *rb_family_unit(rb_family f)
{
    return family_valid(f) ? family_units[f] : NULL;
}

const char *rb_family_doc(rb_family f)
{
    return family_valid(f) ? family_docs[f] : NULL;
}

int rb_family_parse(const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < (int)RB_FAM_COUNT; i++)
        if (strcmp(family_names[i], name) == 0)
            return i;
    return -1;
}
