/* http.c - the tiny HTTP/1.1 client behind `simt --server`: resolve,
 * connect, send one request with Connection: close, read until the server
 * closes (or Content-Length is reached), then decode the body. Every wait
 * is bounded by the caller's timeout; nothing is printed. */
#define _POSIX_C_SOURCE 200809L
#include "http.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESPONSE_BYTES ((size_t)256 << 20)

static void set_error(char *error, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_error(char *error, size_t size, const char *fmt, ...)
{
    if (error == NULL || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, size, fmt, ap);
    va_end(ap);
}

int simt_http_parse_url(const char *url, struct simt_http_url *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    static const char scheme[] = "http://";
    if (strncasecmp(url, scheme, sizeof scheme - 1) != 0) {
        set_error(error, error_size, "'%s': only http://HOST[:PORT] URLs are supported", url);
        return SIMT_EINVAL;
    }
    const char *p = url + sizeof scheme - 1;
    const char *host_end;
    const char *after;
    if (*p == '[') { /* [::1]:8080 */
        host_end = strchr(p, ']');
        if (host_end == NULL) {
            set_error(error, error_size, "'%s': unterminated [ in the host", url);
            return SIMT_EINVAL;
        }
        p++;
        after = host_end + 1;
    } else {
        host_end = p + strcspn(p, ":/");
        after = host_end;
    }
    size_t host_len = (size_t)(host_end - p);
    if (host_len == 0 || host_len >= sizeof out->host) {
        set_error(error, error_size, "'%s': no host, or a host name too long", url);
        return SIMT_EINVAL;
    }
    memcpy(out->host, p, host_len);
    snprintf(out->port, sizeof out->port, "80");
    if (*after == ':') {
        after++;
        size_t digits = strspn(after, "0123456789");
        if (digits == 0 || digits > 5 || (after[digits] != '\0' && after[digits] != '/')) {
            set_error(error, error_size, "'%s': the port must be a number", url);
            return SIMT_EINVAL;
        }
        long port = strtol(after, NULL, 10);
        if (port < 1 || port > 65535) {
            set_error(error, error_size, "'%s': the port must be 1..65535", url);
            return SIMT_EINVAL;
        }
        snprintf(out->port, sizeof out->port, "%ld", port);
        after += digits;
    } else if (*after != '\0' && *after != '/') {
        set_error(error, error_size, "'%s': unexpected '%c' after the host", url, *after);
        return SIMT_EINVAL;
    }
    size_t prefix_len = strlen(after);
    while (prefix_len > 0 && after[prefix_len - 1] == '/')
        prefix_len--;
    if (prefix_len >= sizeof out->prefix) {
        set_error(error, error_size, "'%s': path prefix too long", url);
        return SIMT_EINVAL;
    }
    memcpy(out->prefix, after, prefix_len);
    return SIMT_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for fd to become ready for `events` until `deadline`; 0 when ready,
 * -1 on time-out or error. */
static int wait_ready(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0.0)
            return -1;
        struct pollfd pfd = {.fd = fd, .events = events, .revents = 0};
        int rc = poll(&pfd, 1, (int)(left * 1000.0) + 1);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

static int connect_to(const struct simt_http_url *url, double deadline, char *error, size_t error_size)
{
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo *list = NULL;
    int gai = getaddrinfo(url->host, url->port, &hints, &list);
    if (gai != 0) {
        set_error(error, error_size, "cannot resolve %s: %s", url->host, gai_strerror(gai));
        return -1;
    }
    int fd = -1;
    int last_errno = 0;
    for (struct addrinfo *ai = list; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) {
            last_errno = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            last_errno = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    (void)deadline;
    if (fd < 0)
        set_error(error, error_size, "cannot connect to %s:%s: %s (is simtd running? or use --offline)",
                  url->host, url->port, strerror(last_errno));
    return fd;
}

static int send_all(int fd, const char *data, size_t len, double deadline)
{
    while (len > 0) {
        if (wait_ready(fd, POLLOUT, deadline) != 0)
            return -1;
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Finds the value of header `name` in the head (CRLF lines); copies it
 * trimmed into buf. 1 when found. */
static int find_header(const char *head, size_t head_len, const char *name, char *buf, size_t size)
{
    size_t name_len = strlen(name);
    const char *line = memchr(head, '\n', head_len); /* skip the status line */
    const char *end = head + head_len;
    while (line != NULL && line < end) {
        line++;
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (eol == NULL)
            eol = end;
        if ((size_t)(eol - line) > name_len && strncasecmp(line, name, name_len) == 0 &&
            line[name_len] == ':') {
            const char *v = line + name_len + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            const char *v_end = eol;
            while (v_end > v && (v_end[-1] == '\r' || v_end[-1] == ' '))
                v_end--;
            size_t n = (size_t)(v_end - v);
            if (n >= size)
                n = size - 1;
            memcpy(buf, v, n);
            buf[n] = '\0';
            return 1;
        }
        line = eol < end ? eol : NULL;
    }
    return 0;
}

/* Decodes a chunked body in place; returns its length, or -1 when malformed. */
static long dechunk(char *data, size_t len)
{
    size_t in = 0, out = 0;
    for (;;) {
        char *end = NULL;
        if (in >= len)
            return -1;
        unsigned long size = strtoul(data + in, &end, 16);
        const char *crlf = memchr(data + in, '\n', len - in);
        if (end == data + in || crlf == NULL)
            return -1;
        in = (size_t)(crlf - data) + 1;
        if (size == 0)
            return (long)out;
        if (size > len - in)
            return -1;
        memmove(data + out, data + in, size);
        out += size;
        in += size;
        if (in < len && data[in] == '\r')
            in++;
        if (in < len && data[in] == '\n')
            in++;
    }
}

int simt_http_request(const struct simt_http_url *url, const char *method, const char *path, const char *body,
                      size_t body_len, int timeout_s, int *status, char **body_out, size_t *body_len_out,
                      char *error, size_t error_size)
{
    *body_out = NULL;
    *body_len_out = 0;
    *status = 0;
    double deadline = now_s() + (timeout_s > 0 ? timeout_s : 30);
    int fd = connect_to(url, deadline, error, error_size);
    if (fd < 0)
        return SIMT_EIO;

    int host_is_v6 = strchr(url->host, ':') != NULL;
    char head[1024];
    int head_len = snprintf(
        head, sizeof head,
        "%s %s%s HTTP/1.1\r\nHost: %s%s%s:%s\r\nUser-Agent: simt\r\nAccept: application/json\r\n"
        "Connection: close\r\n",
        method, url->prefix, path, host_is_v6 ? "[" : "", url->host, host_is_v6 ? "]" : "", url->port);
    if (head_len < 0 || (size_t)head_len >= sizeof head - 128) {
        close(fd);
        set_error(error, error_size, "request path too long");
        return SIMT_EINVAL;
    }
    if (body != NULL)
        head_len += snprintf(head + head_len, sizeof head - (size_t)head_len,
                             "Content-Type: application/json\r\nContent-Length: %zu\r\n", body_len);
    head_len += snprintf(head + head_len, sizeof head - (size_t)head_len, "\r\n");
    if (send_all(fd, head, (size_t)head_len, deadline) != 0 ||
        (body != NULL && send_all(fd, body, body_len, deadline) != 0)) {
        close(fd);
        set_error(error, error_size, "sending the request to %s:%s failed: %s", url->host, url->port,
                  errno ? strerror(errno) : "timed out");
        return SIMT_EIO;
    }

    size_t cap = 16384, len = 0;
    char *buf = malloc(cap + 1);
    if (buf == NULL) {
        close(fd);
        return SIMT_ENOMEM;
    }
    long content_length = -1;
    size_t header_end = 0;
    for (;;) {
        if (header_end > 0 && content_length >= 0 && len >= header_end + (size_t)content_length)
            break;
        if (wait_ready(fd, POLLIN, deadline) != 0) {
            free(buf);
            close(fd);
            set_error(error, error_size, "no complete answer from %s:%s within %d s", url->host, url->port,
                      timeout_s);
            return SIMT_EIO;
        }
        if (len == cap) {
            if (cap >= MAX_RESPONSE_BYTES) {
                free(buf);
                close(fd);
                set_error(error, error_size, "answer larger than %zu bytes", MAX_RESPONSE_BYTES);
                return SIMT_ETOOBIG;
            }
            cap *= 2;
            char *bigger = realloc(buf, cap + 1);
            if (bigger == NULL) {
                free(buf);
                close(fd);
                return SIMT_ENOMEM;
            }
            buf = bigger;
        }
        ssize_t n = recv(fd, buf + len, cap - len, 0);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            free(buf);
            close(fd);
            set_error(error, error_size, "reading the answer failed: %s", strerror(errno));
            return SIMT_EIO;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (header_end == 0) {
            buf[len] = '\0';
            char *sep = strstr(buf, "\r\n\r\n");
            if (sep != NULL) {
                header_end = (size_t)(sep - buf) + 4;
                char value[64];
                if (find_header(buf, header_end, "Content-Length", value, sizeof value))
                    content_length = strtol(value, NULL, 10);
                if (find_header(buf, header_end, "Transfer-Encoding", value, sizeof value) &&
                    strcasecmp(value, "chunked") == 0)
                    content_length = -1;
            }
        }
    }
    close(fd);
    buf[len] = '\0';
    int code = 0;
    if (header_end == 0 || sscanf(buf, "HTTP/%*d.%*d %d", &code) != 1 || code < 100 || code > 599) {
        free(buf);
        set_error(error, error_size, "%s:%s did not answer HTTP", url->host, url->port);
        return SIMT_EPARSE;
    }
    char value[64];
    size_t body_size = len - header_end;
    if (find_header(buf, header_end, "Transfer-Encoding", value, sizeof value) &&
        strcasecmp(value, "chunked") == 0) {
        long decoded = dechunk(buf + header_end, body_size);
        if (decoded < 0) {
            free(buf);
            set_error(error, error_size, "malformed chunked answer");
            return SIMT_EPARSE;
        }
        body_size = (size_t)decoded;
    } else if (content_length >= 0) {
        if ((size_t)content_length > body_size) {
            free(buf);
            set_error(error, error_size, "the answer was cut short (%zu of %ld bytes)", body_size,
                      content_length);
            return SIMT_EIO;
        }
        body_size = (size_t)content_length;
    }
    memmove(buf, buf + header_end, body_size);
    buf[body_size] = '\0';
    *status = code;
    *body_out = buf;
    *body_len_out = body_size;
    return SIMT_OK;
}
