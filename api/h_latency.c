/* h_latency.c - POST /v1/latency-hiding: Little's law per SM, the bandwidth
 * (or FMA rate) that warps x ILP achieve with a latency that rises under
 * load, and the warps a target fraction of the peak needs. warps_per_sm may
 * be replaced by the occupancy request's fields. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "latency.h"
#include "warp_json.h"

#define MAX_BYTES ((int64_t)1 << 40)

static const char *const latency_keys[] = {"gpu",
                                           "warps_per_sm",
                                           "ilp",
                                           "bytes_per_lane",
                                           "level",
                                           "target_fraction",
                                           "active_sms",
                                           "block_size",
                                           "registers_per_thread",
                                           "static_shared_bytes",
                                           "dynamic_shared_bytes",
                                           "max_dynamic_shared_bytes",
                                           "carveout_percent",
                                           "block_barriers",
                                           NULL};
static const char *const levels[] = {"dram", "l2", "shared", "fma", NULL};

/* The warps from the occupancy fields; fills *occ. */
static int warps_from_occupancy(struct simt_call *call, const struct simt_gpu_spec *gpu,
                                struct simt_occ_result *occ, double *warps)
{
    struct simt_occ_request req;
    simt_occupancy_request_init(&req);
    json_t *b = call->body;
    if (simt_get_int(call, b, "", "block_size", 1, 1, 1 << 20, 0, &req.block_size) != 0 ||
        simt_get_int(call, b, "", "registers_per_thread", 1, 0, 1 << 16, 0, &req.registers_per_thread) != 0 ||
        simt_get_int64(call, b, "", "static_shared_bytes", 0, 0, MAX_BYTES, 0, &req.static_shared_bytes) !=
            0 ||
        simt_get_int64(call, b, "", "dynamic_shared_bytes", 0, 0, MAX_BYTES, 0, &req.dynamic_shared_bytes) !=
            0 ||
        simt_get_int64(call, b, "", "max_dynamic_shared_bytes", 0, -1, MAX_BYTES, -1,
                       &req.max_dynamic_shared_bytes) != 0 ||
        simt_get_int(call, b, "", "carveout_percent", 0, -1, 100, -1, &req.carveout_percent) != 0 ||
        simt_get_int(call, b, "", "block_barriers", 0, 0, 1024, 1, &req.block_barriers) != 0)
        return -1;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_compute(gpu, &req, occ, &diag);
    if (rc == SIMT_OK && occ->active_blocks_per_sm < 1)
        rc = SIMT_EUNSAT;
    if (rc != SIMT_OK) {
        simt_call_fail_diag(call, rc, "", &diag);
        return -1;
    }
    *warps = occ->active_warps_per_sm;
    return 0;
}

