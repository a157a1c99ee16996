/* test_gemm_gemv.c - cuBLAS's GEMV kernels of one output row whose walk
 * of K at the memory latency sets their time (model/gemm_gemv.c): which
 * kernel runs and its walk, worked by hand, then the H200's answers
 * against its fit probes (gemm_probe_classes6.json, gemm_probe_classes4.json). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"
#include "gemm_internal.h"

static struct simt_gemm_request one_row(int64_t n, int64_t k, enum simt_dtype dtype)
{
    struct simt_gemm_request req = {1, n, k, 1, dtype, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE,
                                    0};
    return req;
}

/* L = 1 us, so the walks read in latencies. 189 = 5 chunks of 32 and 29
 * left over: 5 x 1.1 + 29 / 4 = 12.75 L, two threads a row. K = 100 at
 * n = 1024: gemv2N, one thread a row, 100 / 3 L; at n = 256 two threads a
 * row, half that; at n = 64 gemvNSP, no walk. K = 128: none of them (the
 * streaming GEMV). n K = 2^21 at K = 512 is past the two-thread kernel:
 * 32 threads a row, 512 / 512 = 1 chunk, nothing left over. Not for two
 * rows, fp16, or another vendor's GPU. */
START_TEST(walks_by_hand)
{
    struct simt_gpu_spec g;
    gemm_round_gpu(&g, 9);
    struct simt_gemm_gemv_walk w;
    struct simt_gemm_request req = one_row(1024, 189, SIMT_DTYPE_FP32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 1);
    ck_assert_int_eq(w.kernel, SIMT_GEMM_GEMV_WALK_GEMVX);
    ck_assert_int_eq(w.threads_per_row, 2);
    ck_assert_double_eq_tol(w.walk_s, 12.75e-6, 1e-12);
    ck_assert_double_eq_tol(w.fixed_s, 4e-6, 1e-12);
    req = one_row(1024, 100, SIMT_DTYPE_TF32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 1);
    ck_assert_int_eq(w.kernel, SIMT_GEMM_GEMV_WALK_GEMV2N);
    ck_assert_double_eq_tol(w.walk_s, 100.0 / 3.0 * 1e-6, 1e-12);
    req = one_row(256, 100, SIMT_DTYPE_FP32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 1);
    ck_assert_int_eq(w.threads_per_row, 2);
    ck_assert_double_eq_tol(w.walk_s, 100.0 / 6.0 * 1e-6, 1e-12);
    req = one_row(64, 100, SIMT_DTYPE_FP32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 1);
    ck_assert_int_eq(w.kernel, SIMT_GEMM_GEMV_WALK_NSP);
    ck_assert_double_eq_tol(w.walk_s, 0.0, 1e-15);
    req = one_row(1024, 128, SIMT_DTYPE_FP32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 0);
    req = one_row(4096, 512, SIMT_DTYPE_FP32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 1);
    ck_assert_int_eq(w.kernel, SIMT_GEMM_GEMV_WALK_GEMVX_WIDE);
    ck_assert_double_eq_tol(w.walk_s, 1.1e-6, 1e-12);
    req = one_row(1024, 189, SIMT_DTYPE_FP32);
    req.m = 2;
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 0);
    req = one_row(1024, 189, SIMT_DTYPE_FP16);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 0);
    g.vendor = SIMT_VENDOR_AMD;
    req = one_row(1024, 189, SIMT_DTYPE_FP32);
    ck_assert_int_eq(simt_gemm_gemv_walk(&g, &req, 1e-6, &w), 0);
}
END_TEST

static double h200_time(const struct simt_gpu_spec *g, int64_t n, int64_t k, struct simt_gemm_result *out)
{
    struct simt_gemm_request req = one_row(n, k, SIMT_DTYPE_FP32);
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(g, &req, out, &diag), SIMT_OK);
    return out->time_s;
}

/* Measured on the H200 (fit probes, one cold call): 1x1024x189 8.74 us
 * and 1x1024x193 6.59 (the 29 left over of K mod 32 cost 2.15 us); 1x1024x1023
 * 18.3 us; gemv2N's 1x1024x92 15.1 us; 1x16x84 (gemvNSP, a warp a row)
 * 4.32 us. The streaming GEMV alone put them all at 5.1 to 6.6 us. */
