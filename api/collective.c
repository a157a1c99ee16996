/* collective.c - POST /v1/collective: read the operation, size and
 * topology strictly, run the collective model, answer with the time, the
 * algorithm chosen and NCCL's algorithm and bus bandwidths. */
#include <string.h>

#include "collective.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"
#include "rows.h"

/* In the order of enum simt_collective_op and enum simt_link. */
static const char *const op_choices[] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv", NULL};
/* In the order of enum simt_collective_algorithm. */
static const char *const algorithm_choices[] = {"auto", "ring", "tree", "nvls", "direct", NULL};
static const char *const link_choices[] = {"nvlink", "pcie", "xgmi", NULL};

#define R struct simt_collective_request
static const struct simt_api_field fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_CHOICE("op", SIMT_API_REQUIRED, op_choices, 0, R, op, "Collective."),
    SIMT_ROW_NUMBER("bytes", SIMT_API_REQUIRED, 1.0, 1.0e18, 0.0, R, bytes,
                    "As the NCCL tests count: the larger of one rank's send and receive buffers."),
    SIMT_ROW_INT("gpus", SIMT_API_REQUIRED, 1, 1 << 20, 0, R, gpus, "GPUs (per node)."),
    SIMT_ROW_CHOICE("link", SIMT_API_KEEP, link_choices, 0, R, link,
                    "Interconnect: nvlink, pcie or xgmi (AMD Infinity Fabric); default: the GPU's scale-up "
                    "fabric (NVLink or Infinity Fabric) where it has one, else PCIe."),
    SIMT_ROW_INT("nodes", 0, 1, 1 << 20, 1, R, nodes, "Nodes."),
    SIMT_ROW_NUMBER("network_bytes_per_s", 0, 1.0, 1.0e15, 0.0, R, network_bytes_per_s,
                    "Network bandwidth per GPU between nodes."),
    SIMT_ROW_CHOICE("algorithm", 0, algorithm_choices, 0, R, algorithm,
                    "auto (NCCL's choice, NVLink SHARP included where the NVSwitch has it), ring, tree, nvls "
                    "or direct."),
    SIMT_ROW_NUMBER("host_memory_bytes_per_s", 0, 1.0, 1.0e15, 0.0, R, host_memory_bytes_per_s,
                    "Link pcie, GPUs without peer-to-peer (GeForce cards): the host memory's sustained "
                    "bandwidth, through which every transfer then passes (written and read: a node's GPUs "
                    "share it as 2 x gpus flows); left out, peer-to-peer over PCIe."),
};
#undef R

static json_t *answer_collective(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_collective_request req;
    memset(&req, 0, sizeof req);
    /* without "link": the GPU's scale-up fabric, NVLink (bridged PCIe cards:
     * for a pair only) or Infinity Fabric, else PCIe */
    int has_nvlink = gpu->spec.nvlink_generation > 0 && gpu->spec.nvlink_bandwidth_bytes_per_s > 0.0;
    int has_xgmi = gpu->spec.xgmi_links > 0 && gpu->spec.xgmi_bandwidth_bytes_per_s > 0.0;
    int link_given = json_object_get(call->body, "link") != NULL;
    req.nvlink_pairs_only = !gpu->spec.nvswitch && strcmp(gpu->record->form_factor, "pcie") == 0;
    req.link = has_nvlink ? SIMT_LINK_NVLINK : has_xgmi ? SIMT_LINK_XGMI : SIMT_LINK_PCIE;
    if (simt_read_fields(call, call->body, "", fields, SIMT_COUNT_OF(fields), 0, NULL, &req) != 0)
        return NULL;
    int bridged_group = has_nvlink && req.nvlink_pairs_only && req.gpus * req.nodes > 2;
    if (!link_given && bridged_group)
        req.link = SIMT_LINK_PCIE;
    req.figures = &gpu->figures;
    if (req.nodes == 1 && json_object_get(call->body, "network_bytes_per_s") != NULL) {
        simt_call_fail(call, 400, "invalid_argument", "network_bytes_per_s",
                       "network_bytes_per_s applies between nodes: give nodes >= 2 as well");
        return NULL;
    }

    struct simt_collective_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_collective_predict(&gpu->spec, &req, &r, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_real(answer, "time_s", r.time_s);
    json_object_set_new(answer, "algorithm", json_string(simt_collective_algorithm_name(r.algorithm)));
    simt_call_set_real(answer, "algbw_bytes_per_s", r.algbw_bytes_per_s);
    simt_call_set_real(answer, "busbw_bytes_per_s", r.busbw_bytes_per_s);
    /* beyond the contract: how the time was reached */
    json_object_set_new(answer, "protocol", json_string(simt_collective_protocol_name(r.protocol)));
    json_object_set_new(answer, "link", json_string(simt_link_name(req.link)));
    simt_call_set_int(answer, "ranks", r.ranks);
    simt_call_set_real(answer, "bus_factor", r.bus_factor);
    simt_call_set_real(answer, "latency_s", r.latency_s);
    simt_call_set_real(answer, "transfer_s", r.transfer_s);
    if (req.gpus > 1)
        simt_call_set_real(answer, "link_bytes_per_s", r.link_bytes_per_s);
    if (req.nodes > 1)
        simt_call_set_real(answer, "network_bytes_per_s", r.network_bytes_per_s);
    if (req.host_memory_bytes_per_s > 0.0)
        json_object_set_new(answer, "host_memory_bound", json_boolean(r.host_memory_bound));

    if (!link_given)
        simt_call_assume(call, "link: %s (not given; %s)", simt_link_name(req.link),
                         has_xgmi && !has_nvlink ? "the GPU's scale-up fabric is AMD Infinity Fabric"
                         : !has_nvlink           ? "the GPU has no NVLink"
                         : bridged_group         ? "NVLink bridges join pairs of these PCIe cards only"
                                                 : "the GPU has NVLink");
    if (json_object_get(call->body, "algorithm") == NULL)
        simt_call_assume(call, "algorithm: auto (not given): %s, as NCCL's tuner would pick",
                         simt_collective_algorithm_name(r.algorithm));
    for (int i = 0; i < r.assumption_count; i++)
        simt_call_assume(call, "%s", r.assumptions[i]);
    simt_call_assume_figures(call, &gpu->figures, r.figures_used);
    return answer;
}

const struct simt_api_endpoint simt_api_collective_endpoint =
    SIMT_MODEL_ENDPOINT("/v1/collective", answer_collective, fields,
                        "An NCCL-style collective: time, algorithm, algorithm and bus bandwidths.");
