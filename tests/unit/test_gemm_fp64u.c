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

/* FP64 on Hopper, n or K odd, m >= 600, n >= 500, K of 17 to 128. */
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
    req.k = 31; /* from 17: the H100's d884 at K = 23 */
    ck_assert(simt_gemm_fp64u_runs(&g, &req));
    req.k = 15;
    ck_assert(!simt_gemm_fp64u_runs(&g, &req));
    req.k = 63, req.m = 599;
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

/* Small products of odd n (fit probes, gemm_probe_classes_fp64sk.json):
 * 17x9x2000 28.3 us (one block walking K), 24x9x5000 47.8 us (K split over
 * the 132 SMs, the pieces summed one after another), 24x48x1000 33.5 us
 * (even n: gemm_fp64.c's serial split, now from m = 17). The square tiles'
 * split with cuBLAS's parallel reduction priced them at 9.5, 11.4 and 8.6
 * us. Within 15% each; a longer walk is never faster (under the 2^22-flop
 * line, past which cuBLAS's faster d884 split runs: 17x31x5000 11.6 us); n
 * = 1 (a GEMV) and m = 8 are not the walk. */
START_TEST(h200_small_products_walk_k)
{
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    struct simt_gemm_result r;
    double t = h200_fp64(g, 17, 9, 2000, &r);
    ck_assert(gemm_says(&r, "walks K"));
    ck_assert_msg(fabs(t / 28.3e-6 - 1.0) < 0.15, "17x9x2000: %.4g s", t);
    t = h200_fp64(g, 24, 9, 5000, &r);
    ck_assert(gemm_says(&r, "one after another"));
    ck_assert_msg(fabs(t / 47.8e-6 - 1.0) < 0.15, "24x9x5000: %.4g s", t);
    t = h200_fp64(g, 24, 48, 1000, &r);
    ck_assert_msg(fabs(t / 33.5e-6 - 1.0) < 0.15, "24x48x1000: %.4g s", t);
    double last = 0.0;
    for (int64_t k = 1001; k <= 3501; k += 250) { /* under 2^22 flops: past it, d884's split */
        t = h200_fp64(g, 17, 31, k, &r);
        ck_assert_msg(t >= last, "17x31x%lld: %.4g s after %.4g s", (long long)k, t, last);
        last = t;
    }
    h200_fp64(g, 64, 1, 2047, &r);
    ck_assert(!gemm_says(&r, "walks K"));
    h200_fp64(g, 8, 9, 2001, &r);
    ck_assert(!gemm_says(&r, "walks K"));
}
END_TEST

/* FP64 at odd K of one stage stores C about an element a clock an SM
 * (gemm_probe_classes.json group fp64, fit data): 16384x1000x3 64.7 us,
 * 4096x1000x3 20.9 us, priced -29% and -30% before. Within 12%, named;
 * K = 2 (16-byte stores) and a small output are not floored. */
START_TEST(h200_short_odd_k_stores)
{
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    struct simt_gemm_result r;
    double t = h200_fp64(g, 16384, 1000, 3, &r);
    ck_assert(gemm_says(&r, "an element a clock"));
    ck_assert_msg(fabs(t / 64.7e-6 - 1.0) < 0.12, "16384x1000x3: %.4g s", t);
    t = h200_fp64(g, 4096, 1000, 3, &r);
    ck_assert_msg(fabs(t / 20.9e-6 - 1.0) < 0.12, "4096x1000x3: %.4g s", t);
    h200_fp64(g, 16384, 1000, 2, &r);
    ck_assert(!gemm_says(&r, "an element a clock"));
    h200_fp64(g, 17, 14, 3, &r);
    ck_assert(!gemm_says(&r, "an element a clock"));
}
END_TEST

/* Tall FP64 of few columns at K of 2 to 4, n or K odd: the 64x128 kernel,
 * one block an SM, rounds of its tile's elements (gemm_fp64u.c). The
 * H100's probes (fit data): every such row of 12000 rows or more within
 * 5% and said so; 10000 rows (313 tiles of 32x32, not over 2.5 SMs'
 * worth) and aligned n and K not. */
START_TEST(tall_tiny_k_rounds)
{
    const struct simt_gpu_spec *h100 = gemm_db_spec("h100-sxm");
    json_t *runs = gemm_probe_h100_runs("fp64");
    size_t taken = 0, others = 0, i;
    json_t *run;
    json_array_foreach(runs, i, run)
    {
        struct simt_gemm_request req = gemm_probe_request(run, SIMT_DTYPE_FP64);
        if (req.k < 2 || req.k > 4 || req.n > 16 || req.m < 4000)
            continue;
        struct simt_gemm_result r;
        ck_assert_int_eq(simt_gemm_predict(h100, &req, &r, NULL), SIMT_OK);
        int said = gemm_says(&r, "64x128x32 aligna8");
        int odd = req.n % 2 != 0 || req.k % 2 != 0;
        if (!odd || req.m <= 10000) {
            ck_assert_int_eq(said, 0);
            others++;
            continue;
        }
        ck_assert_int_eq(said, 1);
        double e = r.time_s / json_real_value(json_object_get(run, "measured_s")) - 1.0;
        ck_assert_msg(fabs(e) <= 0.05, "fp64 %lldx%lldx%lld: %+.1f%%", (long long)req.m, (long long)req.n,
                      (long long)req.k, 100.0 * e);
        taken++;
    }
    json_decref(runs);
    ck_assert_uint_eq(taken, 20);
    ck_assert_uint_gt(others, 20);
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
    tcase_add_test(tc, h200_small_products_walk_k);
    tcase_add_test(tc, h200_short_odd_k_stores);
    tcase_add_test(tc, tall_tiny_k_rounds);
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
