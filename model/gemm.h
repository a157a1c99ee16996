/* gemm.h - how long one (batched) matrix multiplication C = A.B takes on a
 * GPU, the way cuBLAS/CUTLASS run it: the output cut into thread-block tiles
 * (tile quantization), the tiles dealt to the SMs in waves (wave
 * quantization), K split across blocks when the tiles alone cannot fill the
 * GPU, operands fed to each SM from L2, A, B and C streamed through DRAM
 * (the roofline that bounds skinny and small-K shapes), matrix-vector
 * products on the FMA units, leading dimensions that are not 16-byte
 * multiples falling to slower kernels, stream-K scheduling where cuBLAS has
 * it (Hopper on), FMA kernels bound by the elements their SMs move through
 * load/store, tf32's row-major B fed to Hopper's tensor cores through
 * registers, split-K and stream-K workspaces (a memset, or a reduction
 * kernel), DRAM priced by its read/write mix, and the fixed cost of a
 * kernel. The library's choice of tile, split and schedule is modelled as
 * the candidate with the least predicted time.
 *
 * Conventions: A is m x k, B is k x n, C is m x n, all row-major as
 * torch.mm holds them (leading dimensions k, n, n); one GEMM counts 2*m*n*k
 * flops. Pure: no allocation, no I/O, no globals; safe from any thread. */
#ifndef SIMT_GEMM_H
#define SIMT_GEMM_H

#include <stdint.h>

#include "figures.h"
#include "gpu.h"
#include "simt_error.h"

enum simt_gemm_bound {
    SIMT_GEMM_BOUND_COMPUTE = 0, /* tensor-core (or FMA) math, quantization included */
    SIMT_GEMM_BOUND_L2,          /* feeding operand tiles from L2 to the SMs */
    SIMT_GEMM_BOUND_DRAM,        /* A, B and C through DRAM */
    SIMT_GEMM_BOUND_LAUNCH       /* launch and pipeline-fill latency */
};

/* "compute", "l2", "dram", "launch"; NULL when out of range. */
const char *simt_gemm_bound_name(enum simt_gemm_bound bound);

/* How the GEMM is launched, which decides what its fixed cost is. */
enum simt_gemm_launches {
    SIMT_GEMM_LAUNCH_SINGLE = 0,   /* one call on an idle GPU: the launch overhead, then the kernel */
    SIMT_GEMM_LAUNCH_BACK_TO_BACK, /* one of a stream of calls: each launch hidden behind the last kernel */
    SIMT_GEMM_LAUNCH_IN_CHAIN      /* one call in a chain of other kernels whose own writes are small (a
                                      model's layer): the launch overhead paid as for a single call, but
                                      the L2 holds no earlier work's dirty lines for the GEMM to evict */
};

/* "single", "back_to_back"; NULL when out of range. */
const char *simt_gemm_launches_name(enum simt_gemm_launches launches);

struct simt_gemm_request {
    int64_t m;
    int64_t n;
    int64_t k;
    int64_t batch;                    /* independent GEMMs of the same shape, >= 1 */
    enum simt_dtype dtype;            /* any; the GPU's tensor cores must have it (fp32: FMA units) */
    enum simt_figure_policy policy;   /* 0: prefer measured figures */
    enum simt_gemm_launches launches; /* 0: a single call on an idle GPU */
    int sparse;                       /* 1: A is 2:4 structured sparse (the sparse tensor rate) */
};

#define SIMT_GEMM_MAX_ASSUMPTIONS 10
#define SIMT_GEMM_ASSUMPTION_BYTES 384

struct simt_gemm_result {
    double time_s;
    double flops;                /* 2*m*n*k*batch */
    double achieved_flops_per_s; /* flops / time_s */
    enum simt_gemm_bound bound;

    /* the kernel the model picked */
    int tile_m;
    int tile_n;
    int tile_k;
    int split_k;            /* K split across this many blocks (1 = none) */
    int stream_k;           /* 1: stream-K schedule (K iterations shared evenly over the SMs) */
    int tensor_cores;       /* 1: tensor-core path; 0: FMA (SIMT) path */
    int64_t tiles;          /* output tiles * split_k * batch */
    double waves;           /* tiles / sm_count: the waves of a data-parallel schedule */
    double tile_efficiency; /* m*n / (m, n rounded up to the tile) */
    double wave_efficiency; /* waves / ceil(waves); stream-K does not pay it */
    int alignment_ok;       /* k and n multiples of alignment_elements */
    int alignment_elements; /* 16 bytes in elements of the dtype */

    /* the figures behind it */
    double peak_flops_per_s; /* attainable peak of the chosen path, before quantization */
    int peak_measured;       /* 1: from the GPU's measured figures */
    double dram_bandwidth_bytes_per_s;
    double dram_bytes; /* A + B + C (+ split-K partials) */
    double compute_s;  /* waves * per-tile math time */
    double l2_s;       /* waves * per-tile operand feed time */
    double dram_s;     /* dram_bytes / DRAM bandwidth */
    double overhead_s; /* launch (single calls), the kernel's fixed cost, one DRAM latency per wave */
    double launch_s;   /* of overhead_s: the launch overhead figure (0 back to back) */
    double reduce_s;   /* split-K / stream-K partial sums through L2 (0 without) */

    /* the figures the model read (simt_figure_describe names each), and
     * what else it assumed, one sentence each */
    struct simt_figure_set figures;
    simt_figure_mask figures_used;
    int assumption_count;
    char assumptions[SIMT_GEMM_MAX_ASSUMPTIONS][SIMT_GEMM_ASSUMPTION_BYTES];
};

/* Predicts one GEMM. Returns 0 and fills *out. SIMT_EINVAL when a dimension
 * or batch is < 1, or the dtype is out of range (diag->field names "m",
 * "n", "k", "batch" or "dtype"); SIMT_EUNSAT when the GPU has no path for
 * the dtype (fp8 on a GPU without fp8 tensor cores, fp4 before Blackwell;
 * field "dtype"), no 2:4 sparse rate for it (field "sparse"), or a narrow
 * type's k or n is not a whole number of 16-byte pieces (field "k" or "n").
 * *out is unspecified on failure. */
int simt_gemm_predict(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                      struct simt_gemm_result *out, struct simt_diag *diag) SIMT_WARN_UNUSED;

/* Bytes of one element of A and B in the dtype, block scales included
 * (tf32 and fp32: 4; fp4: 0.5; mxfp4: 0.5 + 1/32). 0 for a dtype out of
 * range. */
double simt_gemm_element_bytes(enum simt_dtype dtype);

/* Tile and wave quantization of one tile shape, the NVIDIA "Matrix
 * Multiplication Background" arithmetic on its own: output tiles, waves over
 * `sm_count` SMs (one tile per SM at a time) and both efficiencies. */
struct simt_gemm_quantization {
    int64_t tiles;
    double waves;
    double tile_efficiency;
    double wave_efficiency;
};
void simt_gemm_quantize(int64_t m, int64_t n, int64_t batch, int tile_m, int tile_n, int sm_count,
                        struct simt_gemm_quantization *out);

#endif
