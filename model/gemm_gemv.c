/* gemm_gemv.c - cuBLAS's FP32 GEMV kernels of one output row (m = 1,
 * fp32 and tf32; torch's 1 x K by K x N product) whose time is a walk of K
 * at the memory latency, not DRAM's rate: each thread sums its output's
 * dot product over K, its loads a few at a time in flight, so with few
 * threads a row the walk, not the bytes, sets the time. Pure.
 *
 * Evidence, fit data only (tests/gpu/results/h200/gemm_probe_classes4.json
 * to 7.json, groups gemv, gemv2 and gemv3 of probe/gemm_probe_classes.py:
 * 249 shapes of m = 1, n = 8 to 8192, K = 32 to 2048, with the kernels
 * cuBLAS ran, their grids and blocks, read from torch.profiler; fp32 and
 * tf32 ran the same kernels). Each single cold call is
 *
 *   launch + 4 L + walk,  L the memory latency the loads wait,
 *
 * where 4 L (the first loads of the vector and of B, the two threads'
 * sums through shared memory, the store) fits the shortest walks: 4.45 us
 * at K = 32 (median of 8 n), launch 2.72 us and L = 0.344 us on an H200.
 *
 *  - gemvx with two threads a row (blocks [32, 2] and [64, 2]): K in
 *    chunks of 32, each thread's 16 loads of a chunk in flight together,
 *    1.1 L a chunk (the slope from K = 32 to 1024, 0.379 us, the 0.1 the
 *    bank queue and row misses of a cold walk); the K mod 32 left over
 *    after the last whole chunk go one at a time, L / 4 each (K = 63, 189,
 *    255, 383, 511 and 1023 against 65, 193, 260, 516 and 1024: 2.0 to 2.7
 *    us more for 27 to 31 of them, 75 to 96 ns each). It runs where K <=
 *    65 (every n seen, 8 to 8192); where 160 < K <= 320 and n K < 2^21
 *    (n = 8 to 8192; n = 8192 at K = 256 and 320 ran gemvNSP); and where
 *    K > 320, n > 768 and n K < 2^21 (n = 896 to 3584 at K = 383 to 1023
 *    and 2560 at 700; 768 and less ran 32 threads a row, 3072 x 700, 2048
 *    x 1024 and 4096 x 512, all 2^21 or more, 16).
 *  - gemv2N (blocks of 128 threads, one a row; two a row where n <= 512,
 *    grid 4 for n = 256): three loads in flight a thread, L / 3 a K step
 *    (0.121 us a step for n >= 768 from K = 68 to 100, 0.056 with two
 *    threads a row). It runs where 65 < K <= 100 and n >= 256 (n = 192
 *    and less ran gemvNSP, K = 108 and on gemvNSP).
 *  - dot_kernel<float, 128> then reduce_1Block_kernel (n of 2 to 64 at K
 *    of 1023 and more: gemm_probe_classes7.json, n = 8..64 at K = 1023,
 *    and gemm_probe_classes_fp32gv.json, n = 2..16 at K = 3000..12000, 28
 *    shapes; grid [31 or 64, 1, n] of 128 threads, each thread's loads in
 *    flight together, its partial summed in its block, the blocks' in the
 *    second kernel): two kernels' floors, 2.65 latencies a round, one
 *    round while K is at most 3968 (31 blocks of 128 threads, an element a
 *    thread), two past it (K = 6000 to 12000 seen; beyond 16384, ceil(K /
 *    8192), an element a thread of 64 blocks, an ESTIMATE), and 19 ns a
 *    column (fitted over the
 *    28: median 5%, worst 9%; gemvx's wide walk priced them +15..+61%).
 *    The line between gemvx (n = 128..192 at K = 1023, every n at K <=
 *    512) and it: K over 768 and n at most 64, an ESTIMATE.
 * Elsewhere (gemvNSP, 16 or 32 threads a row) the walk is
 * short and the streaming GEMV of gemm.c prices the call. The ranges'
 * edges between the sizes seen (K of 101 to 107 and 161 to 188, n of 769
 * to 895) are ESTIMATEs; another GPU's cuBLAS may draw them elsewhere:
 * the same rules, priced at its own latency. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gemm.h"
#include "gemm_internal.h"

#define GEMV_FIXED_LATENCIES 4.0
#define GEMVX_CHUNK 32
#define GEMVX_CHUNK_LATENCIES 1.1
#define GEMVX_TAIL_LATENCIES 0.25
#define GEMVX_SHORT_K 65
#define GEMVX_MID_K 160
#define GEMVX_LONG_K 320
#define GEMVX_MAX_ELEMENTS 2097152.0 /* n K, 2^21 */
#define GEMVX_LONG_MIN_N 768
#define GEMV2N_MAX_K 100
#define GEMV2N_MIN_N 256
#define GEMV2N_TWO_THREADS_MAX_N 512
#define GEMV2N_LOADS_IN_FLIGHT 3.0
#define GEMVX_WIDE_THREADS 32
#define GEMV_NSP_WARP_MAX_N 128
#define DOT_MIN_K 768
#define DOT_MIN_N 2
#define DOT_MAX_N 64
#define DOT_ROUND_LATENCIES 2.65
#define DOT_ONE_ROUND_K 3968      /* 31 blocks of 128 threads */
#define DOT_ROUND_K 8192.0        /* 64 blocks of 128 */
#define DOT_KERNEL_FLOOR_S 1.6e-6 /* each of its two kernels: SINGLE_KERNEL_FLOOR_S */
#define DOT_COLUMN_S 0.019e-6

