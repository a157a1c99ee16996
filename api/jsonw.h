/* jsonw.h - a JSON writer into one growing buffer: the API's answers as
 * text without a tree of values in between. Its output is byte for byte what
 * jansson's json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(12)) gives
 * for the same values in the same order (tests/unit/test_jsonw.c compares
 * the two): no spaces, integers in decimal, reals as "%.12g" with ".0"
 * added to an integral value and the exponent without '+' or leading zeros,
 * strings escaped as jansson escapes them (", \, and control characters;
 * '/' and non-ASCII left alone). Not installed.
 *
 * Ownership: the buffer belongs to the writer until simt_jsonw_take hands it
 * to the caller (free() it); simt_jsonw_release frees what was not taken.
 *
 * Errors: a failed allocation sets `failed`, after which every call does
 * nothing; check it once at the end (simt_jsonw_take returns NULL). Commas
 * and colons are the writer's: a member is simt_jsonw_key then one value. */
#ifndef SIMT_API_JSONW_H
#define SIMT_API_JSONW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SIMT_JSONW_MAX_DEPTH 64

struct simt_jsonw {
    char *buf;
    size_t len, cap;
    int failed;
    int depth;                                     /* open objects and arrays */
    unsigned char has_items[SIMT_JSONW_MAX_DEPTH]; /* per level: a comma before the next item */
    int after_key;                                 /* a key was written: the next value needs no comma */
    /* reals already formatted, by their bits: sweeps repeat values */
    struct {
        uint64_t bits;
        unsigned char len; /* 0: empty */
        char text[31];
    } reals[16];
};

/* Starts an empty writer with room for about `capacity` bytes (allocated
 * on the first write). */
void simt_jsonw_init(struct simt_jsonw *w, size_t capacity);
/* Makes room for `bytes` more (an answer's expected size), so that a large
 * answer is not copied as it grows. */
void simt_jsonw_reserve(struct simt_jsonw *w, size_t bytes);
/* Frees the buffer unless it was taken. */
void simt_jsonw_release(struct simt_jsonw *w);
/* The text written (NUL-terminated, *len its length) for the caller to
 * free(); NULL when an allocation failed (the writer is then released). */
char *simt_jsonw_take(struct simt_jsonw *w, size_t *len);

void simt_jsonw_object_begin(struct simt_jsonw *w);
void simt_jsonw_object_end(struct simt_jsonw *w);
void simt_jsonw_array_begin(struct simt_jsonw *w);
void simt_jsonw_array_end(struct simt_jsonw *w);
/* An object member's name; the next call writes its value. The name is
 * one of the API's own (ASCII letters, digits, '_', '.'), written as it is;
 * a name from elsewhere goes through simt_jsonw_value, which escapes. */
void simt_jsonw_key(struct simt_jsonw *w, const char *key);

void simt_jsonw_int(struct simt_jsonw *w, int64_t value);
/* A real as jansson prints it; not finite: null (as simt_call_set_real). */
void simt_jsonw_real(struct simt_jsonw *w, double value);
void simt_jsonw_bool(struct simt_jsonw *w, int value);
void simt_jsonw_null(struct simt_jsonw *w);
/* A NUL-terminated UTF-8 string. */
void simt_jsonw_string(struct simt_jsonw *w, const char *text);
void simt_jsonw_stringn(struct simt_jsonw *w, const char *text, size_t len);
/* Any jansson value (borrowed), objects in their insertion order. */
void simt_jsonw_value(struct simt_jsonw *w, const json_t *value);

/* The bytes written so far: a mark for simt_jsonw_repeat. */
size_t simt_jsonw_length(const struct simt_jsonw *w);
/* Writes again the `len` bytes written from mark `from` on. They must be
 * whole members of an object, each led by its comma, and the object being
 * written must already hold a member (a sweep's points repeat the part of
 * an earlier point that follows its "value"). */
void simt_jsonw_repeat(struct simt_jsonw *w, size_t from, size_t len);

/* Shorthands for one object member. */
void simt_jsonw_key_int(struct simt_jsonw *w, const char *key, int64_t value);
void simt_jsonw_key_real(struct simt_jsonw *w, const char *key, double value);
void simt_jsonw_key_string(struct simt_jsonw *w, const char *key, const char *text);

#endif
