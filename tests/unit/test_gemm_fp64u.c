/* test_gemm_fp64u.c - cuBLAS's FP64 kernels of odd n or K at short K on
 * Hopper (model/gemm_fp64u.c): where the rule runs, the H200's answers
 * against fit probes (gemm_probe_classes_fp64u.json), which kernel it
 * names, and what-ifs that move it. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"
#include "gemm_internal.h"

/* FP64 on Hopper, n or K odd, m >= 1000, n >= 500, K of 32 to 128. */
START_TEST(where_it_runs)
{
    struct simt_gpu_spec g;
    gemm_round_gpu(&g, 9);
    struct simt_gemm_request req = {
        8192, 1001, 64, 1, SIMT_DTYPE_FP64, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    ck_assert(simt_gemm_fp64u_runs(&g, &req));
    req.n = 1000;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req)); /* aligned: the TMA kernels */
    req.k = 63;
    ck_assert(simt_gemm_fp64u_runs(&g, &req));
    req.k = 129;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req));
    req.k = 31;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req));
    req.k = 63, req.m = 999;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req));
    req.m = 8192, req.dtype = SIMT_DTYPE_FP32;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req));
    req.dtype = SIMT_DTYPE_FP64, g.compute_major = 8;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req));
}
END_TEST

static double h200_fp64(const struct simt_gpu_spec *g, int64_t m, int64_t n, int64_t k,
                        struct simt_gemm_result *r)
{
    struct simt_gemm_request req = {
        m, n, k, 1, SIMT_DTYPE_FP64, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(g, &req, r, &diag), SIMT_OK);
    return r->time_s;
}

/* Measured on the H200 (one cold call): 16384x2001x32 177.1 us (d884),
 * 9001x1001x32 51.6 us (d884), 16384x1001x128 140.9 us (sm90), 4096x2001x
 * 128 70.5 us (sm90). The square DMMA tiles priced the first at 88 us
 * (-50%). Within 15% each, each naming its kernel. */
START_TEST(h200_against_probes)
{
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    struct simt_gemm_result r;
    double t = h200_fp64(g, 16384, 2001, 32, &r);
    ck_assert(gemm_says(&r, "d884gemm_64x32"));
    ck_assert_msg(fabs(t / 177.1e-6 - 1.0) < 0.15, "16384x2001x32: %.4g s", t);
    t = h200_fp64(g, 9001, 1001, 32, &r);
    ck_assert_msg(fabs(t / 51.6e-6 - 1.0) < 0.15, "9001x1001x32: %.4g s", t);
    t = h200_fp64(g, 16384, 1001, 128, &r);
    ck_assert(gemm_says(&r, "sm90_xmma_gemm_f64f64 64x64x32"));
    ck_assert_msg(fabs(t / 140.9e-6 - 1.0) < 0.15, "16384x1001x128: %.4g s", t);
    t = h200_fp64(g, 4096, 2001, 128, &r);
    ck_assert_msg(fabs(t / 70.5e-6 - 1.0) < 0.15, "4096x2001x128: %.4g s", t);
}
END_TEST

/* Twice the DRAM write rate shortens the stores; twice the FP64 tensor
 * figure the math: both make the answer faster, neither by more than half. */
START_TEST(what_ifs_move_it)
{
    struct simt_gemm_result r;
    double base = h200_fp64(gemm_db_spec("h200-sxm"), 16384, 2001, 64, &r);
    struct simt_gpu_spec g = *gemm_db_spec("h200-sxm");
    g.measured_dram_write_bandwidth_bytes_per_s *= 2.0;
    double writes = h200_fp64(&g, 16384, 2001, 64, &r);
    ck_assert_msg(writes < 0.9 * base && writes > 0.5 * base, "%.4g s against %.4g s", writes, base);
    g = *gemm_db_spec("h200-sxm");
    g.measured_tensor_flops_per_s[SIMT_DTYPE_FP64] *= 2.0;
    double math = h200_fp64(&g, 16384, 2001, 64, &r);
    ck_assert_msg(math < 0.9 * base && math > 0.5 * base, "%.4g s against %.4g s", math, base);
}
END_TEST

static Suite *gemm_fp64u_suite(void)
{
    Suite *s = suite_create("gemm_fp64u");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, where_it_runs);
    tcase_add_test(tc, h200_against_probes);
    tcase_add_test(tc, what_ifs_move_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_fp64u_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