json_t *h_latency_hiding(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", latency_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    struct simt_latency_request req;
    simt_latency_request_init(&req);
    int level = 0;
    int has_warps = json_object_get(call->body, "warps_per_sm") != NULL;
    int has_block = json_object_get(call->body, "block_size") != NULL;
    struct simt_occ_result occ;
    memset(&occ, 0, sizeof occ);
    int fail = 0;
    if (has_warps && has_block) {
        simt_call_fail(
            call, 400, "invalid_argument", "block_size",
            "give warps_per_sm or the occupancy fields (block_size, registers_per_thread, ...), not both");
        fail = 1;
    } else if (has_warps) {
        static const char *const occ_only[] = {"registers_per_thread",
                                               "static_shared_bytes",
                                               "dynamic_shared_bytes",
                                               "max_dynamic_shared_bytes",
                                               "carveout_percent",
                                               "block_barriers",
                                               NULL};
        for (int i = 0; occ_only[i] != NULL && !fail; i++)
            if (json_object_get(call->body, occ_only[i]) != NULL) {
                simt_call_fail(call, 400, "invalid_argument", occ_only[i],
                               "%s belongs to the occupancy form; with warps_per_sm leave it out",
                               occ_only[i]);
                fail = 1;
            }
        if (!fail)
            fail = simt_get_double(call, call->body, "", "warps_per_sm", 1, 1e-9, 4096.0, 1.0,
                                   &req.warps_per_sm) != 0;
    } else if (has_block) {
        fail = warps_from_occupancy(call, &gpu.spec, &occ, &req.warps_per_sm) != 0;
    } else {
        simt_call_fail(call, 400, "missing_field", "warps_per_sm",
                       "give warps_per_sm or the occupancy fields (block_size, registers_per_thread, ...)");
        fail = 1;
    }
    int bytes_given = json_object_get(call->body, "bytes_per_lane") != NULL;
    int level_given = json_object_get(call->body, "level") != NULL;
    if (!fail)
        fail = simt_get_double(call, call->body, "", "ilp", 0, 1.0, 1024.0, 1.0, &req.ilp) != 0 ||
               simt_get_double(call, call->body, "", "bytes_per_lane", 0, 1e-9, 1024.0, 4.0,
                               &req.bytes_per_lane) != 0 ||
               simt_get_enum(call, call->body, "", "level", 0, levels, 0, &level) != 0 ||
               simt_get_double(call, call->body, "", "target_fraction", 0, 1e-6, 0.999999, 0.9,
                               &req.target_fraction) != 0 ||
               simt_get_int(call, call->body, "", "active_sms", 0, 1, 1 << 20, 0, &req.active_sms) != 0;
    if (fail) {
        json_decref(gpu.overridden);
        return NULL;
    }
    req.level = (enum simt_latency_level)level;
    struct simt_figure_set figures;
    simt_figure_set_init(&gpu.spec, simt_call_policy(call), &figures);
    struct simt_latency_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_latency_compute(&gpu.spec, &figures, &req, &r, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    int fma = req.level == SIMT_LATENCY_FMA;
    json_object_set_new(answer, "level", json_string(levels[level]));
    simt_set_real(answer, "warps_per_sm", req.warps_per_sm);
    simt_set_real(answer, "ilp", req.ilp);
    simt_set_real(answer, "latency_cycles", r.latency_cycles);
    simt_set_real(answer, "unloaded_latency_cycles", r.unloaded_latency_cycles);
    simt_set_real(answer, fma ? "ops_in_flight_per_sm" : "bytes_in_flight_per_sm", r.in_flight_per_sm);
    simt_set_real(answer, fma ? "required_ops_in_flight_per_sm" : "required_bytes_in_flight_per_sm",
                  r.required_in_flight_per_sm);
    simt_set_real(answer, fma ? "achieved_ops_per_s" : "achieved_bandwidth_bytes_per_s", r.achieved_per_s);
    simt_set_real(answer, fma ? "peak_ops_per_s" : "peak_bandwidth_bytes_per_s", r.peak_per_s);
    simt_set_real(answer, "fraction_of_peak", r.fraction_of_peak);
    simt_set_real(answer, "warps_needed", r.warps_needed);
    simt_set_real(answer, "target_fraction", r.target_fraction);
    if (has_block) {
        json_t *o = json_object();
        simt_occupancy_fill(o, &gpu.spec, &occ);
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
    if (!fma)
        simt_call_assume(call, "one request per warp = %g bytes (all lanes, coalesced)", r.request_bytes);
    if (!isfinite(r.warps_needed))
        simt_call_assume(call, "warps_needed: the target is not reached with up to 4096 warps at this ILP");
    else if (r.warps_needed > gpu.spec.max_warps_per_sm && gpu.spec.max_warps_per_sm > 0)
        simt_call_assume(call, "warps_needed exceeds the %d warps an SM holds: raise ILP or bytes per lane",
                         gpu.spec.max_warps_per_sm);
    simt_assume_figures(call, &figures, r.figures_used);
    return answer;
}
