/* main.c - simtd's entry point: flags, the first database load, the server,
 * and the control loop. Signals arrive through a signalfd read by that loop
 * (they are blocked in every thread), so SIGHUP's reload and SIGTERM's
 * shutdown run as ordinary code, never inside a signal handler.
 *
 * Exit status: 0 after a clean shutdown or --help/--version, 1 when the
 * database does not load or the port cannot be bound, 2 for bad flags. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "cost.h"
#include "config.h"
#include "hwdb.h"
#include "log.h"
#include "metrics.h"
#include "server.h"
#include "static.h"

#define TICK_MS 200

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "file:line:column: message" with the file's full path. The loader's own
 * message may already start with a (shorter) location; that part is
 * replaced, not repeated. Without a line: "file: message". */
static void format_diag(const struct simt_diag *diag, const char *dir, char *out, size_t size)
{
    const char *file = diag->file[0] ? diag->file : dir;
    const char *message = diag->message[0] ? diag->message : "cannot be loaded";
    if (diag->line > 0) {
        char tag[48];
        snprintf(tag, sizeof tag, ":%d:%d: ", diag->line, diag->column);
        const char *after = strstr(message, tag);
        const char *rest = after ? after + strlen(tag) : message;
        if (after == NULL && diag->field[0] != '\0' && strstr(message, diag->field) == NULL)
            snprintf(out, size, "%s:%d:%d: %s: %s", file, diag->line, diag->column, diag->field, rest);
        else
            snprintf(out, size, "%s:%d:%d: %s", file, diag->line, diag->column, rest);
        return;
    }
    const char *slash = strrchr(file, '/');
    const char *base = slash && slash[1] ? slash + 1 : file;
    if (strstr(message, base) != NULL)
        snprintf(out, size, "%s", message);
    else
        snprintf(out, size, "%s: %s", file, message);
}

/* Lets the process hold the connections it is configured for. */
static void raise_fd_limit(unsigned max_connections)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = (rlim_t)max_connections + 64;
    if (rl.rlim_cur >= want)
        return;
    rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want) ? want : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
        simt_log(SIMT_LOG_WARN, "open-file limit %llu is below --max-connections %u plus headroom",
                 (unsigned long long)rl.rlim_cur, max_connections);
}

/* A reload runs on its own thread, so that the control loop keeps reading
 * signals (SIGTERM never waits on a database directory that traps the
 * loader). The loop collects the result; one that takes longer than
 * RELOAD_LIMIT_MS is abandoned (its thread finishes alone and its result is
 * dropped), the old database serving meanwhile. */
#define RELOAD_LIMIT_MS 10000

struct reload_job {
    const char *dir;
    atomic_int done; /* the thread has filled db or diag */
    int abandoned;   /* (thread-side) drop the result when done */
    pthread_mutex_t lock;
    int64_t started_ms;
    int rc;
    struct simt_hwdb *db;
    struct simt_diag diag;
};

static void *reload_thread(void *arg)
{
    struct reload_job *job = arg;
    job->rc = simt_hwdb_load_dir(job->dir, &job->db, &job->diag);
    pthread_mutex_lock(&job->lock);
    int abandoned = job->abandoned;
    atomic_store(&job->done, 1);
    pthread_mutex_unlock(&job->lock);
    if (abandoned) { /* nobody waits for it any more */
        if (job->rc == 0)
            simt_hwdb_unref(job->db);
        pthread_mutex_destroy(&job->lock);
        free(job);
    }
    return NULL;
}

/* Starts a reload; NULL when no thread could be made (logged). */
static struct reload_job *reload_start(const char *dir)
{
    struct reload_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return NULL;
    job->dir = dir;
    job->started_ms = mono_ms();
    pthread_mutex_init(&job->lock, NULL);
    pthread_t thread;
    if (pthread_create(&thread, NULL, reload_thread, job) != 0) {
        pthread_mutex_destroy(&job->lock);
        free(job);
        simt_log(SIMT_LOG_ERROR, "reload failed: no thread (still serving the previous database)");
        return NULL;
    }
    pthread_detach(thread);
    return job;
}

/* Leaves a reload to finish alone; its result is dropped. */
static void reload_abandon(struct reload_job *job)
{
    pthread_mutex_lock(&job->lock);
    int done = atomic_load(&job->done);
    job->abandoned = 1;
    pthread_mutex_unlock(&job->lock);
    if (done) { /* the thread has let go of job already */
        if (job->rc == 0)
            simt_hwdb_unref(job->db);
        pthread_mutex_destroy(&job->lock);
        free(job);
    }
}

/* Collects a finished reload (swapping its database in), abandons one over
 * its time; returns job while it is still running, else NULL. */
