/* gemm_fp64.c - FP64 GEMMs on Hopper: the DMMA kernels' last wave of
 * stores, and cuBLAS's split over every SM: for a small FP64 product with
 * long K it cuts K into as many pieces as the SMs hold blocks of its one
 * output tile, and a second kernel, one block per output tile, adds the
 * pieces one after another. Where it runs, what that reduction costs, and
 * the lines the answer states. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11; tests/gpu/results/
 * h200/gemm_probe.json, gemm_probe_small.json, gemm_probe_fp64.json, fit
 * data): sm90_xmma_gemm_f64f64 tilesize32x32x32_stage5 on a grid of the
 * output's 32x32 tiles times z = 132 (one tile: 32x16 at K = 1024, 1600,
 * 1792, 2048; 32x32 at K = 1024) or 66 (two tiles: 48x16 at K = 1024 and
 * 2048, 64x16 at 1024), then the same kernel on a grid of the output tiles
 * alone (54 registers, 10 KiB of shared memory: the reduction), 50.3 us
 * for 132 pieces and 26.2 to 26.6 us for 66, about 0.38 us a piece, whatever
 * the output. Not seen: at K = 512 and below (one unsplit block), with 2mnk
 * of 2^22 or more (32x32x2048, 64x16x2048, 32x16x4096, 48x16x4096: Ampere's
 * cutlass_80_tensorop_d884gemm split 16 to 32 ways with cuBLAS's
 * splitKreduce_kernel behind), nor for m under 32 (cuBLAS's N: 8x8, 16x16,
 * 16x32, 16x64 at every K from 128 to 16384 run d884gemm).
 *
 * The three ways cuBLAS reduces FP64's split K on an H200, by the kernels
 * gemm_probe_fp64.json names: (1) cutlass_80 d884gemm, split over grid z,
 * then splitKreduce_kernel (parallel over the output; 1.5 to 9.4 us at 8 to
 * 128 pieces): small outputs with m < 32 at every K seen, and many with
 * m >= 32 past 2^22 flops (32x32x4096, 64x64 and 128x32 at K = 512 to
 * 16384, 128x128 at 1024 and 2048);
 * (2) sm90_xmma with a memset first, the pieces meeting at semaphores in
 * the GEMM kernel (skinny outputs with long K: 4x28672x4096 split 2,
 * 16x8192x28672 split 16, 32x128x16384 split 33); (3) sm90_xmma, then
 * the same kernel as a serial reduction, one block per output tile, about
 * 0.4 us a piece beyond its start (the split over every SM here, and
 * 128x128x4096 split 8, 96x192x8192 split 7: 4.3 to 4.6 us). No atomics.
 * The model prices (1) and (2) as gemm.c's second kernel and in-kernel
 * reduction, the cheaper of the two, and (3) where this file's rule holds.
 *
 * K = 2 and 3 (gemm_probe_classes.json, group fp64, fit data; K = 1 is
 * gemm_k1.c's): seen, not priced apart. cuBLAS runs one kernel, no split:
 * sm90_xmma f64 tiles 32x32x32 (m*n small), 32x64x32, 64x64x16 and
 * 128x64x16 at K = 2; at K = 3 (odd: rows of A not 16-byte multiples) the
 * "aligna8_alignc8" variants, 32x32x32 and 64x128x32 (256 threads, 254
 * registers: one block an SM), and cutlass_80 d884gemm_64x32 align1 at
 * m = 16384 with n of 146 and 1000. The tile kernels' price here is 8 to
 * 15% slow on the one-wave calls (4.5 to 5.1 us measured) and 24 to 43%
 * fast where m*n is large (16384 x 14 x 3 -43%, 4096 x 1000 x 3 -30%,
 * 16384 x 1000 x 3 -29%, 16384 x 146 x 2 -27%). The warm kernel times
 * (mean_us) against the grids say what is left out: at K = 3 a block's
 * time follows its tile's area, not its output's nor C's bytes, about one
 * element of the whole tile a clock per SM (16384 x 1000 x 3, d884 64x32:
 * 62 tiles an SM, 127 k elements, 63.5 us; 16384 x 14 x 3, 64x128 with
 * 14 of its 128 columns used: two tiles an SM, 8.2 us, where C's bytes
 * are 0.4 us at DRAM's write rate; 4096 x 146 x 3, one 64x128 tile an
 * SM, 5.6 us); at K = 2 (16-byte stores) about 1.5 elements a clock.
 * Pricing that needs the tile cuBLAS names (which wastes most of a 64x128
 * tile at n = 14, where the least-time choice takes a small one: a rule
 * for gemm_family.c) and an epilogue rate per tile element (a constant
 * from these rows). Tried here and left out (2026-12-02): C's stores
 * after the math for every wave of the unaligned fp64 kernels
 * (ctx->epilogue_after_mainloop): the K = 3 rows moved to -38..+12%, but
 * long-K unaligned fit rows got worse (512 x 3001 x 2048 +2.6% -> +7.0%,
 * 4096^2 x 1001 -1.0% -> +3.0%) and the fit half's GEMM median rose from
 * 4.6% to 4.9%. K = 3's element a clock is now priced as a floor
 * (gemm_fp64u.c, short_odd_k_floor: 16384x1000x3 -29% -> +6%,
 * 4096x1000x3 -30% -> -3%); K = 2 and the 64x128 tile's waste at n = 14
 * are not. */
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"

