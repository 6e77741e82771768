/* pool.c - fixed worker pool (see pool.h). One generation counter under a mutex hands out work;
 * a second counter says how many parts are still running. */
#define _POSIX_C_SOURCE 200809L
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct rb_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    void (*fn)(void *ctx, int part, int nparts);
    void *ctx;
    unsigned long generation;
    int pending, nworkers, stop;
    pthread_t *threads;
};

typedef struct worker_arg {
    rb_pool *p;
    int id;
} worker_arg;

static void *worker(void *arg)
{
    rb_pool *p = ((worker_arg *)arg)->p;
    const int id = ((worker_arg *)arg)->id;
    free(arg);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->stop)
            break;
        seen = p->generation;
        void (*fn)(void *, int, int) = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, id, p->nworkers + 1);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int rb_pool_create(int nworkers, rb_pool **out)
{
    *out = NULL;
    if (nworkers < 1) {
        errno = EINVAL;
        return -1;
    }
    rb_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->threads = calloc((size_t)nworkers, sizeof *p->threads))) {
        free(p);
        errno = ENOMEM;
        return -1;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < nworkers; i++) {
        worker_arg *a = malloc(sizeof *a);
        if (a) {
            a->p = p;
            a->id = i;
        }
        if (!a || pthread_create(&p->threads[i], NULL, worker, a) != 0) {
            free(a);
            p->nworkers = i;
            rb_pool_destroy(p);
            errno = EAGAIN;
            return -1;
        }
        p->nworkers = i + 1;
    }
    *out = p;
    return 0;
}

void rb_pool_run(rb_pool *p, void (*fn)(void *ctx, int part, int nparts), void *ctx)
{
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->pending = p->nworkers;
    p->generation++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    fn(ctx, p->nworkers, p->nworkers + 1);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

int rb_pool_parts(const rb_pool *p) { return p->nworkers + 1; }

void rb_pool_destroy(rb_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nworkers; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

int rb_pool_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    /* Leave two CPUs: one for the polling host thread, one for the CUDA driver and the OS. */
    if (n <= 4)
        return 0;
    return n - 2 > 8 ? 8 : (int)(n - 2);
}
