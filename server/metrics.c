/* metrics.c - fixed tables of relaxed atomics, rendered on demand in the
 * Prometheus text format. Counters only grow; the histogram's buckets are
 * stored per bucket and made cumulative when rendered. A request's counters
 * (a route's status, bucket, count and time; requests in flight) are kept
 * in shards, one cache line apart, a thread adding to its own: the event
 * threads never write the same line. Rendering adds the shards up. */
#define _GNU_SOURCE
#include "metrics.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#ifndef SIMT_VERSION
#define SIMT_VERSION "unknown"
#endif
#define SIMT_METRICS_VERSION SIMT_VERSION
#ifdef __clang__
#define SIMT_METRICS_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define SIMT_METRICS_COMPILER "gcc " __VERSION__
#else
#define SIMT_METRICS_COMPILER "unknown"
#endif

#define MAX_ROUTES 64
#define ROUTE_NAME_MAX 96

/* Statuses with their own counter; anything else counts under "other". */
static const int known_statuses[] = {200, 201, 204, 400, 401, 403, 404, 405,
                                     408, 413, 415, 422, 429, 500, 501, 503};
#define STATUS_SLOTS (sizeof known_statuses / sizeof known_statuses[0] + 1)

/* Bucket upper bounds in nanoseconds and as Prometheus writes them. */
static const int64_t bucket_bounds_ns[] = {50000,     100000,    250000,    500000,   1000000,
                                           2500000,   5000000,   10000000,  25000000, 50000000,
                                           100000000, 250000000, 1000000000};
static const char *const bucket_labels[] = {"5e-05",  "0.0001", "0.00025", "0.0005", "0.001",
                                            "0.0025", "0.005",  "0.01",    "0.025",  "0.05",
                                            "0.1",    "0.25",   "1"};
#define BUCKETS (sizeof bucket_bounds_ns / sizeof bucket_bounds_ns[0])

/* Threads are given shards in turn; more threads than shards share. */
#define SHARDS 8

struct route_counters {
    atomic_ullong by_status[STATUS_SLOTS];
    atomic_ullong buckets[BUCKETS + 1]; /* last one: above every bound */
    atomic_ullong count;
    atomic_ullong sum_ns;
} __attribute__((aligned(64)));

struct route_slot {
    char name[ROUTE_NAME_MAX];
    _Atomic(const char *) alias; /* a pointer seen for this name: fast lookup */
    struct route_counters shard[SHARDS];
};

static struct route_slot routes[MAX_ROUTES + 1]; /* the extra one is "other" */
static atomic_size_t route_count;
static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;

static atomic_ullong reloads_ok;
static atomic_ullong reloads_failed;
static atomic_ullong cache_hits;
static atomic_ullong cache_misses;
static atomic_llong connections;
static atomic_size_t gpus;
static struct {
    atomic_long value;
} __attribute__((aligned(64))) inflight[SHARDS];

static atomic_uint next_shard;
static _Thread_local unsigned thread_shard = SHARDS; /* SHARDS: none yet */

/* The calling thread's shard. */
static unsigned my_shard(void)
{
    if (thread_shard == SHARDS)
        thread_shard = atomic_fetch_add_explicit(&next_shard, 1, memory_order_relaxed) % SHARDS;
    return thread_shard;
}

/* "other": the one slot past the table, for routes that do not fit */
static struct route_slot *other_slot(void)
{
    return &routes[MAX_ROUTES];
}

