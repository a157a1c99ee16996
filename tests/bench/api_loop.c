/* api_loop.c - simt_api_handle in a loop, in-process, over varied request
 * bodies (one a line, from make_requests.py): the API's cost per request
 * without HTTP, and a steady workload for perf or callgrind.
 *
 *   api_loop PATH BODIES_FILE ITERATIONS [HWDB_DIR]
 *
 * Prints the nanoseconds per call (wall clock and the process's CPU time), the statuses seen and the
 * answer bytes; with API_LOOP_PRINT=1 in the environment, every answer too
 * (status and body, one a line), to compare two builds' answers. Not a
 * test: benchmarks are run by hand (tests/bench/). */
#define _POSIX_C_SOURCE 200809L
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "hwdb.h"

static double now_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The lines of path, each NUL-terminated; *count set. */
static char **read_lines(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char **lines = NULL;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **grown = realloc(lines, cap * sizeof *lines);
            if (grown == NULL)
                break;
            lines = grown;
        }
        lines[n++] = strdup(line);
    }
    free(line);
    fclose(f);
    *count = n;
    return lines;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: api_loop PATH BODIES_FILE ITERATIONS [HWDB_DIR]\n");
        return 2;
    }
    /* as simtd's main() does: large answers from the heap, kept */
    (void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 8 << 20);
    const char *dir = argc > 4 ? argv[4] : SIMT_SOURCE_DIR "/hwdb";
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    if (simt_hwdb_load_dir(dir, &db, &diag) != 0) {
        fprintf(stderr, "api_loop: %s: %s\n", dir, diag.message);
        return 1;
    }
    size_t count = 0;
    char **bodies = read_lines(argv[2], &count);
    if (bodies == NULL || count == 0) {
        fprintf(stderr, "api_loop: no bodies in %s\n", argv[2]);
        return 1;
    }
    long iterations = atol(argv[3]);
    long statuses[6] = {0};
    size_t bytes = 0;
    const char *print_env = getenv("API_LOOP_PRINT");
    int print = print_env != NULL && strcmp(print_env, "1") == 0;
    double start = now_s(CLOCK_MONOTONIC), start_cpu = now_s(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < iterations; i++) {
        const char *body = bodies[(size_t)i % count];
        struct simt_api_request req = {.method = "POST",
                                       .path = argv[1],
                                       .content_type = "application/json",
                                       .body = body,
                                       .body_len = strlen(body)};
        struct simt_api_response resp;
        if (simt_api_handle(db, &req, &resp) != 0) {
            fprintf(stderr, "api_loop: out of memory\n");
            return 1;
        }
        statuses[resp.status / 100 < 6 ? resp.status / 100 : 5]++;
        bytes += resp.body_len;
        if (print)
            printf("%d %.*s\n", resp.status, (int)resp.body_len, resp.body);
        simt_api_response_clear(&resp);
    }
    double elapsed = now_s(CLOCK_MONOTONIC) - start, cpu = now_s(CLOCK_PROCESS_CPUTIME_ID) - start_cpu;
    printf("%s: %ld calls over %zu bodies, %.0f ns per call (%.0f ns of CPU), %.0f answer bytes per call; "
           "2xx %ld, 4xx %ld, 5xx %ld\n",
           argv[1], iterations, count, elapsed / (double)iterations * 1e9, cpu / (double)iterations * 1e9,
           (double)bytes / (double)iterations, statuses[2], statuses[4], statuses[5]);
    for (size_t i = 0; i < count; i++)
        free(bodies[i]);
    free(bodies);
    simt_hwdb_unref(db);
    return 0;
}