int simt_gemm_gemv_walk(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                        double latency_s, struct simt_gemm_gemv_walk *out)
{
    out->kernel = SIMT_GEMM_GEMV_WALK_NONE;
    out->fixed_s = out->walk_s = 0.0;
    out->threads_per_row = 0;
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || req->m != 1 || req->sparse || !(latency_s > 0.0) ||
        (req->dtype != SIMT_DTYPE_FP32 && req->dtype != SIMT_DTYPE_TF32))
        return 0;
    double k = (double)req->k, elements = (double)req->n * k;
    double chunks = floor(k / GEMVX_CHUNK), tail = k - chunks * GEMVX_CHUNK;
    if (req->k > DOT_MIN_K && req->n >= DOT_MIN_N && req->n <= DOT_MAX_N) {
        out->kernel = SIMT_GEMM_GEMV_WALK_DOT;
        out->threads_per_row = 128;
        double rounds = req->k <= DOT_ONE_ROUND_K ? 1.0 : fmax(2.0, ceil(k / DOT_ROUND_K));
        out->walk_s = rounds * DOT_ROUND_LATENCIES * latency_s;
        out->fixed_s = 2.0 * DOT_KERNEL_FLOOR_S + (double)req->n * DOT_COLUMN_S;
        return 1;
    }
    if (req->k <= GEMVX_SHORT_K ||
        (req->k > GEMVX_MID_K && req->k <= GEMVX_LONG_K && elements < GEMVX_MAX_ELEMENTS) ||
        (req->k > GEMVX_LONG_K && req->n > GEMVX_LONG_MIN_N && elements < GEMVX_MAX_ELEMENTS)) {
        out->kernel = SIMT_GEMM_GEMV_WALK_GEMVX;
        out->threads_per_row = 2;
        out->walk_s = (chunks * GEMVX_CHUNK_LATENCIES + tail * GEMVX_TAIL_LATENCIES) * latency_s;
    } else if (req->k > GEMVX_SHORT_K && req->k <= GEMV2N_MAX_K && req->n >= GEMV2N_MIN_N) {
        out->kernel = SIMT_GEMM_GEMV_WALK_GEMV2N;
        out->threads_per_row = req->n <= GEMV2N_TWO_THREADS_MAX_N ? 2 : 1;
        out->walk_s = k / (GEMV2N_LOADS_IN_FLIGHT * (double)out->threads_per_row) * latency_s;
    } else if (req->k > GEMVX_LONG_K) {
        /* gemvx with 4 to 32 threads a row: the same chunks, 16 loads a
         * thread, so 32 threads a row walk K in chunks of 512; the same
         * left-over K mod 32 one at a time */
        out->kernel = SIMT_GEMM_GEMV_WALK_GEMVX_WIDE;
        out->threads_per_row = GEMVX_WIDE_THREADS;
        double wide = floor(k / (GEMVX_CHUNK * GEMVX_WIDE_THREADS / 2));
        out->walk_s = (wide * GEMVX_CHUNK_LATENCIES + tail * GEMVX_TAIL_LATENCIES) * latency_s;
    } else if (req->k > GEMVX_SHORT_K && req->k <= GEMV2N_MAX_K && req->n <= GEMV_NSP_WARP_MAX_N) {
        out->kernel = SIMT_GEMM_GEMV_WALK_NSP; /* gemvNSP, a warp a row: no walk to speak of */
        out->threads_per_row = 32;
    } else {
        return 0; /* gemvNSP of 24 threads a row: the streaming GEMV of gemm.c */
    }
    out->fixed_s = GEMV_FIXED_LATENCIES * latency_s;
    return 1;
}

