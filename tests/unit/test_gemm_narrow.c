/* test_gemm_narrow.c - cuBLAS's FP32 kernels for tall, narrow outputs
 * (model/gemm_narrow.c): the rate an SM reaches with the outputs its
 * blocks hold, worked by hand, where the rule runs, and the H200's
 * answers against fit probes (gemm_probe_classes2.json, 5.json); and
 * bf16's few rows against narrow unaligned B (model/gemm_small_n.c). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"
#include "gemm_internal.h"

/* 0.874 x (1 - exp(-O / 6750)) of the FMA rate: 4096 outputs 0.397,
 * 8192 0.614, 32768 0.867; more outputs never slower. */
START_TEST(rate_by_hand)
{
    ck_assert_double_eq_tol(simt_gemm_fma_narrow_rate(1.0, 4096.0), 0.874 * (1.0 - exp(-4096.0 / 6750.0)),
                            1e-12);
    ck_assert_double_eq_tol(simt_gemm_fma_narrow_rate(100.0, 8192.0), 61.43, 0.01);
    ck_assert_double_eq_tol(simt_gemm_fma_narrow_rate(1.0, 32768.0), 0.8672, 0.0001);
    double last = 0.0;
    for (double o = 1024.0; o <= 65536.0; o *= 2.0) {
        double r = simt_gemm_fma_narrow_rate(1.0, o);
        ck_assert(r > last && r < 0.874);
        last = r;
    }
}
END_TEST

/* m 512..4096 against n 2..64 at K of 4095 and more, FP32 alone, on
 * NVIDIA from Ampere on. */
START_TEST(where_it_runs)
{
    struct simt_gpu_spec g;
    gemm_round_gpu(&g, 9);
    struct simt_gemm_request req = {
        2048, 48, 8192, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    ck_assert(simt_gemm_fma_narrow_runs(&g, &req));
    req.n = 65;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
    req.n = 2; /* down to two columns (gemm_probe_classes_fp32n2.json); one is a GEMV */
    ck_assert(simt_gemm_fma_narrow_runs(&g, &req));
    req.n = 1;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
    req.n = 48, req.k = 2048;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
    req.k = 8192, req.m = 8192;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
    req.m = 2048, req.dtype = SIMT_DTYPE_TF32;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
    req.dtype = SIMT_DTYPE_FP32;
    g.compute_major = 7;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
    g.compute_major = 9, g.vendor = SIMT_VENDOR_AMD;
    ck_assert(!simt_gemm_fma_narrow_runs(&g, &req));
}
END_TEST

static double h200_fp32(int64_t m, int64_t n, int64_t k, struct simt_gemm_result *r)
{
    struct simt_gemm_request req = {
        m, n, k, 1, SIMT_DTYPE_FP32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(gemm_db_spec("h200-sxm"), &req, r, &diag), SIMT_OK);
    return r->time_s;
}

/* Measured on the H200 (one cold call): 2048x48x16384 140 us (128x64
 * tiles, one block an SM), 3072x48x16384 159 us (256x64, two), 4096x32x
 * 8192 80.6 us (128x32, two), 1024x32x8192 44.7 us (64x32, two). The
 * square tiles' rate put the first at 96.5 us (-31%) and the third at
 * 95.2 (+18%). Within 15% each, and 1024 rows of 32 columns cost more
 * than half of 2048 rows: fewer outputs resident. */
START_TEST(h200_against_probes)
{
    struct simt_gemm_result r;
    double t = h200_fp32(2048, 48, 16384, &r);
    ck_assert(gemm_says(&r, "tall, narrow"));
    ck_assert_int_eq(r.tile_n, 64);
    ck_assert_msg(fabs(t / 140e-6 - 1.0) < 0.15, "2048x48x16384: %.4g s", t);
    t = h200_fp32(3072, 48, 16384, &r);
    ck_assert_msg(fabs(t / 159e-6 - 1.0) < 0.15, "3072x48x16384: %.4g s", t);
    t = h200_fp32(4096, 32, 8192, &r);
    ck_assert_int_eq(r.tile_n, 32);
    ck_assert_msg(fabs(t / 80.6e-6 - 1.0) < 0.15, "4096x32x8192: %.4g s", t);
    double small = h200_fp32(1024, 32, 8192, &r);
    ck_assert_msg(fabs(small / 44.7e-6 - 1.0) < 0.15, "1024x32x8192: %.4g s", small);
    double large = h200_fp32(2048, 32, 8192, &r);
    ck_assert_msg(small > 0.6 * large, "1024 rows %.4g s, 2048 rows %.4g s", small, large);
}
END_TEST

/* bf16 of 4 rows against 27 columns (not a multiple of 8) at K = 543:
 * cuBLAS's gemmSN_NN streams it (measured 14.0 us at 4x45x543, 13.6 at
 * 2x27x543, gemm_probe_classes_bf16s.json; the align1 kernels priced it at
 * 8.7); an aligned n (32) or K past 999 is not it. */
START_TEST(h200_bf16_few_rows_stream)
{
    struct simt_gemm_request req = {
        4, 27, 543, 1, SIMT_DTYPE_BF16, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    ck_assert_int_eq(simt_gemm_predict(g, &req, &r, &diag), SIMT_OK);
    ck_assert(gemm_says(&r, "gemmSN"));
    ck_assert_msg(fabs(r.time_s / 13.8e-6 - 1.0) < 0.2, "4x27x543: %.4g s", r.time_s);
    req.n = 32;
    ck_assert_int_eq(simt_gemm_predict(g, &req, &r, &diag), SIMT_OK);
    ck_assert(!gemm_says(&r, "gemmSN"));
    req.n = 27, req.k = 1023;
    ck_assert_int_eq(simt_gemm_predict(g, &req, &r, &diag), SIMT_OK);
    ck_assert(!gemm_says(&r, "gemmSN"));
}
END_TEST

static Suite *gemm_narrow_suite(void)
{
    Suite *s = suite_create("gemm_narrow");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, rate_by_hand);
    tcase_add_test(tc, where_it_runs);
    tcase_add_test(tc, h200_against_probes);
    tcase_add_test(tc, h200_bf16_few_rows_stream);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_narrow_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
