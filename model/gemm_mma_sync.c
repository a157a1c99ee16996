/* gemm_mma_sync.c - the Ampere-generation mma.sync kernels cuBLAS runs for
 * int8 on Hopper (torch._int_mm: cutlass_80_tensorop_i16832gemm_s8_MxN_KxS)
 * when several of their blocks share an SM: how many are resident at once
 * (the occupancy model, from the shared memory their stages take), and the
 * time of their blocks dealt out in rounds of that many per SM. Pure.
 *
 * The data: tests/gpu/results/h200/gemm_probe_wide.json, gemm_probe_choice
 * .json, gemm_probe_small.json and gemm_probe.json (fit data). Every int8
 * kernel there launches blocks of 128 threads (block [128, 1, 1]) and one
 * block per output tile (grid x * y = the tiles, z = 1): 448 blocks of the
 * 128x64_128x3 kernel for 64x57344x4096 and 128x28672x4096, 384 for
 * 128x24576x4096, 256 for 64x32768x4096. A stage of the kernel named
 * MxN_KxS holds an M x K tile of one operand and an N x K tile of the other,
 * one byte an element (s8): (M + N) * K bytes, S of them in shared memory
 * (CUTLASS include/cutlass/gemm/threadblock/mma_multistage.h allocates
 * kStages stages of both operand tiles; its epilogue reuses that memory).
 * The 128x64_128x3 kernel takes 72 KiB, so an H200's SM (228 KiB) holds
 * three of its blocks, and 448 blocks run as one round of 396 and a second
 * of 52; 128x128_128x5 takes 160 KiB, one block an SM. The probe files
 * carry no register counts: registers are taken as no limit (128 threads a
 * block leave 128 registers a thread for three blocks, and CUTLASS's 64x32
 * warp tile holds 64 int32 accumulators a thread; a profiler run on the
 * device, or cuobjdump --dump-resource-usage on libcublasLt, would say).
 *
 * Stages in flight: CUTLASS's multistage mainloop (mma_multistage.h,
 * gemm_iters) issues the next stage's cp.async copies during the warp-level
 * MMAs of the current one, and at its second-to-last warp MMA (warp_mma_k +
 * 2 == kWarpGemmIterations) commits them (cp_async_fence) and at once waits
 * with cp_async_wait<kStages - 2> for the stage it computes next: a stage
 * has S - 2 iterations from its commit to its wait, so a block that its
 * loads bind draws S - 2 stages per load (the memory latency plus the
 * stage's bytes at the SM's share of the L2 bandwidth, as gemm_stream.c
 * prices a load), plus what the shares of a stage issued before its
 * commit add (below); with S = 2 nothing is in flight while it computes. Seen
 * on an H200: the 128x64_128x3 kernel, one block an SM (128 blocks,
 * 128x8192 at K = 2048 to 6144), takes 0.61 to 0.65 us a stage; one load
 * is 0.34 us + 24 KiB at 64 GB/s = 0.72 us: 1.19 stages in flight give
 * 0.61 us, one 0.72, two 0.36.
 *
 * A round of b blocks on P SMs: each busy SM holds ceil(b / P) of them,
 * which share its tensor cores (their math adds) and its intake from L2
 * (their loads in flight add; the SM takes no more than its share), and
 * the round's blocks read their share of the DRAM traffic. A round lasts
 * as long as the slowest of the three, and the next starts when it ends: a
 * last round of few blocks runs at their own pace, DRAM idle but for them,
 * where the one-tile-per-SM waves would hide it under the whole kernel's
 * DRAM time. Each round pays its first loads and last stores (the fill).
 *
 * A block's own chain. An SM has four sub-partitions, each with its own
 * warp scheduler and tensor core (NVIDIA H100 Tensor Core GPU Architecture
 * whitepaper, the SM figure); a block of 128 threads puts one warp on
 * each. A tensor core takes its next MMA from the same warp when that
 * warp has an independent one ready, or from another warp on the same
 * sub-partition (NVIDIA developer forum, "How many tensor cores to execute
 * the wmma.mma.sync ... m16n16k16 instruction?", answer 2): where a warp
 * is alone there, whatever it waits for between its K steps (a step is one
 * mma.sync K of 32 bytes: its fragments from shared memory, the MMAs of
 * the step before on the same accumulators) is time its tensor core
 * idles. So a block alone on its SM takes at least its MMAs at the tensor
 * core's full rate (the int8 figure) plus a fixed time a warp K step; with
 * two blocks or more an SM, the other warps' MMAs fill it, and the SM's
 * mma.sync rate (the fallback fraction of the figure) binds as before.
 * Seen on an H200 (gemm_probe_classes.json, group int8, 60 shapes of 1 to
 * 64 blocks, all 64x64_128x6, fit data): 0.2535 us a 128-deep stage (the
 * median of the 20 shapes' slopes from K = 4096 to 12288, 0.242 to 0.257,
 * the same warm and cold, so neither DRAM nor L2 latency sets it: 4.2
 * stages in flight draw a stage every 0.08 us), flat in m and n, and 65.2
 * us for 256 stages of one block (32x32x32768, gemm_probe_splitk.json):
 * 125 cycles a warp K step, of which its 8 MMAs (a 32x32 warp tile) at
 * the full rate take 51; the rest, 75 cycles, is the fitted exposed time.
 * Checked on the other tiles: 128x128_128x5 (a 64x64 warp tile, 32 MMAs a
 * step), 64 blocks at K = 16384 to 28672 (gemm_probe_small.json), 0.557 us
 * a stage, the chain 0.562 and the SM's mma.sync rate 0.563; our 64x128
 * (their 128x64_128x3, 16 MMAs a step) in part rounds of 4 blocks, 0.34 us
 * a stage (gemm_skinny.c), the chain 0.356. Their 128x256_128x3 (our
 * 256x128) runs 256 threads (block [256, 1, 1], int8 4096^3,
 * gemm_kernels.json): two warps a sub-partition, whose MMAs fill each
 * other's waits. Registers (95, 150, 234 and 230 a thread, in the same
 * files since) never hold fewer blocks than the shared memory does. */
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_internal.h"
#include "occupancy.h"

