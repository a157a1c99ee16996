/* coalescing.h - global-memory traffic of one warp-wide access: the 32-byte
 * sectors and 128-byte cache lines it touches, the DRAM bytes those sectors
 * cost at the GPU's DRAM access granularity, the bytes the lanes actually
 * asked for, and the 32/64/128-byte transactions of the classic coalescing
 * rule. Strides (0 included), offsets, explicit lane addresses, inactive
 * lanes, elements of 1 to 16 bytes. Pure: no allocation, no globals. */
#ifndef SIMT_COALESCING_H
#define SIMT_COALESCING_H

#include <stdint.h>

#include "access.h"
#include "gpu.h"
#include "simt_error.h"

/* assumption bits: database fields that were absent and took a default */
#define SIMT_COAL_ASSUMED_SECTOR (1u << 0)      /* sector_bytes taken as 32 */
#define SIMT_COAL_ASSUMED_LINE (1u << 1)        /* cache_line_bytes taken as 128 */
#define SIMT_COAL_ASSUMED_GRANULARITY (1u << 2) /* DRAM granularity taken as one sector */

struct simt_coalescing_result {
    int active_lanes;
    int sectors;                /* distinct sectors touched */
    int cache_lines;            /* distinct cache lines touched */
    int dram_granules;          /* distinct DRAM access granules touched */
    int transactions;           /* one per line touched (classic rule) */
    int64_t transaction_bytes;  /* sum of their sizes: 32, 64 or 128 each */
    int64_t sector_bytes_moved; /* sectors * sector size: the L1<->L2 traffic */
    int64_t dram_bytes;         /* dram_granules * granularity, with no reuse by other warps */
    int64_t useful_bytes;       /* distinct bytes the active lanes asked for */
    double efficiency;          /* useful_bytes / sector_bytes_moved; 1 when nothing moves */
    int sector_bytes;           /* sizes used */
    int cache_line_bytes;
    int dram_granularity_bytes;
    unsigned assumed; /* SIMT_COAL_ASSUMED_* */
};

/* Returns SIMT_OK and fills *out; SIMT_EINVAL for an invalid access
 * (diag->field as simt_warp_access_check names it). *out is untouched on
 * failure. diag may be NULL. */
int simt_coalescing_compute(const struct simt_gpu_spec *gpu, const struct simt_warp_access *access,
                            struct simt_coalescing_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* How many distinct aligned blocks of block_bytes (> 0) the active lanes'
 * elements overlap (the whole-kernel model counts DRAM row chunks with it).
 * The access must be valid (simt_warp_access_check); 0 when no lane is
 * active. */
int simt_coalescing_distinct_blocks(const struct simt_warp_access *access, int64_t block_bytes);

#endif
