/* call.c - what every handler shares: strict readers for request fields that
 * name the field and the expected range on failure, GPU resolution with
 * what-if overrides driven by hwdb's field table, assumptions, and number
 * formatting for answers. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"

/* Well-formed UTF-8 as RFC 3629 (and jansson) define it: no overlong forms,
 * no surrogates (U+D800..DFFF), nothing above U+10FFFF. Returns the length
 * of the sequence at p, or 0 when it is not well-formed. */
static int utf8_sequence(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int extra;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        extra = 1;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        extra = 2;
        if (p[0] == 0xe0)
            lo = 0xa0; /* overlong */
        else if (p[0] == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        extra = 3;
        if (p[0] == 0xf0)
            lo = 0x90; /* overlong */
        else if (p[0] == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF */
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i <= extra; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    }
    return extra + 1;
}

void simt_utf8_repair(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p != 0) {
        int length = utf8_sequence(p); /* stops at the NUL: it is no continuation byte */
        if (length == 0)
            *p++ = '?';
        else
            p += length;
    }
}

int simt_call_fail(struct simt_call *call, int status, const char *code, const char *field, const char *fmt,
                   ...)
{
    if (call->failed)
        return -1;
    call->failed = 1;
    call->status = status;
    snprintf(call->code, sizeof call->code, "%s", code);
    snprintf(call->field, sizeof call->field, "%s", field != NULL ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(call->message, sizeof call->message, fmt, ap);
    va_end(ap);
    /* a message may quote request bytes, cut mid-character by a precision */
    simt_utf8_repair(call->message);
    simt_utf8_repair(call->field);
    return -1;
}

int simt_call_fail_diag(struct simt_call *call, int rc, const char *prefix, const struct simt_diag *diag)
{
    char field[160];
    /* A figure the GPU lacks is named as the what-if field that would supply
     * it ("gpu.dram_latency_cycles"), whatever the request's own prefix. */
    char base[128];
    snprintf(base, sizeof base, "%s", diag->field);
    char *dot = strchr(base, '.');
    if (dot != NULL)
        *dot = '\0';
    if (diag->field[0] != '\0' && simt_hwdb_field_find(base) != NULL) {
        snprintf(field, sizeof field, "gpu.%.120s", diag->field);
        return simt_call_fail(call, rc == SIMT_EUNSAT ? 422 : 400,
                              rc == SIMT_EUNSAT ? "unsatisfiable" : "invalid_argument", field, "%s",
                              diag->message);
    }
    simt_field_path(field, sizeof field, prefix, diag->field);
    if (rc == SIMT_EUNSAT)
        return simt_call_fail(call, 422, "unsatisfiable", diag->field[0] != '\0' ? field : NULL, "%s",
                              diag->message);
    return simt_call_fail(call, 400, "invalid_argument", diag->field[0] != '\0' ? field : NULL, "%s",
                          diag->message);
}

void simt_call_assume(struct simt_call *call, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_array_append_new(call->assumptions, json_string(text));
}

/* Appends src to buf[*used..size), truncating; keeps buf NUL-terminated. */
static void append(char *buf, size_t size, size_t *used, const char *src)
{
    size_t n = strlen(src);
    if (*used + n >= size)
        n = size - 1 - *used;
    memcpy(buf + *used, src, n);
    *used += n;
    buf[*used] = '\0';
}

/* Called for every field a request is read by, so no printf here. */
const char *simt_field_path(char *buf, size_t size, const char *prefix, const char *key)
{
    size_t used = 0;
    buf[0] = '\0';
    int has_prefix = prefix != NULL && prefix[0] != '\0';
    int has_key = key != NULL && key[0] != '\0';
    if (has_prefix)
        append(buf, size, &used, prefix);
    if (has_prefix && has_key)
        append(buf, size, &used, ".");
    if (has_key)
        append(buf, size, &used, key);
    return buf;
}

int simt_check_keys(struct simt_call *call, json_t *obj, const char *path, const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        int known = 0;
        for (size_t i = 0; allowed[i] != NULL; i++) {
            if (strcmp(key, allowed[i]) == 0) {
                known = 1;
                break;
            }
        }
        if (!known) {
            char field[160];
            char list[400] = "";
            size_t used = 0;
            for (size_t i = 0; allowed[i] != NULL && used + 2 < sizeof list; i++) {
                int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
                if (n < 0)
                    break;
                used += (size_t)n;
            }
            return simt_call_fail(call, 400, "unknown_field", simt_field_path(field, sizeof field, path, key),
                                  "unknown field '%.100s'; known fields here: %s", key, list);
        }
    }
    return 0;
}

