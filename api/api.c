/* api.c - the request pipeline: route lookup (404/405), content type (415),
 * JSON parsing (400), the handler, and the contract's error body. Every
 * answer is built here, so every endpoint speaks the same error shape. */
#include "api.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_internal.h"

#define JSON_CONTENT_TYPE "application/json"

static int dump_json(json_t *value, int status, const char *route, struct simt_api_response *resp)
{
    char *text = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(12));
    if (text == NULL)
        return SIMT_ENOMEM;
    resp->status = status;
    resp->body = text;
    resp->body_len = strlen(text);
    resp->content_type = JSON_CONTENT_TYPE;
    resp->route = route;
    return SIMT_OK;
}

/* Messages may quote request bytes (a parser's error text does), so both
 * strings are made valid UTF-8 before they become JSON. */
static json_t *error_body(const char *code, const char *message, const char *field)
{
    char text[512], path[160];
    snprintf(text, sizeof text, "%s", message);
    simt_utf8_repair(text);
    json_t *error = json_pack("{s:s, s:s}", "code", code, "message", text);
    if (error == NULL)
        return NULL;
    if (field != NULL && field[0] != '\0') {
        snprintf(path, sizeof path, "%s", field);
        simt_utf8_repair(path);
        json_object_set_new(error, "field", json_string(path));
    }
    return json_pack("{s:o}", "error", error);
}

int simt_api_error_response(int status, const char *code, const char *message, const char *field,
                            struct simt_api_response *resp)
{
    memset(resp, 0, sizeof *resp);
    json_t *body = error_body(code, message, field);
    if (body == NULL)
        return SIMT_ENOMEM;
    int rc = dump_json(body, status, "unmatched", resp);
    json_decref(body);
    return rc;
}

void simt_api_response_clear(struct simt_api_response *resp)
{
    free(resp->body);
    memset(resp, 0, sizeof *resp);
}

/* Copies src into dst with every byte outside printable ASCII as '?', so
 * that a message quoting request bytes is always valid UTF-8. */
static const char *printable(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src != NULL && src[i] != '\0' && i + 1 < size; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[i] = '\0';
    return dst;
}

/* The deepest nesting of arrays and objects in text (strings skipped),
 * stopping early once past limit. jansson recurses per level; this keeps a
 * hostile body from costing more than a flat one. */
static int json_depth_exceeds(const char *text, size_t len, int limit)
{
    int depth = 0, in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth > limit)
                return 1;
        } else if (ch == ']' || ch == '}') {
            depth--;
        }
    }
    return 0;
}

/* --- routing --- */

/* Does path match pattern? A pattern ending in "{id}" matches one non-empty
 * segment there, returned in *param (pointing into path). */
static int route_matches(const char *pattern, const char *path, const char **param)
{
    const char *brace = strstr(pattern, "{id}");
    if (brace == NULL)
        return strcmp(pattern, path) == 0;
    size_t prefix = (size_t)(brace - pattern);
    if (strncmp(pattern, path, prefix) != 0)
        return 0;
    const char *rest = path + prefix;
    if (rest[0] == '\0' || strchr(rest, '/') != NULL)
        return 0;
    *param = rest;
    return 1;
}

static int content_type_is_json(const char *content_type)
{
    if (content_type == NULL)
        return 1; /* missing is accepted (API.md) */
    while (*content_type == ' ')
        content_type++;
    size_t n = strlen(JSON_CONTENT_TYPE);
    if (strncasecmp(content_type, JSON_CONTENT_TYPE, n) != 0)
        return 0;
    char next = content_type[n];
    return next == '\0' || next == ';' || next == ' ';
}

static int figures_from_body(struct simt_call *call)
{
    json_t *value = json_object_get(call->body, "figures");
    if (value == NULL)
        return 0;
    const char *choices[] = {"measured", "datasheet", NULL};
    int index = 0;
    if (simt_get_enum(call, call->body, "", "figures", 1, choices, 0, &index) != 0)
        return -1;
    call->figures = index == 1 ? SIMT_FIGURES_DATASHEET : SIMT_FIGURES_MEASURED;
    json_object_del(call->body, "figures");
    return 0;
}

/* Runs one matched route on an already parsed body (borrowed; may be
 * modified: "figures" is taken out). Returns the answer or NULL with
 * call->failed set. */
static json_t *run_route(struct simt_call *call, const struct simt_route *route)
{
    if ((route->flags & SIMT_ROUTE_MODEL) && call->body != NULL && figures_from_body(call) != 0)
        return NULL;
    json_t *answer = route->handler(call);
    if (answer == NULL) {
        if (!call->failed)
            simt_call_fail(call, 500, "internal", NULL, "out of memory");
        return NULL;
    }
    if ((route->flags & SIMT_ROUTE_MODEL) && json_object_get(answer, "assumptions") == NULL)
        json_object_set(answer, "assumptions", call->assumptions);
    return answer;
}

static void call_init(struct simt_call *call, const struct simt_hwdb *db)
{
    memset(call, 0, sizeof *call);
    call->db = db;
    call->assumptions = json_array();
}

static json_t *call_error_body(const struct simt_call *call)
{
    return error_body(call->code, call->message, call->field);
}

int simt_api_handle(const struct simt_hwdb *db, const struct simt_api_request *req,
                    struct simt_api_response *resp)
{
    memset(resp, 0, sizeof *resp);
    const struct simt_route *route = NULL;
    const char *param = NULL;
    char allow[64] = "";
    static const char *const allow_get = "GET", *const allow_post = "POST";
    const char *known_pattern = NULL; /* a route of this path, for a 405's metrics label */

