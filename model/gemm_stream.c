/* gemm_stream.c - skinny GEMMs that stream a wide weight once (m <= 128,
 * B of n columns read once): the tile cuBLAS's Hopper kernels (nvjet)
 * choose for them, and how fast a pipeline of few K stages draws its
 * operands (Little's law with each stage's own transfer time). Pure.
 *
 * The data: tests/gpu/results/h200/gemm_probe_wide.json, gemm_probe_choice
 * .json, gemm_probe_small.json and gemm_probe.json (fit rows only). For
 * 16-bit m = 128 the kernel's tile follows the output: cuBLAS takes the
 * tile that fills the SMs best, either one 128-row tile 128, 192, 256 or
 * 320 columns wide (nvjet_sm90_tst_128x128_64x6, 192x128_64x5,
 * 256x128_64x4, 320x128_64x3; cuBLAS's M x N is our n x m) or a cluster of
 * two 64-row tiles 192, 320 or 448 columns wide sharing B (192x64_64x6,
 * 320x64_64x4, 448x64_64x2 with a 1x2 cluster). Fill: output tiles over
 * whole rounds of the SMs' count. Seen for n = 12288 (192x64), 14336,
 * 16384 (128x128), 18432, 20480 (320x64), 22528, 24576, 43008 (192x128),
 * 26624, 28672, 53248, 57344 (448x64), 30720, 32768 (256x128), 36864 and
 * 40960 (320x128): the fullest wave every time, ties to the 128-row tile
 * and then the wider one, the pairs of 64-row tiles taken only up to two
 * rounds (36864 would fill 0.97 with 384 tiles of 64x192; it ran 320x128,
 * 0.88). With m of 112 or less cuBLAS runs one tile as tall as m (256x112,
 * 256x96, 256x80, 256x64, 256x48), and fp8 none of the 448-wide tile
 * (112x128_128x7, 320x64_128x4, 160x64_128x7): it runs for fp16 and bf16
 * only.
 *
 * The 448x64 tile is the one whose time the tile list of gemm.c misses:
 * its stage of K (64 deep, 2 bytes) is (64 + 448) * 64 * 2 = 64 KiB, so
 * shared memory (227 KiB a block) holds 2 stages and an epilogue, and the
 * kernel runs at about half DRAM's rate: 1.55 us per stage whatever the
 * number of busy SMs (120, 128 or 132 blocks; K from 1024 to 16384 at
 * n = 28672: 29.8, 53.3, 103.2, 152.1, 200.1 and 398.2 us, a line of slope
 * 1.55 us per stage). A pipeline of S stages keeps S - 1 loads in flight:
 * so does CUTLASS's warp-specialized mainloop (NVIDIA/cutlass, include/
 * cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp, mma():
 * after issuing the MMA on a stage it waits with warpgroup_wait<K_PIPE_MMAS>
 * for the one before and only then calls consumer_release on that stage,
 * which producer_acquire waits for before the next TMA load into it; nvjet's
 * source is not public, the pattern is taken to be the same). Each load
 * takes one memory latency and then its bytes at the SM's share of the
 * L2's bandwidth (every SM receives the whole stage: a TMA multicast saves
 * L2 reads, not the SM's intake). Little's law: an
 * SM draws S - 1 stages per (latency + stage bytes / share). With S = 2 on
 * an H200: 0.34 us + 64 KiB / 64 GB/s = 1.36 us per stage, the measured
 * 1.55 within 12%. Deeper pipelines keep more loads in flight and the
 * share binds first, as before.
 *
 * A single call after other work also finds that work's dirty lines in
 * L2 (model/l2_state.h), and its fills evict them. Where DRAM's rate binds
 * the write-backs share it (gemm_cost.c prices them with the traffic);
 * where a shallow pipeline's loads bind, each fill waits behind the victim
 * it writes back, so their time adds (gemm_cost.c, simt_gemm_finish, for
 * tiles of known depth). At 128x28672, K = 4096: one call takes 112.6 us,
 * the kernel alone back to back 103.2 us and the launch 2.7 us, so about 7
 * us more than launch and kernel, as for the DRAM-bound 128x20480 (320x64
 * tile: 51.7 against 42.4 + 2.7 us) and as reads after a 256 MiB write
 * pay 6 to 10 us (tests/gpu/results/h200/kmemory_probe.json). */
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"

/* The stage of the 448-wide tile: cuBLAS's kernel name gives 2 (on Hopper,
 * 227 KiB of shared memory a block). */
static const struct tile_shape stream_tile = {64, 448, 2};

/* cuBLAS's tiles for a 128-row output, our m x n, as in the names above.
 * A 64-row tile runs in a cluster of two along m. */
