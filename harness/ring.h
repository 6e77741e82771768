/* ring.h - the host side of the ring-kernel system: one ring = one persistent kernel, its control
 * block, an input ring and an output ring, in one mode, on one backend.
 *
 * Lifecycle: ring_open (allocate everything; nothing is allocated or freed while a kernel runs, since
 * cudaFree would wait for it) -> ring_launch -> ring_activate -> ring_send/ring_recv ... ->
 * ring_deactivate / ring_activate ... -> ring_terminate -> ring_close. Every wait is bounded by
 * cfg.timeout_s; a kernel that stops answering or dies (watchdog, fault) is reported, never waited
 * on forever. The CPU backend runs the same protocol with a host thread as the kernel.
 *
 * Every reply is verified word by word against the generator of ring_protocol.h; lost, duplicated and
 * corrupted messages are counted in ring_stats.
 *
 * Errors: functions return RING_OK (0) or a negative RING_E* code, with one line of text in
 * ring_error(). RING_EUNSUPPORTED from ring_open means this platform cannot run the mode (the text
 * has the CUDA error that said so).
 */
#ifndef RINGBENCH_RING_H
#define RINGBENCH_RING_H

#include <stddef.h>
#include <stdint.h>

#include "modes.h"
#include "ring_protocol.h"

enum {
    RING_OK = 0,
    RING_EARG = -1,         /* bad configuration or argument */
    RING_EUNSUPPORTED = -2, /* the platform refused what the mode needs */
    RING_ETIMEOUT = -3,     /* no progress within timeout_s */
    RING_EKERNEL = -4,      /* the kernel exited or died */
    RING_ECUDA = -5,        /* a CUDA call failed */
    RING_EFULL = -6,        /* capacity messages already in flight */
    RING_ESTATE = -7,       /* call not allowed in this lifecycle state */
    RING_ENOMEM = -8
};

typedef enum { RING_BACKEND_CUDA, RING_BACKEND_CPU } ring_backend;

const char *ring_backend_name(ring_backend b); /* "cuda", "cpu" */

typedef struct ring_config {
    ring_backend backend;
    rb_mode mode;
    int device;              /* CUDA device ordinal */
    uint32_t capacity;       /* slots per ring, power of two */
    uint32_t max_payload;    /* bytes, multiple of 4 */
    uint32_t blocks;         /* CUDA grid; 0 = every co-resident block (fills the GPU) */
    double timeout_s;        /* bound of any single wait */
    double max_lifetime_s;   /* the kernel leaves by itself after this; 0 = no limit */
    uint32_t seed;           /* payload generator seed */
    int host_workers;        /* threads for host work on messages >= 256 KiB; -1 = by CPU count */
    /* Fault injection, CPU backend only, for tests of the verifier: every fault_every-th reply is
     * damaged as fault_kind says. 0 = never. */
    uint32_t fault_every;
    int fault_kind;
} ring_config;

enum { RING_FAULT_CORRUPT = 1, RING_FAULT_DUPLICATE, RING_FAULT_SKIP };

/* Defaults: capacity 16, max_payload 4096, timeout 5 s, lifetime 60 s, seed 1, host_workers -1. */
void ring_config_default(ring_config *c);

typedef struct ring_stats {
    uint64_t sent, received;  /* messages */
    uint64_t verified;        /* replies that matched exactly */
    uint64_t lost, duplicated, corrupted;
    uint64_t kernel_errors;   /* the kernel's own count of bad inputs */
} ring_stats;

typedef struct ring ring;

int ring_open(const ring_config *cfg, ring **out, char *err, size_t errlen);
void ring_close(ring *r); /* terminates a running kernel (bounded), frees everything */

int ring_launch(ring *r);     /* launch; returns once the kernel's first heartbeat is seen */
int ring_activate(ring *r);   /* returns once the kernel reports ACTIVE */
int ring_deactivate(ring *r); /* returns once the kernel reports IDLE (it stays resident) */
int ring_terminate(ring *r);  /* returns once the kernel has exited */

/* Sends the next message (seq = messages sent so far) with len payload bytes. RING_EFULL when
 * capacity messages are in flight: receive first. */
int ring_send(ring *r, uint32_t len);
/* Waits (bounded) for the next reply, fetches and verifies it. A reply that fails verification is
 * counted, not an error: callers check ring_get_stats. */
int ring_recv(ring *r);
/* Advances transfers and publication without waiting. */
int ring_progress(ring *r);
uint32_t ring_in_flight(const ring *r);

/* Control-block operations (the subject of the "10-30%" claim). */
int ring_cb_read(ring *r, ring_cb_kern *out);   /* one read of the kernel-written half */
int ring_cb_write_flag(ring *r, uint32_t value); /* one write of the handshake flag */
int ring_cb_handshake(ring *r);                  /* flag+1, wait until the kernel acknowledges it */

const ring_stats *ring_get_stats(const ring *r);
const ring_config *ring_get_config(const ring *r);
uint32_t ring_blocks(const ring *r);  /* grid size the kernel runs with (1 for the CPU backend) */
const char *ring_error(const ring *r);

#endif
