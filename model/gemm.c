/* gemm.c - GEMM time from the shape alone: the library's choice of tile and
 * split-K, tile and wave quantization (NVIDIA, "Matrix Multiplication
 * Background User's Guide"), operand feed from L2, the DRAM roofline for A,
 * B and C, matrix-vector products on the FMA units, the 16-byte alignment
 * rule, the fixed cost of a GEMM kernel, and the dirty lines a single call
 * finds in L2. Pure. */
#include "gemm.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "figures.h"
#include "gemm_boost.h"
#include "gemm_constants.h"
#include "gemm_internal.h"
#include "l2_state.h"

/* Split-K factors a library tries. */
static const int split_factors[] = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128};

/* Matrix-vector products (m or n of 1) run as GEMV on the FMA units: one
 * row (or column) of the output per block of 256. */
static const struct tile_shape gemv_row = {1, 256, 0};
static const struct tile_shape gemv_column = {256, 1, 0};

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static void assume(struct simt_gemm_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void assume(struct simt_gemm_result *out, const char *fmt, ...)
{
    if (out->assumption_count >= SIMT_GEMM_MAX_ASSUMPTIONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->assumptions[out->assumption_count], SIMT_GEMM_ASSUMPTION_BYTES, fmt, ap);
    va_end(ap);
    out->assumption_count++;
}

/* The path a library takes for the dtype: tensor cores or FMA units, the
 * figure its rate comes from, what a library reaches of it, its tiles. */
struct gemm_path {
    int tensor;
    enum simt_figure_id figure;
    double hardware_flops_per_s; /* the figure: measured, or the datasheet's */
    int measured;
    int achievable;          /* the figure is the datasheet's times the record's achievable fraction */
    int bare_datasheet;      /* the figure is the datasheet's alone: refused */
    double library_fraction; /* of hardware_flops_per_s a library GEMM reaches */
    double peak_flops_per_s; /* hardware_flops_per_s * library_fraction */
    const struct tile_shape *tiles;
    size_t tile_count;
    int tile_k_bytes;
};

static void finish_path(const struct simt_figure_set *figures, struct gemm_path *path)
{
    path->hardware_flops_per_s = simt_figure_get(figures, path->figure);
    path->measured = figures->source[path->figure] == SIMT_FIGURE_MEASURED;
    path->achievable = figures->source[path->figure] == SIMT_FIGURE_ACHIEVABLE;
    path->bare_datasheet = figures->source[path->figure] == SIMT_FIGURE_DATASHEET ||
                           figures->source[path->figure] == SIMT_FIGURE_DERIVED;
    path->library_fraction = path->tensor ? 1.0 : FMA_KERNEL_OF_LOOP_FRACTION;
    path->peak_flops_per_s = path->hardware_flops_per_s * path->library_fraction;
}

static int choose_path(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures,
                       enum simt_dtype dtype, int sparse, struct gemm_path *path, struct simt_diag *diag)
{
    memset(path, 0, sizeof *path);
    int newer = gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 9;
    enum simt_figure_id tensor_id = (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + (int)dtype);
    int rc = simt_gemm_check_sparse(gpu, figures, dtype, sparse, diag);
    if (rc != SIMT_OK)
        return rc;
    if (sparse)
        tensor_id = (enum simt_figure_id)(SIMT_FIG_TENSOR_SPARSE_FIRST + (int)dtype);
    if (dtype != SIMT_DTYPE_FP32 && simt_figure_get(figures, tensor_id) > 0.0) {
        path->tensor = 1;
        path->figure = tensor_id;
        simt_gemm_tensor_tiles(&path->tiles, &path->tile_count);
        path->tile_k_bytes = newer ? 128 : 64;
        if (dtype == SIMT_DTYPE_FP64 && gpu->vendor == SIMT_VENDOR_NVIDIA)
            simt_gemm_dmma_tiles(&path->tiles, &path->tile_count);
    } else if (dtype == SIMT_DTYPE_FP32 || dtype == SIMT_DTYPE_FP64) {
        path->figure = dtype == SIMT_DTYPE_FP32 ? SIMT_FIG_FP32 : SIMT_FIG_FP64;
        simt_gemm_fma_tiles(&path->tiles, &path->tile_count);
        path->tile_k_bytes = 32;
    } else {
        return simt_gemm_lacks_dtype(gpu, dtype, diag);
    }
    finish_path(figures, path);
    if (!(path->hardware_flops_per_s > 0.0))
        return simt_diag_fail(diag, SIMT_EUNSAT, "dtype", "this GPU's record gives no %s throughput",
                              simt_dtype_name(dtype));
    if (path->bare_datasheet) {
        char field[48];
        if (path->tensor)
            snprintf(field, sizeof field, "gpu.achievable.tensor.%s", simt_dtype_name(dtype));
        else
            snprintf(field, sizeof field, "gpu.achievable.%s", dtype == SIMT_DTYPE_FP64 ? "fp64" : "fp32");
        return simt_diag_fail(diag, SIMT_EUNSAT, field,
                              "the record gives the %s %s rate only as a datasheet figure, with neither a "
                              "measured value nor the achievable fraction a GEMM reaches of it (%s)",
                              simt_dtype_name(dtype), path->tensor ? "tensor-core" : "FMA", field);
    }
    return SIMT_OK;
}

/* Operand bytes per second one SM draws from L2 while `active` SMs share it. */
static double l2_feed(const struct kernel_rate *rate, const struct tile_shape *tile, double active,
                      double stage_bytes, double queue_s_per_byte)
{
    /* a kernel of known depth keeps all its stages but the one it computes
     * on in flight; else the fitted depth (whose fit took in the DRAM queue
     * that a known depth waits in: gemm_skinny.c) */
    double stages = tile->stages > 0 ? (double)(tile->stages - 1) / IN_FLIGHT_STAGES : 1.0;
    double in_flight = rate->in_flight_stages_per_s * stages * stage_bytes;
    if (!(rate->l2_bytes_per_s > 0.0))
        return in_flight;
    double share = rate->l2_bytes_per_s / active;
    if (rate->sm_intake_bytes_per_s > 0.0 && share > rate->sm_intake_bytes_per_s)
        share = rate->sm_intake_bytes_per_s; /* the SM's own port (gemm_family.c) */
    double feed = share > rate->l2_floor_per_sm ? share : rate->l2_floor_per_sm;
    if (tile->stages > 0) /* each load also waits for its own bytes (gemm_stream.c) */
        in_flight = simt_gemm_stream_feed(rate, tile, stage_bytes, IN_FLIGHT_STAGES, feed, queue_s_per_byte);
    return feed < in_flight ? feed : in_flight;
}

/* Math rate of one SM on this tile: the aligned kernels' rate, or the
 * fallback kernels' fraction of it when the leading dimensions are not
 * 16-byte multiples (their loads: simt_gemm_slot_time). */
static double tile_rate(const struct kernel_rate *rate, const struct tile_shape *tile)
{
    double sm_rate = rate->sm_flops_per_s;
    if (rate->unaligned)
        sm_rate *= NONTMA_FRACTION;
    if (rate->register_b_per_s_per_sm > 0.0) {
        /* each element of B serves the tile's rows */
        double fed = rate->register_b_per_s_per_sm * 2.0 * (double)tile->m;
        if (fed < sm_rate)
            sm_rate = fed;
    }
    return sm_rate;
}

/* Data-parallel: one block per output tile (per K split), dealt to the SMs in waves; each wave
 * takes as long as its slower side, math or the L2 feed shared by the wave's blocks. */
static void evaluate(const struct shape_context *ctx, const struct kernel_rate *rate,
                     const struct tile_shape *tile, int tile_k, int split, struct candidate *c)
{
    const struct simt_gemm_request *req = ctx->req;
    int64_t k_per_split = ceil_div(ceil_div(req->k, split), tile_k) * tile_k;
    int64_t output_tiles = ceil_div(req->m, tile->m) * ceil_div(req->n, tile->n);
    memset(c, 0, sizeof *c);
    c->tile = tile;
    c->tile_k = tile_k;
    c->split = split;
    c->tiles = output_tiles * split * req->batch;
    c->waves = (double)c->tiles / (double)ctx->sm_count;
    int64_t full = c->tiles / ctx->sm_count;
    int64_t rest = c->tiles % ctx->sm_count;
    if (ctx->swizzle_gpu != NULL && split == 1 && req->batch == 1) { /* gemm_swizzle.c */
        int64_t busiest = simt_gemm_swizzle_busiest(
            ceil_div(req->m, tile->m), ceil_div(req->n, tile->n), ctx->sm_count,
            simt_gemm_mma_sync_resident(ctx->swizzle_gpu, tile, tile_k, ctx->element_bytes));
        if (busiest > full + (rest > 0))
            full = busiest, rest = 0;
    }

    /* the math units compute the whole (padded) tile; the operands fetched
     * are the rows and columns that exist */
    double tile_flops = 2.0 * (double)tile->m * (double)tile->n * (double)k_per_split;
    double rows = (double)(req->m < tile->m ? req->m : tile->m);
    double cols = (double)(req->n < tile->n ? req->n : tile->n);
    double tile_bytes =
        (rows * ctx->a_weight + cols * rate->column_share) * (double)k_per_split * ctx->element_bytes;
    double math_s = tile_flops / tile_rate(rate, tile);
    /* FMA and fallback kernels: operand and output elements pass through
     * the SM's load/store path, one or a few at a time (gemm_tiny.c) */
    double slot_s = simt_gemm_slot_time(req, rate, tile, tile_k, split);
    slot_s = simt_gemm_shortk_slot_time(ctx, rate, tile, slot_s); /* fp32, K of one stage: gemm_shortk.c */
    if (slot_s > math_s)
        math_s = slot_s;
    double stage_bytes = tile_bytes / (double)k_per_split * (double)tile_k;
    double fed = tile_bytes * (double)c->tiles, sms = (double)ctx->sm_count;
    double feed_full_s =
        tile_bytes / l2_feed(rate, tile, sms, stage_bytes, simt_gemm_dram_queue_s_per_byte(ctx, sms, fed));
    double feed_rest_s = rest > 0
                             ? tile_bytes / l2_feed(rate, tile, (double)rest, stage_bytes,
                                                    simt_gemm_dram_queue_s_per_byte(ctx, (double)rest, fed))
                             : 0.0;
    double waves = (double)full + (rest > 0 ? 1.0 : 0.0);
    c->compute_s = waves * math_s;
    c->l2_s = (double)full * feed_full_s + feed_rest_s;
    double busy = (double)full * (math_s > feed_full_s ? math_s : feed_full_s);
    if (rest > 0)
        busy += math_s > feed_rest_s ? math_s : feed_rest_s;

    simt_gemm_dram_traffic(ctx, c);
    /* split-K, in the same kernel (Hopper on): all but one split write fp32
     * partials and the last reads them back through L2 before the
     * epilogue, after a memset has zeroed the semaphores they meet at.
     * In a second kernel (before Hopper, and the fallback kernels): every
     * split writes its partial, and the reduction kernel reads them and
     * writes C (gemm_reduce.c). */
    if (split > 1 || ctx->reduce_kernel_always) {
        double mn = (double)req->batch * (double)req->m * (double)req->n * 4.0;
        c->reduce_s = simt_gemm_split_k_reduce(ctx, split);
        if (split > 1 && ctx->reduce_in_kernel && ctx->l2_bytes_per_s > 0.0) {
            /* serial: the splits of a tile take a semaphore in turn
             * (CUTLASS's serial split-K, include/cutlass/gemm/kernel/
             * gemm.h: semaphore.wait(threadblock_tile_offset.k()) before an
             * epilogue that reads the D the split before wrote), each
             * waiting on the lock and reading the partial so far: two L2
             * round trips per split that no other work hides */
            double serial_s = 2.0 * (double)(split - 1) * mn / ctx->l2_bytes_per_s + ctx->memset_s +
                              2.0 * (double)(split - 1) * ctx->l2_latency_s;
            if (serial_s < c->reduce_s) {
                c->reduce_s = serial_s;
                c->serial_reduce = 1;
            }
        }
        simt_gemm_fp64_serial_reduce(ctx, split, c);
        simt_gemm_fma_serial_reduce(ctx, split, c); /* fp32's in-kernel chain (gemm_splitk.c) */
        simt_gemm_xmma_second_pass(ctx, split, tile, c);
    }
    simt_gemm_finish(ctx, busy, waves, c);
}

/* Stream-K (cuBLAS's Hopper kernels): the K iterations of all tiles are
 * shared out evenly over the SMs, so no wave runs part-empty; an SM whose
 * share ends inside a tile hands its fp32 partial to the tile's owner
 * through L2. */
static void evaluate_stream_k(const struct shape_context *ctx, const struct kernel_rate *rate,
                              const struct tile_shape *tile, int tile_k, struct candidate *c)
{
    const struct simt_gemm_request *req = ctx->req;
    int64_t k_tiles = ceil_div(req->k, tile_k);
    /* output tiles are bounded by the size check (at most m * n * batch <=
     * 2^53); their K iterations are not: counted in floating point */
    int64_t output_tiles = ceil_div(req->m, tile->m) * ceil_div(req->n, tile->n) * req->batch;
    double iterations = (double)output_tiles * (double)k_tiles;
    double per_sm = simt_gemm_stream_k_share(ceil(iterations / (double)ctx->sm_count), k_tiles);
    memset(c, 0, sizeof *c);
    c->tile = tile;
    c->tile_k = tile_k;
    c->split = 1;
    c->stream_k = 1;
    c->tiles = output_tiles;
    c->waves = (double)output_tiles / (double)ctx->sm_count;
    double rows = (double)(req->m < tile->m ? req->m : tile->m);
    double cols = (double)(req->n < tile->n ? req->n : tile->n);
    double iteration_flops = 2.0 * (double)tile->m * (double)tile->n * (double)tile_k;
    double iteration_bytes =
        (rows * ctx->a_weight + cols * rate->column_share) * (double)tile_k * ctx->element_bytes;
    double active = ceil(iterations / per_sm); /* at most the SMs */
    double math_s = iteration_flops / tile_rate(rate, tile);
    double feed_s =
        iteration_bytes / l2_feed(rate, tile, active, iteration_bytes,
                                  simt_gemm_dram_queue_s_per_byte(ctx, active, iteration_bytes * iterations));
    c->compute_s = per_sm * math_s;
    c->l2_s = per_sm * feed_s;
    double busy = per_sm * (math_s > feed_s ? math_s : feed_s);
    simt_gemm_dram_traffic(ctx, c);
    if (fmod(iterations, (double)ctx->sm_count) > 0.0 || output_tiles % ctx->sm_count != 0) {
        double partial_bytes = 2.0 * active * (double)tile->m * (double)tile->n * 4.0;
        double bw = ctx->l2_bytes_per_s > 0.0 ? ctx->l2_bytes_per_s : ctx->dram_bytes_per_s;
        /* the owner of a shared tile waits on its peers' flag, then
         * reads their partials: two L2 round trips no other work hides */
        c->reduce_s = partial_bytes / bw + ctx->memset_s + 2.0 * ctx->l2_latency_s;
        c->serial_reduce = 1;
    }
    /* each SM still starts and ends its share of the tiles */
    simt_gemm_finish(ctx, busy, ceil(c->waves), c);
}

/* Tries every tile with every split factor, and stream-K where the library
 * has it; keeps the least time (ties to the larger tile, then the smaller
 * split, then data-parallel). */
static void choose_among(const struct shape_context *ctx, const struct kernel_rate *rate,
                         const struct tile_shape *tiles, size_t tile_count, int tile_k, int stream_k,
                         struct candidate *best)
{
    for (size_t i = 0; i < tile_count; i++) {
        struct candidate c;
        for (size_t s = 0; s < sizeof split_factors / sizeof split_factors[0]; s++) {
            int split = ctx->fixed_split > 0 ? ctx->fixed_split : split_factors[s];
            if (ctx->fixed_split > 0 && s > 0)
                break;
            /* every split must get at least one K tile */
            int piece_k = ctx->split_piece_k > 0 ? ctx->split_piece_k : tile_k;
            if (split > 1 && (((int64_t)split * piece_k > ctx->req->k && !ctx->fixed_split) || !ctx->split_k))
                break;
            if (!ctx->fixed_split && !simt_gemm_split_fits(ctx, rate, &tiles[i], split))
                break;
            evaluate(ctx, rate, &tiles[i], tile_k, split, &c);
            if (c.time_s < best->time_s)
                *best = c;
        }
        int fill = simt_gemm_fill_split(ctx, rate, &tiles[i], tile_k); /* gemm_splitk.c */
        if (fill > 0)
            evaluate(ctx, rate, &tiles[i], tile_k, fill, &c);
        if (fill > 0 && c.time_s < best->time_s)
            *best = c;
        if (stream_k) {
            evaluate_stream_k(ctx, rate, &tiles[i], tile_k, &c);
            if (c.time_s < best->time_s)
                *best = c;
        }
    }
}

/* The least L2 feed an SM gets. The peak was reached by the library's
 * largest tile, so the feed is never taken below what that tile needs: only
 * smaller tiles (fewer flops per operand byte) are slowed by it. */
static double l2_floor(double sm_flops_per_s, const struct gemm_path *path, double element_bytes,
                       double a_weight, double column_share)
{
    double best_intensity = 0.0;
    for (size_t i = 0; i < path->tile_count; i++) {
        double tm = path->tiles[i].m, tn = path->tiles[i].n;
        double intensity = 2.0 * tm * tn / ((tm * a_weight + tn * column_share) * element_bytes);
        if (intensity > best_intensity)
            best_intensity = intensity;
    }
    return sm_flops_per_s / best_intensity;
}

/* Everything one prediction sets up before it tries the candidates. */
struct gemm_setup {
    struct gemm_path path;
    struct gemm_path fma_path; /* GEMV: the FMA units' path (peak 0 when not tried) */
    struct shape_context ctx;
    struct kernel_rate rate;
    int tile_k;
    int stream_k;
    int register_fed_b;
    int mma_sync_int8; /* int8 on Hopper: torch._int_mm's Ampere-generation kernels */
    int mma_sync_tf32; /* tf32 on Hopper with short K or a small output: Ampere's mma.sync kernels */
    int async_mma;     /* Hopper on, a type of the asynchronous warpgroup MMA: TMA, clusters, stream-K */
    double calibration_wave_efficiency;
    double dram_bw;
    double l2_bw;
    double clock;
    double latency_s;
    double l2_latency_cycles;
    double in_flight_latency_s;   /* the latency the SMs' bytes in flight wait */
    struct simt_gemm_boost boost; /* a single call's rate before the power limit */
    simt_figure_mask used;
};

/* The DRAM, L2 and latency figures and the per-candidate context. */
static void setup_context(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                          const struct simt_figure_set *figures, struct gemm_setup *s)
{
    double element_bytes = simt_gemm_element_bytes(req->dtype);
    s->dram_bw = simt_figure_get(figures, SIMT_FIG_DRAM_BANDWIDTH);
    s->l2_bw = simt_figure_get(figures, SIMT_FIG_L2_BANDWIDTH);
    if (s->l2_bw > 0.0)
        s->used |= SIMT_FIG_BIT(SIMT_FIG_L2_BANDWIDTH);
    s->clock = simt_figure_get(figures, SIMT_FIG_CLOCK);
    double dram_latency_cycles = simt_figure_get(figures, SIMT_FIG_DRAM_LATENCY);
    s->l2_latency_cycles = simt_figure_get(figures, SIMT_FIG_L2_LATENCY);
    s->latency_s = s->clock > 0.0 ? dram_latency_cycles / s->clock : 0.0;
    if (s->latency_s > 0.0)
        s->used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_LATENCY) | SIMT_FIG_BIT(SIMT_FIG_CLOCK);

    struct shape_context *ctx = &s->ctx;
    ctx->req = req;
    ctx->element_bytes = element_bytes;
    ctx->a_weight = req->sparse ? simt_gemm_sparse_a_bytes(req->dtype) / element_bytes : 1.0;
    ctx->out_bytes = simt_gemm_output_bytes(req->dtype);
    ctx->sm_count = gpu->sm_count;
    ctx->dram_bytes_per_s = s->dram_bw;
    ctx->dram_write_bytes_per_s = simt_figure_get(figures, SIMT_FIG_DRAM_WRITE_BANDWIDTH);
    ctx->dram_copy_bytes_per_s = simt_figure_get(figures, SIMT_FIG_DRAM_COPY_BANDWIDTH);
    if (!(ctx->dram_write_bytes_per_s > 0.0))
        ctx->dram_write_bytes_per_s = s->dram_bw;
    if (!(ctx->dram_copy_bytes_per_s > 0.0))
        ctx->dram_copy_bytes_per_s = s->dram_bw;
    s->used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_WRITE_BANDWIDTH) | SIMT_FIG_BIT(SIMT_FIG_DRAM_COPY_BANDWIDTH);
    ctx->l2_bytes_per_s = s->l2_bw;
    if (req->launches == SIMT_GEMM_LAUNCH_BACK_TO_BACK) {
        ctx->launch_s = 0.0;
        ctx->floor_s = KERNEL_FLOOR_S;
    } else {
        ctx->launch_s = simt_figure_get(figures, SIMT_FIG_LAUNCH_OVERHEAD);
        ctx->floor_s = SINGLE_KERNEL_FLOOR_S;
        ctx->dirty_bytes = req->launches == SIMT_GEMM_LAUNCH_IN_CHAIN
                               ? 0.0
                               : SIMT_COLD_L2_DIRTY_FRACTION * (double)gpu->l2_bytes;
        ctx->l2_total_bytes = (double)gpu->l2_bytes;
        s->used |= SIMT_FIG_BIT(SIMT_FIG_LAUNCH_OVERHEAD);
    }
    ctx->second_kernel_s = KERNEL_FLOOR_S;
    ctx->reduce_in_kernel = s->path.tensor && gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 9;
    ctx->fill_s = 2.0 * s->latency_s;
    ctx->memset_s = WORKSPACE_MEMSET_S;
    ctx->split_k = 1;
    ctx->l2_latency_s = s->clock > 0.0 ? s->l2_latency_cycles / s->clock : 0.0;
    simt_gemm_reduce_setup(gpu, s->latency_s, ctx);
    s->tile_k = s->path.tile_k_bytes * 8 / simt_gemm_tile_bits(req->dtype);
    if (s->tile_k < 1)
        s->tile_k = 1;
}