static struct route_slot *find_or_add(const char *route)
{
    size_t n = atomic_load_explicit(&route_count, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (atomic_load_explicit(&routes[i].alias, memory_order_relaxed) == route)
            return &routes[i];
    for (size_t i = 0; i < n; i++) {
        if (strcmp(routes[i].name, route) == 0) {
            const char *expected = NULL;
            atomic_compare_exchange_strong(&routes[i].alias, &expected, route);
            return &routes[i];
        }
    }
    pthread_mutex_lock(&register_lock);
    struct route_slot *slot = NULL;
    n = atomic_load_explicit(&route_count, memory_order_acquire);
    for (size_t i = 0; i < n && slot == NULL; i++)
        if (strcmp(routes[i].name, route) == 0)
            slot = &routes[i];
    if (slot == NULL) {
        if (n < MAX_ROUTES && strlen(route) < ROUTE_NAME_MAX) {
            slot = &routes[n];
            snprintf(slot->name, sizeof slot->name, "%s", route);
            atomic_store_explicit(&slot->alias, route, memory_order_relaxed);
            atomic_store_explicit(&route_count, n + 1, memory_order_release);
        } else {
            slot = other_slot();
            if (slot->name[0] == '\0')
                snprintf(slot->name, sizeof slot->name, "other");
        }
    }
    pthread_mutex_unlock(&register_lock);
    return slot;
}

void simt_metrics_add_route(const char *pattern)
{
    (void)find_or_add(pattern);
}

static size_t status_slot(int status)
{
    for (size_t i = 0; i < STATUS_SLOTS - 1; i++)
        if (known_statuses[i] == status)
            return i;
    return STATUS_SLOTS - 1;
}

void simt_metrics_observe(const char *route, int status, int64_t duration_ns)
{
    struct route_counters *c = &find_or_add(route ? route : "unmatched")->shard[my_shard()];
    atomic_fetch_add_explicit(&c->by_status[status_slot(status)], 1, memory_order_relaxed);
    size_t b = 0;
    while (b < BUCKETS && duration_ns > bucket_bounds_ns[b])
        b++;
    atomic_fetch_add_explicit(&c->buckets[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->sum_ns, duration_ns > 0 ? (unsigned long long)duration_ns : 0ULL,
                              memory_order_relaxed);
}

void simt_metrics_reload(int succeeded)
{
    atomic_fetch_add_explicit(succeeded ? &reloads_ok : &reloads_failed, 1, memory_order_relaxed);
}

void simt_metrics_cache_lookup(int hit)
{
    atomic_fetch_add_explicit(hit ? &cache_hits : &cache_misses, 1, memory_order_relaxed);
}

void simt_metrics_connections_add(int delta)
{
    atomic_fetch_add_explicit(&connections, delta, memory_order_relaxed);
}

int64_t simt_metrics_connections(void)
{
    return atomic_load_explicit(&connections, memory_order_relaxed);
}

void simt_metrics_set_gpus(size_t count)
{
    atomic_store_explicit(&gpus, count, memory_order_relaxed);
}

void simt_metrics_inflight_add(int delta)
{
    atomic_fetch_add_explicit(&inflight[my_shard()].value, delta, memory_order_relaxed);
}

long simt_metrics_inflight(void)
{
    /* a request may begin on one thread and end on another: only the sum
     * means anything */
    long sum = 0;
    for (unsigned i = 0; i < SHARDS; i++)
        sum += atomic_load_explicit(&inflight[i].value, memory_order_relaxed);
    return sum;
}

/* A route's counter summed over the shards; `counter` is its offset in
 * struct route_counters. */
static unsigned long long route_sum(const struct route_slot *slot, size_t counter)
{
    unsigned long long sum = 0;
    for (unsigned i = 0; i < SHARDS; i++) {
        const atomic_ullong *at =
            (const atomic_ullong *)(const void *)((const char *)&slot->shard[i] + counter);
        sum += atomic_load_explicit(at, memory_order_relaxed);
    }
    return sum;
}

/* ---- rendering ---- */

struct text {
    char *buf;
    size_t len, cap;
    int failed;
};

static void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(struct text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap * 2 + (size_t)n;
        char *grown = realloc(t->buf, cap);
        if (grown == NULL) {
            t->failed = 1;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
}

/* Route names come from the api's static table, never from a client, but
 * escape them as the format requires anyway. */
static void label_value(char *out, size_t out_size, const char *value)
{
    size_t j = 0;
    for (size_t i = 0; value[i] != '\0' && j + 3 < out_size; i++) {
        char c = value[i];
        if (c == '\\' || c == '"') {
            out[j++] = '\\';
            out[j++] = c;
        } else if (c == '\n') {
            out[j++] = '\\';
            out[j++] = 'n';
        } else {
            out[j++] = c;
        }
    }
    out[j] = '\0';
}

static void render_route(struct text *t, const struct route_slot *slot, int part)
{
    char name[2 * ROUTE_NAME_MAX];
    label_value(name, sizeof name, slot->name);
    if (part == 0) {
        for (size_t s = 0; s < STATUS_SLOTS; s++) {
            unsigned long long v =
                route_sum(slot, offsetof(struct route_counters, by_status) + s * sizeof(atomic_ullong));
            if (v == 0)
                continue;
            if (s < STATUS_SLOTS - 1)
                text_printf(t, "simtd_requests_total{route=\"%s\",status=\"%d\"} %llu\n", name,
                            known_statuses[s], v);
            else
                text_printf(t, "simtd_requests_total{route=\"%s\",status=\"other\"} %llu\n", name, v);
        }
        return;
    }
    unsigned long long count = route_sum(slot, offsetof(struct route_counters, count));
    if (count == 0)
        return;
    unsigned long long cumulative = 0;
    for (size_t b = 0; b < BUCKETS; b++) {
        cumulative += route_sum(slot, offsetof(struct route_counters, buckets) + b * sizeof(atomic_ullong));
        text_printf(t, "simtd_request_duration_seconds_bucket{route=\"%s\",le=\"%s\"} %llu\n", name,
                    bucket_labels[b], cumulative);
    }
    cumulative += route_sum(slot, offsetof(struct route_counters, buckets) + BUCKETS * sizeof(atomic_ullong));
    text_printf(t, "simtd_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n", name,
                cumulative);
    unsigned long long sum_ns = route_sum(slot, offsetof(struct route_counters, sum_ns));
    text_printf(t, "simtd_request_duration_seconds_sum{route=\"%s\"} %.9f\n", name, (double)sum_ns / 1e9);
    /* the count is the +Inf bucket, so the two always agree */
    text_printf(t, "simtd_request_duration_seconds_count{route=\"%s\"} %llu\n", name, cumulative);
}

/* The process's own figures, the names Prometheus client libraries use:
 * resident memory and CPU seconds from /proc/self/stat, open descriptors
 * from /proc/self/fd, the start time from the boot time and the process's
 * start tick. A figure that cannot be read is left out. */
static void render_process(struct text *t)
{
    long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/stat", "r");
    unsigned long utime = 0, stime = 0;
    unsigned long long start_ticks = 0;
    long rss_pages = 0;
    int have_stat = 0;
    if (f != NULL) {
        char line[1024];
        char *close_paren = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
        /* after "pid (comm)": field 3 is the state; utime is 14, stime 15, starttime 22, rss 24 */
        have_stat = close_paren != NULL &&
                    sscanf(close_paren + 2,
                           "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d "
                           "%*d %*d %llu %*u %ld",
                           &utime, &stime, &start_ticks, &rss_pages) == 4;
        fclose(f);
    }
    double boot_s = 0;
    f = fopen("/proc/stat", "r");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "btime %lf", &boot_s) == 1)
                break;
        fclose(f);
    }
    if (have_stat && ticks > 0) {
        text_printf(t,
                    "# HELP process_cpu_seconds_total User and system CPU time spent, seconds.\n"
                    "# TYPE process_cpu_seconds_total counter\n"
                    "process_cpu_seconds_total %.2f\n"
                    "# HELP process_resident_memory_bytes Resident memory size, bytes.\n"
                    "# TYPE process_resident_memory_bytes gauge\n"
                    "process_resident_memory_bytes %lld\n",
                    (double)(utime + stime) / (double)ticks, (long long)rss_pages * page);
        if (boot_s > 0)
            text_printf(t,
                        "# HELP process_start_time_seconds Start time of the process since the epoch, "
                        "seconds.\n"
                        "# TYPE process_start_time_seconds gauge\n"
                        "process_start_time_seconds %.2f\n",
                        boot_s + (double)start_ticks / (double)ticks);
    }
    DIR *fds = opendir("/proc/self/fd");
    if (fds != NULL) {
        long open_fds = -1; /* the directory's own descriptor is not counted */
        while (readdir(fds) != NULL)
            open_fds++;
        closedir(fds);
        text_printf(t,
                    "# HELP process_open_fds Open file descriptors.\n"
                    "# TYPE process_open_fds gauge\n"
                    "process_open_fds %ld\n",
                    open_fds - 2); /* "." and ".." */
    }
    text_printf(t,
                "# HELP simtd_build_info The build being run: always 1, its version and compiler as labels.\n"
                "# TYPE simtd_build_info gauge\n"
                "simtd_build_info{version=\"%s\",compiler=\"%s\"} 1\n",
                SIMT_METRICS_VERSION, SIMT_METRICS_COMPILER);
}

