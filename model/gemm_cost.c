/* gemm_cost.c - what a candidate kernel's DRAM traffic costs (its read,
 * write and copy mix, the dirty lines a single call evicts) and how its
 * time is put together from its work, its traffic, its reduction and its
 * fixed costs. Shared by gemm.c's candidates and gemm_small_n.c's kernel.
 * Pure. */
#include <math.h>

#include "gemm.h"
#include "gemm_internal.h"
#include "l2_state.h"

/* DRAM traffic of A, B and C (compulsory: each read or written once),
 * priced by its mix: as many bytes as are both read and written move at the
 * copy rate (the bus turning round between them), the rest of the reads at
 * the read rate and the rest of the writes at the write rate. */
void simt_gemm_dram_traffic(const struct shape_context *ctx, struct candidate *c)
{
    const struct simt_gemm_request *req = ctx->req;
    double m = (double)req->m, n = (double)req->n, k = (double)req->k;
    double read = (double)req->batch * (m * k * ctx->a_weight + k * n) * ctx->element_bytes;
    double written = (double)req->batch * m * n * (double)ctx->out_bytes;
    /* a single call after other work: its fills evict that work's dirty
     * lines, each written back to DRAM, beyond those its own stores leave
     * (model/l2_state.h) */
    double evicted = 0.0;
    if (ctx->dirty_bytes > 0.0)
        evicted = simt_cold_l2_write_back(ctx->l2_total_bytes, read + written, written);
    if (evicted > 0.0)
        written += evicted;
    double paired = read < written ? read : written;
    c->dram_bytes = read + written;
    c->dram_read_s = read / ctx->dram_bytes_per_s;
    c->dram_write_s = written / ctx->dram_write_bytes_per_s;
    c->evicted_s = evicted > 0.0 ? evicted / ctx->dram_write_bytes_per_s : 0.0;
    c->dram_s = 2.0 * paired / ctx->dram_copy_bytes_per_s + (read - paired) / ctx->dram_bytes_per_s +
                (written - paired) / ctx->dram_write_bytes_per_s;
}

/* Hopper's 16-bit GEMM kernels (nvjet_sm90 ... coopA and coopB: both
 * warpgroups of a block on one tile) stage each tile's C out of the
 * accumulators through shared memory after its math and before the next
 * tile's: an SM's tiles cost their math plus that staging, while the DRAM
 * writes run under what follows. Fitted on an H200
 * (tests/gpu/results/h200/gemm_probe_classes_h16sk.json, fit data: bf16
 * and fp16 of 4096 to 16384 a side at K = 32 to 256; at K = 256 the time
 * grows with K's math on top of the store-bound time at K = 128, 70 us
 * for 16384x14336, the math's own share): 39 bytes of C a clock an SM
 * (a 256x128 bf16 tile 0.85 us). Over the 16-bit aligned outputs of 4
 * million elements and more in the fit files: median 5.6% -> 3.8% (the
 * held-out half's five 1.6%, 6.2% worst). */
#define STAGED_EPILOGUE_BYTES_PER_CLOCK 39.0

double simt_gemm_staged_epilogue_rate(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                                      int async_mma, double clock_hz)
{
    if (gpu->vendor != SIMT_VENDOR_NVIDIA || gpu->compute_major != 9 || !async_mma || !(clock_hz > 0.0) ||
        req->sparse || (req->dtype != SIMT_DTYPE_FP16 && req->dtype != SIMT_DTYPE_BF16) ||
        req->k % simt_gemm_alignment_elements(req->dtype) != 0 ||
        req->n % simt_gemm_alignment_elements(req->dtype) != 0)
        return 0.0; /* unaligned rows run the fallback kernels (gemm_family.c) */
    return STAGED_EPILOGUE_BYTES_PER_CLOCK * clock_hz;
}

