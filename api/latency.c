/* latency.c - POST /v1/latency-hiding: Little's law per SM, the bandwidth
 * (or FMA rate) that warps x ILP achieve with a latency that rises under
 * load, and the warps a target fraction of the peak needs. warps_per_sm may
 * be replaced by the occupancy request's fields. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latency.h"
#include "occupancy_json.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"

static const char *const levels[] = {"dram", "l2", "shared", "fma",
                                     NULL}; /* enum simt_latency_level's order */

/* The body: the latency request, and the occupancy request of the other form. */
struct latency_body {
    struct simt_latency_request lat;
    struct simt_occupancy_request occ;
};

#define OCC_FORM SIMT_API_GROUP(1)
#define B struct latency_body
static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_NUMBER("warps_per_sm", SIMT_API_REQUIRED_IN_FORM | SIMT_API_GROUP(2), 1e-9, 4096.0, 1.0, B,
                    lat.warps_per_sm, "Resident warps per SM (or give the occupancy fields)."),
    SIMT_ROW_NUMBER("ilp", 0, 1.0, 1024.0, 1.0, B, lat.ilp, "Independent operations per warp in flight."),
    SIMT_ROW_NUMBER("bytes_per_lane", 0, 1e-9, 1024.0, 4.0, B, lat.bytes_per_lane,
                    "Bytes each lane moves per access."),
    SIMT_ROW_CHOICE("level", 0, levels, 0, B, lat.level, "Where the data comes from; default dram."),
    SIMT_ROW_NUMBER("target_fraction", 0, 1e-6, 0.999999, 0.9, B, lat.target_fraction,
                    "The fraction of the peak warps_needed aims at."),
    SIMT_ROW_INT("active_sms", 0, 1, 1 << 20, 0, B, lat.active_sms,
                 "SMs that run warps, sharing the chip's bandwidth; default all."),
    SIMT_ROW_INT(
        "lanes", 0, 1, 64, 0, B, lat.lanes,
        "Lanes of a warp whose accesses make one request (at most the warp's size; ignored for fma); "
        "default all. 1 with warps_per_sm 1 and active_sms 1: a one-thread pointer chase."),
    SIMT_OCCUPANCY_ROW_BLOCK_SIZE(SIMT_API_REQUIRED_IN_FORM | OCC_FORM, B, occ.),
    SIMT_OCCUPANCY_ROW_REGISTERS(SIMT_API_REQUIRED_IN_FORM | OCC_FORM, B, occ.),
    SIMT_OCCUPANCY_ROW_STATIC_SHARED(OCC_FORM, B, occ.),
    SIMT_OCCUPANCY_ROW_DYNAMIC_SHARED(OCC_FORM, B, occ.),
    SIMT_OCCUPANCY_ROW_MAX_DYNAMIC_SHARED(OCC_FORM, B, occ.),
    SIMT_OCCUPANCY_ROW_CARVEOUT(OCC_FORM, B, occ.),
    SIMT_OCCUPANCY_ROW_BARRIERS(OCC_FORM, B, occ.),
};
#undef B

/* The warps from the occupancy fields; fills *occ. */
static int warps_from_occupancy(struct simt_call *call, const struct simt_gpu_spec *gpu,
                                struct latency_body *body, struct simt_occupancy_result *occ)
{
    simt_occupancy_request_init(&body->occ);
    int rc = simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 1, NULL, body);
    if (rc != 0)
        return rc;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    rc = simt_occupancy_compute(gpu, &body->occ, occ, &diag);
    if (rc == SIMT_OK && occ->active_blocks_per_sm < 1)
        rc = SIMT_EUNSAT;
    if (rc != SIMT_OK)
        return simt_call_fail_diag(call, rc, "", &diag);
    body->lat.warps_per_sm = occ->active_warps_per_sm;
    return 0;
}

/* warps_per_sm alone, no field of the occupancy form beside it. */
static int warps_given(struct simt_call *call, struct latency_body *body)
{
    const struct simt_api_field *block = simt_read_field_named(fields, SIMT_COUNT_OF(fields), "block_size");
    for (size_t i = 0; i < SIMT_COUNT_OF(fields); i++) {
        const struct simt_api_field *f = &fields[i];
        if (SIMT_API_GROUP_OF(f->flags) == 1 && f != block && json_object_get(call->body, f->name) != NULL)
            return simt_call_fail(call, 400, "invalid_argument", f->name,
                                  "%s belongs to the occupancy form; with warps_per_sm leave it out",
                                  f->name);
    }
    return simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 2, NULL, body);
}

/* Either form of the warps, then the rest. */
static int read_body(struct simt_call *call, const struct simt_gpu_spec *gpu, struct latency_body *body,
                     struct simt_occupancy_result *occ)
{
    int has_warps = json_object_get(call->body, "warps_per_sm") != NULL;
    int has_block = json_object_get(call->body, "block_size") != NULL;
    int rc;
    if (has_warps && has_block)
        rc = simt_call_fail(
            call, 400, "invalid_argument", "block_size",
            "give warps_per_sm or the occupancy fields (block_size, registers_per_thread, ...), not both");
    else if (has_warps)
        rc = warps_given(call, body);
    else if (has_block)
        rc = warps_from_occupancy(call, gpu, body, occ);
    else
        rc = simt_call_fail(
            call, 400, "missing_field", "warps_per_sm",
            "give warps_per_sm or the occupancy fields (block_size, registers_per_thread, ...)");
    if (rc != 0)
        return rc;
    return simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 0, NULL, body);
}

