/* access.c - lane addresses of one warp-wide access, and the small integer
 * helpers the memory models share. Pure. */
#include "access.h"

#include <stdio.h>

void simt_warp_access_init(struct simt_warp_access *access, int lanes, int element_bytes)
{
    *access = (struct simt_warp_access){0};
    access->lanes = lanes;
    access->element_bytes = element_bytes;
    access->lane_stride_elements = 1;
    access->active_mask = lanes >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (unsigned)lanes) - 1u);
}

static int fail(struct simt_diag *diag, const char *field, const char *message)
{
    return simt_diag_fail(diag, SIMT_EINVAL, field, "%s", message);
}

int simt_warp_access_check(const struct simt_warp_access *access, struct simt_diag *diag)
{
    if (access->lanes < 1 || access->lanes > SIMT_MAX_LANES)
        return fail(diag, "lanes", "a warp has 1 to 64 lanes");
    int e = access->element_bytes;
    if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
        return fail(diag, "element_bytes", "element_bytes must be 1, 2, 4, 8 or 16");
    if (!access->explicit_addresses) {
        if (access->lane_stride_elements > SIMT_MAX_STRIDE_ELEMENTS ||
            access->lane_stride_elements < -SIMT_MAX_STRIDE_ELEMENTS)
            return fail(diag, "lane_stride_elements", "lane_stride_elements must be within +-2^32");
        if (access->offset_elements < 0 || access->offset_elements > SIMT_MAX_STRIDE_ELEMENTS)
            return fail(diag, "offset_elements", "offset_elements must be 0..2^32");
        return SIMT_OK;
    }
    for (int lane = 0; lane < access->lanes; lane++) {
        int64_t a = access->lane_address_bytes[lane];
        if (a < 0 || a > SIMT_MAX_ADDRESS_BYTES || a % e != 0) {
            if (diag != NULL) {
                snprintf(diag->field, sizeof diag->field, "lane_addresses[%d]", lane);
                snprintf(diag->message, sizeof diag->message,
                         "lane_addresses[%d] must be a byte offset 0..2^48 aligned to element_bytes (%d)",
                         lane, e);
            }
            return SIMT_EINVAL;
        }
    }
    return SIMT_OK;
}

int64_t simt_warp_access_address(const struct simt_warp_access *access, int lane)
{
    if (access->explicit_addresses)
        return access->lane_address_bytes[lane];
    return (access->offset_elements + (int64_t)lane * access->lane_stride_elements) * access->element_bytes;
}

int simt_warp_access_lane_active(const struct simt_warp_access *access, int lane)
{
    return (access->active_mask >> (unsigned)lane) & 1u ? 1 : 0;
}

int simt_warp_access_active_lanes(const struct simt_warp_access *access)
{
    int n = 0;
    for (int lane = 0; lane < access->lanes; lane++)
        n += simt_warp_access_lane_active(access, lane);
    return n;
}

int64_t simt_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && (a < 0))
        q--;
    return q;
}

int simt_sort_unique(int64_t *values, int count)
{
    for (int i = 1; i < count; i++) {
        int64_t v = values[i];
        int j = i - 1;
        while (j >= 0 && values[j] > v) {
            values[j + 1] = values[j];
            j--;
        }
        values[j + 1] = v;
    }
    int n = 0;
    for (int i = 0; i < count; i++)
        if (n == 0 || values[n - 1] != values[i])
            values[n++] = values[i];
    return n;
}
