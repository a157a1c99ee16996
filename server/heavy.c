/* heavy.c - the costly requests' own queue and worker threads: see heavy.h.
 * The workers run at a lower priority (nice +10, per thread on Linux), so
 * that on a busy machine the event threads' light requests go first. */
#define _GNU_SOURCE
#include "heavy.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct simt_heavy {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct simt_heavy_job *ring; /* max_waiting slots */
    unsigned max_waiting, head, count, running;
    int stopping;
    unsigned workers;
    pthread_t *threads;
};

static void *worker(void *arg)
{
    struct simt_heavy *heavy = arg;
    /* best effort: a refusal leaves the thread at the process's priority */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    pthread_mutex_lock(&heavy->lock);
    for (;;) {
        while (heavy->count == 0 && !heavy->stopping)
            pthread_cond_wait(&heavy->wake, &heavy->lock);
        if (heavy->count == 0)
            break; /* stopping, nothing left */
        if (heavy->stopping)
            break; /* the rest is cancelled by destroy */
        struct simt_heavy_job job = heavy->ring[heavy->head];
        heavy->head = (heavy->head + 1) % heavy->max_waiting;
        heavy->count--;
        heavy->running++;
        pthread_mutex_unlock(&heavy->lock);
        job.run(job.arg, 0);
        pthread_mutex_lock(&heavy->lock);
        heavy->running--;
    }
    pthread_mutex_unlock(&heavy->lock);
    return NULL;
}

int simt_heavy_create(unsigned workers, unsigned max_waiting, struct simt_heavy **out)
{
    *out = NULL;
    struct simt_heavy *heavy = calloc(1, sizeof *heavy);
    if (heavy == NULL)
        return SIMT_ENOMEM;
    heavy->max_waiting = max_waiting ? max_waiting : 1;
    heavy->ring = calloc(heavy->max_waiting, sizeof *heavy->ring);
    heavy->threads = calloc(workers ? workers : 1, sizeof *heavy->threads);
    if (heavy->ring == NULL || heavy->threads == NULL) {
        free(heavy->ring);
        free(heavy->threads);
        free(heavy);
        return SIMT_ENOMEM;
    }
    pthread_mutex_init(&heavy->lock, NULL);
    pthread_cond_init(&heavy->wake, NULL);
    for (unsigned i = 0; i < (workers ? workers : 1); i++) {
        if (pthread_create(&heavy->threads[i], NULL, worker, heavy) != 0)
            break;
        heavy->workers++;
    }
    if (heavy->workers == 0) {
        simt_heavy_destroy(heavy);
        return SIMT_EIO;
    }
    *out = heavy;
    return SIMT_OK;
}

int simt_heavy_submit(struct simt_heavy *heavy, struct simt_heavy_job job)
{
    pthread_mutex_lock(&heavy->lock);
    if (heavy->stopping || heavy->count == heavy->max_waiting) {
        pthread_mutex_unlock(&heavy->lock);
        return SIMT_ETOOBIG;
    }
    heavy->ring[(heavy->head + heavy->count) % heavy->max_waiting] = job;
    heavy->count++;
    pthread_cond_signal(&heavy->wake);
    pthread_mutex_unlock(&heavy->lock);
    return SIMT_OK;
}

unsigned simt_heavy_pending(struct simt_heavy *heavy)
{
    pthread_mutex_lock(&heavy->lock);
    unsigned n = heavy->count + heavy->running;
    pthread_mutex_unlock(&heavy->lock);
    return n;
}

void simt_heavy_destroy(struct simt_heavy *heavy)
{
    if (heavy == NULL)
        return;
    pthread_mutex_lock(&heavy->lock);
    heavy->stopping = 1;
    pthread_cond_broadcast(&heavy->wake);
    pthread_mutex_unlock(&heavy->lock);
    for (unsigned i = 0; i < heavy->workers; i++)
        pthread_join(heavy->threads[i], NULL);
    /* no worker is left: what still waits is cancelled here */
    while (heavy->count > 0) {
        struct simt_heavy_job job = heavy->ring[heavy->head];
        heavy->head = (heavy->head + 1) % heavy->max_waiting;
        heavy->count--;
        job.run(job.arg, 1);
    }
    pthread_cond_destroy(&heavy->wake);
    pthread_mutex_destroy(&heavy->lock);
    free(heavy->ring);
    free(heavy->threads);
    free(heavy);
}
