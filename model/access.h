/* access.h - one warp-wide memory access as the memory models see it: the
 * element size, which lanes take part, and each lane's byte address, given
 * either as a lane stride plus an offset (lane i reads element offset + i *
 * stride) or as explicit per-lane byte offsets. Shared by the coalescing,
 * bank and constant-memory models and by the whole-kernel model. Pure: the
 * struct is plain data the caller owns; nothing here allocates. */
#ifndef SIMT_ACCESS_H
#define SIMT_ACCESS_H

#include <stdint.h>

#include "simt_error.h"

#define SIMT_MAX_LANES 64 /* wave64 on AMD; NVIDIA warps use 32 */
#define SIMT_MAX_STRIDE_ELEMENTS ((int64_t)1 << 32)
#define SIMT_MAX_ADDRESS_BYTES ((int64_t)1 << 48)

struct simt_warp_access {
    int lanes;                    /* lanes in the warp, 1..SIMT_MAX_LANES */
    int element_bytes;            /* 1, 2, 4, 8 or 16 */
    int explicit_addresses;       /* 1: lane_address_bytes is used; 0: stride form */
    int64_t lane_stride_elements; /* stride form: elements between consecutive lanes (0 = one address; may be
                                     < 0) */
    int64_t offset_elements;      /* stride form: lane 0's element */
    int64_t lane_address_bytes[SIMT_MAX_LANES]; /* explicit form: byte offsets, each a multiple of
                                                   element_bytes */
    uint64_t active_mask;                       /* bit i set: lane i takes part */
};

/* Stride 1, offset 0, every lane active. */
void simt_warp_access_init(struct simt_warp_access *access, int lanes, int element_bytes);

/* SIMT_OK, or SIMT_EINVAL with diag->field naming the API field at fault
 * ("element_bytes", "lane_addresses[3]", "lane_stride_elements",
 * "offset_elements") and a message. diag may be NULL. */
int simt_warp_access_check(const struct simt_warp_access *access, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* Byte address of one lane (lane in 0..lanes-1; the access is valid). */
int64_t simt_warp_access_address(const struct simt_warp_access *access, int lane);

/* 1 when the lane takes part. */
int simt_warp_access_lane_active(const struct simt_warp_access *access, int lane);

/* Number of active lanes. */
int simt_warp_access_active_lanes(const struct simt_warp_access *access);

/* floor(a / b) for b > 0, also for negative a. */
int64_t simt_floor_div(int64_t a, int64_t b);

/* Sorts values[0..count) ascending and removes duplicates in place;
 * returns the number of distinct values. count <= a few hundred. */
int simt_sort_unique(int64_t *values, int count);

#endif
