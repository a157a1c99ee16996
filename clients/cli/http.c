/* http.c - the HTTP client behind `simt --server`, through libcurl's easy
 * interface: TLS, proxies, redirects refused, every wait bounded by the
 * caller's timeout, answers capped in size. Nothing is printed. */
#define _POSIX_C_SOURCE 200809L
#include "http.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

int simt_http_check_url(const char *url, char *error, size_t error_size)
{
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
        set_error(error, error_size, "'%s': only http:// and https:// URLs are supported", url);
        return SIMT_EINVAL;
    }
    CURLU *parsed = curl_url();
    if (parsed == NULL) {
        set_error(error, error_size, "out of memory");
        return SIMT_ENOMEM;
    }
    char *host = NULL;
    CURLUcode uc = curl_url_set(parsed, CURLUPART_URL, url, 0);
    if (uc == CURLUE_OK)
        uc = curl_url_get(parsed, CURLUPART_HOST, &host, 0);
    int rc = SIMT_OK;
    if (uc != CURLUE_OK || host == NULL || host[0] == '\0') {
        set_error(error, error_size, "'%s': not a URL with a host (%s)", url,
                  uc != CURLUE_OK ? curl_url_strerror(uc) : "no host");
        rc = SIMT_EINVAL;
    }
    curl_free(host);
    curl_url_cleanup(parsed);
    return rc;
}

struct buffer {
    char *data;
    size_t len;
    size_t cap;
    int too_big;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    struct buffer *buf = userdata;
    size_t n = size * nmemb;
    if (buf->len + n + 1 > MAX_RESPONSE_BYTES) {
        buf->too_big = 1;
        return 0;
    }
    if (buf->len + n + 1 > buf->cap) {
        size_t cap = buf->cap ? buf->cap : 4096;
        while (cap < buf->len + n + 1)
            cap *= 2;
        char *bigger = realloc(buf->data, cap);
        if (bigger == NULL)
            return 0;
        buf->data = bigger;
        buf->cap = cap;
    }
    memcpy(buf->data + buf->len, ptr, n);
    buf->len += n;
    buf->data[buf->len] = '\0';
    return n;
}

/* base_url + path without a doubled slash; NULL when out of memory. */
static char *join_url(const char *base, const char *path)
{
    size_t base_len = strlen(base);
    while (base_len > 0 && base[base_len - 1] == '/')
        base_len--;
    size_t size = base_len + strlen(path) + 2;
    char *url = malloc(size);
    if (url != NULL)
        snprintf(url, size, "%.*s%s%s", (int)base_len, base, path[0] == '/' ? "" : "/", path);
    return url;
}

static void describe_failure(CURLcode code, const char *curl_error, const struct simt_http_target *target,
                             const struct buffer *buf, char *error, size_t error_size)
{
    const char *detail = curl_error[0] ? curl_error : curl_easy_strerror(code);
    if (buf->too_big)
        set_error(error, error_size, "answer larger than %zu bytes", MAX_RESPONSE_BYTES);
    else if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST)
        set_error(error, error_size, "cannot connect to %s: %s (is simtd running? or use --offline)",
                  target->base_url, detail);
    else if (code == CURLE_OPERATION_TIMEDOUT)
        set_error(error, error_size, "no complete answer from %s within %d s", target->base_url,
                  target->timeout_s);
    else
        set_error(error, error_size, "%s: %s", target->base_url, detail);
}

static struct curl_slist *request_headers(const struct simt_http_target *target, const char *body)
{
    struct curl_slist *headers = curl_slist_append(NULL, "Accept: application/json");
    if (headers != NULL && body != NULL)
        headers = curl_slist_append(headers, "Content-Type: application/json");
    if (headers != NULL && target->token != NULL && target->token[0] != '\0') {
        size_t size = strlen(target->token) + sizeof "Authorization: Bearer ";
        char *line = malloc(size);
        if (line == NULL) {
            curl_slist_free_all(headers);
            return NULL;
        }
        snprintf(line, size, "Authorization: Bearer %s", target->token);
        struct curl_slist *more = curl_slist_append(headers, line);
        memset(line, 0, size);
        free(line);
        if (more == NULL)
            curl_slist_free_all(headers);
        headers = more;
    }
    return headers;
}

int simt_http_request(const struct simt_http_target *target, const char *method, const char *path,
                      const char *body, size_t body_len, int *status, char **body_out, size_t *body_len_out,
                      char *error, size_t error_size)
{
    *body_out = NULL;
    *body_len_out = 0;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        set_error(error, error_size, "libcurl could not start");
        return SIMT_EIO;
    }
    CURL *curl = curl_easy_init();
    char *url = join_url(target->base_url, path);
    struct curl_slist *headers = request_headers(target, body);
    struct buffer buf = {0};
    char curl_error[CURL_ERROR_SIZE] = "";
    int rc = SIMT_ENOMEM;
    if (curl == NULL || url == NULL || headers == NULL) {
        set_error(error, error_size, "out of memory");
        goto done;
    }
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)target->timeout_s);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &buf);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "simt/" SIMT_CLI_VERSION);
    if (body != NULL) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else if (strcmp(method, "GET") == 0) {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    }
    CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) {
        describe_failure(code, curl_error, target, &buf, error, error_size);
        rc = SIMT_EIO;
        goto done;
    }
    long response_code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response_code);
    *status = (int)response_code;
    if (buf.data == NULL && (buf.data = calloc(1, 1)) == NULL) {
        set_error(error, error_size, "out of memory");
        goto done;
    }
    *body_out = buf.data;
    *body_len_out = buf.len;
    buf.data = NULL;
    rc = SIMT_OK;
done:
    free(buf.data);
    free(url);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rc;
}
