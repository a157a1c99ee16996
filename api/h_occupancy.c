/* h_occupancy.c - POST /v1/occupancy, /v1/occupancy/sweep and
 * /v1/launch/suggest: read the kernel's attributes strictly, run the
 * occupancy model, answer in the contract's shape. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"

#define MAX_BYTES ((int64_t)1 << 40)

static const char *const occupancy_keys[] = {
    "gpu",
    "block_size",
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
    "max_dynamic_shared_bytes",
    "carveout_percent",
    "block_barriers",
    "grid_size",
    "sgprs_per_wave",
    NULL,
};

/* Reads the occupancy request's fields from obj; `varied` (or NULL) is the
 * field a sweep varies, which the body must leave out. */
static int read_occupancy_request(struct simt_call *call, json_t *obj, const char *varied,
                                  struct simt_occ_request *req)
{
    simt_occupancy_request_init(req);
    if (varied != NULL && json_object_get(obj, varied) != NULL) {
        return simt_call_fail(call, 400, "invalid_argument", varied,
                              "%s is what this sweep varies: leave it out and use from, to and step", varied);
    }
    int is_block = varied != NULL && strcmp(varied, "block_size") == 0;
    int is_regs = varied != NULL && strcmp(varied, "registers_per_thread") == 0;
    int is_dyn = varied != NULL && strcmp(varied, "dynamic_shared_bytes") == 0;
    if (!is_block && simt_get_int(call, obj, "", "block_size", 1, 1, 1 << 20, 0, &req->block_size) != 0)
        return -1;
    if (!is_regs && simt_get_int(call, obj, "", "registers_per_thread", 1, 0, 1 << 16, 0,
                                 &req->registers_per_thread) != 0)
        return -1;
    if (simt_get_int64(call, obj, "", "static_shared_bytes", 0, 0, MAX_BYTES, 0, &req->static_shared_bytes) !=
        0)
        return -1;
    if (!is_dyn && simt_get_int64(call, obj, "", "dynamic_shared_bytes", 0, 0, MAX_BYTES, 0,
                                  &req->dynamic_shared_bytes) != 0)
        return -1;
    if (simt_get_int64(call, obj, "", "max_dynamic_shared_bytes", 0, -1, MAX_BYTES, -1,
                       &req->max_dynamic_shared_bytes) != 0)
        return -1;
    if (simt_get_int(call, obj, "", "carveout_percent", 0, -1, 100, -1, &req->carveout_percent) != 0)
        return -1;
    if (simt_get_int(call, obj, "", "block_barriers", 0, 0, 1024, 1, &req->block_barriers) != 0)
        return -1;
    if (simt_get_int64(call, obj, "", "grid_size", 0, 1, (int64_t)1 << 40, 0, &req->grid_size) != 0)
        return -1;
    if (simt_get_int(call, obj, "", "sgprs_per_wave", 0, 0, 1 << 16, 0, &req->sgprs_per_wave) != 0)
        return -1;
    return 0;
}

static json_t *limiter_list(unsigned limiters)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {SIMT_LIMIT_WARPS, "warps"},          {SIMT_LIMIT_REGISTERS, "registers"},
        {SIMT_LIMIT_SHARED, "shared_memory"}, {SIMT_LIMIT_BLOCKS, "blocks"},
        {SIMT_LIMIT_BARRIERS, "barriers"},
    };
    json_t *list = json_array();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (limiters & names[i].bit)
            json_array_append_new(list, json_string(names[i].name));
    return list;
}

/* A limit that does not apply (no registers, no shared memory) is null. */
static void set_limit(json_t *limits, const char *key, int blocks)
{
    if (blocks == SIMT_OCC_NO_LIMIT)
        json_object_set_new(limits, key, json_null());
    else
        simt_set_int(limits, key, blocks);
}

