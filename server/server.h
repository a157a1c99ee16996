/* server.h - the HTTP side of simtd: a libmicrohttpd daemon that reads each
 * request (body capped), hands it to simt_api_handle with a counted reference
 * to the current hardware database, and queues the answer. It also owns the
 * per-connection deadlines, the in-flight count and graceful shutdown.
 *
 * Threads: microhttpd runs its own event thread(s); every function here is
 * meant for the one controlling thread (main's loop), except that requests
 * are served concurrently throughout. Signals are not handled here. */
#ifndef SIMT_SERVER_SERVER_H
#define SIMT_SERVER_SERVER_H

#include <stddef.h>

#include "config.h"
#include "hwdb.h"
#include "simt_error.h"

struct simt_server;

/* Starts listening as cfg says. Takes over the caller's reference to db.
 * Returns 0; or SIMT_EINVAL (--bind is not a numeric address), SIMT_ENOMEM,
 * or SIMT_EIO (the port cannot be bound), with diag->message saying so
 * (diag->field the flag at fault, or ""), *out NULL and db unreferenced. */
int simt_server_start(const struct simt_config *cfg, struct simt_hwdb *db, struct simt_server **out,
                      struct simt_diag *diag) SIMT_WARN_UNUSED;

/* The port actually bound (the kernel's pick when cfg->port was 0). */
unsigned simt_server_port(const struct simt_server *srv);

/* Makes db the database new requests see (takes over the caller's
 * reference); requests already running finish with the old one, which is
 * freed by whichever holder lets go last. */
void simt_server_swap_db(struct simt_server *srv, struct simt_hwdb *db);

/* Closes connections whose request has not fully arrived within the timeout
 * (counted from connect, or from the end of the previous response). Call it
 * every few hundred milliseconds. Returns how many were cut. */
int simt_server_reap(struct simt_server *srv);

/* Stops accepting connections; from now on each new request is answered
 * 503 `unavailable` with Connection: close, while those already in flight
 * finish normally. */
void simt_server_begin_shutdown(struct simt_server *srv);

/* Requests begun and not yet completely answered. */
long simt_server_inflight(const struct simt_server *srv);

/* Stops the daemon (closing every connection), drops the database
 * reference and frees srv. */
void simt_server_stop(struct simt_server *srv);

#endif
