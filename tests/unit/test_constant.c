/* test_constant.c - constant-memory serialization: one request per distinct
 * address among the warp's active lanes. */
#include <check.h>
#include <stdint.h>

#include "constant.h"

#define ALL ((uint64_t)0xffffffffu)

struct row {
    const char *name;
    int element_bytes;
    int64_t stride;
    uint64_t mask;
    int serialization;
};

static const struct row rows[] = {
    {"uniform", 4, 0, ALL, 1},   /* one address, broadcast */
    {"per lane", 4, 1, ALL, 32}, /* 32 distinct addresses */
    {"per lane, 8 active", 4, 1, 0xffu, 8},
    {"per lane f64", 8, 1, ALL, 32},
    {"no lane", 4, 1, 0, 0},
};

START_TEST(test_rows)
{
    const struct row *t = &rows[_i];
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, t->element_bytes);
    a.lane_stride_elements = t->stride;
    a.active_mask = t->mask;
    struct simt_constant_result r;
    ck_assert_int_eq(simt_constant_compute(&a, &r, NULL), SIMT_OK);
    ck_assert_msg(r.serialization == t->serialization, "%s: %d", t->name, r.serialization);
    ck_assert_double_eq_tol(r.efficiency, t->serialization > 0 ? 1.0 / t->serialization : 1.0, 1e-12);
}
END_TEST

/* Explicit addresses: lane / 8 picks one of 4 addresses -> 4 requests. */
START_TEST(test_explicit_and_count)
{
    struct simt_warp_access a;
    simt_warp_access_init(&a, 32, 4);
    a.explicit_addresses = 1;
    for (int lane = 0; lane < 32; lane++)
        a.lane_address_bytes[lane] = (lane / 8) * 64;
    struct simt_constant_result r;
    ck_assert_int_eq(simt_constant_compute(&a, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.serialization, 4);
    ck_assert_int_eq(simt_constant_from_count(7, 32, &r, NULL), SIMT_OK);
    ck_assert_int_eq(r.serialization, 7);
    struct simt_diag diag;
    ck_assert_int_eq(simt_constant_from_count(0, 32, &r, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "distinct_addresses");
    ck_assert_int_eq(simt_constant_from_count(33, 32, &r, &diag), SIMT_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("constant");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_explicit_and_count);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
