/* routes.c - the router's table: every endpoint the daemon answers, one line
 * each, in the order the router tries them (and /v1/compare lists its
 * questions, /metrics its routes, and the fuzz corpus numbers them: append
 * new endpoints at the end). Each descriptor lives beside its handler;
 * GET /openapi.json must document each of them. */
#include <string.h>

#include "routes.h"

static const struct simt_api_endpoint *const table[] = {
    &simt_api_service_healthz,   &simt_api_openapi_document,   &simt_api_service_gpus_list,
    &simt_api_service_gpus_get,  &simt_api_occupancy_endpoint, &simt_api_occupancy_sweep,
    &simt_api_occupancy_suggest, &simt_api_gemm_endpoint,      &simt_api_collective_endpoint,
    &simt_api_roofline_endpoint, &simt_api_memory_coalescing,  &simt_api_memory_banks,
    &simt_api_memory_constant,   &simt_api_latency_endpoint,   &simt_api_divergence_endpoint,
    &simt_api_kernel_endpoint,   &simt_api_compare_endpoint,   &simt_api_transformer_endpoint,
    &simt_api_models_list,
};

size_t simt_api_endpoint_count(void)
{
    return sizeof table / sizeof table[0];
}

const struct simt_api_endpoint *simt_api_endpoint_at(size_t i)
{
    return i < simt_api_endpoint_count() ? table[i] : NULL;
}

const struct simt_api_endpoint *simt_api_endpoint_find(const char *method, const char *route)
{
    for (size_t i = 0; i < simt_api_endpoint_count(); i++)
        if (strcmp(table[i]->method, method) == 0 && strcmp(table[i]->route, route) == 0)
            return table[i];
    return NULL;
}
