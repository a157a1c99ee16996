/* warp_json.h - strict readers shared by the memory, divergence, kernel and
 * latency endpoints: one warp-wide access (stride form or explicit lane
 * addresses, an optional active-lane mask), one branch (paths, lane_paths
 * or random_paths), and the assumption lines for the figures a model used.
 * Readers follow api_internal.h: 0 on success, -1 after recording the
 * contract's error (field = JSON path) in the call. Not installed. */
#ifndef SIMT_WARP_JSON_H
#define SIMT_WARP_JSON_H

#include <jansson.h>

#include "access.h"
#include "api_internal.h"
#include "divergence.h"
#include "figures.h"

/* The keys a warp access may carry (for simt_check_keys lists). */
#define SIMT_WARP_ACCESS_KEYS                                                                                \
    "element_bytes", "lane_stride_elements", "offset_elements", "lane_addresses", "active_lanes"

/* Reads obj's warp access into *out for a warp of `lanes` lanes.
 * element_bytes: required when element_required, else default 4;
 * lane_addresses (exactly `lanes` byte offsets) or lane_stride_elements
 * (default 1) with offset_elements (default 0), not both; active_lanes:
 * `lanes` booleans, default all true. path is obj's JSON path. */
int simt_read_warp_access(struct simt_call *call, json_t *obj, const char *path, int lanes,
                          int element_required, struct simt_warp_access *out);

/* Reads a branch: exactly one of paths, lane_paths (`lanes` integers),
 * random_paths; an optional active_lanes mask. */
int simt_read_branch(struct simt_call *call, json_t *obj, const char *path, int lanes,
                     struct simt_branch *out);

/* One assumption line per figure in `used`. */
void simt_assume_figures(struct simt_call *call, const struct simt_figure_set *figures,
                         simt_figure_mask used);

/* The figure policy the call asks for. */
enum simt_figure_policy simt_call_policy(const struct simt_call *call);

#endif