/* The rule's bounds, from the shapes above: K of 1000 or more, m of 17 or
 * more, n of 16 or more (the narrowest seen), fewer than 2^22 flops. m =
 * 17, 24 and 40 against n = 48 at K = 1000 and 2000 ran it too, split 66
 * and 33 ways (gemm_probe_classes_fp64sk.json, fit data; m = 8 ran
 * d884gemm): the m and K lines moved from 32 and 1024 to what was seen. */
#define SERIAL_MIN_K 1000
#define SERIAL_MIN_M 17
#define SERIAL_MIN_N 16
#define SERIAL_MAX_FLOPS (1 << 22)

/* Its one tile (our m x n; the stage count is the kernel name's). */
static const struct tile_shape serial_tile[] = {{32, 32, 5}};

int simt_gemm_fp64_serial_split(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major != 9 || req->dtype != SIMT_DTYPE_FP64 ||
        req->sparse || req->batch != 1 || req->k < SERIAL_MIN_K || req->m < SERIAL_MIN_M ||
        req->n < SERIAL_MIN_N || req->k % simt_gemm_alignment_elements(req->dtype) != 0 ||
        req->n % simt_gemm_alignment_elements(req->dtype) != 0)
        return 0;
    if (2.0 * (double)req->m * (double)req->n * (double)req->k >= (double)SERIAL_MAX_FLOPS)
        return 0;
    int64_t tiles = (req->m + serial_tile[0].m - 1) / serial_tile[0].m *
                    ((req->n + serial_tile[0].n - 1) / serial_tile[0].n);
    int64_t split = gpu->sm_count / tiles;
    return split >= 2 ? (int)split : 0;
}

/* FP64's DMMA kernels (sm90_xmma_gemm_f64: warp-level mma.sync, no TMA,
 * Hopper on) hold one tile a block and store it after its math; the blocks
 * of a wave run in step, so the last wave's stores have nothing under them
 * (H200, gemm_probe_fp64.json: 1024x1024 at K = 32..512 and 256x8192 at
 * K = 8..64 were predicted 9-26% short with them hidden; gemm_cost.c). */
void simt_gemm_fp64_setup(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                          double latency_s, struct shape_context *ctx, const struct tile_shape **tiles,
                          size_t *count)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major < 9 || req->dtype != SIMT_DTYPE_FP64)
        return;
    ctx->last_wave_stores_exposed = 1;
    int split = simt_gemm_fp64_serial_split(gpu, req);
    if (split == 0 || !(latency_s > 0.0))
        return;
    ctx->fixed_split = split;
    ctx->serial_reduce_kernel = 1;
    ctx->serial_piece_s = latency_s;
    *tiles = serial_tile;
    *count = sizeof serial_tile / sizeof serial_tile[0];
}

/* The reduction kernel: gemm_reduce.c's mechanism, with one block per
 * output tile that reads the pieces in turn, each read waiting on the sum
 * so far: one piece in flight, one memory round trip each, taken as DRAM's
 * latency (0.344 us on an H200 by its figure; 0.38 us a piece measured),
 * none hidden by other work. */
void simt_gemm_fp64_serial_reduce(const struct shape_context *ctx, int split, struct candidate *c)
{
    if (split < 2 || !ctx->serial_reduce_kernel)
        return;
    const struct simt_gemm_request *req = ctx->req;
    int64_t tiles = (req->m + serial_tile[0].m - 1) / serial_tile[0].m *
                    ((req->n + serial_tile[0].n - 1) / serial_tile[0].n) * req->batch;
    struct simt_gemm_reduce_grid grid = {
        .blocks = (double)tiles,
        .block_outputs = (double)(req->m < serial_tile[0].m ? req->m : serial_tile[0].m) *
                         (double)(req->n < serial_tile[0].n ? req->n : serial_tile[0].n),
        .blocks_per_sm = 1,
        .in_flight = 1,
        .latency_s = ctx->serial_piece_s,
    };
    c->reduce_s = simt_gemm_reduce_kernel_time(ctx, &grid, split);
    c->serial_reduce = 0;
}

static void append(struct simt_gemm_result *out, const char *line)
{
    if (out->assumption_count >= SIMT_GEMM_MAX_ASSUMPTIONS)
        return;
    snprintf(out->assumptions[out->assumption_count], SIMT_GEMM_ASSUMPTION_BYTES, "%s", line);
    out->assumption_count++;
}

void simt_gemm_fp64_assume_epilogue(const struct shape_context *ctx, const struct candidate *best,
                                    struct simt_gemm_result *out)
{
    if (ctx->last_wave_stores_exposed && !ctx->outer_product && !best->gemv && !best->small_n &&
        !best->stream_k)
        append(out, "epilogue: the DMMA kernels store C after a tile's math; the last wave's stores follow "
                    "its math with nothing under them (earlier waves' hide under the next wave's math)");
}

int simt_gemm_fp64_assume_split(const struct shape_context *ctx, const struct candidate *best,
                                struct simt_gemm_result *out)
{
    if (!ctx->serial_reduce_kernel || best->split < 2 || best->gemv)
        return 0;
    char line[SIMT_GEMM_ASSUMPTION_BYTES];
    snprintf(line, sizeof line,
             "split-K %d: K cut across %d blocks per output tile, one per SM (cuBLAS's FP64 split for "
             "products of under 2^22 flops with K >= 1000, m >= 17, n >= 16, seen on an H200); a second "
             "kernel, one block per output tile, adds the pieces one after another, a DRAM latency "
             "(%.3g s) each",
             best->split, best->split, ctx->serial_piece_s);
    append(out, line);
    return 1;
}
