/* gemm_small_n.c - cuBLAS's small-N streaming kernel (gemmSN_NN_kernel; N
 * is cuBLAS's name for our m: torch's row-major product reaches cuBLAS with
 * the operands swapped). It runs fp32 with m = 4 on an H200
 * (tests/gpu/results/h200/gemm_probe.json: 4x16384x4096 and 4x32768x4096,
 * grids of n / 64 blocks of 256 threads; m = 1 runs a GEMV and m = 8
 * sgemm_largek) and with m = 2 the same grids (gemm_probe_smalln.json:
 * 2 x 4096..32768 at K = 256..8192, where the tile kernels' price was up
 * to 80% slow and 48% fast, this one 29% fast at worst); m = 3, between,
 * is taken to run it too, m = 5 to 16 keep the tile kernels (gemmSN ran
 * there as well, with grid.y of 2 or 4, not priced here).
 * Each block streams a 64-column slab of B once, with no K-stage pipeline,
 * so a block draws the bytes its threads keep in flight per memory latency
 * (Little's law). How many that is depends on the kernel's unrolling,
 * which is not known: fitted, 5.5 KiB per block (22 B per thread, between
 * one and two 16-byte loads), to the two fit rows where DRAM's rate does
 * not bind, 64 and 128 blocks of one per SM: 4x4096x4096 (a single call,
 * heldout/gemm.json, 75.6 us, -8% with it) and 4x8192x8192 (back to back,
 * gemm.json, 117 us, +12%). As many blocks run at once as the SMs' threads
 * hold; DRAM's rate caps them all. Still missed: DRAM's latency rises as
 * the blocks' bytes in flight near its rate (4x16384x4096, 256 blocks,
 * gemm_probe.json: 102 us measured, 73 us predicted).
 * Pure. */
#include <math.h>
#include <stdint.h>

#include "gemm.h"
#include "gemm_internal.h"

#define SMALL_N_BYTES_IN_FLIGHT_PER_BLOCK 5632.0
/* Where it runs (fit and probe data, tests/gpu/results/h200/): gemmSN at
 * 4x16384x4096 and 4x32768x4096 (256 and 512 of its blocks,
 * gemm_probe.json) and at K = 48 and less (4x300x48, 4x4x4,
 * gemm_probe_splitk2.json and gemm_probe_tiny.json); CUTLASS's split SIMT
 * SGEMM and its reduction kernel at 4x300 with K = 131 to 1000 (5 of
 * gemmSN's blocks, gemm_probe_splitk2.json), which the tile path prices
 * (gemm_splitk.c); sgemm_largek split 7 at 4x4096x4096 (64 blocks,
 * gemm_probe_small.json), which no path prices as such: this price
 * stands in for it there (the constant above was fitted to it, -8%) and
 * at 4x8192x8192 (128 blocks, gemm_kernels.json: sgemm_largek split 8).
 * gemm_probe_smalln.json adds: at 16 and 32 of gemmSN's blocks (n = 1024
 * and 2048, m = 2 to 16) the split SIMT SGEMM runs from K = 1024 on and
 * gemmSN at K = 256. So gemmSN's price applies from 64 of its blocks on,
 * or at K of 64 and less; where it stops below 64 blocks, between K = 256
 * and 1024 (and between 48 and 131 at 5 blocks), is not known: ESTIMATE,
 * K of 64, the tile path above it (both price K = 256 there within 30%).
 * Not priced: the same file shows a block's rate falling as more blocks
 * stream at once (at K = 4096, about 12, 11 and 7.7 GB/s a block with 128,
 * 256 and 512 blocks), a DRAM queue weaker than gemm_skinny.c's closed
 * loop at DRAM's rate would give; the price is 24 to 30% fast at 128 and
 * 256 blocks and K of 1024 to 8192. Tried and left out (2026-12-02):
 * pricing gemmSN for m = 5 to 16 where it ran (grid.y of ceil(m / 4),
 * blocks resident by the occupancy model from its 64 registers a thread,
 * 4 an SM) with this per-block rate: those rows got worse where many
 * blocks stream at once (8x32768x1024, 1024 blocks: -27% with the tile
 * path, -51% with this price), since the rate leaves out the queue. */
#define SMALL_N_MIN_M 2
#define SMALL_N_MIN_BLOCKS 64
#define SMALL_N_MAX_SHORT_K 64

int simt_gemm_small_n_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || req->dtype != SIMT_DTYPE_FP32 || req->sparse ||
        req->m < SMALL_N_MIN_M || req->m > SIMT_GEMM_SMALL_N_M)
        return 0;
    int64_t blocks = (req->n + SIMT_GEMM_SMALL_N_COLUMNS - 1) / SIMT_GEMM_SMALL_N_COLUMNS * req->batch;
    return blocks >= SMALL_N_MIN_BLOCKS || req->k <= SMALL_N_MAX_SHORT_K;
}

void simt_gemm_small_n_stream(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                              double element_bytes, double latency_s, struct simt_gemm_small_n *out)
{
    out->blocks = (req->n + SIMT_GEMM_SMALL_N_COLUMNS - 1) / SIMT_GEMM_SMALL_N_COLUMNS * req->batch;
    int per_sm = gpu->max_threads_per_sm / SIMT_GEMM_SMALL_N_THREADS;
    double resident = (double)(per_sm > 1 ? per_sm : 1) * (double)(gpu->sm_count > 1 ? gpu->sm_count : 1);
    out->rounds = ceil((double)out->blocks / resident);
    double slab_bytes = (double)req->k * SIMT_GEMM_SMALL_N_COLUMNS * element_bytes;
    double block_bytes_per_s = SMALL_N_BYTES_IN_FLIGHT_PER_BLOCK / latency_s;
    out->stream_s = out->rounds * slab_bytes / block_bytes_per_s;
}