int simt_metrics_render(char **out, size_t *out_len)
{
    struct text t = {.buf = malloc(8192), .len = 0, .cap = 8192, .failed = 0};
    if (t.buf == NULL)
        return SIMT_ENOMEM;
    size_t n = atomic_load_explicit(&route_count, memory_order_acquire);

    text_printf(&t, "# HELP simtd_requests_total HTTP requests answered, by route pattern and status.\n"
                    "# TYPE simtd_requests_total counter\n");
    for (size_t i = 0; i < n; i++)
        render_route(&t, &routes[i], 0);
    render_route(&t, other_slot(), 0);

    text_printf(&t, "# HELP simtd_request_duration_seconds Time from request headers to queued answer.\n"
                    "# TYPE simtd_request_duration_seconds histogram\n");
    for (size_t i = 0; i < n; i++)
        render_route(&t, &routes[i], 1);
    render_route(&t, other_slot(), 1);

    text_printf(&t,
                "# HELP simtd_hwdb_reloads_total Hardware database reloads (SIGHUP), by result.\n"
                "# TYPE simtd_hwdb_reloads_total counter\n"
                "simtd_hwdb_reloads_total{result=\"success\"} %llu\n"
                "simtd_hwdb_reloads_total{result=\"failure\"} %llu\n"
                "# HELP simtd_cache_lookups_total Answer-cache lookups, by result.\n"
                "# TYPE simtd_cache_lookups_total counter\n"
                "simtd_cache_lookups_total{result=\"hit\"} %llu\n"
                "simtd_cache_lookups_total{result=\"miss\"} %llu\n"
                "# HELP simtd_hwdb_gpus GPUs in the database being served.\n"
                "# TYPE simtd_hwdb_gpus gauge\n"
                "simtd_hwdb_gpus %zu\n"
                "# HELP simtd_connections Open client connections.\n"
                "# TYPE simtd_connections gauge\n"
                "simtd_connections %lld\n"
                "# HELP simtd_requests_in_flight Requests begun and not yet answered, this one included.\n"
                "# TYPE simtd_requests_in_flight gauge\n"
                "simtd_requests_in_flight %ld\n",
                atomic_load(&reloads_ok), atomic_load(&reloads_failed), atomic_load(&cache_hits),
                atomic_load(&cache_misses), atomic_load(&gpus), (long long)atomic_load(&connections),
                simt_metrics_inflight());
    render_process(&t);
    if (t.failed) {
        free(t.buf);
        return SIMT_ENOMEM;
    }
    *out = t.buf;
    *out_len = t.len;
    return SIMT_OK;
}
