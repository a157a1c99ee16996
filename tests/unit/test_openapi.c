/* test_openapi.c - GET /openapi.json against the endpoint table
 * (api/endpoint.h): every endpoint appears in the document's paths with its
 * method, and the router lists the same routes; every POST documents its JSON
 * body, its 200 schema and the contract's error statuses; every request
 * schema agrees with its endpoint's descriptor (field names, required, types,
 * enum choices, minimum and maximum, defaults where the document gives one),
 * nested objects included; and every $ref resolves. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "endpoint.h"

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
    ck_assert_uint_eq(n, simt_api_endpoint_count());
    for (size_t i = 0; i < n; i++) {
        const char *method = NULL, *pattern = NULL;
        ck_assert_int_eq(simt_api_route_at(i, &method, &pattern), 0);
        ck_assert_str_eq(method, simt_api_endpoint_at(i)->method);
        ck_assert_str_eq(pattern, simt_api_endpoint_at(i)->route);
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

/* The routes only the server answers (server/), beside the endpoint table. */
static const struct {
    const char *method;
    const char *path;
} server_routes[] = {
    {"get", "/metrics"},
    {"get", "/"},
};
#define SERVER_ROUTES (sizeof server_routes / sizeof server_routes[0])

/* The i-th route of the contract: the endpoint table's, then the server's. */
static void contract_route(int i, char *method, size_t size, const char **path)
{
    size_t count = simt_api_endpoint_count();
    if ((size_t)i < count) {
        lower(simt_api_endpoint_at((size_t)i)->method, method, size);
        *path = simt_api_endpoint_at((size_t)i)->route;
    } else {
        snprintf(method, size, "%s", server_routes[(size_t)i - count].method);
        *path = server_routes[(size_t)i - count].path;
    }
}

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
    char method[16];
    const char *path = NULL;
    contract_route(_i, method, sizeof method, &path);
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

/* --- the request schemas against the descriptors --- */

static int disagree(const char *where, const char *name, const char *what)
{
    fprintf(stderr, "openapi: %s.%s: %s\n", where, name, what);
    return 1;
}

static int number_is(json_t *schema, const char *key, double expected)
{
    json_t *value = json_object_get(schema, key);
    return json_is_number(value) && !(json_number_value(value) < expected) &&
           !(json_number_value(value) > expected);
}

static int type_is(json_t *schema, const char *type)
{
    const char *given = json_string_value(json_object_get(schema, "type"));
    return given != NULL && strcmp(given, type) == 0;
}

static int agree_object(json_t *doc, json_t *schema, const struct simt_api_field *fields, size_t count,
                        const char *where, int model);

/* A number's range (and default, when the document gives one). */
static int agree_range(json_t *prop, const struct simt_api_field *row, const char *where)
{
    int bad = 0;
    if (!number_is(prop, "minimum", row->min))
        bad += disagree(where, row->name, "minimum differs from the descriptor's");
    if (!number_is(prop, "maximum", row->max))
        bad += disagree(where, row->name, "maximum differs from the descriptor's");
    if (json_object_get(prop, "default") != NULL && !(row->flags & SIMT_API_KEEP) &&
        !number_is(prop, "default", row->dflt))
        bad += disagree(where, row->name, "default differs from the descriptor's");
    return bad;
}

static int agree_choices(json_t *prop, const struct simt_api_field *row, const char *where)
{
    json_t *choices = json_object_get(prop, "enum");
    if (row->choices == NULL)
        return choices != NULL ? disagree(where, row->name, "the document lists choices, the descriptor none")
                               : 0;
    size_t n = 0;
    while (row->choices[n] != NULL)
        n++;
    int bad = 0;
    if (!json_is_array(choices) || json_array_size(choices) != n)
        return disagree(where, row->name, "enum differs from the descriptor's choices");
    for (size_t i = 0; i < n; i++) {
        const char *choice = json_string_value(json_array_get(choices, i));
        if (choice == NULL || strcmp(choice, row->choices[i]) != 0)
            bad += disagree(where, row->name, "enum differs from the descriptor's choices");
    }
    json_t *dflt = json_object_get(prop, "default");
    if (dflt != NULL && !(row->flags & SIMT_API_KEEP) &&
        (json_string_value(dflt) == NULL ||
         strcmp(json_string_value(dflt), row->choices[(int)row->dflt]) != 0))
        bad += disagree(where, row->name, "default differs from the descriptor's");
    return bad;
}

