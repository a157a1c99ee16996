/* gemm_fp64u.c - cuBLAS's FP64 kernels for short K (17 to 128) when n or
 * K is odd (rows not 16-byte multiples, so no TMA), on Hopper: a block of
 * these kernels works through its tile's math, stores its C tile and only
 * then takes the next, so an SM's tiles each cost their first loads, their
 * math and their stores one after another. Pure.
 *
 * Evidence, fit data only (tests/gpu/results/h200/gemm_probe_classes_fp64u
 * .json, group fp64u of probe/gemm_probe_classes.py: 39 shapes of m = 4096
 * to 16384 against odd n of 501 to 2001, and even n at K = 33, 63 and 127,
 * with the kernels' names, grids, blocks, registers and shared memory read
 * from torch.profiler on an H200, 2026-12-02). cuBLAS ran two kernels:
 *  - cutlass_80_tensorop_d884gemm_64x32_16x4_nn_align1 (128 threads, 84
 *    registers, 49152 bytes: four blocks an SM) at every K of 32 and 33,
 *    and at 13 of the 19 shapes of K = 63 and 64; Ampere's DMMA.884,
 *    which runs below Hopper's own DMMA: its math fitted at 0.64 of the
 *    fp64 tensor figure;
 *  - sm90_xmma_gemm_f64f64 tilesize64x64x32 stage3 aligna8 (128 threads,
 *    254 registers, 98304 bytes: two an SM) at every K of 127 and 128 and
 *    the other six of 63 and 64; its math fitted at 0.91 of the figure.
 * Each SM's share of the tiles (the busiest SM: ceil(tiles / SMs)) takes,
 * tile after tile,
 *
 *   t = a L + C_tile SMs / W + 2 m_t n_t K / (f R),
 *
 * L the DRAM latency (its first loads), C_tile SMs / W the tile's C at its
 * share of the DRAM write rate W while every SM stores, R an SM's FP64
 * tensor rate; a = 1.24 latencies (d884) and 2.37 (sm90), fitted by least
 * squares with f. Over the 39: d884 median 2.5%, worst 12.7%; sm90 3.5%,
 * 9.6%. Which of the two runs: d884 for K up to 48 (every shape at 32 and
 * 33), the less time of the two above (cuBLAS ran either at 63 and 64, by
 * a rule its shapes did not show; the less time picks sm90 there, 15% under
 * where d884 ran), sm90 at 128 as the less time too. Checked, not fitted,
 * on 27 more of m = 1000 to 3000 (gemm_probe_classes_fp64u2.json, group
 * fp64u2: d884 at five of the nine of K = 64, sm90 tiles of 32x64 to
 * 64x128 elsewhere, priced as its 64x64): median 2.5%, worst 19.9% (the
 * square DMMA tiles: 12.9%, 38.2%). An H100 (gemm_probe_windows3.json,
 * fit data) ran d884 64x32 at K = 23 too (640, 1120 and 3000 rows by 4000
 * and 8600): the rule from K = 17 (past one 16-deep stage, where the
 * one-stage store rule below holds) and m = 600, those six rows
 * from -24..-31% to +4..+22%. Outside the sizes seen (m of 600 and more, n
 * of 500 and more, K of 17 to 128) gemm.c's tiles price it; other GPUs
 * (their cuBLAS not seen) too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "gemm_internal.h"

/* Small products (fewer than 2^22 flops, cuBLAS's line for its FP64 split,
 * gemm_fp64.c) of m >= 17 at K of 1000 and more, n or K odd (gemm_probe_
 * classes_fp64sk.json, group fp64sk, fit data: m = 8..40 against n = 9, 31
 * and 48 at K = 1000..5000, 2026-12-02; m = 8 and even n ran the split
 * kernels priced in gemm.c and gemm_fp64.c; n of 1, cuBLAS's GEMV, is not
 * this: n of 9 and more):
 *  - K of 2000 and less: sm90_xmma_gemm_f64f64 32x32x32 unsplit, one block
 *    an output tile walking K: a 32-deep stage 1.12 DRAM latencies (the
 *    loads of a stage wait the memory before its math; fitted over 11 rows,
 *    16.3 to 30.5 us, within 6.1%), after the launch and the kernel floor;
 *  - K of 3000 and more: sm90_xmma 64x128x32 split over every SM (grid.z
 *    132), then the same kernel summing the 132 pieces one after another,
 *    37 us: 0.88 DRAM latencies a piece (fitted over 7 rows, 46.5 to 48.2
 *    us). Between 2000 and 3000 the line is put at 2500, an ESTIMATE. */
