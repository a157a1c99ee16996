/* static.c - serves the dashboard's files and Debian's Chart.js. Only plain
 * file names from one directory (no slash, no leading dot, a known
 * extension) are ever opened, so no request can reach another file. */
#define _POSIX_C_SOURCE 200809L
#include "static.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "simt_error.h"

#define CHARTJS_DEBIAN_PATH "/usr/share/javascript/chart.js/chart.min.js"
#define MAX_FILE_BYTES ((long)16 << 20)

static const char *assets_override;

void simt_static_set_dir(const char *dir)
{
    assets_override = dir;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "<x>/hwdb" -> "<x>/<replacement>" into buf; "" when the form differs. */
static void sibling_of_hwdb(const char *hwdb, const char *replacement, char *buf, size_t size)
{
    size_t n = strlen(hwdb);
    buf[0] = '\0';
    if (n < 4 || strcmp(hwdb + n - 4, "hwdb") != 0)
        return;
    snprintf(buf, size, "%.*s%s", (int)(n - 4), hwdb, replacement);
}

const char *simt_static_dir(void)
{
    static char source_dir[1024], installed_dir[1024];
    if (assets_override != NULL)
        return assets_override;
    const char *env = getenv("SIMTD_ASSETS");
    if (env != NULL && env[0] != '\0')
        return env;
    sibling_of_hwdb(SIMT_SOURCE_HWDB, "clients/dashboard", source_dir, sizeof source_dir);
    if (source_dir[0] != '\0' && is_dir(source_dir))
        return source_dir;
    sibling_of_hwdb(SIMT_INSTALLED_HWDB, "dashboard", installed_dir, sizeof installed_dir);
    return installed_dir[0] != '\0' ? installed_dir : "/usr/local/share/simtd/dashboard";
}

static const struct {
    const char *extension;
    const char *content_type;
} types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
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

/* A dashboard file name: letters, digits, '-', '_', '.', not leading '.' */
static int plain_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '.' || strlen(name) > 128)
        return 0;
    for (const char *p = name; *p; p++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '-' || ch == '_' || ch == '.';
        if (!ok)
            return 0;
    }
    return 1;
}

/* Reads a whole file into a malloc'd, NUL-terminated buffer: 0, SIMT_EIO
 * (missing, not a regular file, too large, short read) or SIMT_ENOMEM. */
static SIMT_WARN_UNUSED int read_file(const char *path, char **body, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return SIMT_EIO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE_BYTES) {
        fclose(f);
        return SIMT_EIO;
    }
    size_t size = (size_t)st.st_size;
    char *data = malloc(size + 1);
    if (data == NULL) {
        fclose(f);
        return SIMT_ENOMEM;
    }
    size_t got = fread(data, 1, size, f);
    fclose(f);
    if (got != size) {
        free(data);
        return SIMT_EIO;
    }
    data[size] = '\0';
    *body = data;
    *len = size;
    return SIMT_OK;
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
    char file[1200];
    const char *content_type = NULL;
    const char *route = route_page;
    const char *missing = "";

    if (strcmp(path, "/static/chart.js") == 0) {
        const char *env = getenv("SIMTD_CHARTJS");
        snprintf(file, sizeof file, "%s", env != NULL && env[0] != '\0' ? env : CHARTJS_DEBIAN_PATH);
        content_type = "text/javascript; charset=utf-8";
        route = route_static;
        missing = "the chart library is not installed: apt-get install libjs-chart.js";
    } else {
        const char *name = strcmp(path, "/") == 0 ? "index.html" : path + 1;
        if (path[0] != '/' || !plain_name(name) || (content_type = content_type_of(name)) == NULL)
            return 0;
        snprintf(file, sizeof file, "%s/%s", simt_static_dir(), name);
        struct stat st;
        if (stat(file, &st) != 0) {
            if (strcmp(path, "/") != 0)
                return 0; /* not a dashboard file: the API answers (404) */
            missing = "the dashboard's files were not found: set SIMTD_ASSETS to clients/dashboard";
        }
    }

    memset(resp, 0, sizeof *resp);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        char message[160];
        snprintf(message, sizeof message, "%s allows GET only", path);
        fail(resp, 405, "method_not_allowed", message, route);
        resp->allow = "GET";
        return 1;
    }
    int rc = read_file(file, &resp->body, &resp->body_len);
    if (rc != 0) {
        fail(resp, rc == SIMT_ENOMEM ? 500 : 404, rc == SIMT_ENOMEM ? "internal" : "not_found",
             rc == SIMT_ENOMEM ? "out of memory" : missing, route);
        return 1;
    }
    resp->status = 200;
    resp->content_type = content_type;
    resp->route = route;
    return 1;
}
