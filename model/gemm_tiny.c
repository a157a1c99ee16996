/* gemm_tiny.c - the SM's load/store path in the GEMM kernels that have no
 * TMA, which binds where K is short or the output small, so that moving the
 * tile's elements outweighs its math. FMA (SIMT) kernels read the tile's
 * whole K depth from shared memory and store C an element at a time
 * (SIMT_STAGED_PER_CLOCK_PER_SM, gemm_constants.h). The fallback kernels of
 * unaligned shapes issue their global loads as wide as the alignment allows
 * (SCALAR_LOADS_PER_CLOCK_PER_SM, gemm_constants.h); the 16-bit ones count
 * the K that exists and store C through the same narrow slots. Seen on an
 * H200 (tests/gpu/results/h200/gemm_probe_tiny.json, fit data): K of 1, 2
 * and 4 are not 16-byte multiples in fp16 and bf16, and cuBLAS runs its
 * fallback kernels (cutlass_75_tensorop_*_s1688gemm_64x64 align1 at K = 1,
 * cutlass_80_tensorop_*_s16816gemm_256x128 align2 at K = 2 and 4); their
 * time follows C, not K: 4096^2 x 1 takes 28.8 us of kernel, as fp32's FMA
 * kernel does (simt_sgemm_128x32, 27.4 us), for 16.8 M outputs stored an
 * element or two at a time, and K = 2 and 4 take 18.8 to 24.9 us.
 *
 * What cuBLAS 13.1 ran on the H200 for tiny and short-K shapes (the same
 * file, fit data), beside what the model prices as yet:
 *  - fp16, bf16 aligned: nvjet_sm90 64x8 tiles (one kernel, 1.9 to 2.1 us,
 *    a call 4.6 to 5.1 us) up to 256^2 x 16; K of 8 to 64 at 2048^2 and
 *    4096^2: nvjet 256x128 coopA, at 4096^2 after a memset (stream-K);
 *  - fp16, bf16 unaligned (K = 1..4, odd K): cutlass_75 s1688 and
 *    cutlass_80 s16816 or wmma kernels, align1/align2, a few with the
 *    reduction kernel behind even unsplit (bf16 8x32x4, 16x64x2, 24x40x3);
 *    fp32 and 16-bit outputs of at most 16 x 16 with short K (and bf16
 *    6x82x501) ran gemmSN_NN_kernel;
 *  - fp32: K = 1 simt_sgemm_128x32; K = 2..64 sm80_xmma ffma 64x64 or
 *    128x32 (simt_sgemm_256x128 at 2048^2 x 64 and 4096^2 x 2); tiny
 *    outputs simt_sgemm_64x64 split with the reduction kernel;
 *  - tf32: K = 1 the FMA simt_sgemm_128x32 at every output size; unaligned
 *    tiny sm80_xmma tf32 32x32x64; aligned tiny cutlass_80 s1688 64x64
 *    with the reduction kernel (outputs of one tile even unsplit: 4x4x4,
 *    32x32x32; not 100^3 nor 128^3, 4 tiles, unsplit).
 * The reduction kernel's own time grows with the splits it sums: 1.1 to
 * 1.3 us for one or two, then about 0.03 us a split (a least-squares line
 * over the 74 split shapes of the four probe files: 1.63 us + 0.0294 us a
 * split; 5.1 to 5.7 us at 125 splits, 11.6 at 376: the unaligned 16-bit
 * and tf32 kernels split K of 1000 to 3000 into pieces of 8 to 16 for
 * outputs of one tile). A call's reduction kernel costs its time plus
 * 1.2 to 2 us of gap; gemm_reduce.c prices it. The 16-bit align1
 * kernels' K stages and the latency each waits: exposed_stage_latency
 * below (bf16's, gemm_align1.c). Pure. */
#include <stdio.h>

#include <math.h>

#include "gemm.h"
#include "gemm_internal.h"