#define FP64_WALK_MIN_M 17
#define FP64_WALK_MIN_N 9 /* the narrowest seen; a column or a few: cuBLAS's GEMV (gemm.c) */
#define FP64_WALK_MIN_K 1000
#define FP64_WALK_SPLIT_K 2500
#define FP64_WALK_MAX_FLOPS 4194304.0 /* 2^22 */
#define FP64_WALK_STAGE_K 32
#define FP64_WALK_STAGE_LATENCIES 1.12
#define FP64_SPLIT_PIECE_LATENCIES 0.88

#define FP64U_MIN_M 600
#define FP64U_MIN_N 500
#define FP64U_MIN_K 17
#define FP64U_MAX_K 128
#define FP64U_D884_ONLY_K 48

struct fp64u_kernel {
    struct tile_shape tile;
    double latencies;     /* a: DRAM latencies a tile's first loads expose */
    double rate_fraction; /* f: of an SM's FP64 tensor rate its math reaches */
    const char *name;
};

static const struct fp64u_kernel fp64u_kernels[] = {
    {{64, 32, 4}, 1.24, 0.644, "cutlass_80_tensorop_d884gemm_64x32_16x4 align1 (Ampere's DMMA.884)"},
    {{64, 64, 3}, 2.37, 0.912, "sm90_xmma_gemm_f64f64 64x64x32 aligna8"},
};
#define FP64U_D884 0
#define FP64U_SM90 1
#define FP64U_WALK 3 /* candidate.fp64u of the small products' walk */
#define FP64U_WALK_SPLIT 4
#define FP64U_SHORT_ODD 5
#define FP64U_TALL_TINY_K 6

/* n and K whole 16-byte multiples (gemm.c's alignment_ok) */
static int rows_aligned(const struct simt_gemm_request *req)
{
    int elements = simt_gemm_alignment_elements(req->dtype);
    return req->n % elements == 0 && req->k % elements == 0;
}

static const struct tile_shape walk_tile = {32, 32, 5};
static const struct tile_shape walk_split_tile = {64, 128, 3};

int simt_gemm_fp64_walk_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP64 &&
           !req->sparse && req->batch == 1 && !rows_aligned(req) && req->m >= FP64_WALK_MIN_M &&
           req->n >= FP64_WALK_MIN_N && req->k >= FP64_WALK_MIN_K &&
           2.0 * (double)req->m * (double)req->n * (double)req->k < FP64_WALK_MAX_FLOPS;
}

/* The walk of K by one block a tile, or its split over every SM. */
static void price_walk(const struct shape_context *ctx, const struct simt_gemm_request *req,
                       struct candidate *c)
{
    double stage_s = FP64_WALK_STAGE_LATENCIES * ctx->dram_latency_s;
    c->split = 1;
    c->stream_k = 0;
    c->l2_s = 0.0;
    c->dram_s = 0.0;
    c->serial_reduce = 0;
    c->overhead_s = ctx->launch_s + ctx->floor_s;
    if (req->k < FP64_WALK_SPLIT_K) {
        c->tile = &walk_tile;
        c->tile_k = FP64_WALK_STAGE_K;
        c->tiles = ((req->m + walk_tile.m - 1) / walk_tile.m) * ((req->n + walk_tile.n - 1) / walk_tile.n);
        c->compute_s = ceil((double)req->k / FP64_WALK_STAGE_K) * stage_s;
        c->reduce_s = 0.0;
        c->fp64u = FP64U_WALK;
    } else {
        int pieces = ctx->sm_count;
        c->tile = &walk_split_tile;
        c->tile_k = FP64_WALK_STAGE_K;
        c->split = pieces;
        c->tiles = pieces;
        c->compute_s = ceil((double)req->k / ((double)pieces * FP64_WALK_STAGE_K)) * stage_s;
        c->reduce_s =
            ctx->second_kernel_s + (double)pieces * FP64_SPLIT_PIECE_LATENCIES * ctx->dram_latency_s;
        c->fp64u = FP64U_WALK_SPLIT;
    }
    c->waves = (double)c->tiles / (double)ctx->sm_count;
    c->time_s = c->overhead_s + c->compute_s + c->reduce_s;
}

