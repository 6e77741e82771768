/* h5util.c - HDF5 helpers shared by h5out.c and h5in.c: error-stack text and closing ids.
 *
 * Exercised through the writer and reader by tests/test_h5_roundtrip.c and tests/test_h5_damaged.c.
 */
#include "h5util.h"

#include <stdio.h>

typedef struct {
    char *buf;
    size_t len;
    const char *prefix;
} h5util_detail_buf;

static herr_t h5util_detail_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    h5util_detail_buf *d = data;
    /* Walking upward, the first entry is the innermost and most specific one. */
    if (n == 0 && e->desc != NULL)
        snprintf(d->buf, d->len, "%s%s", d->prefix, e->desc);
    return 0;
}

void h5util_detail(char *buf, size_t len, const char *prefix)
{
    h5util_detail_buf d = {buf, len, prefix};
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5util_detail_cb, &d);
    H5Eclear2(H5E_DEFAULT);
    for (char *p = buf; *p; p++) /* one line, whatever HDF5 put in it */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

void h5util_close_id(hid_t *id, herr_t (*closer)(hid_t))
{
    if (*id >= 0)
        closer(*id);
    *id = H5I_INVALID_HID;
}
