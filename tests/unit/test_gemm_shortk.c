/* test_gemm_shortk.c - FP32 GEMMs with K in one stage of the FMA kernels
 * and the reduction kernel cuBLAS runs at short K (model/gemm_shortk.c):
 * blocks resident per SM from the occupancy rules, one fill a kernel where
 * two or more are resident, a time that follows C and not K up to one
 * stage, the H200 probe's single-call times (tests/gpu/results/h200/
 * gemm_probe_small.json and gemm_probe_tiny.json, fit data), which shapes
 * get the reduction kernel, and an answer on every GPU of the bundled
 * database. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "figures.h"
#include "gemm.h"
#include "gemm_internal.h"
#include "gemm_fixture.h"
#include "hwdb.h"

static const struct simt_gpu_spec *h200(void)
{
    return gemm_db_spec("h200-sxm");
}

static struct simt_gemm_result predict(const struct simt_gpu_spec *gpu, enum simt_dtype dtype, int64_t m,
                                       int64_t n, int64_t k)
{
    struct simt_gemm_request req = {m, n, k, 1, dtype, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE,
                                    0};
    struct simt_gemm_result out;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_gemm_predict(gpu, &req, &out, &diag) == SIMT_OK, "%lldx%lldx%lld: %s", (long long)m,
                  (long long)n, (long long)k, diag.message);
    return out;
}

/* The tile of the short-K list with this output shape. */
static const struct tile_shape *short_k_tile(const struct simt_gpu_spec *gpu, int tm, int tn)
{
    struct simt_gemm_request req = {
        4096, 4096, 1, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct shape_context ctx;
    memset(&ctx, 0, sizeof ctx);
    const struct tile_shape *tiles = NULL;
    size_t count = 0;
    simt_gemm_shortk_setup(gpu, &req, 8, &ctx, &tiles, &count);
    ck_assert_ptr_eq(ctx.shortk_gpu, gpu);
    for (size_t i = 0; i < count; i++)
        if (tiles[i].m == tm && tiles[i].n == tn)
            return &tiles[i];
    ck_abort_msg("no %dx%d tile in the short-K list", tm, tn);
    return NULL;
}

/* By hand, on an H200 (65536 registers, 228 KiB of shared memory of which
 * 1 KiB is reserved a block, 2048 threads per SM):
 *  - 32x128, 128 threads of 80 registers: 10240 registers a block, 6 by
 *    the register file; 25600 + 1024 bytes, 8 by shared memory: 6;
 *  - 64x64, 128 threads of 121 registers (allocated 128 a thread, in
 *    pieces of 256 a warp): 16384 a block, 4;
 *  - 128x256, 256 threads of 202 registers (208 allocated): 53248, 1. */
START_TEST(resident_blocks_follow_the_occupancy_rules)
{
    const struct simt_gpu_spec *gpu = h200();
    ck_assert_int_eq(simt_gemm_shortk_resident(gpu, short_k_tile(gpu, 32, 128)), 6);
    ck_assert_int_eq(simt_gemm_shortk_resident(gpu, short_k_tile(gpu, 64, 64)), 4);
    ck_assert_int_eq(simt_gemm_shortk_resident(gpu, short_k_tile(gpu, 128, 256)), 1);
    /* the small-M tile has no resources given: one block an SM */
    ck_assert_int_eq(simt_gemm_shortk_resident(gpu, short_k_tile(gpu, 8, 64)), 1);
    ck_assert_int_eq(simt_gemm_shortk_resident(NULL, short_k_tile(gpu, 64, 64)), 1);
}
END_TEST

/* 4096^2 x 1: several blocks resident, so one fill (two DRAM latencies)
 * besides the launch and the kernel's fixed cost, not one a wave. K = 9 is
 * two stages: the waves of gemm.c, a fill each, more than one. */
START_TEST(one_fill_a_kernel_within_one_stage)
{
    const struct simt_gpu_spec *gpu = h200();
    struct simt_figure_set figures;
    simt_figure_set_init(gpu, SIMT_POLICY_PREFER_MEASURED, &figures);
    double fill_s =
        2.0 * simt_figure_get(&figures, SIMT_FIG_DRAM_LATENCY) / simt_figure_get(&figures, SIMT_FIG_CLOCK);
    struct simt_gemm_result one = predict(gpu, SIMT_DTYPE_FP32, 4096, 4096, 1);
    double fixed_s = one.launch_s + 1.6e-6; /* SINGLE_KERNEL_FLOOR_S, gemm_constants.h */
    ck_assert_msg(fabs(one.overhead_s - (fixed_s + fill_s)) < 1e-12, "overhead %g, expected %g",
                  one.overhead_s, fixed_s + fill_s);
    struct simt_gemm_result four = predict(gpu, SIMT_DTYPE_FP32, 4096, 4096, 25);
    ck_assert_msg(four.overhead_s > fixed_s + 1.5 * fill_s, "K = 25 overhead %g", four.overhead_s);
}
END_TEST

/* K of two and three stages (fit probes, gemm_probe_classes_fp32k.json and
 * _tinykf.json, single cold calls on an H200): 1200x2000 x 12 and x 16
 * 9.5 and 9.6 us, 600x4000x16 9.7 us (simt_sgemm_128x32, 608 blocks, all
 * resident at once), 3000^2 x 16 23.6 us (sm80_xmma 64x64x8); the
 * one-block-an-SM waves put the first three at +34% to +37%. Within 20%
 * each; flat from K = 9 to 16 (one depth of 16), a step to K = 17 (24),
 * one fill a kernel of resident blocks, and the tile line says so. */
START_TEST(two_and_three_stages)
{
    static const struct {
        int64_t m, n, k;
        double measured_s;
    } rows[] = {{1200, 2000, 12, 9.5e-6},
                {1200, 2000, 16, 9.6e-6},
                {600, 4000, 16, 9.7e-6},
                {3000, 3000, 16, 23.6e-6}};
    const struct simt_gpu_spec *gpu = h200();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct simt_gemm_result r = predict(gpu, SIMT_DTYPE_FP32, rows[i].m, rows[i].n, rows[i].k);
        ck_assert_msg(fabs(r.time_s / rows[i].measured_s - 1.0) < 0.20, "%lldx%lldx%lld: %g s, measured %g",
                      (long long)rows[i].m, (long long)rows[i].n, (long long)rows[i].k, r.time_s,
                      rows[i].measured_s);
        ck_assert(gemm_says(&r, "one to three 8-deep stages"));
    }
    double k9 = predict(gpu, SIMT_DTYPE_FP32, 1200, 2000, 9).time_s;
    double k16 = predict(gpu, SIMT_DTYPE_FP32, 1200, 2000, 16).time_s;
    double k17 = predict(gpu, SIMT_DTYPE_FP32, 1200, 2000, 17).time_s;
    ck_assert_msg(fabs(k9 - k16) < 1e-12 && k17 > k16, "K = 9 %g, 16 %g, 17 %g s", k9, k16, k17);
}
END_TEST

