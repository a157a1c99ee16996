/* test_openapi.c - GET /openapi.json against the router: every route of
 * simt_api_route_at appears in the document's paths with its method; every
 * endpoint of API.md is documented; every POST documents its JSON body, its
 * 200 schema and the contract's error statuses, and every $ref resolves. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static json_t *fetch_document(void)
{
    struct simt_api_request req = {
        .method = "GET", .path = "/openapi.json", .content_type = NULL, .body = NULL, .body_len = 0};
    struct simt_api_response resp;
    ck_assert_int_eq(simt_api_handle(NULL, &req, &resp), 0);
    ck_assert_int_eq(resp.status, 200);
    ck_assert_str_eq(resp.content_type, "application/json");
    json_error_t error;
    json_t *doc = json_loadb(resp.body, resp.body_len, 0, &error);
    ck_assert_msg(doc != NULL, "not JSON: %s", error.text);
    simt_api_response_clear(&resp);
    return doc;
}

static void lower(const char *in, char *out, size_t size)
{
    size_t i = 0;
    for (; in[i] != '\0' && i + 1 < size; i++)
        out[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] - 'A' + 'a' : in[i]);
    out[i] = '\0';
}

START_TEST(test_every_route_documented)
{
    json_t *doc = fetch_document();
    ck_assert_str_eq(json_string_value(json_object_get(doc, "openapi")), "3.0.3");
    json_t *paths = json_object_get(doc, "paths");
    ck_assert_ptr_nonnull(paths);
    size_t n = simt_api_route_count();
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < n; i++) {
        const char *method = NULL, *pattern = NULL;
        ck_assert_int_eq(simt_api_route_at(i, &method, &pattern), 0);
        char m[16];
        lower(method, m, sizeof m);
        json_t *item = json_object_get(paths, pattern);
        ck_assert_msg(item != NULL, "route %s %s is not in /openapi.json's paths", method, pattern);
        ck_assert_msg(json_object_get(item, m) != NULL, "route %s %s: the document has no %s operation",
                      method, pattern, m);
    }
    const char *method = NULL, *pattern = NULL;
    ck_assert_int_ne(simt_api_route_at(n, &method, &pattern), 0);
    json_decref(doc);
}
END_TEST

/* API.md's endpoints, whether or not a route exists yet. */
static const struct {
    const char *method;
    const char *path;
} contract[] = {
    {"get", "/healthz"},
    {"get", "/metrics"},
    {"get", "/openapi.json"},
    {"get", "/"},
    {"get", "/v1/gpus"},
    {"get", "/v1/gpus/{id}"},
    {"post", "/v1/occupancy"},
    {"post", "/v1/occupancy/sweep"},
    {"post", "/v1/launch/suggest"},
    {"post", "/v1/roofline"},
    {"post", "/v1/memory/coalescing"},
    {"post", "/v1/memory/banks"},
    {"post", "/v1/memory/constant"},
    {"post", "/v1/latency-hiding"},
    {"post", "/v1/divergence"},
    {"post", "/v1/gemm"},
    {"post", "/v1/collective"},
    {"post", "/v1/kernel"},
    {"post", "/v1/compare"},
};

/* Follows a local "#/components/..." reference; NULL when it dangles. */
static json_t *resolve(json_t *doc, json_t *node)
{
    const char *ref = json_string_value(json_object_get(node, "$ref"));
    if (ref == NULL)
        return node;
    if (strncmp(ref, "#/", 2) != 0)
        return NULL;
    char path[256];
    snprintf(path, sizeof path, "%s", ref + 2);
    json_t *at = doc;
    for (char *part = strtok(path, "/"); part != NULL && at != NULL; part = strtok(NULL, "/"))
        at = json_object_get(at, part);
    return at;
}

