/* occupancy.h - how many blocks of a kernel one SM holds at once, limit by
 * limit, as the CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * computes it (compute capability 7.0 to 12.x); the block size that
 * cudaOccupancyMaxPotentialBlockSize would suggest; and AMD's waves per SIMD
 * and CU from its documented allocation rules. Pure: no allocation, no I/O. */
#ifndef SIMT_OCCUPANCY_H
#define SIMT_OCCUPANCY_H

#include <limits.h>
#include <stdint.h>

#include "gpu.h"
#include "simt_error.h"

/* limiter bits */
#define SIMT_LIMIT_WARPS (1u << 0)
#define SIMT_LIMIT_REGISTERS (1u << 1)
#define SIMT_LIMIT_SHARED (1u << 2)
#define SIMT_LIMIT_BLOCKS (1u << 3)
#define SIMT_LIMIT_BARRIERS (1u << 4)

/* A per-resource limit that does not apply (no registers used, no shared
 * memory, no barrier limit on this architecture) holds this value, as the
 * CUDA occupancy calculator reports INT_MAX. */
#define SIMT_OCCUPANCY_NO_LIMIT INT_MAX

/* assumption bits: defaults the model filled in */
#define SIMT_OCCUPANCY_ASSUMED_MAX_DYNAMIC                                                                   \
    (1u << 0) /* max_dynamic_shared_bytes taken as opt-in limit - static */
#define SIMT_OCCUPANCY_ASSUMED_CARVEOUT (1u << 1) /* driver's default carveout preference */
#define SIMT_OCCUPANCY_ASSUMED_SGPRS (1u << 2)    /* AMD: SGPR use not given, not counted as a limit */

struct simt_occupancy_request {
    int block_size;
    int registers_per_thread;    /* AMD: VGPRs per lane, AccVGPRs included */
    int64_t static_shared_bytes; /* AMD: LDS */
    int64_t dynamic_shared_bytes;
    int64_t max_dynamic_shared_bytes; /* -1: the most the GPU allows (opt-in limit - static) */
    int carveout_percent;             /* -1: driver default; 0..100 a preference */
    int block_barriers;               /* default 1 */
    int64_t grid_size;                /* 0: none, no waves */
    int sgprs_per_wave;               /* AMD only: scalar registers per wave; 0 = not given */
    /* thread-block clusters (simt_occupancy_clusters); simt_occupancy_compute ignores them */
    int cluster_dims[3];           /* blocks per cluster in x, y, z; all 0: no clusters */
    int non_portable_cluster_size; /* 1: cudaFuncAttributeNonPortableClusterSizeAllowed set */
};

/* Fills the defaults of the contract: barriers 1, carveout -1, max dynamic -1. */
void simt_occupancy_request_init(struct simt_occupancy_request *req);

struct simt_occupancy_result {
    int active_blocks_per_sm;
    int active_warps_per_sm;
    int max_warps_per_sm;
    double occupancy;  /* active warps / max warps, 0..1 */
    unsigned limiters; /* SIMT_LIMIT_* bits of every limit equal to the result */
    int limit_warps;   /* blocks per SM each resource alone allows */
    int limit_registers;
    int limit_shared;
    int limit_blocks;
    int limit_barriers;
    int64_t registers_per_block;    /* allocated, after rounding */
    int64_t shared_bytes_per_block; /* allocated, reserved bytes and rounding included */
    int64_t shared_carveout_bytes;  /* the carveout the driver picks */
    double waves;                   /* grid / (blocks per SM * SMs); 0 when no grid */
    unsigned assumed;               /* SIMT_OCCUPANCY_ASSUMED_* bits */
    /* AMD only (0 on NVIDIA) */
    int waves_per_simd;
    int waves_per_cu;
    int vgprs_per_wave; /* allocated */
    int sgprs_per_wave;
    int64_t lds_bytes_per_workgroup;
};

/* Occupancy of one configuration. Returns 0 and fills *out; SIMT_EINVAL for
 * a malformed request (negative sizes); SIMT_EUNSAT when the configuration
 * cannot launch on this GPU at all (diag->field names the request field at
 * fault: "block_size", "registers_per_thread", "static_shared_bytes",
 * "dynamic_shared_bytes", "max_dynamic_shared_bytes", "block_barriers";
 * AMD also "sgprs_per_wave"). A record lacking a field the model needs is
 * SIMT_EINVAL with diag->field "gpu.<field>".
 * On SIMT_EUNSAT *out is still filled, with active_blocks_per_sm 0. */
int simt_occupancy_compute(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                           struct simt_occupancy_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* ---- thread-block clusters (NVIDIA compute capability 9.0 on) ---- */

struct simt_cluster_result {
    int cluster_blocks;              /* x * y * z */
    int blocks_per_sm;               /* min(active blocks per SM, the layout's cluster_max_blocks_per_sm) */
    int64_t active_clusters_per_gpu; /* as cudaOccupancyMaxActiveClusters */
};

/* The clusters of req->cluster_dims a GPU holds at once, from `occ`
 * (simt_occupancy_compute's answer for the same request, launchable) and
 * the GPU's cluster layout (gpc_sms, cluster_max_blocks_per_sm): each
 * group of gpc_sms[g] SMs that has room for a cluster's blocks on distinct
 * SMs holds floor(min(b, cluster_max_blocks_per_sm) * gpc_sms[g] / c)
 * clusters of c blocks, b blocks per SM. This is what the CUDA runtime's
 * cudaOccupancyMaxActiveClusters answers on every measured case of the one
 * card whose layout the database holds (h200-sxm; tests/oracle). Fills *out
 * and returns 0; otherwise, diag naming the field:
 *  - SIMT_EINVAL "cluster_size": a dimension below 1;
 *  - SIMT_EUNSAT "cluster_size": not an NVIDIA GPU of compute capability
 *    9.0 on; more blocks than cluster_max_size, or than
 *    cluster_max_portable_size without non_portable_cluster_size;
 *  - SIMT_EUNSAT "grid_size": a grid that is not a whole number of clusters;
 *  - SIMT_ENOENT "cluster_size": the record has no cluster layout, or one
 *    whose groups no longer add up to sm_count (a what-if changed it).
 * *out is zeroed on failure. */
int simt_occupancy_clusters(const struct simt_gpu_spec *gpu, const struct simt_occupancy_request *req,
                            const struct simt_occupancy_result *occ, struct simt_cluster_result *out,
                            struct simt_diag *diag) SIMT_WARN_UNUSED;

/* What cudaOccupancyMaxPotentialBlockSize answers, tie-breaking included
 * (on AMD the same search, in steps of the wave size). SIMT_EUNSAT, with the
 * smallest block size's reason in diag, when no block size can launch. */
struct simt_suggest_request {
    int registers_per_thread;
    int64_t static_shared_bytes;
    int64_t dynamic_shared_bytes;            /* per block, fixed */
    int64_t dynamic_shared_bytes_per_thread; /* when > 0: dynamic = this * block size */
    int max_block_size;                      /* 0: the GPU's limit */
    int carveout_percent;                    /* -1 default */
    int block_barriers;                      /* default 1 */
};
void simt_suggest_request_init(struct simt_suggest_request *req);

struct simt_suggest_result {
    int block_size;
    int min_grid_size; /* blocks to fill the GPU at that block size */
    double occupancy;
    int active_blocks_per_sm;
};

int simt_occupancy_suggest(const struct simt_gpu_spec *gpu, const struct simt_suggest_request *req,
                           struct simt_suggest_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

#endif
