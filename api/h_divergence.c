/* h_divergence.c - POST /v1/divergence: the cost of a divergent branch in one
 * warp, from k equal paths, explicit lane paths or random per-lane paths. */
#include <string.h>

#include "api_internal.h"
#include "divergence.h"
#include "warp_json.h"

static const char *const divergence_keys[] = {"gpu",          "paths",        "lane_paths",
                                              "random_paths", "active_lanes", NULL};

json_t *h_divergence(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", divergence_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    int has_gpu = json_object_get(call->body, "gpu") != NULL;
    int lanes = 32;
    if (has_gpu) {
        if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
            return NULL;
        if (gpu.spec.warp_size > 0 && gpu.spec.warp_size <= SIMT_MAX_LANES)
            lanes = gpu.spec.warp_size;
    }
    struct simt_branch branch;
    if (simt_read_branch(call, call->body, "", lanes, &branch) != 0) {
        if (has_gpu)
            json_decref(gpu.overridden);
        return NULL;
    }
    struct simt_divergence_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_divergence_compute(&branch, &r, &diag);
    if (rc != SIMT_OK) {
        if (has_gpu)
            json_decref(gpu.overridden);
        simt_call_fail_diag(call, rc, "", &diag);
        return NULL;
    }
    json_t *answer = has_gpu ? simt_answer_new(&gpu) : json_object();
    if (answer == NULL)
        return NULL;
    simt_set_real(answer, "serialization", r.serialization);
    simt_set_real(answer, "simt_efficiency", r.simt_efficiency);
    simt_set_real(answer, "expected_paths", r.expected_paths);
    simt_set_int(answer, "lanes", lanes);
    if (!has_gpu)
        simt_call_assume(call, "a warp of 32 lanes (no gpu given)");
    simt_call_assume(call, "every path costs the same; the warp issues each path it meets once");
    if (branch.form == SIMT_BRANCH_RANDOM)
        simt_call_assume(call,
                         "each lane picks one of %d paths independently and uniformly: expected distinct "
                         "paths k(1 - (1 - 1/k)^lanes)",
                         branch.paths);
    return answer;
}
