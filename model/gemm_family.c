/* gemm_family.c - which family of kernels cuBLAS runs for a GEMM, where
 * the names of the kernels it ran say so (tests/gpu/results/h200/
 * gemm_kernels.json, gemm_probe.json, gemm_probe_small.json), and the
 * tiles of that family. A kernel name's tile is cuBLAS's M x N, and cuBLAS
 * sees torch's row-major product with the operands swapped (its M is our
 * n, its N our m): the tiles below are written in our m x n. Pure. */
#include <math.h>
#include <stddef.h>

#include "gemm.h"
#include "gemm_internal.h"

/* FP64 tensor cores run the warp-level DMMA (mma.sync) kernels, never
 * wgmma (gemm.c, setup_rate): cuBLAS 13.1 on an H200 runs
 * sm90_xmma_gemm_f64f64 tilesize 32x32, 32x64, 64x64, 64x128 and 128x64,
 * and cutlass_80_tensorop_d884gemm 32x32 and 64x32, and no larger tile
 * for any fp64 shape seen (from 16x16x16 to 16016x15728x3488): a DMMA
 * tile holds its fp64 accumulators in registers, 8 bytes each, so its
 * tiles are a quarter of the 16-bit kernels' at the same register count.
 * Largest first, so that ties go to the larger tile. */
static const struct tile_shape dmma_tiles[] = {
    {128, 64, 0}, {64, 128, 0}, {64, 64, 0}, {64, 32, 0}, {32, 64, 0}, {32, 32, 0},
};

void simt_gemm_dmma_tiles(const struct tile_shape **tiles, size_t *count)
{
    *tiles = dmma_tiles;
    *count = sizeof dmma_tiles / sizeof dmma_tiles[0];
}

/* TF32 on Hopper: cuBLAS 13.1 runs its wgmma kernels (sm90_xmma_gemm_
 * f32f32_tf32f32) only for GEMMs with K of 128 or more and an output of
 * more than 2^18 elements or rows of 32768 or more; the rest run Ampere's
 * mma.sync kernels (cutlass_80_tensorop_s1688gemm), or for unaligned short
 * K the FMA SGEMM. Seen on an H200 (gemm_kernels.json, gemm_probe.json,
 * gemm_probe_small.json): K = 16, 48, 64, 96 at every output size from
 * 1000x300 to 8192x8192 ran mma.sync; K = 128 and 256 at 4096x8192 and
 * 8192x8192 ran wgmma; outputs of 2x8192, 8x6207, 16x256, 64x256, 64x4096,
 * 128x128, 256x256, 512x512 and 448x76 ran mma.sync, 4x57344, 128x3376,
 * 128x4096, 1024x1024 and wider ran wgmma. */
#define TF32_WGMMA_MIN_K 128
#define TF32_WGMMA_MIN_OUTPUT (1 << 18)
#define TF32_WGMMA_MIN_N 32768
/* K of 128 to 511 (4 to 15 stages of the wgmma kernels' 32-deep K step):
 * cuBLAS 13.1 keeps the mma.sync kernels up to outputs of some millions
 * of elements. Seen on an H200 (gemm_probe_classes.json, gemm_probe_tf32
 * .json, gemm_probe_small.json, gemm_kernels.json, fit data): 1024 to
 * 2048 squared and their 1024 x 1536, 1024 x 2048 and 1536 x 2048 mixes
 * at K = 128 and 256 ran cutlass_80_tensorop_s1688gemm (64x64, 128x64,
 * 128x128, 256x128) in 17 of 18 shapes (not 1536^2 x 256), as did 64 x
 * 8192 at K = 160, 192 and 320 (outputs of 2^19 to 2^22); 4096 x 8192
 * and 8192^2 at K = 128 and 256 (2^25 and more) ran wgmma, and every
 * shape of K = 512 and more ran wgmma. The limit is put at 2^24, between
 * the largest mma.sync output (2^22) and the smallest wgmma one (2^25). */
#define TF32_WGMMA_LONG_K 512
#define TF32_WGMMA_SHORT_K_MIN_OUTPUT (1 << 24)

