/* test_ring_gpu.c - the ring-kernel system on a real CUDA device, one mode per run.
 *
 *   test_ring_gpu HOST/XFER/LAUNCH/CTRL [messages-per-size [blocks]]
 *   test_ring_gpu --lifetime HOST/XFER/LAUNCH/CTRL
 *
 * Lifecycle first (launch, activate, exchange, deactivate with a message waiting, reactivate,
 * handshakes), then at least 10000 messages per size for sizes 8 B to 4 MiB, every reply verified;
 * prints lost / duplicated / corrupted counts per size, all of which must be zero. A mode this
 * platform cannot run exits 77 with the reason; so does a machine without a CUDA device (CTest shows
 * both as skipped). Label: gpu.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "probe.h"
#include "ring.h"
#include "timing.h"

static int parse_mode(const char *s, rb_mode *m)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL, *tok = strtok_r(buf, "/", &save);
    for (int a = 0; a < RB_AXIS_COUNT; a++, tok = strtok_r(NULL, "/", &save)) {
        if (!tok || (m->v[a] = rb_axis_parse((rb_axis)a, tok)) < 0)
            return -1;
    }
    return tok ? -1 : 0;
}

/* Exchanges n messages of len bytes, up to window in flight. */
static int exchange(ring *r, uint32_t n, uint32_t len, uint32_t window)
{
    uint32_t sent = 0, got = 0;
    while (got < n) {
        while (sent < n && sent - got < window) {
            if (ring_send(r, len) != RING_OK) {
                fprintf(stderr, "send %u of %u bytes: %s\n", sent, len, ring_error(r));
                return -1;
            }
            sent++;
        }
        if (ring_recv(r) != RING_OK) {
            fprintf(stderr, "recv %u of %u bytes: %s\n", got, len, ring_error(r));
            return -1;
        }
        got++;
    }
    return 0;
}

static void lifecycle(ring *r)
{
    ring_cb_kern k;
    CHECK_MSG(exchange(r, 100, 64, 1) == 0, "exchange before deactivation");
    CHECK_MSG(ring_deactivate(r) == RING_OK, "deactivate: %s", ring_error(r));
    CHECK(ring_cb_read(r, &k) == RING_OK && k.state == RING_STATE_IDLE);
    CHECK(ring_send(r, 64) == RING_OK);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(ring_cb_read(r, &k) == RING_OK);
    CHECK_MSG(k.in_head == 100, "message consumed while idle: in_head %u", k.in_head);
    CHECK_MSG(ring_activate(r) == RING_OK, "reactivate: %s", ring_error(r));
    CHECK_MSG(ring_recv(r) == RING_OK, "recv after reactivation: %s", ring_error(r));
    for (int i = 0; i < 100; i++)
        CHECK_MSG(ring_cb_handshake(r) == RING_OK, "handshake: %s", ring_error(r));
}

/* Bounded waits on a real kernel: a deactivated kernel never answers and the wait times out with the
 * kernel's state in the message; a kernel past its maximum lifetime leaves by itself and the host
 * says so; a fresh launch of the same ring then works. */
