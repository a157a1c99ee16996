/* output.c - how `simt` shows an answer to a person: aligned key/value
 * lines with units made readable ("4.8e+12 (4.80 TB/s)"), tables for lists
 * of objects, assumptions last. The JSON itself is untouched; --json
 * bypasses all of this. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CELL 48

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* value in a unit with an SI or binary prefix: "4.80 TB/s", "228 KiB" */
static void scaled(char *buf, size_t size, double value, const char *unit, double base)
{
    static const char *const si[] = {"", "k", "M", "G", "T", "P", "E"};
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int i = 0;
    double v = fabs(value);
    while (v >= base && i < 6) {
        v /= base;
        i++;
    }
    snprintf(buf, size, "%.3g %s%s", value < 0 ? -v : v, base > 1000.5 ? bin[i] : si[i], unit);
}

static void seconds(char *buf, size_t size, double s)
{
    double a = fabs(s);
    if (a >= 1.0 || a <= 0.0)
        snprintf(buf, size, "%.3g s", s);
    else if (a >= 1e-3)
        snprintf(buf, size, "%.3g ms", s * 1e3);
    else if (a >= 1e-6)
        snprintf(buf, size, "%.3g us", s * 1e6);
    else
        snprintf(buf, size, "%.3g ns", s * 1e9);
}

/* A readable rendering of a number whose unit the key names, or "" */
static void readable(const char *key, double v, char *buf, size_t size)
{
    buf[0] = '\0';
    if (key == NULL)
        return;
    if (ends_with(key, "bytes_per_s"))
        scaled(buf, size, v, "B/s", 1000.0);
    else if (ends_with(key, "flops_per_s"))
        scaled(buf, size, v, "FLOP/s", 1000.0);
    else if (ends_with(key, "_hz"))
        scaled(buf, size, v, "Hz", 1000.0);
    else if (ends_with(key, "_s"))
        seconds(buf, size, v);
    else if ((ends_with(key, "bytes") || ends_with(key, "_bytes")) && fabs(v) >= 1024.0)
        scaled(buf, size, v, "B", 1024.0);
    else if (ends_with(key, "flops") && fabs(v) >= 1000.0)
        scaled(buf, size, v, "FLOP", 1000.0);
}

static const char *format(const char *key, json_t *value, char *buf, size_t size, int human)
{
    char extra[48] = "";
    switch (json_typeof(value)) {
    case JSON_STRING:
        snprintf(buf, size, "%s", json_string_value(value));
        return buf;
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
        return "-";
    case JSON_INTEGER: {
        json_int_t v = json_integer_value(value);
        if (human)
            readable(key, (double)v, extra, sizeof extra);
        if (extra[0] && !ends_with(key, "_s"))
            snprintf(buf, size, "%lld (%s)", (long long)v, extra);
        else if (extra[0])
            snprintf(buf, size, "%s", extra);
        else
            snprintf(buf, size, "%lld", (long long)v);
        return buf;
    }
    case JSON_REAL: {
        double v = json_real_value(value);
        if (human)
            readable(key, v, extra, sizeof extra);
        if (extra[0] && ends_with(key, "_s") && !ends_with(key, "per_s"))
            snprintf(buf, size, "%s", extra);
        else if (extra[0])
            snprintf(buf, size, "%.4g (%s)", v, extra);
        else
            snprintf(buf, size, "%.4g", v);
        return buf;
    }
    case JSON_ARRAY: {
        size_t used = 0, i;
        json_t *item;
        buf[0] = '\0';
        json_array_foreach(value, i, item)
        {
            char one[CELL];
            const char *text =
                json_is_object(item) || json_is_array(item) ? "{..}" : format(NULL, item, one, sizeof one, 0);
            int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", text);
            if (n < 0 || (size_t)n >= size - used)
                break;
            used += (size_t)n;
        }
        return buf;
    }
    case JSON_OBJECT: {
        char *text = json_dumps(value, JSON_COMPACT);
        snprintf(buf, size, "%s", text != NULL ? text : "{}");
        free(text);
        return buf;
    }
    }
    return "";
}

const char *simt_cli_format_value(const char *key, json_t *value, char *buf, size_t size)
{
    return format(key, value, buf, size, 1);
}

static int is_object_array(json_t *value)
{
    return json_is_array(value) && json_array_size(value) > 0 && json_is_object(json_array_get(value, 0));
}

/* Flattened scalar keys of obj, widest first-pass */
static size_t key_width(json_t *obj, size_t prefix)
{
    size_t width = 0;
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        size_t w;
        if (json_is_object(value))
            w = key_width(value, prefix + strlen(key) + 1);
        else if (is_object_array(value) || strcmp(key, "assumptions") == 0)
            continue;
        else
            w = prefix + strlen(key);
        if (w > width)
            width = w;
    }
    return width;
}

static void print_lines(FILE *out, json_t *obj, const char *prefix, int width, int *printed)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", key);
        if (json_is_object(value)) {
            print_lines(out, value, path, width, printed);
            continue;
        }
        if (is_object_array(value) || (prefix[0] == '\0' && strcmp(key, "assumptions") == 0))
            continue;
        char buf[1024];
        fprintf(out, "%-*s  %s\n", width, path, format(key, value, buf, sizeof buf, 1));
        (*printed)++;
    }
}

