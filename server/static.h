/* static.h - the files simtd serves besides the API: the web dashboard
 * (GET / and the page's own files: /app.js, /share.js, /style.css) and the
 * charting library at /static/chart.js, Debian's libjs-chart.js
 * (/usr/share/javascript/chart.js/chart.min.js), so that nothing is fetched
 * from the network and no copy of the library lives in the repository.
 *
 * Nothing is read per request. The dashboard is compiled into the binary
 * (server/CMakeLists.txt embeds clients/dashboard); $SIMTD_ASSETS=DIR serves
 * another copy instead, read once by simt_static_load(). The chart library
 * ($SIMTD_CHARTJS, else the Debian path) is read once there too. After
 * simt_static_load() everything here is immutable, so thread-safe. */
#ifndef SIMT_SERVER_STATIC_H
#define SIMT_SERVER_STATIC_H

#include <stddef.h>

#include "api.h"

/* One file served from memory. */
struct simt_static_file {
    const char *name; /* "app.js" */
    const unsigned char *data;
    size_t len;
};

/* The embedded dashboard (dashboard_blob.c, generated). */
extern const struct simt_static_file simt_dashboard_files[];
extern const size_t simt_dashboard_file_count;

/* Reads what is not embedded, once, before the server starts: the chart
 * library, and the dashboard from $SIMTD_ASSETS when set. A file that cannot
 * be read is answered 404 with what to install; nothing fails here. */
void simt_static_load(void);

/* Where the dashboard is served from, for the start-up log: "built in" or
 * $SIMTD_ASSETS. */
const char *simt_static_origin(void);

/* When (method, path) is a static file's path, fills resp (malloc'd copy of
 * the body, static content type, route "/" or the static route; 404 or 405
 * error bodies as the API writes them) and returns 1; otherwise returns 0
 * and leaves resp untouched, so the request goes on to the API. */
int simt_static_serve(const char *method, const char *path, struct simt_api_response *resp);

#endif
