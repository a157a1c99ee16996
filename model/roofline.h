/* roofline.h - the hierarchical roofline of one piece of work: a count of
 * floating-point (or integer) operations at one precision, on tensor cores
 * or not, and the bytes it moves at each level (DRAM, L2, shared memory).
 * Each level's time is bytes / bandwidth, the compute time is operations /
 * peak; the work takes the longest of them (full overlap), which names the
 * bound. Per level it gives the intensity (operations per byte) and the
 * ridge point (peak / bandwidth) where that level stops binding.
 *
 * Peaks, from the figure set (measured where available):
 *   tensor cores: tensor_flops_per_s.<precision> (dense), or
 *   tensor_sparse_flops_per_s.<precision> with sparse (2:4 structured
 *   sparsity; flops are counted as the dense work's);
 *   CUDA cores: fp64 -> fp64_flops_per_s, fp32 -> fp32_flops_per_s,
 *   fp16 and bf16 -> fp16_flops_per_s (packed half2; bf16 taken at the
 *   fp16 rate). tf32, fp8, int8, int4, fp6, fp4 and the block-scaled
 *   types exist only on tensor cores.
 * Bandwidths: dram_bandwidth_bytes_per_s, l2_bandwidth_bytes_per_s,
 * shared_bandwidth_bytes_per_s (banks * bank bytes * SMs * clock).
 * Pure: no allocation, no globals. */
#ifndef SIMT_ROOFLINE_H
#define SIMT_ROOFLINE_H

#include "figures.h"
#include "gpu.h"
#include "simt_error.h"

enum simt_mem_level { SIMT_LEVEL_DRAM = 0, SIMT_LEVEL_L2, SIMT_LEVEL_SHARED, SIMT_LEVEL_COUNT };

/* "dram", "l2", "shared"; NULL out of range. */
const char *simt_mem_level_name(enum simt_mem_level level);

struct simt_roofline_request {
    double flops; /* operations, an FMA counts 2; >= 0 */
    enum simt_dtype precision;
    int tensor_cores;                  /* 1: the tensor-core (matrix) peak */
    int sparse;                        /* 1: the 2:4 sparse tensor-core peak (needs tensor_cores) */
    double bytes[SIMT_LEVEL_COUNT];    /* bytes moved at each level, >= 0 */
    int level_given[SIMT_LEVEL_COUNT]; /* 1 when the request names the level */
};

struct simt_roofline_level {
    int given;
    double bytes;
    double bandwidth_bytes_per_s;
    double time_s;
    double intensity;              /* flops / bytes; INFINITY when bytes is 0 */
    double ridge_point;            /* peak / bandwidth, flops per byte */
    double attainable_flops_per_s; /* min(peak, intensity * bandwidth) */
};

enum simt_roofline_bound { SIMT_ROOF_COMPUTE = -1 /* else a simt_mem_level */ };

struct simt_roofline_result {
    double peak_flops_per_s;
    enum simt_figure_id peak_figure;
    double compute_time_s;
    double time_s;                 /* max of compute and every given level */
    double attainable_flops_per_s; /* flops / time_s (the peak when time is 0) */
    int bound;                     /* SIMT_ROOF_COMPUTE or the slowest level */
    /* headline: the DRAM level when given, else the slowest given level */
    int headline_level;
    double arithmetic_intensity;
    double ridge_point;
    struct simt_roofline_level levels[SIMT_LEVEL_COUNT];
    simt_figure_mask figures_used;
};

/* Returns SIMT_OK and fills *out. SIMT_EINVAL (diag->field "flops",
 * "bytes.<level>", "precision") for negative or non-finite inputs or no work
 * at all; SIMT_EUNSAT when the GPU lacks the peak ("precision" or
 * "tensor_cores"; "sparse" for a sparse peak it lacks, or sparse without
 * tensor cores) or a given level's bandwidth ("bytes.<level>"). *out is
 * untouched on failure. diag may be NULL. */
int simt_roofline_compute(const struct simt_figure_set *figures, const struct simt_roofline_request *req,
                          struct simt_roofline_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* The figure id of the peak for (precision, tensor_cores); SIMT_EUNSAT when
 * that combination has no peak on any GPU (tf32 without tensor cores, fp32 on
 * tensor cores). Used by other models that need a compute peak. */
int simt_roofline_peak_figure(enum simt_dtype precision, int tensor_cores,
                              enum simt_figure_id *out) SIMT_WARN_UNUSED;

#endif
