/* h5out_attr.c - the results writer's attributes: scalar attributes on the root, /provenance and
 * /capabilities (h5out_attr_*), and those that make /cells self-describing (units of every numeric
 * column, the families). Split from h5out.c (see there for the file's layout).
 */
#define _POSIX_C_SOURCE 200809L

#include "h5out_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- attributes ------------------------------------------------------------------------------------

/* Writes a scalar attribute on obj, replacing one of the same name. */
int h5out_attr_write(h5out *w, hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    htri_t exists;
    int rc = -1;

    H5_CHECK(w, exists = H5Aexists(obj, name), "H5Aexists");
    if (exists)
        H5_CHECK(w, H5Adelete(obj, name), "H5Adelete");
    H5_CHECK(w, space = H5Screate(H5S_SCALAR), "H5Screate");
    H5_CHECK(w, attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2");
    H5_CHECK(w, H5Awrite(attr, type, value), "H5Awrite");
    rc = 0;
out:
    h5util_close_id(&attr, H5Aclose);
    h5util_close_id(&space, H5Sclose);
    return rc;
}

/* Strings are stored fixed-length and NUL-terminated, the size of the text plus its terminator. */
int h5out_attr_write_str(h5out *w, hid_t obj, const char *name, const char *value)
{
    hid_t type = H5I_INVALID_HID;
    int rc = -1;

    if (value == NULL)
        value = "";
    H5_CHECK(w, type = H5Tcopy(H5T_C_S1), "H5Tcopy");
    H5_CHECK(w, H5Tset_size(type, strlen(value) + 1), "H5Tset_size");
    H5_CHECK(w, H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad");
    rc = h5out_attr_write(w, obj, name, type, value);
out:
    h5util_close_id(&type, H5Tclose);
    return rc;
}

/* Opens "/", RB_H5_PROVENANCE or RB_H5_CAPABILITIES, creating the group on first use. Other names
 * are refused: the reader loads exactly these three, and anything else would be written unread. */
static hid_t group_open(h5out *w, const char *group)
{
    htri_t exists;

    if (w == NULL || w->file < 0) {
        if (w != NULL)
            h5out_fail(w, "%s: the writer is closed", w->partial);
        return H5I_INVALID_HID;
    }
    if (group == NULL ||
        (strcmp(group, "/") != 0 && strcmp(group, RB_H5_PROVENANCE) != 0 && strcmp(group, RB_H5_CAPABILITIES) != 0)) {
        h5out_fail(w, "%s: attributes go on \"/\", \"" RB_H5_PROVENANCE "\" or \"" RB_H5_CAPABILITIES "\", not \"%s\"",
                   w->partial, group ? group : "(null)");
        return H5I_INVALID_HID;
    }
    if (strcmp(group, "/") == 0)
        exists = 1;
    else if ((exists = H5Lexists(w->file, group, H5P_DEFAULT)) < 0) {
        h5out_fail_h5(w, "H5Lexists");
        return H5I_INVALID_HID;
    }
    hid_t g = exists ? H5Gopen2(w->file, group, H5P_DEFAULT)
                     : H5Gcreate2(w->file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        h5out_fail_h5(w, exists ? "H5Gopen2" : "H5Gcreate2");
    return g;
}

/* type is H5T_C_S1 for a string value (stored at its own length), else the value's native type. */
static int attr_on_group(h5out *w, const char *group, const char *name, hid_t type, const void *value)
{
    hid_t g = group_open(w, group);
    if (g < 0)
        return -1;
    int rc = -1;
    if (name == NULL || name[0] == '\0')
        h5out_fail(w, "%s: attribute without a name on %s", w->partial, group);
    else
        rc = type == H5T_C_S1 ? h5out_attr_write_str(w, g, name, value) : h5out_attr_write(w, g, name, type, value);
    H5Gclose(g);
    return rc;
}

int h5out_attr_str(h5out *w, const char *group, const char *name, const char *value)
{
    return attr_on_group(w, group, name, H5T_C_S1, value);
}

int h5out_attr_i64(h5out *w, const char *group, const char *name, int64_t value)
{
    return attr_on_group(w, group, name, H5T_NATIVE_INT64, &value);
}

int h5out_attr_f64(h5out *w, const char *group, const char *name, double value)
{
    return attr_on_group(w, group, name, H5T_NATIVE_DOUBLE, &value);
}

/* "name: unit: doc" for every metric family, one per line. Returns a malloc'd string or NULL. */
static char *families_text(void)
{
    size_t len = 1;
    for (int f = 0; f < RB_FAM_COUNT; f++)
        len += strlen(rb_family_name(f)) + strlen(rb_family_unit(f)) + strlen(rb_family_doc(f)) + 5;
    char *text = malloc(len), *p = text;
    if (text == NULL)
        return NULL;
    for (int f = 0; f < RB_FAM_COUNT; f++)
        p += snprintf(p, len - (size_t)(p - text), "%s: %s: %s\n", rb_family_name(f), rb_family_unit(f),
                      rb_family_doc(f));
    *p = '\0';
    return text;
}

/* The attributes that make /cells self-describing: the unit of every numeric column, the families. */
int h5out_cells_describe(h5out *w)
{
    char *families = NULL;
    int rc = -1;

#define RB_UNIT_ATTR(kind, field, unit)                                                                  \
    if ((unit)[0] != '\0' && h5out_attr_write_str(w, w->cells, RB_H5_ATTR_UNIT_PREFIX #field, unit) < 0) \
        goto out;
    RB_ROW_COLUMNS(RB_UNIT_ATTR)
#undef RB_UNIT_ATTR
#define RB_UNIT_ATTR(kind, field, unit)                                                                   \
    if ((unit)[0] != '\0' && h5out_attr_write_str(w, w->trials, RB_H5_ATTR_UNIT_PREFIX #field, unit) < 0) \
        goto out;
    RB_TRIAL_COLUMNS(RB_UNIT_ATTR)
#undef RB_UNIT_ATTR
    if ((families = families_text()) == NULL) {
        h5out_fail(w, "%s: out of memory", w->partial);
        goto out;
    }
    if (h5out_attr_write_str(w, w->cells, RB_H5_ATTR_FAMILIES, families) < 0)
        goto out;
    rc = 0;
out:
    free(families);
    return rc;
}
