/* gemm_shortk.c - FP32 GEMMs whose K fits in one K stage of the FMA (SIMT)
 * kernels (K of 8 or less, the kernels' 8-deep stage; and up to three
 * stages, SHORTK_MAX_STAGES below), on NVIDIA GPUs of
 * compute capability 8.0 on: which tiles cuBLAS runs for them, how many of
 * their blocks an SM holds at once (the occupancy model, from the threads,
 * registers and shared memory the profiler gave for each kernel), what a
 * block's load/store path moves and how many fills the kernel pays. Pure.
 *
 * A block of such a kernel loads one stage of A and B and stores its C
 * tile: its time is C's elements passing through the SM's load/store path
 * (SIMT_STAGED_PER_CLOCK_PER_SM, gemm_constants.h), not its math. Two
 * things differ from the waves gemm.c prices:
 *  - the operands moved are the K that exists, not the stage's 8-deep K:
 *    the loads past K are predicated off and move nothing (as gemm_tiny.c
 *    counts the 16-bit fallback kernels' loads); and a block's one stage of
 *    operands goes through while the SM's other blocks store their C, so
 *    the larger of the two binds, not their sum (the times below are flat
 *    in K from 1 to 8, where the sum would grow by a fifth at 64x64);
 *  - with two or more blocks resident on an SM, a block that ends frees its
 *    slot to the next at once and the SM's other blocks work through the
 *    new one's first loads and the old one's last stores: the kernel pays
 *    one fill (its first loads, its last stores), not one a wave. The SM's
 *    work is still its blocks' work summed, ceil(tiles / SMs) of them on
 *    the busiest SM, since they share its load/store path.
 *
 * Seen on an H200 (cuBLAS 13.1; tests/gpu/results/h200/gemm_probe_small.json
 * and gemm_probe_tiny.json, fit data, the profiler's kernels and grids):
 * K = 1 runs cutlass_80_simt_sgemm_128x32_8x5 (our 32x128: 128 threads, 80
 * registers, 25600 bytes of shared memory) at every output from 16x16 to
 * 4096x4096; K of 2 to 8 runs sm80_xmma_gemm_f32f32 tilesize64x64x8 (128
 * threads, 121 registers, 12672 bytes) or tilesize128x32x8 (our 128x32:
 * 128, 118, 15744) at 2048^2, 4096^2 and 1024x8192, tilesize32x32x8 (64,
 * 80, 6528) at 22x16282x2, 819x290x4 and, in gemm_probe_shortk.json,
 * 512^2, 128x2048, 2048x128 and 256x4096 at K = 4 or 8; and once, 4096^2 x 2,
 * cutlass_80_simt_sgemm_256x128_8x4 (our 128x256: 256 threads, 202
 * registers, 49152 bytes; one block an SM). Their kernel times follow C:
 * 4096^2 takes 26.5 to 28.8 us at every K from 1 to 8, 2048^2 8.2 to 8.5
 * us, 1024x8192 14.2 to 15.1 us, about 2.1 us plus the outputs at 2.5 a
 * clock per SM, with no fill a wave visible (0.69 us a wave at the H200's
 * DRAM latency: 5 us over 4096^2's eight waves of 128x128). */
#include <stdio.h>

#include <math.h>

#include "gemm.h"
#include "gemm_constants.h"
#include "gemm_internal.h"
#include "occupancy.h"

/* The tiles of the FMA kernels cuBLAS runs for short K, in our m x n;
 * largest first, so that ties go to the larger tile. The 8x64 tile is the
 * small-M kernel (sgemm_largek, m of 8 or less): its rate was fitted with
 * one block an SM (gemm_constants.h), so it keeps gemm.c's waves (no
 * resources given below). */
static const struct tile_shape shortk_tiles[] = {
    {128, 256, 0}, {64, 64, 0}, {128, 32, 0}, {32, 128, 0}, {32, 32, 0}, {8, 64, 0},
};
#define SHORTK_KERNEL_COUNT (sizeof shortk_tiles / sizeof shortk_tiles[0])

/* The resources the profiler gave for each tile's block, in that order. */
struct shortk_kernel {
    int block_threads;
    int registers_per_thread;
    int shared_bytes;
};
static const struct shortk_kernel shortk_kernels[SHORTK_KERNEL_COUNT] = {
    {256, 202, 49152}, {128, 121, 12672}, {128, 118, 15744}, {128, 80, 25600}, {64, 80, 6528}, {0, 0, 0},
};

