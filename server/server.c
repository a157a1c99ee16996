/* server.c - libmicrohttpd glue: the access handler, per-connection state,
 * body limits, the database reference, the server's own routes (/metrics),
 * deadlines and graceful shutdown. No model logic lives here: every API
 * request goes to simt_api_handle.
 *
 * microhttpd calls the access handler several times per request: once with
 * the headers, once per piece of body, once more when the body is complete.
 * A reply may be queued on the first call (413 by Content-Length, 503 while
 * shutting down) or on the last, never in between. Requests on one
 * connection are sequential, so the request state lives in the connection's
 * record and the hot path allocates nothing but the answer. */
#define _GNU_SOURCE
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "api.h"
#include "cache.h"
#include "heavy.h"
#include "http_checks.h"
#include "log.h"
#include "metrics.h"
#include "static.h"

/* A body buffer up to this size is kept for the connection's next request. */
#define KEEP_BODY_CAPACITY ((size_t)64 * 1024)
#define FIRST_BODY_CAPACITY ((size_t)4096)
/* microhttpd's memory pool per connection (request line, headers, the
 * read and write buffers): one page above its default of 32 KiB, so that
 * it is mapped (see daemon_start); a header block of 40 000 bytes is
 * still refused (431) */
#define CONNECTION_POOL_BYTES ((size_t)36 * 1024)
/* costly requests waiting for the heavy thread at most; more get 503 */
#define SIMT_HEAVY_QUEUE 64u

struct conn {
    struct conn *prev, *next; /* in srv->conns, under srv->conns_lock */
    int fd;
    int cut; /* the reaper has shut its socket down */
    /* monotonic ns by which the current request must have fully arrived;
     * 0 while an answer is being produced or sent */
    atomic_llong deadline_ns;
    /* the request in progress */
    int64_t start_ns;
    char *body;
    size_t body_len, body_cap;
    size_t body_seen; /* bytes received, kept or not */
    int too_large;
    int answered;          /* a response is queued (maybe early: 413, 503) */
    int close_after;       /* answer with Connection: close */
    int bad_target;        /* the raw target holds a control character */
    int idle;              /* between requests (or none yet): closed first near the limit */
    int64_t idle_since_ns; /* when it became idle */
    /* a costly request handed to the heavy queue (connection suspended) */
    struct MHD_Connection *mc;
    struct simt_server *srv;
    int heavy_done; /* `pending` holds its answer: queue it when resumed */
    int cacheable;
    struct simt_cache_key key;
    struct simt_api_response pending;
};

struct simt_server {
    struct MHD_Daemon *daemon;
    unsigned port;
    size_t max_body_bytes;
    unsigned max_connections;
    unsigned max_connections_per_ip;
    int64_t timeout_ns;

    struct simt_heavy *heavy; /* costly requests' own queue and thread */

    pthread_mutex_t db_lock;
    struct simt_hwdb *db; /* the current database; one reference is ours */

    pthread_mutex_t conns_lock;
    struct conn *conns;

    struct simt_cache *cache;

    char token[SIMT_MAX_TOKEN_BYTES + 1]; /* "" = no authentication */
    size_t token_len;