static struct reload_job *reload_poll(struct simt_server *srv, struct reload_job *job)
{
    if (job == NULL)
        return NULL;
    if (!atomic_load(&job->done)) {
        if (mono_ms() - job->started_ms <= RELOAD_LIMIT_MS)
            return job;
        simt_metrics_reload(0);
        simt_log(SIMT_LOG_ERROR, "reload failed: %s took over %d ms (still serving the previous database)",
                 job->dir, RELOAD_LIMIT_MS);
        reload_abandon(job);
        return NULL;
    }
    if (job->rc != 0) {
        char where[1024];
        format_diag(&job->diag, job->dir, where, sizeof where);
        simt_metrics_reload(0);
        simt_log(SIMT_LOG_ERROR, "reload failed: %s (still serving the previous database)", where);
    } else {
        size_t count = simt_hwdb_count(job->db);
        simt_server_swap_db(srv, job->db);
        simt_metrics_reload(1);
        simt_metrics_set_gpus(count);
        simt_log(SIMT_LOG_INFO, "reloaded the hardware database from %s: %zu GPUs in %lld ms", job->dir,
                 count, (long long)(mono_ms() - job->started_ms));
    }
    pthread_mutex_destroy(&job->lock);
    free(job);
    return NULL;
}

/* Reads every pending signal; returns the last terminating one seen (0 if
 * none) and counts hang-ups in *hangups. */
static int drain_signals(int sfd, int *hangups)
{
    int term = 0;
    struct signalfd_siginfo si;
    for (;;) {
        ssize_t n = read(sfd, &si, sizeof si);
        if (n != (ssize_t)sizeof si)
            break;
        if (si.ssi_signo == SIGHUP)
            (*hangups)++;
        else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
            term = (int)si.ssi_signo;
    }
    return term;
}

static int wait_signal(int sfd, int timeout_ms)
{
    struct pollfd pfd = {.fd = sfd, .events = POLLIN, .revents = 0};
    int rc = poll(&pfd, 1, timeout_ms);
    return rc > 0 && (pfd.revents & POLLIN);
}

static int run(struct simt_server *srv, int sfd, const char *dir, unsigned timeout_s)
{
    int term = 0;
    struct reload_job *reloading = NULL;
    int reload_again = 0; /* a SIGHUP came during a reload */
    while (term == 0) {
        if (wait_signal(sfd, reloading ? 20 : TICK_MS)) {
            int hangups = 0;
            term = drain_signals(sfd, &hangups);
            if (hangups > 0 && term == 0)
                reload_again = 1;
        }
        reloading = reload_poll(srv, reloading);
        if (reload_again && reloading == NULL && term == 0) {
            reload_again = 0;
            reloading = reload_start(dir);
        }
        simt_server_reap(srv);
    }
    if (reloading != NULL)
        reload_abandon(reloading); /* shutdown never waits on it */

    /* stop first, then tell: once the line is out, new requests get 503 */
    simt_server_begin_shutdown(srv);
    simt_log(SIMT_LOG_INFO, "shutting down on %s: %ld request(s) in flight", strsignal(term),
             simt_server_inflight(srv));
    /* requests in flight are cut by the reaper at their deadline anyway */
    int64_t give_up_ms = mono_ms() + (int64_t)timeout_s * 1000 + 2000;
    int forced = 0;
    while (simt_server_inflight(srv) > 0 && mono_ms() < give_up_ms && !forced) {
        if (wait_signal(sfd, 20)) {
            int hangups = 0;
            if (drain_signals(sfd, &hangups) != 0)
                forced = 1; /* a second SIGTERM/SIGINT: stop now */
        }
        simt_server_reap(srv);
    }
    long left = simt_server_inflight(srv);
    if (left > 0)
        simt_log(SIMT_LOG_WARN, "stopping with %ld request(s) unfinished%s", left,
                 forced ? " (second signal)" : "");
    simt_server_stop(srv);
    simt_log(SIMT_LOG_INFO, "stopped");
    return 0;
}

/* Reads the bearer token: the file's first line, without trailing
 * whitespace; 16..SIMT_MAX_TOKEN_BYTES printable characters. 0, or SIMT_EIO
 * (cannot be opened) or SIMT_EINVAL (not a token), diag->message saying why. */
static SIMT_WARN_UNUSED int read_token(const char *path, char *token, size_t size, struct simt_diag *diag)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return simt_diag_fail(diag, SIMT_EIO, "--token-file", "%s", strerror(errno));
    char *line = fgets(token, (int)size, f);
    fclose(f);
    size_t n = line != NULL ? strlen(token) : 0;
    while (n > 0 &&
           (token[n - 1] == '\n' || token[n - 1] == '\r' || token[n - 1] == ' ' || token[n - 1] == '\t'))
        token[--n] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (token[i] <= ' ' || token[i] > '~')
            return simt_diag_fail(diag, SIMT_EINVAL, "--token-file",
                                  "the token must be printable ASCII without spaces");
    }
    if (n < 16 || n > SIMT_MAX_TOKEN_BYTES)
        return simt_diag_fail(diag, SIMT_EINVAL, "--token-file",
                              "the token must be 16..%d characters on the first line, found %zu",
                              SIMT_MAX_TOKEN_BYTES, n);
    return SIMT_OK;
}