static json_t *answer_latency(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct latency_body body;
    memset(&body, 0, sizeof body);
    simt_latency_request_init(&body.lat);
    struct simt_occupancy_result occ;
    memset(&occ, 0, sizeof occ);
    int has_block = json_object_get(call->body, "block_size") != NULL;
    int bytes_given = json_object_get(call->body, "bytes_per_lane") != NULL;
    int level_given = json_object_get(call->body, "level") != NULL;
    if (read_body(call, &gpu->spec, &body, &occ) != 0)
        return NULL;
    struct simt_latency_request req = body.lat;
    int level = (int)req.level;
    struct simt_latency_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_latency_compute(&gpu->spec, &gpu->figures, &req, &r, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    int fma = req.level == SIMT_LATENCY_FMA;
    json_object_set_new(answer, "level", json_string(levels[level]));
    simt_call_set_real(answer, "warps_per_sm", req.warps_per_sm);
    simt_call_set_real(answer, "ilp", req.ilp);
    simt_call_set_real(answer, "latency_cycles", r.latency_cycles);
    simt_call_set_real(answer, "unloaded_latency_cycles", r.unloaded_latency_cycles);
    simt_call_set_real(answer, fma ? "ops_in_flight_per_sm" : "bytes_in_flight_per_sm", r.in_flight_per_sm);
    simt_call_set_real(answer, fma ? "required_ops_in_flight_per_sm" : "required_bytes_in_flight_per_sm",
                       r.required_in_flight_per_sm);
    simt_call_set_real(answer, fma ? "achieved_ops_per_s" : "achieved_bandwidth_bytes_per_s",
                       r.achieved_per_s);
    simt_call_set_real(answer, fma ? "peak_ops_per_s" : "peak_bandwidth_bytes_per_s", r.peak_per_s);
    simt_call_set_real(answer, "fraction_of_peak", r.fraction_of_peak);
    simt_call_set_real(answer, "warps_needed", r.warps_needed);
    simt_call_set_real(answer, "target_fraction", r.target_fraction);
    if (has_block) {
        json_t *o = json_object();
        simt_api_occupancy_fill(o, &gpu->spec, &occ);
        json_object_set_new(answer, "occupancy", o);
    }

    if (!level_given)
        simt_call_assume(call, "level: dram (not given)");
    if (!fma && !bytes_given)
        simt_call_assume(call, "bytes_per_lane: 4 (not given)");
    if (has_block)
        simt_call_assume(call, "warps_per_sm: %g, from the occupancy of the given launch", req.warps_per_sm);
    if (fma)
        simt_call_assume(call,
                         "fma: operations instead of bytes; each sub-partition issues one warp FMA per cycle "
                         "when enough independent FMAs are in flight (fixed-latency pipeline)");
    else if (req.level == SIMT_LATENCY_SHARED)
        simt_call_assume(call, "shared memory: a fixed-latency pipeline, conflict-free 128-byte wavefronts");
    else
        simt_call_assume(
            call,
            "loaded latency: each SM's requests queue for its share of the %s bandwidth "
            "(closed network, mean-value analysis); unloaded latency is the pointer-chase figure",
            levels[level]);
    if (!fma && req.lanes > 0 && req.lanes < gpu->spec.warp_size)
        simt_call_assume(call, "one request per warp = %g bytes (%d of the warp's %d lanes, coalesced)",
                         r.request_bytes, req.lanes, gpu->spec.warp_size);
    else if (!fma)
        simt_call_assume(call, "one request per warp = %g bytes (all lanes, coalesced)", r.request_bytes);
    if (req.active_sms > 0 && req.active_sms < gpu->spec.sm_count && !fma && req.level != SIMT_LATENCY_SHARED)
        simt_call_assume(call, "SMs running warps: %d of %d, sharing the %s bandwidth", req.active_sms,
                         gpu->spec.sm_count, levels[level]);
    if (!isfinite(r.warps_needed))
        simt_call_assume(call, "warps_needed: the target is not reached with up to 4096 warps at this ILP");
    else if (r.warps_needed > gpu->spec.max_warps_per_sm && gpu->spec.max_warps_per_sm > 0)
        simt_call_assume(call, "warps_needed exceeds the %d warps an SM holds: raise ILP or bytes per lane",
                         gpu->spec.max_warps_per_sm);
    simt_call_assume_figures(call, &gpu->figures, r.figures_used);
    return answer;
}

const struct simt_api_endpoint simt_api_latency_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/latency-hiding", answer_latency, fields,
    "Is there enough in flight to hide latency: the bandwidth or FMA rate a concurrency reaches.");
