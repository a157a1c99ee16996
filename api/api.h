/* api.h - simtd's HTTP API without HTTP: a request (method, path, content
 * type, body bytes) goes in, a response (status, JSON body, headers to add)
 * comes out. The route table, JSON parsing, error bodies of the contract in
 * API.md, and every model endpoint live behind this one call, so that the
 * server, the tests and the fuzzers all drive the same code in-process.
 *
 * Thread-safe: simt_api_handle keeps no state between calls; the database it
 * is given must stay alive (hold a reference) for the call. */
#ifndef SIMT_API_H
#define SIMT_API_H

#include <stddef.h>

#include "hwdb.h"

struct simt_api_request {
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* "/v1/occupancy", without the query string */
    const char *content_type; /* NULL when the request has none */
    const char *body;         /* may be NULL when body_len is 0; need not be NUL-terminated */
    size_t body_len;
};

struct simt_api_response {
    int status; /* HTTP status */
    char *body; /* malloc'd; the caller frees it with free() */
    size_t body_len;
    const char *content_type; /* static string */
    const char *allow;        /* static "GET" / "POST" for a 405, else NULL */
    const char *route;        /* static route pattern for metrics ("/v1/gpus/{id}"), or "unmatched" */
};

/* Answers one request. Always fills *resp (even an error is a response);
 * returns SIMT_ENOMEM only when no response could be built at all. */
int simt_api_handle(const struct simt_hwdb *db, const struct simt_api_request *req,
                    struct simt_api_response *resp) SIMT_WARN_UNUSED;

/* Frees resp->body and clears it. */
void simt_api_response_clear(struct simt_api_response *resp);

/* An error body of the contract: {"error":{"code","message","field"?}}.
 * For the server's own errors (413 before the body is read, 503 while
 * shutting down). Returns 0, or SIMT_ENOMEM. */
int simt_api_error_response(int status, const char *code, const char *message, const char *field,
                            struct simt_api_response *resp) SIMT_WARN_UNUSED;

/* The routes the router knows: method and pattern of the i-th, i below
 * simt_api_route_count(). Static strings; 0, or SIMT_ENOENT past the end. */
size_t simt_api_route_count(void);
int simt_api_route_at(size_t i, const char **method, const char **pattern) SIMT_WARN_UNUSED;

#endif