/* The 16-bit align1 kernels where rate gives their stage latency
 * (gemm_align1.c): each K stage past the first waits one memory latency,
 * less the stage's math, while the kernel's blocks are one an SM at most.
 * These kernels stage their operands through registers (2-byte loads rule
 * out cp.async's 4 to 16 bytes), so that the next stage's loads go out
 * only after the last ones have landed and been stored to shared memory,
 * and a block that is alone on its SM has nothing else to run meanwhile.
 * Seen on an H200 (gemm_probe_classes.json, bf16u, fit data): the single
 * cold calls of the unsplit 64x64 kernel exceed its back-to-back kernel
 * time plus the launch by about one DRAM latency (0.34 us) per 32-deep
 * stage past the first (651x85, 651x201, 160x515 at K = 49: 0.4 to 0.6 us
 * more than at K = 8; at K = 101: 1.2 to 1.5 us), fp16's wmma kernel alike
 * per 64-deep stage (17x85 at K = 101 and 200: 0.4 and 1.1 us); with three
 * or more blocks an SM (fp16 651x515x200, 504 blocks) nothing shows. */
static double exposed_stage_latency(const struct simt_gemm_request *req, const struct kernel_rate *rate,
                                    const struct tile_shape *tile, int split, double k_loaded)
{
    if (!(rate->stage_latency_s > 0.0) || rate->stage_latency_k < 1)
        return 0.0;
    int64_t blocks =
        (req->m + tile->m - 1) / tile->m * ((req->n + tile->n - 1) / tile->n) * split * req->batch;
    if (blocks > rate->stage_latency_blocks)
        return 0.0;
    double stage_k = (double)rate->stage_latency_k;
    double stages = ceil(k_loaded / stage_k);
    double stage_math_s = rate->sm_flops_per_s > 0.0
                              ? 2.0 * (double)tile->m * (double)tile->n * stage_k / rate->sm_flops_per_s
                              : 0.0;
    double exposed_s = rate->stage_latency_s - stage_math_s;
    return stages > 1.0 && exposed_s > 0.0 ? (stages - 1.0) * exposed_s : 0.0;
}

/* FP64 of few columns (a tile's columns at most a quarter used: n of 2 to
 * 8 against cuBLAS's 32-wide tiles) when n or K is odd: its fallback
 * kernels (sm90_xmma f64 aligna8 32x32 and 64x32, cutlass_80 d884 align1)
 * stream A, each SM loading its tiles' rows and the columns that exist,
 * an 8-byte element in two of the 4-byte slots the fallback kernels issue
 * (gemm_constants.h: 3.35 a clock, no new constant). The busiest SM's
 * bytes over its kernel time in gemm_probe_classes_fp64n3.json (H200,
 * fit data, m = 2000 to 8000, n = 3 and 5, K = 2000 to 8000, 18 rows with
 * their grids): 19.7 to 27.2 GB/s, where two slots an element give 26.5
 * at 1.98 GHz and one gave twice that; those 18 rows from -12..-36% (mean
 * -21%) to -28..+10% (mean -3%; the worst two, 2000 x 3 and 5 x 4400, run
 * 126 lone blocks of 32x32 that wait on memory instead). Not fuller tiles: the odd fp64 squares (4095, 8191)
 * fit one slot an element (gemm_constants.h), the line between unseen
 * (ESTIMATE: a quarter). */
#define FP64_STREAM_MAX_FILL 4
#define FP64_SLOTS_PER_ELEMENT 2.0

const char *simt_gemm_fallback_phrase(const struct simt_gemm_request *req, int tile_n)
{
    if (req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16)
        return "; 16-bit: own tiles (64 or more a side, or wmma 32x32), the K that exists loaded, C stored "
               "so";
    if (req->dtype == SIMT_DTYPE_FP64 && req->n * FP64_STREAM_MAX_FILL <= tile_n)
        return "; fp64, few columns: A streamed, two slots an 8-byte element";
    return "";
}