/* The Ampere-generation kernels (mma.sync, cp.async) cuBLAS runs for
 * unaligned shapes, for int8 on Hopper and for tf32's short-K and small
 * GEMMs on Hopper: the fallback fraction of the rate, their own tiles. */
static void use_mma_sync(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                         int alignment_ok, struct gemm_setup *s)
{
    struct kernel_rate *rate = &s->rate;
    const struct gemm_path *path = &s->path;
    double element_bytes = s->ctx.element_bytes, a_weight = s->ctx.a_weight;
    /* the fallback kernels are the older data-parallel ones: no
     * stream-K, no TMA multicast, split-K reduced by a second kernel */
    rate->unaligned = 1;
    rate->column_share = 1.0;
    rate->l2_floor_per_sm = l2_floor(rate->sm_flops_per_s, path, element_bytes, a_weight, rate->column_share);
    s->stream_k = 0;
    s->ctx.reduce_in_kernel = 0;
    if (s->mma_sync_int8) {
        /* CUTLASS 2.x's epilogue follows the mainloop in the block (back
         * to back, int8 8192^2 x K: 87.6 us at K = 16 for 268 MB of int32
         * C, 147.7 us at K = 512: math plus stores, gemm.json) */
        s->ctx.epilogue_after_mainloop = 1;
        /* their own tiles; one block per output tile: no int8 kernel
         * seen splits K (grid z of 1, no reduction kernel) */
        simt_gemm_int8_mma_sync_tiles(req, &s->path.tiles, &s->path.tile_count);
        simt_gemm_mma_sync_setup(gpu, s->in_flight_latency_s, s->clock, NONTMA_FRACTION,
                                 &s->ctx); /* blocks an SM: gemm_mma_sync.c */
        s->ctx.split_k = 0;
    }
    if (s->mma_sync_tf32) {
        /* their own tiles and stages; split-K with cuBLAS's reduction
         * kernel, which outputs of a few tiles get unsplit too; each
         * wave's stores of C after its math (gemm_family.c) */
        simt_gemm_tf32_mma_sync_tiles(&s->path.tiles, &s->path.tile_count);
        s->ctx.swizzle_gpu = gpu; /* their grids, swizzled: gemm_swizzle.c */
        rate->sm_intake_bytes_per_s = simt_gemm_tf32_sm_intake(gpu, rate->l2_bytes_per_s);
        s->ctx.reduce_kernel_always =
            (alignment_ok && simt_gemm_tf32_reduce_kernel(gpu, req)) ||
            simt_gemm_shortk_reduce_kernel(gpu, req, alignment_ok); /* gemm_shortk.c */
    }
    if (!alignment_ok && (req->dtype == SIMT_DTYPE_FP16 || req->dtype == SIMT_DTYPE_BF16))
        simt_gemm_fallback16_tiles(gpu, &s->ctx, &s->path.tiles, &s->path.tile_count); /* gemm_family.c */
    simt_gemm_bf16_align1_setup(gpu, req, s->in_flight_latency_s, &s->ctx, rate, &s->path.tiles,
                                &s->path.tile_count);      /* gemm_align1.c */
    s->ctx.fixed_split = simt_gemm_align1_split(gpu, req); /* tiny 16-bit outputs (gemm_splitk.c) */
    /* with no clock figure only the non-TMA fraction applies */
    /* aligned (int8): 16-byte loads, no limit beyond the fraction */
    rate->loads_per_s_per_sm =
        alignment_ok     ? HUGE_VAL
        : s->clock > 0.0 ? SCALAR_LOADS_PER_CLOCK_PER_SM *
                               (double)simt_gemm_slot_elements(req->k, req->n, element_bytes) * s->clock
                         : HUGE_VAL;
    s->used |= SIMT_FIG_BIT(SIMT_FIG_CLOCK);
}

