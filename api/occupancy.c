/* occupancy.c - POST /v1/occupancy, /v1/occupancy/sweep and
 * /v1/launch/suggest: read the kernel's attributes strictly, run the
 * occupancy model, answer in the contract's shape. */
#include <stdio.h>
#include <string.h>

#include "cluster_json.h"
#include "cost.h"
#include "occupancy_json.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"

#define MAX_BYTES SIMT_OCCUPANCY_MAX_BYTES
#define MAX_SWEEP_POINTS 4096

/* The occupancy request's rows for a struct T with the request at P; REQ:
 * how block_size and registers_per_thread are required. */
#define OCC_ROWS(T, P, REQ)                                                                                  \
    SIMT_OCCUPANCY_ROW_BLOCK_SIZE(REQ, T, P), SIMT_OCCUPANCY_ROW_REGISTERS(REQ, T, P),                       \
        SIMT_OCCUPANCY_ROW_STATIC_SHARED(0, T, P), SIMT_OCCUPANCY_ROW_DYNAMIC_SHARED(0, T, P),               \
        SIMT_OCCUPANCY_ROW_MAX_DYNAMIC_SHARED(0, T, P), SIMT_OCCUPANCY_ROW_CARVEOUT(0, T, P),                \
        SIMT_OCCUPANCY_ROW_BARRIERS(0, T, P),                                                                \
        SIMT_ROW_INT("grid_size", 0, 1, MAX_BYTES, 0, T, P grid_size,                                        \
                     "Blocks in the grid; adds waves to the answer."),                                       \
        SIMT_ROW_INT("sgprs_per_wave", 0, 0, 1 << 16, 0, T, P sgprs_per_wave,                                \
                     "AMD: scalar registers per wave; 0: not limiting.")

static const struct simt_api_field occupancy_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    OCC_ROWS(struct simt_occupancy_request, , SIMT_API_REQUIRED),
    SIMT_CLUSTER_ROWS(struct simt_occupancy_request, ),
};

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
    if (blocks == SIMT_OCCUPANCY_NO_LIMIT)
        json_object_set_new(limits, key, json_null());
    else
        simt_call_set_int(limits, key, blocks);
}

void simt_api_occupancy_fill(json_t *answer, const struct simt_gpu_spec *gpu,
                             const struct simt_occupancy_result *r)
{
    simt_call_set_int(answer, "active_blocks_per_sm", r->active_blocks_per_sm);
    simt_call_set_int(answer, "active_warps_per_sm", r->active_warps_per_sm);
    simt_call_set_int(answer, "max_warps_per_sm", r->max_warps_per_sm);
    simt_call_set_real(answer, "occupancy", r->occupancy);
    json_object_set_new(answer, "limiters", limiter_list(r->limiters));
    json_t *limits = json_object();
    set_limit(limits, "warps", r->limit_warps);
    set_limit(limits, "registers", r->limit_registers);
    set_limit(limits, "shared_memory", r->limit_shared);
    set_limit(limits, "blocks", r->limit_blocks);
    set_limit(limits, "barriers", r->limit_barriers);
    json_object_set_new(answer, "limits", limits);
    json_t *allocated = json_object();
    simt_call_set_int(allocated, "registers_per_block", r->registers_per_block);
    simt_call_set_int(allocated, "shared_bytes_per_block", r->shared_bytes_per_block);
    simt_call_set_int(allocated, "shared_carveout_bytes", r->shared_carveout_bytes);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_call_set_int(allocated, "vgprs_per_wave", r->vgprs_per_wave);
        simt_call_set_int(allocated, "sgprs_per_wave", r->sgprs_per_wave);
        simt_call_set_int(allocated, "lds_bytes_per_workgroup", r->lds_bytes_per_workgroup);
    }
    json_object_set_new(answer, "allocated", allocated);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_call_set_int(answer, "wavefront_size", gpu->warp_size);
        simt_call_set_int(answer, "waves_per_simd", r->waves_per_simd);
        simt_call_set_int(answer, "waves_per_cu", r->waves_per_cu);
        simt_call_set_int(answer, "max_waves_per_cu", (int64_t)gpu->simds_per_cu * gpu->max_waves_per_simd);
    }
}

