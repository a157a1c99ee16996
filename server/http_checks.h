/* http_checks.h - the request-framing rules simtd enforces itself on top of
 * libmicrohttpd 0.9.75 (RFC 9112 section 6.3 and 3.2): one Content-Length of
 * digits only, never together with Transfer-Encoding; no transfer coding but
 * chunked; exactly one Host in HTTP/1.1; no control character in the target,
 * raw or percent-encoded; the absolute form reduced to its path. Pure
 * functions over the connection's headers: nothing is allocated or kept. */
#ifndef SIMT_SERVER_HTTP_CHECKS_H
#define SIMT_SERVER_HTTP_CHECKS_H

#include <stddef.h>

#include <microhttpd.h>

/* A request the server refuses before it reaches the API: the status
 * (400 or 501), the error code and a message. */
struct simt_http_refusal {
    int status;
    const char *code;
    char message[160];
};

/* Checks the framing headers of the request on mc (HTTP version `version`).
 * Returns 0 when they are acceptable; else 1 with *out filled: the caller
 * answers it with Connection: close. */
int simt_http_check_headers(struct MHD_Connection *mc, const char *version, struct simt_http_refusal *out);

/* 1 when the raw request target (before percent-decoding) holds a control
 * character, raw or as %00..%1F or %7F. */
int simt_http_target_has_control(const char *raw_target);

/* The path of a request target: the target itself in origin form, the part
 * from the first '/' after the authority in absolute form
 * ("http://host:8080/healthz" -> "/healthz"; "http://host" -> "/"). */
const char *simt_http_path_of(const char *target);

#endif