/* A field of several shapes: its object alternative has the members; its
 * number alternatives (and list items) the range. */
static int agree_shape(json_t *doc, json_t *prop, const struct simt_api_field *row, const char *where)
{
    json_t *alternatives = json_object_get(prop, "oneOf");
    if (!json_is_array(alternatives))
        return disagree(where, row->name, "a field of several shapes needs oneOf");
    int bad = 0, objects = 0;
    char path[200];
    snprintf(path, sizeof path, "%s.%s", where, row->name);
    for (size_t i = 0; i < json_array_size(alternatives); i++) {
        json_t *alternative = resolve(doc, json_array_get(alternatives, i));
        json_t *items = json_object_get(alternative, "items");
        if (type_is(alternative, "object") && row->members != NULL) {
            objects++;
            bad += agree_object(doc, alternative, row->members, row->member_count, path, 0);
        } else if (type_is(alternative, "integer") || type_is(alternative, "number")) {
            if (!number_is(alternative, "minimum", row->min) ||
                (row->members == NULL && !number_is(alternative, "maximum", row->max)))
                bad += disagree(where, row->name, "an alternative's range differs from the descriptor's");
        } else if (type_is(alternative, "array") && items != NULL) {
            if (!number_is(items, "minimum", row->min) || !number_is(items, "maximum", row->max))
                bad += disagree(where, row->name, "the list items' range differs from the descriptor's");
        }
    }
    if (row->members != NULL && objects != 1)
        bad += disagree(where, row->name, "no object alternative for the descriptor's members");
    return bad;
}

static int agree_field(json_t *doc, json_t *props, const struct simt_api_field *row, const char *where)
{
    json_t *unresolved = json_object_get(props, row->name);
    json_t *prop = resolve(doc, unresolved);
    if (prop == NULL)
        return disagree(where, row->name, "in the descriptor, not in the document");
    char path[200];
    snprintf(path, sizeof path, "%s.%s", where, row->name);
    switch (row->type) {
    case SIMT_API_INTEGER:
    case SIMT_API_NUMBER:
        if (!type_is(prop, row->type == SIMT_API_INTEGER ? "integer" : "number"))
            return disagree(where, row->name, "type differs from the descriptor's");
        return agree_range(prop, row, where);
    case SIMT_API_BOOLEAN:
        return type_is(prop, "boolean") ? 0 : disagree(where, row->name, "type is not boolean");
    case SIMT_API_STRING:
        if (!type_is(prop, "string"))
            return disagree(where, row->name, "type is not string");
        return agree_choices(prop, row, where);
    case SIMT_API_GPU: {
        const char *ref = json_string_value(json_object_get(unresolved, "$ref"));
        return ref != NULL && strcmp(ref, "#/components/schemas/GpuRef") == 0
                   ? 0
                   : disagree(where, row->name, "a GPU field must be a $ref to GpuRef");
    }
    case SIMT_API_OBJECT:
        if (!type_is(prop, "object"))
            return disagree(where, row->name, "type is not object");
        return row->members != NULL ? agree_object(doc, prop, row->members, row->member_count, path, 0) : 0;
    case SIMT_API_ARRAY:
        if (!type_is(prop, "array"))
            return disagree(where, row->name, "type is not array");
        return row->members != NULL ? agree_object(doc, resolve(doc, json_object_get(prop, "items")),
                                                   row->members, row->member_count, path, 0)
                                    : 0;
    case SIMT_API_SHAPE:
        return agree_shape(doc, prop, row, where);
    }
    return disagree(where, row->name, "unknown descriptor type");
}

/* An object schema against a descriptor's rows: the same names, the same
 * required ones, no other properties, each field as its row says. The
 * number of disagreements, each printed. */