void simt_occupancy_fill(json_t *answer, const struct simt_gpu_spec *gpu, const struct simt_occ_result *r)
{
    simt_set_int(answer, "active_blocks_per_sm", r->active_blocks_per_sm);
    simt_set_int(answer, "active_warps_per_sm", r->active_warps_per_sm);
    simt_set_int(answer, "max_warps_per_sm", r->max_warps_per_sm);
    simt_set_real(answer, "occupancy", r->occupancy);
    json_object_set_new(answer, "limiters", limiter_list(r->limiters));
    json_t *limits = json_object();
    set_limit(limits, "warps", r->limit_warps);
    set_limit(limits, "registers", r->limit_registers);
    set_limit(limits, "shared_memory", r->limit_shared);
    set_limit(limits, "blocks", r->limit_blocks);
    set_limit(limits, "barriers", r->limit_barriers);
    json_object_set_new(answer, "limits", limits);
    json_t *allocated = json_object();
    simt_set_int(allocated, "registers_per_block", r->registers_per_block);
    simt_set_int(allocated, "shared_bytes_per_block", r->shared_bytes_per_block);
    simt_set_int(allocated, "shared_carveout_bytes", r->shared_carveout_bytes);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_set_int(allocated, "vgprs_per_wave", r->vgprs_per_wave);
        simt_set_int(allocated, "sgprs_per_wave", r->sgprs_per_wave);
        simt_set_int(allocated, "lds_bytes_per_workgroup", r->lds_bytes_per_workgroup);
    }
    json_object_set_new(answer, "allocated", allocated);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_set_int(answer, "wavefront_size", gpu->warp_size);
        simt_set_int(answer, "waves_per_simd", r->waves_per_simd);
        simt_set_int(answer, "waves_per_cu", r->waves_per_cu);
        simt_set_int(answer, "max_waves_per_cu", (int64_t)gpu->simds_per_cu * gpu->max_waves_per_simd);
    }
}

static void occupancy_assumptions(struct simt_call *call, const struct simt_gpu_spec *gpu,
                                  const struct simt_occ_request *req, const struct simt_occ_result *r)
{
    if (r->assumed & SIMT_OCC_ASSUMED_MAX_DYNAMIC)
        simt_call_assume(call,
                         "max_dynamic_shared_bytes: the kernel is taken to have opted in to the most the GPU "
                         "allows (%lld bytes = per-block opt-in limit minus static shared memory)",
                         (long long)(gpu->shared_bytes_per_block_optin - req->static_shared_bytes));
    if (r->assumed & SIMT_OCC_ASSUMED_CARVEOUT)
        simt_call_assume(call,
                         "carveout_percent: the driver's default preference, giving a %lld-byte carveout",
                         (long long)r->shared_carveout_bytes);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_call_assume(call,
                         "AMD: registers_per_thread counts VGPRs per lane; workgroups per CU are reported as "
                         "active_blocks_per_sm");
        if (r->assumed & SIMT_OCC_ASSUMED_SGPRS)
            simt_call_assume(call, "sgprs_per_wave not given: scalar registers taken as not limiting");
    }
}

json_t *h_occupancy(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", occupancy_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    struct simt_occ_request req;
    if (read_occupancy_request(call, call->body, NULL, &req) != 0) {
        json_decref(gpu.overridden);
        return NULL;
    }
    struct simt_occ_result result;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_compute(&gpu.spec, &req, &result, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_occupancy_fill(answer, &gpu.spec, &result);
    if (req.grid_size > 0)
        simt_set_real(answer, "waves", result.waves);
    occupancy_assumptions(call, &gpu.spec, &req, &result);
    return answer;
}

/* --- sweep --- */

static const char *const sweep_keys[] = {
    "gpu",
    "block_size",
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
    "max_dynamic_shared_bytes",
    "carveout_percent",
    "block_barriers",
    "grid_size",
    "sgprs_per_wave",
    "vary",
    "from",
    "to",
    "step",
    NULL,
};

json_t *h_occupancy_sweep(struct simt_call *call)
{
    static const char *const varies[] = {"block_size", "registers_per_thread", "dynamic_shared_bytes", NULL};
    if (simt_check_keys(call, call->body, "", sweep_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    int vary = 0;
    struct simt_occ_request req;
    if (simt_get_enum(call, call->body, "", "vary", 1, varies, 0, &vary) != 0 ||
        read_occupancy_request(call, call->body, varies[vary], &req) != 0) {
        json_decref(gpu.overridden);
        return NULL;
    }
    const struct simt_gpu_spec *spec = &gpu.spec;
    int64_t from = 0, to = 0, step = 1;
    if (vary == 0) {
        from = spec->warp_size;
        to = spec->max_threads_per_block;
        step = spec->warp_size;
    } else if (vary == 1) {
        from = 1;
        to = spec->vendor == SIMT_VENDOR_AMD ? spec->max_vgprs_per_wave : spec->max_registers_per_thread;
    } else {
        to = spec->shared_bytes_per_block_optin - req.static_shared_bytes;
        if (to < 0)
            to = 0;
        step = 1024;
    }
    if (simt_get_int64(call, call->body, "", "from", 0, 0, MAX_BYTES, from, &from) != 0 ||
        simt_get_int64(call, call->body, "", "to", 0, 0, MAX_BYTES, to, &to) != 0 ||
        simt_get_int64(call, call->body, "", "step", 0, 1, MAX_BYTES, step, &step) != 0) {
        json_decref(gpu.overridden);
        return NULL;
    }
    if (to < from) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "to", "to (%lld) must not be less than from (%lld)",
                       (long long)to, (long long)from);
        return NULL;
    }
    if ((to - from) / step + 1 > SIMT_MAX_SWEEP_POINTS) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "step",
                       "the sweep would have %lld points; at most %d: raise step or narrow from..to",
                       (long long)((to - from) / step + 1), SIMT_MAX_SWEEP_POINTS);
        return NULL;
    }
    if (vary == 0 && from == 0)
        from = step; /* a block of 0 threads is no configuration */

    json_t *points = json_array();
    unsigned assumed = 0;
    for (int64_t v = from; v <= to; v += step) {
        struct simt_occ_request point = req;
        if (vary == 0)
            point.block_size = (int)v;
        else if (vary == 1)
            point.registers_per_thread = (int)v;
        else
            point.dynamic_shared_bytes = v;
        struct simt_occ_result r;
        struct simt_diag diag;
        memset(&diag, 0, sizeof diag);
        memset(&r, 0, sizeof r);
        int rc = simt_occupancy_compute(spec, &point, &r, &diag);
        if (rc != 0 && rc != SIMT_EUNSAT) {
            json_decref(points);
            json_decref(gpu.overridden);
            simt_call_fail_diag(call, rc, "", &diag);
            return NULL;
        }
        assumed |= r.assumed;
        json_t *p = json_object();
        simt_set_int(p, "value", v);
        json_object_set_new(p, "launchable", json_boolean(rc == 0));
        simt_occupancy_fill(p, spec, &r);
        if (rc == 0 && point.grid_size > 0)
            simt_set_real(p, "waves", r.waves);
        if (rc != 0)
            json_object_set_new(p, "reason", json_string(diag.message));
        json_array_append_new(points, p);
    }
    json_t *answer = simt_answer_new(&gpu);
    json_object_set_new(answer, "vary", json_string(varies[vary]));
    json_object_set_new(answer, "points", points);
    struct simt_occ_result summary;
    memset(&summary, 0, sizeof summary);
    summary.assumed = assumed;
    occupancy_assumptions(call, spec, &req, &summary);
    return answer;
}

