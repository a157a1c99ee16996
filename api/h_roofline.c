/* h_roofline.c - POST /v1/roofline: the hierarchical roofline of one piece of
 * work (flops at a precision, bytes per memory level). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "roofline.h"
#include "warp_json.h"

static const char *const roofline_keys[] = {"gpu", "flops", "precision", "tensor_cores", "bytes", NULL};
static const char *const level_keys[] = {"dram", "l2", "shared", NULL};
static const char *const precisions[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4", NULL};

#define MAX_AMOUNT 1e30

/* bytes: a number (DRAM bytes) or {"dram", "l2", "shared"}. */
static int read_bytes(struct simt_call *call, struct simt_roofline_request *req)
{
    json_t *bytes = json_object_get(call->body, "bytes");
    if (bytes == NULL)
        return simt_call_fail(call, 400, "missing_field", "bytes",
                              "bytes is required: a number (DRAM bytes) or {\"dram\", \"l2\", \"shared\"}");
    if (json_is_number(bytes)) {
        req->level_given[SIMT_LEVEL_DRAM] = 1;
        return simt_get_double(call, call->body, "", "bytes", 1, 0.0, MAX_AMOUNT, 0.0,
                               &req->bytes[SIMT_LEVEL_DRAM]);
    }
    if (!json_is_object(bytes))
        return simt_call_fail(
            call, 400, "invalid_argument", "bytes",
            "bytes must be a number (DRAM bytes) or an object {\"dram\", \"l2\", \"shared\"}");
    if (simt_check_keys(call, bytes, "bytes", level_keys) != 0)
        return -1;
    int any = 0;
    for (int l = 0; l < SIMT_LEVEL_COUNT; l++) {
        if (json_object_get(bytes, level_keys[l]) == NULL)
            continue;
        any = 1;
        req->level_given[l] = 1;
        if (simt_get_double(call, bytes, "bytes", level_keys[l], 1, 0.0, MAX_AMOUNT, 0.0, &req->bytes[l]) !=
            0)
            return -1;
    }
    if (!any)
        return simt_call_fail(call, 400, "missing_field", "bytes.dram", "bytes names no level");
    return 0;
}

json_t *h_roofline(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", roofline_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    struct simt_roofline_request req;
    memset(&req, 0, sizeof req);
    int precision = 1;
    int precision_given = json_object_get(call->body, "precision") != NULL;
    int tensor_given = json_object_get(call->body, "tensor_cores") != NULL;
    if (simt_get_double(call, call->body, "", "flops", 1, 0.0, MAX_AMOUNT, 0.0, &req.flops) != 0 ||
        simt_get_enum(call, call->body, "", "precision", 0, precisions, 1, &precision) != 0 ||
        simt_get_bool(call, call->body, "", "tensor_cores", 0, 0, &req.tensor_cores) != 0 ||
        read_bytes(call, &req) != 0) {
        json_decref(gpu.overridden);
        return NULL;
    }
    if (simt_dtype_parse(precisions[precision], &req.precision) != SIMT_OK) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "precision", "unknown precision");
        return NULL;
    }
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu.spec, simt_call_policy(call), &figures);
    struct simt_roofline_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_roofline_compute(&figures, &req, &r, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_real(answer, "arithmetic_intensity", r.arithmetic_intensity);
    simt_set_real(answer, "ridge_point", r.ridge_point);
    simt_set_real(answer, "attainable_flops_per_s", r.attainable_flops_per_s);
    simt_set_real(answer, "time_s", r.time_s);
    json_object_set_new(answer, "bound",
                        json_string(r.bound == SIMT_ROOF_COMPUTE
                                        ? "compute"
                                        : simt_mem_level_name((enum simt_mem_level)r.bound)));
    simt_set_real(answer, "peak_flops_per_s", r.peak_flops_per_s);
    simt_set_real(answer, "compute_time_s", r.compute_time_s);
    json_t *levels = json_array();
    for (int l = 0; l < SIMT_LEVEL_COUNT; l++) {
        const struct simt_roofline_level *lv = &r.levels[l];
        if (!lv->given)
            continue;
        json_t *item = json_object();
        json_object_set_new(item, "level", json_string(simt_mem_level_name((enum simt_mem_level)l)));
        simt_set_real(item, "bytes", lv->bytes);
        simt_set_real(item, "time_s", lv->time_s);
        simt_set_real(item, "intensity", lv->intensity);
        simt_set_real(item, "bandwidth_bytes_per_s", lv->bandwidth_bytes_per_s);
        simt_set_real(item, "ridge_point", lv->ridge_point);
        simt_set_real(item, "attainable_flops_per_s", lv->attainable_flops_per_s);
        json_array_append_new(levels, item);
    }
    json_object_set_new(answer, "levels", levels);

    const char *name = simt_dtype_name(req.precision);
    if (!precision_given)
        simt_call_assume(call, "precision: fp32 (not given)");
    if (!tensor_given)
        simt_call_assume(call, "tensor_cores: false (not given)");
    if (req.tensor_cores)
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
    simt_assume_figures(call, &figures, r.figures_used);
    return answer;
}
