/* test_gemm_boost.c - a single tensor-core GEMM call's boost before the
 * board's power limit (model/gemm_boost.c): the arithmetic of the boosted
 * window worked by hand, that it never makes a call slower when a figure
 * rises, and, on the bundled H200 record, which calls it applies to: one
 * compute-bound bf16 call is faster than the sustained rate by the ratio,
 * back-to-back calls, FP64 and int8 are not boosted, and the record's
 * figure moves the answer. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "gemm_boost.h"
#include "hwdb.h"

static struct simt_figure_set boost_figures(double ratio, double window_s)
{
    struct simt_figure_set f;
    memset(&f, 0, sizeof f);
    f.value[SIMT_FIG_TENSOR_SINGLE_CALL] = ratio;
    f.source[SIMT_FIG_TENSOR_SINGLE_CALL] = ratio > 0.0 ? SIMT_FIGURE_MEASURED : SIMT_FIGURE_ABSENT;
    f.value[SIMT_FIG_TENSOR_BOOST_WINDOW] = window_s;
    f.source[SIMT_FIG_TENSOR_BOOST_WINDOW] = window_s > 0.0 ? SIMT_FIGURE_MEASURED : SIMT_FIGURE_ABSENT;
    return f;
}

START_TEST(window_arithmetic)
{
    struct simt_figure_set f = boost_figures(1.25, 0.010);
    struct simt_gemm_boost b;
    simt_figure_mask used = 0;
    /* 1e12 flop at 1e15 flop/s: 1 ms sustained, inside the window (1.25 x
     * 10 ms of sustained work): the whole call is boosted */
    simt_gemm_single_call_boost(&f, 1e12, 1e15, &used, &b);
    ck_assert_double_eq_tol(b.factor, 1.25, 1e-12);
    ck_assert(used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_SINGLE_CALL));
    ck_assert(used & SIMT_FIG_BIT(SIMT_FIG_TENSOR_BOOST_WINDOW));
    /* 5e13 flop: 50 ms sustained; the first 10 ms do 12.5 ms of it, the
     * other 37.5 ms run sustained: 47.5 ms, factor 50 / 47.5 */
    simt_gemm_single_call_boost(&f, 5e13, 1e15, &used, &b);
    ck_assert_double_eq_tol(b.factor, 50.0 / 47.5, 1e-12);
    /* no figure, no boost; nothing read */
    struct simt_figure_set none = boost_figures(0.0, 0.0);
    used = 0;
    simt_gemm_single_call_boost(&none, 1e12, 1e15, &used, &b);
    ck_assert_double_eq(b.factor, 1.0);
    ck_assert(used == 0);
}
END_TEST

/* The call's time, flops / (sustained x factor), never rises when the
 * sustained rate, the ratio or the window does. */
START_TEST(monotone)
{
    double flops = 3e13;
    for (int i = 0; i < 40; i++) {
        double rate = 1e14 * pow(1.25, i);
        struct simt_gemm_boost a, b;
        simt_figure_mask used = 0;
        struct simt_figure_set f = boost_figures(1.2, 0.01);
        simt_gemm_single_call_boost(&f, flops, rate, &used, &a);
        simt_gemm_single_call_boost(&f, flops, rate * 1.1, &used, &b);
        ck_assert(flops / (rate * 1.1 * b.factor) <= flops / (rate * a.factor) * (1.0 + 1e-12));
        struct simt_figure_set g = boost_figures(1.3, 0.01), h = boost_figures(1.2, 0.02);
        simt_gemm_single_call_boost(&g, flops, rate, &used, &b);
        ck_assert(b.factor >= a.factor);
        simt_gemm_single_call_boost(&h, flops, rate, &used, &b);
        ck_assert(b.factor >= a.factor);
    }
}
END_TEST

static double gemm_time(const struct simt_gpu_spec *g, int64_t n, enum simt_dtype dtype,
                        enum simt_gemm_launches launches, int *boost_said)
{
    struct simt_gemm_request req = {n, n, n, 1, dtype, SIMT_POLICY_PREFER_MEASURED, launches, 0};
    struct simt_gemm_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_gemm_predict(g, &req, &r, &diag) == SIMT_OK, "%s", diag.message);
    *boost_said = 0;
    for (int i = 0; i < r.assumption_count; i++)
        *boost_said |= strstr(r.assumptions[i], "sustained rate for its first") != NULL;
    return r.time_s;
}

START_TEST(h200_which_calls)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) == 0, "hwdb: %s", diag.message);
    const struct simt_hwdb_gpu *h200 = simt_hwdb_find(db, "h200-sxm");
    ck_assert_ptr_nonnull(h200);
    struct simt_gpu_spec with = h200->spec, without = h200->spec;
    ck_assert(with.measured_tensor_single_call_ratio > 1.0);
    without.measured_tensor_single_call_ratio = 0.0;
    without.measured_tensor_boost_window_s = 0.0;
    int said;
    /* bf16 8192^3 (about 1.4 ms): compute-bound, inside the window */
    double t1 = gemm_time(&with, 8192, SIMT_DTYPE_BF16, SIMT_GEMM_LAUNCH_SINGLE, &said);
    ck_assert(said);
    double t0 = gemm_time(&without, 8192, SIMT_DTYPE_BF16, SIMT_GEMM_LAUNCH_SINGLE, &said);
    ck_assert(!said);
    printf("h200 bf16 8192^3 single call: %.4g s boosted, %.4g s sustained (x%.3f)\n", t1, t0, t0 / t1);
    ck_assert(t0 / t1 > 1.1 && t0 / t1 <= with.measured_tensor_single_call_ratio + 1e-9);
    /* the figure moves the answer */
    with.measured_tensor_single_call_ratio = 1.5;
    ck_assert(gemm_time(&with, 8192, SIMT_DTYPE_BF16, SIMT_GEMM_LAUNCH_SINGLE, &said) < t1);
    with.measured_tensor_single_call_ratio = h200->spec.measured_tensor_single_call_ratio;
    /* not boosted: back to back; FP64 (DMMA); int8 (mma.sync) */
    static const struct {
        enum simt_dtype dtype;
        enum simt_gemm_launches launches;
    } same[] = {{SIMT_DTYPE_BF16, SIMT_GEMM_LAUNCH_BACK_TO_BACK},
                {SIMT_DTYPE_FP64, SIMT_GEMM_LAUNCH_SINGLE},
                {SIMT_DTYPE_INT8, SIMT_GEMM_LAUNCH_SINGLE}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        double a = gemm_time(&with, 4096, same[i].dtype, same[i].launches, &said);
        ck_assert(!said);
        ck_assert_double_eq(a, gemm_time(&without, 4096, same[i].dtype, same[i].launches, &said));
    }
    simt_hwdb_unref(db);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gemm_boost");
    TCase *tc = tcase_create("boost");
    tcase_add_test(tc, window_arithmetic);
    tcase_add_test(tc, monotone);
    tcase_add_test(tc, h200_which_calls);
    tcase_set_timeout(tc, 60);
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
