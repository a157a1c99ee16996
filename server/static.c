/* static.c - serves the dashboard's files and Debian's Chart.js from memory:
 * see static.h. Only the dashboard's own names and /static/chart.js are
 * answered, so no request can reach another file. */
#define _POSIX_C_SOURCE 200809L
#include "static.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simt_error.h"

#define CHARTJS_DEBIAN_PATH "/usr/share/javascript/chart.js/chart.min.js"
#define MAX_FILE_BYTES ((long)16 << 20)
#define MAX_FILES 8

/* what simt_static_load() read: the dashboard from $SIMTD_ASSETS, the chart */
static struct simt_static_file loaded[MAX_FILES];
static size_t loaded_count;
static const char *assets_dir; /* $SIMTD_ASSETS, or NULL: the built-in copy */
static struct simt_static_file chart;

/* Reads a whole regular file (opened without blocking) into a malloc'd
 * buffer: 0, or SIMT_EIO / SIMT_ENOMEM. */
static SIMT_WARN_UNUSED int read_file(const char *path, unsigned char **body, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return SIMT_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE_BYTES) {
        close(fd);
        return SIMT_EIO;
    }
    size_t size = (size_t)st.st_size;
    unsigned char *data = malloc(size + 1);
    if (data == NULL) {
        close(fd);
        return SIMT_ENOMEM;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    data[got] = '\0';
    *body = data;
    *len = got;
    return SIMT_OK;
}

void simt_static_load(void)
{
    const char *env = getenv("SIMTD_CHARTJS");
    unsigned char *data = NULL;
    size_t len = 0;
    if (read_file(env != NULL && env[0] != '\0' ? env : CHARTJS_DEBIAN_PATH, &data, &len) == SIMT_OK)
        chart = (struct simt_static_file){"chart.js", data, len};
    env = getenv("SIMTD_ASSETS");
    if (env == NULL || env[0] == '\0')
        return;
    assets_dir = env;
    for (size_t i = 0; i < simt_dashboard_file_count && loaded_count < MAX_FILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", env, simt_dashboard_files[i].name);
        if (read_file(path, &data, &len) == SIMT_OK)
            loaded[loaded_count++] = (struct simt_static_file){simt_dashboard_files[i].name, data, len};
    }
}

const char *simt_static_origin(void)
{
    return assets_dir != NULL ? assets_dir : "built in";
}

static const struct {
    const char *extension;
    const char *content_type;
} types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
};

static const char *content_type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].extension) == 0)
            return types[i].content_type;
    return NULL;
}

/* The dashboard file named `name`: from $SIMTD_ASSETS when set, else built
 * in; NULL when there is none. *known: the name is one of the dashboard's. */
static const struct simt_static_file *dashboard_file(const char *name, int *known)
{
    *known = 0;
    for (size_t i = 0; i < simt_dashboard_file_count; i++) {
        if (strcmp(simt_dashboard_files[i].name, name) != 0)
            continue;
        *known = 1;
        if (assets_dir == NULL)
            return &simt_dashboard_files[i];
        for (size_t k = 0; k < loaded_count; k++)
            if (strcmp(loaded[k].name, name) == 0)
                return &loaded[k];
        return NULL;
    }
    return NULL;
}

static void fail(struct simt_api_response *resp, int status, const char *code, const char *message,
                 const char *route)
{
    if (simt_api_error_response(status, code, message, NULL, resp) != 0) {
        memset(resp, 0, sizeof *resp);
        resp->status = 500;
    }
    resp->route = route;
}

int simt_static_serve(const char *method, const char *path, struct simt_api_response *resp)
{
    static const char route_page[] = "/", route_static[] = "/static/*";
    const struct simt_static_file *file = NULL;
    const char *route = route_page;
    const char *missing = "";

    if (strcmp(path, "/static/chart.js") == 0) {
        file = chart.data != NULL ? &chart : NULL;
        route = route_static;
        missing = "the chart library is not installed: apt-get install libjs-chart.js (then restart simtd)";
    } else {
        const char *name = strcmp(path, "/") == 0 ? "index.html" : path + 1;
        int known = 0;
        if (path[0] != '/' || strchr(name, '/') != NULL)
            return 0;
        file = dashboard_file(name, &known);
        if (!known)
            return 0; /* not a dashboard file: the API answers (404) */
        missing = "the dashboard's file was not found in $SIMTD_ASSETS";
    }

    memset(resp, 0, sizeof *resp);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        char message[160];
        snprintf(message, sizeof message, "%s allows GET only", path);
        fail(resp, 405, "method_not_allowed", message, route);
        resp->allow = "GET";
        return 1;
    }
    if (file == NULL) {
        fail(resp, 404, "not_found", missing, route);
        return 1;
    }
    resp->body = malloc(file->len ? file->len : 1);
    if (resp->body == NULL) {
        fail(resp, 500, "internal", "out of memory", route);
        return 1;
    }
    memcpy(resp->body, file->data, file->len);
    resp->body_len = file->len;
    resp->status = 200;
    resp->content_type =
        route == route_static ? "text/javascript; charset=utf-8" : content_type_of(file->name);
    resp->route = route;
    return 1;
}