START_TEST(h200_walks_against_probes)
{
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    struct simt_gemm_result r;
    double odd = h200_time(g, 1024, 189, &r);
    ck_assert(gemm_says(&r, "gemvx with two threads"));
    double even = h200_time(g, 1024, 193, &r);
    ck_assert_msg(odd - even > 1.5e-6 && odd - even < 3.5e-6, "189 against 193: %.4g s more", odd - even);
    ck_assert_msg(fabs(odd / 8.74e-6 - 1.0) < 0.15, "1x1024x189: %.4g s", odd);
    double t = h200_time(g, 1024, 1023, &r);
    ck_assert_msg(fabs(t / 18.3e-6 - 1.0) < 0.15, "1x1024x1023: %.4g s", t);
    t = h200_time(g, 1024, 92, &r);
    ck_assert(gemm_says(&r, "gemv2N"));
    ck_assert_msg(fabs(t / 15.1e-6 - 1.0) < 0.15, "1x1024x92: %.4g s", t);
    t = h200_time(g, 16, 84, &r);
    ck_assert_msg(fabs(t / 4.32e-6 - 1.0) < 0.15, "1x16x84: %.4g s", t);
}
END_TEST

/* The walk waits DRAM's latency: a what-if that doubles it lengthens the
 * 32 chunks of 1x1024x1024 by about 32 x 1.1 x 0.34 us, and the fixed
 * four latencies by 1.4 us. */
START_TEST(walk_follows_dram_latency)
{
    struct simt_gpu_spec g = *gemm_db_spec("h200-sxm");
    struct simt_gemm_result r;
    double base = h200_time(&g, 1024, 1024, &r);
    g.dram_latency_cycles *= 2.0;
    g.measured_dram_latency_cycles *= 2.0;
    double slow = h200_time(&g, 1024, 1024, &r);
    ck_assert_msg(slow - base > 10e-6, "doubled latency: %.4g s against %.4g s", slow, base);
}
END_TEST

/* One row against a few columns at long K runs dot_kernel and
 * reduce_1Block_kernel (gemm_probe_classes_fp32gv.json, fit data): 1x5x3000
 * 6.5 us, 1x5x12000 8.2 us, 1x16x6000 8.4 us, where gemvx's wide walk put
 * the second at 12.8 us. Within 12% each, named; a second round past K =
 * 3968 and a longer latency lengthens it; 128 columns at K = 1023 is
 * gemvx. */
START_TEST(h200_dot_kernel)
{
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    struct simt_gemm_result r;
    double t = h200_time(g, 5, 3000, &r);
    ck_assert(gemm_says(&r, "dot_kernel"));
    ck_assert_msg(fabs(t / 6.5e-6 - 1.0) < 0.12, "1x5x3000: %.4g s", t);
    double longer = h200_time(g, 5, 12000, &r);
    ck_assert_msg(fabs(longer / 8.2e-6 - 1.0) < 0.12, "1x5x12000: %.4g s", longer);
    ck_assert(longer > t);
    t = h200_time(g, 16, 6000, &r);
    ck_assert_msg(fabs(t / 8.4e-6 - 1.0) < 0.12, "1x16x6000: %.4g s", t);
    h200_time(g, 128, 1023, &r);
    ck_assert(!gemm_says(&r, "dot_kernel"));
    struct simt_gpu_spec slow = *g;
    slow.dram_latency_cycles *= 2.0;
    slow.measured_dram_latency_cycles *= 2.0;
    ck_assert(h200_time(&slow, 5, 12000, &r) > longer + 1e-6);
}
END_TEST

static Suite *gemm_gemv_suite(void)
{
    Suite *s = suite_create("gemm_gemv");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, walks_by_hand);
    tcase_add_test(tc, h200_walks_against_probes);
    tcase_add_test(tc, walk_follows_dram_latency);
    tcase_add_test(tc, h200_dot_kernel);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_gemv_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