static json_t *field_value(struct simt_call *call, json_t *obj, const char *path, const char *key,
                           int required, char *field, size_t field_size)
{
    simt_field_path(field, field_size, path, key);
    json_t *value = json_object_get(obj, key);
    if (value == NULL && required)
        simt_call_fail(call, 400, "missing_field", field, "%s is required", field);
    return value;
}

int simt_get_int64(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                   int64_t min, int64_t max, int64_t dflt, int64_t *out)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *out = dflt;
        return required ? -1 : 0;
    }
    int64_t n;
    if (json_is_integer(value)) {
        n = (int64_t)json_integer_value(value);
    } else if (json_is_real(value) && json_real_value(value) - floor(json_real_value(value)) <= 0.0 &&
               fabs(json_real_value(value)) < 9.0e15) {
        n = (int64_t)json_real_value(value);
    } else {
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be an integer in %lld..%lld",
                              field, (long long)min, (long long)max);
    }
    if (n < min || n > max)
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be %lld..%lld, got %lld", field,
                              (long long)min, (long long)max, (long long)n);
    *out = n;
    return 0;
}

int simt_get_int(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                 int min, int max, int dflt, int *out)
{
    int64_t wide = dflt;
    if (simt_get_int64(call, obj, path, key, required, min, max, dflt, &wide) != 0)
        return -1;
    *out = (int)wide;
    return 0;
}

int simt_get_double(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                    double min, double max, double dflt, double *out)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *out = dflt;
        return required ? -1 : 0;
    }
    if (!json_is_number(value))
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be a number in %g..%g", field,
                              min, max);
    double x = json_number_value(value);
    if (!isfinite(x) || x < min || x > max)
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be %g..%g, got %g", field, min,
                              max, x);
    *out = x;
    return 0;
}

int simt_get_bool(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                  int dflt, int *out)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *out = dflt;
        return required ? -1 : 0;
    }
    if (!json_is_boolean(value))
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be true or false", field);
    *out = json_is_true(value);
    return 0;
}

int simt_get_enum(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                  const char *const *choices, int dflt_index, int *index)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *index = dflt_index;
        return required ? -1 : 0;
    }
    for (size_t i = 0; choices[i] != NULL; i++) {
        if (json_is_string(value) && strcmp(json_string_value(value), choices[i]) == 0) {
            *index = (int)i;
            return 0;
        }
    }
    char list[300] = "";
    size_t used = 0;
    for (size_t i = 0; choices[i] != NULL && used + 2 < sizeof list; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (json_is_string(value))
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be one of %s, got '%.60s'",
                              field, list, json_string_value(value));
    return simt_call_fail(call, 400, "invalid_argument", field, "%s must be a string, one of %s", field,
                          list);
}

/* --- GPU resolution --- */

static int apply_dtypes(struct simt_call *call, const struct simt_hwdb_field *f, json_t *value,
                        const char *field, struct simt_gpu_spec *spec)
{
    if (!json_is_object(value))
        return simt_call_fail(call, 400, "invalid_argument", field,
                              "%s must be an object of numbers by data type, e.g. {\"bf16\": 9.89e14}",
                              field);
    double *array = (double *)(void *)((char *)spec + f->offset);
    const char *dtype_name;
    json_t *x;
    json_object_foreach(value, dtype_name, x)
    {
        char sub[200];
        snprintf(sub, sizeof sub, "%.120s.%.60s", field, dtype_name);
        enum simt_dtype dtype;
        if (simt_dtype_parse(dtype_name, &dtype) != 0)
            return simt_call_fail(
                call, 400, "unknown_field", sub,
                "unknown data type '%.40s'; use fp64, fp32, tf32, fp16, bf16, fp8, int8, int4", dtype_name);
        if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < f->min ||
            json_number_value(x) > f->max)
            return simt_call_fail(call, 400, "invalid_argument", sub, "%s must be a number in %g..%g", sub,
                                  f->min, f->max);
        array[dtype] = json_number_value(x);
    }
    return 0;
}

