/* static.h - the files simtd serves besides the API: the web dashboard
 * (GET / and the page's own files: /app.js, /style.css, ...) and the
 * charting library at /static/chart.js, read from Debian's libjs-chart.js
 * (/usr/share/javascript/chart.js/chart.min.js) so that nothing is fetched
 * from the network and no copy of the library lives in the repository.
 *
 * Where the dashboard's files come from: simt_static_set_dir(), else
 * $SIMTD_ASSETS, else the source tree's clients/dashboard/ when it exists,
 * else the installed share/simtd/dashboard/. The chart library: $SIMTD_CHARTJS,
 * else the Debian path. Files are read on each request (they are small and
 * this keeps edits live); nothing is cached, so it is thread-safe. */
#ifndef SIMT_SERVER_STATIC_H
#define SIMT_SERVER_STATIC_H

#include "api.h"

/* Overrides the dashboard directory (e.g. from a --assets flag). The string
 * must outlive the server. NULL restores the default search. Call before
 * the server starts. */
void simt_static_set_dir(const char *dir);

/* The dashboard directory in use (never NULL). */
const char *simt_static_dir(void);

/* When (method, path) is a static file's path, fills resp (malloc'd body,
 * static content type, route "/" or the static route; 404 or 405 error bodies as
 * the API writes them) and returns 1; otherwise returns 0 and leaves resp
 * untouched, so the request goes on to the API. */
int simt_static_serve(const char *method, const char *path, struct simt_api_response *resp);

#endif
