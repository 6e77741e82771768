/* pool.c - fixed worker pool (see pool.h).
 *
 * Work is handed out by bumping an atomic generation counter; idle workers spin on it for a while
 * (RB_POOL_SPIN_NS) before they sleep on a condition variable, because the pool is used once per
 * large message, every ~100 us in a throughput run, where a futex wake-up per message would cost
 * more than the work. The caller spins until every part is done.
 */
#include "pool.h"
#include "placement.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "timing.h"

#define RB_POOL_SPIN_NS 200000u

struct pool_ctx {
    pthread_mutex_t mu;
    pthread_cond_t work;
    atomic_ulong generation;
    atomic_int pending, sleepers, stop;
    void (*fn)(void *ctx, int part, int nparts);
    void *ctx;
    int nworkers;
    pthread_t *threads;
};

typedef struct worker_arg {
    pool_ctx *p;
    int id;
} worker_arg;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Waits for a generation other than seen; returns it, or 0 when the pool stops. */
static unsigned long await_work(pool_ctx *p, unsigned long seen)
{
    const uint64_t t0 = timing_now_ns();
    unsigned spins = 0;
    for (;;) {
        unsigned long g = atomic_load(&p->generation);
        if (g != seen)
            return g;
        if (atomic_load(&p->stop))
            return 0;
        cpu_relax();
        if (++spins % 1024 == 0 && timing_now_ns() - t0 > RB_POOL_SPIN_NS)
            break;
    }
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1);
    while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->work, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
    return atomic_load(&p->stop) ? 0 : atomic_load(&p->generation);
}

static void *worker(void *arg)
{
    pool_ctx *p = ((worker_arg *)arg)->p;
    const int id = ((worker_arg *)arg)->id;
    free(arg);
    /* Each worker on a core of its own when the run pins its threads (placement.h). */
    const placement_cfg *pl = placement_get();
    if (pl->pinned && id < pl->nworkers)
        placement_pin_self(pl->worker_cpus[id]);
    unsigned long seen = 0;
    while ((seen = await_work(p, seen)) != 0) {
        p->fn(p->ctx, id, p->nworkers + 1);
        atomic_fetch_sub(&p->pending, 1);
    }
    return NULL;
}

int pool_create(int nworkers, pool_ctx **out)
{
    *out = NULL;
    if (nworkers < 1) {
        errno = EINVAL;
        return -1;
    }
    pool_ctx *p = calloc(1, sizeof *p);
    if (!p || !(p->threads = calloc((size_t)nworkers, sizeof *p->threads))) {
        free(p);
        errno = ENOMEM;
        return -1;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    atomic_init(&p->generation, 0);
    atomic_init(&p->pending, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->stop, 0);
    for (int i = 0; i < nworkers; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (a) {
            a->p = p;
            a->id = i;
        }
        if (!a || pthread_create(&p->threads[i], NULL, worker, a) != 0) {
            free(a);
            pool_destroy(p);
            errno = EAGAIN;
            return -1;
        }
        p->nworkers = i + 1;
    }
    *out = p;
    return 0;
}

void pool_run(pool_ctx *p, void (*fn)(void *ctx, int part, int nparts), void *ctx)
{
    p->fn = fn;
    p->ctx = ctx;
    atomic_store(&p->pending, p->nworkers);
    atomic_fetch_add(&p->generation, 1); /* publishes fn and ctx to the workers */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->work);
        pthread_mutex_unlock(&p->mu);
    }
    fn(ctx, p->nworkers, p->nworkers + 1);
    while (atomic_load(&p->pending) > 0)
        cpu_relax();
}

int pool_parts(const pool_ctx *p) { return p->nworkers + 1; }

void pool_destroy(pool_ctx *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nworkers; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    free(p->threads);
    free(p);
}

int pool_default_workers(void)
{
    /* From the CPUs the process may use (its mask or --cpu), not the machine's count: the polling
     * thread and the driver (or the CPU backend's kernel thread) keep a core each. */
    return placement_get()->nworkers;
}
