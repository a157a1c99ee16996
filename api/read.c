/* read.c - strict readers for request fields that name the field and the
 * expected range on failure; the descriptor-driven ones read a field as its
 * row of the endpoint table says. */
#include "read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
const char *simt_read_path(char *buf, size_t size, const char *prefix, const char *key)
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

int simt_read_check_keys(struct simt_call *call, json_t *obj, const char *path,
                         const struct simt_api_field *fields, size_t count)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        int known = 0;
        for (size_t i = 0; i < count; i++) {
            if (strcmp(key, fields[i].name) == 0) {
                known = 1;
                break;
            }
        }
        if (!known) {
            char field[160];
            char list[400] = "";
            size_t used = 0;
            for (size_t i = 0; i < count && used + 2 < sizeof list; i++) {
                int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", fields[i].name);
                if (n < 0)
                    break;
                used += (size_t)n;
            }
            return simt_call_fail(call, 400, "unknown_field", simt_read_path(field, sizeof field, path, key),
                                  "unknown field '%.100s'; known fields here: %s", key, list);
        }
    }
    return 0;
}

static json_t *field_value(struct simt_call *call, json_t *obj, const char *path, const char *key,
                           int required, char *field, size_t field_size)
{
    simt_read_path(field, field_size, path, key);
    json_t *value = json_object_get(obj, key);
    if (value == NULL && required)
        simt_call_fail(call, 400, "missing_field", field, "%s is required", field);
    return value;
}

int simt_read_int64(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                    int64_t min, int64_t max, int64_t dflt, int64_t *out)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *out = dflt;
        return required ? SIMT_EINVAL : 0;
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

int simt_read_int(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                  int min, int max, int dflt, int *out)
{
    int64_t wide = dflt;
    int rc = simt_read_int64(call, obj, path, key, required, min, max, dflt, &wide);
    if (rc != 0)
        return rc;
    *out = (int)wide;
    return 0;
}

int simt_read_double(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                     double min, double max, double dflt, double *out)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *out = dflt;
        return required ? SIMT_EINVAL : 0;
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

int simt_read_bool(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                   int dflt, int *out)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *out = dflt;
        return required ? SIMT_EINVAL : 0;
    }
    if (!json_is_boolean(value))
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be true or false", field);
    *out = json_is_true(value);
    return 0;
}

int simt_read_enum(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                   const char *const *choices, int dflt_index, int *index)
{
    char field[160];
    json_t *value = field_value(call, obj, path, key, required, field, sizeof field);
    if (value == NULL) {
        *index = dflt_index;
        return required ? SIMT_EINVAL : 0;
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

int simt_read_object(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                     json_t **out)
{
    char field[160];
    simt_read_path(field, sizeof field, path, key);
    *out = json_object_get(obj, key);
    if (*out == NULL)
        return required ? simt_call_fail(call, 400, "missing_field", field, "%s is required", field) : 0;
    if (!json_is_object(*out))
        return simt_call_fail(call, 400, "invalid_argument", field, "%s must be an object", field);
    return 0;
}

int simt_read_field(struct simt_call *call, json_t *obj, const char *path, const struct simt_api_field *field,
                    void *out)
{
    int required = (field->flags & (SIMT_API_REQUIRED | SIMT_API_REQUIRED_IN_FORM)) != 0;
    if (!required && (field->flags & SIMT_API_KEEP) && json_object_get(obj, field->name) == NULL)
        return 0;
    switch (field->type) {
    case SIMT_API_INTEGER:
        if (field->flags & SIMT_API_INT64)
            return simt_read_int64(call, obj, path, field->name, required, (int64_t)field->min,
                                   (int64_t)field->max, (int64_t)field->dflt, out);
        return simt_read_int(call, obj, path, field->name, required, (int)field->min, (int)field->max,
                             (int)field->dflt, out);
    case SIMT_API_NUMBER:
        return simt_read_double(call, obj, path, field->name, required, field->min, field->max, field->dflt,
                                out);
    case SIMT_API_BOOLEAN:
        return simt_read_bool(call, obj, path, field->name, required, (int)field->dflt, out);
    case SIMT_API_STRING:
        return simt_read_enum(call, obj, path, field->name, required, field->choices, (int)field->dflt, out);
    case SIMT_API_GPU:
    case SIMT_API_OBJECT:
    case SIMT_API_ARRAY:
    case SIMT_API_SHAPE:
        break;
    }
    return SIMT_EINVAL;
}

int simt_read_fields(struct simt_call *call, json_t *obj, const char *path,
                     const struct simt_api_field *fields, size_t count, unsigned group,
                     const struct simt_api_field *skip, void *request)
{
    for (size_t i = 0; i < count; i++) {
        const struct simt_api_field *field = &fields[i];
        if (!(field->flags & SIMT_API_STORED) || SIMT_API_GROUP_OF(field->flags) != group || field == skip)
            continue;
        int rc = simt_read_field(call, obj, path, field, (char *)request + field->offset);
        if (rc != 0)
            return rc;
    }
    return 0;
}

const struct simt_api_field *simt_read_field_named(const struct simt_api_field *fields, size_t count,
                                                   const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}
