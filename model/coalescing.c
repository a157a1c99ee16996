/* coalescing.c - counts the sectors, lines and DRAM granules one warp-wide
 * global access touches. Every lane's element is an interval [a, a + E) of
 * bytes; the access touches every sector, line and granule such an interval
 * overlaps. Pure. */
#include "coalescing.h"

#include <stdio.h>
#include <string.h>

/* Collects the distinct blocks of `size` bytes that the active lanes'
 * elements overlap; returns how many. */
static int distinct_blocks(const struct simt_warp_access *access, int64_t size, int64_t *blocks)
{
    int n = 0;
    for (int lane = 0; lane < access->lanes; lane++) {
        if (!simt_warp_access_lane_active(access, lane))
            continue;
        int64_t a = simt_warp_access_address(access, lane);
        int64_t first = simt_floor_div(a, size);
        int64_t last = simt_floor_div(a + access->element_bytes - 1, size);
        for (int64_t b = first; b <= last && n < 4 * SIMT_MAX_LANES; b++)
            blocks[n++] = b;
    }
    return simt_sort_unique(blocks, n);
}

int simt_coalescing_distinct_blocks(const struct simt_warp_access *access, int64_t block_bytes)
{
    int64_t blocks[4 * SIMT_MAX_LANES];
    return block_bytes > 0 ? distinct_blocks(access, block_bytes, blocks) : 0;
}

/* Distinct bytes covered by the active lanes' elements (union of intervals). */
static int64_t union_bytes(const struct simt_warp_access *access)
{
    int64_t starts[SIMT_MAX_LANES];
    int n = 0;
    for (int lane = 0; lane < access->lanes; lane++)
        if (simt_warp_access_lane_active(access, lane))
            starts[n++] = simt_warp_access_address(access, lane);
    n = simt_sort_unique(starts, n);
    int64_t total = 0, covered_to = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int64_t lo = starts[i] > covered_to ? starts[i] : covered_to;
        int64_t hi = starts[i] + access->element_bytes;
        if (hi > lo)
            total += hi - lo;
        if (hi > covered_to)
            covered_to = hi;
    }
    return total;
}

int simt_coalescing_compute(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                            struct simt_coalescing_result *out, struct simt_diag *diag)
{
    int rc = simt_warp_access_check(access, diag);
    if (rc != SIMT_OK)
        return rc;
    struct simt_coalescing_result r;
    memset(&r, 0, sizeof r);
    r.sector_bytes = gpu->sector_bytes > 0 ? gpu->sector_bytes : 32;
    if (gpu->sector_bytes <= 0)
        r.assumed |= SIMT_COAL_ASSUMED_SECTOR;
    r.cache_line_bytes = gpu->cache_line_bytes > 0 ? gpu->cache_line_bytes : 128;
    if (gpu->cache_line_bytes <= 0)
        r.assumed |= SIMT_COAL_ASSUMED_LINE;
    r.dram_granularity_bytes =
        gpu->dram_access_granularity_bytes > 0 ? gpu->dram_access_granularity_bytes : r.sector_bytes;
    if (gpu->dram_access_granularity_bytes <= 0)
        r.assumed |= SIMT_COAL_ASSUMED_GRANULARITY;
    if (r.cache_line_bytes < r.sector_bytes) {
        /* a line holds whole sectors; the transaction rule divides by their count */
        snprintf(diag->field, sizeof diag->field, "cache_line_bytes");
        snprintf(diag->message, sizeof diag->message,
                 "cache_line_bytes (%d) is smaller than sector_bytes (%d)", r.cache_line_bytes,
                 r.sector_bytes);
        return SIMT_EINVAL;
    }

    r.active_lanes = simt_warp_access_active_lanes(access);
    int64_t blocks[4 * SIMT_MAX_LANES];
    int64_t sectors[4 * SIMT_MAX_LANES];
    r.sectors = distinct_blocks(access, r.sector_bytes, sectors);
    r.cache_lines = distinct_blocks(access, r.cache_line_bytes, blocks);
    r.dram_granules = distinct_blocks(access, r.dram_granularity_bytes, blocks);
    r.sector_bytes_moved = (int64_t)r.sectors * r.sector_bytes;
    r.dram_bytes = (int64_t)r.dram_granules * r.dram_granularity_bytes;
    r.useful_bytes = union_bytes(access);
    r.efficiency = r.sector_bytes_moved > 0 ? (double)r.useful_bytes / (double)r.sector_bytes_moved : 1.0;

    /* Classic rule: one transaction per line touched, shrunk to the aligned
     * 32- or 64-byte segment that holds every touched sector of the line. */
    int per_line = r.cache_line_bytes / r.sector_bytes;
    for (int i = 0; i < r.sectors;) {
        int64_t line = simt_floor_div(sectors[i], per_line);
        int64_t lo = sectors[i], hi = sectors[i];
        while (i < r.sectors && simt_floor_div(sectors[i], per_line) == line) {
            hi = sectors[i];
            i++;
        }
        int64_t segment = r.sector_bytes;
        while (segment < r.cache_line_bytes &&
               simt_floor_div(lo * r.sector_bytes, segment) != simt_floor_div(hi * r.sector_bytes, segment))
            segment *= 2;
        r.transactions++;
        r.transaction_bytes += segment;
    }
    *out = r;
    return SIMT_OK;
}
