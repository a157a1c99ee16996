/* routes.h - the endpoint descriptors each endpoint file defines (one line
 * each), gathered into the router's table by routes.c. Not installed.
 *
 * Ownership: static, immutable descriptors (endpoint.h). */
#ifndef SIMT_API_ROUTES_H
#define SIMT_API_ROUTES_H

#include "endpoint.h"

extern const struct simt_api_endpoint simt_api_service_healthz;
extern const struct simt_api_endpoint simt_api_openapi_document;
extern const struct simt_api_endpoint simt_api_service_gpus_list;
extern const struct simt_api_endpoint simt_api_service_gpus_get;
extern const struct simt_api_endpoint simt_api_occupancy_endpoint;
extern const struct simt_api_endpoint simt_api_occupancy_sweep;
extern const struct simt_api_endpoint simt_api_occupancy_suggest;
extern const struct simt_api_endpoint simt_api_roofline_endpoint;
extern const struct simt_api_endpoint simt_api_memory_coalescing;
extern const struct simt_api_endpoint simt_api_memory_banks;
extern const struct simt_api_endpoint simt_api_memory_constant;
extern const struct simt_api_endpoint simt_api_latency_endpoint;
extern const struct simt_api_endpoint simt_api_divergence_endpoint;
extern const struct simt_api_endpoint simt_api_kernel_endpoint;
extern const struct simt_api_endpoint simt_api_gemm_endpoint;
extern const struct simt_api_endpoint simt_api_collective_endpoint;
extern const struct simt_api_endpoint simt_api_compare_endpoint;
extern const struct simt_api_endpoint simt_api_transformer_endpoint;
extern const struct simt_api_endpoint simt_api_models_list;

/* The endpoint of method and route (exact match of the route string), or
 * NULL. */
const struct simt_api_endpoint *simt_api_endpoint_find(const char *method, const char *route);

#endif
