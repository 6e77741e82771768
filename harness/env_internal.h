/* env_internal.h - the file and string helpers env.c lends env_limits.c. Not a public interface:
 * include env.h.
 */
#ifndef RINGBENCH_ENV_INTERNAL_H
#define RINGBENCH_ENV_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#define ENV_UNKNOWN "unknown"
#define ENV_PATH_MAX 4096
#define ENV_LINE_MAX 1024 /* os-release lines; longer ones are cut here, the rest skipped */

/* Appends src to the string in dst[size], truncating; a full buffer simply stays full. */
void env_append(char *dst, size_t size, const char *src);
/* Appends src, preceded by "; " when dst already holds something: the evidence and virt lists. */
void env_append_item(char *dst, size_t size, const char *src);
/* Copies src into dst[size], truncating. */
void env_copy(char *dst, size_t size, const char *src);
/* Returns 1 when root+rel exists (file, directory or device), else 0. */
int env_exists(const char *root, const char *rel);
/* 1 when root is the live system (NULL, "" or "/"), not a fake tree. */
int env_is_live(const char *root);
/* fopen(root+rel, "r"), NULL when the path is too long or the file cannot be opened. */
FILE *env_open(const char *root, const char *rel);
/* Reads the first line of root+rel into out[size], trimmed. Returns 0, or -1 (out is then
 * "unknown") when the file is missing, unreadable or holds nothing but whitespace. */
int env_read_first_line(const char *root, const char *rel, char *out, size_t size);
/* Removes trailing whitespace (the newline every /proc file ends with) in place. */
void env_rtrim(char *s);

#endif
