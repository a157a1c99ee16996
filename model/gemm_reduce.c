/* gemm_reduce.c - the second kernel behind a split-K GEMM that sums each
 * output element's partials and writes C: cuBLAS's splitKreduce_kernel and
 * FP64's serial reduction (gemm_fp64.c), priced by one mechanism from the
 * kernel's grid, the partials each block reads, how many of those reads a
 * thread keeps in flight, and the rates and latencies of the memory they
 * come from. Pure.
 *
 * splitKreduce_kernel as cuBLAS 13.1 launches it on an H200 (tests/gpu/
 * results/h200/gemm_probe*.json, 74 shapes in gemm_probe_tiny.json, names
 * and grids): blocks of 32 x 16 threads, one output element each, on a grid
 * of n / 32 by m / 16 (48x1024: 32 x 3; 2432x19: 1 x 152; 128x128: 4 x 8),
 * behind tf32's mma.sync kernels, the fp16/bf16 fallback kernels and nvjet's
 * _splitk kernels, fp32's SIMT split-K and FP64's d884gemm. Its durations
 * under the profiler: about 1.1 to 1.3 us at 1 or 2 splits, then about
 * 0.029 us a split (5.1 to 5.7 us at 126 splits, 11.6 us at 376) whether a
 * block has 6 warps of 7 elements (6x7) or 16 full warps (16x512): not the
 * bytes but the reads' latency binds it. CUTLASS's split-K reduction
 * (include/cutlass/reduction/kernel/reduce_split_k.h, ReduceSplitK) has
 * each thread issue kPartitionsPerStage = 4 partials' loads, then sum them,
 * then issue the next 4: a memory latency per 4 splits. The partials the
 * GEMM kernel has just written sit in L2 when they fit: L2's latency (280
 * cycles at 1.98 GHz on an H200 by its figure: 0.035 us a split, against
 * the 0.029 us measured). */
#include <math.h>

#include "gemm.h"
#include "gemm_internal.h"

/* splitKreduce_kernel's block: 32 output columns by 16 rows (our n x m),
 * one thread an element (the probe files' block [32, 16, 1]). */
#define REDUCE_BLOCK_COLUMNS 32
#define REDUCE_BLOCK_ROWS 16
/* Partials a thread loads before it waits for them (CUTLASS ReduceSplitK's
 * kPartitionsPerStage default). */
#define REDUCE_PARTIALS_IN_FLIGHT 4

void simt_gemm_reduce_setup(const struct simt_gpu_spec *gpu, double dram_latency_s, struct shape_context *ctx)
{
    ctx->dram_latency_s = dram_latency_s;
    ctx->l2_capacity_bytes = gpu->l2_bytes;
    int per_sm = gpu->max_threads_per_sm / (REDUCE_BLOCK_COLUMNS * REDUCE_BLOCK_ROWS);
    ctx->reduce_blocks_per_sm = per_sm >= 1 ? per_sm : 1;
}

/* Bytes of one partial: the accumulator's type (FP64's d884gemm and DMMA
 * kernels accumulate in fp64, the others in fp32 or int32). */
static double partial_bytes(enum simt_dtype dtype)
{
    return dtype == SIMT_DTYPE_FP64 ? 8.0 : 4.0;
}

