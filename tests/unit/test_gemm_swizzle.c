/* test_gemm_swizzle.c - where the blocks of a grid swizzled 8 wide land on
 * the SMs (model/gemm_swizzle.c), worked by hand, and what it does to a
 * tf32 answer on the H200. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "gemm_fixture.h"
#include "gemm_internal.h"

/* 1472x1152 with a 64x128 tile: 23 x 9 tiles, a grid of 184 x 2 blocks
 * (368, all resident at 3 an SM on 132 SMs). Blocks 0..183 (y = 0) all
 * work: SMs 0..51 get two of them (i and i + 132), the others one. Of
 * blocks 184..367 (y = 1) only x = 0, 8, ..., 176 have a tile (the ninth
 * column): block 184 + 8j goes to SM (52 + 8j) mod 132, which for j = 10
 * to 22 is 0, 8, ..., 96; SMs 0, 8, ..., 48 already had two: 3. A grid of
 * 32 x 8 tiles (2048x1024) all work, 256 blocks: 2 at most. Not resident
 * at once (1 an SM: 368 > 132): 0, as for empty grids. */
START_TEST(busiest_sm_by_hand)
{
    ck_assert_int_eq(simt_gemm_swizzle_busiest(23, 9, 132, 3), 3);
    ck_assert_int_eq(simt_gemm_swizzle_busiest(32, 8, 132, 2), 2);
    ck_assert_int_eq(simt_gemm_swizzle_busiest(23, 9, 132, 1), 0);
    ck_assert_int_eq(simt_gemm_swizzle_busiest(0, 9, 132, 3), 0);
    ck_assert_int_eq(simt_gemm_swizzle_busiest(23, 9, 0, 3), 0);
    /* one tile column: width 1, no idle blocks; 200 tiles on 132 SMs: 2 */
    ck_assert_int_eq(simt_gemm_swizzle_busiest(200, 1, 132, 2), 2);
    /* two tile columns: width 2, a grid of 2 x 66 by 1, all working, one
     * each; with width 8 there would be 528 blocks, too many for 132 x 2 */
    ck_assert_int_eq(simt_gemm_swizzle_busiest(66, 2, 132, 2), 1);
    /* a grid too large to count is left to the even waves */
    ck_assert_int_eq(simt_gemm_swizzle_busiest(INT64_C(1) << 40, 8, 132, 32), 0);
}
END_TEST

/* On the H200, tf32 of few K (the CUTLASS 2.x kernels) is priced by the
 * busiest SM: 1472x1152x256 costs more than even waves would give, so
 * more an output than 2048x1024x256 (256 tiles, 2 an SM at most): 1.32
 * times (1.19 in even waves, which this test refuses). The probe
 * (gemm_probe_classes3.json): 16.6 us against 12.8 us, 1.58 times an
 * output; the model within 30% of the 16.6 (it was 34% under). */
START_TEST(h200_tf32_pays_the_busiest_sm)
{
    const struct simt_gpu_spec *g = gemm_db_spec("h200-sxm");
    struct simt_gemm_request req = {
        1472, 1152, 256, 1, SIMT_DTYPE_TF32, SIMT_POLICY_PREFER_MEASURED, SIMT_GEMM_LAUNCH_SINGLE, 0};
    struct simt_gemm_result odd, even;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_gemm_predict(g, &req, &odd, &diag), SIMT_OK);
    req.m = 2048, req.n = 1024;
    ck_assert_int_eq(simt_gemm_predict(g, &req, &even, &diag), SIMT_OK);
    double per_output_odd = odd.time_s / (1472.0 * 1152.0), per_output_even = even.time_s / (2048.0 * 1024.0);
    ck_assert_msg(per_output_odd > 1.2 * per_output_even, "%.4g against %.4g s an output", per_output_odd,
                  per_output_even);
    ck_assert_msg(fabs(odd.time_s / 16.6e-6 - 1.0) < 0.3, "1472x1152x256: %.4g s", odd.time_s);
}
END_TEST

static Suite *gemm_swizzle_suite(void)
{
    Suite *s = suite_create("gemm_swizzle");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, gemm_db_load, gemm_db_unload);
    tcase_add_test(tc, busiest_sm_by_hand);
    tcase_add_test(tc, h200_tf32_pays_the_busiest_sm);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gemm_swizzle_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
