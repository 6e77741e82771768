/* cmd_anatomy.c - `ringbench anatomy`: one mode, one size, round trips with the kernel's trace on,
 * printed as a table of where the time goes (harness/anatomy.h), next to the floor measured in
 * the same process. A diagnostic: it writes no results file. The kernel lifetime is run's
 * (harness/lifetime.h): below the Windows watchdog on WSL2. Exercised by tests/cli_test.sh (anatomy,
 * badinput).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anatomy.h"
#include "baselines.h"
#include "cli.h"
#include "commands.h"
#include "lifetime.h"
#include "placement.h"
#include "probe.h"
#include "sweep.h"
#include "trial.h"
#include "wsl.h"

typedef struct anatomy_args {
    const char *mode, *size_spec, *backend, *cpu_list;
    const char *windows; /* --window LIST: the window table instead of one round trip's parts */
    long samples, warm_msgs, blocks, device;
    double warm_s, pump_s;
    cli_ring_switches sw;
} anatomy_args;

/* What the arguments mean: the mode, the size, the backend and the kernel lifetime. */
typedef struct anatomy_plan {
    mode_spec m;
    uint32_t size;
    ring_backend be;
    probe_caps caps;
    double lifetime_s;
} anatomy_plan;

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: ringbench anatomy [options]\n"
        "Where the time of one round trip goes: runs one mode at one size with one message in flight and the\n"
        "kernel's trace on, times every round trip on the host, matches it with the kernel's record of it, and\n"
        "prints the 10th/50th/90th percentiles of each part next to the floor (ping-pong) measured in the same\n"
        "process. Writes no results file. The kernel leaves by itself after 60 s, or 1.5 s on WSL2 (below the\n"
        "Windows watchdog), as for run.\n\n"
        "  --mode LABEL        host/xfer/launch/ctrl, e.g. pinned/async/coop/mapped\n"
        "                      (default pinned/zerocopy/coop/mapped; see ringbench list modes)\n"
        "  --size BYTES        message size, --sizes grammar (8, 4K, 1M; default 8)\n"
        "  --samples N         timed round trips (default 2000); with --warmup-msgs at most %u\n"
        "  --warmup-msgs N     untimed round trips first, on the same ring (default 200)\n"
        "  --warmup S          seconds of GPU warm-up before the ring opens (default 2; CUDA only)\n"
        "  --window LIST       instead: where a window's messages wait - pump each window of LIST\n"
        "                      (the --window grammar of run: 1,8,64,cap) and print, per window, the rate\n"
        "                      against Little's bound, the kernel's batches and the host's posts,\n"
        "                      then where its time goes (the kernel's poll, work and publication of\n"
        "                      a batch; the host's time per post and per reply)\n"
        "  --seconds S         with --window: timed pump per window (default 0.2)\n"
        "  --blocks N          grid of the ring kernel (default 0: every co-resident block)\n"
        "  --no-early-take     every message waits for in_tail (ring_config.early_take = 0)\n"
        "  --no-leader-reply   a lone small message goes to a warp behind block barriers (ring_config.leader_reply = 0)\n"
        "  --stream-ops        queue idle round trips in stream order where allowed (ring_config.stream_ops)\n"
        "  --no-early-replies  the host takes a reply only when out_tail or its copy says it is there\n"
        "  --shortcuts-busy    the early take applies to any small message (default: lone ones only)\n"
        "  --post-max N        with --window, zero-copy rings: at most N messages per host post, one in_tail\n"
        "                      move (0 = the window's free room at once; default %u)\n"
        "  --verify-split B    replies verified together whose payloads, plus 128 B each, add up to B bytes\n"
        "                      or more are shared out over the host's worker pool (0 = one after another;\n"
        "                      default %uK)\n"
        "  --verify-first      with --window, zero-copy rings: verify a window's replies before posting their\n"
        "                      refill (default: post it once out_tail shows them, verify after)\n"
        "  --refill-on-tail    with --window, refill first: a reply counts as answered once out_tail says so\n"
        "                      (default: once its header is in the output ring, up to 256 in flight)\n"
        "  --backend B         auto | cuda | cpu (default auto: CUDA if a device is usable)\n"
        "  --device N          CUDA device (default 0)\n"
        "  --cpu LIST          CPUs for the host threads, as for run (default: the process's mask)\n"
        "  --no-pin            do not pin host threads\n"
        "Parts (microseconds): round trip, send and outside are host-clock times; poll, work, publish and idle\n"
        "are the kernel's clock (%%globaltimer); outside = round trip - (poll + work), what no kernel stamp covers.\n"
        "Exit status: 0 ok, 1 a failure, 2 a usage error.\n",
        RB_ANATOMY_MAX, RING_POST_MAX_DEFAULT, RING_VERIFY_SPLIT_DEFAULT / 1024u);
}