int simt_gemm_tf32_mma_sync(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major != 9 || req->dtype != SIMT_DTYPE_TF32 ||
        req->sparse)
        return 0;
    int64_t output = req->m * req->n;
    if (req->k < TF32_WGMMA_MIN_K)
        return 1;
    if (req->n >= TF32_WGMMA_MIN_N)
        return 0;
    return output <= TF32_WGMMA_MIN_OUTPUT ||
           (req->k < TF32_WGMMA_LONG_K && output < TF32_WGMMA_SHORT_K_MIN_OUTPUT);
}

/* Left out, seen in the same fit data (for a later round):
 *  - K of 4 and 8 (12 at some) at outputs of 896x1024 to 1536^2 ran the
 *    wgmma kernels (64x128, 64x256, 128x128 tiles, one block an SM), 9.2
 *    to 11.5 us each back to back whatever K: at 1024^2 its 64x128 kernel
 *    takes 9.9 us at K = 4 and 8.8 us at K = 512. Priced as mma.sync here
 *    (-45%): a fixed cost of about 8 us that grows with the output, not
 *    explained by its loads, math or stores.
 *  - m = 1 runs cuBLAS's GEMV kernels, as fp32 does (gemm.c, try_gemv):
 *    gemv2N (one thread a row, 128 rows a block) at K = 100, cold 15.6 to
 *    16.6 us for n = 600 to 3000, 0.115 us a K step (about 3 loads in
 *    flight over DRAM's latency); gemvx elsewhere with blocks of 32 or 64
 *    rows and 2 threads a row (K = 191, 400 and 1000 at n = 1100: 23 to
 *    50 ns a step), or 4 to 8 rows and 32 threads a row (n = 600), or 16
 *    warps a block (n = 3000, K = 1000). Which of them runs is cuBLAS's
 *    choice in no order the fit rows show; a walk of K / 2 steps alone
 *    would move n = 600 from -18..-25% to +44..+100%. */

/* The tf32 mma.sync kernels' tiles and pipeline stages, by their names
 * (cutlass_80_tensorop_s1688gemm_MxN_KxS; our m x n is their N x M):
 * 64x64 with 6 stages; their 128x64 (our 64x128) with 6; their 256x64
 * (our 64x256) with 4; 128x128, their 256x128 (our 128x256) and their
 * 128x256 (our 256x128) with 3. */
static const struct tile_shape tf32_mma_sync_tiles[] = {
    {256, 128, 3}, {128, 256, 3}, {128, 128, 3}, {64, 256, 4}, {64, 128, 6}, {64, 64, 6},
};

void simt_gemm_tf32_mma_sync_tiles(const struct tile_shape **tiles, size_t *count)
{
    *tiles = tf32_mma_sync_tiles;
    *count = sizeof tf32_mma_sync_tiles / sizeof tf32_mma_sync_tiles[0];
}

/* The L2 feed of one SM running these kernels: no more than its share of
 * the L2's bandwidth with every SM busy, however few are (the model's
 * share, l2_bytes_per_s over the busy SMs, grows as they get fewer). Seen
 * on an H200 (fit data; kernels' warm times back to back, their slope in
 * K, so the fixed costs cancel): 64x64_32x6 with 32 blocks (64 x 2048, K
 * from 160 to 320, gemm_probe_tf32.json) takes 0.29 us a 16 KiB stage,
 * 56 GB/s an SM where the share of 32 SMs is 257 GB/s and the math 0.13 us;
 * 128x64_16x6 with two blocks an SM (2048 x 1024 and 1024 x 2048, K from
 * 128 to 256, gemm_probe_classes.json) moves 16 stages of 12 KiB an SM in
 * 3.1 us, 63 GB/s; and an H200's 8.2e12 B/s over its 132 SMs is 62 GB/s.
 * tf32's 4-byte operands make these kernels' stages twice the bytes of
 * the 16-bit ones' for the same math, so the feed binds them first. */
double simt_gemm_tf32_sm_intake(const struct simt_gpu_spec *gpu, double l2_bytes_per_s)
{
    if (!(l2_bytes_per_s > 0.0) || gpu->sm_count < 1)
        return 0.0;
    return l2_bytes_per_s / (double)gpu->sm_count;
}