/* How fast an SM runs the path's kernels: the peak (de-quantized when it
 * was measured at the calibration shape), the L2 feed, and the limits of
 * tf32's register-fed B, the FMA kernels' load/store path and the
 * fallback kernels of unaligned shapes. */
static void setup_rate(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req, int alignment_ok,
                       struct gemm_setup *s)
{
    const struct gemm_path *path = &s->path;
    double element_bytes = s->ctx.element_bytes, a_weight = s->ctx.a_weight;
    struct kernel_rate *rate = &s->rate;
    int hopper_tensor = path->tensor && gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 9;
    rate->sm_flops_per_s = path->peak_flops_per_s / (double)gpu->sm_count;
    rate->l2_bytes_per_s = s->l2_bw;
    /* the latency an operand load waits: DRAM's, or L2's for back-to-back
     * calls whose operands (the same each call) stay in L2 */
    double in_flight_latency_s = s->latency_s;
    /* loads in flight that wait DRAM's latency queue at its read rate */
    s->ctx.dram_queue_bytes_per_s = s->latency_s > 0.0 ? s->dram_bw : 0.0;
    double working_set = (double)req->batch *
                             ((double)req->m * (double)req->k * a_weight + (double)req->k * (double)req->n) *
                             element_bytes +
                         (double)req->batch * (double)req->m * (double)req->n * (double)s->ctx.out_bytes;
    double l2_latency_s = s->clock > 0.0 ? s->l2_latency_cycles / s->clock : 0.0;
    if (req->launches == SIMT_GEMM_LAUNCH_BACK_TO_BACK && working_set <= gpu->l2_bytes &&
        l2_latency_s > 0.0) {
        in_flight_latency_s = l2_latency_s;
        s->ctx.dram_queue_bytes_per_s = 0.0;
        s->used |= SIMT_FIG_BIT(SIMT_FIG_L2_LATENCY);
    }
    rate->in_flight_stages_per_s =
        in_flight_latency_s > 0.0 ? IN_FLIGHT_STAGES / in_flight_latency_s : HUGE_VAL;
    s->in_flight_latency_s = in_flight_latency_s;
    /* Hopper on, the asynchronous warpgroup MMA (wgmma; tcgen05 on
     * Blackwell) and its kernels: TMA, clusters, stream-K. FP64 is not
     * among its types (PTX ISA, wgmma.mma_async; LLVM's NVVM dialect lists
     * them as WGMMATypes: f16, tf32, u8, s8, b1, bf16, e4m3, e5m2,
     * reviews.llvm.org/D157695): FP64 tensor-core GEMMs run the warp-level mma.sync
     * (DMMA) kernels, data-parallel with split-K (cuBLAS 13.1 on an H200:
     * cutlass_80_tensorop_d884gemm and sm90_xmma ..._tensor16x8x16 kernels,
     * their K split over gridDim.z, tests/gpu/results/h200/gemm_probe.json) */
    s->async_mma = hopper_tensor && req->dtype != SIMT_DTYPE_FP64;
    /* blocks run in clusters of two along M that share each B tile, fetched
     * from L2 once and multicast by TMA to both */
    rate->column_share = s->async_mma ? 0.5 : 1.0;
    rate->l2_floor_per_sm = l2_floor(rate->sm_flops_per_s, path, element_bytes, a_weight, rate->column_share);
    s->stream_k = s->async_mma; /* cuBLAS's asynchronous-MMA kernels can schedule stream-K, */
    simt_gemm_fp8_schedule(gpu, req, &s->stream_k, &s->ctx.split_k); /* not fp8's of few tiles */
    s->ctx.staged_epilogue_bytes_per_s = simt_gemm_staged_epilogue_rate(gpu, req, s->async_mma, s->clock);

