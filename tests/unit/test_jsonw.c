/* test_jsonw.c - the answer writer (api/jsonw.c) against jansson: random
 * value trees written both ways must give the same bytes, and every answer
 * of simt_api_handle (the writer, direct answers) must equal, byte for byte,
 * what simt_api_handle_tree (jansson trees dumped by json_dumps) gives for
 * the same request, over thousands of varied requests and every request of
 * the API case folders. */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "call.h"
#include "hwdb.h"
#include "jsonw.h"

#define CASES_DIR SIMT_TEST_DIR "/api/cases"

static struct simt_hwdb *db;

/* xorshift64*: the same sequence on every run and machine */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}
static int64_t uniform(int64_t lo, int64_t hi) /* lo..hi inclusive */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}
static int chance(int percent)
{
    return uniform(0, 99) < percent;
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

/* A real of every kind %.12g meets: integral, tiny, huge, negative,
 * fractions of small integers (as occupancies are), exact ties. */
static double random_real(void)
{
    switch (uniform(0, 7)) {
    case 0:
        return (double)uniform(-100000, 100000);
    case 1:
        return (double)uniform(0, 64) / (double)uniform(1, 64);
    case 2:
        return ldexp((double)uniform(1, 1 << 30), (int)uniform(-80, 80));
    case 3:
        return pow(10.0, (double)uniform(-320, 300)) * (chance(50) ? 1 : -1);
    case 4:
        return chance(50) ? 0.0 : -0.0;
    case 5:
        return 1e15 + (double)uniform(0, 1000);
    case 6:
        return (double)uniform(1, 999999) * 1e-7;
    default: {
        uint64_t bits = next_u64();
        double value;
        memcpy(&value, &bits, sizeof value);
        return isfinite(value) ? value : 1.5;
    }
    }
}

static json_t *random_string(void)
{
    static const char *const pieces[] = {"a",
                                         "Z",
                                         " ",
                                         "\"",
                                         "\\",
                                         "/",
                                         "\n",
                                         "\t",
                                         "\r",
                                         "\b",
                                         "\f",
                                         "\x01",
                                         "\x1f",
                                         "\x7f",
                                         "\xc3\xa9",
                                         "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80",
                                         "text",
                                         "e+05",
                                         "\x00"};
    char text[128];
    size_t len = 0;
    int pieces_count = (int)uniform(0, 12);
    for (int i = 0; i < pieces_count; i++) {
        size_t k = (size_t)uniform(0, (int64_t)(sizeof pieces / sizeof pieces[0]) - 1);
        size_t n = k == sizeof pieces / sizeof pieces[0] - 1 ? 1 : strlen(pieces[k]);
        memcpy(text + len, pieces[k], n);
        len += n;
    }
    return json_stringn(text, len);
}

static json_t *random_value(int depth)
{
    int kind = (int)uniform(0, depth < 4 ? 7 : 5);
    switch (kind) {
    case 0:
        return json_integer(chance(10) ? (chance(50) ? INT64_MIN : INT64_MAX) : uniform(-1000000, 1000000));
    case 1:
    case 2:
        return json_real(random_real());
    case 3:
        return random_string();
    case 4:
        return chance(50) ? json_true() : (chance(50) ? json_false() : json_null());
    case 5:
        return json_object();
    case 6: {
        json_t *array = json_array();
        int n = (int)uniform(0, 5);
        for (int i = 0; i < n; i++)
            json_array_append_new(array, random_value(depth + 1));
        return array;
    }
    default: {
        json_t *object = json_object();
        int n = (int)uniform(0, 6);
        for (int i = 0; i < n; i++) {
            json_t *key = random_string();
            json_object_setn_new(object, json_string_value(key), json_string_length(key),
                                 random_value(depth + 1));
            json_decref(key);
        }
        return object;
    }
    }
}

START_TEST(writer_equals_jansson_on_random_trees)
{
    for (int round = 0; round < 20000; round++) {
        json_t *value = random_value(0);
        char *expected = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(12) | JSON_ENCODE_ANY);
        ck_assert_ptr_nonnull(expected);
        struct simt_jsonw w;
        simt_jsonw_init(&w, (size_t)uniform(1, 64));
        simt_jsonw_value(&w, value);
        size_t len = 0;
        char *actual = simt_jsonw_take(&w, &len);
        ck_assert_ptr_nonnull(actual);
        ck_assert_uint_eq(len, strlen(expected));
        ck_assert_msg(strcmp(actual, expected) == 0, "round %d: writer %s, jansson %s", round, actual,
                      expected);
        free(actual);
        free(expected);
        json_decref(value);
    }
}
END_TEST

