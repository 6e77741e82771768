/* h5util.h - small HDF5 helpers shared by the results writer (h5out.c) and reader (h5in.c).
 *
 * Internal to results/: not part of the rb_results interface that bench/ and plots/ use.
 */
#ifndef RINGBENCH_H5UTIL_H
#define RINGBENCH_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>

/* Writes prefix followed by the innermost message of HDF5's error stack into buf (len bytes, always
 * terminated, truncated to fit), on one line, then clears the stack. When the stack holds no message
 * buf is left empty and prefix is not written. */
void h5util_detail(char *buf, size_t len, const char *prefix);

/* Closes *id with closer when it is a valid id, and sets it to H5I_INVALID_HID either way. */
void h5util_close_id(hid_t *id, herr_t (*closer)(hid_t));

#endif