START_TEST(test_contract_endpoint)
{
    json_t *doc = fetch_document();
    const char *method = contract[_i].method, *path = contract[_i].path;
    json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), path), method);
    ck_assert_msg(op != NULL, "%s %s is missing", method, path);
    json_t *responses = json_object_get(op, "responses");
    ck_assert_msg(json_object_get(responses, "200") != NULL, "%s %s: no 200", method, path);
    ck_assert_msg(resolve(doc, json_object_get(responses, "405")) != NULL, "%s %s: no 405", method, path);
    if (strcmp(method, "post") == 0) {
        json_t *body = json_object_get(json_object_get(json_object_get(op, "requestBody"), "content"),
                                       "application/json");
        json_t *schema = resolve(doc, json_object_get(body, "schema"));
        ck_assert_msg(schema != NULL, "%s: no JSON request schema", path);
        /* unknown request fields are refused: the schema says so */
        ck_assert_msg(json_is_false(json_object_get(schema, "additionalProperties")),
                      "%s: request schema must set additionalProperties false", path);
        static const char *const statuses[] = {"400", "404", "413", "415"};
        for (size_t s = 0; s < sizeof statuses / sizeof statuses[0]; s++) {
            json_t *r = resolve(doc, json_object_get(responses, statuses[s]));
            ck_assert_msg(r != NULL, "%s: no %s response", path, statuses[s]);
            json_t *error_schema =
                json_object_get(json_object_get(json_object_get(r, "content"), "application/json"), "schema");
            ck_assert_str_eq(json_string_value(json_object_get(error_schema, "$ref")),
                             "#/components/schemas/Error");
        }
        json_t *ok = json_object_get(json_object_get(json_object_get(responses, "200"), "content"),
                                     "application/json");
        ck_assert_msg(resolve(doc, json_object_get(ok, "schema")) != NULL, "%s: 200 has no resolvable schema",
                      path);
    }
    json_decref(doc);
}
END_TEST

/* Every $ref anywhere in the document resolves. */
static void check_refs(json_t *doc, json_t *node, int *bad)
{
    if (json_is_object(node)) {
        json_t *ref = json_object_get(node, "$ref");
        if (ref != NULL && resolve(doc, node) == NULL) {
            fprintf(stderr, "dangling $ref %s\n", json_string_value(ref));
            (*bad)++;
        }
        const char *key;
        json_t *value;
        json_object_foreach(node, key, value) check_refs(doc, value, bad);
    } else if (json_is_array(node)) {
        size_t i;
        json_t *value;
        json_array_foreach(node, i, value) check_refs(doc, value, bad);
    }
}

START_TEST(test_refs_resolve)
{
    json_t *doc = fetch_document();
    int bad = 0;
    check_refs(doc, doc, &bad);
    ck_assert_int_eq(bad, 0);
    /* the error body of the contract: {"error": {"code", "message", "field"?}} */
    json_t *error = json_object_get(
        json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "Error"),
        "properties");
    json_t *inner = json_object_get(json_object_get(error, "error"), "properties");
    ck_assert_ptr_nonnull(json_object_get(inner, "code"));
    ck_assert_ptr_nonnull(json_object_get(inner, "message"));
    ck_assert_ptr_nonnull(json_object_get(inner, "field"));
    json_decref(doc);
}
END_TEST

START_TEST(test_post_is_refused)
{
    struct simt_api_request req = {.method = "POST",
                                   .path = "/openapi.json",
                                   .content_type = "application/json",
                                   .body = "{}",
                                   .body_len = 2};
    struct simt_api_response resp;
    ck_assert_int_eq(simt_api_handle(NULL, &req, &resp), 0);
    ck_assert_int_eq(resp.status, 405);
    ck_assert_str_eq(resp.allow, "GET");
    simt_api_response_clear(&resp);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("openapi");
    TCase *tc = tcase_create("document");
    tcase_add_test(tc, test_every_route_documented);
    tcase_add_loop_test(tc, test_contract_endpoint, 0, (int)(sizeof contract / sizeof contract[0]));
    tcase_add_test(tc, test_refs_resolve);
    tcase_add_test(tc, test_post_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
