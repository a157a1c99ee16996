/* gemm_skinny.c - the DRAM queue that a GEMM's operand loads wait in when
 * DRAM, not L2, supplies most of what they carry: skinny GEMMs (few rows
 * against a wide weight, or few columns against a tall A) stream their
 * large operand once, so nearly every byte an SM has in flight is a DRAM
 * read, and the chip's loads in flight queue at DRAM's rate. Pure.
 *
 * Little's law, closed loop: the SMs keep N bytes in flight (each SM its
 * stages in flight, all of them over the busy SMs); a load returns after
 * the memory latency L plus the time the DRAM takes to serve what is queued
 * ahead of it, N / B for the DRAM part of N at DRAM's read rate B; so the
 * chip reads N / (L + N / B), which is B only when N is much more than
 * L x B. A pipeline that keeps few stages in flight per SM (cuBLAS's wide
 * tiles of two or three stages, the Ampere-generation cp.async kernels of
 * int8 with S - 2) reads below DRAM's rate even when every SM is busy: its
 * next load is issued only when one returns. Large GEMMs are untouched: L2
 * serves almost all of their operand bytes (each A and B tile is read by
 * many blocks), so little of what is in flight waits for DRAM.
 *
 * Where it applies: the kernels whose stages in flight and blocks an SM
 * are known (gemm_stream.c's 448-wide tile, one block an SM; int8's
 * mma.sync kernels, priced in rounds of their resident blocks,
 * gemm_mma_sync.c). The fitted depth of the other tiles (gemm.c,
 * IN_FLIGHT_STAGES) was fitted to measured times and has the queue in it
 * already; the tf32 mma.sync tiles, priced one block an SM though two are
 * resident, would count half their bytes in flight.
 *
 * The evidence, fit and probe data only (tests/gpu/results/h200/): the
 * int8 kernel cutlass_80_tensorop_i16832gemm_s8_128x64_128x3 (1.19 stages
 * of 24 KiB in flight a block, 16 KiB of each the weight) runs 64x32768x4096
 * (256 blocks, gemm_probe_choice.json) in 39.2 us under the profiler, 3.4
 * TB/s of DRAM: 4.9 MB in flight over 0.34 us + 4.9 MB / 4.61 TB/s gives
 * 3.5 TB/s where DRAM's rate alone gave 29 us. Back to back (gemm.json),
 * int8 32x8192x8192 and 64x8192x8192 were 20% and 12% too fast, 3% and 4%
 * too slow with the queue. nvjet_sm90_tst_448x64_64x2 in 2x1 clusters
 * (bf16 and fp16 64x57344x8192, gemm_probe_skinny.json: one 64-row tile a
 * block, one 64 KiB stage in flight, 0.876 of it the weight) takes 2.2 us
 * a stage on 128 SMs (282 us for 128 stages); L2's share alone gives 1.36
 * us, the queue 0.34 + 7.3 MB / 4.61 TB/s = 1.93 us; K from 4096 to 16384
 * there (gemm_probe_skinny_rounds.json, measured after the rule was set)
 * adds 1.97 us a stage, the model 1.94. With 1x2 clusters
 * sharing the weight (m = 128) half as much waits and L2's share binds, as
 * before (1.55 us measured, 1.36). ncu on int8 64x57344x4096
 * (tests/gpu/results/h200/ncu_skinny/): DRAM at 54% of its peak, the warps
 * stalled on L1TEX scoreboard waits for 48% of their cycles, 3 blocks an
 * SM (150 registers, 72 KiB of shared memory each); its second round, 52
 * blocks on 52 SMs, leaves the others idle (SM active 62% of the cycles),
 * which the rounds price (still 19% too fast there: not explained). At
 * whole rounds ncu reads DRAM at 80% (400 blocks) and 84% (792 blocks) of
 * its peak, and the model is within 2% and 3% (gemm_probe_skinny_rounds
 * .json); a part round of 84 to 198 blocks alone costs 31 to 34 us, more
 * than the queue gives one block an SM (the model 15% too fast at 480
 * blocks).
 *
 * Not priced yet, what gemm_probe_skinny2.json and ncu_skinny2/ add (fit
 * data): the part round's blocks are dealt one to an SM (ncu at 480
 * blocks: 3 to 4 blocks launched on each SM, sm__ctas_launched min and
 * max), not packed three to an SM; its cost is in proportion to the K
 * loop (84 and 198 blocks: 15 and 16 us at K = 2048, 32 and 34 us at K =
 * 4096), so it is a pace a stage; and that pace rises with the part
 * round's blocks and then holds: 0.34 us a stage for 4 blocks (a lone
 * block's DRAM latency over its 1.19 stages in flight, as priced), 0.61
 * for 20, 0.77 for 40, 1.0 for 60 to 198, while DRAM carries 1 to 3
 * TB/s, so neither the queue (which grows with the bytes) nor DRAM's rate
 * explains it. With m = 128 (each weight panel read by two blocks, the
 * second from L2) the same part rounds take half as long (0.46 us a stage
 * for 116 blocks). Treating the part round as packed (3 blocks on a third
 * of the SMs) or adding the spread of a stage's DRAM granules (tRC H(n),
 * as kernel_cost.c) to every load were tried and rejected: the first
 * makes m = 128 28% too slow, the second whole rounds 9-14% too slow.
 *
 * Write-backs: a single call's fills evict earlier work's dirty lines.
 * Where loads wait in the DRAM queue (below DRAM's rate) the write-backs
 * share DRAM with them and DRAM's time for all the traffic bounds the
 * kernel (gemm_cost.c); where L2's transfer binds, each fill still waits
 * behind its victim (gemm_stream.c). */