    atomic_int shutting_down;
    atomic_llong last_refusal_log_s;
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- answering ---- */

static const char oom_body[] =
    "{\"error\":{\"code\":\"internal\",\"message\":\"the answer could not be built\"}}";

/* Marks resp as "could not be built": answer() then sends a static 500. */
static void make_oom(struct simt_api_response *resp)
{
    simt_api_response_clear(resp);
    resp->body = NULL;
    resp->body_len = 1;
}

/* Counts an answered request and writes its access-log line. */
static void account(struct conn *c, const char *method, const char *url, int status, const char *route,
                    size_t bytes)
{
    atomic_store_explicit(&c->deadline_ns, 0, memory_order_relaxed);
    c->answered = 1;
    int64_t elapsed_ns = mono_ns() - c->start_ns;
    simt_metrics_observe(route ? route : "unmatched", status, elapsed_ns);
    if (simt_log_access_enabled())
        simt_log_access(method, url, status, (double)elapsed_ns / 1e9, bytes);
}

/* Queues resp (taking its body) with its headers, and accounts for it.
 * With a cache key, the finished response is handed to the cache. */
static enum MHD_Result answer(struct simt_server *srv, struct conn *c, struct MHD_Connection *mc,
                              const char *method, const char *url, struct simt_api_response *resp,
                              const struct simt_cache_key *key)
{
    struct MHD_Response *r;
    if (resp->body != NULL || resp->body_len == 0)
        r = MHD_create_response_from_buffer_with_free_callback(resp->body_len, resp->body, &free);
    else
        r = NULL;
    if (r == NULL) {
        free(resp->body);
        resp->body = NULL;
        resp->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        resp->body_len = sizeof oom_body - 1;
        resp->content_type = "application/json";
        resp->allow = NULL;
        key = NULL;
        /* a NULL free callback: static storage, never freed */
        r = MHD_create_response_from_buffer_with_free_callback(resp->body_len, (void *)(uintptr_t)oom_body,
                                                               NULL);
        if (r == NULL)
            return MHD_NO; /* closes the connection: nothing else is possible */
    }
    resp->body = NULL; /* owned by the MHD response now */
    int headers_ok =
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                resp->content_type ? resp->content_type : "application/json") == MHD_YES;
    if (resp->allow != NULL)
        headers_ok = headers_ok && MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, resp->allow) == MHD_YES;
    if (resp->status == MHD_HTTP_UNAUTHORIZED)
        headers_ok = headers_ok && MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                                           "Bearer realm=\"simtd\"") == MHD_YES;
    if (c->close_after || atomic_load_explicit(&srv->shutting_down, memory_order_relaxed)) {
        headers_ok = headers_ok && MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
        key = NULL;
    }
    int status = resp->status > 0 ? resp->status : MHD_HTTP_INTERNAL_SERVER_ERROR;
    enum MHD_Result queued = headers_ok ? MHD_queue_response(mc, (unsigned)status, r) : MHD_NO;
    if (key != NULL && queued == MHD_YES && status != MHD_HTTP_INTERNAL_SERVER_ERROR)
        simt_cache_store(srv->cache, key, r, status, resp->route, resp->body_len);
    else
        MHD_destroy_response(r);
    account(c, method, url, status, resp->route, resp->body_len);
    return queued;
}

/* An error the server itself decides (before or instead of the API). */
static enum MHD_Result answer_error(struct simt_server *srv, struct conn *c, struct MHD_Connection *mc,
                                    const char *method, const char *url, int status, const char *code,
                                    const char *message, const char *route)
{
    struct simt_api_response resp;
    memset(&resp, 0, sizeof resp);
    if (simt_api_error_response(status, code, message, NULL, &resp) != 0)
        make_oom(&resp);
    resp.status = status;
    resp.route = route;
    return answer(srv, c, mc, method, url, &resp, NULL);
}

/* A refusal of the request's framing: the error body, then the connection
 * is closed (what follows on it cannot be trusted to start a request). */
static enum MHD_Result answer_closing(struct simt_server *srv, struct conn *c, struct MHD_Connection *mc,
                                      const char *method, const char *url, int status, const char *code,
                                      const char *message)
{
    struct simt_api_response resp;
    memset(&resp, 0, sizeof resp);
    if (simt_api_error_response(status, code, message, NULL, &resp) != 0)
        make_oom(&resp);
    resp.status = status;
    resp.route = "refused";
    c->close_after = 1;
    return answer(srv, c, mc, method, url, &resp, NULL);
}

/* ---- the server's own routes ----
 * Matched before the API's. GET / (the dashboard) becomes one more row: a
 * function that fills resp from the dashboard's files. */

/* Fills resp; 0, or a negative SIMT_E* code (answered as a 500). */
typedef int (*local_serve_fn)(struct simt_server *srv, struct simt_api_response *resp);

struct local_route {
    const char *path;
    const char *method;
    local_serve_fn serve;
};

static SIMT_WARN_UNUSED int serve_metrics(struct simt_server *srv, struct simt_api_response *resp)
{
    (void)srv;
    int rc = simt_metrics_render(&resp->body, &resp->body_len);
    if (rc != SIMT_OK)
        return rc;
    resp->status = MHD_HTTP_OK;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
    return SIMT_OK;
}

static const struct local_route local_routes[] = {
    {"/metrics", "GET", serve_metrics},
};