double simt_gemm_slot_time(const struct simt_gemm_request *req, const struct kernel_rate *rate,
                           const struct tile_shape *tile, int tile_k, int split)
{
    double tile_c = (double)tile->m * (double)tile->n;
    double k_depth = (double)((req->k + (int64_t)split * tile_k - 1) / ((int64_t)split * tile_k) * tile_k);
    double slot_s = 0.0;
    /* FMA kernels: the loop reads the tile's whole K depth from shared
     * memory, zeros past K included, and stores C an element at a time */
    if (rate->staged_per_s_per_sm > 0.0) {
        slot_s = ((double)(tile->m + tile->n) * k_depth + tile_c) / rate->staged_per_s_per_sm;
        if (!rate->unaligned) /* a lone block's stages (simt_gemm_fma_stage_latency) */
            slot_s += exposed_stage_latency(req, rate, tile, split, k_depth);
    }
    if (rate->unaligned && rate->loads_per_s_per_sm > 0.0) {
        /* the fallback kernels' operand loads over the tile's K depth, as
         * SCALAR_LOADS_PER_CLOCK_PER_SM was fitted (gemm_constants.h). The
         * 16-bit ones (cutlass_75 and cutlass_80 f16 and bf16 kernels, align1
         * and align2) load the K a split covers (the depth past it is predicated
         * off and moves nothing) and store C in pieces as narrow as their loads
         * (one alignment for A, B and C in their names). Not seen for tf32 (its
         * unaligned short K runs the FMA SGEMM or sm80_xmma kernels, and its
         * Hopper kernels' stores of C are priced after their math) nor fp64:
         * they keep the tile's depth. */
        int sixteen_bit = req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16;
        double k_loaded = (double)((req->k + split - 1) / split);
        double elements = sixteen_bit ? (double)(tile->m + tile->n) * k_loaded + tile_c
                                      : (double)(tile->m + tile->n) * k_depth;
        if (req->dtype == SIMT_DTYPE_FP64 && req->n * FP64_STREAM_MAX_FILL <= tile->n)
            elements = ((double)(req->m < tile->m ? req->m : tile->m) + (double)req->n) * k_depth *
                       FP64_SLOTS_PER_ELEMENT;
        double load_s = elements / rate->loads_per_s_per_sm;
        if (sixteen_bit)
            load_s += exposed_stage_latency(req, rate, tile, split, k_loaded);
        if (load_s > slot_s)
            slot_s = load_s;
    }
    return slot_s;
}

/* FP32's FMA kernels of more than 16 rows on NVIDIA GPUs: with one block
 * an SM at most, each 8-deep K stage past the first waits 0.65 of a DRAM
 * latency less its math, as exposed_stage_latency prices. Fitted on an
 * H200 (tests/gpu/results/h200/gemm_probe_classes_fp32m16.json, _fp32w
 * and _fp32n4k, fit data: sm80_xmma 32x32x8, 32x64x8, 32x128x8 unsplit on
 * 16 to 47 blocks and CUTLASS's split SIMT pieces, the stage 0.223 us
 * where the three stages in flight of the tensor kernels' rule gave 0.115;
 * 24 and 32 rows against n = 500..1500 at K = 64..200 from -14..-36% to
 * -20..+6%). Not 16 rows or fewer: gemmSN and sgemm_largek keep their
 * loads in flight (gemm_small_n.c). */
#define FMA_STAGE_LATENCIES 0.65
#define FMA_STAGE_K 8
#define FMA_STAGE_MIN_M 17

/* ... and 12 to 16 rows where cuBLAS runs those kernels instead of gemmSN
 * (below): the same lone blocks, the same stages. */
#define FMA_WINDOW_MIN_M 12
#define FMA_WINDOW_MAX_M 16
#define FMA_WINDOW_WIDE_MIN_M 13
#define FMA_WINDOW_MIN_N 800
#define FMA_WINDOW_MIN_K 96
#define FMA_WINDOW_MAX_WORK (1 << 21)

void simt_gemm_fma_stage_latency(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                 double latency_s, struct kernel_rate *rate)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || req->dtype != SIMT_DTYPE_FP32 ||
        (req->m < FMA_STAGE_MIN_M && !simt_gemm_fma_window_runs(gpu, req)) || !(latency_s > 0.0))
        return;
    rate->stage_latency_s = FMA_STAGE_LATENCIES * latency_s;
    rate->stage_latency_k = FMA_STAGE_K;
    rate->stage_latency_blocks = gpu->sm_count;
}

