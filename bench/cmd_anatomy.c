/* anatomy_cmd.c - `ringbench anatomy`: one mode, one size, round trips with the kernel's trace on,
 * printed as a table of where the time goes (harness/anatomy.h), next to the floor measured in
 * the same process. A diagnostic: it writes no results file. */
#define _POSIX_C_SOURCE 200809L
#include "anatomy_cmd.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anatomy.h"
#include "baselines.h"
#include "cli.h"
#include "placement.h"
#include "probe.h"
#include "sweep.h"
#include "trial.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: ringbench anatomy [options]\n"
        "Where the time of one round trip goes: runs one mode at one size with one message in flight and the\n"
        "kernel's trace on, times every round trip on the host, matches it with the kernel's record of it, and\n"
        "prints the 10th/50th/90th percentiles of each part next to the floor (ping-pong) measured in the same\n"
        "process. Writes no results file.\n\n"
        "  --mode LABEL        host/xfer/launch/ctrl, e.g. pinned/async/coop/mapped\n"
        "                      (default pinned/zerocopy/coop/mapped; see ringbench list modes)\n"
        "  --size BYTES        message size, --sizes grammar (8, 4K, 1M; default 8)\n"
        "  --samples N         timed round trips (default 2000); with --warmup-msgs at most %u\n"
        "  --warmup-msgs N     untimed round trips first, on the same ring (default 200)\n"
        "  --warmup S          seconds of GPU warm-up before the ring opens (default 2; CUDA only)\n"
        "  --blocks N          grid of the ring kernel (default 0: every co-resident block)\n"
        "  --no-early-take     every message waits for in_tail (ring_config.early_take = 0)\n"
        "  --no-leader-reply   a lone small message goes to a warp behind block barriers (ring_config.leader_reply = 0)\n"
        "  --stream-ops        queue idle round trips in stream order where allowed (ring_config.stream_ops)\n"
        "  --backend B         auto | cuda | cpu (default auto: CUDA if a device is usable)\n"
        "  --device N          CUDA device (default 0)\n"
        "  --cpu LIST          CPUs for the host threads, as for run (default: the process's mask)\n"
        "  --no-pin            do not pin host threads\n"
        "Parts (microseconds): round trip, send and outside are host-clock times; poll, work, publish and idle\n"
        "are the kernel's clock (%%globaltimer); outside = round trip - (poll + work), what no kernel stamp covers.\n"
        "Exit status: 0 ok, 1 a failure, 2 a usage error.\n",
        RB_ANATOMY_MAX);
}

static void row(const char *name, const rb_quantiles *q, const char *what)
{
    printf("| %-10s | %8.3f | %8.3f | %8.3f | %s |\n", name, q->p10, q->p50, q->p90, what);
}

