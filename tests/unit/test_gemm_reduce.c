/* test_gemm_reduce.c - the split-K reduction kernel (model/gemm_reduce.c):
 * its time per split against the H200 probe (tests/gpu/results/h200/
 * gemm_probe_tiny.json and gemm_probe_choice.json, fit data: kernel
 * durations under the profiler), the latency bound that makes a block of
 * 6 warps as slow as one of 16, the bandwidth bound of large outputs, and
 * monotony in the split, the output and the figures on every GPU of the
 * bundled database. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "figures.h"
#include "gemm.h"
#include "gemm_internal.h"
#include "gemm_fixture.h"
#include "hwdb.h"

/* A context with gpu's figures as gemm.c sets them for the reduction, its
 * fixed cost left out (second_kernel_s 0): what is left is the kernel's
 * reads and the GEMM's stores of the partials. */
static void context(const struct simt_gpu_spec *gpu, const struct simt_gemm_request *req,
                    struct shape_context *ctx)
{
    struct simt_figure_set figures;
    simt_figure_set_init(gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    double clock = simt_figure_get(&figures, SIMT_FIG_CLOCK);
    memset(ctx, 0, sizeof *ctx);
    ctx->req = req;
    ctx->sm_count = gpu->sm_count;
    ctx->dram_bytes_per_s = simt_figure_get(&figures, SIMT_FIG_DRAM_BANDWIDTH);
    ctx->dram_write_bytes_per_s = simt_figure_get(&figures, SIMT_FIG_DRAM_WRITE_BANDWIDTH);
    if (!(ctx->dram_write_bytes_per_s > 0.0))
        ctx->dram_write_bytes_per_s = ctx->dram_bytes_per_s;
    ctx->l2_bytes_per_s = simt_figure_get(&figures, SIMT_FIG_L2_BANDWIDTH);
    ctx->l2_latency_s = clock > 0.0 ? simt_figure_get(&figures, SIMT_FIG_L2_LATENCY) / clock : 0.0;
    double dram_latency_s = clock > 0.0 ? simt_figure_get(&figures, SIMT_FIG_DRAM_LATENCY) / clock : 0.0;
    simt_gemm_reduce_setup(gpu, dram_latency_s, ctx);
}

static double reduce_of(const struct simt_gpu_spec *gpu, enum simt_dtype dtype, int64_t m, int64_t n,
                        int split)
{
    struct simt_gemm_request req = {
        m, n, 1024, 1, dtype, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct shape_context ctx;
    context(gpu, &req, &ctx);
    return simt_gemm_split_k_reduce(&ctx, split);
}

/* The GEMM's stores of the partials, which reduce_of counts too. */
static double stores_of(const struct simt_gpu_spec *gpu, int64_t m, int64_t n, int split)
{
    struct simt_gemm_request req = {
        m, n, 1024, 1, SIMT_DTYPE_TF32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct shape_context ctx;
    context(gpu, &req, &ctx);
    return (double)split * (double)m * (double)n * 4.0 / ctx.dram_write_bytes_per_s;
}

static const struct simt_gpu_spec *h200(void)
{
    return gemm_db_spec("h200-sxm");
}

/* One block (a 6x7 output): the kernel's durations grew 0.0294 us a split
 * from 126 to 376 splits (5.08-5.35 us to 11.56 us, tf32, fp16 and bf16,
 * gemm_probe_tiny.json); the model's slope, its reads alone, within 25%
 * (it takes L2's pointer-chase latency over the 4 partials in flight:
 * 0.035 us). */
START_TEST(slope_per_split_matches_the_probe)
{
    const struct simt_gpu_spec *g = h200();
    double low = reduce_of(g, SIMT_DTYPE_TF32, 6, 7, 126) - stores_of(g, 6, 7, 126);
    double high = reduce_of(g, SIMT_DTYPE_TF32, 6, 7, 376) - stores_of(g, 6, 7, 376);
    double slope = (high - low) / 250.0;
    ck_assert_msg(fabs(slope / 0.0294e-6 - 1.0) < 0.25, "slope %.4g s a split", slope);
    /* and 126 splits take about what the probe's kernel took beyond its
     * 1-2 split duration (5.1-5.35 us less 1.1-1.3 us) */
    ck_assert_msg(low > 3.5e-6 && low < 5.0e-6, "126 splits: %.4g s", low);
}
END_TEST

/* The sm80_xmma FP32 kernels' second launch (simt_gemm_xmma_second_pass):
 * one split's partials a round trip at L2's latency, so its slope is L2's
 * latency a split (0.14 us on the H200; 0.177 us measured over 67 pairs
 * of the probe files, 3.1 + 0.177 x split us): 512x16 with a 64x32 tile
 * at 33 splits takes 32 more L2 latencies than at 1, above the
 * splitKreduce kernel's time for the same split; none where the flag is
 * off, the split is 1, or the candidate's split is already summed in the
 * kernel. */
START_TEST(xmma_second_pass_is_a_round_trip_a_split)
{
    const struct simt_gpu_spec *g = h200();
    struct simt_gemm_request req = {
        512, 16, 4096, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct shape_context ctx;
    context(g, &req, &ctx);
    static const struct tile_shape tile = {64, 32, 0};
    struct candidate c;
    memset(&c, 0, sizeof c);
    c.reduce_s = -1.0;
    simt_gemm_xmma_second_pass(&ctx, 33, &tile, &c);
    ck_assert(c.reduce_s < 0.0); /* flag off */
    ctx.xmma_two_pass = 1;
    simt_gemm_xmma_second_pass(&ctx, 1, &tile, &c);
    ck_assert(c.reduce_s < 0.0);
    c.serial_reduce = 1;
    simt_gemm_xmma_second_pass(&ctx, 33, &tile, &c);
    ck_assert(c.reduce_s < 0.0);
    c.serial_reduce = 0;
    simt_gemm_xmma_second_pass(&ctx, 33, &tile, &c);
    double at33 = c.reduce_s - 33.0 * 512.0 * 16.0 * 4.0 / ctx.dram_write_bytes_per_s;
    simt_gemm_xmma_second_pass(&ctx, 2, &tile, &c);
    double at2 = c.reduce_s - 2.0 * 512.0 * 16.0 * 4.0 / ctx.dram_write_bytes_per_s;
    ck_assert_double_eq_tol(at33 - at2, 31.0 * ctx.l2_latency_s, 1e-12);
    ck_assert(at33 >
              simt_gemm_split_k_reduce(&ctx, 33) - 33.0 * 512.0 * 16.0 * 4.0 / ctx.dram_write_bytes_per_s);
    ck_assert_msg(fabs((at33 - at2) / 31.0 / 0.177e-6 - 1.0) < 0.25, "slope %.4g s a split",
                  (at33 - at2) / 31.0);
}
END_TEST

/* Latency, not bytes: 16 full warps of a 16x512 output's blocks at 128
 * splits (5.91 us, gemm_probe_choice.json) took about what one block of 6
 * warps of 7 elements took at 125-132 (5.58-5.67 us): the model within
 * 15% of each other, where bytes alone would differ 24-fold. */
START_TEST(full_blocks_wait_as_long_as_sparse_ones)
{
    const struct simt_gpu_spec *g = h200();
    double full = reduce_of(g, SIMT_DTYPE_FP32, 16, 512, 128) - stores_of(g, 16, 512, 128);
    double sparse = reduce_of(g, SIMT_DTYPE_FP32, 6, 7, 128) - stores_of(g, 6, 7, 128);
    ck_assert_msg(full >= sparse && full < 1.15 * sparse, "full %.4g s, sparse %.4g s", full, sparse);
}
END_TEST

/* Large outputs: their bytes bind. 128 x 16384 at 16 splits writes 134 MB
 * of partials, beyond the H200's L2: read back from DRAM at the busiest
 * SM's share (32 blocks of 16 x 2 KiB), more than the latency alone gives
 * (5 DRAM latencies in each of 8 rounds of 528 blocks); a faster DRAM
 * shortens it. */
START_TEST(large_outputs_are_bandwidth_bound)
{
    struct simt_gpu_spec g = *h200();
    double base = reduce_of(&g, SIMT_DTYPE_FP32, 128, 16384, 16) - stores_of(&g, 128, 16384, 16);
    struct simt_figure_set figures;
    simt_figure_set_init(&g, SIMT_POLICY_PREFER_MEASURED, &figures);
    double dram_latency_s =
        simt_figure_get(&figures, SIMT_FIG_DRAM_LATENCY) / simt_figure_get(&figures, SIMT_FIG_CLOCK);
    double share = simt_figure_get(&figures, SIMT_FIG_DRAM_BANDWIDTH) / 132.0;
    ck_assert(base > 8.0 * 5.0 * dram_latency_s);
    ck_assert_double_eq_tol(base, 32.0 * 16.0 * 2048.0 / share, 1e-12);
    g.measured_dram_bandwidth_bytes_per_s *= 2.0;
    g.dram_bandwidth_bytes_per_s *= 2.0;
    double faster = reduce_of(&g, SIMT_DTYPE_FP32, 128, 16384, 16) - stores_of(&g, 128, 16384, 16);
    ck_assert_msg(faster < base, "faster %.4g s, base %.4g s", faster, base);
}
END_TEST

/* Monotone on every GPU of the database: more splits, rows or columns
 * never take less time. */
START_TEST(monotone_on_every_gpu)
{
    static const int64_t sides[] = {1, 7, 16, 33, 512, 4096, 16384};
    for (size_t i = 0; i < simt_hwdb_count(gemm_db); i++) {
        const struct simt_gpu_spec *g = &simt_hwdb_at(gemm_db, i)->spec;
        for (size_t a = 0; a < sizeof sides / sizeof sides[0]; a++) {
            double previous = 0.0;
            for (int split = 1; split <= 512; split += split < 16 ? 1 : 13) {
                double t = reduce_of(g, SIMT_DTYPE_FP32, sides[a], sides[a], split);
                ck_assert_msg(isfinite(t) && t >= previous, "%s %lld split %d", simt_hwdb_at(gemm_db, i)->id,
                              (long long)sides[a], split);
                previous = t;
            }
            if (a > 0)
                ck_assert(reduce_of(g, SIMT_DTYPE_FP64, sides[a], 16, 8) >=
                          reduce_of(g, SIMT_DTYPE_FP64, sides[a - 1], 16, 8));
        }
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gemm_reduce");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, slope_per_split_matches_the_probe);
    tcase_add_test(tc, xmma_second_pass_is_a_round_trip_a_split);
    tcase_add_test(tc, full_blocks_wait_as_long_as_sparse_ones);
    tcase_add_test(tc, large_outputs_are_bandwidth_bound);
    tcase_add_test(tc, monotone_on_every_gpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
