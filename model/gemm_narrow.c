/* gemm_narrow.c - cuBLAS's FP32 FMA kernels for tall, narrow outputs (m
 * of 512 to 4096 rows against n of 2 to 64 columns, K of 4095 and more:
 * sm80_xmma_gemm_f32f32 tiles 64x32, 128x32, 64x64, 128x64 and 256x64,
 * split over grid.z, then a second launch of the same kernel that sums
 * the splits), whose math runs below the rate of the square SGEMM tiles
 * the FMA rate figure was measured on: too few accumulators are resident
 * on an SM to keep its FMA pipes issuing. Pure.
 *
 * The rule: an SM's FMA rate grows with the outputs its resident blocks
 * hold (tile rows x columns x blocks an SM: the independent sums its
 * threads interleave to cover the FMA and shared-memory latencies), as
 * R = f R_fma (1 - exp(-O / O_0)), R_fma the FMA path's rate an SM. The
 * columns are padded to the tile's 32 or 64, the rows to 128.
 *
 * Evidence, fit data only (tests/gpu/results/h200/gemm_probe_classes2.json
 * group tallk and gemm_probe_classes5.json group tallu: 158 shapes, m =
 * 512..4096, n = 16..64, K = 4095..16384, with the kernels' names, grids
 * and times under the profiler): the main kernel's rate an SM, counted
 * on the padded output, is 71 to 94 GFMA/s where 4096 outputs are
 * resident (64x32 at two blocks an SM), 101 to 138 at 8192 (64x32 at
 * four, 128x32 and 64x64 at two, 128x64 at one), 146 to 159 at 16384
 * (256x64 at one, 128x64 at two) and 164 to 169 at 32768 (256x64 at
 * two): the same outputs, the same rate, whichever tile holds them.
 * Fitted over the 158: f R_fma = 170 GFMA/s (0.874 of the H200's FP32
 * rate figure an SM, 194.5) and O_0 = 6750 outputs; the kernels' rates
 * within 3.6% (median), 18.7% (worst). Where cuBLAS puts them (its grids,
 * blocks per SM = blocks / 132 rounded up): 32-wide tiles hold 4096 an
 * SM for m <= 1024 (but 8192 at K = 4096 there: 4 of the 158 missed),
 * 8192 beyond; 64-wide tiles 8192 up to m = 2048 and for m up to 3072
 * while m K <= 30e6 (27.5e6 seen at 8192, 33.8e6 at 32768; ESTIMATE
 * between), 32768 past that, 16384 at m = 4096. Outside these sizes the
 * square tiles' rule of gemm.c. Down to n = 2 (gemm_probe_classes_fp32n2.json,
 * fit data: m = 2000 and 3600 against n = 2, 3, 4 at K = 8000..16000 ran
 * sm80_xmma 64x32 split over grid.z with its split_k_kernel, 8 blocks an
 * SM by its registers and shared memory): those 18 rows +0.3..+41% ->
 * -26..+3%, median 17% -> 5.5%; the three of m = 3600 and n = 3 split 33
 * ways (16 blocks resident where the others hold 4 to 8) stay -20..-26%. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"

#define NARROW_MIN_M 512
#define NARROW_MAX_M 4096
#define NARROW_MIN_N 2 /* n = 1 is cuBLAS's GEMV */
#define NARROW_MAX_N 64
#define NARROW_MIN_K 4095 /* the least K seen */
#define NARROW_RATE_FRACTION 0.874
#define NARROW_OUTPUTS_SCALE 6750.0
#define NARROW_ROWS 128
#define NARROW_SMALL_M 1024
#define NARROW_MID_M 2048
#define NARROW_LONG_WORK 30.0e6

static const struct tile_shape narrow_32 = {NARROW_ROWS, 32, 0};
static const struct tile_shape narrow_64 = {NARROW_ROWS, 64, 0};

int simt_gemm_fma_narrow_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->batch == 1 && req->m >= NARROW_MIN_M && req->m <= NARROW_MAX_M &&
           req->n >= NARROW_MIN_N && req->n <= NARROW_MAX_N && req->k >= NARROW_MIN_K;
}

/* Outputs the resident blocks of cuBLAS's grid hold on one SM. */
static double resident_outputs(const struct simt_gemm_request *req)
{
    if (req->n <= 32)
        return req->m <= NARROW_SMALL_M ? 4096.0 : 8192.0;
    if (req->m >= NARROW_MAX_M)
        return 16384.0;
    if (req->m > NARROW_MID_M && (double)req->m * (double)req->k > NARROW_LONG_WORK)
        return 32768.0;
    return 8192.0;
}

double simt_gemm_fma_narrow_rate(double sm_flops_per_s, double outputs)
{
    return NARROW_RATE_FRACTION * sm_flops_per_s * (1.0 - exp(-outputs / NARROW_OUTPUTS_SCALE));
}

void simt_gemm_fma_narrow_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                double sm_flops_per_s, struct candidate *c)
{
    if (!simt_gemm_fma_narrow_runs(gpu, req) || c->gemv || c->small_n || c->tile == NULL ||
        !(sm_flops_per_s > 0.0) || gpu->sm_count < 1)
        return;
    const struct tile_shape *tile = req->n <= 32 ? &narrow_32 : &narrow_64;
    double rows = ceil((double)req->m / NARROW_ROWS) * NARROW_ROWS;
    double flops = 2.0 * rows * (double)tile->n * (double)req->k;
    double math_s =
        flops / ((double)gpu->sm_count * simt_gemm_fma_narrow_rate(sm_flops_per_s, resident_outputs(req)));
    /* the rest of the candidate (its split's reduction, its launch and
     * fills) stands; its math becomes this */
    double busy = math_s > c->dram_s ? math_s : c->dram_s;
    c->compute_s = math_s;
    c->time_s = busy + c->reduce_s + c->overhead_s;
    c->tile = tile;
    c->tiles = (int64_t)(rows / NARROW_ROWS) * c->split;
    c->waves = (double)c->tiles / (double)gpu->sm_count;
    c->narrow = 1;
}

int simt_gemm_fma_narrow_line(const struct simt_gemm_request *req, const struct candidate *c, char *buf,
                              size_t size)
{
    if (!c->narrow)
        return 0;
    snprintf(
        buf, size,
        "kernel: cuBLAS's FP32 sm80_xmma tiles for tall, narrow outputs (%d columns a tile), their math at "
        "0.874 of the FP32 rate times 1 - exp(-O / 6750), O = %.0f outputs resident an SM (fitted on an "
        "H200)",
        req->n <= 32 ? 32 : 64, resident_outputs(req));
    return 1;
}
