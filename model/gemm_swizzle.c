/* gemm_swizzle.c - where the blocks of cuBLAS's Ampere-generation tf32
 * kernels land on the SMs. Pure.
 *
 * cuBLAS 13.1 runs tf32 GEMMs of short K or small outputs on an H200 with
 * CUTLASS 2.x kernels (cutlass_80_tensorop_s1688gemm_64x64_16x6,
 * 64x128 ... _nn_align4) whose grids follow CUTLASS's threadblock swizzle
 * of up to 8 (GemmIdentityThreadblockSwizzle<8>, include/cutlass/gemm/
 * threadblock/threadblock_swizzle.h: the grid is tiled w wide, so its x
 * is the tiles along m times w and its y the tiles along n over w, rounded
 * up; a block whose tile falls past n returns at once; w is 8 from 6 tile
 * columns on, 4 from 3, 2 at 2, else 1, its get_log_tile). Every grid of
 * the 414 CUTLASS 2.x kernels of every dtype in
 * tests/gpu/results/h200/gemm_probe_*.json (fit data) is that: 1472x1152
 * with a 64x128 tile ran [184, 2, 1], 23 x 8 blocks by 2 for 9 tile
 * columns; fp16 651x85 with a 32x32 tile [84, 1, 1], 21 x 4 for 3. When the whole grid is resident at once,
 * the block scheduler deals blocks to the SMs in turn, idle ones included, so the SM that gets the most tiles
 * that do work sets the time: 1472x1152 at K = 256 has 207 tiles, 1.6 an SM, but one SM gets 3, and it
 * took 14.0 us under the profiler where 2048x1024 (256 tiles, 2 an SM at most) took 10.2
 * (gemm_probe_classes3.json: 35 shapes of 1344..1600 x 1152..1280, all 22-34% slower than the model priced
 * them in even waves). The dealing in turn (block i to SM i mod SMs) is an assumption: the order the hardware
 * uses is not documented; it reproduces the busiest SM's count the times show (3 for these shapes, 2 for
 * 2048x1024). */
#include "gemm.h"
#include "gemm_internal.h"

/* get_log_tile's widths: 8 from 6 tile columns, 4 from 3, 2 at 2 */
static int64_t swizzle_width(int64_t tiles_n)
{
    return tiles_n >= 6 ? 8 : tiles_n >= 3 ? 4 : tiles_n >= 2 ? 2 : 1;
}

/* Blocks counted one by one: at most this many (a resident grid is at
 * most 32 blocks an SM on every GPU of the database). */
#define SWIZZLE_MAX_BLOCKS (1 << 16)

int64_t simt_gemm_swizzle_busiest(int64_t tiles_m, int64_t tiles_n, int64_t sm_count, int64_t resident_per_sm)
{
    if (tiles_m < 1 || tiles_n < 1 || sm_count < 1 || resident_per_sm < 1)
        return 0;
    int64_t width = swizzle_width(tiles_n);
    int64_t grid_x = tiles_m * width;
    int64_t grid_y = (tiles_n + width - 1) / width;
    if (grid_x > SWIZZLE_MAX_BLOCKS / grid_y)
        return 0;
    int64_t blocks = grid_x * grid_y;
    if (blocks > SWIZZLE_MAX_BLOCKS || blocks > sm_count * resident_per_sm)
        return 0; /* later blocks go where one finishes: not dealt in turn */
    int64_t busiest = 0;
    /* an SM s gets blocks s, s + SMs, ...; count those with a tile */
    for (int64_t sm = 0; sm < sm_count && sm < blocks; sm++) {
        int64_t working = 0;
        for (int64_t i = sm; i < blocks; i += sm_count) {
            int64_t x = i % grid_x, y = i / grid_x;
            if (y * width + x % width < tiles_n)
                working++;
        }
        if (working > busiest)
            busiest = working;
    }
    return busiest;
}
