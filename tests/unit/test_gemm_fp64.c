/* test_gemm_fp64.c - FP64 GEMMs on Hopper (model/gemm_fp64.c): cuBLAS's
 * split of K over every SM for small products with long K, and the second
 * kernel that adds the pieces one after another, a DRAM latency each; the
 * last wave's stores of C, which follow its math unhidden. On a
 * made-up GPU with round numbers (as test_gemm_small.c's), so that every
 * expected value can be worked by hand beside it. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"
#include "gemm_internal.h"

/* 128 SMs at 1 GHz; fp64 tensor 1e14 x 0.66; DRAM 4e12 B/s, 500 cycles
 * (0.5 us) of latency; no L2 figure. Back-to-back calls: 2.45 us a kernel,
 * two DRAM latencies a wave for the first loads and the last stores. */
static void round_gpu(struct simt_gpu_spec *g, int compute_major)
{
    gemm_round_gpu(g, compute_major);
    g->tensor_dense_flops_per_s[SIMT_DTYPE_FP64] = 1.0e14;
    g->dram_latency_cycles = 500.0;
}

#define FLOOR 2.45e-6
#define LATENCY 0.5e-6

static struct simt_gemm_result predict_ok(const struct simt_gpu_spec *g, int64_t m, int64_t n, int64_t k)
{
    return gemm_predict_ok(g, m, n, k, SIMT_DTYPE_FP64);
}

/* 32 x 16 x 1024: one 32x32 tile, K cut 128 ways (one piece per SM); the
 * reduction kernel (gemm_reduce.c, one piece in flight): 2.45 us, 128
 * pieces of 0.5 us and one more for the store of C, and the GEMM's stores
 * of the 128 fp64 partials (128*32*16*8 = 524,288 B at 4e12 B/s: 0.131072
 * us) = 67.081072 us. The GEMM
 * kernel itself: one wave of 128 blocks, each one 16-deep K step (K pads
 * from 8 to 16): 2*32*32*16 flops at 0.66e14 / 128 per SM, its 2.45 us and
 * two latencies. 48 x 16 x 1024 is two tiles: 64 pieces. */
START_TEST(serial_split_over_every_sm)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result r = predict_ok(&g, 32, 16, 1024);
    ck_assert_int_eq(r.split_k, 128);
    ck_assert_int_eq(r.tile_m, 32);
    ck_assert_int_eq(r.tile_n, 32);
    ck_assert_double_eq_tol(r.reduce_s, FLOOR + 129.0 * LATENCY + 524288.0 / 4.0e12, 1e-12);
    double math = 2.0 * 32.0 * 32.0 * 16.0 / (0.66e14 / 128.0);
    ck_assert_double_eq_tol(r.compute_s, math, 1e-12);
    ck_assert_double_eq_tol(r.overhead_s, FLOOR + 2.0 * LATENCY, 1e-12);
    ck_assert(r.time_s >= r.reduce_s + r.overhead_s + math - 1e-12);
    ck_assert_int_eq(gemm_says(&r, "one after another"), 1);
    struct simt_gemm_result two = predict_ok(&g, 48, 16, 1024);
    ck_assert_int_eq(two.split_k, 64);
    ck_assert_double_eq_tol(two.reduce_s, FLOOR + 65.0 * LATENCY + 64.0 * 48.0 * 16.0 * 8.0 / 4.0e12, 1e-12);
    /* 2mnk just under 2^22: 32 x 32 x 2047 would be unaligned; 48x16x2048 */
    ck_assert_int_eq(predict_ok(&g, 48, 16, 2048).split_k, 64);
}
END_TEST

/* Where it does not run: K under 1024, m under 32, n under 16, 2mnk of
 * 2^22 or more, unaligned K, before Hopper, and with no DRAM latency
 * figure. There the least-time split (at most 16) stands. */
static const struct {
    int compute_major;
    int64_t m, n, k;
    double latency_cycles;
} not_serial_rows[] = {
    {9, 32, 16, 512, 500.0},  {9, 16, 16, 2048, 500.0},   {9, 16, 32, 1024, 500.0}, {9, 32, 8, 2048, 500.0},
    {9, 32, 32, 2048, 500.0}, {9, 64, 16, 2048, 500.0},   {9, 32, 16, 1025, 500.0}, {8, 32, 16, 1024, 500.0},
    {9, 32, 16, 1024, 0.0},   {9, 128, 128, 4096, 500.0},
};

START_TEST(serial_split_bounds)
{
    struct simt_gpu_spec g;
    round_gpu(&g, not_serial_rows[_i].compute_major);
    g.dram_latency_cycles = not_serial_rows[_i].latency_cycles;
    struct simt_gemm_result r =
        predict_ok(&g, not_serial_rows[_i].m, not_serial_rows[_i].n, not_serial_rows[_i].k);
    ck_assert_int_le(r.split_k, 16);
    ck_assert_int_eq(gemm_says(&r, "one after another"), 0);
}
END_TEST

