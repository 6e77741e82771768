/* cli.c - option parsing shared by the ringbench commands (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t cli_stop, cli_signal;

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

int cli_ring_switch(const char *arg, cli_ring_switches *s)
{
    if (strcmp(arg, "--no-pin") == 0)
        s->pin = 0;
    else if (strcmp(arg, "--no-early-take") == 0)
        s->early_take = 0;
    else if (strcmp(arg, "--no-leader-reply") == 0)
        s->leader_reply = 0;
    else if (strcmp(arg, "--stream-ops") == 0)
        s->stream_ops = 1;
    else if (strcmp(arg, "--no-early-replies") == 0)
        s->early_replies = 0;
    else if (strcmp(arg, "--shortcuts-busy") == 0)
        s->shortcuts_busy = 1;
    else
        return 0;
    return 1;
}

int cli_backend_check(const char *cmd, const char *name)
{
    if (strcmp(name, "auto") && strcmp(name, "cuda") && strcmp(name, "cpu")) {
        fprintf(stderr, "ringbench %s: --backend must be auto, cuda or cpu, not '%s'\n", cmd, name);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

int cli_backend_choose(const char *cmd, const char *name, int device, rb_caps *caps, ring_backend *out,
                       const char **notice)
{
    int rc = cli_backend_check(cmd, name);
    if (rc)
        return rc;
    *notice = "";
    if (strcmp(name, "cpu") == 0) {
        *notice = "CPU reference backend chosen with --backend cpu: these are not GPU measurements";
        memset(caps, 0, sizeof *caps);
        rb_probe(-1, caps); /* records why no device is used, without touching one */
        snprintf(caps->cuda_error, sizeof caps->cuda_error, "not used: --backend cpu");
        *out = RING_BACKEND_CPU;
        return 0;
    }
    rb_probe(device, caps);
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