    /* A measured tensor-core figure is a cuBLASLt GEMM of the calibration
     * shape, its wave quantization included: the SMs' own rate is that much
     * higher. An achievable fraction is the same kind of figure (a library
     * GEMM of a large square over the datasheet): de-quantized the same way,
     * so that two GPUs of one die, one measured and one not, agree. */
    s->calibration_wave_efficiency = 1.0;
    if ((path->measured || path->achievable) && path->tensor) {
        struct simt_gemm_request calibration = *req;
        calibration.m = calibration.n = calibration.k = CALIBRATION_DIMENSION;
        calibration.batch = 1;
        struct shape_context cal = s->ctx;
        cal.req = &calibration;
        /* the tile the library ran it with is the one its math alone
         * picks: no feed or latency limit, so that the de-quantization, and
         * with it the answer, never moves against a memory figure */
        struct kernel_rate math_only = *rate;
        math_only.l2_bytes_per_s = 0.0;
        math_only.in_flight_stages_per_s = HUGE_VAL;
        cal.dram_bytes_per_s = cal.dram_write_bytes_per_s = cal.dram_copy_bytes_per_s = HUGE_VAL;
        cal.dram_queue_bytes_per_s = 0.0;
        struct candidate c;
        memset(&c, 0, sizeof c);
        c.time_s = HUGE_VAL;
        choose_among(&cal, &math_only, path->tiles, path->tile_count, s->tile_k, 0, &c);
        s->calibration_wave_efficiency = c.waves / ceil(c.waves);
        rate->sm_flops_per_s *= simt_gemm_staged_epilogue_factor(&cal, &c, s->calibration_wave_efficiency) /
                                s->calibration_wave_efficiency; /* gemm_cost.c */
        rate->l2_floor_per_sm =
            l2_floor(rate->sm_flops_per_s, path, element_bytes, a_weight, rate->column_share);
    }
    /* tf32 on wgmma: row-major B fed through registers (mma.sync loads
     * its fragments from shared memory in any layout) */
    s->mma_sync_tf32 = path->tensor && simt_gemm_tf32_mma_sync(gpu, req);
    s->register_fed_b = hopper_tensor && req->dtype == SIMT_DTYPE_TF32 && s->clock > 0.0 && !s->mma_sync_tf32;
    /* tf32's kernels on Hopper, wgmma and mma.sync alike, compute a tile
     * and then store it: one consumer warpgroup (sm90_xmma ..._
     * warpgroupsize1x1x1, 2x1x1 cooperating on one tile) or mma.sync warps
     * with a shared-memory epilogue, none overlapping the next tile's math
     * with this one's stores (gemm_family.c) */
    s->ctx.epilogue_after_mainloop = hopper_tensor && req->dtype == SIMT_DTYPE_TF32;
    if (s->register_fed_b) {
        rate->register_b_per_s_per_sm = SCALAR_LOADS_PER_CLOCK_PER_SM * s->clock;
        s->used |= SIMT_FIG_BIT(SIMT_FIG_CLOCK);
    }
    if (!path->tensor) {
        s->ctx.fixed_split = simt_gemm_fma_split(gpu, req);
        s->ctx.fma_skinny_rows = gpu->vendor == SIMT_VENDOR_NVIDIA; /* cuBLAS's tiles: gemm_skinny.c */
        s->path.tile_count = simt_gemm_fma_tile_count(gpu, req, s->path.tile_count);
        simt_gemm_shortk_setup(gpu, req, s->tile_k, &s->ctx, &s->path.tiles, &s->path.tile_count);
        simt_gemm_fma_serial_setup(gpu, req, &s->ctx, &s->path.tiles, &s->path.tile_count);
        s->ctx.xmma_two_pass = gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 9 &&
                               req->dtype == SIMT_DTYPE_FP32 && !s->ctx.fixed_split && !s->ctx.fma_serial &&
                               (req->m >= XMMA_TWO_PASS_MIN_SIDE || req->n >= XMMA_TWO_PASS_MIN_SIDE);
        simt_gemm_fma_window_setup(gpu, req, &s->ctx, &s->path.tiles, &s->path.tile_count);
    }
    if (!path->tensor && s->clock > 0.0) {
        rate->staged_per_s_per_sm = SIMT_STAGED_PER_CLOCK_PER_SM * s->clock;
        s->used |= SIMT_FIG_BIT(SIMT_FIG_CLOCK);
        simt_gemm_fma_stage_latency(gpu, req, s->latency_s, rate); /* lone blocks (gemm_tiny.c) */
    }
    /* int8 through torch._int_mm on Hopper: cuBLAS runs Ampere's mma.sync
     * kernels for it (cutlass_80_tensorop_i16832gemm_s8,
     * tests/gpu/results/h200/gemm_kernels.json), the same kind of kernel as
     * the fallback kernels of unaligned shapes: priced the same way */
    s->mma_sync_int8 = hopper_tensor && req->dtype == SIMT_DTYPE_INT8;
    if (path->tensor && (!alignment_ok || s->mma_sync_int8 || s->mma_sync_tf32))
        use_mma_sync(gpu, req, alignment_ok, s);
    if (path->tensor) /* FP64 on Hopper: its split over every SM, its stores (gemm_fp64.c) */
        simt_gemm_fp64_setup(gpu, req, s->latency_s, &s->ctx, &s->path.tiles, &s->path.tile_count);
}

