/* h_collective.c - POST /v1/collective: read the operation, size and
 * topology strictly, run the collective model, answer with the time, the
 * algorithm chosen and NCCL's algorithm and bus bandwidths. */
#include <string.h>

#include "api_internal.h"
#include "collective.h"

static const char *const collective_keys[] = {
    "gpu", "op", "bytes", "gpus", "link", "nodes", "network_bytes_per_s", NULL};
static const char *const op_choices[] = {"all_reduce", "all_gather", "reduce_scatter",
                                         "all_to_all", "broadcast",  NULL};
static const char *const link_choices[] = {"nvlink", "pcie", NULL};

json_t *h_collective(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", collective_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    struct simt_coll_request req;
    memset(&req, 0, sizeof req);
    int op_index = 0, link_index = 0;
    /* without "link": NVLink where the GPU has it, else PCIe */
    int has_nvlink = gpu.spec.nvlink_generation > 0 && gpu.spec.nvlink_bandwidth_bytes_per_s > 0.0;
    int link_given = json_object_get(call->body, "link") != NULL;
    if (simt_get_enum(call, call->body, "", "op", 1, op_choices, 0, &op_index) != 0 ||
        simt_get_double(call, call->body, "", "bytes", 1, 1.0, 1.0e18, 0.0, &req.bytes) != 0 ||
        simt_get_int(call, call->body, "", "gpus", 1, 1, 1 << 20, 0, &req.gpus) != 0 ||
        simt_get_enum(call, call->body, "", "link", 0, link_choices, has_nvlink ? 0 : 1, &link_index) != 0 ||
        simt_get_int(call, call->body, "", "nodes", 0, 1, 1 << 20, 1, &req.nodes) != 0 ||
        simt_get_double(call, call->body, "", "network_bytes_per_s", 0, 1.0, 1.0e15, 0.0,
                        &req.network_bytes_per_s) != 0) {
        json_decref(gpu.overridden);
        return NULL;
    }
    if (simt_coll_op_parse(op_choices[op_index], &req.op) != SIMT_OK ||
        simt_link_parse(link_choices[link_index], &req.link) != SIMT_OK) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "op", "op or link not known");
        return NULL;
    }
    if (req.nodes == 1 && json_object_get(call->body, "network_bytes_per_s") != NULL) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "network_bytes_per_s",
                       "network_bytes_per_s applies between nodes: give nodes >= 2 as well");
        return NULL;
    }

    struct simt_coll_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_coll_predict(&gpu.spec, &req, &r, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_real(answer, "time_s", r.time_s);
    json_object_set_new(answer, "algorithm", json_string(simt_coll_algorithm_name(r.algorithm)));
    simt_set_real(answer, "algbw_bytes_per_s", r.algbw_bytes_per_s);
    simt_set_real(answer, "busbw_bytes_per_s", r.busbw_bytes_per_s);
    /* beyond the contract: how the time was reached */
    json_object_set_new(answer, "protocol", json_string(simt_coll_protocol_name(r.protocol)));
    json_object_set_new(answer, "link", json_string(simt_link_name(req.link)));
    simt_set_int(answer, "ranks", r.ranks);
    simt_set_real(answer, "bus_factor", r.bus_factor);
    simt_set_real(answer, "latency_s", r.latency_s);
    simt_set_real(answer, "transfer_s", r.transfer_s);
    if (req.gpus > 1)
        simt_set_real(answer, "link_bytes_per_s", r.link_bytes_per_s);
    if (req.nodes > 1)
        simt_set_real(answer, "network_bytes_per_s", r.network_bytes_per_s);

    if (!link_given)
        simt_call_assume(call, "link: %s (not given; %s)", simt_link_name(req.link),
                         has_nvlink ? "the GPU has NVLink" : "the GPU has no NVLink");
    for (int i = 0; i < r.assumption_count; i++)
        simt_call_assume(call, "%s", r.assumptions[i]);
    return answer;
}