START_TEST(writer_members_and_reals)
{
    struct simt_jsonw w;
    simt_jsonw_init(&w, 1);
    simt_jsonw_object_begin(&w);
    simt_jsonw_key_int(&w, "a", -7);
    simt_jsonw_key_real(&w, "b", 1e20);
    simt_jsonw_key_real(&w, "c", 1e-5);
    simt_jsonw_key_real(&w, "d", 2.0);
    simt_jsonw_key_real(&w, "e", INFINITY);
    simt_jsonw_key(&w, "f");
    simt_jsonw_array_begin(&w);
    simt_jsonw_real(&w, 0.5);
    simt_jsonw_real(&w, 0.5);
    simt_jsonw_array_end(&w);
    simt_jsonw_object_end(&w);
    size_t len = 0;
    char *text = simt_jsonw_take(&w, &len);
    ck_assert_str_eq(text, "{\"a\":-7,\"b\":1e20,\"c\":1e-5,\"d\":2.0,\"e\":null,\"f\":[0.5,0.5]}");
    free(text);
}
END_TEST

/* Both paths for one request; fails with the request and both answers.
 * Returns the status. */
static int check_request(const char *method, const char *path, const char *body)
{
    struct simt_api_request req = {.method = method,
                                   .path = path,
                                   .content_type = "application/json",
                                   .body = body,
                                   .body_len = body != NULL ? strlen(body) : 0};
    struct simt_api_response fast, tree;
    ck_assert_int_eq(simt_api_handle(db, &req, &fast), 0);
    ck_assert_int_eq(simt_api_handle_tree(db, &req, &tree), 0);
    ck_assert_msg(fast.status == tree.status, "%s %s: status %d, tree path %d", path, body, fast.status,
                  tree.status);
    ck_assert_msg(fast.body_len == tree.body_len && memcmp(fast.body, tree.body, fast.body_len) == 0,
                  "%s %s:\n writer %.*s\n tree   %.*s", path, body, (int)fast.body_len, fast.body,
                  (int)tree.body_len, tree.body);
    int status = fast.status;
    simt_api_response_clear(&fast);
    simt_api_response_clear(&tree);
    return status;
}

static const char *random_gpu(char *buf, size_t size)
{
    size_t count = simt_hwdb_count(db);
    const char *id = simt_hwdb_at(db, (size_t)uniform(0, (int64_t)count - 1))->id;
    if (chance(10))
        snprintf(buf, size, "{\"base\":\"%s\",\"sm_count\":%d}", id, (int)uniform(1, 200));
    else
        snprintf(buf, size, "\"%s\"", id);
    return buf;
}

/* The kernel attributes an occupancy request may carry, some left out. */
static size_t random_attributes(char *body, size_t size, size_t used, int with_block)
{
    if (with_block)
        used += (size_t)snprintf(body + used, size - used, ",\"block_size\":%d",
                                 chance(80) ? 32 * (int)uniform(1, 32) : (int)uniform(1, 1100));
    if (chance(50))
        used +=
            (size_t)snprintf(body + used, size - used, ",\"static_shared_bytes\":%d", (int)uniform(0, 60000));
    if (chance(40))
        used += (size_t)snprintf(body + used, size - used, ",\"max_dynamic_shared_bytes\":%d",
                                 (int)uniform(-1, 100000));
    if (chance(30))
        used += (size_t)snprintf(body + used, size - used, ",\"carveout_percent\":%d", (int)uniform(-1, 100));
    if (chance(20))
        used += (size_t)snprintf(body + used, size - used, ",\"block_barriers\":%d", (int)uniform(0, 20));
    if (chance(50))
        used += (size_t)snprintf(body + used, size - used, ",\"grid_size\":%d", (int)uniform(1, 1000000));
    if (chance(5))
        used += (size_t)snprintf(body + used, size - used, ",\"figures\":\"datasheet\"");
    return used;
}

