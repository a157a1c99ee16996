/* service.c - the service and database endpoints: GET /healthz,
 * GET /v1/gpus and GET /v1/gpus/{id} (the whole record, grouped as in the
 * YAML, with its sources and, when measured, the measured figures). */
#include <string.h>

#include "call.h"
#include "routes.h"

#ifndef SIMT_VERSION
#define SIMT_VERSION "0.0.0"
#endif

static json_t *answer_healthz(struct simt_call *call)
{
    return json_pack("{s:s, s:I, s:s}", "status", "ok", "gpus", (json_int_t)simt_hwdb_count(call->db),
                     "version", SIMT_VERSION);
}

static json_t *answer_gpus_list(struct simt_call *call)
{
    json_t *list = json_array();
    size_t n = simt_hwdb_count(call->db);
    for (size_t i = 0; i < n; i++) {
        const struct simt_hwdb_gpu *gpu = simt_hwdb_at(call->db, i);
        json_t *item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "id", gpu->id, "name", gpu->name, "vendor",
                                 gpu->vendor, "architecture", gpu->architecture, "compute_capability",
                                 gpu->compute_capability, "sm_count", gpu->spec.sm_count);
        if (item == NULL)
            continue;
        simt_call_set_real(item, "dram_bytes", gpu->spec.dram_bytes);
        simt_call_set_real(item, "dram_bandwidth_bytes_per_s", gpu->spec.dram_bandwidth_bytes_per_s);
        json_object_set_new(item, "measured", json_boolean(gpu->has_measured));
        json_array_append_new(list, item);
    }
    return json_pack("{s:o}", "gpus", list);
}

static json_t *field_json(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *f)
{
    const char *at = (const char *)spec + f->offset;
    switch (f->type) {
    case SIMT_FIELD_DTYPES: {
        json_t *obj = json_object();
        const double *array = (const double *)(const void *)at;
        for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
            if (array[d] > 0.0)
                json_object_set_new(obj, simt_dtype_name((enum simt_dtype)d), json_real(array[d]));
        }
        return obj;
    }
    case SIMT_FIELD_CARVEOUTS: {
        json_t *list = json_array();
        const int64_t *array = (const int64_t *)(const void *)at;
        for (int i = 0; i < spec->shared_carveout_count && i < SIMT_MAX_CARVEOUTS; i++)
            json_array_append_new(list, json_integer((json_int_t)array[i]));
        return list;
    }
    case SIMT_FIELD_INT_LIST: {
        json_t *list = json_array();
        const int *values = NULL;
        int count = simt_hwdb_field_get_list(spec, f, &values);
        for (int i = 0; i < count; i++)
            json_array_append_new(list, json_integer((json_int_t)values[i]));
        return list;
    }
    case SIMT_FIELD_DOUBLE:
        return json_real(simt_hwdb_field_get(spec, f));
    case SIMT_FIELD_INT:
    case SIMT_FIELD_INT64:
        break;
    }
    return json_integer((json_int_t)simt_hwdb_field_get(spec, f));
}

static int field_present(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *f)
{
    if (f->type == SIMT_FIELD_DTYPES) {
        const double *array = (const double *)(const void *)((const char *)spec + f->offset);
        for (int d = 0; d < SIMT_DTYPE_COUNT; d++)
            if (array[d] > 0.0)
                return 1;
        return 0;
    }
    if (f->type == SIMT_FIELD_CARVEOUTS)
        return spec->shared_carveout_count > 0;
    if (f->type == SIMT_FIELD_INT_LIST)
        return simt_hwdb_field_get_list(spec, f, NULL) > 0;
    double value = simt_hwdb_field_get(spec, f);
    return value > 0.0 || value < 0.0;
}

static json_t *answer_gpus_get(struct simt_call *call)
{
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(call->db, call->path_param);
    if (gpu == NULL) {
        simt_call_fail(call, 404, "unknown_gpu", NULL,
                       "unknown GPU '%.80s'; GET /v1/gpus lists the known ids", call->path_param);
        return NULL;
    }
    json_t *record =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id", gpu->id, "name", gpu->name, "vendor",
                  gpu->vendor, "architecture", gpu->architecture, "arch", gpu->arch_id, "compute_capability",
                  gpu->compute_capability, "form_factor", gpu->form_factor);
    if (record == NULL)
        return NULL;
    size_t count = 0;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    for (size_t i = 0; i < count; i++) {
        const struct simt_hwdb_field *f = &fields[i];
        int measured = strcmp(f->group, "measured") == 0;
        /* absent optional figures are left out rather than shown as 0 */
        if (!field_present(&gpu->spec, f) && (measured || f->required == 0))
            continue;
        json_t *group = json_object_get(record, f->group);
        if (group == NULL) {
            group = json_object();
            json_object_set_new(record, f->group, group);
        }
        json_object_set_new(group, f->key, field_json(&gpu->spec, f));
    }
    json_t *measured = json_object_get(record, "measured");
    if (gpu->has_measured && measured != NULL) {
        json_object_set_new(measured, "method", json_string(gpu->measured_method));
        json_object_set_new(measured, "date", json_string(gpu->measured_date));
        json_object_set_new(measured, "device", json_string(gpu->measured_device));
        json_object_set_new(measured, "driver", json_string(gpu->measured_driver));
    }
    json_t *sources = json_object();
    for (int i = 0; i < gpu->source_count && i < SIMT_HWDB_MAX_SOURCES; i++)
        json_object_set_new(sources, gpu->sources[i].group, json_string(gpu->sources[i].text));
    json_object_set_new(record, "sources", sources);
    return record;
}

const struct simt_api_endpoint simt_api_service_healthz = {
    .method = "GET",
    .route = "/healthz",
    .handler = answer_healthz,
    .doc = "Liveness: status, the number of GPUs served and the version.",
};

const struct simt_api_endpoint simt_api_service_gpus_list = {
    .method = "GET",
    .route = "/v1/gpus",
    .handler = answer_gpus_list,
    .doc = "The GPUs of the database, one summary each.",
};

const struct simt_api_endpoint simt_api_service_gpus_get = {
    .method = "GET",
    .route = "/v1/gpus/{id}",
    .handler = answer_gpus_get,
    .doc = "One GPU's whole record, grouped as in its YAML file, with its sources.",
};
