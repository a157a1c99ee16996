/* resolve.c - the "gpu" of a request: a database id, or a what-if object
 * whose JSON this file walks, leaving the numbers to hwdb/whatif.c; then the
 * call's figure policy applied. What it resolves belongs to the call. */
#include "resolve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "read.h"
#include "whatif.h"

#define MAX_OVERRIDES 128

static int apply_dtypes(struct simt_call *call, const struct simt_hwdb_field *f, json_t *value,
                        const char *field, struct simt_gpu_spec *spec)
{
    if (!json_is_object(value))
        return simt_call_fail(call, 400, "invalid_argument", field,
                              "%s must be an object of numbers by data type, e.g. {\"bf16\": 9.89e14}",
                              field);
    const char *dtype_name;
    json_t *x;
    json_object_foreach(value, dtype_name, x)
    {
        char sub[200];
        snprintf(sub, sizeof sub, "%.120s.%.60s", field, dtype_name);
        enum simt_dtype dtype;
        if (simt_dtype_parse(dtype_name, &dtype) != 0) {
            char names[200];
            return simt_call_fail(call, 400, "unknown_field", sub, "unknown data type '%.40s'; use %s",
                                  dtype_name, simt_dtype_list(names, sizeof names));
        }
        struct simt_diag diag;
        memset(&diag, 0, sizeof diag);
        if (!json_is_number(x) || !isfinite(json_number_value(x)) ||
            simt_whatif_set_dtype(spec, f->name, dtype, json_number_value(x), &diag) != SIMT_OK)
            return simt_call_fail(call, 400, "invalid_argument", sub, "%s must be a number in %g..%g", sub,
                                  f->min, f->max);
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
    int64_t bytes[SIMT_MAX_CARVEOUTS];
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(value, i);
        struct simt_diag diag;
        memset(&diag, 0, sizeof diag);
        bytes[i] = json_is_integer(x) ? (int64_t)json_integer_value(x) : 0;
        /* each prefix is checked, so the first bad size is the one named */
        if (!json_is_integer(x) ||
            simt_whatif_set_carveouts(spec, f->name, bytes, (int)i + 1, &diag) != SIMT_OK)
            return simt_call_fail(
                call, 400, "invalid_argument", field,
                "%s[%zu] must be an integer byte size in %g..%g, larger than the one before", field, i,
                f->min, f->max);
    }
    return 0;
}

/* One override: the field's JSON shape, then hwdb sets it. */
static int apply_override(struct simt_call *call, const char *name, json_t *x, const char *sub,
                          const char *record_id, struct simt_gpu_spec *spec)
{
    const struct simt_hwdb_field *f = simt_hwdb_field_find(name);
    if (f == NULL)
        return simt_call_fail(call, 400, "unknown_field", sub,
                              "'%.80s' is not a numeric field of a GPU record (GET /v1/gpus/%s lists them)",
                              name, record_id);
    if (f->type == SIMT_FIELD_DTYPES)
        return apply_dtypes(call, f, x, sub, spec);
    if (f->type == SIMT_FIELD_CARVEOUTS)
        return apply_carveouts(call, f, x, sub, spec);
    if (!json_is_number(x))
        return simt_call_fail(call, 400, "invalid_argument", sub, "%s must be a number in %g..%g", sub,
                              f->min, f->max);
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    if (simt_whatif_set(spec, name, json_number_value(x), &diag) != SIMT_OK)
        return simt_call_fail(call, 400, "invalid_argument", sub, "%s: %s", sub, diag.message);
    return 0;
}

