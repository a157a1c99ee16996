/* gemm_splitk.c - how far cuBLAS splits K for outputs of a few tiles
 * against a long K: the splits beyond the 16 every GEMM may take, which the
 * library uses only while one wave of the SMs holds the split kernel's
 * blocks. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11, tests/gpu/results/
 * h200/gemm_probe_splitk.json, fit data: kernel names and grids, the split
 * being the CUTLASS kernels' grid.z): outputs of one tile split 128 ways
 * from K = 4096 (fp32's simt_sgemm_64x64) or 32768 (tf32's s1688gemm) on,
 * two tiles 64 ways (fp32 and tf32 at 100x100, 16x256, 250x250 and K =
 * 8192), four tiles 32 ways (tf32 128x128, 100x100, 256x256, 64x512; the
 * 16-bit s16816gemm at 100x100), eight tiles 16 ways (tf32 16x1024, fp32
 * 512x512): the tiles times the split make 128 blocks, one wave of the 132
 * SMs, and the pieces of K stay 32 or more deep (fp32 at one tile: 8, 16
 * and 32 ways at K = 256, 512 and 1024). More blocks than a wave were seen
 * for the unaligned 16-bit kernels of one tile (256 to 376 ways at K of 2000
 * to 8000, pieces of 8 to 32) and fp32's SIMT kernels where two or more of
 * their blocks share an SM (64x512: 4 tiles 64 ways): the least time is
 * kept below 16 ways as before, so those stay under-split in the model. */
#include "gemm.h"
#include "gemm_internal.h"

/* The split factors every GEMM tries (gemm.c) go up to this; past it a
 * split must fit one wave. */
#define SPLIT_ANY_WAVES 16

int simt_gemm_split_fits(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tile, int split)
{
    if (split <= SPLIT_ANY_WAVES)
        return 1;
    if (!(rate->staged_per_s_per_sm > 0.0))
        return 0;
    const struct simt_gemm_request *req = ctx->req;
    int64_t tiles = (req->m + tile->m - 1) / tile->m * ((req->n + tile->n - 1) / tile->n) * req->batch;
    return tiles * (int64_t)split <= (int64_t)ctx->sm_count;
}
