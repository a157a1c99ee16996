/* read.h - strict readers of request fields: each names the field (a JSON
 * path) and the expected type or range in the contract's error when the
 * value is wrong. The descriptor-driven ones read a field as its row of the
 * endpoint table (endpoint.h) says; the typed ones are what they are built
 * on. Special shapes (warp accesses, branches) are in warp_json.h, the GPU
 * in resolve.h. Not installed.
 *
 * Every reader returns 0, or a negative SIMT_E* code after recording the
 * error in the call (call.h); on failure *out may be unchanged. JSON objects
 * passed in are borrowed. */
#ifndef SIMT_API_READ_H
#define SIMT_API_READ_H

#include <jansson.h>
#include <stdint.h>

#include "call.h"
#include "endpoint.h"

/* Refuses (400 unknown_field, listing the known names) any key of obj that
 * is not one of fields[0..count). path is obj's JSON path ("" for the body). */
int simt_read_check_keys(struct simt_call *call, json_t *obj, const char *path,
                         const struct simt_api_field *fields, size_t count);

/* Reads obj[field->name] as the row says into out: int or int64_t
 * (INTEGER, by SIMT_API_INT64), double (NUMBER), int (BOOLEAN; STRING: the
 * index into choices). Absent and optional: the row's default, or out left
 * alone with SIMT_API_KEEP. Rows of other types: SIMT_EINVAL, nothing read. */
int simt_read_field(struct simt_call *call, json_t *obj, const char *path, const struct simt_api_field *field,
                    void *out);

/* Reads, in order, every STORED row of fields[0..count) in `group` (except
 * `skip`, which may be NULL) into request + row->offset; stops at the first
 * error. */
int simt_read_fields(struct simt_call *call, json_t *obj, const char *path,
                     const struct simt_api_field *fields, size_t count, unsigned group,
                     const struct simt_api_field *skip, void *request);

/* The row of fields[0..count) called name, or NULL. */
const struct simt_api_field *simt_read_field_named(const struct simt_api_field *fields, size_t count,
                                                   const char *name);

/* Builds "prefix.key" (or "key" when prefix is empty) into buf. */
const char *simt_read_path(char *buf, size_t size, const char *prefix, const char *key);

/* The typed readers. `required` 1: absent -> 400 missing_field; 0: absent ->
 * *out = dflt. Wrong type -> 400 invalid_argument; outside [min, max] -> 400
 * invalid_argument naming the range. Integers accept integral JSON reals. */
int simt_read_int64(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                    int64_t min, int64_t max, int64_t dflt, int64_t *out);
int simt_read_int(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                  int min, int max, int dflt, int *out);
int simt_read_double(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                     double min, double max, double dflt, double *out);
int simt_read_bool(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                   int dflt, int *out);
/* String restricted to a NULL-terminated list of choices; *index receives
 * the position of the match (dflt_index when absent and not required). */
int simt_read_enum(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                   const char *const *choices, int dflt_index, int *index);

/* obj[key] when it is an object (or absent and optional: *out = NULL). */
int simt_read_object(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                     json_t **out);

#endif