/* A number of the tables: v (times scale) in width characters with prec decimals and suffix, or "n/a"
 * where the run saw none (a quantile of no samples, a rate of nothing: never "nan"); in one of 32
 * rotating buffers, so that a line can hold many. */
static const char *num(double v, int width, int prec, double scale, const char *suffix)
{
    static char bufs[32][32];
    static unsigned next;
    char *b = bufs[next++ % 32];
    if (isfinite(v))
        snprintf(b, sizeof bufs[0], "%*.*f%s", width, prec, v * scale, suffix);
    else
        snprintf(b, sizeof bufs[0], "%*s", width + (int)strlen(suffix), "n/a");
    return b;
}

static void row(const char *name, const anatomy_quantiles *q, const char *what)
{
    printf("| %-10s | %s | %s | %s | %s |\n", name, num(q->p10, 8, 3, 1, ""), num(q->p50, 8, 3, 1, ""),
           num(q->p90, 8, 3, 1, ""), what);
}

enum {
    OPT_MODE = CLI_OPT_LONG,
    OPT_SIZE,
    OPT_SAMPLES,
    OPT_WARMUP_MSGS,
    OPT_WARMUP,
    OPT_BLOCKS,
    OPT_DEVICE,
    OPT_BACKEND,
    OPT_CPU,
    OPT_WINDOW,
    OPT_SECONDS
};

static const struct option anatomy_opts[] = {CLI_OPT_HELP,
                                             {"mode", required_argument, NULL, OPT_MODE},
                                             {"size", required_argument, NULL, OPT_SIZE},
                                             {"samples", required_argument, NULL, OPT_SAMPLES},
                                             {"warmup-msgs", required_argument, NULL, OPT_WARMUP_MSGS},
                                             {"warmup", required_argument, NULL, OPT_WARMUP},
                                             {"blocks", required_argument, NULL, OPT_BLOCKS},
                                             {"device", required_argument, NULL, OPT_DEVICE},
                                             {"backend", required_argument, NULL, OPT_BACKEND},
                                             {"cpu", required_argument, NULL, OPT_CPU},
                                             {"window", required_argument, NULL, OPT_WINDOW},
                                             {"seconds", required_argument, NULL, OPT_SECONDS},
                                             CLI_RING_SWITCH_OPTS,
                                             {NULL, 0, NULL, 0}};

/* One option into *a. Returns 0, or CLI_EXIT_USAGE. */
static int anatomy_option(int c, const char *v, anatomy_args *a)
{
    switch (c) {
    case OPT_MODE: a->mode = v; break;
    case OPT_SIZE: a->size_spec = v; break;
    case OPT_SAMPLES: a->samples = cli_parse_long("--samples", v, 1, RB_ANATOMY_MAX); break;
    case OPT_WARMUP_MSGS: a->warm_msgs = cli_parse_long("--warmup-msgs", v, 0, RB_ANATOMY_MAX - 1); break;
    case OPT_WARMUP: a->warm_s = strcmp(v, "0") == 0 ? 0 : cli_parse_seconds("--warmup", v); break;
    case OPT_BLOCKS: a->blocks = cli_parse_long("--blocks", v, 0, 1 << 20); break;
    case OPT_DEVICE: a->device = cli_parse_long("--device", v, 0, 1023); break;
    case OPT_BACKEND: a->backend = v; break;
    case OPT_CPU: a->cpu_list = v; break;
    case OPT_WINDOW: a->windows = v; break;
    case OPT_SECONDS: a->pump_s = cli_parse_seconds("--seconds", v); break;
    default:
        if (!cli_ring_switch(c, &a->sw))
            return CLI_EXIT_USAGE;
    }
    return 0;
}