/* A matrix-vector product: GEMV on the FMA units, operands streamed once
 * (no reuse for L2 to feed); replaces *best when faster. Not sparse. */
static void try_gemv(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                     const struct simt_figure_set *figures, struct gemm_setup *s, struct candidate *best)
{
    memset(&s->fma_path, 0, sizeof s->fma_path);
    if (req->sparse || (req->m != 1 && req->n != 1))
        return;
    s->fma_path.figure = SIMT_FIG_FP32;
    finish_path(figures, &s->fma_path);
    if (!(s->fma_path.peak_flops_per_s > 0.0) || s->fma_path.bare_datasheet)
        return;
    struct kernel_rate gemv;
    memset(&gemv, 0, sizeof gemv);
    gemv.sm_flops_per_s = s->fma_path.peak_flops_per_s / (double)gpu->sm_count;
    gemv.column_share = 1.0;
    /* a GEMV kernel streams its operand with every warp of a full SM, no
     * K-stage pipeline: the tile kernels' cap on stages in flight does not
     * bound it (on a B200 it would hold a 16384^2 GEMV under 80% of DRAM) */
    gemv.in_flight_stages_per_s = HUGE_VAL;
    int gemv_k = 256 / simt_gemm_tile_bits(req->dtype);
    /* a GEMV kernel of its own: none of the tile kernels' epilogue or
     * reduction kernel */
    struct shape_context ctx = s->ctx;
    ctx.epilogue_after_mainloop = ctx.reduce_kernel_always = ctx.fixed_split = ctx.serial_reduce_kernel = 0;
    ctx.fma_serial = ctx.xmma_two_pass = 0;
    ctx.swizzle_gpu = NULL;
    ctx.last_wave_stores_exposed = 0;
    struct candidate c;
    memset(&c, 0, sizeof c);
    c.time_s = HUGE_VAL;
    choose_among(&ctx, &gemv, req->m == 1 ? &gemv_row : &gemv_column, 1, gemv_k, 0, &c);
    simt_gemm_gemv_walk_apply(gpu, req, s->in_flight_latency_s, ctx.launch_s, &c); /* gemm_gemv.c */
    if (c.time_s < best->time_s || c.gemv_walk) { /* where cuBLAS runs a walk kernel, it runs */
        *best = c;
        best->gemv = 1;
        s->used |= SIMT_FIG_BIT(SIMT_FIG_FP32);
    }
}

