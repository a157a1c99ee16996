/* http.h - a deliberately tiny HTTP/1.1 client over POSIX sockets, enough
 * for `simt` to talk to simtd: one request per connection (Connection:
 * close), a JSON body out, the status and the whole body back. Handles
 * Content-Length, chunked and read-to-close bodies. Plain http:// only.
 *
 * Ownership: *body_out is malloc'd (NUL-terminated) and owned by the caller.
 * On failure the function returns a negative SIMT_E* code, writes why into
 * `error` and leaves *body_out NULL. */
#ifndef SIMT_CLI_HTTP_H
#define SIMT_CLI_HTTP_H

#include <stddef.h>

#include "simt_error.h"

struct simt_http_url {
    char host[256];   /* "127.0.0.1", "localhost", "::1" (brackets removed) */
    char port[8];     /* "8080" */
    char prefix[256]; /* path prefix without trailing slash, "" usually */
};

/* Parses "http://host[:port][/prefix]". SIMT_EINVAL for anything else. */
int simt_http_parse_url(const char *url, struct simt_http_url *out, char *error,
                        size_t error_size) SIMT_WARN_UNUSED;

/* Sends METHOD prefix+path with the body (NULL for none; sent as
 * application/json) and waits at most timeout_s for the whole answer. */
int simt_http_request(const struct simt_http_url *url, const char *method, const char *path, const char *body,
                      size_t body_len, int timeout_s, int *status, char **body_out, size_t *body_len_out,
                      char *error, size_t error_size) SIMT_WARN_UNUSED;

#endif