int simt_gemm_fp64u_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP64 &&
           !req->sparse && req->batch == 1 && !rows_aligned(req) && req->m >= FP64U_MIN_M &&
           req->n >= FP64U_MIN_N && req->k >= FP64U_MIN_K && req->k <= FP64U_MAX_K;
}

/* One kernel's time: its busiest SM's tiles, one after another. */
static void price(const struct shape_context *ctx, const struct simt_gemm_request *req, double sm_flops_per_s,
                  int which, struct candidate *c)
{
    const struct fp64u_kernel *kernel = &fp64u_kernels[which];
    int64_t tiles =
        ((req->m + kernel->tile.m - 1) / kernel->tile.m) * ((req->n + kernel->tile.n - 1) / kernel->tile.n);
    double per_sm = ceil((double)tiles / (double)ctx->sm_count);
    double store_s = (double)kernel->tile.m * (double)kernel->tile.n * (double)ctx->out_bytes *
                     (double)ctx->sm_count / ctx->dram_write_bytes_per_s;
    double math_s = 2.0 * (double)kernel->tile.m * (double)kernel->tile.n * (double)req->k /
                    (kernel->rate_fraction * sm_flops_per_s);
    double first_s = kernel->latencies * ctx->dram_latency_s;
    c->tile = &kernel->tile;
    c->tile_k = which == FP64U_D884 ? 16 : 32;
    c->split = 1;
    c->stream_k = 0;
    c->tiles = tiles;
    c->waves = (double)tiles / (double)ctx->sm_count;
    c->compute_s = per_sm * math_s;
    c->l2_s = 0.0;
    c->dram_s = per_sm * store_s;
    c->reduce_s = 0.0;
    c->serial_reduce = 0;
    c->overhead_s = ctx->launch_s + ctx->floor_s + per_sm * first_s;
    c->time_s = c->overhead_s + c->compute_s + c->dram_s;
    c->fp64u = which + 1;
}

/* FP64 at odd K of one 16-deep stage (K = 3 seen; 5 to 15 taken the
 * same, an ESTIMATE): cuBLAS's aligna8 and d884 align1 kernels store C
 * through the SM about one element a clock, every element of their tiles
 * (gemm_probe_classes.json group fp64, fit data: 16384x1000x3 64.7 us,
 * 4096x1000x3 20.9 us, 16384x146x3 14.5 us, the tiles' elements at that
 * rate within 6%, where the square tiles' price was -24% to -30%; even K
 * stores 16 bytes at a time and runs faster, not this). Priced as a floor
 * under the candidate: an SM's share of the output padded to the d884
 * kernel's 64x32 tiles (several blocks an SM share its store path), an
 * element a clock, after the launch and the kernel floor. */
#define FP64_SHORT_ODD_MIN_K 3
#define FP64_SHORT_ODD_MAX_K 15
#define FP64_SHORT_TILE_M 64
#define FP64_SHORT_TILE_N 32
#define FP64_SHORT_ELEMENTS_PER_CLOCK 1.0