static void occupancy_assumptions(struct simt_call *call, const struct simt_gpu_spec *gpu,
                                  const struct simt_occupancy_request *req,
                                  const struct simt_occupancy_result *r)
{
    if (r->assumed & SIMT_OCCUPANCY_ASSUMED_MAX_DYNAMIC)
        simt_call_assume(call,
                         "max_dynamic_shared_bytes: the kernel is taken to have opted in to the most the GPU "
                         "allows (%lld bytes = per-block opt-in limit minus static shared memory)",
                         (long long)(gpu->shared_bytes_per_block_optin - req->static_shared_bytes));
    if (r->assumed & SIMT_OCCUPANCY_ASSUMED_CARVEOUT)
        simt_call_assume(call,
                         "carveout_percent: the driver's default preference, giving a %lld-byte carveout",
                         (long long)r->shared_carveout_bytes);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_call_assume(call,
                         "AMD: registers_per_thread counts VGPRs per lane; workgroups per CU are reported as "
                         "active_blocks_per_sm");
        if (r->assumed & SIMT_OCCUPANCY_ASSUMED_SGPRS)
            simt_call_assume(call, "sgprs_per_wave not given: scalar registers taken as not limiting");
    }
}

static json_t *answer_occupancy(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_occupancy_request req;
    simt_occupancy_request_init(&req);
    if (simt_read_fields(call, call->body, "", occupancy_fields, SIMT_COUNT_OF(occupancy_fields), 0, NULL,
                         &req) != 0 ||
        simt_api_cluster_read(call, call->body, &req) != 0)
        return NULL;
    struct simt_occupancy_result result;
    struct simt_cluster_result clusters;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    memset(&clusters, 0, sizeof clusters);
    int rc = simt_occupancy_compute(&gpu->spec, &req, &result, &diag);
    if (rc == SIMT_OK && simt_api_cluster_compute(call, gpu, &req, &result, &clusters) != 0)
        return NULL;
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_api_occupancy_fill(answer, &gpu->spec, &result);
    if (req.grid_size > 0)
        simt_call_set_real(answer, "waves", result.waves);
    simt_api_cluster_fill(answer, &req, &clusters);
    occupancy_assumptions(call, &gpu->spec, &req, &result);
    simt_api_cluster_assume(call, gpu, &req);
    return answer;
}

/* --- sweep --- */

/* A sweep's body: the occupancy request, what varies, and over what. */
struct sweep_request {
    struct simt_occupancy_request occ;
    int vary; /* index into varies */
    int64_t from, to, step;
};

static const char *const varies[] = {"block_size", "registers_per_thread", "dynamic_shared_bytes", NULL};

#define S struct sweep_request
static const struct simt_api_field sweep_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    OCC_ROWS(S, occ., SIMT_API_REQUIRED_IN_FORM), /* the varied one is left out */
    SIMT_CLUSTER_ROWS(S, occ.),
    SIMT_ROW_CHOICE("vary", SIMT_API_REQUIRED | SIMT_API_GROUP(2), varies, 0, S, vary,
                    "The field to vary (and leave out of the body)."),
    SIMT_ROW_INT("from", SIMT_API_KEEP | SIMT_API_GROUP(1), 0, MAX_BYTES, 0, S, from,
                 "First value; default: the smallest that makes sense."),
    SIMT_ROW_INT("to", SIMT_API_KEEP | SIMT_API_GROUP(1), 0, MAX_BYTES, 0, S, to,
                 "Last value; default: the GPU's limit."),
    SIMT_ROW_INT("step", SIMT_API_KEEP | SIMT_API_GROUP(1), 1, MAX_BYTES, 1, S, step,
                 "Step; default: a warp, a register, 1 KiB."),
};
#undef S

/* The sweep's range when the body leaves it out: the GPU's limits. */
static void default_range(const struct simt_gpu_spec *spec, struct sweep_request *sweep)
{
    sweep->from = 0;
    sweep->step = 1;
    if (sweep->vary == 0) {
        sweep->from = spec->warp_size;
        sweep->to = spec->max_threads_per_block;
        sweep->step = spec->warp_size;
    } else if (sweep->vary == 1) {
        sweep->from = 1;
        sweep->to =
            spec->vendor == SIMT_VENDOR_AMD ? spec->max_vgprs_per_wave : spec->max_registers_per_thread;
    } else {
        sweep->to = spec->shared_bytes_per_block_optin - sweep->occ.static_shared_bytes;
        if (sweep->to < 0)
            sweep->to = 0;
        sweep->step = 1024;
    }
}

