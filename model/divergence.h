/* divergence.h - the cost of a divergent branch in one warp: lanes that take
 * different paths run them one after another (SIMT), so a warp whose active
 * lanes meet p distinct paths issues every path's instructions, p times the
 * cost of one, with only part of its lanes doing useful work. Three forms:
 *   - k equal paths the lanes are spread over: min(k, lanes) paths;
 *   - explicit per-lane path ids: the number of distinct ids;
 *   - each lane picking one of k paths independently and uniformly: the
 *     expected number of distinct paths, k * (1 - (1 - 1/k)^lanes)
 *     (each path is missed by all lanes with probability (1 - 1/k)^lanes).
 * Paths are taken to cost the same; nested branches are not modelled.
 * Pure: no allocation, no globals. */
#ifndef SIMT_DIVERGENCE_H
#define SIMT_DIVERGENCE_H

#include <stdint.h>

#include "access.h"
#include "simt_error.h"

#define SIMT_MAX_PATHS 1000000

enum simt_branch_form {
    SIMT_BRANCH_PATHS = 0,  /* paths: lanes spread over k equal paths */
    SIMT_BRANCH_LANE_PATHS, /* lane_paths: explicit path id per lane */
    SIMT_BRANCH_RANDOM      /* random_paths: each lane picks one of k uniformly */
};

struct simt_branch {
    enum simt_branch_form form;
    int lanes;                          /* warp size, 1..SIMT_MAX_LANES */
    int paths;                          /* k for PATHS and RANDOM, 1..SIMT_MAX_PATHS */
    int64_t lane_paths[SIMT_MAX_LANES]; /* LANE_PATHS: any integers, equal = same path */
    uint64_t active_mask;               /* lanes that reach the branch */
};

/* One path, every lane active. */
void simt_branch_init(struct simt_branch *branch, int lanes);

struct simt_divergence_result {
    double expected_paths;  /* distinct paths the warp runs (expected value for RANDOM) */
    double serialization;   /* issue cost relative to one path: = expected_paths, at least 1 */
    double simt_efficiency; /* active lanes / (lanes * serialization): share of issued lanes doing work */
};

/* Returns SIMT_OK and fills *out; SIMT_EINVAL with diag->field "paths",
 * "random_paths" or "lanes" when out of range. */
int simt_divergence_compute(const struct simt_branch *branch, struct simt_divergence_result *out,
                            struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