START_TEST(occupancy_answers_equal_the_tree_path)
{
    int answered = 0;
    for (int round = 0; round < 5000; round++) {
        char body[1024], gpu[128];
        size_t used = (size_t)snprintf(body, sizeof body, "{\"gpu\":%s,\"registers_per_thread\":%d",
                                       random_gpu(gpu, sizeof gpu), (int)uniform(0, 300));
        if (chance(50))
            used += (size_t)snprintf(body + used, sizeof body - used, ",\"dynamic_shared_bytes\":%d",
                                     (int)uniform(0, 120000));
        used = random_attributes(body, sizeof body, used, 1);
        snprintf(body + used, sizeof body - used, "}");
        answered += check_request("POST", "/v1/occupancy", body) == 200;
    }
    ck_assert_int_gt(answered, 1000); /* a third are answers, the rest the errors */
}
END_TEST

START_TEST(sweep_answers_equal_the_tree_path)
{
    static const char *const varies[] = {"block_size", "registers_per_thread", "dynamic_shared_bytes"};
    int answered = 0;
    for (int round = 0; round < 600; round++) {
        char body[1024], gpu[128];
        int vary = (int)uniform(0, 2);
        size_t used = (size_t)snprintf(body, sizeof body, "{\"gpu\":%s,\"vary\":\"%s\"",
                                       random_gpu(gpu, sizeof gpu), varies[vary]);
        if (vary != 1)
            used += (size_t)snprintf(body + used, sizeof body - used, ",\"registers_per_thread\":%d",
                                     (int)uniform(0, 300));
        if (vary != 2 && chance(50))
            used += (size_t)snprintf(body + used, sizeof body - used, ",\"dynamic_shared_bytes\":%d",
                                     (int)uniform(0, 120000));
        used = random_attributes(body, sizeof body, used, vary != 0);
        if (chance(60)) {
            int64_t from = uniform(0, 2000), step = uniform(1, 4096);
            used += (size_t)snprintf(body + used, sizeof body - used,
                                     ",\"from\":%lld,\"to\":%lld,\"step\":%lld", (long long)from,
                                     (long long)(from + step * uniform(0, 300)), (long long)step);
        }
        if (chance(50))
            used += (size_t)snprintf(body + used, sizeof body - used, ",\"format\":\"%s\"",
                                     chance(50) ? "points" : "columns");
        snprintf(body + used, sizeof body - used, "}");
        answered += check_request("POST", "/v1/occupancy/sweep", body) == 200;
    }
    ck_assert_int_gt(answered, 300);
}
END_TEST

static char *read_text(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    text[got] = '\0';
    return text;
}

/* Every case folder's request (every endpoint, errors included). */
START_TEST(case_folder_answers_equal_the_tree_path)
{
    DIR *dir = opendir(CASES_DIR);
    ck_assert_ptr_nonnull(dir);
    struct dirent *entry;
    int checked = 0;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char folder[1024];
        snprintf(folder, sizeof folder, "%s/%s", CASES_DIR, entry->d_name);
        char *route = read_text(folder, "route");
        if (route == NULL)
            continue;
        char method[16] = "", path[512] = "";
        if (sscanf(route, "%15s %511s", method, path) == 2) {
            char *body = read_text(folder, "request.json");
            check_request(method, path, body);
            free(body);
            checked++;
        }
        free(route);
    }
    closedir(dir);
    ck_assert_int_gt(checked, 100);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jsonw");
    TCase *tc = tcase_create("writer");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, writer_equals_jansson_on_random_trees);
    tcase_add_test(tc, writer_members_and_reals);
    tcase_add_test(tc, occupancy_answers_equal_the_tree_path);
    tcase_add_test(tc, sweep_answers_equal_the_tree_path);
    tcase_add_test(tc, case_folder_answers_equal_the_tree_path);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
