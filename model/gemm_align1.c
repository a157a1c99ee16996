/* gemm_align1.c - the kernels cuBLAS runs for bf16 GEMMs whose rows are
 * odd (n or K not a multiple of 2 elements: align1, 2 bytes a load) and
 * how they differ from fp16's on the same shape: their tiles and the
 * reduction kernel behind them. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11, tests/gpu/results/
 * h200/gemm_probe_classes.json group bf16u, 51 bf16 and 26 fp16 align1
 * shapes, m = 17 to 651 against n = 85 to 1904 at K = 8 to 200, and
 * gemm_probe_tiny.json, gemm_probe_splitk.json, fit data; kernel names and
 * grids):
 *  - fp16 runs cutlass_75_wmma_tensorop_f16_s161616gemm_f16_32x32 (32x32
 *    tiles, 128 threads) unsplit with no second kernel: 2.0 to 2.9 us a
 *    kernel, 4.5 to 5.8 us a cold call up to K = 101;
 *  - bf16 never runs a 32x32 wmma kernel at align1 (its wmma kernels,
 *    cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32, appear only at
 *    align2: 100x100x100, 64x64x4, 512x512x4): every align1 bf16 shape
 *    with m of 17 or more ran cutlass_75_tensorop_*_s1688gemm_bf16 64x64
 *    or its 128x64 (our 64x128), 128 threads, 96 or 168 registers;
 *  - of those, two forms: the "bf16_s1688gemm_bf16" kernel writes C
 *    itself; the "s1688gemm_bf16" one writes fp32 partials (grid.z the
 *    split, 1 included) and cuBLAS's splitKreduce_kernel follows. For few
 *    output tiles cuBLAS takes the second form at every K seen but 1: 1
 *    to 12 tiles of 64x64 (17x85, 17x201, 17x515, 56x85, 56x201, 160x85 at K =
 *    8, 49, 101 and 200; 160x201 at 8, 49, 200; 30x30x999, 33x20x511,
 *    24x40x3; exceptions 56x515x101 and 160x201x101, 9 and 12 tiles,
 *    unsplit). At one 32-deep K stage (K = 8) it took it up to 27 tiles
 *    (160x515, 651x85), not at 99 (651x515x8); at K = 200 (7 stages,
 *    split 3 ways) up to 44 (651x85, 651x201, 160x515), not at 99
 *    (651x515). At 2 to 4 stages (K = 49 and 101) 22 tiles and more ran
 *    the first form (651x85, 651x201, 160x515, 56x1904, 160x1904; one
 *    exception, 17x1904x49 at 30 tiles). The limit of 64 tiles at one
 *    stage and past 4 is an ESTIMATE (the middle of 27 or 44 and 99); K
 *    of 129 to 199 was not seen (taken with 200: a split pays there).
 *    Whatever the split, the call then pays the second kernel: 17x85x8
 *    takes 7.4 us where fp16's one kernel takes 4.6 (the reduction kernel
 *    1.2 us and its launch gap), as gemm_reduce.c prices it. Its pieces
 *    of K go down to 8, one mma.sync K step, up to K = 101 (17x85, 56x85
 *    at 49 and 101: 7 and 13 ways; 160x85 alike; 4 ways at 4 to 12 tiles,
 *    pieces of 13 to 26) and for outputs of one or two tiles at K = 200
 *    (25 ways); at K = 200 from four tiles on, 3 or 4 ways (pieces of 50
 *    to 67): the least-time split with pieces of 8 up to K = 128 (ESTIMATE
 *    between 101 and 200: four stages) and for one or two tiles, of the
 *    tile's K depth past it;
 *  - a block of these kernels alone on its SM pays a memory latency per K
 *    stage past the first (gemm_tiny.c: their K loop of 2-byte loads
 *    staged through registers); the kernel times follow the stages of 32:
 *    2.5 to 2.8 us at one (K or pieces of 8 to 26), 3.3 to 3.5 at two
 *    (49, 50), 4.5 to 5.3 at three or four (67, 101).
 * Outputs of 16 rows or fewer at short K run gemmSN_NN_kernel in both
 * types (13x11x7, 6x82x501, 6x7x511: gemm_tiny.c), which the 32x32 tile
 * stands for: left as they were. */
#include "gemm.h"
#include "gemm_internal.h"

/* the least m (our rows) seen running the s1688 kernels at short K */
#define BF16_ALIGN1_MIN_M 17
/* the tiles of the fallback list the s1688 kernels have: 64 a side or more */
#define BF16_ALIGN1_MIN_TILE_SIDE 64
/* K = 1 runs the unsplit form (16x16x1, 64x64x1, 256x256x1; 24x40x3 the
 * split one): nothing to split */