/* Whether cuBLAS runs its split-K form of the mma.sync tf32 kernels, and
 * so its reduction kernel (splitKreduce) behind, even unsplit: the kernel
 * it chose says so, not the tile count alone. Seen on an H200
 * (gemm_probe_shortk.json, gemm_probe_tf32.json, gemm_probe_tiny.json,
 * gemm_probe_small.json, gemm_probe.json, fit data; tiles of 64x64, grid.z
 * the split):
 *  - K of one 16-deep stage or less (K <= 16): the split form splits K
 *    into pieces of 4 elements (16 bytes: z = 2 at K = 8, 4 at K = 16) up
 *    to about one block an SM (4096x16x16: 64 tiles, z = 2, 128 blocks).
 *    It ran for outputs of at most 16 tiles in 19 of 25 shapes (64^2,
 *    128^2, 256^2 at K = 4 to 16, 16x1024, 32x1024, 64x512, 1024x48 and
 *    1024x64 at K = 16, the tiny ones; not 48x1024x16, 64x1024 at K = 8
 *    and 16, 1024x16x16, 1024x32x16, 512x64x16),
 *    and for taller than wide outputs (m > n: cuBLAS's M, our n, the
 *    short side) of up to 32 tiles, or up to 64 tiles one tile column wide
 *    (n <= 64), where the split puts 2 to 4 blocks on the SMs a tile would
 *    leave idle (1024x96x16, 1024x128x16, 2048x16x16, z = 4; 4096x16x16,
 *    z = 2: its 64x64_16x10 kernel); wider ones of 32 tiles and more ran
 *    unsplit without it (16x2048, 96x1024, 128x1024, 128x2048, 16x4784),
 *    and so did 512^2 and 2048x128 (64 tiles) at K = 4 to 16;
 *  - K of 2 to 7 stages (16 < K < 128): splitting gains nothing, and the
 *    split form ran for outputs of 1 to 4 tiles (32^3, 64^2 and 128^2 at K
 *    = 32 and 64, 8x8x64, 16x16x112; not 100^3), and of up to 16 tiles
 *    whose rows fill half a 64-row tile or less (m <= 32: 32x1024x32; 8,
 *    16 and 32 rows against n = 100, 336 and 1000 at K = 48 and 100, 17
 *    of 18, not 32x1000x100: gemm_probe_classes_tf32t.json, K in pieces of
 *    4, 8 or 16, 4 to 13 ways), not for 16 tiles of more rows at K = 32
 *    and 64 in 6 of 7 shapes (64x1024, 1024x32, 1024x64, 256^2 x 64; it
 *    ran at 256^2 x 32);
 *  - K of 128 and more: a real split over K for outputs of 1 to 16 tiles
 *    (16x256x256, 448x76x452, 556x7x1103, 16x1024x2048, 256^2 x 2048 and
 *    the 8192-deep ones; not 128^3), and for 64x4096x4096 (64 tiles) but
 *    not 16x4784x16 (75), never for 80 tiles or more.
 * Counts of tiles, not shares of the SMs, so that more SMs never add a
 * kernel; aligned shapes only (an unaligned 1023x6x14 ran one sm80_xmma
 * kernel). */
#define TF32_ONE_STAGE_K 16
#define TF32_SPLIT_MIN_K 128
#define TF32_FEW_TILES 16
/* taller than wide at K <= 16: up to 32 tiles seen on the H200; an H100
 * (gemm_probe_windows3.json, fit data) ran the split form (z = 4) for
 * 1000x192, 1150x128 and 1500x128 at K = 16 (48, 36 and 48 tiles), not
 * for 1150x192 (54) nor 2000x128 (64): 48 (ESTIMATE: 49 to 53 not seen) */
#define TF32_TALL_TILES 48
#define TF32_ONE_COLUMN_N 64
#define TF32_ONE_COLUMN_TILES 64
#define TF32_SHORT_K_TILES 4
#define TF32_HALF_TILE_M 32
/* One tile column (n <= 64) of a taller output at K under 128
 * (gemm_probe_classes_tf32n16.json, fit data: m = 1000..4000 against n =
 * 8, 16 and 24 at K = 16, 32 and 48, 36 shapes, all as this says): 16
 * tiles or fewer ran s1688gemm_64x64_16x6 alone at every K (1000 x 8..24,
 * and 1024x16x16 and 1024x32x16 before), where n of 48 and 64 ran the
 * split form at K = 16 (1024x48x16, 1024x64x16); 27 to 63 tiles ran the
 * split form (64x64_16x10 and splitKreduce, z = 1 to 4) at K = 32 and 48
 * too while m n K was under 2^21 (4000x16x32, 2048000, and 1700 x 24 x
 * 48 ran it; 4096x16x32, 2^21 exactly, ran unsplit, gemm_probe.json, as
 * did 2500x24x48, 4000x16x48 and 4000x24x32). 4 tiles (240x16x16) ran
 * the split form: the 16-tile rule above from 9 tiles, an ESTIMATE
 * between. */