/* cuBLAS's streaming kernels of few rows where they run (gemm_small_n.c)
 * and no other does (ctx.fma_window; not sparse): they replace *best. */
static void try_small_n(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                        const struct simt_figure_set *figures, struct gemm_setup *s, struct candidate *best)
{
    if (req->sparse || s->ctx.fma_window != SIMT_GEMM_FMA_USUAL || !simt_gemm_small_n_runs(gpu, req) ||
        !(s->in_flight_latency_s > 0.0) || !(s->path.peak_flops_per_s > 0.0))
        return;
    struct simt_gemm_small_n_inputs in = {s->ctx.element_bytes, s->in_flight_latency_s,
                                          simt_figure_get(figures, SIMT_FIG_DRAM_ROW_CYCLE),
                                          s->ctx.dram_queue_bytes_per_s};
    struct simt_gemm_small_n sn;
    simt_gemm_small_n_stream(gpu, req, &in, &sn);
    static const struct tile_shape sn_tile = {4, SIMT_GEMM_SMALL_N_COLUMNS, 0};
    static const struct tile_shape largek_tile = {8, SIMT_GEMM_SMALL_N_COLUMNS, 0};
    struct candidate c;
    memset(&c, 0, sizeof c);
    c.tile = sn.kernel == SIMT_GEMM_STREAM_LARGEK ? &largek_tile : &sn_tile;
    c.tile_k = 16 / (int)s->ctx.element_bytes;
    c.split = sn.split;
    c.small_n = sn.kernel;
    c.tiles = sn.blocks;
    c.waves = (double)c.tiles / (double)gpu->sm_count;
    c.compute_s = 2.0 * (double)req->m * (double)req->n * (double)req->k * (double)req->batch /
                  s->path.peak_flops_per_s;
    simt_gemm_dram_traffic(&s->ctx, &c);
    /* the stream's time: DRAM's rate, or the blocks' bytes in flight */
    if (sn.stream_s > c.dram_s)
        c.dram_s = sn.stream_s;
    c.reduce_s = sn.chain_s;
    simt_gemm_finish(&s->ctx, c.compute_s, sn.rounds, &c);
    if (in.row_cycle_s > 0.0 && in.queue_bytes_per_s > 0.0)
        s->used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_ROW_CYCLE);
    *best = c;
}

/* The chosen candidate into the answer, and what bounds it. */
static void fill_result(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                        const struct gemm_setup *s, const struct candidate *best,
                        struct simt_gemm_result *out)
{
    struct simt_gemm_quantization q;
    simt_gemm_quantize(req->m, req->n, req->batch, best->tile->m, best->tile->n, gpu->sm_count, &q);
    out->time_s = best->time_s;
    out->achieved_flops_per_s = out->flops / best->time_s;
    out->tile_m = best->tile->m;
    out->tile_n = best->tile->n;
    out->tile_k = best->tile_k;
    out->split_k = best->split;
    out->stream_k = best->stream_k;
    out->tensor_cores = best->gemv || s->ctx.outer_product ? 0 : s->path.tensor;
    out->tiles = best->tiles;
    out->waves = best->waves;
    out->tile_efficiency = q.tile_efficiency;
    out->wave_efficiency = best->waves / ceil(best->waves);
    out->dram_bandwidth_bytes_per_s = s->dram_bw;
    out->dram_bytes = best->dram_bytes;
    out->compute_s = best->compute_s;
    out->l2_s = best->l2_s;
    out->dram_s = best->dram_s;
    out->overhead_s = best->overhead_s;
    out->launch_s = s->ctx.launch_s;
    out->reduce_s = best->reduce_s;
    out->bound = SIMT_GEMM_BOUND_COMPUTE;
    double top = best->compute_s;
    if (best->l2_s > top) {
        top = best->l2_s;
        out->bound = SIMT_GEMM_BOUND_L2;
    }
    if (best->dram_s > top) {
        top = best->dram_s;
        out->bound = SIMT_GEMM_BOUND_DRAM;
    }
    if (best->overhead_s > top)
        out->bound = SIMT_GEMM_BOUND_LAUNCH;
}

/* The kernel's assumptions: which kernel, stream-K, split-K, tf32's B, the
 * FMA kernels' load/store path. */
static void assume_kernel(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                          const struct gemm_setup *s, const struct candidate *best,
                          struct simt_gemm_result *out)
{
    char line[SIMT_GEMM_ASSUMPTION_BYTES];
    if (s->ctx.bf16_align1) /* gemm_align1.c */
        assume(out, "%s", simt_gemm_bf16_align1_phrase(&s->ctx));
    if (best->small_n == SIMT_GEMM_STREAM_LARGEK)
        assume(
            out,
            "kernel: cuBLAS's sgemm_largek (as for FP32 of up to 8 rows with K over half of n on an H200): "
            "one block of 128 threads per 64 columns of B and piece of K (split %d, the least time of the "
            "splits cuBLAS ran), streaming it once, 1.2 KiB in flight per block over the memory latency "
            "plus DRAM's bank queue; the pieces added into C one after another under a lock, 8.7 memory "
            "latencies each (both fitted on an H200)",
            best->split);
    else if (simt_gemm_small_n_line(best, line, sizeof line) ||
             simt_gemm_fp64u_line(best, line, sizeof line) ||
             simt_gemm_walk16_line(best, line, sizeof line) ||
             simt_gemm_column_split_line(best, line, sizeof line) ||
             simt_gemm_gemv_line(req, best, s->fma_path.peak_flops_per_s, line, sizeof line) ||
             simt_gemm_fma_narrow_line(req, best, line, sizeof line))
        assume(out, "%s", line);
    else if (simt_gemm_shortk_line(&s->ctx, best, line, sizeof line) ||
             simt_gemm_fma_window_line(&s->ctx, line, sizeof line))
        assume(out, "%s", line);
    else if (simt_gemm_k1_line(&s->ctx, line, sizeof line)) /* fp64, K = 1 */
        assume(out, "%s", line);
    else if (s->ctx.resident_gpu != NULL && best->tile->stages > 0)
        assume(
            out,
            "tile: %dx%dx%d, %d stages, as cuBLAS's kernel names give for the shape; %d blocks resident per "
            "SM (the shared memory its stages take, by the occupancy rules), priced in rounds of them; a "
            "block alone on its SM at its warps' own pace (a K step's MMAs at the full rate, %.0f cycles "
            "more)",
            out->tile_m, out->tile_n, out->tile_k, best->tile->stages,
            simt_gemm_mma_sync_resident(gpu, best->tile, best->tile_k, s->ctx.element_bytes),
            s->ctx.resident_step_s * s->clock);
    else
        assume(
            out,
            "tile: %dx%dx%d thread-block tile from the %s %s list, one tile per SM at a time, chosen (with "
            "the split-K factor) as the least predicted time",
            out->tile_m, out->tile_n, out->tile_k, simt_gemm_arch_family(gpu),
            s->path.tensor ? "tensor-core" : "FMA (SIMT)");
    if (best->stream_k)
        assume(out,
               "stream-K: the K iterations of the %lld tiles shared out evenly over the %d SMs, so the "
               "part-empty last wave (wave efficiency %.2f) does not cost; partial tiles handed over through "
               "L2%s",
               (long long)best->tiles, gpu->sm_count, out->wave_efficiency,
               best->reduce_s > 0.0 ? ", after a memset of their semaphores (0.85 us, measured on an H200); "
                                      "a shared tile's owner waits two L2 latencies for its peers' flag"
                                    : "");
    simt_gemm_fp64_assume_epilogue(&s->ctx, best, out);
    if (best->split > 1 && !best->small_n && !simt_gemm_fp64_assume_split(&s->ctx, best, out))
        assume(
            out, "split-K %d: K cut across %d blocks per output tile%s; fp32 partial sums reduced %s",
            best->split, best->split, simt_gemm_fixed_split_phrase(s->ctx.req, s->ctx.fixed_split),
            best->serial_reduce
                ? (s->ctx.fma_serial ? "in the same kernel through L2, split after split (one L2 latency "
                                       "each), after a memset (0.85 us, measured on an H200)"
                                     : "in the same kernel through L2, split after split at a semaphore "
                                       "(two L2 latencies each), after a memset of the semaphores (0.85 "
                                       "us, measured on an H200)")
            : s->ctx.xmma_two_pass
                ? "by a second launch of the same kernel (cuBLAS's sm80_xmma FP32 kernels), a thread reading "
                  "one split's partials a round trip at L2's latency"
                : "by a second kernel that reads every split's partial and writes C (cuBLAS's "
                  "splitKreduce_kernel: its fixed cost, then 4 partials a thread per memory latency, "
                  "L2's while they fit in L2, or the busiest SM's share of the bandwidth)");
    if (best->split == 1 && s->ctx.reduce_kernel_always && !s->path.tensor && !best->gemv && !best->small_n)
        assume(out,
               "split-K kernel: cuBLAS runs its split-K SGEMM for small outputs at short K, unsplit here, "
               "with its reduction kernel behind it (gemm_shortk.c)");
    if (s->register_fed_b && !best->gemv)
        assume(out,
               "tf32 B: row-major B reaches wgmma through registers (Hopper's tf32 is K-major only in shared "
               "memory), %.2f elements per clock per SM (the fallback kernels' measured rate for one-element "
               "loads), "
               "each serving 2x%d flops of this tile",
               SCALAR_LOADS_PER_CLOCK_PER_SM, out->tile_m);
    if (s->rate.staged_per_s_per_sm > 0.0 && !best->gemv && !best->small_n)
        assume(out,
               "FMA kernel: every operand and output element passes through the SM's load/store path on its "
               "own, %.1f per clock per SM (fitted to cuBLAS's small-M SGEMM, m = 2..8, on an H200)",
               SIMT_STAGED_PER_CLOCK_PER_SM);
}