/* Measured on an H200 (single calls, fit data): fp32 4096^2 at K = 1, 2,
 * 4, 8 took 29.92, 28.35, 30.56, 30.66 us and 2048^2 10.94, 11.26, 11.33,
 * 11.58 us (gemm_probe_small.json, gemm_probe_tiny.json): flat in K, the
 * store of C. The model within 10% of each and within 3% from K = 1 to 8. */
START_TEST(time_follows_c_not_k_within_one_stage)
{
    static const struct {
        int64_t side, k;
        double measured_s;
    } rows[] = {{4096, 1, 29.92e-6}, {4096, 2, 28.35e-6}, {4096, 4, 30.56e-6}, {4096, 8, 30.66e-6},
                {2048, 1, 10.94e-6}, {2048, 2, 11.26e-6}, {2048, 4, 11.33e-6}, {2048, 8, 11.58e-6}};
    const struct simt_gpu_spec *gpu = h200();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double t = predict(gpu, SIMT_DTYPE_FP32, rows[i].side, rows[i].side, rows[i].k).time_s;
        ck_assert_msg(fabs(t - rows[i].measured_s) <= 0.10 * rows[i].measured_s,
                      "%lld^2 x %lld: %g s, measured %g", (long long)rows[i].side, (long long)rows[i].k, t,
                      rows[i].measured_s);
    }
    double k1 = predict(gpu, SIMT_DTYPE_FP32, 4096, 4096, 1).time_s;
    double k8 = predict(gpu, SIMT_DTYPE_FP32, 4096, 4096, 8).time_s;
    ck_assert_msg(k8 >= k1 && k8 <= 1.03 * k1, "K = 1: %g s, K = 8: %g s", k1, k8);
}
END_TEST