static const struct shortk_kernel *kernel_of(const struct tile_shape *tile)
{
    for (size_t i = 0; i < SHORTK_KERNEL_COUNT; i++)
        if (tile == &shortk_tiles[i])
            return &shortk_kernels[i];
    return NULL;
}

/* Small outputs at short K: cuBLAS 13.1 on an H200 runs its split-K
 * kernels, whatever the split it takes (1, 2 or 4 over gridDim.z), with its
 * reduction kernel (splitKreduce_kernel) behind them
 * (tests/gpu/results/h200/gemm_probe_shortk.json, gemm_probe_tiny.json and
 * gemm_probe_small.json, fit data):
 *  - fp32, K of 2 to 32, outputs of at most 2^16 elements and K times
 *    the outputs at most 2^20 (2^16 outputs at K = 16, 2^15 at K = 32), m
 *    over 16: cutlass_80_simt_sgemm_64x64_8x5 or 128x64_8x5 and the
 *    reduction kernel in every such shape seen (64^2, 128^2 and 256^2 at K
 *    = 4 to 16, 64^2 and 128^2 at 32, 2048x16, 1024x32 and 32x1024 at 16
 *    and 32, 4096x16, 64x1024 and 1024x64 at 8 or 16, 24x40x3, 32x32x32,
 *    1088x16x16); past that line it ran either way (256^2 x 32 and 128^2 x
 *    64 with it; 4096x16, 64x1024, 1024x64 at 32, 64^3, 819x290x4 and
 *    22x16282x2 without), at K = 1 the 128x32 kernel alone, and m of 16 or
 *    less the small-N gemmSN kernel; and outputs both of whose sides are
 *    over 64, up to 192000 elements at any K of 3 to 24
 *    (gemm_probe_classes_tinykf.json: 300x200 and 500x200 the simt 128x64
 *    and its reduction, 300x500 and 800x200 sm80_xmma 64x64 split 5 or 6
 *    ways and its second pass; gemm_probe_classes_shortkm.json: 36 of 36
 *    shapes of one side 80 to 160 against 300 to 1200 at K = 8 to 24;
 *    500^2, 300x1000, 1500x200 and larger, and 819x290x4 before, ran
 *    unsplit: the line, between 192000 and 237510 elements, taken at
 *    200000, an ESTIMATE; sides of 64 and less at K = 32 ran unsplit);
 *  - tf32 with rows that are not 16-byte multiples, K of 32 or less and
 *    outputs of more than 16 tiles of 64x64 up to 2^18 elements:
 *    cutlass_80_tensorop_s1688gemm_64x64_32x6 align1 split two ways and the
 *    reduction kernel (512x510 and 1000x250 at K = 12 to 24); the outputs
 *    of 16 tiles or fewer ran sm80_xmma's tf32 32x32x64 alone (128x126,
 *    256x254, 1023x6x14), those of 2^20 and more no reduction kernel
 *    (13763x81x2, 2048^2 x 2). (Aligned tf32: gemm_family.c.) */
/* K of up to three of the kernels' 8-deep stages (gemm_probe_classes_
 * tinykf.json and _fp32k.json, fit data: K = 9 to 24 at outputs of 300 x
 * 200 to 3000^2): cuBLAS ran the same kernels as at K <= 8 (sm80_xmma
 * 32x32x8, 32x64x8 (64 threads, 102 registers, 9600 bytes), 64x64x8,
 * 128x32x8 and simt_sgemm_128x32_8x5), several blocks an SM; each block's
 * stages go through its load/store path before its stores, so a block
 * costs its operands of the stages' whole depth plus its C (times flat
 * from K = 9 to 16, one step to 17..24: 7.41 us of kernel at 784x2896 x
 * 12 and x 16, 8.76 at x 20). Over the 158 fp32 fit probes of K = 9 to
 * 24: median 8.7% -> 7.9%, worst 39.5% -> 25.4%; those of simt_sgemm_
 * 128x32 +25..+37% -> +9..+18%. */