/* Reads the sweep's body: vary first, then the request without the varied
 * field, then the range. */
static int read_sweep(struct simt_call *call, const struct simt_gpu_spec *spec, struct sweep_request *sweep)
{
    const size_t count = SIMT_COUNT_OF(sweep_fields);
    simt_occupancy_request_init(&sweep->occ);
    int rc = simt_read_fields(call, call->body, "", sweep_fields, count, 2, NULL, sweep);
    if (rc != 0)
        return rc;
    const char *varied = varies[sweep->vary];
    if (json_object_get(call->body, varied) != NULL)
        return simt_call_fail(call, 400, "invalid_argument", varied,
                              "%s is what this sweep varies: leave it out and use from, to and step", varied);
    rc = simt_read_fields(call, call->body, "", sweep_fields, count, 0,
                          simt_read_field_named(sweep_fields, count, varied), sweep);
    if (rc != 0)
        return rc;
    default_range(spec, sweep);
    rc = simt_read_fields(call, call->body, "", sweep_fields, count, 1, NULL, sweep);
    if (rc != 0)
        return rc;
    if (sweep->to < sweep->from)
        return simt_call_fail(call, 400, "invalid_argument", "to",
                              "to (%lld) must not be less than from (%lld)", (long long)sweep->to,
                              (long long)sweep->from);
    if ((sweep->to - sweep->from) / sweep->step + 1 > MAX_SWEEP_POINTS)
        return simt_call_fail(call, 400, "invalid_argument", "step",
                              "the sweep would have %lld points; at most %d: raise step or narrow from..to",
                              (long long)((sweep->to - sweep->from) / sweep->step + 1), MAX_SWEEP_POINTS);
    int64_t points = (sweep->to - sweep->from) / sweep->step + 1;
    if (points > (int64_t)simt_api_max_cost())
        return simt_call_fail(call, 413, "too_large", "step",
                              "the sweep would have %lld points; one request may ask for %u "
                              "(simtd --max-request-cost): raise step or narrow from..to",
                              (long long)points, simt_api_max_cost());
    return 0;
}

static json_t *answer_sweep(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct sweep_request sweep;
    memset(&sweep, 0, sizeof sweep);
    if (read_sweep(call, &gpu->spec, &sweep) != 0 || simt_api_cluster_read(call, call->body, &sweep.occ) != 0)
        return NULL;
    struct simt_occupancy_result one_block = {.active_blocks_per_sm = 1};
    struct simt_cluster_result clusters;
    if (simt_api_cluster_compute(call, gpu, &sweep.occ, &one_block, &clusters) != 0)
        return NULL; /* the cluster's checks do not depend on the varied field */
    const struct simt_gpu_spec *spec = &gpu->spec;
    const struct simt_occupancy_request req = sweep.occ;
    int vary = sweep.vary;
    int64_t from = sweep.from, to = sweep.to, step = sweep.step;
    if (vary == 0 && from == 0)
        from = step; /* a block of 0 threads is no configuration */

    json_t *points = json_array();
    unsigned assumed = 0;
    for (int64_t v = from; v <= to; v += step) {
        struct simt_occupancy_request point = req;
        if (vary == 0)
            point.block_size = (int)v;
        else if (vary == 1)
            point.registers_per_thread = (int)v;
        else
            point.dynamic_shared_bytes = v;
        struct simt_occupancy_result r;
        struct simt_diag diag;
        memset(&diag, 0, sizeof diag);
        memset(&r, 0, sizeof r);
        int rc = simt_occupancy_compute(spec, &point, &r, &diag);
        if (rc != 0 && rc != SIMT_EUNSAT) {
            json_decref(points);
            simt_call_fail_diag(call, rc, "", &diag);
            return NULL;
        }
        assumed |= r.assumed;
        json_t *p = json_object();
        simt_call_set_int(p, "value", v);
        json_object_set_new(p, "launchable", json_boolean(rc == 0));
        simt_api_occupancy_fill(p, spec, &r);
        if (rc == 0 && point.grid_size > 0)
            simt_call_set_real(p, "waves", r.waves);
        memset(&clusters, 0, sizeof clusters);
        if (rc == 0 && simt_api_cluster_compute(call, gpu, &point, &r, &clusters) != 0) {
            json_decref(p);
            json_decref(points);
            return NULL;
        }
        simt_api_cluster_fill(p, &point, &clusters);
        if (rc != 0)
            json_object_set_new(p, "reason", json_string(diag.message));
        json_array_append_new(points, p);
    }
    json_t *answer = simt_call_answer(call);
    json_object_set_new(answer, "vary", json_string(varies[vary]));
    json_object_set_new(answer, "points", points);
    struct simt_occupancy_result summary;
    memset(&summary, 0, sizeof summary);
    summary.assumed = assumed;
    occupancy_assumptions(call, spec, &req, &summary);
    simt_api_cluster_assume(call, gpu, &req);
    return answer;
}