    for (size_t i = 0; i < simt_route_count; i++) {
        const char *candidate = NULL;
        if (!route_matches(simt_route_table[i].pattern, req->path, &candidate))
            continue;
        known_pattern = simt_route_table[i].pattern;
        snprintf(allow, sizeof allow, "%s", simt_route_table[i].method);
        if (strcmp(simt_route_table[i].method, req->method) == 0 ||
            (strcmp(req->method, "HEAD") == 0 && strcmp(simt_route_table[i].method, "GET") == 0)) {
            route = &simt_route_table[i];
            param = candidate;
            break;
        }
    }
    if (route == NULL && known_pattern != NULL) {
        char message[300], method[40], path[200];
        snprintf(message, sizeof message, "%s is not allowed on %s; use %s",
                 printable(method, sizeof method, req->method), printable(path, sizeof path, req->path),
                 allow);
        int rc = simt_api_error_response(405, "method_not_allowed", message, NULL, resp);
        resp->allow = strcmp(allow, "GET") == 0 ? allow_get : allow_post;
        resp->route = known_pattern;
        return rc;
    }
    if (route == NULL) {
        char message[300], path[200];
        snprintf(message, sizeof message, "no such endpoint: %s (GET /openapi.json lists them)",
                 printable(path, sizeof path, req->path));
        return simt_api_error_response(404, "not_found", message, NULL, resp);
    }

    struct simt_call call;
    call_init(&call, db);
    call.path_param = param;
    json_t *body = NULL;
    if (strcmp(route->method, "POST") == 0) {
        if (!content_type_is_json(req->content_type)) {
            json_decref(call.assumptions);
            char message[300], type[120];
            snprintf(message, sizeof message,
                     "Content-Type must be application/json, not %s (with curl: --json BODY, "
                     "or -H 'Content-Type: application/json')",
                     printable(type, sizeof type, req->content_type));
            int rc = simt_api_error_response(415, "unsupported_media_type", message, NULL, resp);
            resp->route = route->pattern;
            return rc;
        }
        if (req->body != NULL && json_depth_exceeds(req->body, req->body_len, SIMT_MAX_JSON_DEPTH)) {
            json_decref(call.assumptions);
            char message[120];
            snprintf(message, sizeof message, "the body nests arrays and objects deeper than %d levels",
                     SIMT_MAX_JSON_DEPTH);
            int rc = simt_api_error_response(400, "bad_json", message, NULL, resp);
            resp->route = route->pattern;
            return rc;
        }
        json_error_t jerr;
        body = json_loadb(req->body != NULL ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES, &jerr);
        if (body == NULL) {
            json_decref(call.assumptions);
            char message[300];
            if (req->body_len == 0)
                snprintf(message, sizeof message, "the request body is empty; send a JSON object");
            else
                snprintf(message, sizeof message, "malformed JSON at line %d, column %d: %s", jerr.line,
                         jerr.column, jerr.text);
            int rc = simt_api_error_response(400, "bad_json", message, NULL, resp);
            resp->route = route->pattern;
            return rc;
        }
        if (!json_is_object(body)) {
            json_decref(body);
            json_decref(call.assumptions);
            int rc = simt_api_error_response(400, "bad_json", "the request body must be a JSON object", NULL,
                                             resp);
            resp->route = route->pattern;
            return rc;
        }
        call.body = body;
    }

    json_t *answer = run_route(&call, route);
    int rc;
    if (answer != NULL) {
        rc = dump_json(answer, 200, route->pattern, resp);
        json_decref(answer);
    } else {
        json_t *err = call_error_body(&call);
        rc = err != NULL ? dump_json(err, call.status, route->pattern, resp) : SIMT_ENOMEM;
        json_decref(err);
    }
    json_decref(body);
    json_decref(call.assumptions);
    return rc;
}

json_t *simt_call_route(struct simt_call *call, const char *path, json_t *body, int *status)
{
    const struct simt_route *route = NULL;
    for (size_t i = 0; i < simt_route_count; i++) {
        if (strcmp(simt_route_table[i].method, "POST") == 0 &&
            strcmp(simt_route_table[i].pattern, path) == 0) {
            route = &simt_route_table[i];
            break;
        }
    }
    struct simt_call sub;
    call_init(&sub, call->db);
    sub.figures = call->figures;
    json_t *answer = NULL;
    if (route == NULL) {
        simt_call_fail(&sub, 404, "not_found", NULL, "no such POST endpoint: %.200s", path);
    } else {
        json_t *copy = json_deep_copy(body);
        sub.body = copy;
        answer = copy != NULL ? run_route(&sub, route) : NULL;
        json_decref(copy);
    }
    if (answer != NULL) {
        *status = 200;
    } else {
        *status = sub.failed ? sub.status : 500;
        answer = sub.failed ? call_error_body(&sub) : NULL;
    }
    json_decref(sub.assumptions);
    return answer;
}

size_t simt_api_route_count(void)
{
    return simt_route_count;
}

int simt_api_route_at(size_t i, const char **method, const char **pattern)
{
    if (i >= simt_route_count)
        return SIMT_ENOENT;
    *method = simt_route_table[i].method;
    *pattern = simt_route_table[i].pattern;
    return SIMT_OK;
}
