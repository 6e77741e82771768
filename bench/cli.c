/* cli.c - option parsing shared by the ringbench commands (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t cli_stop, cli_signal;
int cli_stdout_closed;

int cli_stdout_errno(int e) { return cli_stdout_closed ? EBADF : e; }

static void on_signal(int sig)
{
    cli_signal = sig;
    cli_stop = 1;
}

void cli_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the process at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cli_run_stamp(char *buf, size_t n)
{
    char host[128] = "host", ts[32];
    gethostname(host, sizeof host - 1);
    for (char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
            *p = '_';
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(buf, n, "%s-%s", host, ts);
}

int cli_ring_switch(int c, cli_ring_switches *s)
{
    switch (c) {
    case CLI_RING_SWITCH_KEY: s->pin = 0; break;
    case CLI_RING_SWITCH_KEY + 1: s->early_take = 0; break;
    case CLI_RING_SWITCH_KEY + 2: s->leader_reply = 0; break;
    case CLI_RING_SWITCH_KEY + 3: s->stream_ops = 1; break;
    case CLI_RING_SWITCH_KEY + 4: s->early_replies = 0; break;
    case CLI_RING_SWITCH_KEY + 5: s->shortcuts_busy = 1; break;
    case CLI_RING_SWITCH_KEY + 6: s->post_max = cli_parse_long("--post-max", optarg, 0, RING_CAPACITY_SMALL); break;
    case CLI_RING_SWITCH_KEY + 7:
        s->verify_split = (long)cli_parse_bytes("--verify-split", optarg, 0, UINT32_MAX);
        break;
    case CLI_RING_SWITCH_KEY + 8: s->verify_first = 1; break;
    case CLI_RING_SWITCH_KEY + 9: s->refill_on_tail = 1; break;
    default: return 0;
    }
    return 1;
}

uint32_t cli_post_max(const cli_ring_switches *s)
{
    return s->post_max < 0 ? RING_POST_MAX_DEFAULT : (uint32_t)s->post_max;
}

uint32_t cli_verify_split(const cli_ring_switches *s)
{
    return s->verify_split < 0 ? RING_VERIFY_SPLIT_DEFAULT : (uint32_t)s->verify_split;
}

int cli_backend_check(const char *cmd, const char *name)
{
    if (strcmp(name, "auto") && strcmp(name, "cuda") && strcmp(name, "cpu")) {
        fprintf(stderr, "ringbench %s: --backend must be auto, cuda or cpu, not '%s'\n", cmd, name);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

int cli_backend_choose(const char *cmd, const char *name, int device, probe_caps *caps, ring_backend *out,
                       const char **notice)
{
    int rc = cli_backend_check(cmd, name);
    if (rc)
        return rc;
    *notice = "";
    if (strcmp(name, "cpu") == 0) {
        *notice = "CPU reference backend chosen with --backend cpu: these are not GPU measurements";
        memset(caps, 0, sizeof *caps);
        probe_run(-1, caps); /* records why no device is used, without touching one */
        snprintf(caps->cuda_error, sizeof caps->cuda_error, "not used: --backend cpu");
        *out = RING_BACKEND_CPU;
        return 0;
    }
    probe_run(device, caps);
    if (caps->cuda_usable) {
        *out = RING_BACKEND_CUDA;
    } else if (strcmp(name, "cuda") == 0) {
        fprintf(stderr, "ringbench %s: --backend cuda: no usable CUDA device: %s\n", cmd, caps->cuda_error);
        return CLI_EXIT_FAIL;
    } else {
        *out = RING_BACKEND_CPU;
        *notice = "no usable CUDA device: these are CPU reference backend numbers, not GPU measurements";
    }
    return 0;
}

void cli_getopt_begin(void)
{
    optind = 0; /* glibc: 0 restarts the scan, permutation state included */
    opterr = 0;
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    int longindex = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &longindex);
    if (c != '?' && c != ':' && optarg != NULL && optarg[0] == '\0') {
        /* --sizes '', -o '': an option that takes a value was given none; never "use the default". */
        if (longindex >= 0)
            fprintf(stderr, "ringbench %s: --%s needs a value, not an empty one\n", cmd, longopts[longindex].name);
        else
            fprintf(stderr, "ringbench %s: -%c needs a value, not an empty one\n", cmd, c);
        return CLI_OPT_BAD;
    }
    if (c != '?' && c != ':')
        return c;
    /* argv[optind - 1] is the word getopt stopped at; a short option inside a cluster is optopt. */
    const char *word = argv[optind - 1];
    char shortname[3] = {'-', (char)optopt, '\0'};
    if (optopt > 0 && optopt < CLI_OPT_LONG && word[0] == '-' && word[1] != '-')
        word = shortname;
    const char *eq = strchr(word, '=');
    if (c == ':')
        fprintf(stderr, "ringbench %s: %s needs a value\n", cmd, word);
    else if (optopt != 0 && word[0] == '-' && word[1] == '-' && eq) /* a known switch given a value */
        fprintf(stderr, "ringbench %s: %.*s takes no value\n", cmd, (int)(eq - word), word);
    else
        fprintf(stderr, "ringbench %s: unknown option '%s' (see ringbench %s --help)\n", cmd, word, cmd);
    return CLI_OPT_BAD;
}

int cli_no_operands(const char *cmd, int argc, char **argv)
{
    if (optind >= argc)
        return 0;
    fprintf(stderr, "ringbench %s: unexpected argument '%s' (see ringbench %s --help)\n", cmd, argv[optind], cmd);
    return CLI_EXIT_USAGE;
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

int cli_number(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "ringbench %s: %s: '%s' is not a number from %g to %g\n", cmd, opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
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

unsigned long long cli_parse_bytes(const char *opt, const char *s, unsigned long long lo, unsigned long long hi)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10), mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30;
    if (mul > 1)
        end++;
    if (errno || end == s || *end || s[0] == '-' || v > hi / mul || v * mul < lo) {
        fprintf(stderr, "ringbench: %s: '%s' is not a number of bytes from %llu to %llu (suffix K, M or G allowed)\n",
                opt, s, lo, hi);
        exit(CLI_EXIT_USAGE);
    }
    return v * mul;
}
