/* log.c - JSON-lines logger on stderr. Each line is formatted into a stack
 * buffer and written with one write(2); client-supplied strings are escaped
 * so that a path can never break a line or the JSON around it. */
#define _GNU_SOURCE
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4096

static enum simt_log_level current_level = SIMT_LOG_INFO;
static int access_on = 1;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int simt_log_level_parse(const char *name, enum simt_log_level *out)
{
    for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (enum simt_log_level)i;
            return SIMT_OK;
        }
    }
    if (strcmp(name, "warning") == 0) {
        *out = SIMT_LOG_WARN;
        return SIMT_OK;
    }
    return SIMT_EINVAL;
}

const char *simt_log_level_name(enum simt_log_level level)
{
    if ((size_t)level < sizeof level_names / sizeof level_names[0])
        return level_names[level];
    return "unknown";
}

void simt_log_configure(enum simt_log_level level, int access_log_on)
{
    current_level = level;
    access_on = access_log_on;
}

int simt_log_enabled(enum simt_log_level level)
{
    return level <= current_level;
}

int simt_log_access_enabled(void)
{
    return access_on;
}

/* A line under construction; `len` never exceeds LINE_MAX_BYTES - 2 so that
 * the closing "}\n" always fits. */
struct line {
    char buf[LINE_MAX_BYTES];
    size_t len;
};

static void put_raw(struct line *l, const char *s, size_t n)
{
    size_t room = LINE_MAX_BYTES - 2 - l->len;
    if (n > room)
        n = room;
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void put_str(struct line *l, const char *s)
{
    put_raw(l, s, strlen(s));
}

/* Appends s as JSON string contents. Bytes outside printable ASCII are
 * written as \u00XX, so the line is valid JSON whatever the client sent. */
static void put_escaped(struct line *l, const char *s, size_t max_in)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < max_in && s[i] != '\0'; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[6];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put_raw(l, esc, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            esc[0] = '\\';
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 0xf];
            put_raw(l, esc, 6);
        } else {
            put_raw(l, (const char *)&c, 1);
        }
    }
}

static void put_timestamp(struct line *l)
{
    struct timespec now;
    struct tm tm;
    char stamp[40];
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    int m = snprintf(stamp + n, sizeof stamp - n, ".%03ldZ", now.tv_nsec / 1000000L);
    if (m > 0)
        n += (size_t)m;
    put_str(l, "{\"ts\":\"");
    put_raw(l, stamp, n);
    put_str(l, "\"");
}

static void emit(struct line *l)
{
    l->buf[l->len++] = '}';
    l->buf[l->len++] = '\n';
    const char *p = l->buf;
    size_t left = l->len;
    while (left > 0) {
        ssize_t w = write(STDERR_FILENO, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return; /* nowhere left to report it */
        }
        p += w;
        left -= (size_t)w;
    }
}

void simt_log_v(enum simt_log_level level, const char *fmt, va_list ap)
{
    if (!simt_log_enabled(level))
        return;
    char msg[LINE_MAX_BYTES];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n < 0)
        return;
    size_t msg_len = strlen(msg);
    while (msg_len > 0 && (msg[msg_len - 1] == '\n' || msg[msg_len - 1] == '\r'))
        msg[--msg_len] = '\0';
    struct line l = {.len = 0};
    put_timestamp(&l);
    put_str(&l, ",\"level\":\"");
    put_str(&l, simt_log_level_name(level));
    put_str(&l, "\",\"msg\":\"");
    put_escaped(&l, msg, sizeof msg);
    put_str(&l, "\"");
    emit(&l);
}

void simt_log(enum simt_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    simt_log_v(level, fmt, ap);
    va_end(ap);
}

void simt_log_access(const char *method, const char *path, int status, double duration_s, size_t bytes)
{
    if (!access_on)
        return;
    char nums[128];
    struct line l = {.len = 0};
    put_timestamp(&l);
    put_str(&l, ",\"level\":\"info\",\"event\":\"access\",\"method\":\"");
    put_escaped(&l, method ? method : "", 32);
    put_str(&l, "\",\"path\":\"");
    put_escaped(&l, path ? path : "", 512);
    int n = snprintf(nums, sizeof nums, "\",\"status\":%d,\"duration_s\":%.6f,\"bytes\":%zu", status,
                     duration_s, bytes);
    if (n > 0)
        put_raw(&l, nums, (size_t)n < sizeof nums ? (size_t)n : sizeof nums - 1);
    emit(&l);
}