#define SPLIT_FORM_MIN_K 2
/* the split form at every K: outputs of up to this many 64x64 tiles */
#define SPLIT_FORM_FEW_TILES 12
/* and at one K stage (K of 32 or less) or past four (K over 128): up to this many */
#define SPLIT_FORM_MAX_TILES 64
#define SPLIT_FORM_ONE_STAGE_K 32
#define SPLIT_FORM_DEEP_K 128
/* and one column of tiles (n of 64 or less) at K of 36 or less: up to this
 * many. An H100 SXM (gemm_probe_windows2.json group tallfew, fit data)
 * ran the split form, 2 to 5 ways and the reduction kernel, for bf16 of
 * 4000 to 16000 rows by 3 columns at K = 20 to 44: 63 to 250 tiles, all
 * but 16000 x 3 x 44 (250 tiles, unsplit); the line is drawn at K = 36
 * (the deepest 250 tiles ran it at) and 250 tiles (the most seen): those
 * rows at K 20 to 36 from -26..-48% to -2..-27% */
#define SPLIT_FORM_ONE_COLUMN_N 64
#define SPLIT_FORM_COLUMN_MAX_K 36
#define SPLIT_FORM_COLUMN_TILES 250
/* their stages' K depth: 16384 bytes of shared memory for 64x64 (24576
 * for 128x64) is two stages of 64 + 64 (128 + 64) rows by 32 bf16 */
#define STAGE_K 32
/* the split form's pieces of K: down to one mma.sync K step (8) where K is
 * at most four stages or the output one or two tiles, else the tile's
 * stage (below) */
#define FINE_PIECE_K 8
#define FINE_SPLIT_MAX_K 128
#define FINE_SPLIT_MAX_TILES 2

int simt_gemm_bf16_align1_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && !req->sparse &&
           req->dtype == SIMT_DTYPE_BF16 && (req->k % 2 != 0 || req->n % 2 != 0) &&
           req->m >= BF16_ALIGN1_MIN_M;
}

int simt_gemm_bf16_align1_split_form(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (!simt_gemm_bf16_align1_runs(gpu, req))
        return 0;
    if (req->k < SPLIT_FORM_MIN_K)
        return 0;
    int64_t tiles = (req->m + 63) / 64 * ((req->n + 63) / 64) * req->batch;
    if (tiles <= SPLIT_FORM_FEW_TILES ||
        (req->n <= SPLIT_FORM_ONE_COLUMN_N && req->k <= SPLIT_FORM_COLUMN_MAX_K &&
         tiles <= SPLIT_FORM_COLUMN_TILES))
        return 1;
    return (req->k <= SPLIT_FORM_ONE_STAGE_K || req->k > SPLIT_FORM_DEEP_K) && tiles <= SPLIT_FORM_MAX_TILES;
}

void simt_gemm_bf16_align1_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                 double latency_s, struct shape_context *ctx, struct kernel_rate *rate,
                                 const struct tile_shape **tiles, size_t *count)
{
    if (!simt_gemm_bf16_align1_runs(gpu, req))
        return;
    /* the list is largest first: keep the tiles up to the first narrower one */
    size_t kept = 0;
    while (kept < *count && (*tiles)[kept].m >= BF16_ALIGN1_MIN_TILE_SIDE &&
           (*tiles)[kept].n >= BF16_ALIGN1_MIN_TILE_SIDE)
        kept++;
    if (kept > 0)
        *count = kept;
    ctx->bf16_align1 = 1;
    /* each stage past the first waits a latency (gemm_tiny.c) */
    rate->stage_latency_s = latency_s;
    rate->stage_latency_k = STAGE_K;
    rate->stage_latency_blocks = gpu->sm_count;
    if (!simt_gemm_bf16_align1_split_form(gpu, req))
        return;
    ctx->reduce_kernel_always = 1;
    int64_t output_tiles = (req->m + 63) / 64 * ((req->n + 63) / 64) * req->batch;
    if (req->k <= FINE_SPLIT_MAX_K || output_tiles <= FINE_SPLIT_MAX_TILES)
        ctx->split_piece_k = FINE_PIECE_K;
}

const char *simt_gemm_bf16_align1_phrase(const struct shape_context *ctx)
{
    if (!ctx->bf16_align1)
        return "";
    if (ctx->reduce_kernel_always)
        return "bf16 at align1: cuBLAS's s1688 kernels (64 or more a side, no wmma 32x32), a K stage of 32 "
               "past the first waiting one memory latency less its math while an SM holds one block; for "
               "outputs of a few tiles the form that writes fp32 partials, with its reduction kernel behind "
               "even unsplit, K in pieces of 8 or more";
    return "bf16 at align1: cuBLAS's s1688 kernels (64 or more a side, no wmma 32x32), a K stage of 32 past "
           "the first waiting one memory latency less its math while an SM holds one block";
}