#define TF32_NARROW_COLUMN_N 32
#define TF32_COLUMN_ALONE_TILES 8
#define TF32_COLUMN_SPLIT_MAX_WORK 2097152.0 /* 2^21 */
/* An H100 SXM's grid of aligned tf32 (gemm_probe_windows.json, fit data,
 * 2026-12-07: m = 16 to 512 by n = 128 to 2048 at K = 8 to 64, 178
 * shapes, the same die and cuBLAS as the H200) moved three of the lines
 * above; over the 450 aligned tf32 fit rows of both cards that ran these
 * kernels, 43 went the other way before, 12 now:
 *  - half a tile of rows or fewer (m <= 32): the split form up to 31
 *    tiles (16 and 32 x 1216, 19 tiles, at every K of 8 to 64; not 16 x
 *    2048, 32 tiles), past one stage while m n K is at most 2^21 (not
 *    32x1216x64 nor 32x1000x100, 2.5 and 3.2 M);
 *  - wider than tall, more rows, one stage: 8 tiles or fewer (64x512,
 *    128x256 ran it; 128x512 at K = 8 and 16, 64x1024 and 48x1024, 16
 *    tiles, did not);
 *  - two to seven stages: wider than tall (or square) of 8 tiles or fewer
 *    while tiles x stages is under 32 (64x512 at K = 32 and 48, 128x176
 *    at 32 to 64 ran it); taller than wide past one tile column while
 *    tiles x stages is under 64 (288 x 128..256 and 512 x 128..256 at K =
 *    32 to 64 ran it up to 60; 72 and more did not). At the line itself
 *    the card went both ways: 128x256x64 (32) and 512x256x32 (64) ran
 *    it, 64x512x64 (32) and 512x128x64 (64) did not; the line leaves out
 *    the first two (the model 35% fast there) rather than take in the
 *    others (52% and 56% slow). */
#define TF32_HALF_TILE_MAX_TILES 31
#define TF32_HALF_TILE_MAX_WORK 2097152.0 /* 2^21 */
#define TF32_WIDE_TILES 8
#define TF32_WIDE_TILE_STAGES 32
#define TF32_TALL_TILE_STAGES 64

int simt_gemm_tf32_reduce_kernel(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (!simt_gemm_tf32_mma_sync(gpu, req))
        return 0;
    int64_t tiles = (req->m + 63) / 64 * ((req->n + 63) / 64) * req->batch;
    if (req->m > req->n && req->n <= TF32_ONE_COLUMN_N && req->k < TF32_SPLIT_MIN_K) {
        /* one tile column, taller than wide (below) */
        if (tiles > TF32_COLUMN_ALONE_TILES && tiles <= TF32_FEW_TILES && req->k <= TF32_ONE_STAGE_K)
            return req->n > TF32_NARROW_COLUMN_N;
        if (tiles > TF32_FEW_TILES)
            return tiles <= TF32_ONE_COLUMN_TILES &&
                   (req->k <= TF32_ONE_STAGE_K ||
                    (double)req->m * (double)req->n * (double)req->k < TF32_COLUMN_SPLIT_MAX_WORK);
    }
    int64_t tile_stages = tiles * ((req->k + TF32_ONE_STAGE_K - 1) / TF32_ONE_STAGE_K);
    double work = (double)req->m * (double)req->n * (double)req->k;
    if (req->k <= TF32_ONE_STAGE_K) {
        if (req->m <= TF32_HALF_TILE_M)
            return tiles <= TF32_HALF_TILE_MAX_TILES;
        if (req->m < req->n)
            return tiles <= TF32_WIDE_TILES;
        return tiles <= TF32_FEW_TILES ||
               (req->m > req->n && (tiles <= TF32_TALL_TILES ||
                                    (req->n <= TF32_ONE_COLUMN_N && tiles <= TF32_ONE_COLUMN_TILES)));
    }
    if (req->k < TF32_SPLIT_MIN_K) {
        if (req->m <= TF32_HALF_TILE_M)
            return tiles <= TF32_HALF_TILE_MAX_TILES && work <= TF32_HALF_TILE_MAX_WORK;
        if (tiles <= TF32_SHORT_K_TILES)
            return 1;
        if (req->m <= req->n)
            return tiles <= TF32_WIDE_TILES && tile_stages < TF32_WIDE_TILE_STAGES;
        return req->n > TF32_ONE_COLUMN_N && tile_stages < TF32_TALL_TILE_STAGES;
    }
    return tiles <= TF32_FEW_TILES;
}