/* Threads of a block of the int8 mma.sync kernels (block [128, 1, 1]),
 * and of the widest, our 256x128 (block [256, 1, 1]). */
#define MMA_SYNC_BLOCK_THREADS 128
#define MMA_SYNC_WIDE_BLOCK_THREADS 256
#define MMA_SYNC_WIDE_TILE_ELEMENTS (256 * 128)
/* Warps an SM sub-partition runs (its scheduler and tensor core). */
#define MMA_SYNC_SUBPARTITIONS 4
/* K of one warp-level MMA, in bytes: i16832 is mma.sync m16n8k32, 32
 * int8 elements (PTX ISA, mma.sync shapes for .s8). */
#define MMA_SYNC_INSTRUCTION_K_BYTES 32.0
/* Cycles a warp K step leaves exposed when its warp is alone on its
 * sub-partition (above): fitted to the lone blocks of 64x64_128x6 */
#define MMA_SYNC_WARP_STEP_CYCLES 75.0

static int block_threads(const struct tile_shape *tile)
{
    return tile->m * tile->n >= MMA_SYNC_WIDE_TILE_ELEMENTS ? MMA_SYNC_WIDE_BLOCK_THREADS
                                                            : MMA_SYNC_BLOCK_THREADS;
}

int simt_gemm_mma_sync_resident(const struct simt_gpu_spec *gpu, const struct tile_shape *tile, int tile_k,
                                double element_bytes)
{
    if (gpu == NULL || tile->stages < 1)
        return 1;
    struct simt_occupancy_request req;
    simt_occupancy_request_init(&req);
    req.block_size = block_threads(tile);
    req.registers_per_thread = 0; /* not known: no limit (above) */
    req.dynamic_shared_bytes =
        (int64_t)ceil((double)tile->stages * (double)(tile->m + tile->n) * (double)tile_k * element_bytes);
    struct simt_occupancy_result occ;
    if (simt_occupancy_compute(gpu, &req, &occ, NULL) != SIMT_OK || occ.active_blocks_per_sm < 1)
        return 1;
    return occ.active_blocks_per_sm;
}

