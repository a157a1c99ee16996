/* gemm_walk16.c - bf16 of two to five rows whose n or K is not a multiple
 * of 8 elements (16 bytes) but both are even: cuBLAS runs one block that
 * walks the whole of K alone, no split. Pure.
 *
 * Seen on an H100 SXM (same GH100 die and cuBLAS as the H200; fit data:
 * tests/gpu/results/h100/gemm_probe_windows2.json, group tinylongk, and
 * gemm_probe_classes_h100t.json), each shape one block (grid 1 x 1 x 1):
 * cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x2 align2 for 2
 * and 3 rows, gemmSN_NN for 4 rows of 2 and 4 columns, at K = 500 (n = 2
 * to 24, K off 16 bytes), 1000, 2000 and 3000 (n = 2 and 4) and 2500 (3
 * rows, n = 2, 20, 26, and 700): 42 single cold calls of 10.2 to 13.5 us
 * at K = 500, 16.5 to 20.7 at 1000, 28.3 to 36.0 at 2000, 40.1 to 52.5 at
 * 3000, the same kernels 5.4 to 25.7 us warm. Each 32-deep K stage waits
 * for its loads: 1.39 DRAM latencies a stage cold (0.48 us on the H100,
 * whose latency figure is 0.344 us), fitted by least squares over those 42
 * rows after the launch and the kernel floor; they go from -26..-82% (the
 * split the model priced, which cuBLAS does not run here) to a median of
 * 3.3%, 37 within 11%, the worst gemmSN's 4 x 2 rows (+16% to +24%: its
 * walk runs 1.1 latencies a stage, 4 x 4's 1.5; one figure for both). Not 6
 * or more rows (split K in pieces of 8 with the reduction kernel: gemm.c,
 * gemm_splitk.c), not fp16 (split, its wmma kernels and the reduction),
 * not odd n or K (the s1688 align1 kernels, split: gemm_align1.c), not
 * wider than one 32x32 tile (26 the widest seen) nor K past 3000 (the
 * longest seen). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "gemm_internal.h"

#define WALK16_MIN_M 2
#define WALK16_MAX_M 5
#define WALK16_MAX_N 32
/* 5 rows: gemmSN's one block of 64 columns (H100 windows3 probe, fit data:
 * 5 x 2 to 42 at K = 600, 1802 and 2998, n and K even; the H200 the same
 * at 5 x 42 and 66) */
#define WALK16_SN_M 5
#define WALK16_SN_MAX_N 64
#define WALK16_MIN_K 500
#define WALK16_MAX_K 3000
#define WALK16_STAGE_K 32
#define WALK16_STAGE_LATENCIES 1.39

static const struct tile_shape walk16_tile = {32, 32, 2};

int simt_gemm_walk16_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    int elements = simt_gemm_alignment_elements(req->dtype);
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_BF16 &&
           !req->sparse && req->batch == 1 && req->m >= WALK16_MIN_M && req->m <= WALK16_MAX_M &&
           req->n <= (req->m == WALK16_SN_M ? WALK16_SN_MAX_N : WALK16_MAX_N) && req->k >= WALK16_MIN_K &&
           req->k <= WALK16_MAX_K && req->n % 2 == 0 && req->k % 2 == 0 &&
           (req->n % elements != 0 || req->k % elements != 0);
}

void simt_gemm_walk16_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            const struct shape_context *ctx, struct candidate *c)
{
    if (!simt_gemm_walk16_runs(gpu, req) || !(ctx->dram_latency_s > 0.0))
        return;
    memset(c, 0, sizeof *c);
    c->tile = &walk16_tile;
    c->tile_k = WALK16_STAGE_K;
    c->split = 1;
    c->tiles = 1;
    c->waves = 1.0 / (double)ctx->sm_count;
    c->compute_s = ceil((double)req->k / WALK16_STAGE_K) * WALK16_STAGE_LATENCIES * ctx->dram_latency_s;
    c->overhead_s = ctx->launch_s + ctx->floor_s;
    c->time_s = c->overhead_s + c->compute_s;
    c->walk16 = 1;
}

int simt_gemm_walk16_line(const struct candidate *c, char *buf, size_t size)
{
    if (!c->walk16)
        return 0;
    snprintf(buf, size,
             "kernel: cuBLAS's one block for bf16 of 2 to 5 rows off 16 bytes (wmma 32x32 align2 or gemmSN, "
             "seen on an H100 SXM): it walks K alone, no split, a 32-deep stage %.2f DRAM latencies "
             "(fitted there)",
             WALK16_STAGE_LATENCIES);
    return 1;
}
