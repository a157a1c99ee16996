/* roofline.c - POST /v1/roofline: the hierarchical roofline of one piece of
 * work (flops at a precision, bytes per memory level). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "read.h"
#include "routes.h"
#include "resolve.h"
#include "roofline.h"
#include "rows.h"

/* enum simt_dtype's order */
static const char *const precisions[] = {"fp64", "fp32", "tf32",  "fp16",  "bf16",  "fp8",   "int8", "int4",
                                         "fp6",  "fp4",  "mxfp8", "mxfp6", "mxfp4", "nvfp4", NULL};

#define MAX_AMOUNT 1e30

/* In the order of enum simt_mem_level. */
static const struct simt_api_field level_fields[] = {
    SIMT_ROW_RANGE("dram", SIMT_API_NUMBER, 0, 0.0, MAX_AMOUNT, 0.0, "dram bytes"),
    SIMT_ROW_RANGE("l2", SIMT_API_NUMBER, 0, 0.0, MAX_AMOUNT, 0.0, "l2 bytes"),
    SIMT_ROW_RANGE("shared", SIMT_API_NUMBER, 0, 0.0, MAX_AMOUNT, 0.0, "shared bytes"),
};

#define R struct simt_roofline_request
static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_NUMBER("flops", SIMT_API_REQUIRED, 0.0, MAX_AMOUNT, 0.0, R, flops,
                    "Floating-point operations (an FMA counts 2)."),
    SIMT_ROW_CHOICE("precision", 0, precisions, 1, R, precision, "Number format; default fp32."),
    SIMT_ROW_BOOL("tensor_cores", 0, 0, R, tensor_cores, "Use the tensor-core peak."),
    SIMT_ROW_BOOL("sparse", 0, 0, R, sparse,
                  "Use the 2:4 sparse tensor-core peak (with tensor_cores; 422 where the GPU has none)."),
    SIMT_ROW_OBJECT("bytes", SIMT_API_SHAPE, SIMT_API_REQUIRED, level_fields,
                    "DRAM bytes, or an object of bytes per memory level."),
};
#undef R

/* bytes: a number (DRAM bytes) or {"dram", "l2", "shared"}. */
static int read_bytes(struct simt_call *call, struct simt_roofline_request *req)
{
    json_t *bytes = json_object_get(call->body, "bytes");
    if (bytes == NULL)
        return simt_call_fail(call, 400, "missing_field", "bytes",
                              "bytes is required: a number (DRAM bytes) or {\"dram\", \"l2\", \"shared\"}");
    if (json_is_number(bytes)) {
        req->level_given[SIMT_LEVEL_DRAM] = 1;
        return simt_read_double(call, call->body, "", "bytes", 1, 0.0, MAX_AMOUNT, 0.0,
                                &req->bytes[SIMT_LEVEL_DRAM]);
    }
    if (!json_is_object(bytes))
        return simt_call_fail(
            call, 400, "invalid_argument", "bytes",
            "bytes must be a number (DRAM bytes) or an object {\"dram\", \"l2\", \"shared\"}");
    int rc = simt_read_check_keys(call, bytes, "bytes", level_fields, SIMT_COUNT_OF(level_fields));
    if (rc != 0)
        return rc;
    int any = 0;
    for (int l = 0; l < SIMT_LEVEL_COUNT; l++) {
        const struct simt_api_field *level = &level_fields[l];
        if (json_object_get(bytes, level->name) == NULL)
            continue;
        any = 1;
        req->level_given[l] = 1;
        rc = simt_read_double(call, bytes, "bytes", level->name, 1, level->min, level->max, 0.0,
                              &req->bytes[l]);
        if (rc != 0)
            return rc;
    }
    if (!any)
        return simt_call_fail(call, 400, "missing_field", "bytes.dram", "bytes names no level");
    return 0;
}

