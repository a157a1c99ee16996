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
    if (c->dram_s > busy)
        busy = c->dram_s;
    c->time_s = busy + c->reduce_s + c->overhead_s;
}