/* The pieces wait on memory: a longer DRAM latency, or a slower clock at
 * the same cycles, makes the reduction longer; more SMs, more pieces. */
START_TEST(serial_split_follows_latency_and_sms)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result base = predict_ok(&g, 32, 32, 1024);
    g.dram_latency_cycles = 800.0;
    struct simt_gemm_result slow = predict_ok(&g, 32, 32, 1024);
    ck_assert(slow.time_s > base.time_s);
    ck_assert_double_eq_tol(slow.reduce_s - base.reduce_s, 129.0 * 0.3e-6, 1e-12);
    g.dram_latency_cycles = 500.0;
    g.boost_clock_hz = 0.5e9;
    ck_assert_double_eq_tol(predict_ok(&g, 32, 32, 1024).reduce_s,
                            FLOOR + 129.0 * 1.0e-6 + 128.0 * 32.0 * 32.0 * 8.0 / 4.0e12, 1e-12);
    round_gpu(&g, 9);
    g.sm_count = 132;
    ck_assert_int_eq(predict_ok(&g, 32, 32, 1024).split_k, 132);
    ck_assert_int_eq(predict_ok(&g, 64, 16, 1024).split_k, 66);
}
END_TEST

/* 1024 x 1024 x 256 with no latency figure (no fill, no feed limit) and
 * no L2 figure: every tile does the same math, so the one whose last wave
 * stores least wins, 32x32: 1024 tiles, 8 waves of 2*32*32*256 flops at
 * 0.66e14 / 128 per SM; the last wave's 128 tiles store an eighth of C's
 * 8 MiB at 4e12 B/s after its math. On Ampere the stores hide. */
START_TEST(last_wave_stores_follow_math)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    g.dram_latency_cycles = 0.0;
    struct simt_gemm_result r = predict_ok(&g, 1024, 1024, 256);
    double math = 8.0 * 2.0 * 32.0 * 32.0 * 256.0 / (0.66e14 / 128.0);
    double write = 1024.0 * 1024.0 * 8.0 / 4.0e12;
    ck_assert_int_eq(r.tile_m, 32);
    ck_assert_int_eq(r.tile_n, 32);
    ck_assert_int_eq(r.split_k, 1);
    ck_assert_double_eq_tol(r.time_s, math + write / 8.0 + FLOOR, 1e-12);
    g.measured_dram_write_bandwidth_bytes_per_s = 8.0e12;
    ck_assert(predict_ok(&g, 1024, 1024, 256).time_s < r.time_s);
    round_gpu(&g, 8);
    g.dram_latency_cycles = 0.0;
    ck_assert_double_eq_tol(predict_ok(&g, 1024, 1024, 256).time_s, math + FLOOR, 1e-12);
}
END_TEST

/* K = 1 (gemm_k1.c): cuBLAS's outer-product kernel, one block per 32x32
 * of C. 1024 x 2048 x 1: C is 16,777,216 B written, A and B 24,576 B read,
 * the reads paired with as many writes at the copy rate (no copy figure:
 * 4e12 B/s, as every rate here), so DRAM's time is their sum over 4e12 B/s
 * = 4.2004 us. Back to back: the kernels' gap and two DRAM latencies
 * before it; 32 x 64 blocks; no tensor cores, no DMMA epilogue line. One
 * call on an idle GPU: the launch overhead (3 us here) and three
 * latencies instead (no L2 size: no dirty lines evicted). */
START_TEST(k1_outer_product)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result r = predict_ok(&g, 1024, 2048, 1);
    double dram = (1024.0 * 2048.0 * 8.0 + (1024.0 + 2048.0) * 8.0) / 4.0e12;
    ck_assert_double_eq_tol(r.dram_s, dram, 1e-15);
    ck_assert_double_eq_tol(r.overhead_s, FLOOR + 2.0 * LATENCY, 1e-15);
    ck_assert_double_eq_tol(r.time_s, FLOOR + 2.0 * LATENCY + dram, 1e-15);
    ck_assert_int_eq(r.tiles, 32 * 64);
    ck_assert_int_eq(r.tile_m, 32);
    ck_assert_int_eq(r.tile_n, 32);
    ck_assert_int_eq(r.tensor_cores, 0);
    ck_assert_int_eq(gemm_says(&r, "outer-product"), 1);
    ck_assert_int_eq(gemm_says(&r, "DMMA kernels store C"), 0);
    ck_assert_int_eq(gemm_says(&r, "per GEMM kernel"), 0); /* the tile kernels' overhead line */

    g.launch_overhead_s = 3.0e-6;
    struct simt_gemm_request req = {
        1024, 2048, 1, 1, SIMT_DTYPE_FP64, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(&g, &req, &r, &diag), SIMT_OK);
    ck_assert_double_eq_tol(r.time_s, 3.0e-6 + 3.0 * LATENCY + dram, 1e-15);
    ck_assert_int_eq(gemm_says(&r, "three DRAM latencies"), 1);

    /* C's write is what it costs: twice the write rate, less time; and
     * less than the tile kernels' price at K = 2 */
    g.measured_dram_write_bandwidth_bytes_per_s = 8.0e12;
    struct simt_gemm_result faster;
    ck_assert_int_eq(simt_gemm_predict(&g, &req, &faster, &diag), SIMT_OK);
    ck_assert(faster.time_s < r.time_s);
    round_gpu(&g, 9);
    ck_assert(predict_ok(&g, 1024, 2048, 1).time_s < predict_ok(&g, 1024, 2048, 2).time_s);
}
END_TEST