void simt_gemm_mma_sync_setup(const struct simt_gpu_spec *gpu, double latency_s, double clock_hz,
                              double issue_share, struct shape_context *ctx)
{
    ctx->resident_gpu = gpu;
    ctx->resident_latency_s = latency_s;
    ctx->resident_issue_share = issue_share > 0.0 ? issue_share : 0.0;
    ctx->resident_step_s = clock_hz > 0.0 ? MMA_SYNC_WARP_STEP_CYCLES / clock_hz : 0.0;
}

/* One block's chain of warp K steps (above): a warp's MMAs at the full
 * rate (the block's over its warps a sub-partition), plus the exposed time
 * of each step. */
static double block_chain_s(const struct shape_context *ctx, const struct tile_shape *tile, int64_t k_tiles,
                            double tile_k_bytes, double math_s)
{
    double steps = (double)k_tiles * ceil(tile_k_bytes / MMA_SYNC_INSTRUCTION_K_BYTES);
    double warps_per_subpartition = (double)block_threads(tile) / 32.0 / MMA_SYNC_SUBPARTITIONS;
    return math_s * ctx->resident_issue_share / warps_per_subpartition + steps * ctx->resident_step_s;
}

/* Stages a block keeps in flight: S - 2 from commit to wait, and the
 * shares of a stage issued at the warp MMAs before its commit earlier
 * still: share i of W at the MMA i (i < W - 1, the last two at W - 2) has
 * (W - 2 - i) / W of an iteration more, (W - 2)(W - 1) / (2 W^2) on the
 * average. */
static double stages_in_flight(const struct tile_shape *tile, double tile_k_bytes)
{
    double w = tile_k_bytes / MMA_SYNC_INSTRUCTION_K_BYTES;
    if (w < 2.0)
        w = 2.0;
    return (double)(tile->stages - 2) + (w - 2.0) * (w - 1.0) / (2.0 * w * w);
}

/* What one block of the candidate does. */
struct block_work {
    double tile_k_bytes;
    double math_s;  /* its math at the rate it is priced at */
    double chain_s; /* its warps' chain of K steps (block_chain_s) */
    double tile_bytes;
    double stage_bytes;
    double dram_s;    /* its share of the DRAM reads */
    double fed_bytes; /* operand bytes all the candidate's blocks load */
};