static int apply_carveouts(struct simt_call *call, const struct simt_hwdb_field *f, json_t *value,
                           const char *field, struct simt_gpu_spec *spec)
{
    size_t n = json_is_array(value) ? json_array_size(value) : 0;
    if (n == 0 || n > SIMT_MAX_CARVEOUTS)
        return simt_call_fail(call, 400, "invalid_argument", field,
                              "%s must be a list of 1..%d ascending byte sizes", field, SIMT_MAX_CARVEOUTS);
    int64_t *array = (int64_t *)(void *)((char *)spec + f->offset);
    int64_t last = -1;
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(value, i);
        if (!json_is_integer(x) || json_integer_value(x) <= last || (double)json_integer_value(x) < f->min ||
            (double)json_integer_value(x) > f->max)
            return simt_call_fail(
                call, 400, "invalid_argument", field,
                "%s[%zu] must be an integer byte size in %g..%g, larger than the one before", field, i,
                f->min, f->max);
        last = (int64_t)json_integer_value(x);
        array[i] = last;
    }
    spec->shared_carveout_count = (int)n;
    return 0;
}

static void zero_measured(struct simt_gpu_spec *spec)
{
    size_t count = 0;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    for (size_t i = 0; i < count; i++) {
        if (strcmp(fields[i].group, "measured") != 0)
            continue;
        char *at = (char *)spec + fields[i].offset;
        switch (fields[i].type) {
        case SIMT_FIELD_INT:
            memset(at, 0, sizeof(int));
            break;
        case SIMT_FIELD_INT64:
            memset(at, 0, sizeof(int64_t));
            break;
        case SIMT_FIELD_DOUBLE:
            *(double *)(void *)at = 0.0;
            break;
        case SIMT_FIELD_DTYPES:
            for (int d = 0; d < SIMT_DTYPE_COUNT; d++)
                ((double *)(void *)at)[d] = 0.0;
            break;
        case SIMT_FIELD_CARVEOUTS:
            break;
        }
    }
}

int simt_resolve_gpu(struct simt_call *call, json_t *obj, const char *path, const char *key,
                     struct simt_resolved_gpu *out)
{
    char field[160];
    memset(out, 0, sizeof *out);
    json_t *value = field_value(call, obj, path, key, 1, field, sizeof field);
    if (value == NULL)
        return -1;
    json_t *overrides = NULL;
    const char *id;
    if (json_is_string(value)) {
        id = json_string_value(value);
    } else if (json_is_object(value)) {
        json_t *base = json_object_get(value, "base");
        char base_field[200];
        snprintf(base_field, sizeof base_field, "%s.base", field);
        if (base == NULL)
            return simt_call_fail(call, 400, "missing_field", base_field,
                                  "%s is required: the id of the GPU the what-if starts from", base_field);
        if (!json_is_string(base))
            return simt_call_fail(call, 400, "invalid_argument", base_field, "%s must be a GPU id string",
                                  base_field);
        id = json_string_value(base);
        overrides = value;
    } else {
        return simt_call_fail(
            call, 400, "invalid_argument", field,
            "%s must be a GPU id (GET /v1/gpus lists them) or an object {\"base\": id, ...}", field);
    }
    const struct simt_hwdb_gpu *record = simt_hwdb_find(call->db, id);
    if (record == NULL)
        return simt_call_fail(call, 404, "unknown_gpu", overrides != NULL ? "gpu.base" : field,
                              "unknown GPU '%.80s'; GET /v1/gpus lists the known ids", id);
    out->record = record;
    out->spec = record->spec;
    if (call->figures == SIMT_FIGURES_DATASHEET)
        zero_measured(&out->spec);
    if (overrides == NULL)
        return 0;