#define SHORTK_MAX_STAGES 3
#define SHORTK_STAGE_K 8
#define SHORTK_REDUCE_MAX_K 32
#define SHORTK_REDUCE_MAX_OUTPUT (1 << 16)
#define SHORTK_REDUCE_MAX_K_OUTPUTS (1 << 20)
#define SHORTK_REDUCE_MIN_M 17
#define SHORTK_SQUARE_MIN_SIDE 65
#define SHORTK_SQUARE_MAX_OUTPUT 200000
#define TF32_UNALIGNED_REDUCE_MAX_K 32
#define TF32_UNALIGNED_REDUCE_MIN_TILES 17
#define TF32_UNALIGNED_REDUCE_MAX_OUTPUT (1 << 18)
/* ... and not where the output is 128 tiles of 32x32 or fewer: there
 * sm80_xmma's tf32 32x32x64 ran alone (500x200, 1000x100, 1700x50 at K =
 * 2; 500x400 and 1000x200, 208 and 224 of them, the split form;
 * gemm_probe_classes_tf32k1.json, fit data) while m was at most 1700
 * (2500 x 3..7 at K = 3 and 5, 79 of them, ran the split form's 128x256
 * tile, gemm_probe_classes_tf32u.json): the line at 2100, an ESTIMATE */
#define TF32_UNALIGNED_XMMA_MAX_TILES 128
#define TF32_UNALIGNED_XMMA_MAX_M 2100

int simt_gemm_shortk_reduce_kernel(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                   int alignment_ok)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major < 8 || req->sparse)
        return 0;
    int64_t outputs = req->m * req->n * req->batch;
    if (req->dtype == SIMT_DTYPE_FP32)
        return req->k >= 2 && req->k <= SHORTK_REDUCE_MAX_K && req->m >= SHORTK_REDUCE_MIN_M &&
               ((outputs <= SHORTK_REDUCE_MAX_OUTPUT && req->k * outputs <= SHORTK_REDUCE_MAX_K_OUTPUTS) ||
                (req->m >= SHORTK_SQUARE_MIN_SIDE && req->n >= SHORTK_SQUARE_MIN_SIDE &&
                 outputs <= SHORTK_SQUARE_MAX_OUTPUT));
    int64_t tiles = (req->m + 63) / 64 * ((req->n + 63) / 64) * req->batch;
    int64_t small_tiles = (req->m + 31) / 32 * ((req->n + 31) / 32) * req->batch;
    return req->dtype == SIMT_DTYPE_TF32 && !alignment_ok && simt_gemm_tf32_mma_sync(gpu, req) &&
           req->k <= TF32_UNALIGNED_REDUCE_MAX_K && tiles >= TF32_UNALIGNED_REDUCE_MIN_TILES &&
           (small_tiles > TF32_UNALIGNED_XMMA_MAX_TILES || req->m > TF32_UNALIGNED_XMMA_MAX_M) &&
           outputs <= TF32_UNALIGNED_REDUCE_MAX_OUTPUT;
}

int simt_gemm_shortk_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int tile_k)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->k <= SHORTK_MAX_STAGES * (int64_t)tile_k;
}

void simt_gemm_shortk_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int tile_k,
                            struct shape_context *ctx, const struct tile_shape **tiles, size_t *count)
{
    if (simt_gemm_shortk_reduce_kernel(gpu, req, 1))
        ctx->reduce_kernel_always = 1;
    if (!simt_gemm_shortk_runs(gpu, req, tile_k))
        return;
    ctx->shortk_gpu = gpu;
    *tiles = shortk_tiles;
    *count = SHORTK_KERNEL_COUNT;
}

int simt_gemm_blocks_resident(const struct simt_gpu_spec *gpu, int threads, int registers,
                              int64_t shared_bytes)
{
    struct simt_occupancy_request req;
    simt_occupancy_request_init(&req);
    req.block_size = threads;
    req.registers_per_thread = registers;
    req.dynamic_shared_bytes = shared_bytes;
    struct simt_occupancy_result occ;
    if (simt_occupancy_compute(gpu, &req, &occ, NULL) != SIMT_OK || occ.active_blocks_per_sm < 1)
        return 1;
    return occ.active_blocks_per_sm;
}

int simt_gemm_shortk_resident(const struct simt_gpu_spec *gpu, const struct tile_shape *tile)
{
    const struct shortk_kernel *kernel = kernel_of(tile);
    if (gpu == NULL || kernel == NULL || kernel->block_threads == 0)
        return 1;
    return simt_gemm_blocks_resident(gpu, kernel->block_threads, kernel->registers_per_thread,
                                     kernel->shared_bytes);
}

