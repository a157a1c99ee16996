/* heavy.h - a bounded queue and its own worker thread for the requests
 * that may cost much (/v1/compare, sweeps), so that they never occupy
 * microhttpd's event threads: light requests keep their latency however many
 * costly ones wait. The caller suspends the connection, submits a job, and
 * the job's run() resumes it.
 *
 * Thread-safety: every function may be called from any thread. */
#ifndef SIMT_SERVER_HEAVY_H
#define SIMT_SERVER_HEAVY_H

#include <stddef.h>

#include "simt_error.h"

struct simt_heavy;

/* One queued piece of work: run(arg, 0) in the worker thread, or run(arg, 1)
 * ("cancelled": answer without working) for jobs still queued when the
 * queue is destroyed. */
struct simt_heavy_job {
    void (*run)(void *arg, int cancelled);
    void *arg;
};

/* A queue of at most max_waiting jobs served by `workers` threads; 0, or
 * SIMT_ENOMEM / SIMT_EIO with *out NULL. */
int simt_heavy_create(unsigned workers, unsigned max_waiting, struct simt_heavy **out) SIMT_WARN_UNUSED;

/* Queues job; 0, or SIMT_ETOOBIG when max_waiting jobs already wait or the
 * queue is stopping (job.run is then not called: the caller answers 503). */
int simt_heavy_submit(struct simt_heavy *heavy, struct simt_heavy_job job) SIMT_WARN_UNUSED;

/* Jobs queued or running. */
unsigned simt_heavy_pending(struct simt_heavy *heavy);

/* Finishes the jobs running, cancels those waiting, joins the threads,
 * frees. NULL is a no-op. */
void simt_heavy_destroy(struct simt_heavy *heavy);

#endif