/* The fallback kernels cuBLAS 13.1 runs for unaligned 16-bit shapes (K or
 * n not a multiple of 8 elements) on an H200, by the tiles in their names
 * (cutlass_80_tensorop_*_s16816gemm_*_MxN_..._align2, cutlass_75_
 * tensorop_*_s1688gemm_*_64x64_align1, cutlass_80 and cutlass_75
 * wmma_tensorop 32x32; our m x n is their N x M): 256x128 (our 128x256),
 * 128x128, 256x64 (our 64x256), 128x64 (our 64x128), 64x64 and the wmma
 * 32x32, in every probe file's fp16 and bf16 rows (gemm_probe*.json, fit
 * data). Every s16816 and s1688 tile is 64 or more on both sides: a 12-row
 * output runs a 64-row tile with 52 rows predicated off (12x6928x1372:
 * 256x64 split 5; 12x13856x1372: 128x64; 24x6928x1372: 128x64 split 2,
 * gemm_probe_skinny.json, gemm_probe_tf32.json), and where its rows are
 * few the tile's width buys nothing; the 32x32 tile is the wmma kernel's,
 * run for outputs of a few of them (2x2x2 to 100x100x100) and 12x6928x686.
 * Their 128x256 (our 256x128) is in the list too: the fit rows name no
 * kernel for large unaligned 16-bit shapes, and the tf32 family of the
 * same generation has both 256x128 and 128x256 (above). Stage counts are
 * left to the rule of the other tensor kernels (0): the names give them (3
 * to 6) but the choice here is the tile's shape only. */
static const struct tile_shape fallback16_tiles[] = {
    {256, 128, 0}, {128, 256, 0}, {128, 128, 0}, {64, 256, 0}, {64, 128, 0}, {64, 64, 0}, {32, 32, 0},
};

void simt_gemm_fallback16_tiles(const struct simt_gpu_spec *gpu, struct shape_context *ctx,
                                const struct tile_shape **tiles, size_t *count)
{
    ctx->fallback16_gpu = gpu;
    *tiles = fallback16_tiles;
    *count = sizeof fallback16_tiles / sizeof fallback16_tiles[0];
}

/* Their small tiles run kernels of 128 threads whose blocks share an SM
 * (their resources as torch.profiler read them on an H100 SXM, tests/gpu/
 * results/h100/gemm_probe_windows2.json, fit data): cutlass_75 s1688gemm
 * 64x64 align1, 96 registers and 16 KiB of shared memory; cutlass_80 wmma
 * 32x32 (64x1 and 32x1), 46 to 128 registers and 5 to 9.5 KiB, taken at
 * the most. Those blocks overlap their first loads and last stores: fp16
 * 4000 to 16000 rows by 2 to 6 columns at K 20 to 44 ran 125 blocks of
 * wmma 32x32 in 2.2 to 2.4 us a kernel and 407 to 500 (four an SM) in 3.0
 * to 3.8, where a wave each costs about 0.7 us more; s1688 64x64 at K =
 * 31, 128 to 512 blocks, 3.1 to 5.1 us, 0.6 to 0.7 us a further block an
 * SM with its loads. So a round of the blocks the SM holds (the occupancy
 * rules) pays one fill, not a wave each. Of that probe's 204 rows the
 * change moves, 167 go nearer (fp16 13000x3x28 +39% -> +17%), 37 further,
 * bf16's tall rows most (13000 and 16000 x 2 to 6 at K 20 to 36, -1..-10%
 * -> -14..-22%: its wmma 32x32_128x2 kernel, 37 KiB, paid each further
 * block about 0.7 us); of 51 other fit rows of both cards, 40 nearer. */
static const struct fallback16_kernel {
    int m, n, threads, registers, shared_bytes;
} fallback16_kernels[] = {{64, 64, 128, 96, 16384}, {32, 32, 128, 128, 9728}};