double simt_gemm_staged_epilogue_factor(const struct shape_context *cal, const struct candidate *c,
                                        double wave_efficiency)
{
    if (!(cal->staged_epilogue_bytes_per_s > 0.0) || c->tile == NULL || !(c->compute_s > 0.0))
        return 1.0;
    /* the figure's GEMM paid its tiles' staging too: the math alone is
     * that much faster */
    double staged = ceil(c->waves) * (double)c->tile->m * (double)c->tile->n * (double)cal->out_bytes /
                    cal->staged_epilogue_bytes_per_s;
    double compute = c->compute_s * wave_efficiency;
    return staged < 0.5 * compute ? compute / (compute - staged) : 1.0;
}

void simt_gemm_finish(const struct shape_context *ctx, double busy, double full_waves, struct candidate *c)
{
    /* int8's mma.sync kernels: several blocks an SM, in rounds
     * (gemm_mma_sync.c), each round's blocks with their first loads and
     * last stores */
    int in_rounds = simt_gemm_mma_sync_rounds(ctx, c, &busy, &full_waves);
    /* FP32's 32-row FMA tiles where cuBLAS runs 64-row ones (gemm_skinny.c) */
    if (!c->gemv && !c->small_n && !simt_gemm_fma_skinny_runs_tile(ctx, c->tile))
        busy = HUGE_VAL;
    /* FP32 at K of one stage: several blocks an SM, one fill a kernel
     * (gemm_shortk.c); their work is summed as over the waves */
    if (!in_rounds)
        (void)simt_gemm_shortk_fills(ctx, c, &full_waves);
    /* fp16 and bf16 off 16 bytes: the small tiles' blocks share an SM, one
     * fill a round of them (gemm_family.c) */
    simt_gemm_fallback16_fills(ctx, c, &full_waves);
    c->overhead_s = ctx->launch_s + ctx->floor_s + full_waves * ctx->fill_s;
    if (ctx->epilogue_after_mainloop) {
        /* the waves' blocks run in step: their operands stream in under
         * the math, C's stores come after it, with nothing to hide them */
        if (c->dram_read_s > busy)
            busy = c->dram_read_s;
        busy += c->dram_write_s;
        /* in rounds, C's own stores alone: the dirty lines of earlier work
         * are written back as the fills evict them, in the main loop
         * (below), not again here (gemm_mma_sync.c) */
        if (in_rounds)
            busy -= c->evicted_s;
    }
    /* a pipeline of known depth that its loads bind (the feed, not the
     * math): its fills wait behind the dirty lines they evict
     * (gemm_stream.c); where they wait in the DRAM queue instead (in
     * rounds), below DRAM's rate, the write-backs share it (gemm_skinny.c):
     * DRAM's time for all the traffic bounds them (below) */
    if (c->l2_s > c->compute_s && c->tile != NULL && c->tile->stages > 0 && in_rounds != 2)
        busy += c->evicted_s;
    if (ctx->last_wave_stores_exposed && c->tiles > 0) {
        /* the blocks of a wave start together and store C after their
         * math: each wave's stores hide under the next wave's math but the
         * last wave's, which follow it with nothing under them; DRAM's
         * time for all the traffic still bounds the whole */
        int64_t last = c->tiles % ctx->sm_count;
        if (last == 0)
            last = c->tiles < ctx->sm_count ? c->tiles : ctx->sm_count;
        busy += c->dram_write_s * (double)last / (double)c->tiles;
    }
    if (ctx->staged_epilogue_bytes_per_s > 0.0 && c->tile != NULL && !c->gemv && !c->small_n) {
        double staged = c->compute_s + full_waves * (double)c->tile->m * (double)c->tile->n *
                                           (double)ctx->out_bytes / ctx->staged_epilogue_bytes_per_s;
        if (staged > busy)
            busy = staged;
    }
    if (c->dram_s > busy)
        busy = c->dram_s;
    c->time_s = busy + c->reduce_s + c->overhead_s;
}
