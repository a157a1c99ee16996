/* log.h - simtd's logger: one JSON object per line on stderr, written with a
 * single write(2) so that lines from concurrent threads never interleave.
 * Operational lines carry a level and a message; the access log carries one
 * line per request and is switched on and off apart from the level.
 *
 * Thread-safe. The level and the access-log switch are set once at start-up
 * (before any thread runs) and only read afterwards. Lines longer than the
 * internal buffer (4 KiB) are truncated, never split. */
#ifndef SIMT_SERVER_LOG_H
#define SIMT_SERVER_LOG_H

#include <stdarg.h>
#include <stddef.h>

#include "simt_error.h"

enum simt_log_level { SIMT_LOG_ERROR = 0, SIMT_LOG_WARN, SIMT_LOG_INFO, SIMT_LOG_DEBUG };

/* Parses "error" | "warn" | "info" | "debug" (and "warning"); returns 0,
 * or SIMT_EINVAL when unknown (*out unchanged). */
int simt_log_level_parse(const char *name, enum simt_log_level *out) SIMT_WARN_UNUSED;
const char *simt_log_level_name(enum simt_log_level level);

void simt_log_configure(enum simt_log_level level, int access_log_on);
int simt_log_enabled(enum simt_log_level level);
int simt_log_access_enabled(void);

/* An operational line: {"ts":..,"level":..,"msg":..}. No-op below the level. */
void simt_log(enum simt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void simt_log_v(enum simt_log_level level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* One access-log line: {"ts","level":"info","event":"access","method","path",
 * "status","duration_s","bytes"}. method and path are escaped (client data). */
void simt_log_access(const char *method, const char *path, int status, double duration_s, size_t bytes);

#endif