/* One round of `blocks` blocks: the busiest SM's time. */
static double round_time(const struct shape_context *ctx, const struct tile_shape *tile,
                         const struct block_work *w, int64_t blocks, int *queued)
{
    double tile_k_bytes = w->tile_k_bytes, math_s = w->math_s, tile_bytes = w->tile_bytes;
    double stage_bytes = w->stage_bytes, dram_per_block_s = w->dram_s, fed_bytes = w->fed_bytes;
    int64_t sms = blocks < ctx->sm_count ? blocks : ctx->sm_count;
    double per_sm = ceil((double)blocks / (double)ctx->sm_count);
    double share = ctx->l2_bytes_per_s > 0.0 ? ctx->l2_bytes_per_s / (double)sms : HUGE_VAL;
    double transfer_s = isinf(share) ? 0.0 : stage_bytes / share;
    /* the DRAM part of the round's loads in flight queues ahead of each
     * (gemm_skinny.c), in parallel with its transfer from L2 */
    double queue_s = (double)blocks / (double)sms *
                     (tile->stages > 2 ? stages_in_flight(tile, tile_k_bytes) : 1.0) * stage_bytes *
                     simt_gemm_dram_queue_s_per_byte(ctx, (double)sms, fed_bytes);
    *queued = queue_s > transfer_s;
    if (queue_s > transfer_s)
        transfer_s = queue_s;
    double latency_s = ctx->resident_latency_s > 0.0 ? ctx->resident_latency_s : 0.0;
    double load_s = latency_s + transfer_s;
    double t = per_sm * math_s;
    if (w->chain_s > t) /* few blocks an SM: their warps' own chains bind */
        t = w->chain_s;
    if (tile->stages < 3) {
        /* no stage in flight while one is waited for: each load, then its math */
        double k_stages = tile_bytes / stage_bytes;
        double serial_s = per_sm * (math_s + k_stages * load_s);
        return serial_s > t ? serial_s : t;
    }
    double intake =
        load_s > 0.0 ? per_sm * stages_in_flight(tile, tile_k_bytes) * stage_bytes / load_s : HUGE_VAL;
    if (share < intake)
        intake = share;
    double feed_s = isinf(intake) ? 0.0 : per_sm * tile_bytes / intake;
    if (feed_s > t)
        t = feed_s;
    double dram_s = (double)blocks * dram_per_block_s;
    return dram_s > t ? dram_s : t;
}

int simt_gemm_mma_sync_rounds(const struct shape_context *ctx, const struct candidate *c, double *busy,
                              double *rounds)
{
    const struct simt_gemm_request *req = ctx->req;
    const struct tile_shape *tile = c->tile;
    if (ctx->resident_gpu == NULL || tile == NULL || tile->stages < 1 || c->split != 1 || c->stream_k ||
        c->gemv || c->small_n || c->tiles < 1 || c->tile_k < 1)
        return 0;
    if (!simt_gemm_int8_runs_tile_on(req, tile, (int)ctx->sm_count)) {
        *busy = HUGE_VAL; /* not among cuBLAS's kernels for this shape: never chosen */
        *rounds = 1.0;
        return 1;
    }
    int resident = simt_gemm_mma_sync_resident(ctx->resident_gpu, tile, c->tile_k, ctx->element_bytes);
    /* the candidate's math per block, as it was priced over its waves of
     * one block per SM */
    double waves = ceil((double)c->tiles / (double)ctx->sm_count);
    double math_s = c->compute_s / waves;
    int64_t k_tiles = (req->k + c->tile_k - 1) / c->tile_k;
    double rows = (double)(req->m < tile->m ? req->m : tile->m);
    double cols = (double)(req->n < tile->n ? req->n : tile->n);
    double stage_bytes = (rows * ctx->a_weight + cols) * (double)c->tile_k * ctx->element_bytes;
    double tile_bytes = stage_bytes * (double)k_tiles;
    int64_t slots = (int64_t)resident * ctx->sm_count;
    int64_t full = c->tiles / slots, rest = c->tiles % slots;
    struct block_work w;
    w.tile_k_bytes = (double)c->tile_k * ctx->element_bytes;
    w.math_s = math_s;
    w.chain_s = block_chain_s(ctx, tile, k_tiles, w.tile_k_bytes, math_s);
    w.tile_bytes = tile_bytes;
    w.stage_bytes = stage_bytes;
    w.dram_s = c->dram_read_s / (double)c->tiles;
    w.fed_bytes = tile_bytes * (double)c->tiles;
    int queued = 0, rest_queued = 0;
    double total = full > 0 ? (double)full * round_time(ctx, tile, &w, slots, &queued) : 0.0;
    if (rest > 0)
        total += round_time(ctx, tile, &w, rest, full > 0 ? &rest_queued : &queued);
    *busy = total;
    *rounds = (double)full + (rest > 0 ? 1.0 : 0.0);
    return queued ? 2 : 1;
}