void simt_gemm_fallback16_fills(const struct shape_context *ctx, const struct candidate *c, double *fills)
{
    if (ctx->fallback16_gpu == NULL || c->tile == NULL || c->gemv || c->small_n || c->stream_k ||
        *fills <= 1.0)
        return;
    for (size_t i = 0; i < sizeof fallback16_kernels / sizeof fallback16_kernels[0]; i++) {
        const struct fallback16_kernel *k = &fallback16_kernels[i];
        if (c->tile->m != k->m || c->tile->n != k->n)
            continue;
        int resident =
            simt_gemm_blocks_resident(ctx->fallback16_gpu, k->threads, k->registers, k->shared_bytes);
        *fills = ceil(*fills / (double)resident);
        return;
    }
}

/* The mma.sync kernels cuBLAS runs for int8 on Hopper (torch._int_mm), by
 * the tile and stage count in their names (cutlass_80_tensorop_i16832gemm_s8
 * _MxN_128xS: tests/gpu/results/h200/gemm_probe.json and gemm_kernels.json):
 * their 128x256 and 128x64 (our 256x128 and 64x128: int8 32x28672x4096 ran
 * 128x64 on a grid of 8 x 28 = 224 blocks, 28672/128 x 32/64) with 3
 * stages, 128x128 with 5, 64x64 with 6. Their
 * multistage mainloop keeps S - 1 stages of cp.async loads in flight (CUTLASS
 * include/cutlass/gemm/threadblock/mma_multistage.h: the prologue issues
 * kStages - 1 stages and the mainloop issues one as it consumes one).
 * Largest first: the first INT8_LARGE_TILES are the 128-row and wider ones. */
static const struct tile_shape int8_mma_sync_tiles[] = {
    {256, 128, 3},
    {128, 128, 5},
    {64, 128, 3},
    {64, 64, 6},
};
#define INT8_LARGE_TILES 2

/* cuBLAS's choice among them is not the least-time one where K is long:
 * with K of 8192 or more and an output of 2^20 elements or more it runs
 * 128x128 (or 256x128), never a 64-row tile, even where that leaves half
 * the SMs idle. Seen on an H200 (gemm_probe.json, gemm_probe_choice.json):
 * 128x128 for 128x8192 at K = 8192, 16384 and 28672 (64 blocks), 256x4096,
 * 512x2048 and 1024x1024 at K = 8192 (64 blocks), 96x16384, 64x16384,
 * 128x12288, 192x8192 at K = 8192 and 256x8192x28672; a 64-row tile for
 * 128x8192 at K = 1024, 2048 and 4096, 128x16384x2048, 64x16384x2048,
 * 64x32768x4096 and 1024^3 (K short), and for 32x16384x8192,
 * 64x8192x28672 and 128x4096x28672 (outputs of 2^19). */
/* Elsewhere, for m of 128 or less, it runs a 64-row tile every time:
 * their 128x64_128x3 (our 64x128) for 128x8192 at K = 1024 to 6144,
 * 128x16384x2048, 64x16384x2048, 128x24576x4096, 128x28672x4096,
 * 96x28672x4096, 64x32768x4096, 64x57344x4096 and 32x28672x4096, their
 * 64x64_128x6 for 48x8192x6144, 32x16384x8192, 128x4096x8192 and the
 * outputs of 2^19 with K = 28672 (gemm_probe*.json: names and grids, grid
 * x * y the number of 64-row tiles), never a 128-row one. */
#define INT8_SMALL_TILE_MAX_M 128
/* Of the two, 128x64_128x3 for K of 4096 and less (every such shape
 * above), 64x64_128x6 for K of 8192 and more (every such shape above);
 * K = 6144 ran either (128x8192: 128x64; 48x8192: 64x64), the least time
 * then. */
#define INT8_WIDE_64_ROW_MAX_K 4096
#define INT8_LARGE_TILE_MIN_K 8192
#define INT8_LARGE_TILE_MIN_OUTPUT (1 << 20)
/* Of the two large ones, their 128x256_128x3 (our 256x128, m padded to
 * 256 where it is less) alone once the output has 6 x 2^20 elements or
 * more, their 128x128_128x5 below: all 52 int8 shapes with K >= 8192 and
 * outputs of 2^20 or more in the probe files (gemm_probe_int8m.json,
 * m = 64 to 256 against n = 8192 to 65536; gemm_probe_skinny.json,
 * 57344x128 and 256x57344; gemm_probe*.json) split there: 128x256 from
 * 96x65536, 128x49152 and 192x32768 (6,291,456) on, 128x128 up to
 * 160x32768 (5,242,880). The threshold between is an ESTIMATE (the least
 * output seen running 128x256); at m = 96 and 128 the padded tile does
 * the work of m = 256 (128x65536x8192: 285 us, 256x65536x8192: 303 us). */
