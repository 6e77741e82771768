/* cli.h - what the ringbench commands in bench/ (the cmd_*.c files) share: option parsing, the
 * interrupt flag, the choice of backend.
 *
 * A bad value is a usage error: the parsers print one line naming the option and exit with
 * CLI_EXIT_USAGE.
 */
#ifndef RINGBENCH_CLI_H
#define RINGBENCH_CLI_H

#include <getopt.h>
#include <signal.h>

#include "probe.h"
#include "ring.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* Every command parses its argv with one getopt_long table: "--name value" and "--name=value",
 * "-o FILE" where there is an output, "--" ends the options, "-h/--help". Long-only options take
 * keys from CLI_OPT_LONG up. The loop is
 *     cli_getopt_begin();
 *     while ((c = cli_getopt("run", argc, argv, SHORT, table)) != -1) switch (c) { ... }
 * cli_getopt_begin restarts getopt (a process may parse several commands: run --report) and turns off
 * getopt's own messages. cli_getopt returns what getopt_long returns, except that an unknown option,
 * a missing value or an empty one (--sizes '') prints one line "ringbench CMD: ..." and returns
 * CLI_OPT_BAD. shortopts must start
 * with ':' (or "+:" to stop at the first operand). As getopt_long does, an unambiguous prefix of a
 * long name is accepted too (--pre quick). */
enum { CLI_OPT_BAD = '?', CLI_OPT_LONG = 256 };
void cli_getopt_begin(void);
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts);

/* The table entry of -h/--help, which every command has. */
#define CLI_OPT_HELP                   \
    {                                  \
        "help", no_argument, NULL, 'h' \
    }

/* For a command that takes no operands: 0 when getopt left none, else one line and CLI_EXIT_USAGE. */
int cli_no_operands(const char *cmd, int argc, char **argv);

/* The ring's switches that run and anatomy both take: --no-pin, --no-early-take, --no-leader-reply,
 * --stream-ops, --no-early-replies, --shortcuts-busy, --post-max N, --verify-split BYTES, --verify-first,
 * --refill-on-tail.
 * CLI_RING_SWITCHES_DEFAULT is what they mean when not given. */
typedef struct cli_ring_switches {
    int pin, early_take, leader_reply, stream_ops, early_replies, shortcuts_busy, verify_first, refill_on_tail;
    long post_max;     /* ring_config.post_max; -1: ring_config_default's */
    long verify_split; /* ring_config.verify_split; -1: ring_config_default's */
} cli_ring_switches;
#define CLI_RING_SWITCHES_DEFAULT                                                                               \
    {                                                                                                           \
        .pin = 1, .early_take = 1, .leader_reply = 1, .stream_ops = 0, .early_replies = 1, .shortcuts_busy = 0, \
        .verify_first = 0, .refill_on_tail = 0, .post_max = -1, .verify_split = -1                              \
    }

/* Their getopt_long entries (keys CLI_RING_SWITCH_KEY + 0..9, far above any command's own keys from
 * CLI_OPT_LONG), to put in a command's table. */
enum { CLI_RING_SWITCH_KEY = 1000 };
#define CLI_RING_SWITCH_OPTS                                                                                           \
    {"no-pin", no_argument, NULL, CLI_RING_SWITCH_KEY}, {"no-early-take", no_argument, NULL, CLI_RING_SWITCH_KEY + 1}, \
        {"no-leader-reply", no_argument, NULL, CLI_RING_SWITCH_KEY + 2},                                               \
        {"stream-ops", no_argument, NULL, CLI_RING_SWITCH_KEY + 3},                                                    \
        {"no-early-replies", no_argument, NULL, CLI_RING_SWITCH_KEY + 4},                                              \
        {"shortcuts-busy", no_argument, NULL, CLI_RING_SWITCH_KEY + 5},                                                \
        {"post-max", required_argument, NULL, CLI_RING_SWITCH_KEY + 6},                                                \
        {"verify-first", no_argument, NULL, CLI_RING_SWITCH_KEY + 8},                                                  \
        {"refill-on-tail", no_argument, NULL, CLI_RING_SWITCH_KEY + 9},                                                \
    {                                                                                                                  \
        "verify-split", required_argument, NULL, CLI_RING_SWITCH_KEY + 7                                               \
    }

/* Returns 1 when getopt key c is one of those switches (and sets it in *s), 0 when not. */
int cli_ring_switch(int c, cli_ring_switches *s);

/* ring_config.post_max as the switches say: --post-max, else RING_POST_MAX_DEFAULT. */
uint32_t cli_post_max(const cli_ring_switches *s);

/* ring_config.verify_split as the switches say: --verify-split, else RING_VERIFY_SPLIT_DEFAULT. */
uint32_t cli_verify_split(const cli_ring_switches *s);

/* An integer from lo to hi. */
long cli_parse_long(const char *opt, const char *s, long lo, long hi);

/* A number of bytes with an optional binary suffix K, M or G (KiB, MiB, GiB), from lo to hi. */
unsigned long long cli_parse_bytes(const char *opt, const char *s, unsigned long long lo, unsigned long long hi);

/* A number from lo to hi into *out for option opt of command cmd. Returns 0, or -1 after one line on
 * stderr (it does not exit: report and track are also called as library functions by the tests). */
int cli_number(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);

/* A positive number of seconds, at most a day. */
double cli_parse_seconds(const char *opt, const char *s);

/* "<host>-<UTC time>" for a default output name: the host name with every character but letters,
 * digits and '-' made '_', and the time as 20261123T223133Z. */
void cli_run_stamp(char *buf, size_t n);

/* Raised by SIGINT or SIGTERM once cli_install_signals ran (cli_signal says which); a second
 * signal ends the process at once. Measurements poll cli_stop and finish what they are doing. */
extern volatile sig_atomic_t cli_stop, cli_signal;
void cli_install_signals(void);

/* Set by main when the caller closed stdout (main fills fd 1 with /dev/full meanwhile, so that no
 * file takes its number). cli_stdout_errno(e) is EBADF then, else e: the errno a failed write to
 * standard output is reported with. */
extern int cli_stdout_closed;
int cli_stdout_errno(int e);

/* --backend NAME of command cmd: 0 for auto, cuda or cpu, else one line on stderr and
 * CLI_EXIT_USAGE. */
int cli_backend_check(const char *cmd, const char *name);

/* The backend NAME (checked) selects: cpu; cuda, which fails (one line on stderr, CLI_EXIT_FAIL)
 * without a usable device; auto, CUDA when device is usable, else the CPU reference backend. Fills
 * *caps (probing the device unless cpu), *out, and *notice: "" on CUDA, else why these numbers are
 * the CPU backend's, not a GPU's. Returns 0 or the exit status. */
int cli_backend_choose(const char *cmd, const char *name, int device, probe_caps *caps, ring_backend *out,
                       const char **notice);

#endif
