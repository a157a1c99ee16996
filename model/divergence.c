/* divergence.c - distinct paths a warp meets and what they cost. Pure. */
#include "divergence.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void simt_branch_init(struct simt_branch *branch, int lanes)
{
    memset(branch, 0, sizeof *branch);
    branch->form = SIMT_BRANCH_PATHS;
    branch->lanes = lanes;
    branch->paths = 1;
    branch->active_mask = lanes >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (unsigned)lanes) - 1u);
}

static int fail(struct simt_diag *diag, const char *field, const char *message)
{
    return simt_diag_fail(diag, SIMT_EINVAL, field, "%s", message);
}

int simt_divergence_compute(const struct simt_branch *branch, struct simt_divergence_result *out,
                            struct simt_diag *diag)
{
    if (branch->lanes < 1 || branch->lanes > SIMT_MAX_LANES)
        return fail(diag, "lanes", "a warp has 1 to 64 lanes");
    int active = 0;
    for (int lane = 0; lane < branch->lanes; lane++)
        active += (branch->active_mask >> (unsigned)lane) & 1u ? 1 : 0;
    double paths;
    switch (branch->form) {
    case SIMT_BRANCH_PATHS:
        if (branch->paths < 1 || branch->paths > SIMT_MAX_PATHS)
            return fail(diag, "paths", "paths must be 1..1000000");
        paths = branch->paths < active ? branch->paths : active;
        break;
    case SIMT_BRANCH_RANDOM: {
        if (branch->paths < 1 || branch->paths > SIMT_MAX_PATHS)
            return fail(diag, "random_paths", "random_paths must be 1..1000000");
        double k = branch->paths;
        /* k (1 - (1 - 1/k)^n), via log1p for large k */
        paths = k * -expm1((double)active * log1p(-1.0 / k));
        if (branch->paths == 1)
            paths = active > 0 ? 1.0 : 0.0;
        break;
    }
    case SIMT_BRANCH_LANE_PATHS: {
        int64_t ids[SIMT_MAX_LANES];
        int n = 0;
        for (int lane = 0; lane < branch->lanes; lane++)
            if ((branch->active_mask >> (unsigned)lane) & 1u)
                ids[n++] = branch->lane_paths[lane];
        paths = simt_sort_unique(ids, n);
        break;
    }
    default:
        return fail(diag, "paths", "unknown branch form");
    }
    memset(out, 0, sizeof *out);
    out->expected_paths = paths;
    out->serialization = paths > 1.0 ? paths : 1.0;
    out->simt_efficiency = (double)active / ((double)branch->lanes * out->serialization);
    return SIMT_OK;
}
