/* pool.c - fixed worker pool (see pool.h).
 *
 * A pass is published by bumping the generation in `gate`; idle workers spin on it for a while
 * (RB_POOL_SPIN_NS) before they sleep on a condition variable, because the pool is used once per
 * large message, every ~100 us in a throughput run, where a futex wake-up per message would cost
 * more than the work.
 *
 * A worker joins a pass (one compare-and-swap that counts it in `gate`) only while the pass is open,
 * and the caller closes it once its own fn has returned, then waits only for the workers that joined.
 * The work itself is taken in small pieces by fn, so whoever is running takes what is left: a worker
 * that the hypervisor or another process kept off its CPU costs at most the piece it holds, not its
 * whole share. (With one equal share per worker, the H100's default runs had 4-30 % of trials at
 * 256 KiB and above run 2-20x slow, in stretches of seconds: every pass waited for its slowest
 * worker.)
 */
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "placement.h"
#include "timing.h"

#define RB_POOL_SPIN_NS 200000u

/* gate: generation << GATE_GEN_SHIFT | GATE_CLOSED while closed | workers joined (low bits). */
#define GATE_GEN_SHIFT 17
#define GATE_CLOSED (1ull << 16)
#define GATE_JOINED 0xFFFFull

struct pool_ctx {
    pthread_mutex_t mu;
    pthread_cond_t work;
    atomic_ullong gate;
    atomic_int sleepers, stop;
    void (*fn)(void *ctx);
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

static uint64_t gate_gen(uint64_t g) { return g >> GATE_GEN_SHIFT; }

/* Waits for a generation other than seen; returns it, or 0 when the pool stops. */
static uint64_t await_work(pool_ctx *p, uint64_t seen)
{
    const uint64_t t0 = timing_now_ns();
    unsigned spins = 0;
    for (;;) {
        uint64_t g = gate_gen(atomic_load(&p->gate));
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
    while (gate_gen(atomic_load(&p->gate)) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->work, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
    return atomic_load(&p->stop) ? 0 : gate_gen(atomic_load(&p->gate));
}

/* Joins pass gen if it is still open: 1 joined (fn and ctx are then the pass's), 0 too late. */
static int join_pass(pool_ctx *p, uint64_t gen)
{
    uint64_t g = atomic_load(&p->gate);
    while (gate_gen(g) == gen && !(g & GATE_CLOSED))
        if (atomic_compare_exchange_weak(&p->gate, &g, g + 1))
            return 1;
    return 0;
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
    uint64_t seen = 0;
    while ((seen = await_work(p, seen)) != 0) {
        if (!join_pass(p, seen))
            continue;
        p->fn(p->ctx);
        atomic_fetch_sub(&p->gate, 1); /* release: this worker's results before the caller's wait ends */
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
    atomic_init(&p->gate, 0);
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

void pool_run(pool_ctx *p, void (*fn)(void *ctx), void *ctx)
{
    p->fn = fn;
    p->ctx = ctx;
    /* The previous pass is closed with no worker in it: the next generation, open, nobody joined. */
    const uint64_t gen = gate_gen(atomic_load(&p->gate)) + 1;
    atomic_store(&p->gate, gen << GATE_GEN_SHIFT); /* publishes fn and ctx to the workers */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->work);
        pthread_mutex_unlock(&p->mu);
    }
    fn(ctx);
    atomic_fetch_or(&p->gate, GATE_CLOSED);
    while (atomic_load(&p->gate) & GATE_JOINED)
        cpu_relax();
}

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