void simt_gemm_gemv_walk_apply(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                               double latency_s, double launch_s, struct candidate *c)
{
    struct simt_gemm_gemv_walk w;
    if (!simt_gemm_gemv_walk(gpu, req, latency_s, &w))
        return;
    /* the walk kernel runs: its own fixed cost, and the longer of its walk
     * and its bytes at DRAM's rate */
    c->gemv_walk = w.kernel;
    c->overhead_s = launch_s + w.fixed_s;
    if (w.walk_s > c->dram_s)
        c->dram_s = w.walk_s;
    double busy = c->compute_s > c->dram_s ? c->compute_s : c->dram_s;
    c->time_s = c->overhead_s + busy;
}

int simt_gemm_gemv_line(const struct simt_gemm_request *req, const struct candidate *c,
                        double fma_flops_per_s, char *buf, size_t size)
{
    if (!c->gemv)
        return 0;
    if (c->gemv_walk == SIMT_GEMM_GEMV_WALK_GEMVX)
        snprintf(buf, size,
                 "kernel: cuBLAS's GEMV gemvx with two threads an output (as for FP32 and TF32 of one row on "
                 "an H200): K walked in chunks of 32, 1.1 memory latencies a chunk, the K mod 32 = %lld left "
                 "over a quarter latency each, after launch and 4 latencies (fitted on an H200)",
                 (long long)(req->k % GEMVX_CHUNK));
    else if (c->gemv_walk == SIMT_GEMM_GEMV_WALK_DOT)
        snprintf(buf, size,
                 "kernel: cuBLAS's dot_kernel then reduce_1Block_kernel (one row against 2 to 64 columns at "
                 "long K, seen on an H200): blocks of 128 threads a column with their loads in flight, %s; "
                 "2.65 memory latencies a round, after launch, two kernel floors and 19 ns a column "
                 "(fitted on an H200)",
                 req->k <= DOT_ONE_ROUND_K ? "one round" : "two rounds or more (a round per 8192 of K)");
    else if (c->gemv_walk == SIMT_GEMM_GEMV_WALK_GEMV2N)
        snprintf(
            buf, size,
            "kernel: cuBLAS's GEMV gemv2N with %d thread%s an output (as for FP32 and TF32 of one row "
            "at K of 66 to 100 on an H200): three loads in flight a thread, a third of a memory latency a "
            "K step, after launch and 4 latencies (fitted on an H200)",
            req->n <= GEMV2N_TWO_THREADS_MAX_N ? 2 : 1, req->n <= GEMV2N_TWO_THREADS_MAX_N ? "s" : "");
    else
        snprintf(buf, size,
                 "kernel: a matrix-vector product (GEMV) on the FMA units at %.4g flop/s, one output %s per "
                 "block of 256, chosen as the least predicted time",
                 fma_flops_per_s, req->m == 1 ? "row" : "column");
    return 1;
}
