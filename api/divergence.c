/* divergence.c - POST /v1/divergence: the cost of a divergent branch in one
 * warp, from k equal paths, explicit lane paths or random per-lane paths. */
#include <string.h>

#include "divergence.h"
#include "resolve.h"
#include "routes.h"
#include "warp_json.h"

static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(0),
    SIMT_BRANCH_ROWS,
};

static json_t *answer_divergence(struct simt_call *call)
{
    int lanes = 32;
    if (json_object_get(call->body, "gpu") != NULL) {
        const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
        if (gpu == NULL)
            return NULL;
        if (gpu->spec.warp_size > 0 && gpu->spec.warp_size <= SIMT_MAX_LANES)
            lanes = gpu->spec.warp_size;
    }
    struct simt_branch branch;
    if (simt_api_warp_json_read_branch(call, call->body, "", lanes, &branch) != 0)
        return NULL;
    struct simt_divergence_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_divergence_compute(&branch, &r, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_real(answer, "serialization", r.serialization);
    simt_call_set_real(answer, "simt_efficiency", r.simt_efficiency);
    simt_call_set_real(answer, "expected_paths", r.expected_paths);
    simt_call_set_int(answer, "lanes", lanes);
    if (!call->has_gpu)
        simt_call_assume(call, "a warp of 32 lanes (no gpu given)");
    simt_call_assume(call, "every path costs the same; the warp issues each path it meets once");
    if (branch.form == SIMT_BRANCH_RANDOM)
        simt_call_assume(call,
                         "each lane picks one of %d paths independently and uniformly: expected distinct "
                         "paths k(1 - (1 - 1/k)^lanes)",
                         branch.paths);
    return answer;
}

const struct simt_api_endpoint simt_api_divergence_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/divergence", answer_divergence, fields,
    "The cost of a divergent branch in one warp: k equal paths, lane paths or random paths.");
