/* gemm_k1.c - cuBLAS's outer-product kernel for FP64 at K = 1: no K loop,
 * no pipeline, no tensor cores; each block loads a strip of A and one of B
 * and writes its 32x32 piece of C. What it costs is C's write at DRAM's
 * write rate behind a fixed cost far below the tile kernels'. Pure.
 *
 * Seen on an H200 (cuBLAS 13.1 through PyTorch 2.11; tests/gpu/results/
 * h200/gemm_probe_classes.json and gemm_probe_fp64.json, fit data): every
 * fp64 product with K = 1 of m = 17 to 16384 by n = 14 to 8192 ran
 * gemmk1_kernel<int, double, 256, 5, ...> alone, a grid of [ceil(n / 32),
 * ceil(m / 32)] blocks of 256 threads (28 registers, 2 KiB of shared
 * memory: the SM's threads, eight blocks, bound its residency). Single
 * calls (a sleep kernel, an L2 flush, events around one call):
 *  - small outputs (up to 4096 x 14, 300 x 146): 3.81 to 4.13 us, flat in
 *    the output, 1.1 to 1.4 us beyond the launch overhead figure (2.72 us,
 *    an empty kernel timed the same way). /v1/kernel prices a kernel of
 *    one store a thread at 2.90 us there; the tile kernels' price is the
 *    launch, SINGLE_KERNEL_FLOOR_S (1.6 us: TMA descriptors, pipeline
 *    barriers and instructions set up cold) and two DRAM latencies a wave,
 *    5.1 to 5.3 us, 20 to 44% slow on every K = 1 row;
 *  - large outputs run at DRAM's write rate: 16384 x 1000 (131 MB of C)
 *    33.6 us, 4096^2 32.5 us, 8192^2 (537 MB) 118 us, 4.2 to 4.6 TB/s
 *    beyond the launch (the record's write figure: 4.34 TB/s).
 * So the price: the launch overhead, three DRAM latencies in a chain (the
 * kernel's parameters and first instructions fetched after the flush, its
 * loads of A and B, its last stores of C; ESTIMATE: no kernel of that
 * chain timed apart; 3.75 us on an H200 against 3.81 to 4.13 measured),
 * and the DRAM traffic (C written, A and B read, the dirty lines a single
 * call evicts: gemm_cost.c), nothing hidden under anything: the blocks are
 * short and many (eight an SM), so C streams out at DRAM's write rate
 * from the first loads to the last stores. Its m*n multiply-adds, one per
 * output element stored, are not priced. Back-to-back calls pay the gap
 * between GEMM kernels (KERNEL_FLOOR_S) and two latencies, as the tile
 * kernels do: no back-to-back K = 1 call was timed.
 *
 * Where: NVIDIA compute capability 9 (the only one seen), fp64, K = 1, any
 * output but a single element, one product (batch 1, the only one seen).
 * An H100 SXM (the same die and cuBLAS; tests/gpu/results/h100/
 * gemm_probe_k1edge.json, fit data, 2026-12-07) ran gemmk1_kernel alone
 * for every fp64 K = 1 product of m and n from 1 to 8192 but 1 x 1 x 1
 * (a GEMV and a split-K reduction, 5.9 us): 1 x 2, 13 x 13, 2 x 8192,
 * 8192 x 1 in 3.87 to 4.35 us, as its larger outputs; at K = 2 it ran
 * a GEMV (m or n of 1), gemmSN, a cutlass or an sm90_xmma tile kernel,
 * never gemmk1. Not other types: at K = 1 fp16 and
 * bf16 ran cutlass_75 s1688 align1 tile kernels, fp32 and tf32
 * simt_sgemm_128x32 (gemm_probe_tiny.json, gemm_tiny.c). */
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "gemm_internal.h"

#define K1_THREADS 256

/* The output piece one block writes (32 x 32 elements). */
static const struct tile_shape k1_tile = {32, 32, 0};

int simt_gemm_k1_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP64 &&
           !req->sparse && req->k == 1 && req->batch == 1 && (req->m > 1 || req->n > 1);
}

void simt_gemm_k1_try(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                      struct shape_context *ctx, struct candidate *best)
{
    if (!simt_gemm_k1_runs(gpu, req))
        return;
    struct candidate c;
    memset(&c, 0, sizeof c);
    c.tile = &k1_tile;
    c.tile_k = 1;
    c.split = 1;
    c.tiles = (req->m + k1_tile.m - 1) / k1_tile.m * ((req->n + k1_tile.n - 1) / k1_tile.n);
    int per_sm = gpu->max_threads_per_sm / K1_THREADS;
    double resident = (double)(per_sm > 1 ? per_sm : 1) * (double)gpu->sm_count;
    c.waves = (double)c.tiles / resident;
    simt_gemm_dram_traffic(ctx, &c);
    /* the chain: parameters and instructions, A and B, C's last stores
     * (ctx->fill_s is the last two); back to back, the kernels' gap */
    double first = req->launches == SIMT_GEMM_LAUNCH_BACK_TO_BACK ? ctx->floor_s : ctx->dram_latency_s;
    c.overhead_s = ctx->launch_s + first + ctx->fill_s;
    c.time_s = c.overhead_s + c.dram_s;
    *best = c;
    ctx->outer_product = 1;
}

int simt_gemm_k1_line(const struct shape_context *ctx, char *buf, size_t size)
{
    if (!ctx->outer_product)
        return 0;
    if (ctx->req->launches == SIMT_GEMM_LAUNCH_BACK_TO_BACK)
        snprintf(buf, size,
                 "kernel: cuBLAS's fp64 K = 1 outer-product kernel (gemmk1_kernel, seen on Hopper), "
                 "no K loop, a block of %d threads per 32x32 of C: C written once at DRAM's write rate, "
                 "A and B read once, after the gap between back-to-back GEMM kernels (%.3g s) and two DRAM "
                 "latencies (%.3g s) for the first loads and the last stores",
                 K1_THREADS, ctx->floor_s, ctx->fill_s);
    else
        snprintf(buf, size,
                 "kernel: cuBLAS's fp64 K = 1 outer-product kernel (gemmk1_kernel, seen on Hopper), "
                 "no K loop, a block of %d threads per 32x32 of C: C written once at DRAM's write rate, "
                 "A and B read once, after the launch overhead (%.3g s) and three DRAM latencies in a chain "
                 "(%.3g s: code fetched cold, A's and B's loads, C's last stores); no tile "
                 "kernel's prologue, epilogue or waves",
                 K1_THREADS, ctx->launch_s, ctx->dram_latency_s + ctx->fill_s);
    return 1;
}