/* The figures' assumptions: the peak, alignment, memory, overhead. */
static void assume_figures(const struct simt_gemm_request *req, const struct gemm_setup *s,
                           struct simt_gemm_result *out)
{
    const struct gemm_path *path = &s->path;
    const char *dtype_name = simt_dtype_name(req->dtype);
    if (path->measured && path->tensor)
        assume(
            out,
            "peak: %s tensor cores, %.4g flop/s measured as a cuBLASLt %d^3 GEMM; the SMs' own rate is that "
            "over its wave efficiency %.3f",
            dtype_name, path->hardware_flops_per_s, CALIBRATION_DIMENSION, s->calibration_wave_efficiency);
    else if (path->tensor && req->sparse)
        assume(out,
               "peak: %s 2:4 sparse tensor cores (A structured sparse), %.4g flop/s: the datasheet's sparse "
               "rate "
               "times the dense rate's achievable fraction (ESTIMATE: no sparse GEMM measured), flops "
               "counted as "
               "the dense product's 2mnk; the SMs' own rate is that over the wave efficiency %.3f of a %d^3",
               dtype_name, path->hardware_flops_per_s, s->calibration_wave_efficiency, CALIBRATION_DIMENSION);
    else if (path->tensor)
        assume(
            out,
            "peak: %s dense tensor cores, %.4g flop/s: the datasheet's times the achievable fraction in the "
            "database, what a library GEMM of a large square (taken as %d^3) reaches; the SMs' own rate is "
            "that over its wave efficiency %.3f",
            dtype_name, path->hardware_flops_per_s, CALIBRATION_DIMENSION, s->calibration_wave_efficiency);
    else
        assume(out,
               "peak: %s FMA units, %.4g flop/s (%s FMA-loop rate) x %.2f (cuBLAS SGEMM against the FMA loop "
               "on an H200: its inner loop also issues shared-memory loads) = %.4g flop/s",
               dtype_name, path->hardware_flops_per_s,
               path->measured ? "the measured" : "the datasheet's times the achievable fraction: an",
               path->library_fraction, path->peak_flops_per_s);
    if (s->boost.factor > 1.0)
        assume(
            out,
            "one call on an idle GPU: its tensor work runs %.3g times the sustained rate for its first %.3g "
            "s (until the board's power limit pulls the clock down), the rest at the sustained rate: "
            "%.3g times on the whole; back-to-back calls run at the sustained rate",
            s->boost.ratio, s->boost.window_s, s->boost.factor);
    char dirty_line[192] = "";
    if (s->ctx.dirty_bytes > 0.0)
        snprintf(dirty_line, sizeof dirty_line,
                 "; the fills evict and write back earlier work's dirty lines, of %.3g bytes found in L2 "
                 "(a cold call's share, as the kernel model takes it)",
                 s->ctx.dirty_bytes);
    int slot_width = simt_gemm_slot_elements(req->k, req->n, s->ctx.element_bytes);
    if (!out->alignment_ok && path->tensor)
        assume(
            out,
            "alignment: k or n is not a multiple of %d elements (16 bytes): no TMA; the fallback kernels run "
            "at %.2f of the aligned rate at best and issue %.2f operand load slots per clock per SM, each "
            "carrying %d element%s (as many as the alignment allows, at most 4 bytes; measured on an "
            "H200)%s",
            out->alignment_elements, NONTMA_FRACTION, SCALAR_LOADS_PER_CLOCK_PER_SM, slot_width,
            slot_width == 1 ? "" : "s", simt_gemm_fallback_phrase(req, out->tile_n)); /* gemm_tiny.c */
    else if (s->mma_sync_int8)
        assume(
            out,
            "int8: torch._int_mm runs Ampere-generation mma.sync kernels on Hopper (cutlass_80 i16832 on an "
            "H200), not the cuBLASLt kernel behind the int8 figure: priced as the fallback kernels, %.2f of "
            "the rate, no stream-K, no TMA multicast, no split-K, their own tiles%s with the stages in "
            "flight their names give",
            NONTMA_FRACTION,
            simt_gemm_int8_large_tile(req) ? " (128-row ones only: K >= 8192, 2^20 outputs)" : "");
    else if (s->mma_sync_tf32)
        assume(out,
               "tf32: cuBLAS runs Ampere-generation mma.sync kernels (cutlass_80 s1688) for K under 128 or a "
               "small "
               "output (seen on an H200): priced as the fallback kernels, %.2f of the rate, their own tiles, "
               "split-K by a second kernel%s",
               NONTMA_FRACTION,
               s->ctx.reduce_kernel_always ? ", which an output of few tiles gets unsplit too" : "");
    else if (!out->alignment_ok)
        assume(
            out,
            "alignment: k or n is not a multiple of %d elements (16 bytes); the FMA path takes no slowdown "
            "for it",
            out->alignment_elements);
    assume(
        out,
        "memory: A and B read (%g-byte elements) and C written (%d-byte elements) once through DRAM, as "
        "many bytes as are both read and written at the copy rate, the rest at the read or the write rate; "
        "operand tiles fed to each SM from L2%s%s",
        s->ctx.element_bytes, s->ctx.out_bytes,
        s->l2_bw > 0.0 ? "" : " (no L2 bandwidth figure: not a limit)", dirty_line);
    if (req->sparse || simt_gemm_narrow(req->dtype)) {
        char line[SIMT_GEMM_ASSUMPTION_BYTES];
        simt_gemm_describe_operands(req, out->alignment_elements, line, sizeof line);
        assume(out, "%s", line);
    }
    if (req->launches == SIMT_GEMM_LAUNCH_BACK_TO_BACK && !s->ctx.outer_product)
        assume(
            out,
            "overhead: one of a stream of back-to-back calls, its launch hidden behind the previous kernel: "
            "%.3g s per GEMM kernel (the gap between back-to-back cuBLAS GEMMs on an H200) plus two DRAM "
            "latencies (%.3g s) per wave for the first loads and the last stores",
            KERNEL_FLOOR_S, 2.0 * s->latency_s);
    else if (!s->ctx.outer_product) /* gemm_k1.c's kernel line states its own */
        assume(out,
               "overhead: one call on an idle GPU: the launch overhead (%.3g s) plus %.3g s of the kernel's "
               "own prologue and epilogue (fitted to single cuBLAS calls on an H200) plus two DRAM latencies "
               "(%.3g s) per wave for the first loads and the last stores; \"launches\": \"back_to_back\" "
               "for one of a stream of calls",
               s->ctx.launch_s, SINGLE_KERNEL_FLOOR_S, 2.0 * s->latency_s);
    if (s->ctx.epilogue_after_mainloop)
        assume(out, "epilogue: these kernels (tf32 and int8 on Hopper) store C after a tile's math, not "
                    "under the next tile's: "
                    "C's DRAM writes add to the time");
    if (s->rate.in_flight_stages_per_s < HUGE_VAL)
        assume(
            out,
            "latency: an SM keeps at most %.2g K stages of its tile's operands in flight (fitted to single "
            "cuBLAS calls on an H200), %.4g stages per second over the %s latency",
            IN_FLIGHT_STAGES, s->rate.in_flight_stages_per_s,
            s->in_flight_latency_s < s->latency_s ? "L2 (back-to-back calls, operands held in L2)" : "DRAM");
}