/* Returns 1 and fills resp when the path is one of the server's own. */
static int serve_local(struct simt_server *srv, const char *method, const char *url,
                       struct simt_api_response *resp)
{
    for (size_t i = 0; i < sizeof local_routes / sizeof local_routes[0]; i++) {
        const struct local_route *lr = &local_routes[i];
        if (strcmp(url, lr->path) != 0)
            continue;
        memset(resp, 0, sizeof *resp);
        if (strcmp(method, lr->method) == 0 ||
            (strcmp(method, "HEAD") == 0 && strcmp(lr->method, "GET") == 0)) {
            if (lr->serve(srv, resp) != SIMT_OK)
                make_oom(resp);
        } else {
            char msg[96];
            snprintf(msg, sizeof msg, "%s allows %s only", lr->path, lr->method);
            if (simt_api_error_response(MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed", msg, NULL, resp) !=
                0)
                make_oom(resp);
            resp->status = MHD_HTTP_METHOD_NOT_ALLOWED;
            resp->allow = lr->method;
        }
        resp->route = lr->path;
        return 1;
    }
    return 0;
}

/* ---- the request ---- */

static struct simt_hwdb *db_acquire(struct simt_server *srv)
{
    pthread_mutex_lock(&srv->db_lock);
    struct simt_hwdb *db = srv->db;
    simt_hwdb_ref(db);
    pthread_mutex_unlock(&srv->db_lock);
    return db;
}

/* The dashboard's own files, served without a token: the page must load
 * before it can ask for one. Everything else it fetches is the API's. */
static int is_dashboard_file(const char *path)
{
    static const char *const files[] = {"/",         "/index.html", "/app.js",
                                        "/share.js", "/style.css",  "/static/chart.js"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strcmp(path, files[i]) == 0)
            return 1;
    return 0;
}

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* With --token-file, every route but /healthz and the dashboard's files
 * needs "Authorization: Bearer TOKEN" (the scheme in any case, spaces and
 * tabs around it and the token tolerated). The comparison takes the same
 * time wherever the first difference lies. Returns 1 when the request may
 * proceed. */
static int authorized(const struct simt_server *srv, struct MHD_Connection *mc, const char *path)
{
    if (srv->token_len == 0 || strcmp(path, "/healthz") == 0 || is_dashboard_file(path))
        return 1;
    const char *given = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    static const char scheme[] = "bearer";
    if (given == NULL)
        return 0;
    while (is_space(*given))
        given++;
    if (strncasecmp(given, scheme, sizeof scheme - 1) != 0 || !is_space(given[sizeof scheme - 1]))
        return 0;
    given += sizeof scheme - 1;
    while (is_space(*given))
        given++;
    size_t given_len = strlen(given);
    while (given_len > 0 && is_space(given[given_len - 1]))
        given_len--;
    unsigned char diff = (unsigned char)(given_len != srv->token_len);
    for (size_t i = 0; i < srv->token_len; i++)
        diff |= (unsigned char)(srv->token[i] ^ (i < given_len ? given[i] : 0));
    return diff == 0;
}

/* The routes whose work grows with the request (a list of GPUs, a range of
 * points): answered on the heavy queue's thread, never on an event thread. */
static int is_costly(const char *method, const char *path)
{
    return strcmp(method, "POST") == 0 &&
           (strcmp(path, "/v1/compare") == 0 || strcmp(path, "/v1/occupancy/sweep") == 0);
}

static void heavy_run(void *arg, int cancelled)
{
    struct conn *c = arg;
    struct simt_server *srv = c->srv;
    memset(&c->pending, 0, sizeof c->pending);
    if (cancelled) {
        if (simt_api_error_response(MHD_HTTP_SERVICE_UNAVAILABLE, "unavailable",
                                    "the server is shutting down", NULL, &c->pending) != 0)
            make_oom(&c->pending);
        c->pending.route = "refused";
        c->cacheable = 0;
    } else {
        struct simt_api_request req = {
            .method = c->key.method,
            .path = c->key.path,
            .content_type = c->key.content_type,
            .body = c->body,
            .body_len = c->body_len,
        };
        struct simt_hwdb *db = db_acquire(srv);
        int rc = simt_api_handle(db, &req, &c->pending);
        simt_hwdb_unref(db);
        if (rc != 0 && c->pending.body == NULL)
            make_oom(&c->pending);
    }
    c->heavy_done = 1;
    MHD_resume_connection(c->mc);
}

/* Suspends the connection and queues its request for the heavy thread; when
 * the queue is full, the request is answered 503 at once. */
static enum MHD_Result dispatch_heavy(struct simt_server *srv, struct conn *c, struct MHD_Connection *mc,
                                      const char *method, const char *url)
{
    c->mc = mc;
    c->srv = srv;
    c->heavy_done = 0;
    MHD_suspend_connection(mc);
    struct simt_heavy_job job = {.run = heavy_run, .arg = c};
    if (simt_heavy_submit(srv->heavy, job) == SIMT_OK)
        return MHD_YES;
    MHD_resume_connection(mc);
    (void)method;
    (void)url;
    memset(&c->pending, 0, sizeof c->pending);
    if (simt_api_error_response(MHD_HTTP_SERVICE_UNAVAILABLE, "unavailable",
                                "too many costly requests (/v1/compare, sweeps) are waiting: retry later",
                                NULL, &c->pending) != 0)
        make_oom(&c->pending);
    c->pending.route = "refused";
    c->cacheable = 0;
    c->heavy_done = 1;
    return MHD_YES;
}

static enum MHD_Result dispatch(struct simt_server *srv, struct conn *c, struct MHD_Connection *mc,
                                const char *method, const char *url)
{
    struct simt_api_response resp;
    if (serve_local(srv, method, url, &resp) || simt_static_serve(method, url, &resp))
        return answer(srv, c, mc, method, url, &resp, NULL);

    struct simt_api_request req = {
        .method = method,
        .path = url,
        .content_type = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE),
        .body = c->body,
        .body_len = c->body_len,
    };
    /* hashed before the database is taken: see cache.h */
    struct simt_cache_key key = {.method = method,
                                 .path = url,
                                 .content_type = req.content_type,
                                 .body = c->body,
                                 .body_len = c->body_len};
    int cacheable = simt_cache_key_hash(srv->cache, &key);
    if (cacheable) {
        enum MHD_Result queued = MHD_NO;
        int status = 0;
        const char *route = NULL;
        size_t bytes = 0;
        int hit = simt_cache_serve(srv->cache, &key, mc, &queued, &status, &route, &bytes);
        simt_metrics_cache_lookup(hit);
        if (hit) {
            account(c, method, url, status, route, bytes);
            return queued;
        }
    }
    if (is_costly(method, url)) {
        c->key = key;
        c->cacheable = cacheable;
        return dispatch_heavy(srv, c, mc, method, url);
    }
    memset(&resp, 0, sizeof resp);
    struct simt_hwdb *db = db_acquire(srv);
    int rc = simt_api_handle(db, &req, &resp);
    simt_hwdb_unref(db);
    if (rc != 0 && resp.body == NULL)
        make_oom(&resp);
    return answer(srv, c, mc, method, url, &resp, cacheable ? &key : NULL);
}

