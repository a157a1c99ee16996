/* occupancy_json.h - what the occupancy endpoints share with the latency and
 * kernel endpoints: the descriptor rows of the occupancy request's fields
 * (one macro each, for any request struct T holding a struct simt_occupancy_request
 * at member path P, e.g. `occ.` or empty) and the occupancy answer's
 * fields. Not installed.
 *
 * Ownership: the rows are static data; simt_api_occupancy_fill adds new
 * values to `answer`, which stays the caller's; the writer stays the
 * caller's. */
#ifndef SIMT_API_OCCUPANCY_JSON_H
#define SIMT_API_OCCUPANCY_JSON_H

#include <jansson.h>

#include "gpu.h"
#include "jsonw.h"
#include "occupancy.h"
#include "rows.h"

#define SIMT_OCCUPANCY_MAX_BYTES ((int64_t)1 << 40)

#define SIMT_OCCUPANCY_ROW_BLOCK_SIZE(FLAGS, T, P)                                                           \
    SIMT_ROW_INT("block_size", FLAGS, 1, 1 << 20, 0, T, P block_size, "Threads per block.")
#define SIMT_OCCUPANCY_ROW_REGISTERS(FLAGS, T, P)                                                            \
    SIMT_ROW_INT("registers_per_thread", FLAGS, 0, 1 << 16, 0, T, P registers_per_thread,                    \
                 "Registers per thread (as ptxas reports; AMD: VGPRs).")
#define SIMT_OCCUPANCY_ROW_STATIC_SHARED(FLAGS, T, P)                                                        \
    SIMT_ROW_INT("static_shared_bytes", FLAGS, 0, SIMT_OCCUPANCY_MAX_BYTES, 0, T, P static_shared_bytes,     \
                 "Static shared memory per block.")
#define SIMT_OCCUPANCY_ROW_DYNAMIC_SHARED(FLAGS, T, P)                                                       \
    SIMT_ROW_INT("dynamic_shared_bytes", FLAGS, 0, SIMT_OCCUPANCY_MAX_BYTES, 0, T, P dynamic_shared_bytes,   \
                 "Dynamic shared memory per block.")
#define SIMT_OCCUPANCY_ROW_MAX_DYNAMIC_SHARED(FLAGS, T, P)                                                   \
    SIMT_ROW_INT("max_dynamic_shared_bytes", FLAGS, -1, SIMT_OCCUPANCY_MAX_BYTES, -1, T,                     \
                 P max_dynamic_shared_bytes,                                                                 \
                 "The kernel's cudaFuncAttributeMaxDynamicSharedMemorySize; -1: the most the GPU allows.")
#define SIMT_OCCUPANCY_ROW_CARVEOUT(FLAGS, T, P)                                                             \
    SIMT_ROW_INT(                                                                                            \
        "carveout_percent", FLAGS, -1, 100, -1, T, P carveout_percent,                                       \
        "-1: the driver's default preference; 0..100: cudaFuncAttributePreferredSharedMemoryCarveout.")
#define SIMT_OCCUPANCY_ROW_BARRIERS(FLAGS, T, P)                                                             \
    SIMT_ROW_INT("block_barriers", FLAGS, 0, 1024, 1, T, P block_barriers, "Named barriers the kernel uses.")

/* The occupancy answer's fields for one configuration, as members of the
 * object w has open (the occupancy and sweep answers, written as text);
 * simt_api_occupancy_fill adds the same fields, written by this function
 * and read back, to a tree (the latency and kernel answers). An optional
 * field of /v1/occupancy alone (cluster_size's answer) is written by its
 * handler after these, not here. */
void simt_api_occupancy_write(struct simt_jsonw *w, const struct simt_gpu_spec *gpu,
                              const struct simt_occupancy_result *result);
void simt_api_occupancy_fill(json_t *answer, const struct simt_gpu_spec *gpu,
                             const struct simt_occupancy_result *result);

#endif