double simt_gemm_shortk_slot_time(const struct shape_context *ctx, const struct kernel_rate *rate,
                                  const struct tile_shape *tile, double slot_s)
{
    if (ctx->shortk_gpu == NULL || kernel_of(tile) == NULL || !(rate->staged_per_s_per_sm > 0.0))
        return slot_s;
    /* the K that exists, not the stage's depth: loads past K move nothing;
     * a block's one stage of operands goes through while the SM's other
     * blocks store their C: the larger of the two binds */
    double operands = (double)(tile->m + tile->n) * (double)ctx->req->k;
    double outputs = (double)tile->m * (double)tile->n;
    if (ctx->req->k > SHORTK_STAGE_K) {
        /* two or three stages: the loop reads each stage's whole depth
         * (zeros past K included) before the block stores its C */
        double depth = (double)((ctx->req->k + SHORTK_STAGE_K - 1) / SHORTK_STAGE_K * SHORTK_STAGE_K);
        return ((double)(tile->m + tile->n) * depth + outputs) / rate->staged_per_s_per_sm;
    }
    return (operands > outputs ? operands : outputs) / rate->staged_per_s_per_sm;
}

int simt_gemm_shortk_fills(const struct shape_context *ctx, const struct candidate *c, double *fills)
{
    if (ctx->shortk_gpu == NULL || c->tile == NULL || c->stream_k || c->gemv || c->small_n || c->split > 1 ||
        c->tiles < 1 || simt_gemm_shortk_resident(ctx->shortk_gpu, c->tile) < 2)
        return 0;
    *fills = 1.0;
    return 1;
}

int simt_gemm_shortk_line(const struct shape_context *ctx, const struct candidate *c, char *buf, size_t size)
{
    const struct shortk_kernel *kernel = c->tile != NULL ? kernel_of(c->tile) : NULL;
    if (ctx->shortk_gpu == NULL || kernel == NULL || kernel->block_threads == 0 || c->gemv || c->small_n)
        return 0;
    int resident = simt_gemm_shortk_resident(ctx->shortk_gpu, c->tile);
    snprintf(buf, size,
             "tile: %dx%dx%d, a tile of cuBLAS's FP32 FMA kernels for K of one to three %d-deep stages "
             "(kernel names), chosen as the least predicted time; %d block%s resident per SM (threads, "
             "registers, shared memory, by the occupancy rules)%s; each block's load/store path moves %s",
             c->tile->m, c->tile->n, c->tile_k, c->tile_k, resident, resident == 1 ? "" : "s",
             resident > 1 ? ", so only the kernel's first loads and last stores are exposed" : "",
             ctx->req->k > SHORTK_STAGE_K
                 ? "its operands of the stages' whole depth, then its C tile"
                 : "its C tile or its operands of the K that exists, whichever is more");
    return 1;
}

/* FP32 of a few columns against a few thousand rows at K of 64 to 300:
 * cuBLAS's CUTLASS simt_sgemm_128x32_8x5 with its 128 across n (so the
 * tile is mostly padding) and 32 rows of m, K split over grid.z, then
 * splitKreduce_kernel. Seen on an H200 (gemm_probe_classes_fp32n4k.json,
 * fit data, 36 shapes of m = 800, 1300, 2000 against n = 2, 4, 6 at K =
 * 64, 120, 200, 300; the split count read from grid.z):
 *  - K a multiple of 32: K / 32 ways (2 at K = 64; 4 and 8 at K = 128 and
 *    256 in other fit files);
 *  - else, while m n K is under 2e6: pieces of ceil(K / 16) rounded up to
 *    a multiple of 4 (15 ways at K = 120 and 300; 13 where cuBLAS took 17
 *    at K = 200); from 2e6 (between 1.6e6 and 2.34e6 seen): 4 ways.
 * Each block moves its operands of its piece (160 elements a K step) and
 * its 32x128 partial tile through the SM's load/store path, its SM's
 * blocks in turn (SIMT_STAGED_PER_CLOCK_PER_SM), or, alone on its SM,
 * waits a DRAM latency an 8-deep stage; then the reduction kernel
 * (gemm_reduce.c). Over the 36, with the model's launch and kernel
 * floors: median 5.6%, worst 14.0% (the tiles' price: 15.1% / 38.9%).
 * The range (m of 768 to 2048, n of 2 to 8, K of 64 to 300) is what was
 * seen, widened a little: an ESTIMATE at its edges. */