static void request_reset(struct conn *c)
{
    if (c->body_cap > KEEP_BODY_CAPACITY) {
        free(c->body);
        c->body = NULL;
        c->body_cap = 0;
    }
    c->body_len = 0;
    c->body_seen = 0;
    c->too_large = 0;
    c->answered = 0;
    c->close_after = 0;
    c->bad_target = 0;
    c->heavy_done = 0;
}

/* Appends a piece of body, or notes that the limit has been passed (and
 * from then on only counts). Returns 0, or SIMT_ENOMEM. */
static SIMT_WARN_UNUSED int body_append(struct simt_server *srv, struct conn *c, const char *data,
                                        size_t size)
{
    c->body_seen += size;
    if (c->too_large)
        return SIMT_OK;
    if (c->body_seen > srv->max_body_bytes) {
        c->too_large = 1;
        c->body_len = 0;
        return SIMT_OK;
    }
    size_t need = c->body_len + size;
    if (need > c->body_cap) {
        size_t cap = c->body_cap ? c->body_cap : FIRST_BODY_CAPACITY;
        while (cap < need)
            cap *= 2;
        if (cap > srv->max_body_bytes)
            cap = srv->max_body_bytes;
        char *grown = realloc(c->body, cap);
        if (grown == NULL)
            return SIMT_ENOMEM;
        c->body = grown;
        c->body_cap = cap;
    }
    memcpy(c->body + c->body_len, data, size);
    c->body_len = need;
    return SIMT_OK;
}