/* FP32 of 12 to 16 rows by 800 columns or more at K of 96 or more, while
 * m n K is at most 2^21: cuBLAS 13.1 runs sm80_xmma_gemm_f32f32 ...
 * tilesize32x64x8_stage3 (m = 12) or tilesize32x128x8 (m = 14 and 16),
 * unsplit, one block of 64 threads per 64 or 128 columns, where the
 * shapes around run gemmSN_NN_kernel. Seen on an H100 SXM
 * (tests/gpu/results/h100/gemm_probe_windows.json, fit data, 2026-12-07:
 * m = 8, 10, 12, 14, 16, 20 by n = 600 to 1600 by K = 80 to 176, the
 * profiler's kernels) and an H200 (gemm_probe_classes_fp32m16.json: the
 * same kernel for each of its 60 shapes as the H100 ran). The window's
 * edges as seen: m = 10 ran gemmSN at every such n and K, m = 20
 * sm80_xmma 32x32x8 or CUTLASS's split SIMT SGEMM; n = 700 and less the
 * split SIMT SGEMM (cutlass_80_simt_sgemm_128x32); K = 80 gemmSN; and
 * where m n K passed 2^21 (the last inside 2,073,600 = 12 x 1200 x 144 and
 * 16 x 900 x 144, the first outside 2,112,000 = 12 x 1100 x 160), gemmSN
 * again. m = 11, 13 and 15, K of 81 to 95 and n past 1600 were not run:
 * those edges are ESTIMATEs. The kernels' blocks are few (8 to 25 on 132
 * SMs), each alone on its SM, its 8-deep K stages waiting as the other
 * lone FMA blocks' do (simt_gemm_fma_stage_latency): kernel times 5.3 to
 * 6.1 us (32x64) and 8.1 to 9.3 us (32x128) at K = 100 and 128, where
 * gemmSN took 2.9 to 3.0 us at 16 x 1500. */
static const struct tile_shape fma_window_tiles[] = {{32, 64, 0}, {32, 128, 0}};

int simt_gemm_fma_window_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->batch == 1 && req->m >= FMA_WINDOW_MIN_M && req->m <= FMA_WINDOW_MAX_M &&
           req->n >= FMA_WINDOW_MIN_N && req->k >= FMA_WINDOW_MIN_K &&
           (double)req->m * (double)req->n * (double)req->k <= (double)FMA_WINDOW_MAX_WORK;
}

/* ... and n of 512 to 799, m of 8 to 16 (the other bounds as the window's):
 * the split SIMT SGEMM (cutlass_80_simt_sgemm_128x32_8x5, K over grid.z,
 * and its reduction kernel), as at n = 500 (gemm_probe_classes_fp32m16
 * .json): 60 of 60 such shapes at n = 600 and 700 in gemm_probe_windows
 * .json; the least-time tile and split of the FMA list without gemmSN or
 * sgemm_largek. */
#define SPLIT_WINDOW_MIN_M 8
#define SPLIT_WINDOW_MIN_N 512

static int split_window_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->batch == 1 && req->m >= SPLIT_WINDOW_MIN_M && req->m <= FMA_WINDOW_MAX_M &&
           req->n >= SPLIT_WINDOW_MIN_N && req->n < FMA_WINDOW_MIN_N && req->k >= FMA_WINDOW_MIN_K &&
           (double)req->m * (double)req->n * (double)req->k <= (double)FMA_WINDOW_MAX_WORK;
}

/* FP32 of two or three columns, 128 rows or fewer, at a K whose split
 * SIMT SGEMM would take more blocks than the SMs (K over 32 a block:
 * cutlass_80_simt_sgemm_64x32 split K / 32 ways for one tile, K / 64 for
 * two, with splitKreduce behind): cuBLAS 13.1 runs sm80_xmma's 64x64x8
 * FMA tile split over twice the SMs' worth of blocks (grid.z 264 for one
 * tile, 132 for two, on 132 SMs) and sums the splits in its second launch
 * (grid.z 2), a split at a time: 33 us for 132 splits, 64 us for 264.
 * Seen on an H100 SXM (tests/gpu/results/h100/gemm_probe_classes_h100t
 * .json, fit data: m = 64, 96, 128 by n = 2, 3 at K = 3000 and 4000, the
 * split SIMT SGEMM, 33 to 125 ways; at K = 5000 the sm80_xmma pair, 42.7
 * to 72.7 us a call where K = 4000 took 13.1 to 13.6). The line between
 * (K = 32 x SMs, 4224 on 132 SMs) is where the split SGEMM's blocks pass
 * one an SM (125 and 126 at K = 4000 ran it, 156 at 5000 did not); the
 * side bounds are those seen: an ESTIMATE beyond. */