/* Blocks the signals simtd handles and opens a signalfd for them; call it
 * before any thread exists, so that every thread inherits the mask and only
 * the signalfd sees them. Also ignores SIGPIPE. 0, or SIMT_EIO with
 * diag->message "sigprocmask: ..." or "signalfd: ...". */
static SIMT_WARN_UNUSED int signals_open(int *sfd, struct simt_diag *diag)
{
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    if (sigprocmask(SIG_BLOCK, &handled, NULL) != 0)
        return simt_diag_fail(diag, SIMT_EIO, "", "sigprocmask: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    *sfd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (*sfd < 0)
        return simt_diag_fail(diag, SIMT_EIO, "", "signalfd: %s", strerror(errno));
    return SIMT_OK;
}

/* Lists every route in /metrics from the start, the API's and the server's own. */
static void metrics_add_routes(void)
{
    for (size_t i = 0; i < simt_api_route_count(); i++) {
        const char *method = NULL, *pattern = NULL;
        if (simt_api_route_at(i, &method, &pattern) == 0)
            simt_metrics_add_route(pattern);
    }
    simt_metrics_add_route("/metrics");
}

/* A sweep's answer (0.1 to 1.6 MB) would otherwise be mapped and unmapped
 * on every request, its pages faulted in each time (a third of a sweep's
 * time on a VM): large blocks come from the heap, and the heap keeps what
 * it freed up to a few MB instead of giving it back at once. */
static void malloc_keep_large_blocks(void)
{
    (void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 8 << 20);
}

int main(int argc, char **argv)
{
    malloc_keep_large_blocks();
    struct simt_config cfg;
    enum simt_config_action action = SIMT_CONFIG_RUN;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    if (simt_config_parse(argc, argv, &cfg, &action, &diag) != SIMT_OK) {
        fprintf(stderr, "simtd: %s\n\n", diag.message);
        simt_config_usage(stderr);
        return 2;
    }
    switch (action) {
    case SIMT_CONFIG_HELP:
        simt_config_usage(stdout);
        return 0;
    case SIMT_CONFIG_VERSION:
        printf("simtd %s\n", simt_config_version());
        return 0;
    case SIMT_CONFIG_RUN:
        break;
    }
    simt_log_configure(cfg.log_level, cfg.access_log);
    static char token[SIMT_MAX_TOKEN_BYTES + 2];
    if (cfg.token_file != NULL) {
        if (read_token(cfg.token_file, token, sizeof token, &diag) != SIMT_OK) {
            fprintf(stderr, "simtd: --token-file %s: %s\n", cfg.token_file, diag.message);
            return 1;
        }
        cfg.token = token;
    }
    const char *dir = cfg.hwdb_dir ? cfg.hwdb_dir : simt_config_default_hwdb();

    struct simt_hwdb *db = NULL;
    memset(&diag, 0, sizeof diag);
    if (simt_hwdb_load_dir(dir, &db, &diag) != 0) {
        char where[1024];
        format_diag(&diag, dir, where, sizeof where);
        fprintf(stderr, "simtd: cannot load the hardware database from %s: %s\n", dir, where);
        return 1;
    }
    size_t gpu_count = simt_hwdb_count(db);

    int sfd = -1;
    if (signals_open(&sfd, &diag) != SIMT_OK) {
        fprintf(stderr, "simtd: %s\n", diag.message);
        simt_hwdb_unref(db);
        return 1;
    }
    raise_fd_limit(cfg.max_connections);
    simt_api_set_max_cost(cfg.max_request_cost);
    simt_static_load();
    metrics_add_routes();
    simt_metrics_set_gpus(gpu_count);

    struct simt_server *srv = NULL;
    if (simt_server_start(&cfg, db, &srv, &diag) != SIMT_OK) {
        fprintf(stderr, "simtd: %s\n", diag.message);
        close(sfd);
        return 1;
    }
    int v6 = strchr(cfg.bind_addr, ':') != NULL && cfg.bind_addr[0] != '[';
    printf("simtd: listening on http://%s%s%s:%u\n", v6 ? "[" : "", cfg.bind_addr, v6 ? "]" : "",
           simt_server_port(srv));
    fflush(stdout);
    simt_log(SIMT_LOG_INFO,
             "simtd %s listening on %s port %u: %zu GPUs from %s, %u thread(s), body limit %zu bytes",
             simt_config_version(), cfg.bind_addr, simt_server_port(srv), gpu_count, dir, cfg.threads,
             cfg.max_body_bytes);

    int rc = run(srv, sfd, dir, cfg.timeout_s);
    close(sfd);
    return rc;
}