int anatomy_cmd(int argc, char **argv)
{
    const char *mode = "pinned/zerocopy/coop/mapped", *size_spec = "8", *backend = "auto", *cpu_list = NULL;
    long samples = 2000, warm_msgs = 200, blocks = 0, device = 0;
    double warm_s = 2.0;
    cli_ring_switches sw = CLI_RING_SWITCHES_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_opt_value(argc, argv, &i, "--mode", NULL, &v)) {
            mode = v;
        } else if (cli_opt_value(argc, argv, &i, "--size", NULL, &v)) {
            size_spec = v;
        } else if (cli_opt_value(argc, argv, &i, "--samples", NULL, &v)) {
            samples = cli_parse_long("--samples", v, 1, RB_ANATOMY_MAX);
        } else if (cli_opt_value(argc, argv, &i, "--warmup-msgs", NULL, &v)) {
            warm_msgs = cli_parse_long("--warmup-msgs", v, 0, RB_ANATOMY_MAX - 1);
        } else if (cli_opt_value(argc, argv, &i, "--warmup", NULL, &v)) {
            warm_s = strcmp(v, "0") == 0 ? 0 : cli_parse_seconds("--warmup", v);
        } else if (cli_opt_value(argc, argv, &i, "--blocks", NULL, &v)) {
            blocks = cli_parse_long("--blocks", v, 0, 1 << 20);
        } else if (cli_opt_value(argc, argv, &i, "--device", NULL, &v)) {
            device = cli_parse_long("--device", v, 0, 1023);
        } else if (cli_opt_value(argc, argv, &i, "--backend", NULL, &v)) {
            backend = v;
        } else if (cli_opt_value(argc, argv, &i, "--cpu", NULL, &v)) {
            cpu_list = v;
        } else if (!cli_ring_switch(argv[i], &sw)) {
            fprintf(stderr, "ringbench anatomy: unknown option '%s' (see ringbench anatomy --help)\n", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (warm_msgs + samples > RB_ANATOMY_MAX) {
        fprintf(stderr, "ringbench anatomy: --warmup-msgs + --samples is %ld, at most %u (the kernel's trace)\n",
                warm_msgs + samples, RB_ANATOMY_MAX);
        return CLI_EXIT_USAGE;
    }
    rb_mode m;
    const char *invalid = rb_mode_parse_label(mode, &m) != 0
                              ? "not a mode label host/xfer/launch/ctrl (see ringbench list modes)"
                              : rb_mode_invalid_reason(&m);
    if (invalid) {
        fprintf(stderr, "ringbench anatomy: --mode '%s': %s\n", mode, invalid);
        return CLI_EXIT_USAGE;
    }
    char err[512] = "";
    rb_sizes sizes;
    if (rb_sizes_parse(size_spec, &sizes, err, sizeof err) != 0 || sizes.n != 1) {
        fprintf(stderr, "ringbench anatomy: --size '%s': %s\n", size_spec, err[0] ? err : "one size only");
        return CLI_EXIT_USAGE;
    }
    if (cli_backend_check("anatomy", backend) != 0)
        return CLI_EXIT_USAGE;
    if (rb_place_init(cpu_list, sw.pin, err, sizeof err) != 0) {
        fprintf(stderr, "ringbench anatomy: --cpu: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    if (rb_place_get()->warning[0])
        fprintf(stderr, "ringbench anatomy: WARNING: %s\n", rb_place_get()->warning);
    ring_backend be;
    rb_caps caps;
    const char *notice;
    int brc = cli_backend_choose("anatomy", backend, (int)device, &caps, &be, &notice);
    if (brc != 0)
        return brc;
    if (be == RING_BACKEND_CPU && strcmp(backend, "cpu") != 0)
        fprintf(stderr, "ringbench anatomy: %s (%s)\n", notice, caps.cuda_error);
    cli_install_signals();

    const uint32_t size = sizes.v[0];
    if (be == RING_BACKEND_CUDA && warm_s > 0) {
        rb_trial_cfg tc = {.backend = be, .device = (int)device, .seed = 1, .timeout_s = 5, .max_lifetime_s = 60,
                           .early_take = 1, .leader_reply = 1, .stop = &cli_stop};
        double secs, sm, target;
        rb_trial_warmup(&tc, NULL, warm_s, &secs, &sm, &target);
    }
    ring_config cfg;
    ring_config_default(&cfg);
    cfg.backend = be;
    cfg.mode = m;
    cfg.device = (int)device;
    cfg.capacity = ring_capacity_for(size);
    cfg.max_payload = size;
    cfg.blocks = (uint32_t)blocks;
    cfg.early_take = sw.early_take;
    cfg.leader_reply = sw.leader_reply;
    cfg.stream_ops = sw.stream_ops;
    rb_anatomy a;
    int rc = rb_anatomy_run(&cfg, size, (uint32_t)warm_msgs, (uint32_t)samples, &cli_stop, &a, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "ringbench anatomy: %s\n", err);
        return CLI_EXIT_FAIL;
    }
    /* The floor in the same process, right after: the reference the round trip is held against. */
    rb_policy pol = {.warmup = 200, .rule = {.min_samples = (size_t)samples, .max_seconds = 10,
                                             .max_samples = (size_t)samples, .rel_ci_width = 0}};
    rb_samples fs = {0};
    char ferr[256] = "";
    rb_quantiles floor_q = {NAN, NAN, NAN};
    if (rc == 0 && rb_base_floor(be, (int)device, &pol, &fs, ferr, sizeof ferr, &cli_stop) == RB_BASE_OK)
        rb_quantiles_of(fs.us, fs.n, &floor_q);
    rb_samples_free(&fs);

    char label[64], sname[32];
    printf("ringbench anatomy: %s, %s, %s backend, %u blocks, early take %s, leader reply %s%s\n",
           rb_mode_label(&m, label, sizeof label), rb_size_name(size, sname, sizeof sname), ring_backend_name(be),
           a.blocks, sw.early_take ? "on" : "off", sw.leader_reply ? "on" : "off", sw.stream_ops ? ", stream ops asked for" : "");
    printf("%llu round trips timed (all %llu replies verified), %llu matched with the kernel's trace, "
           "%llu of those taken early%s\n\n",
           (unsigned long long)a.messages, (unsigned long long)a.st.verified, (unsigned long long)a.traced,
           (unsigned long long)a.early, rc == 1 ? " - INTERRUPTED, partial" : "");
    printf("| part       |   p10 us |   p50 us |   p90 us | what |\n");
    printf("| ---        |      --- |      --- |      --- | ---  |\n");
    row("round trip", &a.rtt, "host: ring_send + ring_recv, as the latency family measures it");
    row("send", &a.send, "host: until ring_send returns");
    row("poll", &a.poll, "kernel: the finding poll, issue to reads back");
    row("work", &a.work, "kernel: then until every reply word is written");
    row("publish", &a.publish, "kernel: fence + in_head/out_tail stores after that");
    row("outside", &a.outside, "round trip - (poll + work): the bus both ways, waits, host work");
    row("idle", &a.idle, "kernel: previous message published to the finding poll's issue");
    printf("| polls      | %8.1f | %8.1f | %8.1f | kernel: polls per message |\n", a.polls.p10, a.polls.p50,
           a.polls.p90);
    if (isnan(floor_q.p50))
        printf("\nfloor: not measured%s%s\n", ferr[0] ? ": " : "", ferr);
    else
        printf("\nfloor (ping-pong, same process): p10 %.3f, p50 %.3f, p90 %.3f us; round trip / floor at p50: %.2fx\n",
               floor_q.p10, floor_q.p50, floor_q.p90, a.rtt.p50 / floor_q.p50);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
