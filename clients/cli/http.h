/* http.h - `simt`'s HTTP client, a thin layer over libcurl: one request,
 * a JSON body out, the status and the whole body back. http:// and
 * https:// (certificates checked as curl checks them), the proxies named by
 * the usual environment variables (http_proxy, https_proxy, no_proxy), and
 * an optional bearer token for a simtd started with --token-file.
 *
 * Ownership: *body_out is malloc'd (NUL-terminated) and owned by the caller.
 * On failure a function returns a negative SIMT_E* code, writes why into
 * `error` and leaves *body_out NULL. Nothing is printed. */
#ifndef SIMT_CLI_HTTP_H
#define SIMT_CLI_HTTP_H

#include <stddef.h>

#include "simt_error.h"

struct simt_http_target {
    const char *base_url; /* "http://host:port[/prefix]" or https://; no trailing path needed */
    const char *token;    /* bearer token, or NULL/"" for none; not owned */
    int timeout_s;        /* the whole request, connect included */
};

/* Checks that url is an absolute http:// or https:// URL with a host.
 * SIMT_EINVAL (and why) otherwise. */
int simt_http_check_url(const char *url, char *error, size_t error_size) SIMT_WARN_UNUSED;

/* Sends METHOD base_url+path with the body (NULL for none; sent as
 * application/json) and waits at most timeout_s for the whole answer. */
int simt_http_request(const struct simt_http_target *target, const char *method, const char *path,
                      const char *body, size_t body_len, int *status, char **body_out, size_t *body_len_out,
                      char *error, size_t error_size) SIMT_WARN_UNUSED;

#endif
