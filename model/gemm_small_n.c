/* gemm_small_n.c - cuBLAS's small-N streaming kernel (gemmSN_NN_kernel; N
 * is cuBLAS's name for our m: torch's row-major product reaches cuBLAS with
 * the operands swapped). It runs fp32 with m = 4 on an H200
 * (tests/gpu/results/h200/gemm_probe.json: 4x16384x4096 and 4x32768x4096,
 * grids of n / 64 blocks of 256 threads; m = 1 runs a GEMV and m = 8
 * sgemm_largek; m = 2 and 3 were not seen, so they keep the tile kernels).
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
 * So gemmSN's price applies from 64 of its blocks on, or at K of 64 and
 * less; between 5 and 64 blocks the kernel cuBLAS runs is not known
 * (ESTIMATE: the tile path below 64), as is the K between 48 and 131 where
 * it stops running gemmSN (ESTIMATE: 64). */
#define SMALL_N_MIN_BLOCKS 64
#define SMALL_N_MAX_SHORT_K 64

int simt_gemm_small_n_runs(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || req->dtype != SIMT_DTYPE_FP32 || req->sparse ||
        req->m != SIMT_GEMM_SMALL_N_M)
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
