/* memory.c - POST /v1/memory/coalescing, /v1/memory/banks and
 * /v1/memory/constant: one warp-wide access read strictly, priced by the
 * coalescing, bank and constant-memory models. */
#include <stdio.h>
#include <string.h>

#include "banks.h"
#include "coalescing.h"
#include "constant.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"
#include "warp_json.h"

static const struct simt_api_field access_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_WARP_ROW_ELEMENT_BYTES(SIMT_API_REQUIRED),
    SIMT_WARP_ROW_STRIDE,
    SIMT_WARP_ROW_OFFSET,
    SIMT_WARP_ROW_ADDRESSES,
    SIMT_WARP_ROW_ACTIVE,
};

/* Common start: GPU, access. Returns the GPU, or NULL (error recorded). */
static const struct simt_resolved_gpu *read_access_request(struct simt_call *call,
                                                           struct simt_warp_access *access)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL || simt_api_warp_json_read_access(call, call->body, "",
                                                      simt_api_warp_json_lanes(&gpu->spec), 1, access) != 0)
        return NULL;
    return gpu;
}

static json_t *answer_coalescing(struct simt_call *call)
{
    struct simt_warp_access access;
    const struct simt_resolved_gpu *gpu = read_access_request(call, &access);
    if (gpu == NULL)
        return NULL;
    struct simt_coalescing_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_coalescing_compute(&gpu->spec, &access, &r, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_int(answer, "sectors", r.sectors);
    simt_call_set_int(answer, "cache_lines", r.cache_lines);
    simt_call_set_int(answer, "dram_bytes", r.dram_bytes);
    simt_call_set_int(answer, "useful_bytes", r.useful_bytes);
    simt_call_set_real(answer, "efficiency", r.efficiency);
    simt_call_set_int(answer, "transactions", r.transactions);
    simt_call_set_int(answer, "transaction_bytes", r.transaction_bytes);
    simt_call_set_int(answer, "sector_bytes_moved", r.sector_bytes_moved);
    simt_call_set_int(answer, "active_lanes", r.active_lanes);
    simt_call_assume(call,
                     "sectors of %d bytes, cache lines of %d bytes, DRAM accessed in %d-byte granules%s",
                     r.sector_bytes, r.cache_line_bytes, r.dram_granularity_bytes,
                     r.assumed ? " (defaults: the GPU record lacks some of these)" : "");
    simt_call_assume(call, "dram_bytes counts this warp alone: no other warp shares its sectors through L2");
    simt_call_assume(call,
                     "transactions: one per cache line touched, 32, 64 or 128 bytes (the classic rule)");
    return answer;
}

static json_t *answer_banks(struct simt_call *call)
{
    struct simt_warp_access access;
    const struct simt_resolved_gpu *gpu = read_access_request(call, &access);
    if (gpu == NULL)
        return NULL;
    struct simt_banks_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_banks_compute(&gpu->spec, &access, &r, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_int(answer, "ways", r.ways);
    simt_call_set_int(answer, "wavefronts", r.wavefronts);
    simt_call_set_real(answer, "efficiency", r.efficiency);
    json_object_set_new(answer, "broadcast", json_boolean(r.broadcast));
    if (r.suggested_padding_elements >= 0)
        simt_call_set_int(answer, "suggested_padding_elements", r.suggested_padding_elements);
    else
        json_object_set_new(answer, "suggested_padding_elements", json_null());
    simt_call_set_int(answer, "min_wavefronts", r.min_wavefronts);
    simt_call_set_int(answer, "worst_bank_words", r.worst_bank_words);
    simt_call_set_int(answer, "distinct_bytes", r.distinct_bytes);
    simt_call_set_int(answer, "active_lanes", r.active_lanes);
    int banks = gpu->spec.shared_banks > 0 ? gpu->spec.shared_banks : 32;
    int bank_bytes = gpu->spec.shared_bank_bytes > 0 ? gpu->spec.shared_bank_bytes : 4;
    simt_call_assume(
        call,
        "%d banks of %d bytes%s, each delivering one word a cycle: wavefronts = the larger of the "
        "most distinct words in one bank and the distinct bytes over %d",
        banks, bank_bytes, r.assumed ? " (default: the GPU record lacks them)" : "", banks * bank_bytes);
    simt_call_assume(call,
                     "lanes reading the same 4-byte word are served together (broadcast, multicast); ways = "
                     "wavefronts over the conflict-free wavefronts of the same distinct data");
    if (r.suggested_padding_elements < 0 && !access.explicit_addresses)
        simt_call_assume(call, "no padding up to %d elements removes the conflicts", SIMT_BANKS_MAX_PADDING);
    else if (access.explicit_addresses)
        simt_call_assume(call, "suggested_padding_elements applies to the stride form only");
    return answer;
}

static const struct simt_api_field constant_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_ROW_RANGE("distinct_addresses", SIMT_API_INTEGER, 0, 1, SIMT_MAX_LANES, 1,
                   "Distinct addresses the warp reads (at most its lanes), instead of the lanes' addresses."),
    SIMT_WARP_ROW_ELEMENT_BYTES(0),
    SIMT_WARP_ROW_ADDRESSES,
    SIMT_WARP_ROW_STRIDE,
    SIMT_WARP_ROW_OFFSET,
    SIMT_WARP_ROW_ACTIVE,
};

static json_t *answer_constant(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    int lanes = simt_api_warp_json_lanes(&gpu->spec);
    struct simt_constant_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc;
    json_t *count = json_object_get(call->body, "distinct_addresses");
    int has_access = json_object_get(call->body, "lane_addresses") != NULL ||
                     json_object_get(call->body, "lane_stride_elements") != NULL;
    if (count != NULL && has_access) {
        simt_call_fail(call, 400, "invalid_argument", "distinct_addresses",
                       "give distinct_addresses or the lanes' addresses, not both");
        return NULL;
    }
    if (count == NULL && !has_access) {
        simt_call_fail(call, 400, "missing_field", "distinct_addresses",
                       "give distinct_addresses, lane_addresses or lane_stride_elements");
        return NULL;
    }
    if (count != NULL) {
        int k = 0;
        if (simt_read_int(call, call->body, "", "distinct_addresses", 1, 1, lanes, 1, &k) != 0)
            return NULL;
        rc = simt_constant_from_count(k, lanes, &r, &diag);
    } else {
        struct simt_warp_access access;
        if (simt_api_warp_json_read_access(call, call->body, "", lanes, 0, &access) != 0)
            return NULL;
        rc = simt_constant_compute(&access, &r, &diag);
    }
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_int(answer, "serialization", r.serialization);
    simt_call_set_real(answer, "efficiency", r.efficiency);
    simt_call_set_int(answer, "active_lanes", r.active_lanes);
    simt_call_assume(call,
                     "the constant cache serves one address per request and broadcasts it to every lane that "
                     "asked for it; distinct addresses are served one after another");
    return answer;
}

const struct simt_api_endpoint simt_api_memory_coalescing =
    SIMT_MODEL_ENDPOINT("/v1/memory/coalescing", answer_coalescing, access_fields,
                        "One warp-wide global access: sectors, cache lines, DRAM bytes and efficiency.");

const struct simt_api_endpoint simt_api_memory_banks = SIMT_MODEL_ENDPOINT(
    "/v1/memory/banks", answer_banks, access_fields,
    "One warp-wide shared-memory access: bank-conflict ways, wavefronts and the padding that removes "
    "them.");

const struct simt_api_endpoint simt_api_memory_constant = SIMT_MODEL_ENDPOINT(
    "/v1/memory/constant", answer_constant, constant_fields,
    "One warp-wide constant-memory access: how many times the constant cache serializes it.");