static int lifetime_test(const rb_mode *m, const rb_caps *caps)
{
    char why[256];
    if (rb_mode_invalid_reason(m))
        TEST_SKIP("invalid combination: %s", rb_mode_invalid_reason(m));
    if (rb_caps_unsupported_reason(caps, m, why, sizeof why))
        TEST_SKIP("unsupported here: %s", why);
    ring_config c;
    ring_config_default(&c);
    c.backend = RING_BACKEND_CUDA;
    c.mode = *m;
    c.timeout_s = 0.3;
    c.max_lifetime_s = 1.0;
    char err[320];
    ring *r = NULL;
    if (ring_open(&c, &r, err, sizeof err) != RING_OK) {
        fprintf(stderr, "ring_open: %s\n", err);
        return 1;
    }
    CHECK_MSG(ring_launch(r) == RING_OK, "launch: %s", ring_error(r));
    CHECK(ring_send(r, 64) == RING_OK); /* never activated: never answered */
    int rc = ring_recv(r);
    CHECK_INT(rc, RING_ETIMEOUT);
    CHECK_MSG(strstr(ring_error(r), "timed out") && strstr(ring_error(r), "idle"), "%s", ring_error(r));
    printf("deactivated kernel: %s\n", ring_error(r));
    struct timespec ts = {1, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    rc = ring_activate(r);
    CHECK_INT(rc, RING_EKERNEL);
    CHECK_MSG(strstr(ring_error(r), "maximum lifetime") != NULL, "%s", ring_error(r));
    printf("after its lifetime: %s\n", ring_error(r));
    (void)ring_terminate(r);
    CHECK_INT(ring_get_stats(r)->lost, 1);
    CHECK_MSG(ring_launch(r) == RING_OK && ring_activate(r) == RING_OK, "relaunch: %s", ring_error(r));
    CHECK(exchange(r, 100, 64, 4) == 0);
    CHECK_MSG(ring_terminate(r) == RING_OK, "terminate: %s", ring_error(r));
    ring_close(r);
    CHECK_DONE();
}

int main(int argc, char **argv)
{
    rb_mode m;
    if (argc == 3 && strcmp(argv[1], "--lifetime") == 0 && parse_mode(argv[2], &m) == 0) {
        rb_caps caps;
        rb_probe(0, &caps);
        if (!caps.cuda_usable)
            TEST_SKIP("no CUDA device: %s", caps.cuda_error);
        return lifetime_test(&m, &caps);
    }
    if (argc < 2 || parse_mode(argv[1], &m) < 0) {
        fprintf(stderr, "usage: test_ring_gpu HOST/XFER/LAUNCH/CTRL [messages-per-size [blocks]]\n");
        return 2;
    }
    const uint32_t per_size = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 10000;
    const uint32_t blocks = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0; /* 0 = fill the GPU */
    if (per_size < 100) {
        fprintf(stderr, "test_ring_gpu: at least 100 messages per size\n");
        return 2;
    }
    rb_caps caps;
    rb_probe(0, &caps);
    if (!caps.cuda_usable)
        TEST_SKIP("no CUDA device: %s", caps.cuda_error);
    char why[256];
    if (rb_mode_invalid_reason(&m))
        TEST_SKIP("invalid combination: %s", rb_mode_invalid_reason(&m));
    if (rb_caps_unsupported_reason(&caps, &m, why, sizeof why))
        TEST_SKIP("unsupported here: %s", why);

    ring_config c;
    ring_config_default(&c);
    c.backend = RING_BACKEND_CUDA;
    c.mode = m;
    c.max_payload = 4u << 20;
    c.capacity = 8;
    c.blocks = blocks;
    c.timeout_s = 10;
    c.max_lifetime_s = 600;
    char err[320];
    ring *r = NULL;
    if (ring_open(&c, &r, err, sizeof err) != RING_OK) {
        fprintf(stderr, "ring_open: %s\n", err);
        return 1;
    }
    int ok = ring_launch(r) == RING_OK && ring_activate(r) == RING_OK;
    CHECK_MSG(ok, "launch/activate: %s", ring_error(r));
    printf("%s on %s: %u blocks x 512 threads\n", argv[1], caps.name, ring_blocks(r));
    if (ok)
        lifecycle(r);
    ring_stats before = *ring_get_stats(r);
    static const uint32_t sizes[] = {8, 64, 512, 4096, 32768, 262144, 4u << 20};
    for (size_t si = 0; ok && si < sizeof sizes / sizeof *sizes; si++) {
        const uint32_t size = sizes[si];
        const uint64_t t0 = rb_now_ns();
        /* The first 100 one at a time, the rest with the ring full of messages in flight. */
        int rc = exchange(r, 100, size, 1) == 0 && exchange(r, per_size - 100, size, c.capacity) == 0;
        const ring_stats *s = ring_get_stats(r);
        printf("size %8u: %llu sent, %llu verified, lost %llu, duplicated %llu, corrupted %llu (%.2f s)\n",
               size, (unsigned long long)(s->sent - before.sent), (unsigned long long)(s->verified - before.verified),
               (unsigned long long)(s->lost - before.lost), (unsigned long long)(s->duplicated - before.duplicated),
               (unsigned long long)(s->corrupted - before.corrupted), rb_seconds_since(t0));
        CHECK(rc);
        CHECK_INT(s->verified - before.verified, per_size);
        CHECK_INT(s->sent - before.sent, per_size);
        before = *s;
        ok = rc;
    }
    CHECK_MSG(ring_terminate(r) == RING_OK, "terminate: %s", ring_error(r));
    const ring_stats *s = ring_get_stats(r);
    printf("total: %llu sent, %llu verified, lost %llu, duplicated %llu, corrupted %llu, kernel errors %llu\n",
           (unsigned long long)s->sent, (unsigned long long)s->verified, (unsigned long long)s->lost,
           (unsigned long long)s->duplicated, (unsigned long long)s->corrupted, (unsigned long long)s->kernel_errors);
    CHECK_INT(s->lost, 0);
    CHECK_INT(s->duplicated, 0);
    CHECK_INT(s->corrupted, 0);
    CHECK_INT(s->kernel_errors, 0);
    CHECK_INT(s->verified, s->sent);
    ring_close(r);
    CHECK_DONE();
}
