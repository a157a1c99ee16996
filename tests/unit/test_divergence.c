/* test_divergence.c - distinct paths, serialization and SIMT efficiency of
 * one warp's branch, worked by hand. */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "divergence.h"

#define ALL ((uint64_t)0xffffffffu)

struct row {
    const char *name;
    enum simt_branch_form form;
    int paths; /* k, or for LANE_PATHS the modulus: lane l takes path l % paths */
    uint64_t mask;
    double expected_paths, serialization, efficiency;
};

static const struct row rows[] = {
    {"one path", SIMT_BRANCH_PATHS, 1, ALL, 1, 1, 1.0},
    /* two equal paths: each issued with half the lanes */
    {"two paths", SIMT_BRANCH_PATHS, 2, ALL, 2, 2, 0.5},
    /* more paths than lanes: at most 32 distinct, one lane each */
    {"forty paths", SIMT_BRANCH_PATHS, 40, ALL, 32, 32, 1.0 / 32},
    /* lane % 4: 4 distinct ids, efficiency 32 / (32 * 4) */
    {"lane mod 4", SIMT_BRANCH_LANE_PATHS, 4, ALL, 4, 4, 0.25},
    /* lanes 0..15 active, lane % 2: 2 paths, 16 active / (32 * 2) */
    {"half warp, lane mod 2", SIMT_BRANCH_LANE_PATHS, 2, 0xffffu, 2, 2, 0.25},
    /* all lanes one id (a branch that depends on the warp): no divergence */
    {"warp-uniform", SIMT_BRANCH_LANE_PATHS, 1, ALL, 1, 1, 1.0},
    /* random over 2: 2 (1 - (1/2)^32) = 2 - 2^-31 */
    {"random 2", SIMT_BRANCH_RANDOM, 2, ALL, 1.9999999995343387, 1.9999999995343387,
     1.0 / 1.9999999995343387},
    /* random over 32: 32 (1 - (31/32)^32) = 20.41423074379787 */
    {"random 32", SIMT_BRANCH_RANDOM, 32, ALL, 20.41423074379787, 20.41423074379787, 1.0 / 20.41423074379787},
    /* random over 4: 4 (1 - (3/4)^32) = 3.9995981902971174 */
    {"random 4", SIMT_BRANCH_RANDOM, 4, ALL, 3.9995981902971174, 3.9995981902971174,
     1.0 / 3.9995981902971174},
    {"random 1", SIMT_BRANCH_RANDOM, 1, ALL, 1, 1, 1.0},
};

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_branch b;
    simt_branch_init(&b, 32);
    b.form = t->form;
    b.paths = t->paths;
    b.active_mask = t->mask;
    if (t->form == SIMT_BRANCH_LANE_PATHS)
        for (int lane = 0; lane < 32; lane++)
            b.lane_paths[lane] = lane % t->paths;
    struct simt_divergence_result r;
    ck_assert_int_eq(simt_divergence_compute(&b, &r, NULL), SIMT_OK);
    ck_assert_msg(fabs(r.expected_paths - t->expected_paths) < 1e-9, "%s: paths %.12g", t->name,
                  r.expected_paths);
    ck_assert_double_eq_tol(r.serialization, t->serialization, 1e-9);
    ck_assert_double_eq_tol(r.simt_efficiency, t->efficiency, 1e-9);
}
END_TEST

START_TEST(test_bad)
{
    struct simt_branch b;
    simt_branch_init(&b, 32);
    struct simt_divergence_result r;
    struct simt_diag diag;
    b.paths = 0;
    ck_assert_int_eq(simt_divergence_compute(&b, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "paths");
    b.form = SIMT_BRANCH_RANDOM;
    ck_assert_int_eq(simt_divergence_compute(&b, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "random_paths");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("divergence");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_bad);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