static int agree_object(json_t *doc, json_t *schema, const struct simt_api_field *fields, size_t count,
                        const char *where, int model)
{
    if (schema == NULL)
        return disagree(where, "", "no schema");
    int bad = 0;
    json_t *props = json_object_get(schema, "properties");
    if (!json_is_false(json_object_get(schema, "additionalProperties")))
        bad += disagree(where, "", "additionalProperties must be false");
    for (size_t i = 0; i < count; i++)
        bad += agree_field(doc, props, &fields[i], where);
    const char *key;
    json_t *value;
    json_object_foreach(props, key, value)
    {
        int known = model && strcmp(key, "figures") == 0;
        for (size_t i = 0; i < count && !known; i++)
            known = strcmp(fields[i].name, key) == 0;
        if (!known)
            bad += disagree(where, key, "in the document, not in the descriptor");
    }
    json_t *required = json_object_get(schema, "required");
    size_t descriptor_required = 0;
    for (size_t i = 0; i < count; i++) {
        if (!(fields[i].flags & SIMT_API_REQUIRED))
            continue;
        descriptor_required++;
        int listed = 0;
        for (size_t r = 0; r < json_array_size(required); r++)
            listed |= strcmp(json_string_value(json_array_get(required, r)), fields[i].name) == 0;
        if (!listed)
            bad += disagree(where, fields[i].name, "required in the descriptor, not in the document");
    }
    if (json_array_size(required) != descriptor_required)
        bad += disagree(where, "", "the document requires fields the descriptor does not");
    return bad;
}

static json_t *request_schema(json_t *doc, const struct simt_api_endpoint *endpoint)
{
    char method[16];
    lower(endpoint->method, method, sizeof method);
    json_t *op = json_object_get(json_object_get(json_object_get(doc, "paths"), endpoint->route), method);
    json_t *body =
        json_object_get(json_object_get(json_object_get(op, "requestBody"), "content"), "application/json");
    return resolve(doc, json_object_get(body, "schema"));
}

START_TEST(test_request_schema_agrees)
{
    const struct simt_api_endpoint *endpoint = simt_api_endpoint_at((size_t)_i);
    if (strcmp(endpoint->method, "POST") != 0)
        return;
    json_t *doc = fetch_document();
    int bad = agree_object(doc, request_schema(doc, endpoint), endpoint->fields, endpoint->field_count,
                           endpoint->route, (endpoint->flags & SIMT_API_MODEL) != 0);
    ck_assert_msg(bad == 0, "%s: %d disagreements between the descriptor and /openapi.json (listed above)",
                  endpoint->route, bad);
    json_decref(doc);
}
END_TEST

/* The agreement check sees a changed range, a lost required flag and an
 * extra field. */
START_TEST(test_agreement_can_fail)
{
    const struct simt_api_endpoint *gemm = NULL;
    for (size_t i = 0; i < simt_api_endpoint_count(); i++)
        if (strcmp(simt_api_endpoint_at(i)->route, "/v1/gemm") == 0)
            gemm = simt_api_endpoint_at(i);
    ck_assert_ptr_nonnull(gemm);
    ck_assert_uint_le(gemm->field_count, 16);
    json_t *doc = fetch_document();
    json_t *schema = request_schema(doc, gemm);
    struct simt_api_field rows[17];
    memcpy(rows, gemm->fields, gemm->field_count * sizeof rows[0]);
    ck_assert_int_eq(agree_object(doc, schema, rows, gemm->field_count, "gemm", 1), 0);
    rows[1].max += 1.0; /* m */
    ck_assert_int_gt(agree_object(doc, schema, rows, gemm->field_count, "gemm", 1), 0);
    memcpy(rows, gemm->fields, gemm->field_count * sizeof rows[0]);
    rows[1].flags &= ~SIMT_API_REQUIRED;
    ck_assert_int_gt(agree_object(doc, schema, rows, gemm->field_count, "gemm", 1), 0);
    memcpy(rows, gemm->fields, gemm->field_count * sizeof rows[0]);
    rows[gemm->field_count] = rows[1];
    rows[gemm->field_count].name = "q";
    ck_assert_int_gt(agree_object(doc, schema, rows, gemm->field_count + 1, "gemm", 1), 0);
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
    tcase_add_loop_test(tc, test_contract_endpoint, 0, (int)(simt_api_endpoint_count() + SERVER_ROUTES));
    tcase_add_loop_test(tc, test_request_schema_agrees, 0, (int)simt_api_endpoint_count());
    tcase_add_test(tc, test_agreement_can_fail);
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
