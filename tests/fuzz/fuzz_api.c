/* fuzz_api.c - libFuzzer target for the whole API pipeline without HTTP:
 * routing, content type, JSON parsing, every handler and the error bodies.
 * The bundled database (SIMT_SOURCE_DIR "/hwdb") is loaded once. Each input
 * becomes one request and must get a response that honours API.md: valid
 * JSON, a status of the contract, an error body of exactly the contract's
 * shape with a code that belongs to its status, an Allow header on 405, and
 * the same bytes when asked twice (no answer may depend on stale memory).
 *
 * Input layout (seeds in corpus/api are written by make_corpus.py):
 *   byte 0  bit 7 clear: route table entry (byte0 & 0x3f) % count; bit 6
 *           set: another method than the route's (byte1 >> 5 picks it).
 *           bit 7 set: method (byte0 & 7) from the list below and a path
 *           taken from the input up to the first '\n' (arbitrary bytes).
 *   byte 1  bits 0-2: content type (7: taken from the input up to '\n');
 *           bits 3-4: for a "{id}" route, which id: a GPU of the database
 *           (byte 2 picks it) or text taken from the input up to '\n'.
 *   byte 2  GPU index for "{id}" routes.
 *   rest    the fields taken up to '\n' (path, content type, id) in that
 *           order, then the body. Built with gcc it runs from replay.c. */
#define _POSIX_C_SOURCE 200809L

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "hwdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "fuzz_api: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

static const char *const methods[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "get", ""};
#define METHOD_COUNT (sizeof methods / sizeof methods[0])

static const char *const content_types[] = {
    NULL, "application/json",  "application/json; charset=utf-8", "text/plain", "APPLICATION/JSON",
    "",   "application/jsonx",
};

/* The contract's error table (API.md): which codes each status may carry. */
static const struct {
    int status;
    const char *codes[5];
} contract[] = {
    {400, {"bad_json", "invalid_argument", "unknown_field", "missing_field", NULL}},
    {404, {"not_found", "unknown_gpu", "unknown_model", NULL}},
    {405, {"method_not_allowed", NULL}},
    {413, {"too_large", NULL}},
    {415, {"unsupported_media_type", NULL}},
    {422, {"unsatisfiable", NULL}},
    {503, {"unavailable", NULL}},
};

static struct simt_hwdb *database(void)
{
    static struct simt_hwdb *db;
    if (db == NULL) {
        struct simt_diag diag;
        if (simt_hwdb_load_dir(SIMT_SOURCE_DIR "/hwdb", &db, &diag) != SIMT_OK) {
            fprintf(stderr, "fuzz_api: cannot load the bundled database: %s\n", diag.message);
            abort();
        }
    }
    return db;
}

/* Takes bytes up to the next '\n' (or the end) as a NUL-terminated string:
 * an embedded NUL simply ends it early, as it would in a C string. */
static char *take_line(const uint8_t **data, size_t *size)
{
    const uint8_t *end = memchr(*data, '\n', *size);
    size_t n = end != NULL ? (size_t)(end - *data) : *size;
    char *text = malloc(n + 1);
    CHECK(text != NULL, "out of memory");
    memcpy(text, *data, n);
    text[n] = '\0';
    size_t used = end != NULL ? n + 1 : n;
    *data += used;
    *size -= used;
    return text;
}

static void check_error_body(const json_t *body, int status, const char *text)
{
    size_t row = 0;
    while (row < sizeof contract / sizeof contract[0] && contract[row].status != status)
        row++;
    CHECK(row < sizeof contract / sizeof contract[0], "status %d is not in the contract: %s", status, text);
    CHECK(json_object_size(body) == 1, "an error body has one key, \"error\": %s", text);
    const json_t *error = json_object_get(body, "error");
    CHECK(json_is_object(error), "\"error\" must be an object: %s", text);
    const json_t *code = json_object_get(error, "code");
    const json_t *message = json_object_get(error, "message");
    const json_t *field = json_object_get(error, "field");
    CHECK(json_is_string(code), "error.code must be a string: %s", text);
    CHECK(json_is_string(message) && json_string_length(message) > 0,
          "error.message must be a non-empty string: %s", text);
    CHECK(json_object_size(error) == (field != NULL ? 3u : 2u), "error has only code, message, field: %s",
          text);
    if (field != NULL)
        CHECK(json_is_string(field) && json_string_length(field) > 0,
              "error.field, when given, names a field: %s", text);
    int known = 0;
    for (size_t i = 0; contract[row].codes[i] != NULL; i++)
        known |= strcmp(contract[row].codes[i], json_string_value(code)) == 0;
    CHECK(known, "code \"%s\" does not belong to status %d: %s", json_string_value(code), status, text);
}