/* --- suggest --- */

json_t *h_launch_suggest(struct simt_call *call)
{
    static const char *const keys[] = {
        "gpu",
        "registers_per_thread",
        "static_shared_bytes",
        "dynamic_shared_bytes",
        "dynamic_shared_bytes_per_thread",
        "max_block_size",
        "carveout_percent",
        "block_barriers",
        NULL,
    };
    if (simt_check_keys(call, call->body, "", keys) != 0)
        return NULL;
    if (json_object_get(call->body, "dynamic_shared_bytes") != NULL &&
        json_object_get(call->body, "dynamic_shared_bytes_per_thread") != NULL) {
        simt_call_fail(call, 400, "invalid_argument", "dynamic_shared_bytes_per_thread",
                       "give dynamic_shared_bytes (per block) or dynamic_shared_bytes_per_thread, not both");
        return NULL;
    }
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    struct simt_suggest_request req;
    simt_suggest_request_init(&req);
    if (simt_get_int(call, call->body, "", "registers_per_thread", 1, 0, 1 << 16, 0,
                     &req.registers_per_thread) ||
        simt_get_int64(call, call->body, "", "static_shared_bytes", 0, 0, MAX_BYTES, 0,
                       &req.static_shared_bytes) ||
        simt_get_int64(call, call->body, "", "dynamic_shared_bytes", 0, 0, MAX_BYTES, 0,
                       &req.dynamic_shared_bytes) ||
        simt_get_int64(call, call->body, "", "dynamic_shared_bytes_per_thread", 0, 0, (int64_t)1 << 30, 0,
                       &req.dynamic_shared_bytes_per_thread) ||
        simt_get_int(call, call->body, "", "max_block_size", 0, 0, 1 << 20, 0, &req.max_block_size) ||
        simt_get_int(call, call->body, "", "carveout_percent", 0, -1, 100, -1, &req.carveout_percent) ||
        simt_get_int(call, call->body, "", "block_barriers", 0, 0, 1024, 1, &req.block_barriers)) {
        json_decref(gpu.overridden);
        return NULL;
    }
    struct simt_suggest_result result;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_suggest(&gpu.spec, &req, &result, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_int(answer, "block_size", result.block_size);
    simt_set_int(answer, "min_grid_size", result.min_grid_size);
    simt_set_real(answer, "occupancy", result.occupancy);
    simt_set_int(answer, "active_blocks_per_sm", result.active_blocks_per_sm);
    if (req.max_block_size == 0)
        simt_call_assume(call, "max_block_size: the GPU's limit, %d threads", gpu.spec.max_threads_per_block);
    return answer;
}
