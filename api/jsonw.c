/* jsonw.c - the JSON writer: one buffer grown by doubling, commas kept per
 * nesting level, numbers and strings formatted as jansson's compact dump
 * with 12 significant digits formats them (see jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAPACITY 1024

void simt_jsonw_init(struct simt_jsonw *w, size_t capacity)
{
    memset(w, 0, sizeof *w);
    w->cap = capacity > 0 ? capacity : FIRST_CAPACITY; /* allocated on the first write */
}

void simt_jsonw_release(struct simt_jsonw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = 0;
}

char *simt_jsonw_take(struct simt_jsonw *w, size_t *len)
{
    if (w->buf == NULL && !w->failed) {
        w->buf = malloc(1);
        w->failed = w->buf == NULL;
    }
    if (w->failed) {
        simt_jsonw_release(w);
        return NULL;
    }
    w->buf[w->len] = '\0';
    char *text = w->buf;
    *len = w->len;
    w->buf = NULL;
    w->len = 0;
    return text;
}

/* Grows the buffer to hold n more bytes and the final NUL; 0 on failure. */
static int grow(struct simt_jsonw *w, size_t n)
{
    if (w->failed)
        return 0;
    size_t cap = w->cap;
    while (cap < w->len + n + 1)
        cap *= 2;
    char *grown = realloc(w->buf, cap);
    if (grown == NULL) {
        w->failed = 1;
        return 0;
    }
    w->buf = grown;
    w->cap = cap;
    return 1;
}

/* Room for n more bytes and the final NUL; 0 when there is none. */
static inline int reserve(struct simt_jsonw *w, size_t n)
{
    if (w->buf != NULL && w->len + n + 1 <= w->cap)
        return 1;
    return grow(w, n);
}

void simt_jsonw_reserve(struct simt_jsonw *w, size_t bytes)
{
    (void)reserve(w, bytes);
}

static void put(struct simt_jsonw *w, const char *bytes, size_t n)
{
    if (reserve(w, n)) {
        memcpy(w->buf + w->len, bytes, n);
        w->len += n;
    }
}

static void put_char(struct simt_jsonw *w, char ch)
{
    if (reserve(w, 1))
        w->buf[w->len++] = ch;
}

/* Before any value or key: the comma that separates it from the one before
 * (none right after a key, whose colon is written with it). */
static void item(struct simt_jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (w->has_items[w->depth - 1])
            put_char(w, ',');
        w->has_items[w->depth - 1] = 1;
    }
}

static void open_level(struct simt_jsonw *w, char bracket)
{
    item(w);
    put_char(w, bracket);
    if (w->depth == SIMT_JSONW_MAX_DEPTH) {
        w->failed = 1; /* no answer nests this deep */
        return;
    }
    w->has_items[w->depth++] = 0;
}

static void close_level(struct simt_jsonw *w, char bracket)
{
    if (w->depth > 0)
        w->depth--;
    put_char(w, bracket);
}

void simt_jsonw_object_begin(struct simt_jsonw *w)
{
    open_level(w, '{');
}

void simt_jsonw_object_end(struct simt_jsonw *w)
{
    close_level(w, '}');
}

void simt_jsonw_array_begin(struct simt_jsonw *w)
{
    open_level(w, '[');
}

void simt_jsonw_array_end(struct simt_jsonw *w)
{
    close_level(w, ']');
}

/* Does byte c need an escape in a JSON string? */
static inline int needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* A string's bytes with jansson's escapes: ", \ and the control
 * characters (\b \f \n \r \t by name, the rest as \u00XX). `tail` (0 or
 * ':') follows the closing quote, for a key. */
static void put_escaped(struct simt_jsonw *w, const char *text, size_t len, char tail)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t clean = 0;
    while (clean < len && !needs_escape((unsigned char)text[clean]))
        clean++;
    if (!reserve(w, len + 3))
        return;
    w->buf[w->len++] = '"';
    memcpy(w->buf + w->len, text, clean);
    w->len += clean;
    size_t run = clean; /* start of the bytes not yet copied */
    for (size_t i = clean; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!needs_escape(c))
            continue;
        put(w, text + run, i - run);
        run = i + 1;
        char seq[6] = {'\\', 0, 0, 0, 0, 0};
        size_t n = 2;
        switch (c) {
        case '"':
        case '\\':
            seq[1] = (char)c;
            break;
        case '\b':
            seq[1] = 'b';
            break;
        case '\f':
            seq[1] = 'f';
            break;
        case '\n':
            seq[1] = 'n';
            break;
        case '\r':
            seq[1] = 'r';
            break;
        case '\t':
            seq[1] = 't';
            break;
        default:
            memcpy(seq + 1, "u00", 3);
            seq[4] = hex[c >> 4];
            seq[5] = hex[c & 15];
            n = 6;
            break;
        }
        put(w, seq, n);
    }
    put(w, text + run, len - run);
    if (reserve(w, 2)) {
        w->buf[w->len++] = '"';
        if (tail != 0)
            w->buf[w->len++] = tail;
    }
}

void simt_jsonw_key(struct simt_jsonw *w, const char *key)
{
    item(w);
    size_t len = strlen(key);
    if (reserve(w, len + 3)) { /* a name of the API's own: nothing to escape */
        char *at = w->buf + w->len;
        at[0] = '"';
        memcpy(at + 1, key, len);
        at[len + 1] = '"';
        at[len + 2] = ':';
        w->len += len + 3;
    }
    w->after_key = 1;
}

