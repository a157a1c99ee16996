/* layer.c - the vocabulary the hwdb loader's files share: the names of a
 * file's groups, the text slots a file may give, and the diagnostic
 * formatter that turns a failure into 1-based file:line:column, the key path
 * and what was expected; with the small bounded-string helpers they use. */
#define _POSIX_C_SOURCE 200809L

#include "hwdb_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- groups */

const char *const hwdb_group_names[G_COUNT] = {
    "identity",   "limits",  "amd",          "sm",       "clocks",     "memory",
    "throughput", "latency", "interconnect", "measured", "achievable",
};

int hwdb_group_find(const char *name)
{
    for (int g = 0; g < G_COUNT; g++) {
        if (strcmp(hwdb_group_names[g], name) == 0)
            return g;
    }
    return -1;
}

/* ---------------------------------------------------------------- text slots */

const struct hwdb_text_slot hwdb_text_slots[T_COUNT] = {
    {G_IDENTITY, "id", sizeof(((struct simt_hwdb_gpu *)0)->id) - 1, IN_GPU},
    {G_IDENTITY, "name", sizeof(((struct simt_hwdb_gpu *)0)->name) - 1, IN_GPU},
    {G_IDENTITY, "vendor", sizeof(((struct simt_hwdb_gpu *)0)->vendor) - 1, IN_ARCH | IN_GPU},
    {G_IDENTITY, "architecture", sizeof(((struct simt_hwdb_gpu *)0)->architecture) - 1, IN_ARCH | IN_GPU},
    {G_IDENTITY, "compute_capability", sizeof(((struct simt_hwdb_gpu *)0)->compute_capability) - 1,
     IN_ARCH | IN_GPU},
    {G_IDENTITY, "form_factor", sizeof(((struct simt_hwdb_gpu *)0)->form_factor) - 1, IN_GPU},
    {G_MEASURED, "method", sizeof(((struct simt_hwdb_gpu *)0)->measured_method) - 1, IN_GPU},
    {G_MEASURED, "date", sizeof(((struct simt_hwdb_gpu *)0)->measured_date) - 1, IN_GPU},
    {G_MEASURED, "device", sizeof(((struct simt_hwdb_gpu *)0)->measured_device) - 1, IN_GPU},
    {G_MEASURED, "driver", sizeof(((struct simt_hwdb_gpu *)0)->measured_driver) - 1, IN_GPU},
};

/* every text slot's limit must fit the layer's buffer */
_Static_assert(sizeof(((struct simt_hwdb_gpu *)0)->measured_method) <= TEXT_BUF, "TEXT_BUF too small");
_Static_assert(sizeof(((struct simt_hwdb_gpu *)0)->name) <= TEXT_BUF, "TEXT_BUF too small");

/* ---------------------------------------------------------------- diag */

int hwdb_report(struct simt_diag *diag, int rc, const char *path, const char *rel, struct pos at,
                const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rc = hwdb_report_v(diag, rc, path, rel, at, field, fmt, ap);
    va_end(ap);
    return rc;
}

int hwdb_report_v(struct simt_diag *diag, int rc, const char *path, const char *rel, struct pos at,
                  const char *field, const char *fmt, va_list ap)
{
    if (!diag)
        return rc;
    char what[400];
    vsnprintf(what, sizeof what, fmt, ap);
    memset(diag, 0, sizeof *diag);
    hwdb_copy_text(diag->file, sizeof diag->file, path ? path : "");
    diag->line = at.line;
    diag->column = at.column;
    hwdb_copy_text(diag->field, sizeof diag->field, field ? field : "");
    char where[300];
    if (at.line > 0)
        hwdb_bprintf(where, sizeof where, "%s:%d:%d: ", rel ? rel : "", at.line, at.column);
    else
        hwdb_bprintf(where, sizeof where, "%s: ", rel ? rel : "");
    if (field && field[0])
        hwdb_bprintf(diag->message, sizeof diag->message, "%s%s: %s", where, field, what);
    else
        hwdb_bprintf(diag->message, sizeof diag->message, "%s%s", where, what);
    return rc;
}

/* ---------------------------------------------------------------- helpers */

/* bounded formatting: truncates silently (messages, key paths) */
void hwdb_bprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    (void)n;
}

void hwdb_copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

char *hwdb_dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *hwdb_join_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p)
        return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

/* ids and arch ids: lowercase letters, digits, '-', '_', '.', starting with a letter or digit */
int hwdb_valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_ID_LEN || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(islower(c) || isdigit(c) || c == '-' || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}
