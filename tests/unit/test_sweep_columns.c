/* test_sweep_columns.c - POST /v1/occupancy/sweep with "format": "columns"
 * against the same sweep as points, element by element: every field of
 * every point is the same value at the same index of its column ("limits"
 * and "allocated" as objects of columns), a field a point leaves out
 * ("waves" where it cannot launch, "reason" where it can) is null there,
 * "limiter" is the first of the point's "limiters", no column is of a field
 * no point has, and the rest of the answer is the same. Over varied sweeps
 * of every GPU (AMD's own fields too), launchable or not. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "hwdb.h"

static struct simt_hwdb *db;

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static int64_t uniform(int64_t lo, int64_t hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return lo + (int64_t)((rng_state * 0x2545f4914f6cdd1dULL) % (uint64_t)(hi - lo + 1));
}

static void setup(void)
{
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_int_eq(simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag), 0);
}

static void teardown(void)
{
    simt_hwdb_unref(db);
    db = NULL;
}

static json_t *ask(const char *body, int *status)
{
    struct simt_api_request req = {.method = "POST",
                                   .path = "/v1/occupancy/sweep",
                                   .content_type = "application/json",
                                   .body = body,
                                   .body_len = strlen(body)};
    struct simt_api_response resp;
    ck_assert_int_eq(simt_api_handle(db, &req, &resp), 0);
    *status = resp.status;
    json_t *answer = json_loadb(resp.body, resp.body_len, 0, NULL);
    ck_assert_ptr_nonnull(answer);
    simt_api_response_clear(&resp);
    return answer;
}

/* Column `column` (an array as long as the sweep) holds, at i, what the
 * point holds under the same name, or null where the point has none. */
static void check_cell(json_t *column, size_t i, json_t *in_point, const char *name, const char *body)
{
    ck_assert_msg(json_is_array(column), "%s: column %s is not a list", body, name);
    json_t *cell = json_array_get(column, i);
    ck_assert_msg(cell != NULL, "%s: column %s ends before point %zu", body, name, i);
    if (in_point == NULL)
        ck_assert_msg(json_is_null(cell), "%s: %s[%zu] should be null", body, name, i);
    else
        ck_assert_msg(json_equal(cell, in_point), "%s: %s[%zu] differs from the point's", body, name, i);
}

/* Every key of obj has a column in cols (of the same name). */
static void check_point_object(json_t *cols, json_t *point, size_t i, const char *body)
{
    const char *key;
    json_t *value;
    json_object_foreach(point, key, value)
    {
        json_t *column = json_object_get(cols, key);
        ck_assert_msg(column != NULL, "%s: no column for %s", body, key);
        if (json_is_object(value)) {
            ck_assert_msg(json_is_object(column), "%s: %s should be an object of columns", body, key);
            check_point_object(column, value, i, body);
        } else {
            check_cell(column, i, value, key, body);
        }
    }
}

/* Every column is a field some point has (or "limiter"), as long as the
 * sweep, null where its point lacks the field. */
static void check_columns_known(json_t *cols, json_t *points, const char *parent, const char *body)
{
    const char *key;
    json_t *column;
    json_object_foreach(cols, key, column)
    {
        if (parent == NULL && strcmp(key, "limiter") == 0)
            continue;
        if (json_is_object(column)) {
            check_columns_known(column, points, key, body);
            continue;
        }
        ck_assert_msg(json_array_size(column) == json_array_size(points), "%s: column %s has %zu of %zu",
                      body, key, json_array_size(column), json_array_size(points));
        int seen = 0;
        for (size_t i = 0; i < json_array_size(points); i++) {
            json_t *point = json_array_get(points, i);
            json_t *holder = parent != NULL ? json_object_get(point, parent) : point;
            json_t *value = holder != NULL ? json_object_get(holder, key) : NULL;
            seen |= value != NULL;
            check_cell(column, i, value, key, body);
        }
        /* "waves" is there with grid_size, all null when no point can launch */
        ck_assert_msg(seen || (strcmp(key, "waves") == 0 && strstr(body, "grid_size") != NULL),
                      "%s: column %s is of a field no point has", body, key);
    }
}