int simt_gemm_predict(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                      struct simt_gemm_result *out, struct simt_diag *diag)
{
    int rc = simt_gemm_check_request(gpu, req, diag);
    if (rc != SIMT_OK)
        return rc;
    if (simt_gemm_tf32_k1_runs(gpu, req)) /* cuBLAS's FMA kernel (gemm_tf32_k1.c) */
        return simt_gemm_tf32_k1_predict(gpu, req, out, diag);
    memset(out, 0, sizeof *out);

    simt_figure_set_init(gpu, req->policy, &out->figures);
    const struct simt_figure_set *figures = &out->figures;
    struct gemm_setup s;
    memset(&s, 0, sizeof s);
    rc = choose_path(gpu, figures, req->dtype, req->sparse, &s.path, diag);
    if (rc == SIMT_OK)
        rc = simt_gemm_check_alignment(req, diag);
    if (rc != SIMT_OK)
        return rc;
    rc = simt_figure_require(figures, SIMT_FIG_DRAM_BANDWIDTH, diag);
    if (rc != SIMT_OK)
        return rc;
    if (req->launches != SIMT_GEMM_LAUNCH_BACK_TO_BACK) {
        rc = simt_figure_require(figures, SIMT_FIG_LAUNCH_OVERHEAD, diag);
        if (rc != SIMT_OK)
            return rc;
    }
    s.used = SIMT_FIG_BIT(s.path.figure) | SIMT_FIG_BIT(SIMT_FIG_DRAM_BANDWIDTH);

    out->flops = 2.0 * (double)req->m * (double)req->n * (double)req->k * (double)req->batch;
    out->alignment_elements = simt_gemm_alignment_elements(req->dtype);
    out->alignment_ok = req->k % out->alignment_elements == 0 && req->n % out->alignment_elements == 0;
    out->tensor_cores = s.path.tensor;
    out->peak_flops_per_s = s.path.peak_flops_per_s;
    out->peak_measured = s.path.measured;

    setup_context(gpu, req, figures, &s);
    setup_rate(gpu, req, out->alignment_ok, &s);
    /* one call on an idle GPU runs the tensor-core kernels that go at the
     * figure's rate faster at first (gemm_boost.c; measured on Hopper's
     * asynchronous-MMA kernels). Not FP64 nor the mma.sync kernels priced
     * apart (int8's and tf32's on Hopper, the unaligned fallback) nor tf32
     * with B fed through registers: on the H200 their single calls run at
     * their figures already (power_ramp.json; FP64: torch 6.0e13, cuBLASLt
     * 6.11e13; int8: 126 TOP/s either way; tf32 torch 346-371 TFLOP/s
     * against cuBLASLt's TN 369 sustained) */
    s.boost.factor = 1.0;
    if (req->launches == SIMT_GEMM_LAUNCH_SINGLE && s.path.tensor && req->dtype != SIMT_DTYPE_FP64 &&
        !s.rate.unaligned && !s.register_fed_b) {
        simt_gemm_single_call_boost(figures, out->flops, s.path.peak_flops_per_s, &s.used, &s.boost);
        s.rate.sm_flops_per_s *= s.boost.factor;
        s.rate.l2_floor_per_sm = l2_floor(s.rate.sm_flops_per_s, &s.path, s.ctx.element_bytes, s.ctx.a_weight,
                                          s.rate.column_share);
    }
    struct candidate best;
    memset(&best, 0, sizeof best);
    best.time_s = HUGE_VAL;
    if (simt_gemm_stream_tile(gpu, req, s.async_mma, &s.path.tiles, &s.path.tile_count)) {
        s.stream_k = s.ctx.split_k = 0; /* cuBLAS's wave-filling tile (gemm_stream.c), data-parallel */
        if (!simt_gemm_stream_shares_b(req))
            s.rate.column_share = 1.0; /* one row tile: its clusters pair along n */
    }
    choose_among(&s.ctx, &s.rate, s.path.tiles, s.path.tile_count, s.tile_k, s.stream_k, &best);
    try_gemv(gpu, req, figures, &s, &best);
    try_small_n(gpu, req, figures, &s, &best);
    simt_gemm_fma_narrow_apply(gpu, req, s.rate.sm_flops_per_s, &best); /* fp32 tall narrow (gemm_narrow.c) */
    simt_gemm_column_split_apply(gpu, req, &s.ctx, s.clock, &best);     /* fp32 few columns (gemm_shortk.c) */
    simt_gemm_fp64u_apply(gpu, req, &s.ctx, s.rate.sm_flops_per_s, s.clock, &best); /* gemm_fp64u.c */
    simt_gemm_walk16_apply(gpu, req, &s.ctx, &best);     /* bf16, few rows off 16 bytes (gemm_walk16.c) */
    simt_gemm_k1_try(gpu, req, &s.ctx, &best);           /* fp64, K = 1: an outer product (gemm_k1.c) */
    if (best.reduce_s > 0.0 && s.ctx.l2_latency_s > 0.0) /* in-kernel or gemm_reduce.c's kernel */
        s.used |= SIMT_FIG_BIT(SIMT_FIG_L2_LATENCY);
    out->figures_used = s.used;

    fill_result(gpu, req, &s, &best, out);
    assert(isfinite(out->time_s) && out->time_s > 0.0);
    assert(out->tile_efficiency > 0.0 && out->tile_efficiency <= 1.0);
    assert(out->wave_efficiency > 0.0 && out->wave_efficiency <= 1.0);
    /* what the answer rests on, besides the figures in figures_used */
    assume_kernel(gpu, req, &s, &best, out);
    assume_figures(req, &s, out);
    simt_gemm_stream_assume(gpu, req, out);
    return SIMT_OK;
}