static struct conn *conn_of(struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? (struct conn *)info->socket_context : NULL;
}

/* The checks made once the headers are in, before any body is read: the
 * framing rules, the token, the declared body size. Returns MHD_YES with
 * nothing queued when the request may go on, else the refusal's result. */
static enum MHD_Result check_headers(struct simt_server *srv, struct conn *c, struct MHD_Connection *mc,
                                     const char *method, const char *url, const char *version)
{
    if (atomic_load_explicit(&srv->shutting_down, memory_order_relaxed))
        return answer_error(srv, c, mc, method, url, MHD_HTTP_SERVICE_UNAVAILABLE, "unavailable",
                            "the server is shutting down", "refused");
    struct simt_http_refusal refusal;
    if (c->bad_target)
        return answer_closing(srv, c, mc, method, url, MHD_HTTP_BAD_REQUEST, "bad_request",
                              "the request target holds a control character");
    if (simt_http_check_headers(mc, version, &refusal))
        return answer_closing(srv, c, mc, method, url, refusal.status, refusal.code, refusal.message);
    if (!authorized(srv, mc, url))
        return answer_error(srv, c, mc, method, url, MHD_HTTP_UNAUTHORIZED, "unauthenticated",
                            "this server requires 'Authorization: Bearer TOKEN' (simtd --token-file)",
                            "unmatched");
    const char *length = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length != NULL) {
        errno = 0;
        char *end = NULL;
        unsigned long long declared = strtoull(length, &end, 10);
        if (errno == ERANGE || (end != length && declared > srv->max_body_bytes)) {
            char msg[96];
            snprintf(msg, sizeof msg, "the body may be at most %zu bytes", srv->max_body_bytes);
            return answer_error(srv, c, mc, method, url, MHD_HTTP_CONTENT_TOO_LARGE, "too_large", msg,
                                "refused");
        }
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    struct simt_server *srv = cls;
    struct conn *c = *req_cls;
    url = simt_http_path_of(url); /* the absolute form is accepted */

    if (c == NULL) { /* first call: headers only */
        c = conn_of(mc);
        if (c == NULL)
            return MHD_NO; /* the connection record could not be allocated */
        *req_cls = c;
        c->start_ns = mono_ns();
        int bad_target = c->bad_target;
        request_reset(c);
        c->bad_target = bad_target;
        c->idle = 0;
        simt_metrics_inflight_add(1);
        return check_headers(srv, c, mc, method, url, version);
    }

    if (c->heavy_done) { /* resumed: the heavy thread's answer is ready */
        c->heavy_done = 0;
        return answer(srv, c, mc, method, url, &c->pending, c->cacheable ? &c->key : NULL);
    }
    if (c->answered) { /* answered early: whatever still comes is dropped */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size != 0) { /* a piece of body */
        int rc = body_append(srv, c, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return rc == SIMT_OK ? MHD_YES : MHD_NO;
    }

    /* the whole request has arrived */
    atomic_store_explicit(&c->deadline_ns, 0, memory_order_relaxed);
    if (c->too_large) {
        char msg[96];
        snprintf(msg, sizeof msg, "the body may be at most %zu bytes", srv->max_body_bytes);
        return answer_error(srv, c, mc, method, url, MHD_HTTP_CONTENT_TOO_LARGE, "too_large", msg, "refused");
    }
    return dispatch(srv, c, mc, method, url);
}

/* microhttpd hands the raw request target here before decoding it: a
 * control character, raw or percent-encoded, marks the request for a 400.
 * Returns NULL so that the request's own state starts empty. */
static void *on_raw_target(void *cls, const char *uri, struct MHD_Connection *mc)
{
    (void)cls;
    struct conn *c = conn_of(mc);
    if (c != NULL)
        c->bad_target = uri != NULL && simt_http_target_has_control(uri);
    return NULL;
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct simt_server *srv = cls;
    struct conn *c = *req_cls;
    (void)mc;
    if (c == NULL)
        return;
    *req_cls = NULL;
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
        simt_log(SIMT_LOG_DEBUG, "request ended early (microhttpd reason %d)", (int)toe);
    request_reset(c);
    int64_t now = mono_ns();
    atomic_store_explicit(&c->deadline_ns, now + srv->timeout_ns, memory_order_relaxed);
    pthread_mutex_lock(&srv->conns_lock);
    c->idle = 1;
    c->idle_since_ns = now;
    pthread_mutex_unlock(&srv->conns_lock);
    simt_metrics_inflight_add(-1);
}

/* ---- connections ---- */

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct simt_server *srv = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct conn *c = calloc(1, sizeof *c);
        *socket_context = c;
        simt_metrics_connections_add(1);
        if (c == NULL)
            return;
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        c->fd = info ? info->connect_fd : -1;
        atomic_store_explicit(&c->deadline_ns, mono_ns() + srv->timeout_ns, memory_order_relaxed);
        pthread_mutex_lock(&srv->conns_lock);
        c->idle = 1;
        c->idle_since_ns = mono_ns();
        c->next = srv->conns;
        if (srv->conns)
            srv->conns->prev = c;
        srv->conns = c;
        pthread_mutex_unlock(&srv->conns_lock);
        return;
    }
    /* MHD_CONNECTION_NOTIFY_CLOSED: microhttpd closes the socket after this
     * returns, so unlinking under the lock keeps the reaper off a reused fd. */
    struct conn *c = *socket_context;
    *socket_context = NULL;
    simt_metrics_connections_add(-1);
    if (c == NULL)
        return;
    pthread_mutex_lock(&srv->conns_lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&srv->conns_lock);
    free(c->body);
    free(c);
}