static const int wide_rows_widths[] = {128, 192, 256, 320};
static const int paired_rows_widths[] = {192, 320, 448};
#define STREAM_ROWS 128
#define STREAM_MIN_M 113 /* m of 112 and less run one tile as tall as m */
#define PAIRED_MAX_ROUNDS 2
/* m of 33 to 64: one 64-row tile of these widths, its clusters of two along
 * n (2x1, sharing A, not B): 448 wide at n = 57344, 320 at 40960, 256 at
 * 28672 (and m = 48), 128 at 16384 (gemm_probe_skinny.json, gemm_probe_wide
 * .json, gemm_probe_choice.json, gemm_probe_small.json; m of 32 and less
 * run tiles 8, 16 or 32 rows tall, none 448 wide) */
static const int single_row_widths[] = {128, 256, 320, 448};
#define SINGLE_ROW_MIN_M 33
#define SINGLE_ROW_M 64

/* Output tiles over whole rounds of sm_count: how full its waves are. */
static double fill(int64_t tiles, int sm_count)
{
    int64_t rounds = (tiles + sm_count - 1) / sm_count;
    return (double)tiles / (double)(rounds * sm_count);
}

/* m of 33 to 64: 1 when the 448-wide tile (the last width) fills the SMs
 * better than every narrower one (a tie, as for n of one tile, keeps the
 * narrower). */
static int single_row_runs_wide(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    size_t widths = sizeof single_row_widths / sizeof single_row_widths[0];
    double best = 0.0;
    for (size_t i = 0; i + 1 < widths; i++) {
        double f = fill((req->n + single_row_widths[i] - 1) / single_row_widths[i], gpu->sm_count);
        if (f > best)
            best = f;
    }
    return fill((req->n + stream_tile.n - 1) / stream_tile.n, gpu->sm_count) > best;
}

int simt_gemm_stream_shares_b(const struct simt_gemm_request *req)
{
    return req->m > SINGLE_ROW_M;
}

int simt_gemm_stream_tile(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int async_mma,
                          const struct tile_shape **tiles, size_t *count)
{
    if (!async_mma || gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major != 9 || req->sparse ||
        (req->dtype != SIMT_DTYPE_FP16 && req->dtype != SIMT_DTYPE_BF16) || req->m < SINGLE_ROW_MIN_M ||
        req->m > STREAM_ROWS || (req->m > SINGLE_ROW_M && req->m < STREAM_MIN_M) || req->batch != 1 ||
        req->k % 8 != 0 || req->n % 8 != 0 || gpu->sm_count < 1)
        return 0;
    if (req->m <= SINGLE_ROW_M) {
        if (!single_row_runs_wide(gpu, req))
            return 0;
        *tiles = &stream_tile;
        *count = 1;
        return 1;
    }
    double best = 0.0;
    int best_paired = 0, best_width = 0;
    for (size_t i = 0; i < sizeof wide_rows_widths / sizeof wide_rows_widths[0]; i++) {
        int64_t output_tiles = (req->n + wide_rows_widths[i] - 1) / wide_rows_widths[i];
        /* ties to the wider tile: >= */
        if (fill(output_tiles, gpu->sm_count) >= best) {
            best = fill(output_tiles, gpu->sm_count);
            best_width = wide_rows_widths[i];
        }
    }
    for (size_t i = 0; i < sizeof paired_rows_widths / sizeof paired_rows_widths[0]; i++) {
        int64_t output_tiles = 2 * ((req->n + paired_rows_widths[i] - 1) / paired_rows_widths[i]);
        if (output_tiles > PAIRED_MAX_ROUNDS * (int64_t)gpu->sm_count)
            continue;
        /* the 128-row tile keeps a tie: > */
        if (fill(output_tiles, gpu->sm_count) > best) {
            best = fill(output_tiles, gpu->sm_count);
            best_width = paired_rows_widths[i];
            best_paired = 1;
        }
    }
    if (!best_paired || best_width != stream_tile.n)
        return 0;
    *tiles = &stream_tile;
    *count = 1;
    return 1;
}