/* The command line into *a. Returns -1 to go on, else the exit status (0 after --help). */
static int anatomy_parse(int argc, char **argv, anatomy_args *a)
{
    *a = (anatomy_args){.mode = "pinned/zerocopy/coop/mapped",
                        .size_spec = "8",
                        .backend = "auto",
                        .samples = 2000,
                        .warm_msgs = 200,
                        .warm_s = 2.0,
                        .pump_s = 0.2,
                        .sw = CLI_RING_SWITCHES_DEFAULT};
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("anatomy", argc, argv, ":h", anatomy_opts)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (c == CLI_OPT_BAD || anatomy_option(c, optarg, a) != 0)
            return CLI_EXIT_USAGE;
    }
    if (cli_no_operands("anatomy", argc, argv))
        return CLI_EXIT_USAGE;
    if (a->warm_msgs + a->samples > RB_ANATOMY_MAX) {
        fprintf(stderr, "ringbench anatomy: --warmup-msgs + --samples is %ld, at most %u (the kernel's trace)\n",
                a->warm_msgs + a->samples, RB_ANATOMY_MAX);
        return CLI_EXIT_USAGE;
    }
    return -1;
}

/* The mode, the size, the placement and the backend. Returns 0, or the exit status. */
static int anatomy_policy(const anatomy_args *a, anatomy_plan *p)
{
    const char *invalid = mode_parse_label(a->mode, &p->m) != 0
                              ? "not a mode label host/xfer/launch/ctrl (see ringbench list modes)"
                              : mode_invalid_reason(&p->m);
    if (invalid) {
        fprintf(stderr, "ringbench anatomy: --mode '%s': %s\n", a->mode, invalid);
        return CLI_EXIT_USAGE;
    }
    char err[512] = "";
    preset_sizes sizes;
    if (preset_sizes_parse(a->size_spec, &sizes, err, sizeof err) != 0 || sizes.n != 1) {
        fprintf(stderr, "ringbench anatomy: --size '%s': %s\n", a->size_spec, err[0] ? err : "one size only");
        return CLI_EXIT_USAGE;
    }
    p->size = sizes.v[0];
    if (cli_backend_check("anatomy", a->backend) != 0)
        return CLI_EXIT_USAGE;
    if (placement_init(a->cpu_list, a->sw.pin, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench anatomy: --cpu: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    if (placement_get()->warning[0])
        fprintf(stderr, "ringbench anatomy: WARNING: %s\n", placement_get()->warning);
    const char *notice;
    int brc = cli_backend_choose("anatomy", a->backend, (int)a->device, &p->caps, &p->be, &notice);
    if (brc != 0)
        return brc;
    if (p->be == RING_BACKEND_CPU && strcmp(a->backend, "cpu") != 0)
        fprintf(stderr, "ringbench anatomy: %s (%s)\n", notice, p->caps.cuda_error);
    wsl_info wsl;
    wsl_detect(NULL, NULL, NULL, &wsl);
    p->lifetime_s = lifetime_choose(0, wsl.kind).seconds;
    return 0;
}

/* The GPU warm-up (CUDA, --warmup), then the ring's configuration for the mode, size and switches. */
static void anatomy_ring(const anatomy_args *a, const anatomy_plan *p, ring_config *cfg)
{
    if (p->be == RING_BACKEND_CUDA && a->warm_s > 0) {
        trial_cfg tc = {.backend = p->be,
                        .device = (int)a->device,
                        .seed = 1,
                        .timeout_s = 5,
                        .max_lifetime_s = p->lifetime_s,
                        .early_take = 1,
                        .leader_reply = 1,
                        .stop = &cli_stop};
        double secs, sm, target;
        trial_warmup(&tc, NULL, a->warm_s, &secs, &sm, &target);
    }
    ring_config_default(cfg);
    cfg->backend = p->be;
    cfg->mode = p->m;
    cfg->device = (int)a->device;
    cfg->capacity = ring_capacity_for(p->size);
    cfg->max_payload = p->size;
    cfg->blocks = (uint32_t)a->blocks;
    cfg->early_take = a->sw.early_take;
    cfg->leader_reply = a->sw.leader_reply;
    cfg->stream_ops = a->sw.stream_ops;
    cfg->early_replies = a->sw.early_replies ? -1 : 0;
    cfg->shortcuts_busy = a->sw.shortcuts_busy;
    cfg->post_max = cli_post_max(&a->sw);
    cfg->verify_split = cli_verify_split(&a->sw);
    cfg->refill_first = !a->sw.verify_first;
    cfg->refill_headers = a->sw.refill_on_tail ? 0 : -1;
    cfg->max_lifetime_s = p->lifetime_s;
}

/* The round trips with the trace on, into *an. Returns anatomy_run's status (0, 1 interrupted, -1). */
static int anatomy_measure(const anatomy_args *a, const anatomy_plan *p, anatomy_result *an, char *err, size_t errlen)
{
    ring_config cfg;
    anatomy_ring(a, p, &cfg);
    return anatomy_run(&cfg, p->size, (uint32_t)a->warm_msgs, (uint32_t)a->samples, &cli_stop, an, err, errlen);
}

/* One row of the window table; bound: Little's law (window x the window-1 rate), capped by the
 * rate at the largest window. */
static void window_row(const anatomy_window *w, double rate1, double rate_full)
{
    double bound = rate1 * w->window;
    if (rate_full > 0 && bound > rate_full)
        bound = rate_full;
    /* k busy needs the last batch's publication stamp, which a batch spread over the grid by an
     * ordinary launch does not have (another block publishes it): n/a, not "nan" (num). */
    printf("| %6u | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w->window,
           num(w->msgs_per_s, 8, 3, 1e-6, ""), num(bound, 8, 3, 1e-6, ""), num(w->msgs_per_s / bound, 5, 0, 100, " %"),
           num(w->per_batch, 7, 1, 1, ""), num(w->batch.p50, 5, 0, 1, ""), num(w->single_share, 5, 0, 100, " %"),
           num(w->early_share, 5, 0, 100, " %"), num(w->leader_share, 5, 0, 100, " %"), num(w->polls.p50, 5, 1, 1, ""),
           num(w->kernel_busy, 5, 0, 100, " %"), num(w->per_post, 7, 1, 1, ""), num(w->per_announce, 7, 1, 1, ""),
           num(w->per_fetch, 7, 1, 1, ""), num(w->early_replies, 5, 0, 100, " %"),
           num(w->split_replies, 5, 0, 100, " %"), num(w->header_replies, 5, 0, 100, " %"));
}

/* Where a window's time goes: the kernel's parts of a batch (p50, its own clock) and the host's. */
static void window_times(const anatomy_window *w, size_t nw)
{
    printf("\n| window | k poll us | k work us | k publish us | k gap us | h post us | h reap us/msg | h busy |\n");
    printf("| ---    | ---       | ---       | ---          | ---      | ---       | ---           | ---    |\n");
    for (size_t i = 0; i < nw; i++)
        printf("| %6u | %s | %s | %s | %s | %s | %s | %s |\n", w[i].window, num(w[i].poll.p50, 9, 3, 1, ""),
               num(w[i].work.p50, 9, 3, 1, ""), num(w[i].publish.p50, 12, 3, 1, ""), num(w[i].gap.p50, 8, 3, 1, ""),
               num(w[i].post_us, 9, 3, 1, ""), num(w[i].reap_us, 13, 4, 1, ""), num(w[i].host_busy, 4, 0, 100, " %"));
    printf("\nk poll/work/publish/gap: us per kernel batch at p50 (finding poll issued to its reads back; to every\n"
           "reply written; to in_head/out_tail stored; published to the next finding poll issued); h post: host\n"
           "us per post (staging, announcing and the progress a post makes); h reap: host us per reply taken\n"
           "outside a post; h busy: share of the pump the host spent posting or taking replies. n/a: nothing of\n"
           "that kind happened in the window's pump (a gap needs two batches in a row; a busy host may have\n"
           "answered the whole window in one batch, or posted none).\n");
}

static void windows_print(const anatomy_args *a, const anatomy_plan *p, const anatomy_window *w, size_t nw,
                          const uint32_t *asked)
{
    char label[64], sname[32];
    /* Early replies and reply headers are on by default for the CUDA backend only (ring_config). */
    const int cuda = p->be == RING_BACKEND_CUDA;
    printf("ringbench anatomy: %s, %s, %s backend, early take %s (of %s), leader reply %s, early replies %s, "
           "refill first %s, %.2g s per window; every reply verified\n\n",
           mode_label(&p->m, label, sizeof label), preset_size_name(p->size, sname, sizeof sname),
           ring_backend_name(p->be), a->sw.early_take ? "on" : "off",
           a->sw.shortcuts_busy ? "any message" : "lone messages", a->sw.leader_reply ? "on" : "off",
           a->sw.early_replies && cuda ? "on" : "off",
           a->sw.verify_first              ? "off"
           : a->sw.refill_on_tail || !cuda ? "on (out_tail)"
                                           : "on (reply headers)",
           a->pump_s);
    printf("| window | M msg/s  | bound    | share   | msg/bat | p50   | single  | early   | leader  | polls | k busy  "
           "| msg/post | msg/ann | msg/fetch | h early | h split | h hdr   |\n");
    printf("| ---    | ---      | ---      | ---     | ---     | ---   | ---     | ---     | ---     | ---   | ---     "
           "| ---     | ---     | ---     | ---     | ---     | ---     |\n");
    const double rate1 = asked[0] == 1 ? w[0].msgs_per_s : 0, full = w[nw - 1].msgs_per_s;
    for (size_t i = 0; i < nw; i++)
        window_row(&w[i], rate1 > 0 ? rate1 : w[i].msgs_per_s / w[i].window, full);
    printf("\nbound: Little's law, window x the window-1 rate, capped by the largest window's rate (the first\n"
           "window must be 1 for it); msg/bat: messages per kernel batch (mean, p50); single: messages in a\n"
           "batch of one; early/leader: batches taken before in_tail / answered by the leader warp; polls: per\n"
           "batch; k busy: kernel time from a finding poll to its batch published (n/a: the last batch was\n"
           "published by another block, unstamped - an ordinary launch's batch spread over the grid);\n"
           "msg/post, msg/ann, msg/fetch: messages per host post, per in_tail move, per out_tail read that\n"
           "found replies; h early: replies the host took before out_tail or their copy said so; h split:\n"
           "replies verified in batches shared out over the host's worker pool (--verify-split); h hdr:\n"
           "replies counted answered from their header before out_tail announced them (--refill-on-tail).\n");
    window_times(w, nw);
}

/* `anatomy --window LIST`: every window of LIST pumped with the trace on, then the table. */
static int anatomy_windows(const anatomy_args *a, const anatomy_plan *p)
{
    uint32_t win[8];
    size_t nw = 0;
    char err[512] = "";
    if (preset_windows_parse(a->windows, win, 8, &nw, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench anatomy: --window '%s': %s\n", a->windows, err);
        return CLI_EXIT_USAGE;
    }
    ring_config cfg;
    anatomy_ring(a, p, &cfg);
    anatomy_window w[8];
    for (size_t i = 0; i < nw; i++) {
        const uint32_t n = win[i] > cfg.capacity ? cfg.capacity : win[i]; /* RB_WINDOW_CAP */
        if (anatomy_window_run(&cfg, p->size, n, a->pump_s, &cli_stop, &w[i], err, sizeof err) != 0) {
            fprintf(stderr, "ringbench anatomy: window %u: %s\n", n, err);
            return CLI_EXIT_FAIL;
        }
    }
    windows_print(a, p, w, nw, win);
    return CLI_EXIT_OK;
}

/* The floor in the same process, right after: the reference the round trip is held against. */
static void anatomy_floor(const anatomy_args *a, const anatomy_plan *p, anatomy_quantiles *q, char *ferr, size_t n)
{
    measure_policy pol = {.warmup = 200,
                          .rule = {.min_samples = (size_t)a->samples,
                                   .max_seconds = 10,
                                   .max_samples = (size_t)a->samples,
                                   .rel_ci_width = 0}};
    measure_samples fs = {0};
    *q = (anatomy_quantiles){NAN, NAN, NAN};
    if (baselines_floor(p->be, (int)a->device, &pol, &fs, ferr, n, &cli_stop) == RB_BASE_OK)
        anatomy_quantiles_of(fs.us, fs.n, q);
    measure_samples_free(&fs);
}

static void anatomy_print(const anatomy_args *a, const anatomy_plan *p, const anatomy_result *an, int rc,
                          const anatomy_quantiles *floor_q, const char *ferr)
{
    char label[64], sname[32];
    printf("ringbench anatomy: %s, %s, %s backend, %u blocks, early take %s, leader reply %s%s\n",
           mode_label(&p->m, label, sizeof label), preset_size_name(p->size, sname, sizeof sname),
           ring_backend_name(p->be), an->blocks, a->sw.early_take ? "on" : "off", a->sw.leader_reply ? "on" : "off",
           a->sw.stream_ops ? ", stream ops asked for" : "");
    printf("%llu round trips timed (all %llu replies verified), %llu matched with the kernel's trace, "
           "%llu of those taken early%s\n\n",
           (unsigned long long)an->messages, (unsigned long long)an->st.verified, (unsigned long long)an->traced,
           (unsigned long long)an->early, rc == 1 ? " - INTERRUPTED, partial" : "");
    printf("| part       |   p10 us |   p50 us |   p90 us | what |\n");
    printf("| ---        |      --- |      --- |      --- | ---  |\n");
    row("round trip", &an->rtt, "host: ring_send + ring_recv, as the latency family measures it");
    row("send", &an->send, "host: until ring_send returns");
    row("poll", &an->poll, "kernel: the finding poll, issue to reads back");
    row("work", &an->work, "kernel: then until every reply word is written");
    row("publish", &an->publish, "kernel: fence + in_head/out_tail stores after that");
    row("outside", &an->outside, "round trip - (poll + work): the bus both ways, waits, host work");
    row("idle", &an->idle, "kernel: previous message published to the finding poll's issue");
    printf("| polls      | %s | %s | %s | kernel: polls per message |\n", num(an->polls.p10, 8, 1, 1, ""),
           num(an->polls.p50, 8, 1, 1, ""), num(an->polls.p90, 8, 1, 1, ""));
    if (!isfinite(an->rtt.p50) || !isfinite(an->poll.p50))
        printf("(n/a: no round trip of this run %s)\n",
               isfinite(an->rtt.p50) ? "was matched with the kernel's trace" : "was timed");
    if (!isfinite(floor_q->p50))
        printf("\nfloor: not measured%s%s\n", ferr[0] ? ": " : "", ferr);
    else
        printf("\nfloor (ping-pong, same process): p10 %s, p50 %s, p90 %s us; round trip / floor at p50: %s\n",
               num(floor_q->p10, 0, 3, 1, ""), num(floor_q->p50, 0, 3, 1, ""), num(floor_q->p90, 0, 3, 1, ""),
               num(an->rtt.p50 / floor_q->p50, 0, 2, 1, "x"));
}

int cmd_anatomy(int argc, char **argv)
{
    anatomy_args a;
    anatomy_plan p;
    int rc = anatomy_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if ((rc = anatomy_policy(&a, &p)) != 0)
        return rc;
    cli_install_signals();
    if (a.windows)
        return anatomy_windows(&a, &p);
    anatomy_result an;
    char err[512] = "", ferr[256] = "";
    rc = anatomy_measure(&a, &p, &an, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "ringbench anatomy: %s\n", err);
        return CLI_EXIT_FAIL;
    }
    anatomy_quantiles floor_q = {NAN, NAN, NAN};
    if (rc == 0)
        anatomy_floor(&a, &p, &floor_q, ferr, sizeof ferr);
    anatomy_print(&a, &p, &an, rc, &floor_q, ferr);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
