/* gemm_fp64u.c - cuBLAS's FP64 kernels for short K (32 to 128) when n or
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
 * square DMMA tiles: 12.9%, 38.2%). Outside the sizes seen (m of 1000 and
 * more, n of 500 and more, K of 32 to 128) gemm.c's tiles price it; other
 * GPUs (their cuBLAS not seen) too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"

#define FP64U_MIN_M 1000
#define FP64U_MIN_N 500
#define FP64U_MIN_K 32
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

int simt_gemm_fp64u_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP64 &&
           !req->sparse && req->batch == 1 && (req->n % 2 != 0 || req->k % 2 != 0) && req->m >= FP64U_MIN_M &&
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

void simt_gemm_fp64u_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                           const struct shape_context *ctx, double sm_flops_per_s, struct candidate *c)
{
    if (!simt_gemm_fp64u_runs(gpu, req) || !(sm_flops_per_s > 0.0) || ctx->sm_count < 1 ||
        !(ctx->dram_write_bytes_per_s > 0.0) || !(ctx->dram_latency_s > 0.0))
        return;
    struct candidate d884 = *c, sm90 = *c;
    price(ctx, req, sm_flops_per_s, FP64U_D884, &d884);
    price(ctx, req, sm_flops_per_s, FP64U_SM90, &sm90);
    *c = req->k <= FP64U_D884_ONLY_K || d884.time_s <= sm90.time_s ? d884 : sm90;
}

int simt_gemm_fp64u_line(const struct candidate *c, char *buf, size_t size)
{
    if (c->fp64u < 1)
        return 0;
    const struct fp64u_kernel *kernel = &fp64u_kernels[c->fp64u - 1];
    snprintf(
        buf, size,
        "kernel: cuBLAS's %s for FP64 of odd n or K at K of 32 to 128 (kernel names, on an H200): an SM's "
        "tiles one after another, each %.2f DRAM latencies of first loads, its math at %.2f of the FP64 "
        "tensor rate, then its C at the SM's share of the DRAM write rate (fitted on an H200)",
        kernel->name, kernel->latencies, kernel->rate_fraction);
    return 1;
}