static void short_odd_k_floor(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                              const struct shape_context *ctx, double clock_hz, struct candidate *c)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major != 9 || req->dtype != SIMT_DTYPE_FP64 ||
        req->sparse || req->k % 2 == 0 || req->k < FP64_SHORT_ODD_MIN_K || req->k > FP64_SHORT_ODD_MAX_K ||
        !(clock_hz > 0.0))
        return;
    double tiles = ceil((double)req->m / FP64_SHORT_TILE_M) * ceil((double)req->n / FP64_SHORT_TILE_N) *
                   (double)req->batch;
    double per_sm = tiles / (double)ctx->sm_count * FP64_SHORT_TILE_M * FP64_SHORT_TILE_N;
    double store_s = per_sm / (FP64_SHORT_ELEMENTS_PER_CLOCK * clock_hz);
    double floor_s = ctx->launch_s + ctx->floor_s + store_s;
    if (floor_s <= c->time_s)
        return;
    c->dram_s = store_s > c->dram_s ? store_s : c->dram_s;
    c->overhead_s = ctx->launch_s + ctx->floor_s;
    c->reduce_s = 0.0;
    c->time_s = floor_s;
    c->fp64u = FP64U_SHORT_ODD;
}

/* FP64 of few columns against many rows at K of 2 to 4, n or K odd: once
 * the output has more than 2.5 SMs' worth of 32x32 tiles, cuBLAS runs
 * sm90_xmma_gemm_f64f64 64x128x32 aligna8 (256 threads, 254 registers,
 * 144 KiB: one block an SM), whose blocks go through their whole tile,
 * padded columns too, one round of the SMs after another. Seen (fit data):
 * an H100 SXM (gemm_probe_windows2.json group fp64tallk2, and gemm_probe_
 * classes_h100t.json) at 12000, 14000 and 16000 rows by 2 to 5 columns,
 * 188 to 250 blocks, 8.2 to 8.4 us a kernel, where 10000 rows and fewer
 * (313 blocks of 32x32 or fewer) ran the 32x32 kernel; an H200 at 16384 x
 * 14 x 3 (gemm_probe_classes.json). Priced as rounds x the tile's 8192
 * elements at 1.31 an SM's clock, after the launch and the kernel floor:
 * fitted by least squares over those 21 rows, median 0.9%, worst 2.5%
 * (the tile kernels' price had them -39% to -43%). Not wider outputs
 * (16384 x 146 and x 1000 ran d884, 4096 x 146 and x 1000 this kernel: a
 * line the rows do not draw), so n of 16 or fewer. */
#define FP64_TALL_MIN_K 2
#define FP64_TALL_MAX_K 4
#define FP64_TALL_MAX_N 16
#define FP64_TALL_MIN_SMALL_TILES_PER_SM 2.5
#define FP64_TALL_TILE_M 64
#define FP64_TALL_TILE_N 128
#define FP64_TALL_ELEMENTS_PER_CLOCK 1.31

static const struct tile_shape tall_tile = {FP64_TALL_TILE_M, FP64_TALL_TILE_N, 3};

static void tall_tiny_k(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                        const struct shape_context *ctx, double clock_hz, struct candidate *c)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major != 9 || req->dtype != SIMT_DTYPE_FP64 ||
        req->sparse || rows_aligned(req) || req->k < FP64_TALL_MIN_K || req->k > FP64_TALL_MAX_K ||
        req->n > FP64_TALL_MAX_N || !(clock_hz > 0.0))
        return;
    double small_tiles = ceil((double)req->m / 32.0) * ceil((double)req->n / 32.0) * (double)req->batch;
    if (small_tiles <= FP64_TALL_MIN_SMALL_TILES_PER_SM * (double)ctx->sm_count)
        return;
    double blocks = ceil((double)req->m / FP64_TALL_TILE_M) * ceil((double)req->n / FP64_TALL_TILE_N) *
                    (double)req->batch;
    double rounds = ceil(blocks / (double)ctx->sm_count);
    memset(c, 0, sizeof *c);
    c->tile = &tall_tile;
    c->tile_k = 32;
    c->split = 1;
    c->tiles = (int64_t)blocks;
    c->waves = blocks / (double)ctx->sm_count;
    c->compute_s = rounds * FP64_TALL_TILE_M * FP64_TALL_TILE_N / (FP64_TALL_ELEMENTS_PER_CLOCK * clock_hz);
    c->overhead_s = ctx->launch_s + ctx->floor_s;
    c->time_s = c->overhead_s + c->compute_s;
    c->fp64u = FP64U_TALL_TINY_K;
}

