/* gemm.c - GEMM time from the shape alone: the library's tile and split-K
 * choice, tile and wave quantization (NVIDIA, "Matrix Multiplication
 * Background User's Guide"), operand feed from L2, the DRAM roofline for
 * A, B and C, the 16-byte alignment rule, and launch plus pipeline fill.
 * Pure. */
#include "gemm.h"

#include "figures.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- constants that are not in the database; each is stated in the
 * answer's assumptions when it is used ---- */

/* Fraction of the datasheet's dense rate a library GEMM reaches when the
 * GPU has no measured figure: cuBLAS through PyTorch reaches about 790 of
 * the 989 dense bf16 TFLOP/s sold for an H200 (issue 5). */
#define DATASHEET_LIBRARY_FRACTION 0.80
/* Fraction of the measured peak a library GEMM reaches. The calibration
 * measures tensor-core rates through cuBLAS at large shapes, so 1. */
#define MEASURED_LIBRARY_FRACTION 1.0
/* Rate of the slower kernels cuBLAS falls back to when a leading dimension
 * is not a 16-byte multiple (no TMA / no 16-byte vector loads), as a
 * fraction of the aligned kernels' rate. */
#define UNALIGNED_FRACTION 0.60
/* Launch overhead when the GPU record has none. */
#define DEFAULT_LAUNCH_S 3.0e-6
/* Split-K factors a library tries. */
static const int split_factors[] = {1, 2, 3, 4, 6, 8, 12, 16};

struct tile_shape {
    int m;
    int n;
};

/* Thread-block tiles of the tensor-core kernels (CUTLASS/cuBLAS): Hopper's
 * wgmma kernels and Ampere's mma.sync kernels share the output shapes; the K
 * depth is one 128-byte (Hopper on) or 64-byte (before) row of A per stage.
 * Largest first, so that ties go to the larger tile. */
static const struct tile_shape tensor_tiles[] = {
    {256, 128}, {128, 256}, {128, 128}, {256, 64}, {64, 256}, {128, 64}, {64, 128}, {64, 64},
};
/* Tiles of the FMA (SIMT) SGEMM/DGEMM kernels, K depth 32 bytes. */
static const struct tile_shape simt_tiles[] = {
    {128, 128}, {128, 64}, {64, 128}, {64, 64},
};

const char *simt_gemm_bound_name(enum simt_gemm_bound bound)
{
    switch (bound) {
    case SIMT_GEMM_BOUND_COMPUTE: return "compute";
    case SIMT_GEMM_BOUND_L2: return "l2";
    case SIMT_GEMM_BOUND_DRAM: return "dram";
    case SIMT_GEMM_BOUND_LAUNCH: return "launch";
    }
    return NULL;
}

int simt_gemm_element_bytes(enum simt_dtype dtype)
{
    switch (dtype) {
    case SIMT_DTYPE_FP64: return 8;
    case SIMT_DTYPE_FP32:
    case SIMT_DTYPE_TF32: return 4;
    case SIMT_DTYPE_FP16:
    case SIMT_DTYPE_BF16: return 2;
    case SIMT_DTYPE_FP8:
    case SIMT_DTYPE_INT8: return 1;
    case SIMT_DTYPE_INT4:
    case SIMT_DTYPE_COUNT: break;
    }
    return 0;
}

/* Bytes of one element of C: fp8 GEMMs write bf16 (torch._scaled_mm's usual
 * out_dtype), int8 GEMMs accumulate and write int32, the rest their own type. */