/* Where it does not run: before or after Hopper (not seen), K of 2, a
 * single output element (a GEMV and a split-K reduction on an H100,
 * gemm_probe_k1edge.json), a batch (not seen); fp32 at K = 1 runs
 * simt_sgemm (gemm_tiny.c). */
static const struct {
    int compute_major;
    int64_t m, n, k, batch;
    enum simt_dtype dtype;
} not_k1_rows[] = {
    {8, 1024, 1024, 1, 1, SIMT_DTYPE_FP64}, {10, 1024, 1024, 1, 1, SIMT_DTYPE_FP64},
    {9, 1024, 1024, 2, 1, SIMT_DTYPE_FP64}, {9, 1, 1, 1, 1, SIMT_DTYPE_FP64},
    {9, 1, 1024, 2, 1, SIMT_DTYPE_FP64},    {9, 1024, 1024, 1, 2, SIMT_DTYPE_FP64},
    {9, 1024, 1024, 1, 1, SIMT_DTYPE_FP32},
};

START_TEST(k1_bounds)
{
    struct simt_gpu_spec g;
    round_gpu(&g, not_k1_rows[_i].compute_major);
    g.tensor_dense_flops_per_s[SIMT_DTYPE_FP32] = 0.0;
    struct simt_gemm_request req = {not_k1_rows[_i].m,
                                    not_k1_rows[_i].n,
                                    not_k1_rows[_i].k,
                                    not_k1_rows[_i].batch,
                                    not_k1_rows[_i].dtype,
                                    SIMT_POLICY_PREFER_MEASURED,
                                    SIMT_GEMM_LAUNCH_BACK_TO_BACK,
                                    0};
    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(&g, &req, &r, &diag), SIMT_OK);
    ck_assert_int_eq(gemm_says(&r, "outer-product"), 0);
    ck_assert_int_eq(simt_gemm_k1_runs(&g, &req), 0);
    req.m = req.n = 1024, req.k = req.batch = 1, req.dtype = SIMT_DTYPE_FP64;
    ck_assert_int_eq(simt_gemm_k1_runs(&g, &req), not_k1_rows[_i].compute_major == 9);
}
END_TEST

/* Where it runs below 14 a side: every fp64 K = 1 output of two elements
 * or more (gemm_probe_k1edge.json: 1 x 2, 13 x 13, 2 x 8192 and 8192 x 1
 * ran gemmk1_kernel in 3.87 to 4.35 us on an H100), GEMV shapes too. */
static const int64_t k1_small_sides[][2] = {{1, 2}, {2, 1}, {13, 13}, {2, 8192}, {8192, 1}, {1, 1024}};

START_TEST(k1_small_outputs)
{
    struct simt_gpu_spec g;
    round_gpu(&g, 9);
    struct simt_gemm_result r = predict_ok(&g, k1_small_sides[_i][0], k1_small_sides[_i][1], 1);
    ck_assert_int_eq(gemm_says(&r, "outer-product"), 1);
    ck_assert_int_eq(r.tile_m, 32);
    ck_assert_int_eq(r.tile_n, 32);
    ck_assert_double_eq_tol(r.overhead_s, FLOOR + 2.0 * LATENCY, 1e-15);
}
END_TEST

static Suite *gemm_fp64_suite(void)
{
    Suite *s = suite_create("gemm_fp64");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, serial_split_over_every_sm);
    tcase_add_loop_test(tc, serial_split_bounds, 0,
                        (int)(sizeof not_serial_rows / sizeof not_serial_rows[0]));
    tcase_add_test(tc, serial_split_follows_latency_and_sms);
    tcase_add_test(tc, last_wave_stores_follow_math);
    tcase_add_test(tc, k1_outer_product);
    tcase_add_loop_test(tc, k1_bounds, 0, (int)(sizeof not_k1_rows / sizeof not_k1_rows[0]));
    tcase_add_loop_test(tc, k1_small_outputs, 0, (int)(sizeof k1_small_sides / sizeof k1_small_sides[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_fp64_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