void simt_gemm_fp64u_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                           const struct shape_context *ctx, double sm_flops_per_s, double clock_hz,
                           struct candidate *c)
{
    if (ctx->sm_count < 1 || !(ctx->dram_latency_s > 0.0))
        return;
    short_odd_k_floor(gpu, req, ctx, clock_hz, c);
    tall_tiny_k(gpu, req, ctx, clock_hz, c);
    if (simt_gemm_fp64_walk_runs(gpu, req)) {
        price_walk(ctx, req, c);
        return;
    }
    if (!simt_gemm_fp64u_runs(gpu, req) || !(sm_flops_per_s > 0.0) || !(ctx->dram_write_bytes_per_s > 0.0))
        return;
    struct candidate d884 = *c, sm90 = *c;
    price(ctx, req, sm_flops_per_s, FP64U_D884, &d884);
    price(ctx, req, sm_flops_per_s, FP64U_SM90, &sm90);
    *c = req->k <= FP64U_D884_ONLY_K || d884.time_s <= sm90.time_s ? d884 : sm90;
}

int simt_gemm_fp64u_line(const struct candidate *c, char *buf, size_t size)
{
    if (c->fp64u == FP64U_SHORT_ODD) {
        snprintf(
            buf, size,
            "kernel: cuBLAS's FP64 kernels at odd K of one 16-deep stage (aligna8, d884 align1; seen at K = "
            "3 on an H200) store C through the SM about an element a clock, every element of their 64x32 "
            "tiles: an SM's share at that rate binds (fitted on an H200)");
        return 1;
    }
    if (c->fp64u == FP64U_TALL_TINY_K) {
        snprintf(buf, size,
                 "kernel: cuBLAS's sm90_xmma_gemm_f64f64 64x128x32 aligna8 for tall FP64 of few columns at K "
                 "of 2 to 4, n or K odd (seen on an H100 SXM and an H200): one block an SM, each through its "
                 "whole tile, padding too, %.2f elements a clock, round after round (fitted there)",
                 FP64_TALL_ELEMENTS_PER_CLOCK);
        return 1;
    }
    if (c->fp64u == FP64U_WALK) {
        snprintf(
            buf, size,
            "kernel: cuBLAS's sm90_xmma_gemm_f64f64 32x32x32 for a small FP64 product of odd n or K (under "
            "2^22 flops, m >= 17, n >= 9, K of 1000 to 2500, seen on an H200): one block an output tile "
            "walks K "
            "alone, a 32-deep stage %.2f DRAM latencies (fitted on an H200)",
            FP64_WALK_STAGE_LATENCIES);
        return 1;
    }
    if (c->fp64u == FP64U_WALK_SPLIT) {
        snprintf(
            buf, size,
            "kernel: cuBLAS's sm90_xmma_gemm_f64f64 64x128x32 for a small FP64 product of odd n or K (under "
            "2^22 flops, m >= 17, n >= 9, K of 2500 and more, seen on an H200): K split over every SM (%d "
            "pieces), then the same kernel adds them one after another, %.2f DRAM latencies a piece "
            "(fitted on an H200)",
            c->split, FP64_SPLIT_PIECE_LATENCIES);
        return 1;
    }
    if (c->fp64u < 1)
        return 0;
    const struct fp64u_kernel *kernel = &fp64u_kernels[c->fp64u - 1];
    snprintf(
        buf, size,
        "kernel: cuBLAS's %s for FP64 of odd n or K at K of 17 to 128 (kernel names, on an H200): an SM's "
        "tiles one after another, each %.2f DRAM latencies of first loads, its math at %.2f of the FP64 "
        "tensor rate, then its C at the SM's share of the DRAM write rate (fitted on an H200)",
        kernel->name, kernel->latencies, kernel->rate_fraction);
    return 1;
}
