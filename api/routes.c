/* routes.c - the route table: every endpoint the daemon answers, its method,
 * its handler and whether it is a model endpoint (assumptions, figures).
 * One line per route; GET /openapi.json must list each of them. */
#include "api_internal.h"

const struct simt_route simt_route_table[] = {
    {"GET", "/healthz", h_healthz, 0},
    {"GET", "/openapi.json", h_openapi, 0},
    {"GET", "/v1/gpus", h_gpus_list, 0},
    {"GET", "/v1/gpus/{id}", h_gpus_get, 0},
    {"POST", "/v1/occupancy", h_occupancy, SIMT_ROUTE_MODEL},
    {"POST", "/v1/occupancy/sweep", h_occupancy_sweep, SIMT_ROUTE_MODEL},
    {"POST", "/v1/launch/suggest", h_launch_suggest, SIMT_ROUTE_MODEL},
    {"POST", "/v1/gemm", h_gemm, SIMT_ROUTE_MODEL},
    {"POST", "/v1/collective", h_collective, SIMT_ROUTE_MODEL},
    {"POST", "/v1/roofline", h_roofline, SIMT_ROUTE_MODEL},
    {"POST", "/v1/memory/coalescing", h_memory_coalescing, SIMT_ROUTE_MODEL},
    {"POST", "/v1/memory/banks", h_memory_banks, SIMT_ROUTE_MODEL},
    {"POST", "/v1/memory/constant", h_memory_constant, SIMT_ROUTE_MODEL},
    {"POST", "/v1/latency-hiding", h_latency_hiding, SIMT_ROUTE_MODEL},
    {"POST", "/v1/divergence", h_divergence, SIMT_ROUTE_MODEL},
    {"POST", "/v1/kernel", h_kernel, SIMT_ROUTE_MODEL},
    {"POST", "/v1/compare", h_compare, SIMT_ROUTE_MODEL},
};

const size_t simt_route_count = sizeof simt_route_table / sizeof simt_route_table[0];