    out->overridden = json_array();
    const char *name;
    json_t *x;
    json_object_foreach(overrides, name, x)
    {
        if (strcmp(name, "base") == 0)
            continue;
        char sub[200];
        snprintf(sub, sizeof sub, "%s.%s", field, name);
        const struct simt_hwdb_field *f = simt_hwdb_field_find(name);
        if (f == NULL) {
            json_decref(out->overridden);
            out->overridden = NULL;
            return simt_call_fail(
                call, 400, "unknown_field", sub,
                "'%.80s' is not a numeric field of a GPU record (GET /v1/gpus/%s lists them)", name,
                record->id);
        }
        int rc = 0;
        if (f->type == SIMT_FIELD_DTYPES) {
            rc = apply_dtypes(call, f, x, sub, &out->spec);
        } else if (f->type == SIMT_FIELD_CARVEOUTS) {
            rc = apply_carveouts(call, f, x, sub, &out->spec);
        } else if (!json_is_number(x)) {
            rc = simt_call_fail(call, 400, "invalid_argument", sub, "%s must be a number in %g..%g", sub,
                                f->min, f->max);
        } else {
            struct simt_diag diag;
            memset(&diag, 0, sizeof diag);
            if (simt_hwdb_field_set(&out->spec, f, json_number_value(x), &diag) != 0)
                rc = simt_call_fail(call, 400, "invalid_argument", sub, "%s: %s", sub, diag.message);
        }
        if (rc != 0) {
            json_decref(out->overridden);
            out->overridden = NULL;
            return -1;
        }
        json_array_append_new(out->overridden, json_string(name));
    }
    /* A what-if keeps the relations every database GPU keeps (the models
     * rely on them: 8-byte lines on an H200 once divided by zero). */
    struct simt_diag why;
    memset(&why, 0, sizeof why);
    const char *other = NULL;
    if (simt_hwdb_spec_check(&out->spec, &why, &other) != SIMT_OK) {
        /* name the side of the relation the request changed */
        const char *culprit = json_object_get(overrides, why.field) == NULL && other != NULL &&
                                      json_object_get(overrides, other) != NULL
                                  ? other
                                  : why.field;
        char sub[200];
        snprintf(sub, sizeof sub, "%.120s.%.60s", field, culprit);
        json_decref(out->overridden);
        out->overridden = NULL;
        return simt_call_fail(call, 400, "invalid_argument", sub, "%s: %s %s; override %s and %s together",
                              sub, why.field, why.message, why.field,
                              other != NULL ? other : "the fields it depends on");
    }
    return 0;
}

json_t *simt_answer_from(struct simt_call *call, int rc, const struct simt_diag *diag,
                         struct simt_resolved_gpu *gpu)
{
    if (rc != SIMT_OK) {
        json_decref(gpu->overridden);
        gpu->overridden = NULL;
        simt_call_fail_diag(call, rc, "", diag);
        return NULL;
    }
    return simt_answer_new(gpu);
}

json_t *simt_answer_new(struct simt_resolved_gpu *gpu)
{
    json_t *answer = json_object();
    if (answer == NULL)
        return NULL;
    json_object_set_new(answer, "gpu", json_string(gpu->record->id));
    if (gpu->overridden != NULL) {
        json_object_set_new(answer, "overridden", gpu->overridden);
        gpu->overridden = NULL;
    }
    return answer;
}

void simt_set_real(json_t *obj, const char *key, double value)
{
    /* JSON has no infinity: an unbounded figure is null. Answers are dumped
     * with 12 significant digits, which hides float noise. */
    json_object_set_new(obj, key, isfinite(value) ? json_real(value) : json_null());
}

void simt_set_int(json_t *obj, const char *key, int64_t value)
{
    json_object_set_new(obj, key, json_integer((json_int_t)value));
}
