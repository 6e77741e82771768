/* cli.c - option parsing shared by the ringbench commands (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char *alias, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, name) == 0 || (alias && strcmp(a, alias) == 0)) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "ringbench: %s needs a value\n", name);
            exit(CLI_EXIT_USAGE);
        }
        *val = argv[++*i];
        return 1;
    }
    return 0;
}

long cli_parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "ringbench: %s: '%s' is not an integer from %ld to %ld\n", opt, s, lo, hi);
        exit(CLI_EXIT_USAGE);
    }
    return v;
}

double cli_parse_seconds(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 86400) {
        fprintf(stderr, "ringbench: %s: '%s' is not a positive number of seconds\n", opt, s);
        exit(CLI_EXIT_USAGE);
    }
    return v;
}