#define COLUMN_SPLIT_MIN_M 768
#define COLUMN_SPLIT_MAX_M 2048
#define COLUMN_SPLIT_MIN_N 2
#define COLUMN_SPLIT_MAX_N 8
#define COLUMN_SPLIT_MIN_K 64
#define COLUMN_SPLIT_MAX_K 300
#define COLUMN_SPLIT_STAGE_K 32
#define COLUMN_SPLIT_FEW_WAYS_WORK 2.0e6
#define COLUMN_SPLIT_FEW_WAYS 4
#define COLUMN_SPLIT_PIECES 16

static const struct tile_shape column_split_tile = {32, 128, 5};

int simt_gemm_column_split_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 8 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->batch == 1 && req->m >= COLUMN_SPLIT_MIN_M && req->m <= COLUMN_SPLIT_MAX_M &&
           req->n >= COLUMN_SPLIT_MIN_N && req->n <= COLUMN_SPLIT_MAX_N && req->k >= COLUMN_SPLIT_MIN_K &&
           req->k <= COLUMN_SPLIT_MAX_K;
}

int simt_gemm_column_split_ways(const struct simt_gemm_request *req)
{
    if (req->k % COLUMN_SPLIT_STAGE_K == 0)
        return (int)(req->k / COLUMN_SPLIT_STAGE_K);
    if ((double)req->m * (double)req->n * (double)req->k >= COLUMN_SPLIT_FEW_WAYS_WORK)
        return COLUMN_SPLIT_FEW_WAYS;
    int64_t piece = (req->k + COLUMN_SPLIT_PIECES - 1) / COLUMN_SPLIT_PIECES;
    piece = (piece + 3) / 4 * 4;
    return (int)((req->k + piece - 1) / piece);
}

void simt_gemm_column_split_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                  const struct shape_context *ctx, double clock_hz, struct candidate *c)
{
    if (!simt_gemm_column_split_runs(gpu, req) || !(clock_hz > 0.0) || ctx->sm_count < 1 ||
        !(ctx->dram_latency_s > 0.0))
        return;
    int ways = simt_gemm_column_split_ways(req);
    int64_t piece = (req->k + ways - 1) / ways;
    double depth = (double)((piece + SHORTK_STAGE_K - 1) / SHORTK_STAGE_K * SHORTK_STAGE_K);
    double tile_c = (double)column_split_tile.m * (double)column_split_tile.n;
    double blocks = ceil((double)req->m / column_split_tile.m) * (double)ways;
    double busiest = ceil(blocks / (double)ctx->sm_count);
    double lane_s = 1.0 / (SIMT_STAGED_PER_CLOCK_PER_SM * clock_hz);
    double path_s = busiest * ((double)(column_split_tile.m + column_split_tile.n) * depth + tile_c) * lane_s;
    double chain_s = depth / SHORTK_STAGE_K * ctx->dram_latency_s + tile_c * lane_s;
    c->tile = &column_split_tile;
    c->tile_k = SHORTK_STAGE_K;
    c->split = ways;
    c->stream_k = 0;
    c->tiles = (int64_t)blocks;
    c->waves = blocks / (double)ctx->sm_count;
    c->compute_s = path_s > chain_s ? path_s : chain_s;
    c->l2_s = 0.0;
    c->overhead_s = ctx->launch_s + ctx->floor_s;
    c->serial_reduce = 0;
    c->reduce_s = simt_gemm_split_k_reduce(ctx, ways);
    c->time_s = c->overhead_s + c->compute_s + c->reduce_s;
    c->column_split = 1;
}

int simt_gemm_column_split_line(const struct candidate *c, char *buf, size_t size)
{
    if (!c->column_split)
        return 0;
    snprintf(buf, size,
             "kernel: cuBLAS's CUTLASS simt_sgemm_128x32 for a few columns at K of 64 to 300 (seen on an "
             "H200): its 128 across n, K split %d ways (K / 32 where K is a multiple of 32, else pieces of "
             "about K / 16, 4 ways from m n K = 2e6), each block's operands and partial tile through the "
             "SM's load/store path, or, alone on its SM, a DRAM latency an 8-deep stage; then cuBLAS's "
             "reduction kernel",
             c->split);
    return 1;
}