static void print_tables(FILE *out, json_t *obj, const char *prefix, int *printed)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", key);
        if (json_is_object(value)) {
            print_tables(out, value, path, printed);
        } else if (is_object_array(value)) {
            fprintf(out, "%s%s:\n", *printed ? "\n" : "", path);
            simt_cli_print_table(out, value, NULL);
            (*printed)++;
        }
    }
}

void simt_cli_print_human(FILE *out, json_t *answer)
{
    if (!json_is_object(answer)) {
        if (json_is_string(answer)) {
            fputs(json_string_value(answer), out);
            fputc('\n', out);
        } else if (is_object_array(answer)) {
            simt_cli_print_table(out, answer, NULL);
        } else {
            json_dumpf(answer, out, JSON_INDENT(2) | JSON_ENCODE_ANY);
            fputc('\n', out);
        }
        return;
    }
    size_t width = key_width(answer, 0);
    int printed = 0;
    print_lines(out, answer, "", (int)(width > 60 ? 60 : width), &printed);
    print_tables(out, answer, "", &printed);
    json_t *assumptions = json_object_get(answer, "assumptions");
    if (json_is_array(assumptions) && json_array_size(assumptions) > 0) {
        fprintf(out, "%sassumptions:\n", printed ? "\n" : "");
        size_t i;
        json_t *item;
        json_array_foreach(assumptions, i, item)
        {
            char buf[1024];
            fprintf(out, "  - %s\n", format(NULL, item, buf, sizeof buf, 0));
        }
    }
}

static int column_known(const char **columns, size_t count, const char *key)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(columns[i], key) == 0)
            return 1;
    return 0;
}

void simt_cli_print_table(FILE *out, json_t *rows, const char *const *wanted)
{
    enum { MAX_COLUMNS = 24 };
    const char *columns[MAX_COLUMNS];
    size_t ncol = 0;
    if (wanted != NULL) {
        while (ncol < MAX_COLUMNS && wanted[ncol] != NULL) {
            columns[ncol] = wanted[ncol];
            ncol++;
        }
    } else {
        size_t r;
        json_t *row;
        json_array_foreach(rows, r, row)
        {
            const char *key;
            json_t *value;
            json_object_foreach(row, key, value)
            {
                if (json_is_object(value) || is_object_array(value) || ncol == MAX_COLUMNS ||
                    column_known(columns, ncol, key) || strcmp(key, "reason") == 0 ||
                    strcmp(key, "assumptions") == 0)
                    continue;
                columns[ncol++] = key;
            }
        }
    }
    size_t nrow = json_array_size(rows);
    char *cells = calloc((nrow + 1) * (ncol ? ncol : 1), CELL);
    if (cells == NULL)
        return;
    int width[MAX_COLUMNS];
    for (size_t c = 0; c < ncol; c++) {
        snprintf(cells + c * CELL, CELL, "%s", columns[c]);
        width[c] = (int)strlen(cells + c * CELL);
    }
    for (size_t r = 0; r < nrow; r++) {
        json_t *row = json_array_get(rows, r);
        for (size_t c = 0; c < ncol; c++) {
            char *cell = cells + ((r + 1) * ncol + c) * CELL;
            json_t *value = json_object_get(row, columns[c]);
            if (value == NULL) {
                /* dotted column names reach into nested objects: limits.registers */
                char path[CELL];
                snprintf(path, sizeof path, "%s", columns[c]);
                char *dot = strchr(path, '.');
                if (dot != NULL) {
                    *dot = '\0';
                    value = json_object_get(json_object_get(row, path), dot + 1);
                }
            }
            char buf[CELL];
            snprintf(cell, CELL, "%s", value != NULL ? format(columns[c], value, buf, sizeof buf, 0) : "-");
            int w = (int)strlen(cell);
            if (w > width[c])
                width[c] = w;
        }
    }
    for (size_t r = 0; r <= nrow; r++) {
        for (size_t c = 0; c < ncol; c++)
            fprintf(out, "%s%-*s", c ? "  " : "", c + 1 < ncol ? width[c] : 0, cells + (r * ncol + c) * CELL);
        fputc('\n', out);
    }
    free(cells);
}

void simt_cli_print_error(FILE *err, int status, json_t *answer)
{
    json_t *error = json_object_get(answer, "error");
    if (json_is_object(error)) {
        const char *code = json_string_value(json_object_get(error, "code"));
        const char *message = json_string_value(json_object_get(error, "message"));
        const char *field = json_string_value(json_object_get(error, "field"));
        fprintf(err, "simt: %d %s: %s", status, code ? code : "error", message ? message : "");
        if (field != NULL)
            fprintf(err, " (field: %s)", field);
        fputc('\n', err);
        return;
    }
    char *text = json_dumps(answer, JSON_COMPACT | JSON_ENCODE_ANY);
    fprintf(err, "simt: HTTP %d: %s\n", status, text != NULL ? text : "");
    free(text);
}
