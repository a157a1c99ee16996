/* gemm_tiny.c - the SM's load/store path in the GEMM kernels that have no
 * TMA, which binds where K is short or the output small, so that moving the
 * tile's elements outweighs its math. FMA (SIMT) kernels read the tile's
 * whole K depth from shared memory and store C an element at a time
 * (SIMT_STAGED_PER_CLOCK_PER_SM, gemm.c). The fallback kernels of unaligned
 * shapes issue their global loads as wide as the alignment allows
 * (SCALAR_LOADS_PER_CLOCK_PER_SM, gemm.c); the 16-bit ones count the K that
 * exists and store C through the same narrow slots. Seen on an H200
 * (tests/gpu/results/h200/gemm_probe_tiny.json, fit data): K of 1, 2 and 4
 * are not 16-byte multiples in fp16 and bf16, and cuBLAS runs its fallback
 * kernels (cutlass_75_tensorop_*_s1688gemm_64x64 align1 at K = 1,
 * cutlass_80_tensorop_*_s16816gemm_256x128 align2 at K = 2 and 4); their
 * time follows C, not K: 4096^2 x 1 takes 28.8 us of kernel, as fp32's FMA
 * kernel does (simt_sgemm_128x32, 27.4 us), for 16.8 M outputs stored an
 * element or two at a time, and K = 2 and 4 take 18.8 to 24.9 us. Pure. */
#include "gemm.h"
#include "gemm_internal.h"

double simt_gemm_slot_time(const struct simt_gemm_request *req, const struct kernel_rate *rate,
                           const struct tile_shape *tile, int tile_k, int split)
{
    double tile_c = (double)tile->m * (double)tile->n;
    double k_depth = (double)((req->k + (int64_t)split * tile_k - 1) / ((int64_t)split * tile_k) * tile_k);
    double slot_s = 0.0;
    /* FMA kernels: the loop reads the tile's whole K depth from shared
     * memory, zeros past K included, and stores C an element at a time */
    if (rate->staged_per_s_per_sm > 0.0)
        slot_s = ((double)(tile->m + tile->n) * k_depth + tile_c) / rate->staged_per_s_per_sm;
    if (rate->unaligned && rate->loads_per_s_per_sm > 0.0) {
        /* the fallback kernels' operand loads over the tile's K depth, as
         * SCALAR_LOADS_PER_CLOCK_PER_SM was fitted. The 16-bit ones
         * (cutlass_75 and cutlass_80 f16 and bf16 kernels, align1 and
         * align2) load the K a split covers (the depth past it is
         * predicated off and moves nothing) and store C in pieces as narrow
         * as their loads (one alignment for A, B and C in their names).
         * Not seen for tf32 (its unaligned short K runs the FMA SGEMM or
         * sm80_xmma kernels, and its Hopper kernels' stores of C are priced
         * after their math) nor fp64: they keep the tile's depth. */
        int sixteen_bit = req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16;
        double k_loaded = (double)((req->k + split - 1) / split);
        double elements = sixteen_bit ? (double)(tile->m + tile->n) * k_loaded + tile_c
                                      : (double)(tile->m + tile->n) * k_depth;
        double load_s = elements / rate->loads_per_s_per_sm;
        if (load_s > slot_s)
            slot_s = load_s;
    }
    return slot_s;
}
