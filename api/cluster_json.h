/* cluster_json.h - thread-block clusters in the occupancy endpoints: the
 * two request rows (cluster_size, non_portable_cluster_size), the reader of
 * cluster_size's two shapes, and the check and answer that call the model
 * (simt_occupancy_clusters). Not installed.
 *
 * Readers and checks follow read.h: 0, or a negative SIMT_E* code after
 * recording the contract's error in the call. Objects passed in are
 * borrowed; nothing is allocated but the values added to an answer. */
#ifndef SIMT_API_CLUSTER_JSON_H
#define SIMT_API_CLUSTER_JSON_H

#include <jansson.h>

#include "call.h"
#include "occupancy.h"
#include "rows.h"

/* The largest cluster dimension the reader accepts; what a GPU runs is its
 * record's (cluster_max_size), refused with 422 above it. */
#define SIMT_CLUSTER_MAX_DIM 1024

/* The rows, for a struct T holding a struct simt_occupancy_request at member path P. */
#define SIMT_CLUSTER_ROWS(T, P)                                                                              \
    SIMT_ROW_RANGE("cluster_size", SIMT_API_SHAPE, 0, 1, SIMT_CLUSTER_MAX_DIM, 1,                            \
                   "Blocks per thread-block cluster, an integer or [x, y, z] (compute capability 9.0 on): "  \
                   "adds active_clusters_per_gpu."),                                                         \
        SIMT_ROW_BOOL("non_portable_cluster_size", 0, 0, T, P non_portable_cluster_size,                     \
                      "The kernel allows clusters above the portable size "                                  \
                      "(cudaFuncAttributeNonPortableClusterSizeAllowed).")

/* Reads body's cluster_size into req->cluster_dims (all 0 when absent): an
 * integer 1..SIMT_CLUSTER_MAX_DIM or a list of 1 to 3 of them. */
int simt_api_cluster_read(struct simt_call *call, json_t *body, struct simt_occupancy_request *req);

/* When req asks for clusters (cluster_dims[0] > 0): the model's answer for
 * the GPU's layout and `occ` into *out; 422 unsatisfiable naming the field
 * when the GPU cannot run them (compute capability, size, grid, and "no GPC
 * layout for <gpu> in the database; known for: ..." when the record lacks
 * one). Without clusters *out is zeroed and 0 returned. */
int simt_api_cluster_compute(struct simt_call *call, const struct simt_resolved_gpu *gpu,
                             const struct simt_occupancy_request *req,
                             const struct simt_occupancy_result *occ, struct simt_cluster_result *out);

/* When req asks for clusters: one assumption line saying whose layout answered. */
void simt_api_cluster_assume(struct simt_call *call, const struct simt_resolved_gpu *gpu,
                             const struct simt_occupancy_request *req);

/* Adds "active_clusters_per_gpu" to answer when req asks for clusters. */
void simt_api_cluster_fill(json_t *answer, const struct simt_occupancy_request *req,
                           const struct simt_cluster_result *clusters);

#endif