static json_t *answer_roofline(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_roofline_request req;
    memset(&req, 0, sizeof req);
    int precision_given = json_object_get(call->body, "precision") != NULL;
    int tensor_given = json_object_get(call->body, "tensor_cores") != NULL;
    if (simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 0, NULL, &req) != 0 ||
        read_bytes(call, &req) != 0)
        return NULL;
    struct simt_roofline_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_roofline_compute(&gpu->figures, &req, &r, &diag);
    if (rc == SIMT_EUNSAT && (strcmp(diag.field, "precision") == 0 || strcmp(diag.field, "sparse") == 0)) {
        /* say which GPU lacks the peak */
        char message[sizeof diag.message];
        snprintf(message, sizeof message, "%.60s: %.440s", gpu->record->id, diag.message);
        snprintf(diag.message, sizeof diag.message, "%s", message);
    }
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_real(answer, "arithmetic_intensity", r.arithmetic_intensity);
    simt_call_set_real(answer, "ridge_point", r.ridge_point);
    simt_call_set_real(answer, "attainable_flops_per_s", r.attainable_flops_per_s);
    simt_call_set_real(answer, "time_s", r.time_s);
    json_object_set_new(answer, "bound",
                        json_string(r.bound == SIMT_ROOF_COMPUTE
                                        ? "compute"
                                        : simt_mem_level_name((enum simt_mem_level)r.bound)));
    simt_call_set_real(answer, "peak_flops_per_s", r.peak_flops_per_s);
    simt_call_set_real(answer, "compute_time_s", r.compute_time_s);
    json_t *levels = json_array();
    for (int l = 0; l < SIMT_LEVEL_COUNT; l++) {
        const struct simt_roofline_level *lv = &r.levels[l];
        if (!lv->given)
            continue;
        json_t *item = json_object();
        json_object_set_new(item, "level", json_string(simt_mem_level_name((enum simt_mem_level)l)));
        simt_call_set_real(item, "bytes", lv->bytes);
        simt_call_set_real(item, "time_s", lv->time_s);
        simt_call_set_real(item, "intensity", lv->intensity);
        simt_call_set_real(item, "bandwidth_bytes_per_s", lv->bandwidth_bytes_per_s);
        simt_call_set_real(item, "ridge_point", lv->ridge_point);
        simt_call_set_real(item, "attainable_flops_per_s", lv->attainable_flops_per_s);
        json_array_append_new(levels, item);
    }
    json_object_set_new(answer, "levels", levels);

    const char *name = simt_dtype_name(req.precision);
    if (!precision_given)
        simt_call_assume(call, "precision: fp32 (not given)");
    if (!tensor_given)
        simt_call_assume(call, "tensor_cores: false (not given)");
    if (req.tensor_cores && req.sparse)
        simt_call_assume(
            call,
            "peak: 2:4 sparse tensor-core %s (the datasheet's sparse rate times the dense rate's "
            "achievable fraction; flops counted as the dense work's)",
            name);
    else if (req.tensor_cores)
        simt_call_assume(call, "peak: dense tensor-core %s", name);
    else if (req.precision == SIMT_DTYPE_BF16)
        simt_call_assume(call, "peak: bf16 on CUDA cores taken at the packed fp16 (half2) rate");
    else
        simt_call_assume(call, "peak: %s on CUDA cores (an FMA counts 2 flops)", name);
    simt_call_assume(call, "time: the longest of compute and each level's transfer (they overlap fully)");
    if (r.headline_level >= 0 && r.headline_level != SIMT_LEVEL_DRAM)
        simt_call_assume(call,
                         "arithmetic_intensity and ridge_point are for the %s level (no DRAM bytes given)",
                         simt_mem_level_name((enum simt_mem_level)r.headline_level));
    simt_call_assume_figures(call, &gpu->figures, r.figures_used);
    return answer;
}

const struct simt_api_endpoint simt_api_roofline_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/roofline", answer_roofline, fields,
    "The hierarchical roofline of one piece of work: flops at a precision, bytes per memory level.");