/* Which shapes cuBLAS gave the reduction kernel at short K
 * (gemm_probe_shortk.json's kernel names): fp32 128^2 x 8 and 2048x16x32
 * yes, 512^2 x 8 (2^18 outputs), 64x1024x32 (K x outputs 2^21), K = 1 and
 * m = 16 no; unaligned tf32 512x510x16 yes, its aligned 512^2 x 16 and
 * unaligned 256x254x16 (16 tiles) no. Both sides over 64, up to 2e5
 * outputs (gemm_probe_classes_tinykf.json, _shortkm.json): 500x200x6,
 * 800x200x16 and 80x1200x24 yes, 500^2 x 6 no. */
START_TEST(reduction_kernel_where_cublas_ran_it)
{
    const struct simt_gpu_spec *gpu = h200();
    ck_assert(predict(gpu, SIMT_DTYPE_FP32, 128, 128, 8).reduce_s > 0.0);
    ck_assert(predict(gpu, SIMT_DTYPE_FP32, 2048, 16, 32).reduce_s > 0.0);
    ck_assert(!(predict(gpu, SIMT_DTYPE_FP32, 512, 512, 8).reduce_s > 0.0));
    ck_assert(!(predict(gpu, SIMT_DTYPE_FP32, 64, 1024, 32).reduce_s > 0.0));
    ck_assert(!(predict(gpu, SIMT_DTYPE_FP32, 128, 128, 1).reduce_s > 0.0));
    ck_assert(!(predict(gpu, SIMT_DTYPE_FP32, 16, 2048, 16).reduce_s > 0.0));
    ck_assert(predict(gpu, SIMT_DTYPE_FP32, 500, 200, 6).reduce_s > 0.0);
    ck_assert(predict(gpu, SIMT_DTYPE_FP32, 800, 200, 16).reduce_s > 0.0);
    ck_assert(predict(gpu, SIMT_DTYPE_FP32, 80, 1200, 24).reduce_s > 0.0);
    ck_assert(!(predict(gpu, SIMT_DTYPE_FP32, 500, 500, 6).reduce_s > 0.0));
    ck_assert(predict(gpu, SIMT_DTYPE_TF32, 512, 510, 16).reduce_s > 0.0);
    ck_assert(!(predict(gpu, SIMT_DTYPE_TF32, 512, 512, 16).reduce_s > 0.0));
    ck_assert(!(predict(gpu, SIMT_DTYPE_TF32, 256, 254, 16).reduce_s > 0.0));
    /* unaligned tf32 at K = 2 (gemm_probe_classes_tf32k1.json): 500x200,
     * 112 tiles of 32x32, the xmma kernel alone; 500x400, 208, split form;
     * 2500x5x3 (79, but 2500 rows: gemm_probe_classes_tf32u.json) split */
    ck_assert(!(predict(gpu, SIMT_DTYPE_TF32, 500, 200, 2).reduce_s > 0.0));
    ck_assert(predict(gpu, SIMT_DTYPE_TF32, 500, 400, 2).reduce_s > 0.0);
    ck_assert(predict(gpu, SIMT_DTYPE_TF32, 2500, 5, 3).reduce_s > 0.0);
    struct simt_gemm_request req = {
        128, 128, 8, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    ck_assert_int_eq(simt_gemm_shortk_reduce_kernel(gpu, &req, 1), 1);
    req.k = 33;
    ck_assert_int_eq(simt_gemm_shortk_reduce_kernel(gpu, &req, 1), 0);
}
END_TEST

/* Aligned tf32 on Hopper's mma.sync kernels (model/gemm_family.c,
 * simt_gemm_tf32_reduce_kernel): where cuBLAS ran its split-K form and the
 * reduction kernel behind (gemm_probe_shortk.json, gemm_probe_tf32.json,
 * gemm_probe_small.json, gemm_probe_classes_tf32n16.json: kernel names and grid.z; an H100's
 * gemm_probe_windows.json and gemm_probe_windows3.json), and where it did not; and
 * the rule on its own, a request at a time. */
START_TEST(tf32_reduction_kernel_follows_the_split_form)
{
    const struct simt_gpu_spec *gpu = h200();
    static const struct {
        int64_t m, n, k;
        int reduce;
    } rows[] = {
        {128, 128, 16, 1},  /* 4 tiles, z = 4 */
        {2048, 16, 16, 1},  /* 32 tiles one column wide, z = 4 */
        {4096, 16, 16, 1},  /* 64 tiles, z = 2 */
        {1024, 64, 8, 1},   /* z = 2 */
        {64, 64, 64, 1},    /* one tile, z = 2 */
        {448, 76, 452, 1},  /* 14 tiles, z = 8 */
        {16, 2048, 16, 0},  /* 32 tiles, one row of them */
        {512, 512, 16, 0},  /* 64 tiles, square */
        {256, 256, 64, 0},  /* 16 tiles at 4 stages of K */
        {1024, 64, 32, 0},  /* 16 tiles, 2 stages */
        {4096, 16, 32, 0},  /* 64 tiles, 2 stages */
        {2048, 128, 16, 0}, /* 64 tiles two columns wide */
        {1024, 128, 16, 1}, /* 32 tiles, taller than wide, z = 4 (gemm_probe_tf32.json) */
        {128, 1024, 16, 0}, /* its transpose: wider than tall */
        /* one tile column (gemm_probe_classes_tf32n16.json) */
        {1000, 16, 16, 0}, /* 16 tiles, n <= 32: the 16x6 kernel alone */
        {1024, 48, 16, 1}, /* 16 tiles, n = 48: z = 4 */
        {240, 16, 16, 1},  /* 4 tiles */
        {1700, 8, 48, 1},  /* 27 tiles at 3 stages, m n K under 2^21 */
        {4000, 16, 32, 1}, /* 63 tiles, 2048000 */
        {4000, 24, 32, 0}, /* 63 tiles, 3072000 */
        /* an H100 SXM's grid (tests/gpu/results/h100/gemm_probe_windows.json) */
        {16, 1216, 8, 1},   /* half a tile of rows: 19 tiles */
        {32, 1216, 48, 1},  /* 19 tiles, m n K 1.87 M */
        {32, 1216, 64, 0},  /* 2.49 M, past 2^21 */
        {32, 1000, 100, 0}, /* 3.2 M (gemm_probe_classes_tf32t.json, an H200) */
        {128, 512, 8, 0},   /* wider than tall, 16 tiles, one stage */
        {64, 512, 48, 1},   /* 8 tiles x 3 stages */
        {128, 176, 64, 1},  /* 6 x 4 */
        {288, 256, 48, 1},  /* taller than wide, 20 x 3 */
        {288, 256, 64, 0},  /* 20 x 4 */
        {512, 176, 32, 1},  /* 24 x 2 */
        {512, 176, 48, 0},  /* 24 x 3 */
        /* its windows3 probe: taller than wide at one stage up to 48 tiles */
        {1000, 192, 16, 1}, /* 48 tiles, z = 4 */
        {1500, 128, 16, 1}, /* 48 */
        {1150, 192, 16, 0}, /* 54 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct simt_gemm_request req = gemm_single_request(rows[i].m, rows[i].n, rows[i].k, SIMT_DTYPE_TF32);
        ck_assert_msg(simt_gemm_tf32_reduce_kernel(gpu, &req) == rows[i].reduce, "%lldx%lldx%lld",
                      (long long)rows[i].m, (long long)rows[i].n, (long long)rows[i].k);
        int priced = predict(gpu, SIMT_DTYPE_TF32, rows[i].m, rows[i].n, rows[i].k).reduce_s > 0.0;
        ck_assert_msg(priced == rows[i].reduce, "%lldx%lldx%lld: reduce_s", (long long)rows[i].m,
                      (long long)rows[i].n, (long long)rows[i].k);
    }
    /* fp32 and the wgmma kernels' shapes never */
    struct simt_gemm_request req = {
        128, 128, 16, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    ck_assert_int_eq(simt_gemm_tf32_reduce_kernel(gpu, &req), 0);
    req.dtype = SIMT_DTYPE_TF32;
    req.m = req.n = 4096;
    req.k = 4096;
    ck_assert_int_eq(simt_gemm_tf32_reduce_kernel(gpu, &req), 0);
}
END_TEST

/* Every GPU of the database answers the short-K shapes; where the short-K
 * kernels run (NVIDIA from 8.0), one fill a kernel of resident blocks, and
 * a faster clock (the load/store path's rate) never makes it slower. */
START_TEST(every_gpu_answers)
{
    for (size_t i = 0; i < simt_hwdb_count(gemm_db); i++) {
        const struct simt_gpu_spec *gpu = &simt_hwdb_at(gemm_db, i)->spec;
        static const int64_t shapes[][3] = {{4096, 4096, 1}, {1024, 8192, 4}, {128, 128, 8}, {512, 510, 16}};
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            for (int d = 0; d < 2; d++) {
                struct simt_gemm_request req = {shapes[s][0],
                                                shapes[s][1],
                                                shapes[s][2],
                                                1,
                                                d ? SIMT_DTYPE_TF32 : SIMT_DTYPE_FP32,
                                                SIMT_POLICY_PREFER_MEASURED,
                                                SIMT_GEMM_LAUNCH_SINGLE,
                                                0};
                struct simt_gemm_result out;
                int rc = simt_gemm_predict(gpu, &req, &out, NULL);
                if (rc != SIMT_OK)
                    continue; /* a GPU without the type or its figures: refused, not this file's */
                ck_assert(isfinite(out.time_s) && out.time_s > 0.0);
            }
        }
        struct simt_gemm_request req = {
            4096, 4096, 1, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
        struct simt_gemm_result base;
        if (simt_gemm_predict(gpu, &req, &base, NULL) != SIMT_OK)
            continue;
        struct simt_gpu_spec faster = *gpu;
        faster.measured_clock_hz *= 1.2;
        faster.boost_clock_hz *= 1.2;
        faster.base_clock_hz *= 1.2;
        struct simt_gemm_result quick;
        ck_assert_int_eq(simt_gemm_predict(&faster, &req, &quick, NULL), SIMT_OK);
        ck_assert_msg(quick.time_s <= base.time_s * (1.0 + 1e-12), "%s: a faster clock is slower",
                      simt_hwdb_at(gemm_db, i)->id);
    }
}
END_TEST

/* tf32 at K = 1 runs cuBLAS's FP32 FMA kernel (gemm_tf32_k1.c): 500x200x1
 * and 1700x400x1 measured 4.8 and 5.7 us (gemm_probe_classes_tf32k1.json,
 * fit data), the tensor-core price +78% and +15%. fp32's answer, within
 * 15%, no tensor cores, and said; K = 2 keeps tf32's kernels. */
START_TEST(tf32_k1_runs_the_fma_kernel)
{
    const struct simt_gpu_spec *gpu = h200();
    struct simt_gemm_result r = predict(gpu, SIMT_DTYPE_TF32, 500, 200, 1);
    ck_assert_msg(fabs(r.time_s / 4.8e-6 - 1.0) < 0.15, "500x200x1: %g s", r.time_s);
    ck_assert_int_eq(r.tensor_cores, 0);
    ck_assert(gemm_says(&r, "priced as fp32"));
    ck_assert_double_eq_tol(r.time_s, predict(gpu, SIMT_DTYPE_FP32, 500, 200, 1).time_s, 1e-15);
    r = predict(gpu, SIMT_DTYPE_TF32, 1700, 400, 1);
    ck_assert_msg(fabs(r.time_s / 5.7e-6 - 1.0) < 0.15, "1700x400x1: %g s", r.time_s);
    r = predict(gpu, SIMT_DTYPE_TF32, 500, 200, 2);
    ck_assert(!gemm_says(&r, "priced as fp32"));
}
END_TEST

/* FP32 of a few columns at K of 64 to 300 (gemm_probe_classes_fp32n4k
 * .json, fit data): the ways cuBLAS split K, by hand (K = 64: 2; K = 120:
 * pieces of ceil(120 / 16) = 8, 15 ways; 2000x6x300, m n K 3.6e6: 4; K =
 * 200: pieces of 16, 13 ways, where cuBLAS took 17), and the H200's time
 * of 2000x2x200 (16.7 us) and 1300x4x300 (14.4 us), priced -36% and -24%
 * by the tiles: within 12%, named; 9 columns are not this kernel. */
START_TEST(fp32_few_columns_split)
{
    struct simt_gemm_request req = {
        800, 2, 64, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    ck_assert_int_eq(simt_gemm_column_split_ways(&req), 2);
    req.k = 120;
    ck_assert_int_eq(simt_gemm_column_split_ways(&req), 15);
    req.k = 200;
    ck_assert_int_eq(simt_gemm_column_split_ways(&req), 13);
    req.m = 2000, req.n = 6, req.k = 300;
    ck_assert_int_eq(simt_gemm_column_split_ways(&req), 4);
    const struct simt_gpu_spec *gpu = h200();
    struct simt_gemm_result r = predict(gpu, SIMT_DTYPE_FP32, 2000, 2, 200);
    ck_assert_msg(fabs(r.time_s / 16.7e-6 - 1.0) < 0.12, "2000x2x200: %g s", r.time_s);
    ck_assert(gemm_says(&r, "simt_sgemm_128x32 for a few columns"));
    r = predict(gpu, SIMT_DTYPE_FP32, 1300, 4, 300);
    ck_assert_msg(fabs(r.time_s / 14.4e-6 - 1.0) < 0.12, "1300x4x300: %g s", r.time_s);
    r = predict(gpu, SIMT_DTYPE_FP32, 1300, 9, 300);
    ck_assert(!gemm_says(&r, "simt_sgemm_128x32 for a few columns"));
}
END_TEST

/* FP32 of 2 to 4 rows against 13 to 63 slabs of 64 columns at K of 65 to
 * 600 (model/gemm_small_n.c): gemmSN, its 128-thread form past K = 450;
 * where it runs, by hand, then the H100's windows3 probe rows that ran
 * gemmSN (fit data, -16% to -62% before): within 12%. */
START_TEST(fp32_few_rows_gemmsn_at_mid_slabs)
{
    const struct simt_gpu_spec *h100 = gemm_db_spec("h100-sxm");
    static const struct {
        int64_t m, n, k;
        int runs;
    } cases[] = {
        {2, 1100, 450, SIMT_GEMM_STREAM_SN},   {2, 1100, 600, SIMT_GEMM_STREAM_SN},
        {4, 800, 600, SIMT_GEMM_STREAM_SN},    {4, 1500, 600, SIMT_GEMM_STREAM_NONE},
        {2, 700, 450, SIMT_GEMM_STREAM_NONE},  {2, 1100, 700, SIMT_GEMM_STREAM_NONE},
        {6, 1100, 450, SIMT_GEMM_STREAM_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct simt_gemm_request req =
            gemm_single_request(cases[i].m, cases[i].n, cases[i].k, SIMT_DTYPE_FP32);
        ck_assert_msg(simt_gemm_small_n_runs(h100, &req) == cases[i].runs, "%lldx%lldx%lld",
                      (long long)cases[i].m, (long long)cases[i].n, (long long)cases[i].k);
    }
    json_t *runs = gemm_probe_h100_runs("fp32");
    size_t rows = 0, i;
    json_t *run;
    json_array_foreach(runs, i, run)
    {
        struct simt_gemm_request req = gemm_probe_request(run, SIMT_DTYPE_FP32);
        const char *name =
            json_string_value(json_object_get(json_array_get(json_object_get(run, "kernels"), 0), "name"));
        if (req.m > 4 || req.n < 800 || req.n > 4095 || req.k < 65 || name == NULL ||
            strstr(name, "gemmSN") == NULL)
            continue;
        struct simt_gemm_result r;
        double e = gemm_probe_error(h100, run, &req, &r);
        ck_assert_msg(fabs(e) <= 0.12, "fp32 %lldx%lldx%lld: %+.1f%%", (long long)req.m, (long long)req.n,
                      (long long)req.k, 100.0 * e);
        rows++;
    }
    ck_assert_uint_eq(rows, 16);
    json_decref(runs);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gemm_shortk");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, resident_blocks_follow_the_occupancy_rules);
    tcase_add_test(tc, one_fill_a_kernel_within_one_stage);
    tcase_add_test(tc, time_follows_c_not_k_within_one_stage);
    tcase_add_test(tc, two_and_three_stages);
    tcase_add_test(tc, tf32_k1_runs_the_fma_kernel);
    tcase_add_test(tc, fp32_few_columns_split);
    tcase_add_test(tc, fp32_few_rows_gemmsn_at_mid_slabs);
    tcase_add_test(tc, reduction_kernel_where_cublas_ran_it);
    tcase_add_test(tc, tf32_reduction_kernel_follows_the_split_form);
    tcase_add_test(tc, every_gpu_answers);
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
