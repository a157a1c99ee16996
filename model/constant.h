/* constant.h - constant-memory serialization of one warp-wide read: the
 * constant cache delivers one address per request and broadcasts it to every
 * lane that asked for it, so a warp whose lanes read k distinct addresses is
 * served as k requests, one after another (CUDA C Programming Guide,
 * "Constant Memory"). Pure: no allocation, no globals. */
#ifndef SIMT_CONSTANT_H
#define SIMT_CONSTANT_H

#include "access.h"
#include "simt_error.h"

struct simt_constant_result {
    int active_lanes;
    int serialization; /* distinct addresses among the active lanes (requests); 0 when none is active */
    double efficiency; /* 1 / serialization; 1 when no lane is active */
};

/* Distinct addresses of a warp access: two lanes share an address when
 * their elements start at the same byte. Returns SIMT_OK and fills *out;
 * SIMT_EINVAL for an invalid access (diag as simt_warp_access_check). */
int simt_constant_compute(const struct simt_warp_access *access, struct simt_constant_result *out,
                          struct simt_diag *diag) SIMT_WARN_UNUSED;

/* The same for a warp whose lanes read `distinct_addresses` distinct
 * addresses (1..lanes). SIMT_EINVAL (diag->field "distinct_addresses") when
 * out of range. */
int simt_constant_from_count(int distinct_addresses, int lanes, struct simt_constant_result *out,
                             struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