/* Returns the status both formats answered. */
static int compare_formats(const char *body_points, const char *body_columns)
{
    int status_points = 0, status_columns = 0;
    json_t *by_points = ask(body_points, &status_points);
    json_t *by_columns = ask(body_columns, &status_columns);
    ck_assert_int_eq(status_points, status_columns);
    if (status_points != 200) {
        ck_assert(json_equal(by_points, by_columns));
        json_decref(by_points);
        json_decref(by_columns);
        return status_points;
    }
    json_t *points = json_object_get(by_points, "points");
    json_t *cols = json_object_get(by_columns, "columns");
    ck_assert_msg(json_is_array(points) && json_is_object(cols), "%s: no points or no columns", body_columns);
    ck_assert_ptr_null(json_object_get(by_columns, "points"));
    for (size_t i = 0; i < json_array_size(points); i++) {
        json_t *point = json_array_get(points, i);
        check_point_object(cols, point, i, body_columns);
        json_t *limiters = json_object_get(point, "limiters");
        json_t *first = json_array_size(limiters) > 0 ? json_array_get(limiters, 0) : NULL;
        check_cell(json_object_get(cols, "limiter"), i, first, "limiter", body_columns);
    }
    check_columns_known(cols, points, NULL, body_columns);
    /* the rest of the answer is the same */
    json_object_del(by_points, "points");
    json_object_del(by_columns, "columns");
    ck_assert_msg(json_equal(by_points, by_columns), "%s: the answers differ outside points/columns",
                  body_columns);
    json_decref(by_points);
    json_decref(by_columns);
    return 200;
}

START_TEST(columns_equal_points_element_by_element)
{
    static const char *const varies[] = {"block_size", "registers_per_thread", "dynamic_shared_bytes"};
    size_t gpus = simt_hwdb_count(db);
    int answered = 0;
    for (int round = 0; round < 400; round++) {
        const char *gpu = simt_hwdb_at(db, (size_t)round % gpus)->id;
        int vary = (int)uniform(0, 2);
        char common[512];
        int used = snprintf(common, sizeof common, "\"gpu\":\"%s\",\"vary\":\"%s\"", gpu, varies[vary]);
        if (vary != 0)
            used += snprintf(common + used, sizeof common - (size_t)used, ",\"block_size\":%d",
                             32 * (int)uniform(1, 34));
        if (vary != 1)
            used += snprintf(common + used, sizeof common - (size_t)used, ",\"registers_per_thread\":%d",
                             (int)uniform(0, 280));
        if (uniform(0, 1))
            used += snprintf(common + used, sizeof common - (size_t)used, ",\"grid_size\":%d",
                             (int)uniform(1, 100000));
        if (uniform(0, 1))
            used += snprintf(common + used, sizeof common - (size_t)used, ",\"static_shared_bytes\":%d",
                             (int)uniform(0, 70000));
        if (uniform(0, 3) == 0) /* a 422 where the GPU has no cluster layout */
            used += snprintf(common + used, sizeof common - (size_t)used, ",\"cluster_size\":%d",
                             1 << uniform(0, 3));
        if (uniform(0, 2) == 0) {
            int64_t step = vary == 2 ? uniform(256, 8192) : uniform(1, 64);
            int64_t from = vary == 2 ? uniform(0, 100000) : uniform(0, 300);
            snprintf(common + used, sizeof common - (size_t)used, ",\"from\":%lld,\"to\":%lld,\"step\":%lld",
                     (long long)from, (long long)(from + step * uniform(0, 100)), (long long)step);
        }
        char points[600], columns[600];
        snprintf(points, sizeof points, "{%s%s}", common, uniform(0, 1) ? ",\"format\":\"points\"" : "");
        snprintf(columns, sizeof columns, "{%s,\"format\":\"columns\"}", common);
        answered += compare_formats(points, columns) == 200;
    }
    ck_assert_int_gt(answered, 200); /* most are answers, not errors */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sweep_columns");
    TCase *tc = tcase_create("columns");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, columns_equal_points_element_by_element);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
