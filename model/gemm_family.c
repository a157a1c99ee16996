/* gemm_family.c - which family of kernels cuBLAS runs for a GEMM, where
 * the names of the kernels it ran say so (tests/gpu/results/h200/
 * gemm_kernels.json, gemm_probe.json, gemm_probe_small.json), and the
 * tiles of that family. A kernel name's tile is cuBLAS's M x N, and cuBLAS
 * sees torch's row-major product with the operands swapped (its M is our
 * n, its N our m): the tiles below are written in our m x n. Pure. */
#include <stddef.h>

#include "gemm.h"
#include "gemm_internal.h"

/* FP64 tensor cores run the warp-level DMMA (mma.sync) kernels, never
 * wgmma (gemm.c, setup_rate): cuBLAS 13.1 on an H200 runs
 * sm90_xmma_gemm_f64f64 tilesize 32x32, 32x64, 64x64, 64x128 and 128x64,
 * and cutlass_80_tensorop_d884gemm 32x32 and 64x32, and no larger tile
 * for any fp64 shape seen (from 16x16x16 to 16016x15728x3488): a DMMA
 * tile holds its fp64 accumulators in registers, 8 bytes each, so its
 * tiles are a quarter of the 16-bit kernels' at the same register count.
 * Largest first, so that ties go to the larger tile. */
static const struct tile_shape dmma_tiles[] = {
    {128, 64, 0}, {64, 128, 0}, {64, 64, 0}, {64, 32, 0}, {32, 64, 0}, {32, 32, 0},
};

void simt_gemm_dmma_tiles(const struct tile_shape **tiles, size_t *count)
{
    *tiles = dmma_tiles;
    *count = sizeof dmma_tiles / sizeof dmma_tiles[0];
}