#define INT8_WIDEST_TILE_MIN_OUTPUT (6 << 20)

int simt_gemm_int8_large_tile(const struct simt_gemm_request *req)
{
    return req->k >= INT8_LARGE_TILE_MIN_K && req->m * req->n >= INT8_LARGE_TILE_MIN_OUTPUT;
}

void simt_gemm_int8_mma_sync_tiles(const struct simt_gemm_request *req, const struct tile_shape **tiles,
                                   size_t *count)
{
    *tiles = int8_mma_sync_tiles;
    *count = sizeof int8_mma_sync_tiles / sizeof int8_mma_sync_tiles[0];
    if (simt_gemm_int8_large_tile(req))
        *count = req->m * req->n >= INT8_WIDEST_TILE_MIN_OUTPUT ? 1 : INT8_LARGE_TILES;
}

int simt_gemm_int8_runs_tile(const struct simt_gemm_request *req, const struct tile_shape *tile)
{
    if (simt_gemm_int8_large_tile(req))
        return tile->m >= (req->m * req->n >= INT8_WIDEST_TILE_MIN_OUTPUT ? 256 : 128);
    if (req->m > INT8_SMALL_TILE_MAX_M)
        return 1;
    if (tile->m >= 128)
        return 0;
    if (req->k <= INT8_WIDE_64_ROW_MAX_K)
        return tile->n > 64;
    return req->k < INT8_LARGE_TILE_MIN_K || tile->n <= 64;
}

/* Where the 64x128 tile's blocks would leave more than half the SMs idle
 * (K of 4096 or less, m of 128 or less), cuBLAS runs 64x64_128x6 too: twice
 * the blocks. Seen on an H200: 32x4096x4096 ran 64x64_128x6 on a grid of
 * 8 x 8 (gemm_probe_skinny.json), where 64x128 gives 32 blocks on 132
 * SMs; 128 blocks of 64x128 (128x8192 at K = 1024 to 4096, 64x16384x2048,
 * gemm_probe_choice.json) ran 64x128. Of the two, the least time. */
int simt_gemm_int8_runs_tile_on(const struct simt_gemm_request *req, const struct tile_shape *tile,
                                int sm_count)
{
    if (simt_gemm_int8_runs_tile(req, tile))
        return 1;
    if (simt_gemm_int8_large_tile(req) || req->m > INT8_SMALL_TILE_MAX_M || req->k > INT8_WIDE_64_ROW_MAX_K ||
        tile->m >= 128 || tile->n > 64 || sm_count < 1)
        return 0;
    int64_t wide_blocks = (req->m + 63) / 64 * ((req->n + 127) / 128) * req->batch;
    return 2 * wide_blocks < (int64_t)sm_count;
}

/* Tiles of the FMA (SIMT) SGEMM/DGEMM kernels, K depth 32 bytes; 32x64 and
 * 8x64 are cuBLAS's skinny-M kernels (fp32 m = 16 and m <= 8 on an H200,
 * gemm_kernels.json), and so are 32x128 (m = 16 and 32 with n = 16384,
 * gemm_probe.json) and 64x256 (m = 64, both files). */
static const struct tile_shape simt_tiles[] = {
    {128, 128, 0}, {64, 256, 0}, {128, 64, 0}, {64, 128, 0},
    {64, 64, 0},   {32, 128, 0}, {32, 64, 0},  {8, 64, 0},
};

void simt_gemm_fma_tiles(const struct tile_shape **tiles, size_t *count)
{
    *tiles = simt_tiles;
    *count = sizeof simt_tiles / sizeof simt_tiles[0];
}