#define FILL_SPLIT_MAX_M 128
#define FILL_SPLIT_MIN_N 2
#define FILL_SPLIT_MAX_N 3
#define FILL_SPLIT_PIECE_K 32

static const struct tile_shape fill_split_tile = {64, 64, 0};

static int fill_split_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP32 &&
           !req->sparse && req->batch == 1 && req->m <= FILL_SPLIT_MAX_M && req->n >= FILL_SPLIT_MIN_N &&
           req->n <= FILL_SPLIT_MAX_N && gpu->sm_count > 0 &&
           req->k > (int64_t)FILL_SPLIT_PIECE_K * gpu->sm_count;
}

void simt_gemm_fma_window_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                struct shape_context *ctx, const struct tile_shape **tiles, size_t *count)
{
    if (fill_split_runs(gpu, req)) {
        int64_t tiles_64 = (req->m + fill_split_tile.m - 1) / fill_split_tile.m;
        /* K over 32 x SMs: at least two 8-deep stages a split */
        ctx->fixed_split = (int)(2 * (int64_t)gpu->sm_count / tiles_64);
        ctx->fma_window = SIMT_GEMM_FMA_FILL_SPLIT;
        ctx->xmma_two_pass = 1;
        *tiles = &fill_split_tile;
        *count = 1;
        return;
    }
    if (simt_gemm_fma_window_runs(gpu, req)) {
        ctx->fixed_split = 1;
        ctx->fma_window = SIMT_GEMM_FMA_XMMA_LONE;
        ctx->xmma_two_pass = 0; /* unsplit */
        *tiles = &fma_window_tiles[req->m >= FMA_WINDOW_WIDE_MIN_M ? 1 : 0];
        *count = 1;
    } else if (split_window_runs(gpu, req)) {
        ctx->fma_window = SIMT_GEMM_FMA_SPLIT_SIMT;
        ctx->xmma_two_pass = 0; /* splitKreduce sums its splits */
        simt_gemm_fma_tiles(tiles, count);
        (*count)--; /* not the 8x64 sgemm_largek tile (gemm_family.c) */
    }
}

int simt_gemm_fma_window_line(const struct shape_context *ctx, char *buf, size_t size)
{
    if (ctx->fma_window == SIMT_GEMM_FMA_XMMA_LONE)
        snprintf(buf, size,
                 "kernel: cuBLAS's sm80_xmma FP32 FMA kernel (tilesize32x%dx8; seen on an H100 and an H200 "
                 "for 12 to 16 rows, 800 columns or more, K of 96 or more, m n K at most 2^21), unsplit, a "
                 "block of 64 threads per %d columns alone on its SM: operands and C through its load/store "
                 "path, each 8-deep K stage past the first waiting %.2g of a DRAM latency less its math",
                 ctx->req->m >= FMA_WINDOW_WIDE_MIN_M ? 128 : 64,
                 ctx->req->m >= FMA_WINDOW_WIDE_MIN_M ? 128 : 64, FMA_STAGE_LATENCIES);
    else if (ctx->fma_window == SIMT_GEMM_FMA_FILL_SPLIT)
        snprintf(buf, size,
                 "kernel: cuBLAS's sm80_xmma FP32 FMA kernel (tilesize64x64x8) split over twice the SMs' "
                 "worth of blocks, then its second launch summing the splits one at a time (seen on an H100 "
                 "for 2 and 3 columns of up to 128 rows where K passes 32 a block of the split SIMT SGEMM "
                 "over the SMs)");
    else if (ctx->fma_window == SIMT_GEMM_FMA_SPLIT_SIMT)
        snprintf(buf, size,
                 "kernel: cuBLAS's split SIMT SGEMM (cutlass_80_simt_sgemm_128x32 with K over grid.z and its "
                 "reduction kernel, seen on an H100 and an H200 for 8 to 16 rows by 500 to 700 columns at K "
                 "of 96 to 200, here 512 to 799 columns while m n K is at most 2^21), priced as the "
                 "least-time tile and split of the FMA list without gemmSN or "
                 "sgemm_largek");
    else
        return 0;
    return 1;
}