/* Near the limit, the connection idle the longest (between requests, or
 * none sent yet) is shut down to make room. Returns 1 when one was. */
static int cut_oldest_idle(struct simt_server *srv)
{
    pthread_mutex_lock(&srv->conns_lock);
    struct conn *oldest = NULL;
    for (struct conn *c = srv->conns; c != NULL; c = c->next)
        if (c->idle && !c->cut && c->fd >= 0 && (oldest == NULL || c->idle_since_ns < oldest->idle_since_ns))
            oldest = c;
    if (oldest != NULL) {
        shutdown(oldest->fd, SHUT_RDWR); /* microhttpd sees end-of-stream and closes it */
        oldest->cut = 1;
    }
    pthread_mutex_unlock(&srv->conns_lock);
    return oldest != NULL;
}

/* Refuses connections beyond --max-connections, counted over every worker
 * thread (microhttpd's own limit is per worker), once no idle connection
 * is left to close in their favour. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct simt_server *srv = cls;
    (void)addr;
    (void)addrlen;
    int64_t open_now = simt_metrics_connections();
    if (open_now < (int64_t)srv->max_connections)
        return MHD_YES;
    /* connections already cut are still counted until microhttpd closes them */
    if (open_now < (int64_t)srv->max_connections + 16 && cut_oldest_idle(srv))
        return MHD_YES;
    long long now_s = (long long)(mono_ns() / 1000000000LL);
    long long last = atomic_load_explicit(&srv->last_refusal_log_s, memory_order_relaxed);
    if (now_s != last && atomic_compare_exchange_strong(&srv->last_refusal_log_s, &last, now_s))
        simt_log(SIMT_LOG_WARN, "connection refused: %u connections open (--max-connections)",
                 srv->max_connections);
    return MHD_NO;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    /* a client that goes away is its own business, not the operator's: at
     * warn, a flood of aborted connections would flood the log */
    static const char *const client_noise[] = {
        "Connection was closed by remote side",
        "The connection was forcibly closed by remote peer",
        "Socket has been disconnected",
        "Connection socket is closed when reading request",
    };
    enum simt_log_level level = SIMT_LOG_WARN;
    for (size_t i = 0; i < sizeof client_noise / sizeof client_noise[0]; i++)
        if (strncmp(fmt, client_noise[i], strlen(client_noise[i])) == 0)
            level = SIMT_LOG_DEBUG;
    simt_log_v(level, fmt, ap);
}