void simt_jsonw_int(struct simt_jsonw *w, int64_t value)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    item(w);
    char digits[24];
    size_t n = sizeof digits;
    /* the magnitude as unsigned: INT64_MIN has no positive int64_t */
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    while (magnitude >= 100) {
        size_t pair = (size_t)(magnitude % 100) * 2;
        magnitude /= 100;
        digits[--n] = pairs[pair + 1];
        digits[--n] = pairs[pair];
    }
    if (magnitude >= 10) {
        digits[--n] = pairs[magnitude * 2 + 1];
        digits[--n] = pairs[magnitude * 2];
    } else {
        digits[--n] = (char)('0' + magnitude);
    }
    if (value < 0)
        digits[--n] = '-';
    put(w, digits + n, sizeof digits - n);
}

/* value as "%.12g", then as jansson writes reals: a ".0" when the text
 * would read back as an integer, the exponent without '+' or leading
 * zeros ("1e+20" -> "1e20", "1e-05" -> "1e-5"). Returns the length. */
static size_t format_real(double value, char *text, size_t size)
{
    int printed = snprintf(text, size, "%.12g", value);
    if (printed < 0 || (size_t)printed + 3 > size)
        return 0;
    size_t len = (size_t)printed;
    char *e = memchr(text, 'e', len);
    if (e == NULL) {
        if (memchr(text, '.', len) == NULL) {
            memcpy(text + len, ".0", 3);
            len += 2;
        }
        return len;
    }
    char *from = e + 1, *to = e + 1;
    if (*from == '+')
        from++;
    else if (*from == '-')
        from++, to++;
    while (*from == '0' && from[1] != '\0')
        from++;
    size_t tail = len - (size_t)(from - text);
    memmove(to, from, tail + 1);
    return (size_t)(to - text) + tail;
}

void simt_jsonw_real(struct simt_jsonw *w, double value)
{
    if (!isfinite(value)) {
        simt_jsonw_null(w);
        return;
    }
    item(w);
    /* the same bits give the same text (0.0 and -0.0 stay apart) */
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    size_t slot = (size_t)((bits ^ (bits >> 29) ^ (bits >> 52)) & 15u);
    if (w->reals[slot].len == 0 || w->reals[slot].bits != bits) {
        size_t len = format_real(value, w->reals[slot].text, sizeof w->reals[slot].text);
        if (len == 0) {
            w->failed = 1;
            return;
        }
        w->reals[slot].bits = bits;
        w->reals[slot].len = (unsigned char)len;
    }
    put(w, w->reals[slot].text, w->reals[slot].len);
}

void simt_jsonw_bool(struct simt_jsonw *w, int value)
{
    item(w);
    if (value)
        put(w, "true", 4);
    else
        put(w, "false", 5);
}

void simt_jsonw_null(struct simt_jsonw *w)
{
    item(w);
    put(w, "null", 4);
}

void simt_jsonw_stringn(struct simt_jsonw *w, const char *text, size_t len)
{
    item(w);
    put_escaped(w, text, len, 0);
}

void simt_jsonw_string(struct simt_jsonw *w, const char *text)
{
    simt_jsonw_stringn(w, text, strlen(text));
}

void simt_jsonw_value(struct simt_jsonw *w, const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT: {
        simt_jsonw_object_begin(w);
        /* jansson's iterator takes a non-const object; nothing is changed */
        json_t *object = (json_t *)(uintptr_t)value;
        for (void *it = json_object_iter(object); it != NULL; it = json_object_iter_next(object, it)) {
            item(w);
            put_escaped(w, json_object_iter_key(it), json_object_iter_key_len(it), ':');
            w->after_key = 1;
            simt_jsonw_value(w, json_object_iter_value(it));
        }
        simt_jsonw_object_end(w);
        break;
    }
    case JSON_ARRAY:
        simt_jsonw_array_begin(w);
        for (size_t i = 0; i < json_array_size(value); i++)
            simt_jsonw_value(w, json_array_get(value, i));
        simt_jsonw_array_end(w);
        break;
    case JSON_STRING:
        simt_jsonw_stringn(w, json_string_value(value), json_string_length(value));
        break;
    case JSON_INTEGER:
        simt_jsonw_int(w, (int64_t)json_integer_value(value));
        break;
    case JSON_REAL:
        simt_jsonw_real(w, json_real_value(value));
        break;
    case JSON_TRUE:
        simt_jsonw_bool(w, 1);
        break;
    case JSON_FALSE:
        simt_jsonw_bool(w, 0);
        break;
    default:
        simt_jsonw_null(w);
        break;
    }
}

size_t simt_jsonw_length(const struct simt_jsonw *w)
{
    return w->len;
}

void simt_jsonw_repeat(struct simt_jsonw *w, size_t from, size_t len)
{
    if (w->failed || from > w->len || len > w->len - from || !reserve(w, len))
        return;
    /* after reserve: it may have moved the buffer; the two ranges do not overlap */
    memcpy(w->buf + w->len, w->buf + from, len);
    w->len += len;
}

void simt_jsonw_key_int(struct simt_jsonw *w, const char *key, int64_t value)
{
    simt_jsonw_key(w, key);
    simt_jsonw_int(w, value);
}

void simt_jsonw_key_real(struct simt_jsonw *w, const char *key, double value)
{
    simt_jsonw_key(w, key);
    simt_jsonw_real(w, value);
}

void simt_jsonw_key_string(struct simt_jsonw *w, const char *key, const char *text)
{
    simt_jsonw_key(w, key);
    simt_jsonw_string(w, text);
}
