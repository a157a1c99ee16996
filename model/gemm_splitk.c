/* gemm_splitk.c - how far cuBLAS splits K for outputs of a few tiles
 * against a long K: the splits beyond the 16 every GEMM may take (gemm.c's
 * least-time search), which the library uses only while one wave of the
 * SMs holds the split kernel's blocks. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11, tests/gpu/results/
 * h200/gemm_probe_splitk.json, fit data: kernel names and grids, the split
 * being the CUTLASS kernels' grid.z): outputs of one tile split 128 ways
 * from K = 4096 (fp32's simt_sgemm_64x64) or 32768 (tf32's s1688gemm) on,
 * two tiles 64 ways (fp32 and tf32 at 100x100, 16x256, 250x250 and K =
 * 8192), four tiles 32 ways (tf32 128x128, 100x100, 256x256, 64x512), eight
 * tiles 16 ways (tf32 16x1024, fp32 512x512): the tiles times the split
 * make 128 blocks, one wave of the 132 SMs. fp32's pieces of K go down to
 * 32 (8, 16 and 32 ways at K = 256, 512 and 1024), tf32's stay about 256
 * deep (one tile: 32 ways at K = 8192, 128 from 32768; 52 ways at 32x32 and
 * 64x64 x 8192).
 *
 * Where it applies: the FMA (SIMT) kernels, and tf32's mma.sync kernels
 * with pieces of 256 or more. Not the 16-bit kernels: aligned, cuBLAS runs
 * nvjet's _splitK kernels (K over grid.y, about 1365 of K a block, priced
 * as stream-K in gemm.c); unaligned, its one-tile kernels split 128 to 376
 * ways in pieces of 8 to 32 (6x7 at K = 1001 to 8191), far past a wave, a
 * rule not derived here. Not FP64 either (d884gemm 60 and 128 ways, its
 * 8-byte partials summed slower: gemm_fp64.c). */
#include "gemm.h"
#include "gemm_internal.h"

/* The split factors every GEMM tries (gemm.c) go up to this; past it a
 * split must fit one wave. */
#define SPLIT_ANY_WAVES 16
/* tf32's pieces of K past 16 ways: at least this deep (above). */
#define TF32_SPLIT_MIN_PIECE 256

int simt_gemm_split_fits(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tile, int split)
{
    if (split <= SPLIT_ANY_WAVES)
        return 1;
    const struct simt_gemm_request *req = ctx->req;
    if (!(rate->staged_per_s_per_sm > 0.0) &&
        (req->dtype != SIMT_DTYPE_TF32 || req->k < (int64_t)split * TF32_SPLIT_MIN_PIECE))
        return 0;
    int64_t tiles = (req->m + tile->m - 1) / tile->m * ((req->n + tile->n - 1) / tile->n) * req->batch;
    return tiles * (int64_t)split <= (int64_t)ctx->sm_count;
}