/* The skinny-M 8x64 tile, last in the list, is cuBLAS's sgemm_largek
 * kernel, seen only with a wide B (fp32 m <= 8 at n of 4096 to 10099,
 * gemm_kernels.json, gemm_probe_small.json); outputs of a few columns ran
 * CUTLASS's SIMT SGEMM 64x64 split over K instead (8x8, 7x5 and 6x7 at K =
 * 256 to 65536, gemm_probe_splitk.json, gemm_probe_tiny.json): for n
 * narrower than the split SGEMM's (FMA_SPLIT_MIN_N) it is left out. */
#define SKINNY_TILE_MIN_N 512
/* ... nor for more than 16 rows: 24 and 32 rows against n = 500 to 1500
 * ran sm80_xmma 32x32x8 or CUTLASS's simt 64x64 split
 * (gemm_probe_classes_fp32m16.json, fit data), never it. */
#define SKINNY_TILE_MAX_M 16

size_t simt_gemm_fma_tile_count(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                size_t count)
{
    if (gpu->vendor == SIMT_VENDOR_NVIDIA && req->dtype == SIMT_DTYPE_FP32 &&
        (req->n < SKINNY_TILE_MIN_N || req->m > SKINNY_TILE_MAX_M) &&
        count == sizeof simt_tiles / sizeof simt_tiles[0])
        return count - 1;
    return count;
}

/* FP32 outputs of few tiles with long K: cuBLAS 13.1 runs its CUTLASS SIMT
 * SGEMM (cutlass_80_simt_sgemm_128x32_8x5, 64x64_8x5, 128x64_8x5) with K
 * split over gridDim.z into pieces of about 128 (16 of its 8-deep K
 * stages), many more splits than would fill the SMs once, and its
 * reduction kernel (splitKreduce_kernel) behind. Seen on an H200 for
 * n of 512 to 2048 and outputs of at most 2^16 elements (gemm_probe.json,
 * gemm_probe_small.json, gemm_probe_choice.json): K / 128 splits for
 * 16x1024 at K = 2048 and 4096, 32x512 and 32x1024 at 8192, 16x512 at
 * 16384, 48x1024 and 32x2048 at 4096, 48x1264x288 (3); fewer for 16x1024
 * and 16x2048 at 8192 (37), 16x1312x9200 (42), 64x1024x8192 (32) and
 * 8x1024x8192 (16). The rule takes K / 128, rounded up, at most one split
 * per SM. Elsewhere the least-time split stands: wider n runs other
 * kernels (m <= 8: sgemm_largek, split 7 or 8; 16x4096x2048: gemmSN), and
 * narrower outputs were seen split otherwise (16x16x6864: 132 ways). */
#define FMA_SPLIT_MIN_N 512
#define FMA_SPLIT_MAX_N 2048
#define FMA_SPLIT_MAX_OUTPUT (1 << 16)
#define FMA_SPLIT_K_PIECE 128

int simt_gemm_fma_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major < 8 || req->dtype != SIMT_DTYPE_FP32 ||
        req->n < FMA_SPLIT_MIN_N || req->n > FMA_SPLIT_MAX_N || req->m * req->n > FMA_SPLIT_MAX_OUTPUT ||
        req->k < 2 * FMA_SPLIT_K_PIECE)
        return 0;
    int64_t split = (req->k + FMA_SPLIT_K_PIECE - 1) / FMA_SPLIT_K_PIECE;
    if (split > gpu->sm_count)
        split = gpu->sm_count;
    return (int)split;
}

/* Thread-block tiles of the tensor-core kernels (CUTLASS/cuBLAS): Hopper's
 * wgmma kernels and Ampere's mma.sync kernels share these output shapes; the
 * K depth is one 128-byte (Hopper on) or 64-byte (before) row of A per
 * stage. The 32-wide ones are what cuBLAS gives small shapes (fp64 256^3
 * and 512^3 on an H200: 32x32 and 32x64, gemm_kernels.json). Largest
 * first, so that ties go to the larger tile. */
static const struct tile_shape tensor_tiles[] = {
    {256, 128, 0}, {128, 256, 0}, {128, 192, 0}, {256, 64, 0}, {64, 256, 0}, {128, 128, 0},
    {128, 64, 0},  {64, 128, 0},  {64, 64, 0},   {64, 32, 0},  {32, 64, 0},  {32, 32, 0},
};

void simt_gemm_tensor_tiles(const struct tile_shape **tiles, size_t *count)
{
    *tiles = tensor_tiles;
    *count = sizeof tensor_tiles / sizeof tensor_tiles[0];
}
