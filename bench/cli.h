/* cli.h - option parsing shared by the ringbench commands in bench/ (main.c, anatomy.c).
 *
 * A bad value is a usage error: these print one line naming the option and exit with CLI_EXIT_USAGE.
 */
#ifndef RINGBENCH_CLI_H
#define RINGBENCH_CLI_H

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* Matches "--name value" and "--name=value" (and a short alias "-x value", alias may be NULL);
 * advances *i past the value. Returns 1 when matched (*val set), 0 when not. */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char *alias, const char **val);

/* An integer from lo to hi. */
long cli_parse_long(const char *opt, const char *s, long lo, long hi);

/* A positive number of seconds, at most a day. */
double cli_parse_seconds(const char *opt, const char *s);

#endif