/* --- suggest --- */

#define G struct simt_suggest_request
static const struct simt_api_field suggest_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_OCCUPANCY_ROW_REGISTERS(SIMT_API_REQUIRED, G, ),
    SIMT_OCCUPANCY_ROW_STATIC_SHARED(0, G, ),
    SIMT_OCCUPANCY_ROW_DYNAMIC_SHARED(0, G, ),
    SIMT_ROW_INT("dynamic_shared_bytes_per_thread", 0, 0, (int64_t)1 << 30, 0, G,
                 dynamic_shared_bytes_per_thread, "Dynamic shared memory per thread (instead of per block)."),
    SIMT_ROW_INT("max_block_size", 0, 0, 1 << 20, 0, G, max_block_size,
                 "Largest block to consider; 0: the GPU's limit."),
    SIMT_OCCUPANCY_ROW_CARVEOUT(0, G, ),
    SIMT_OCCUPANCY_ROW_BARRIERS(0, G, ),
};
#undef G

static json_t *answer_suggest(struct simt_call *call)
{
    if (json_object_get(call->body, "dynamic_shared_bytes") != NULL &&
        json_object_get(call->body, "dynamic_shared_bytes_per_thread") != NULL) {
        simt_call_fail(call, 400, "invalid_argument", "dynamic_shared_bytes_per_thread",
                       "give dynamic_shared_bytes (per block) or dynamic_shared_bytes_per_thread, not both");
        return NULL;
    }
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_suggest_request req;
    simt_suggest_request_init(&req);
    if (simt_read_fields(call, call->body, "", suggest_fields, SIMT_COUNT_OF(suggest_fields), 0, NULL,
                         &req) != 0)
        return NULL;
    struct simt_suggest_result result;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_suggest(&gpu->spec, &req, &result, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_int(answer, "block_size", result.block_size);
    simt_call_set_int(answer, "min_grid_size", result.min_grid_size);
    simt_call_set_real(answer, "occupancy", result.occupancy);
    simt_call_set_int(answer, "active_blocks_per_sm", result.active_blocks_per_sm);
    if (req.max_block_size == 0)
        simt_call_assume(call, "max_block_size: the GPU's limit, %d threads",
                         gpu->spec.max_threads_per_block);
    return answer;
}

const struct simt_api_endpoint simt_api_occupancy_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/occupancy", answer_occupancy, occupancy_fields,
    "One kernel configuration: active blocks and warps per SM, occupancy and what limits it.");

const struct simt_api_endpoint simt_api_occupancy_sweep =
    SIMT_MODEL_ENDPOINT("/v1/occupancy/sweep", answer_sweep, sweep_fields,
                        "The occupancy of one configuration with one field varied over a range.");

const struct simt_api_endpoint simt_api_occupancy_suggest =
    SIMT_MODEL_ENDPOINT("/v1/launch/suggest", answer_suggest, suggest_fields,
                        "The block size of the highest occupancy for a kernel's attributes "
                        "(cudaOccupancyMaxPotentialBlockSize).");