double simt_gemm_reduce_kernel_time(const struct shape_context *ctx, const struct simt_gemm_reduce_grid *grid,
                                    int split)
{
    const struct simt_gemm_request *req = ctx->req;
    double outputs = (double)req->batch * (double)req->m * (double)req->n;
    double partials = (double)split * outputs * partial_bytes(req->dtype);
    /* the GEMM kernel writes them: at DRAM's write rate, the dirty lines
     * they evict (a single call after other work) or their own write-back;
     * this kernel reads them back from L2 while they fit there (at L2's
     * rate and latency, where the GPU has the figures), else from DRAM */
    int in_l2 = partials <= ctx->l2_capacity_bytes;
    double written_s = partials / ctx->dram_write_bytes_per_s;
    double read_bytes_per_s =
        in_l2 && ctx->l2_bytes_per_s > 0.0 ? ctx->l2_bytes_per_s : ctx->dram_bytes_per_s;
    double latency_s = grid->latency_s;
    if (!(latency_s > 0.0))
        latency_s = in_l2 && ctx->l2_latency_s > 0.0 ? ctx->l2_latency_s : ctx->dram_latency_s;

    /* latency: each thread's partials in groups of in_flight, one latency
     * a group, and one more for its store of C; the blocks an SM holds at
     * once wait together, further blocks in later rounds */
    double concurrent = (double)ctx->sm_count * (double)grid->blocks_per_sm;
    double rounds = ceil(grid->blocks / concurrent);
    double steps = ceil((double)split / (double)grid->in_flight) + 1.0;
    double latency_bound_s = rounds * steps * latency_s;
    /* bandwidth: the busiest SM's blocks read their partials at its share
     * of the chip's rate (never less than all partials at the chip's rate) */
    double busiest = ceil(grid->blocks / (double)ctx->sm_count);
    double sm_bytes = busiest * (double)split * grid->block_outputs * partial_bytes(req->dtype);
    double bandwidth_bound_s = sm_bytes * (double)ctx->sm_count / read_bytes_per_s;
    double busy_s = latency_bound_s > bandwidth_bound_s ? latency_bound_s : bandwidth_bound_s;
    return ctx->second_kernel_s + written_s + busy_s;
}

double simt_gemm_split_k_reduce(const struct shape_context *ctx, int split)
{
    const struct simt_gemm_request *req = ctx->req;
    int64_t columns = (req->n + REDUCE_BLOCK_COLUMNS - 1) / REDUCE_BLOCK_COLUMNS;
    int64_t rows = (req->m + REDUCE_BLOCK_ROWS - 1) / REDUCE_BLOCK_ROWS;
    double block_rows = req->m < REDUCE_BLOCK_ROWS ? (double)req->m : REDUCE_BLOCK_ROWS;
    double block_columns = req->n < REDUCE_BLOCK_COLUMNS ? (double)req->n : REDUCE_BLOCK_COLUMNS;
    struct simt_gemm_reduce_grid grid = {
        .blocks = (double)columns * (double)rows * (double)req->batch,
        .block_outputs = block_rows * block_columns,
        .blocks_per_sm = ctx->reduce_blocks_per_sm > 0 ? ctx->reduce_blocks_per_sm : 1,
        .in_flight = REDUCE_PARTIALS_IN_FLIGHT,
        .latency_s = 0.0,
    };
    return simt_gemm_reduce_kernel_time(ctx, &grid, split);
}

/* cuBLAS 13.1's FP32 SIMT kernels on an H200 (sm80_xmma_gemm_f32f32 ...,
 * tiles 32x32 to 256x128) split over grid.z, where neither CUTLASS's split
 * SGEMM (gemm_family.c) nor the in-kernel serial split (gemm_splitk.c)
 * runs, sum the splits in a second launch of the same kernel, grid.z of 1,
 * 2 or 4 (67 such pairs in tests/gpu/results/h200/gemm_probe*.json, fit
 * data). Its duration under the profiler rises about 0.18 us a split (3.1
 * us + 0.177 us x split, least squares, 4 to 33 splits), five times the
 * splitKreduce_kernel's 0.029 us: a thread reads one split's partials at
 * a time, a round trip each. Priced by the reduction mechanism above with
 * one split in flight at L2's latency (0.14 us on an H200: 4.8 us of
 * latency at 33 splits, where 9.3 to 10.1 us were measured, the rest not
 * explained), the tile's outputs over two blocks. */
void simt_gemm_xmma_second_pass(const struct shape_context *ctx, int split, const struct tile_shape *tile,
                                struct candidate *c)
{
    if (!ctx->xmma_two_pass || split < 2 || c->serial_reduce || tile == NULL || tile->m < 1 || tile->n < 1)
        return;
    const struct simt_gemm_request *req = ctx->req;
    double tiles =
        ceil((double)req->m / (double)tile->m) * ceil((double)req->n / (double)tile->n) * (double)req->batch;
    struct simt_gemm_reduce_grid grid = {
        .blocks = 2.0 * tiles,
        .block_outputs = (double)tile->m * (double)tile->n / 2.0,
        .blocks_per_sm = 1,
        .in_flight = 1,
        .latency_s = ctx->l2_latency_s,
    };
    c->reduce_s = simt_gemm_reduce_kernel_time(ctx, &grid, split);
}