/* The what-if's overrides onto gpu->spec, named in gpu->overridden. */
static int apply_overrides(struct simt_call *call, json_t *overrides, const char *field,
                           struct simt_resolved_gpu *gpu)
{
    gpu->overridden = json_array();
    const char *names[MAX_OVERRIDES];
    size_t count = 0;
    const char *name;
    json_t *x;
    json_object_foreach(overrides, name, x)
    {
        if (strcmp(name, "base") == 0)
            continue;
        char sub[200];
        snprintf(sub, sizeof sub, "%s.%s", field, name);
        int rc = apply_override(call, name, x, sub, gpu->record->id, &gpu->spec);
        if (rc != 0)
            return rc;
        json_array_append_new(gpu->overridden, json_string(name));
        if (count < MAX_OVERRIDES)
            names[count++] = name;
    }
    /* A what-if keeps the relations every database GPU keeps (the models
     * rely on them: 8-byte lines on an H200 once divided by zero). */
    struct simt_diag why;
    memset(&why, 0, sizeof why);
    const char *other = NULL, *culprit = NULL;
    if (simt_whatif_check(&gpu->spec, names, count, &why, &other, &culprit) != SIMT_OK) {
        char sub[200];
        snprintf(sub, sizeof sub, "%.120s.%.60s", field, culprit);
        return simt_call_fail(call, 400, "invalid_argument", sub, "%s: %s %s; override %s and %s together",
                              sub, why.field, why.message, why.field,
                              other != NULL ? other : "the fields it depends on");
    }
    /* the figure rule: measured figures move with their datasheet figures */
    struct simt_whatif_scaled scaled[SIMT_WHATIF_MAX_SCALED];
    size_t scaled_count = 0;
    simt_whatif_scale_measured(&gpu->record->spec, &gpu->spec, names, count, &gpu->marks, scaled,
                               &scaled_count);
    for (size_t i = 0; i < scaled_count && call->policy == SIMT_POLICY_PREFER_MEASURED; i++) {
        const char *dtype = scaled[i].dtype >= 0 ? simt_dtype_name((enum simt_dtype)scaled[i].dtype) : NULL;
        simt_call_assume(call, "what-if: %s%s%s moved in proportion to %s, %.4g -> %.4g", scaled[i].measured,
                         dtype != NULL ? "." : "", dtype != NULL ? dtype : "", scaled[i].datasheet,
                         scaled[i].from, scaled[i].to);
    }
    return 0;
}

/* The id obj[key] names and, for a what-if, its object; 0 or an error. */
static int gpu_reference(struct simt_call *call, json_t *value, const char *field, const char **id,
                         json_t **overrides)
{
    *overrides = NULL;
    if (json_is_string(value)) {
        *id = json_string_value(value);
        return 0;
    }
    if (!json_is_object(value))
        return simt_call_fail(
            call, 400, "invalid_argument", field,
            "%s must be a GPU id (GET /v1/gpus lists them) or an object {\"base\": id, ...}", field);
    json_t *base = json_object_get(value, "base");
    char base_field[200];
    snprintf(base_field, sizeof base_field, "%s.base", field);
    if (base == NULL)
        return simt_call_fail(call, 400, "missing_field", base_field,
                              "%s is required: the id of the GPU the what-if starts from", base_field);
    if (!json_is_string(base))
        return simt_call_fail(call, 400, "invalid_argument", base_field, "%s must be a GPU id string",
                              base_field);
    *id = json_string_value(base);
    *overrides = value;
    return 0;
}

const struct simt_resolved_gpu *simt_resolve_gpu(struct simt_call *call, json_t *obj, const char *path,
                                                 const char *key)
{
    char field[160];
    simt_read_path(field, sizeof field, path, key);
    json_t *value = json_object_get(obj, key);
    if (value == NULL) {
        simt_call_fail(call, 400, "missing_field", field, "%s is required", field);
        return NULL;
    }
    const char *id = NULL;
    json_t *overrides = NULL;
    if (gpu_reference(call, value, field, &id, &overrides) != 0)
        return NULL;
    const struct simt_hwdb_gpu *record = simt_hwdb_find(call->db, id);
    if (record == NULL) {
        simt_call_fail(call, 404, "unknown_gpu", overrides != NULL ? "gpu.base" : field,
                       "unknown GPU '%.80s'; GET /v1/gpus lists the known ids", id);
        return NULL;
    }
    struct simt_resolved_gpu *gpu = &call->gpu;
    if (call->has_gpu)
        json_decref(gpu->overridden); /* a second GPU replaces the first */
    memset(gpu, 0, sizeof *gpu);
    call->has_gpu = 1; /* from here the call releases what gpu holds */
    gpu->record = record;
    gpu->spec = record->spec;
    if (overrides != NULL && apply_overrides(call, overrides, field, gpu) != 0)
        return NULL;
    /* the one place the figure policy applies: the figure set ("figures":
     * "datasheet" leaves measured figures out of it, not out of the spec) */
    simt_figure_set_init_overridden(&gpu->spec, call->policy, &gpu->marks, &gpu->figures);
    return gpu;
}
