/* h_memory.c - POST /v1/memory/coalescing, /v1/memory/banks and
 * /v1/memory/constant: one warp-wide access read strictly, priced by the
 * coalescing, bank and constant-memory models. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "banks.h"
#include "coalescing.h"
#include "constant.h"
#include "warp_json.h"

static const char *const access_keys[] = {"gpu", SIMT_WARP_ACCESS_KEYS, NULL};

static int warp_lanes(const struct simt_gpu_spec *gpu)
{
    return gpu->warp_size > 0 && gpu->warp_size <= SIMT_MAX_LANES ? gpu->warp_size : 32;
}

/* Common start: keys, GPU, access. Returns 0 or -1 (error recorded; gpu released). */
static int read_access_request(struct simt_call *call, const char *const *keys, int element_required,
                               struct simt_resolved_gpu *gpu, struct simt_warp_access *access)
{
    if (simt_check_keys(call, call->body, "", keys) != 0)
        return -1;
    if (simt_resolve_gpu(call, call->body, "", "gpu", gpu) != 0)
        return -1;
    if (simt_read_warp_access(call, call->body, "", warp_lanes(&gpu->spec), element_required, access) != 0) {
        json_decref(gpu->overridden);
        return -1;
    }
    return 0;
}

json_t *h_memory_coalescing(struct simt_call *call)
{
    struct simt_resolved_gpu gpu;
    struct simt_warp_access access;
    if (read_access_request(call, access_keys, 1, &gpu, &access) != 0)
        return NULL;
    struct simt_coalescing_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_coalescing_compute(&gpu.spec, &access, &r, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_int(answer, "sectors", r.sectors);
    simt_set_int(answer, "cache_lines", r.cache_lines);
    simt_set_int(answer, "dram_bytes", r.dram_bytes);
    simt_set_int(answer, "useful_bytes", r.useful_bytes);
    simt_set_real(answer, "efficiency", r.efficiency);
    simt_set_int(answer, "transactions", r.transactions);
    simt_set_int(answer, "transaction_bytes", r.transaction_bytes);
    simt_set_int(answer, "sector_bytes_moved", r.sector_bytes_moved);
    simt_set_int(answer, "active_lanes", r.active_lanes);
    simt_call_assume(call,
                     "sectors of %d bytes, cache lines of %d bytes, DRAM accessed in %d-byte granules%s",
                     r.sector_bytes, r.cache_line_bytes, r.dram_granularity_bytes,
                     r.assumed ? " (defaults: the GPU record lacks some of these)" : "");
    simt_call_assume(call, "dram_bytes counts this warp alone: no other warp shares its sectors through L2");
    simt_call_assume(call,
                     "transactions: one per cache line touched, 32, 64 or 128 bytes (the classic rule)");
    return answer;
}

json_t *h_memory_banks(struct simt_call *call)
{
    struct simt_resolved_gpu gpu;
    struct simt_warp_access access;
    if (read_access_request(call, access_keys, 1, &gpu, &access) != 0)
        return NULL;
    struct simt_banks_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_banks_compute(&gpu.spec, &access, &r, &diag);
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_int(answer, "ways", r.ways);
    simt_set_int(answer, "wavefronts", r.wavefronts);
    simt_set_real(answer, "efficiency", r.efficiency);
    json_object_set_new(answer, "broadcast", json_boolean(r.broadcast));
    if (r.suggested_padding_elements >= 0)
        simt_set_int(answer, "suggested_padding_elements", r.suggested_padding_elements);
    else
        json_object_set_new(answer, "suggested_padding_elements", json_null());
    simt_set_int(answer, "min_wavefronts", r.min_wavefronts);
    simt_set_int(answer, "worst_bank_words", r.worst_bank_words);
    simt_set_int(answer, "distinct_bytes", r.distinct_bytes);
    simt_set_int(answer, "active_lanes", r.active_lanes);
    int banks = gpu.spec.shared_banks > 0 ? gpu.spec.shared_banks : 32;
    int bank_bytes = gpu.spec.shared_bank_bytes > 0 ? gpu.spec.shared_bank_bytes : 4;
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

static const char *const constant_keys[] = {"gpu",
                                            "distinct_addresses",
                                            "element_bytes",
                                            "lane_addresses",
                                            "lane_stride_elements",
                                            "offset_elements",
                                            "active_lanes",
                                            NULL};

json_t *h_memory_constant(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", constant_keys) != 0)
        return NULL;
    struct simt_resolved_gpu gpu;
    if (simt_resolve_gpu(call, call->body, "", "gpu", &gpu) != 0)
        return NULL;
    int lanes = warp_lanes(&gpu.spec);
    struct simt_constant_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc;
    json_t *count = json_object_get(call->body, "distinct_addresses");
    int has_access = json_object_get(call->body, "lane_addresses") != NULL ||
                     json_object_get(call->body, "lane_stride_elements") != NULL;
    if (count != NULL && has_access) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "invalid_argument", "distinct_addresses",
                       "give distinct_addresses or the lanes' addresses, not both");
        return NULL;
    }
    if (count == NULL && !has_access) {
        json_decref(gpu.overridden);
        simt_call_fail(call, 400, "missing_field", "distinct_addresses",
                       "give distinct_addresses, lane_addresses or lane_stride_elements");
        return NULL;
    }
    if (count != NULL) {
        int k = 0;
        if (simt_get_int(call, call->body, "", "distinct_addresses", 1, 1, lanes, 1, &k) != 0) {
            json_decref(gpu.overridden);
            return NULL;
        }
        rc = simt_constant_from_count(k, lanes, &r, &diag);
    } else {
        struct simt_warp_access access;
        if (simt_read_warp_access(call, call->body, "", lanes, 0, &access) != 0) {
            json_decref(gpu.overridden);
            return NULL;
        }
        rc = simt_constant_compute(&access, &r, &diag);
    }
    json_t *answer = simt_answer_from(call, rc, &diag, &gpu);
    if (answer == NULL)
        return NULL;
    simt_set_int(answer, "serialization", r.serialization);
    simt_set_real(answer, "efficiency", r.efficiency);
    simt_set_int(answer, "active_lanes", r.active_lanes);
    simt_call_assume(call,
                     "the constant cache serves one address per request and broadcasts it to every lane that "
                     "asked for it; distinct addresses are served one after another");
    return answer;
}