static int output_bytes(enum simt_dtype dtype)
{
    if (dtype == SIMT_DTYPE_FP8)
        return 2;
    if (dtype == SIMT_DTYPE_INT8)
        return 4;
    return simt_gemm_element_bytes(dtype);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

void simt_gemm_quantize(int64_t m, int64_t n, int64_t batch, int tile_m, int tile_n, int sm_count,
                        struct simt_gemm_quantization *out)
{
    int64_t tm = ceil_div(m, tile_m);
    int64_t tn = ceil_div(n, tile_n);
    out->tiles = tm * tn * batch;
    out->waves = sm_count > 0 ? (double)out->tiles / (double)sm_count : 0.0;
    out->tile_efficiency = ((double)m * (double)n) / ((double)(tm * tile_m) * (double)(tn * tile_n));
    double full = ceil(out->waves);
    out->wave_efficiency = full > 0.0 ? out->waves / full : 0.0;
}

static int set_error(struct simt_diag *diag, int rc, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int set_error(struct simt_diag *diag, int rc, const char *field, const char *fmt, ...)
{
    if (diag != NULL) {
        memset(diag, 0, sizeof *diag);
        snprintf(diag->field, sizeof diag->field, "%s", field);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(diag->message, sizeof diag->message, fmt, ap);
        va_end(ap);
    }
    return rc;
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

static const char *arch_family(const struct simt_gpu_spec *gpu)
{
    if (gpu->vendor == SIMT_VENDOR_AMD)
        return "CDNA";
    switch (gpu->compute_major) {
    case 7: return "Volta/Turing";
    case 8: return "Ampere/Ada";
    case 9: return "Hopper";
    default: return gpu->compute_major >= 10 ? "Blackwell" : "pre-Volta";
    }
}

/* The path a library takes for the dtype: tensor cores or FMA units, its
 * attainable peak, the tiles it chooses among. */
struct gemm_path {
    int tensor;
    enum simt_figure_id figure;  /* the figure its rate comes from */
    double hardware_flops_per_s; /* measured, or the datasheet's */
    double peak_flops_per_s;     /* what a library GEMM reaches */
    int measured;
    const struct tile_shape *tiles;
    size_t tile_count;
    int tile_k_bytes;
};

static int choose_path(const struct simt_gpu_spec *gpu, const struct simt_figure_set *figures, enum simt_dtype dtype,
                       struct gemm_path *path, struct simt_diag *diag)
{
    memset(path, 0, sizeof *path);
    int newer = gpu->vendor == SIMT_VENDOR_NVIDIA && gpu->compute_major >= 9;
    enum simt_figure_id tensor_id = (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + (int)dtype);
    if (dtype != SIMT_DTYPE_FP32 && simt_figure_get(figures, tensor_id) > 0.0) {
        path->tensor = 1;
        path->figure = tensor_id;
        path->tiles = tensor_tiles;
        path->tile_count = sizeof tensor_tiles / sizeof tensor_tiles[0];
        path->tile_k_bytes = newer ? 128 : 64;
    } else if (dtype == SIMT_DTYPE_FP32 || dtype == SIMT_DTYPE_FP64) {
        path->figure = dtype == SIMT_DTYPE_FP32 ? SIMT_FIG_FP32 : SIMT_FIG_FP64;
        path->tiles = simt_tiles;
        path->tile_count = sizeof simt_tiles / sizeof simt_tiles[0];
        path->tile_k_bytes = 32;
    } else {
        return set_error(diag, SIMT_EUNSAT, "dtype", "%s GEMMs need %s tensor cores, which this GPU does not have",
                         simt_dtype_name(dtype), simt_dtype_name(dtype));
    }
    path->hardware_flops_per_s = simt_figure_get(figures, path->figure);
    if (!(path->hardware_flops_per_s > 0.0))
        return set_error(diag, SIMT_EUNSAT, "dtype", "this GPU's record gives no %s throughput",
                         simt_dtype_name(dtype));
    path->measured = figures->source[path->figure] == SIMT_FIGURE_MEASURED;
    path->peak_flops_per_s = path->hardware_flops_per_s *
                             (path->measured ? MEASURED_LIBRARY_FRACTION : DATASHEET_LIBRARY_FRACTION);
    return SIMT_OK;
}

/* One candidate kernel (tile, split) evaluated. */
struct candidate {
    const struct tile_shape *tile;
    int tile_k;
    int split;
    int64_t tiles;
    double waves;
    double compute_s;
    double l2_s;
    double dram_s;
    double dram_bytes;
    double overhead_s;
    double reduce_s;              /* split-K's reduction kernel, after the GEMM */
    double time_s;
};

struct shape_context {
    const struct simt_gemm_request *req;
    int element_bytes;
    int out_bytes;
    int sm_count;
    double sm_flops_per_s;        /* per SM, alignment included */
    double l2_feed_per_sm;        /* bytes/s an SM's tiles may draw from L2 */
    double dram_bytes_per_s;
    double launch_s;
    double fill_s;                /* one DRAM latency: the pipeline's first stage */
};

static void evaluate(const struct shape_context *ctx, const struct tile_shape *tile, int tile_k, int split,
                     struct candidate *c)
{
    const struct simt_gemm_request *req = ctx->req;
    int64_t k_per_split = ceil_div(ceil_div(req->k, split), tile_k) * tile_k;
    int64_t output_tiles = ceil_div(req->m, tile->m) * ceil_div(req->n, tile->n);
    c->tile = tile;
    c->tile_k = tile_k;
    c->split = split;
    c->tiles = output_tiles * split * req->batch;
    c->waves = (double)c->tiles / (double)ctx->sm_count;
    double full_waves = ceil(c->waves);

    /* the tensor cores compute the whole (padded) tile; the operands fetched
     * are the rows and columns that exist */
    double tile_flops = 2.0 * (double)tile->m * (double)tile->n * (double)k_per_split;
    double rows = (double)(req->m < tile->m ? req->m : tile->m);
    double cols = (double)(req->n < tile->n ? req->n : tile->n);
    double tile_bytes = (rows + cols) * (double)k_per_split * (double)ctx->element_bytes;
    c->compute_s = full_waves * tile_flops / ctx->sm_flops_per_s;
    c->l2_s = ctx->l2_feed_per_sm > 0.0 ? full_waves * tile_bytes / ctx->l2_feed_per_sm : 0.0;

    double batch = (double)req->batch;
    double m = (double)req->m, n = (double)req->n, k = (double)req->k;
    double main_bytes = batch * ((m * k + k * n) * (double)ctx->element_bytes);
    double reduce_bytes = 0.0;
    if (split == 1) {
        main_bytes += batch * m * n * (double)ctx->out_bytes;
    } else {
        /* the GEMM writes fp32 partial sums; a second kernel, after it, reads
         * them back and writes C */
        double partials = batch * (double)split * m * n * 4.0;
        main_bytes += partials;
        reduce_bytes = partials + batch * m * n * (double)ctx->out_bytes;
    }
    c->dram_bytes = main_bytes + reduce_bytes;
    c->dram_s = main_bytes / ctx->dram_bytes_per_s;
    c->reduce_s = split > 1 ? reduce_bytes / ctx->dram_bytes_per_s + ctx->launch_s : 0.0;
    c->overhead_s = ctx->launch_s + full_waves * ctx->fill_s;

    double busy = c->compute_s;
    if (c->l2_s > busy)
        busy = c->l2_s;
    if (c->dram_s > busy)
        busy = c->dram_s;
    c->time_s = busy + c->overhead_s + c->reduce_s;
}

int simt_gemm_predict(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                      struct simt_gemm_result *out, struct simt_diag *diag)
{
    static const struct {
        const char *field;
        size_t offset;
    } dims[] = {
        {"m", offsetof(struct simt_gemm_request, m)},
        {"n", offsetof(struct simt_gemm_request, n)},
        {"k", offsetof(struct simt_gemm_request, k)},
        {"batch", offsetof(struct simt_gemm_request, batch)},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int64_t value;
        memcpy(&value, (const char *)req + dims[i].offset, sizeof value);
        if (value < 1)
            return set_error(diag, SIMT_EINVAL, dims[i].field, "%s must be a positive integer", dims[i].field);
        if (value > ((int64_t)1 << 40))
            return set_error(diag, SIMT_EINVAL, dims[i].field, "%s must be at most 2^40", dims[i].field);
    }
    int element_bytes = simt_gemm_element_bytes(req->dtype);
    if (element_bytes == 0)
        return set_error(diag, SIMT_EINVAL, "dtype", "dtype must be fp64, fp32, tf32, fp16, bf16, fp8 or int8");
    if (gpu->sm_count < 1)
        return set_error(diag, SIMT_EUNSAT, "gpu", "the GPU record has no SM count");
    memset(out, 0, sizeof *out);

    simt_figure_set_init(gpu, req->policy, &out->figures);
    const struct simt_figure_set *figures = &out->figures;
    struct gemm_path path;
    int rc = choose_path(gpu, figures, req->dtype, &path, diag);
    if (rc != SIMT_OK)
        return rc;
    rc = simt_figure_require(figures, SIMT_FIG_DRAM_BANDWIDTH, diag);
    if (rc != SIMT_OK)
        return rc;
    simt_figure_mask used = SIMT_FIG_BIT(path.figure) | SIMT_FIG_BIT(SIMT_FIG_DRAM_BANDWIDTH);

    out->flops = 2.0 * (double)req->m * (double)req->n * (double)req->k * (double)req->batch;
    out->alignment_elements = 16 / element_bytes;
    out->alignment_ok = req->k % out->alignment_elements == 0 && req->n % out->alignment_elements == 0;
    out->tensor_cores = path.tensor;
    out->peak_flops_per_s = path.peak_flops_per_s;
    out->peak_measured = path.measured;

    double dram_bw = simt_figure_get(figures, SIMT_FIG_DRAM_BANDWIDTH);
    double l2_bw = simt_figure_get(figures, SIMT_FIG_L2_BANDWIDTH);
    if (l2_bw > 0.0)
        used |= SIMT_FIG_BIT(SIMT_FIG_L2_BANDWIDTH);
    double launch_s = simt_figure_get(figures, SIMT_FIG_LAUNCH_OVERHEAD);
    int launch_default = !(launch_s > 0.0);
    if (launch_default)
        launch_s = DEFAULT_LAUNCH_S;
    else
        used |= SIMT_FIG_BIT(SIMT_FIG_LAUNCH_OVERHEAD);
    double clock = simt_figure_get(figures, SIMT_FIG_CLOCK);
    double dram_latency_cycles = simt_figure_get(figures, SIMT_FIG_DRAM_LATENCY);
    double fill_s = clock > 0.0 ? dram_latency_cycles / clock : 0.0;
    if (fill_s > 0.0)
        used |= SIMT_FIG_BIT(SIMT_FIG_DRAM_LATENCY) | SIMT_FIG_BIT(SIMT_FIG_CLOCK);
    out->figures_used = used;

    struct shape_context ctx;
    ctx.req = req;
    ctx.element_bytes = element_bytes;
    ctx.out_bytes = output_bytes(req->dtype);
    ctx.sm_count = gpu->sm_count;
    double align_fraction = (path.tensor && !out->alignment_ok) ? UNALIGNED_FRACTION : 1.0;
    ctx.sm_flops_per_s = path.peak_flops_per_s * align_fraction / (double)gpu->sm_count;
    ctx.dram_bytes_per_s = dram_bw;
    ctx.launch_s = launch_s;
    ctx.fill_s = fill_s;
    /* The L2 feed an SM gets. The peak was reached by the library's largest
     * tile, so the feed is never taken below what that tile needs: only
     * smaller tiles (fewer flops per operand byte) are slowed by it. */
    int tile_k = path.tile_k_bytes / element_bytes;
    if (tile_k < 1)
        tile_k = 1;
    double best_intensity = 0.0;
    for (size_t i = 0; i < path.tile_count; i++) {
        double tm = path.tiles[i].m, tn = path.tiles[i].n;
        double intensity = 2.0 * tm * tn / ((tm + tn) * (double)element_bytes);
        if (intensity > best_intensity)
            best_intensity = intensity;
    }
    ctx.l2_feed_per_sm = 0.0;
    if (l2_bw > 0.0) {
        double feed = l2_bw / (double)gpu->sm_count;
        double needed = path.peak_flops_per_s / (double)gpu->sm_count / best_intensity;
        ctx.l2_feed_per_sm = feed > needed ? feed : needed;
    }

    struct candidate best;
    memset(&best, 0, sizeof best);
    best.time_s = HUGE_VAL;
    for (size_t i = 0; i < path.tile_count; i++) {
        for (size_t s = 0; s < sizeof split_factors / sizeof split_factors[0]; s++) {
            int split = split_factors[s];
            /* every split must get at least one K tile */
            if (split > 1 && (int64_t)split * tile_k > req->k)
                break;
            struct candidate c;
            evaluate(&ctx, &path.tiles[i], tile_k, split, &c);
            if (c.time_s < best.time_s)
                best = c;
        }
    }

    struct simt_gemm_quantization q;
    simt_gemm_quantize(req->m, req->n, req->batch, best.tile->m, best.tile->n, gpu->sm_count, &q);
    out->time_s = best.time_s;
    out->achieved_flops_per_s = out->flops / best.time_s;
    out->tile_m = best.tile->m;
    out->tile_n = best.tile->n;
    out->tile_k = best.tile_k;
    out->split_k = best.split;
    out->tiles = best.tiles;
    out->waves = best.waves;
    out->tile_efficiency = q.tile_efficiency;
    out->wave_efficiency = best.waves / ceil(best.waves);
    out->dram_bandwidth_bytes_per_s = dram_bw;
    out->dram_bytes = best.dram_bytes;
    out->compute_s = best.compute_s;
    out->l2_s = best.l2_s;
    out->dram_s = best.dram_s;
    out->overhead_s = best.overhead_s;
    out->reduce_s = best.reduce_s;
    out->bound = SIMT_GEMM_BOUND_COMPUTE;
    double top = best.compute_s;
    if (best.l2_s > top) {
        top = best.l2_s;
        out->bound = SIMT_GEMM_BOUND_L2;
    }
    if (best.dram_s > top) {
        top = best.dram_s;
        out->bound = SIMT_GEMM_BOUND_DRAM;
    }
    if (best.overhead_s > top)
        out->bound = SIMT_GEMM_BOUND_LAUNCH;

    /* what the answer rests on, besides the figures in figures_used */
    const char *dtype_name = simt_dtype_name(req->dtype);
    assume(out, "tile: %dx%dx%d thread-block tile from the %s %s list, one tile per SM at a time, chosen (with the "
           "split-K factor) as the least predicted time",
           out->tile_m, out->tile_n, out->tile_k, arch_family(gpu), path.tensor ? "tensor-core" : "FMA (SIMT)");
    if (best.split > 1)
        assume(out, "split-K %d: K cut across %d blocks per output tile; a second kernel reduces the fp32 partials "
               "through memory",
               best.split, best.split);
    if (path.measured)
        assume(out, "peak: %s %s, %.4g flop/s measured; a library GEMM taken to reach %.2f of it", dtype_name,
               path.tensor ? "tensor cores" : "FMA units", path.hardware_flops_per_s, MEASURED_LIBRARY_FRACTION);
    else
        assume(out, "peak: %s %s, datasheet %.4g flop/s x %.2f (cuBLAS reaches about 0.8 of the dense rate; no "
               "measured figure) = %.4g flop/s",
               dtype_name, path.tensor ? "dense tensor cores" : "FMA units", path.hardware_flops_per_s,
               DATASHEET_LIBRARY_FRACTION, path.peak_flops_per_s);
    if (!out->alignment_ok)
        assume(out, "alignment: k or n is not a multiple of %d elements (16 bytes): %s", out->alignment_elements,
               path.tensor ? "the library's unaligned kernels, taken at 0.60 of the aligned rate"
                           : "no slowdown taken on the FMA path");
    assume(out, "memory: A and B read and C written (%d-byte elements) once through DRAM; operand tiles fed to each "
           "SM from L2%s",
           ctx.out_bytes, l2_bw > 0.0 ? "" : " (no L2 bandwidth figure: not a limit)");
    assume(out, "overhead: launch %.3g s%s plus one DRAM latency (%.3g s) per wave to fill the pipeline", launch_s,
           launch_default ? " (assumed: the record has no launch overhead)" : "", fill_s);
    return SIMT_OK;
}