int simt_server_reap(struct simt_server *srv)
{
    int64_t now = mono_ns();
    int cut = 0;
    pthread_mutex_lock(&srv->conns_lock);
    for (struct conn *c = srv->conns; c != NULL; c = c->next) {
        long long deadline = atomic_load_explicit(&c->deadline_ns, memory_order_relaxed);
        if (c->cut || deadline == 0 || now <= deadline || c->fd < 0)
            continue;
        /* microhttpd sees end-of-stream and closes the connection itself */
        shutdown(c->fd, SHUT_RDWR);
        c->cut = 1;
        cut++;
    }
    pthread_mutex_unlock(&srv->conns_lock);
    if (cut > 0)
        simt_log(SIMT_LOG_INFO, "closed %d connection(s): no complete request within %lld s", cut,
                 (long long)(srv->timeout_ns / 1000000000LL));
    return cut;
}

/* ---- life cycle ---- */

/* A numeric IPv4 or IPv6 address (brackets allowed) and a port; 0, or
 * SIMT_EINVAL. */
static SIMT_WARN_UNUSED int make_address(const char *text, unsigned port, struct sockaddr_storage *ss,
                                         int *is_ipv6)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *is_ipv6 = 0;
        return SIMT_OK;
    }
    const char *inner = text;
    char buf[64];
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']' && n - 2 < sizeof buf) {
        memcpy(buf, text + 1, n - 2);
        buf[n - 2] = '\0';
        inner = buf;
    }
    if (inet_pton(AF_INET6, inner, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *is_ipv6 = 1;
        return SIMT_OK;
    }
    return SIMT_EINVAL;
}

/* A server record for cfg holding db (not yet listening); NULL when out of memory. */
static struct simt_server *server_new(const struct simt_config *cfg, struct simt_hwdb *db)
{
    struct simt_server *srv = calloc(1, sizeof *srv);
    if (srv == NULL)
        return NULL;
    srv->max_body_bytes = cfg->max_body_bytes;
    if (cfg->token != NULL) {
        snprintf(srv->token, sizeof srv->token, "%s", cfg->token);
        srv->token_len = strlen(srv->token);
    }
    srv->max_connections = cfg->max_connections;
    srv->max_connections_per_ip = cfg->max_connections_per_ip;
    srv->timeout_ns = (int64_t)cfg->timeout_s * 1000000000LL;
    srv->db = db;
    pthread_mutex_init(&srv->db_lock, NULL);
    if (simt_cache_create(cfg->cache_entries, &srv->cache) != SIMT_OK) {
        pthread_mutex_destroy(&srv->db_lock);
        free(srv);
        return NULL;
    }
    if (simt_heavy_create(1, SIMT_HEAVY_QUEUE, &srv->heavy) != SIMT_OK) {
        simt_cache_destroy(srv->cache);
        pthread_mutex_destroy(&srv->db_lock);
        free(srv);
        return NULL;
    }
    pthread_mutex_init(&srv->conns_lock, NULL);
    return srv;
}

