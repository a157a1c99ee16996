/* warp_json.h - strict readers for the special shapes shared by the memory,
 * divergence and kernel endpoints: one warp-wide access (stride form or
 * explicit lane addresses, an optional active-lane mask) and one branch
 * (paths, lane_paths or random_paths), with the descriptor rows of their
 * fields. Readers follow read.h: 0 on success, a negative SIMT_E* code after
 * recording the contract's error (field = JSON path) in the call. Not
 * installed.
 *
 * Ownership: objects passed in are borrowed; what is read goes into the
 * caller's structs, nothing is allocated. */
#ifndef SIMT_WARP_JSON_H
#define SIMT_WARP_JSON_H

#include <jansson.h>

#include "access.h"
#include "call.h"
#include "divergence.h"
#include "rows.h"

/* The rows of a warp access's fields, one macro each (endpoints list them in
 * their own order). */
#define SIMT_WARP_ROW_ELEMENT_BYTES(FLAGS)                                                                   \
    SIMT_ROW_RANGE("element_bytes", SIMT_API_INTEGER, FLAGS, 1, 16, 4, "Bytes per lane: 1, 2, 4, 8 or 16.")
#define SIMT_WARP_ROW_STRIDE                                                                                 \
    SIMT_ROW_RANGE("lane_stride_elements", SIMT_API_INTEGER, 0, -SIMT_MAX_STRIDE_ELEMENTS,                   \
                   SIMT_MAX_STRIDE_ELEMENTS, 1,                                                              \
                   "Elements between consecutive lanes; 0: all lanes one address.")
#define SIMT_WARP_ROW_OFFSET                                                                                 \
    SIMT_ROW_RANGE("offset_elements", SIMT_API_INTEGER, 0, 0, SIMT_MAX_STRIDE_ELEMENTS, 0,                   \
                   "First lane's offset in elements.")
#define SIMT_WARP_ROW_ADDRESSES                                                                              \
    SIMT_ROW_SHAPE("lane_addresses", SIMT_API_ARRAY, 0, "One byte offset per lane, instead of a stride.")
#define SIMT_WARP_ROW_ACTIVE SIMT_ROW_SHAPE("active_lanes", SIMT_API_ARRAY, 0, "One boolean per lane.")
/* The branch's forms. */
#define SIMT_BRANCH_ROWS                                                                                     \
    SIMT_ROW_RANGE("paths", SIMT_API_INTEGER, 0, 1, SIMT_MAX_PATHS, 1,                                       \
                   "Lanes spread over k equal-cost paths."),                                                 \
        SIMT_ROW_SHAPE("lane_paths", SIMT_API_ARRAY, 0, "Each lane's path."),                                \
        SIMT_ROW_RANGE("random_paths", SIMT_API_INTEGER, 0, 1, SIMT_MAX_PATHS, 1,                            \
                       "Each lane picks one of k paths independently."),                                     \
        SIMT_WARP_ROW_ACTIVE

/* Lanes of a warp on gpu: its warp size, or 32 when the record lacks one. */
int simt_api_warp_json_lanes(const struct simt_gpu_spec *gpu);

/* Reads obj's warp access into *out for a warp of `lanes` lanes.
 * element_bytes: required when element_required, else default 4;
 * lane_addresses (exactly `lanes` byte offsets) or lane_stride_elements
 * (default 1) with offset_elements (default 0), not both; active_lanes:
 * `lanes` booleans, default all true. path is obj's JSON path. */
int simt_api_warp_json_read_access(struct simt_call *call, json_t *obj, const char *path, int lanes,
                                   int element_required, struct simt_warp_access *out);

/* Reads a branch: exactly one of paths, lane_paths (`lanes` integers),
 * random_paths; an optional active_lanes mask. */
int simt_api_warp_json_read_branch(struct simt_call *call, json_t *obj, const char *path, int lanes,
                                   struct simt_branch *out);

#endif