double simt_gemm_stream_feed(const struct kernel_rate *rate, const struct tile_shape *tile,
                             double stage_bytes, double fitted_stages, double share_bytes_per_s,
                             double queue_s_per_byte)
{
    /* the memory latency: rate->in_flight_stages_per_s is fitted_stages
     * over it (HUGE_VAL with no latency figure: none) */
    double latency_s = fitted_stages / rate->in_flight_stages_per_s;
    /* stage_bytes counts a multicast B tile once per cluster; the SM
     * receives all of it */
    double tm = (double)tile->m, tn = (double)tile->n;
    double received = stage_bytes * (tm + tn) / (tm + tn * rate->column_share);
    double transfer_s = received / share_bytes_per_s;
    /* the DRAM part of what all the SMs hold in flight queues ahead of it,
     * in parallel with the L2-to-SM transfer (gemm_skinny.c), where the
     * blocks an SM holds are known: one of this tile (its two stages take
     * 160 KiB of shared memory), not the mma.sync tiles priced one block an
     * SM here (int8's queue in its rounds, gemm_mma_sync.c) */
    double queue_s = tile == &stream_tile ? (double)(tile->stages - 1) * stage_bytes * queue_s_per_byte : 0.0;
    if (queue_s > transfer_s)
        transfer_s = queue_s;
    return (double)(tile->stages - 1) * stage_bytes / (latency_s + transfer_s);
}

/* fp8 on Hopper, outputs of at most 256 tiles of 64x64: cuBLAS's
 * nvjet kernels run data-parallel, each block walking the whole K, not
 * stream-K; their tiles are small (qqtst 24x64 to 72x64 and 64x16 to
 * 64x48 in their names), so that 44 to 132 blocks fill the SMs. Only outputs of at most 24 such tiles split K
 * (the splitK kernels and their reduction kernel). Seen on an H100 SXM
 * (tests/gpu/results/h100/gemm_probe_windows.json, fit data, 2026-12-07:
 * fp8 of 256 to 768 a side at K = 4096, 8192 and 16384, 48 shapes):
 * split K at 256x256 and 256x384 (16 and 24 tiles) from K = 8192 and
 * 368x256 (24) at 16384, never at 32 tiles or more; none ran a memset or
 * a stream-K kernel (on an H200, fp8 ran one, coopA behind a memset, only
 * for 128x57344x8192, 1792 tiles: gemm_probe_skinny.json). Priced as the
 * least-time data-parallel tile; over those 48 rows the model went from
 * -4% at K = 4096 to -22% at 16384 (stream-K spreading K over every SM)
 * to a median of 6% and a worst of 19%. The largest output seen was
 * 768x768 (144 tiles); the line at 256 (1024x1024) is an ESTIMATE. A count
 * of tiles, not a share of the SMs, so that more SMs never change the
 * schedule. */
#define FP8_DATA_PARALLEL_MAX_TILES 256
#define FP8_SPLIT_MAX_TILES 24

static int64_t fp8_tiles_64(const struct simt_gemm_request *req)
{
    return (req->m + 63) / 64 * ((req->n + 63) / 64) * req->batch;
}

static int fp8_data_parallel(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    return gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major == 9 && req->dtype == SIMT_DTYPE_FP8 &&
           fp8_tiles_64(req) <= FP8_DATA_PARALLEL_MAX_TILES;
}

void simt_gemm_fp8_schedule(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                            int *stream_k, int *split_k)
{
    if (!fp8_data_parallel(gpu, req))
        return;
    *stream_k = 0;
    if (fp8_tiles_64(req) > FP8_SPLIT_MAX_TILES)
        *split_k = 0;
}

void simt_gemm_stream_assume(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                             struct simt_gemm_result *out)
{
    if (out->assumption_count >= SIMT_GEMM_MAX_ASSUMPTIONS)
        return;
    if (fp8_data_parallel(gpu, req) && out->tensor_cores) {
        snprintf(out->assumptions[out->assumption_count++], SIMT_GEMM_ASSUMPTION_BYTES,
                 "schedule: cuBLAS's fp8 kernels for outputs of at most %d tiles of 64x64 run "
                 "data-parallel, each block walking the whole K (no stream-K), K split only for %d tiles "
                 "or fewer (seen on an H100)",
                 FP8_DATA_PARALLEL_MAX_TILES, FP8_SPLIT_MAX_TILES);
        return;
    }
    if (out->tile_m != stream_tile.m || out->tile_n != stream_tile.n)
        return;
    snprintf(out->assumptions[out->assumption_count++], SIMT_GEMM_ASSUMPTION_BYTES,
             "wide weight: cuBLAS fills the SMs with clusters of two %dx%d tiles (its 448x64 kernel, as for "
             "16-bit m = 64, 128 on an H200), K stages of %d KiB, room for %d: one load in flight, each the "
             "memory latency plus the longer of its bytes at the SM's share of L2 and the DRAM queue of all "
             "SMs' loads (a single call: behind the dirty lines its fills evict)",
             stream_tile.m, stream_tile.n, (stream_tile.m + stream_tile.n) * 64 * 2 / 1024,
             stream_tile.stages);
}