#include "gemm.h"
#include "gemm_internal.h"

/* The share of the operand bytes fed to the SMs that DRAM supplies: A
 * and B read once over what all the blocks' tiles load, at most 1. */
static double dram_share_of_feed(const struct shape_context *ctx, double fed_bytes)
{
    const struct simt_gemm_request *req = ctx->req;
    double read = (double)req->batch *
                  ((double)req->m * (double)req->k * ctx->a_weight + (double)req->k * (double)req->n) *
                  ctx->element_bytes;
    double share = read / fed_bytes;
    return share < 1.0 ? share : 1.0;
}

double simt_gemm_dram_queue_s_per_byte(const struct shape_context *ctx, double active_sms, double fed_bytes)
{
    if (!(ctx->dram_queue_bytes_per_s > 0.0) || !(fed_bytes > 0.0) || !(active_sms > 0.0))
        return 0.0;
    return active_sms * dram_share_of_feed(ctx, fed_bytes) / ctx->dram_queue_bytes_per_s;
}

/* cuBLAS's FP32 FMA kernels for 17 to 32 rows against a wide B: the
 * 32-row tile (sm80_xmma_gemm_f32f32 ..._tilesize32x128x8) while its
 * tiles are few, the 64-row one (tilesize64x128x8) once they are many,
 * half its rows idle. Seen on an H200 at K = 8192
 * (gemm_probe_skinny2.json, gemm_probe_skinny.json): m = 24 and 32 ran
 * 32x128 (split 7) at n = 16384 and 32768 (128 and 256 tiles, 0.97 and
 * 1.94 a SM) and 64x128 (split 4) at n = 49152 and 65536 (384 and 512
 * tiles, 2.91 and 3.88 a SM), in the time m = 40 and 48 take there (1093
 * against 1095 us, 1455 against 1422 us); m = 16 ran 32x128 at n = 57344
 * too (ncu_skinny/), so 17 rows on. The switch, somewhere between 1.94 and
 * 2.91 32-row tiles a SM, is taken at 2.4. K from 1024 on: the split
 * kernels' range (shorter K runs gemm_shortk.c's kernels). */
#define FMA_SKINNY_MIN_M 17
#define FMA_SKINNY_MAX_M 32
#define FMA_SKINNY_MIN_K 1024
#define FMA_SKINNY_TILES_PER_SM 2.4

int simt_gemm_fma_skinny_runs_tile(const struct shape_context *ctx, const struct tile_shape *tile)
{
    const struct simt_gemm_request *req = ctx->req;
    if (!ctx->fma_skinny_rows || tile == NULL || req->dtype != SIMT_DTYPE_FP32 || tile->m >= 64 ||
        req->m < FMA_SKINNY_MIN_M || req->m > FMA_SKINNY_MAX_M || req->k < FMA_SKINNY_MIN_K ||
        ctx->sm_count < 1)
        return 1;
    double tiles = (double)((req->n + 127) / 128) * (double)req->batch;
    return tiles < FMA_SKINNY_TILES_PER_SM * (double)ctx->sm_count;
}