/* Starts microhttpd on srv; NULL when it cannot (its logger said why). */
static struct MHD_Daemon *daemon_start(struct simt_server *srv, const struct simt_config *cfg,
                                       struct sockaddr_storage *ss, int is_ipv6)
{
    /* poll(2), not epoll: measured as fast here (tests/bench/RESULTS.md), and
     * microhttpd 0.9.75's edge-triggered epoll loop misses a peer's close
     * that arrives together with the last bytes of an unfinished request, so
     * such connections linger until the timeout. ITC for MHD_quiesce_daemon. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME;
    if (is_ipv6)
        flags |= MHD_USE_IPv6;
    /* on_accept holds the limit over all workers and refuses (accepts and
     * closes) the connection past it. microhttpd's own limit, which it
     * divides among pool workers and enforces by no longer accepting (so the
     * client hangs in the backlog), is set above ours so it never binds. */
    unsigned mhd_limit = (cfg->max_connections + 1) * cfg->threads;
    /* Each connection's buffers (microhttpd's memory pool) are mapped for
     * it and unmapped when it closes: microhttpd 0.9.75 maps pools larger
     * than 32 KiB and takes smaller ones from malloc, where they land in the
     * accepting event thread's arena. Those arenas kept the most pools they
     * ever held at once (the share of a client's connections one thread
     * happened to accept), so resident memory crept up in steps of tens of
     * pools over millions of requests (tests/bench/RESULTS.md). */
    size_t pool_bytes = CONNECTION_POOL_BYTES;
    /* the pool size goes last: MHD_OPTION_END in its place ends the list */
    enum MHD_OPTION pool_option = cfg->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END;
    return MHD_start_daemon(
        flags, (uint16_t)cfg->port, &on_accept, srv, &on_request, srv,
        /* the logger first, so that option errors reach it too */
        MHD_OPTION_EXTERNAL_LOGGER, (MHD_LogCallback)&on_mhd_log, (void *)srv, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)ss, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)mhd_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        pool_bytes, MHD_OPTION_NOTIFY_COMPLETED, (MHD_RequestCompletedCallback)&on_completed, (void *)srv,
        MHD_OPTION_NOTIFY_CONNECTION, (MHD_NotifyConnectionCallback)&on_connection, (void *)srv,
        MHD_OPTION_URI_LOG_CALLBACK, &on_raw_target, (void *)srv, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned int)cfg->max_connections_per_ip, pool_option, (unsigned int)cfg->threads, MHD_OPTION_END);
}

int simt_server_start(const struct simt_config *cfg, struct simt_hwdb *db, struct simt_server **out,
                      struct simt_diag *diag)
{
    *out = NULL;
    struct sockaddr_storage ss;
    int is_ipv6 = 0;
    if (make_address(cfg->bind_addr, cfg->port, &ss, &is_ipv6) != SIMT_OK) {
        simt_hwdb_unref(db);
        return simt_diag_fail(diag, SIMT_EINVAL, "--bind",
                              "--bind '%s' is not a numeric IPv4 or IPv6 address", cfg->bind_addr);
    }
    struct simt_server *srv = server_new(cfg, db);
    if (srv == NULL) {
        simt_hwdb_unref(db);
        return simt_diag_fail(diag, SIMT_ENOMEM, "", "out of memory");
    }
    srv->daemon = daemon_start(srv, cfg, &ss, is_ipv6);
    if (srv->daemon == NULL) {
        simt_server_stop(srv);
        return simt_diag_fail(diag, SIMT_EIO, "--port", "cannot listen on %s port %u (see the log above)",
                              cfg->bind_addr, cfg->port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : cfg->port;
    *out = srv;
    return SIMT_OK;
}

unsigned simt_server_port(const struct simt_server *srv)
{
    return srv->port;
}

void simt_server_swap_db(struct simt_server *srv, struct simt_hwdb *db)
{
    pthread_mutex_lock(&srv->db_lock);
    struct simt_hwdb *old = srv->db;
    srv->db = db;
    pthread_mutex_unlock(&srv->db_lock);
    /* after the swap: see cache.h on why answers stored meanwhile are stale */
    simt_cache_invalidate(srv->cache);
    simt_hwdb_unref(old);
}

void simt_server_begin_shutdown(struct simt_server *srv)
{
    if (atomic_exchange(&srv->shutting_down, 1))
        return;
    if (srv->daemon != NULL) {
        MHD_socket listener = MHD_quiesce_daemon(srv->daemon);
        if (listener != MHD_INVALID_SOCKET) {
            /* A worker thread still polling the listener holds the socket
             * open past close() until it wakes, and the kernel would keep
             * completing handshakes meanwhile; shutdown() stops listening
             * at once, so new connections are refused from here on. */
            shutdown(listener, SHUT_RDWR);
            close(listener);
        }
    }
}

long simt_server_inflight(const struct simt_server *srv)
{
    (void)srv;
    return simt_metrics_inflight();
}

void simt_server_stop(struct simt_server *srv)
{
    if (srv == NULL)
        return;
    /* first: the heavy queue resumes every connection it holds suspended */
    simt_heavy_destroy(srv->heavy);
    if (srv->daemon != NULL)
        MHD_stop_daemon(srv->daemon);
    simt_cache_destroy(srv->cache);
    simt_hwdb_unref(srv->db);
    pthread_mutex_destroy(&srv->db_lock);
    pthread_mutex_destroy(&srv->conns_lock);
    free(srv);
}
