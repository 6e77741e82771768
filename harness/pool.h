/* pool.h - a small fixed pool of worker threads for the host's per-byte work on large messages
 * (generating payloads and verifying replies), so that host work does not cap what the ring can move.
 */
#ifndef RINGBENCH_POOL_H
#define RINGBENCH_POOL_H

typedef struct pool_ctx pool_ctx;

/* Starts nworkers threads (nworkers >= 1). Returns 0, or -1 with errno set. */
int pool_create(int nworkers, pool_ctx **out);

/* Runs fn(ctx) on the calling thread and on every worker that starts while the pass is open, and
 * returns once the caller's fn has returned and every worker that joined has returned. A worker that
 * had not started by then never calls fn or touches ctx, so fn must share the work out as it goes
 * (take pieces from an atomic counter until none is left), never assume a number of calls. Not
 * reentrant. */
void pool_run(pool_ctx *p, void (*fn)(void *ctx), void *ctx);

void pool_destroy(pool_ctx *p);

/* Workers worth starting on this machine for the host work of one ring: 0 on small machines. */
int pool_default_workers(void);

#endif
