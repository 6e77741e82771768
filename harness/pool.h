/* pool.h - a small fixed pool of worker threads for the host's per-byte work on large messages
 * (generating payloads and verifying replies), so that host work does not cap what the ring can move.
 */
#ifndef RINGBENCH_POOL_H
#define RINGBENCH_POOL_H

typedef struct pool_ctx pool_ctx;

/* Starts nworkers threads (nworkers >= 1). Returns 0, or -1 with errno set. */
int pool_create(int nworkers, pool_ctx **out);

/* Runs fn(ctx, part, nparts) for part = 0..nparts-1, nparts = workers + 1 (the caller runs the last
 * part itself), and returns when every part has returned. Not reentrant. */
void pool_run(pool_ctx *p, void (*fn)(void *ctx, int part, int nparts), void *ctx);

int pool_parts(const pool_ctx *p);

void pool_destroy(pool_ctx *p);

/* Workers worth starting on this machine for the host work of one ring: 0 on small machines. */
int pool_default_workers(void);

#endif
