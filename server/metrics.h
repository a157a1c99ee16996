/* metrics.h - simtd's Prometheus counters: requests by route and status, a
 * latency histogram per route, database reloads by result, open connections.
 *
 * The hot path (simt_metrics_observe, simt_metrics_connections_add) is a few
 * relaxed atomic increments and no lock; a route seen for the first time is
 * registered under a mutex once. All functions are thread-safe once
 * simt_metrics_init has returned. Routes beyond the table's capacity (64)
 * are counted under route="other". */
#ifndef SIMT_SERVER_METRICS_H
#define SIMT_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "simt_error.h"

/* Registers a route known up front (a static pattern, "/v1/gpus/{id}"), so
 * that it is listed from the start. Call before serving. */
void simt_metrics_add_route(const char *pattern);

/* One answered request. `route` is a static pattern ("/v1/gpus/{id}"). */
void simt_metrics_observe(const char *route, int status, int64_t duration_ns);

void simt_metrics_reload(int succeeded);
/* One lookup in the answer cache (only requests that may be cached). */
void simt_metrics_cache_lookup(int hit);
void simt_metrics_connections_add(int delta);
int64_t simt_metrics_connections(void);
void simt_metrics_set_gpus(size_t count);
/* Requests begun and not yet completely answered (the scrape included). */
void simt_metrics_inflight_add(int delta);
long simt_metrics_inflight(void);

/* Renders the exposition text (format 0.0.4). *out is malloc'd and owned by
 * the caller (free()). Returns 0, or SIMT_ENOMEM when out of memory (*out
 * untouched). */
int simt_metrics_render(char **out, size_t *out_len) SIMT_WARN_UNUSED;

#endif
