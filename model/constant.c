/* constant.c - counts the distinct addresses of a warp's constant read. Pure. */
#include "constant.h"

#include <stdio.h>
#include <string.h>

int simt_constant_compute(const struct simt_warp_access *access, struct simt_constant_result *out,
                          struct simt_diag *diag)
{
    int rc = simt_warp_access_check(access, diag);
    if (rc != SIMT_OK)
        return rc;
    int64_t addresses[SIMT_MAX_LANES];
    int n = 0;
    for (int lane = 0; lane < access->lanes; lane++)
        if (simt_warp_access_lane_active(access, lane))
            addresses[n++] = simt_warp_access_address(access, lane);
    memset(out, 0, sizeof *out);
    out->active_lanes = n;
    out->serialization = simt_sort_unique(addresses, n);
    out->efficiency = out->serialization > 0 ? 1.0 / out->serialization : 1.0;
    return SIMT_OK;
}

int simt_constant_from_count(int distinct_addresses, int lanes, struct simt_constant_result *out,
                             struct simt_diag *diag)
{
    if (lanes < 1 || lanes > SIMT_MAX_LANES || distinct_addresses < 1 || distinct_addresses > lanes) {
        if (diag != NULL) {
            snprintf(diag->field, sizeof diag->field, "distinct_addresses");
            snprintf(diag->message, sizeof diag->message,
                     "distinct_addresses must be 1..%d (the warp's lanes)", lanes);
        }
        return SIMT_EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->active_lanes = lanes;
    out->serialization = distinct_addresses;
    out->efficiency = 1.0 / distinct_addresses;
    return SIMT_OK;
}