static void check_response(const struct simt_api_response *resp, const char *method)
{
    CHECK(resp->body != NULL, "no body");
    CHECK(resp->body_len == strlen(resp->body), "body_len %zu, strlen %zu", resp->body_len,
          strlen(resp->body));
    CHECK(resp->content_type != NULL && strcmp(resp->content_type, "application/json") == 0,
          "content type %s", resp->content_type != NULL ? resp->content_type : "(null)");
    CHECK(resp->route != NULL, "no route label for metrics");
    json_error_t jerr;
    json_t *body = json_loadb(resp->body, resp->body_len, JSON_REJECT_DUPLICATES, &jerr);
    CHECK(body != NULL, "response is not JSON (%s): %s", jerr.text, resp->body);
    CHECK(json_is_object(body), "response is not a JSON object: %s", resp->body);
    if (resp->status == 200) {
        CHECK(json_object_get(body, "error") == NULL, "a 200 carries no error: %s", resp->body);
        const json_t *assumptions = json_object_get(body, "assumptions");
        if (assumptions != NULL) {
            CHECK(json_is_array(assumptions), "assumptions must be a list: %s", resp->body);
            for (size_t i = 0; i < json_array_size(assumptions); i++)
                CHECK(json_is_string(json_array_get(assumptions, i)), "assumptions are strings: %s",
                      resp->body);
        }
    } else {
        check_error_body(body, resp->status, resp->body);
    }
    if (resp->status == 405)
        CHECK(resp->allow != NULL && (strcmp(resp->allow, "GET") == 0 || strcmp(resp->allow, "POST") == 0),
              "a 405 names the allowed method (%s %s)", method, resp->body);
    else
        CHECK(resp->allow == NULL, "Allow only on a 405");
    json_decref(body);
}

/* SIMT_FUZZ_VERBOSE=1: one line per input (for reading a replay) */
static int verbose(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = getenv("SIMT_FUZZ_VERBOSE") != NULL;
    return cached;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    const struct simt_hwdb *db = database();
    uint8_t route_byte = data[0], type_byte = data[1], gpu_byte = data[2];
    data += 3;
    size -= 3;

    char *path = NULL, *content_type = NULL, *id = NULL;
    const char *method;
    if (route_byte & 0x80) {
        method = methods[route_byte % METHOD_COUNT];
        path = take_line(&data, &size);
    } else {
        const char *route_method, *pattern;
        size_t count = simt_api_route_count();
        CHECK(count > 0, "empty route table");
        CHECK(simt_api_route_at((route_byte & 0x3f) % count, &route_method, &pattern) == SIMT_OK, "route_at");
        method = route_method;
        if (route_byte & 0x40)
            method = methods[(size_t)(type_byte >> 5) % METHOD_COUNT];
        const char *brace = strstr(pattern, "{id}");
        if (brace == NULL) {
            path = strdup(pattern);
            CHECK(path != NULL, "out of memory");
        } else {
            const char *gpu_id;
            if ((type_byte >> 3) & 3) {
                id = take_line(&data, &size);
                gpu_id = id;
            } else {
                const struct simt_hwdb_gpu *gpu = simt_hwdb_at(db, gpu_byte % simt_hwdb_count(db));
                gpu_id = gpu->id;
            }
            size_t prefix = (size_t)(brace - pattern), n = prefix + strlen(gpu_id) + strlen(brace + 4) + 1;
            path = malloc(n);
            CHECK(path != NULL, "out of memory");
            snprintf(path, n, "%.*s%s%s", (int)prefix, pattern, gpu_id, brace + 4);
        }
    }
    const char *type = content_types[(type_byte & 7) % 7];
    if ((type_byte & 7) == 7) {
        content_type = take_line(&data, &size);
        type = content_type;
    }

    /* the body is not NUL-terminated: copy it to a buffer of its exact size
     * so that reading past body_len is caught by AddressSanitizer */
    char *body = size > 0 ? malloc(size) : NULL;
    if (size > 0) {
        CHECK(body != NULL, "out of memory");
        memcpy(body, data, size);
    }
    struct simt_api_request req = {method, path, type, body, size};
    struct simt_api_response first, second;
    CHECK(simt_api_handle(db, &req, &first) == SIMT_OK, "simt_api_handle failed");
    if (verbose())
        printf("%s %s -> %d %.200s\n", method, path, first.status, first.body);
    check_response(&first, method);
    CHECK(simt_api_handle(db, &req, &second) == SIMT_OK, "simt_api_handle failed the second time");
    CHECK(first.status == second.status && first.body_len == second.body_len &&
              memcmp(first.body, second.body, first.body_len) == 0,
          "the same request answered differently:\n%s\n%s", first.body, second.body);
    simt_api_response_clear(&first);
    simt_api_response_clear(&second);
    free(body);
    free(path);
    free(content_type);
    free(id);
    return 0;
}
