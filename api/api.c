/* api.c - the request pipeline: route lookup in the endpoint table
 * (404/405), content type (415), JSON parsing (400), the figure policy, the
 * body's keys against the endpoint's descriptor, the handler, the
 * assumptions, the contract's error body, and the release of the call.
 * Every answer is built here, so every endpoint speaks the same error shape
 * and no handler frees what the call holds. */
#include "api.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "call.h"
#include "jsonw.h"
#include "read.h"
#include "routes.h"

#define JSON_CONTENT_TYPE "application/json"
#define MAX_JSON_DEPTH 32 /* deeper request bodies are a 400 */

/* The answer's text into resp: the writer's (jsonw.h: the same bytes as
 * jansson's compact dump with 12 digits), or jansson's own for the tree
 * path that tests compare against. */
static int dump_json(json_t *value, int status, const char *route, struct simt_api_response *resp, int tree)
{
    char *text;
    size_t len = 0;
    if (tree) {
        text = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(12));
        len = text != NULL ? strlen(text) : 0;
    } else {
        struct simt_jsonw w;
        simt_jsonw_init(&w, 0);
        simt_jsonw_value(&w, value);
        text = simt_jsonw_take(&w, &len);
    }
    if (text == NULL)
        return SIMT_ENOMEM;
    resp->status = status;
    resp->body = text;
    resp->body_len = len;
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
    simt_call_utf8_repair(text);
    json_t *error = json_pack("{s:s, s:s}", "code", code, "message", text);
    if (error == NULL)
        return NULL;
    if (field != NULL && field[0] != '\0') {
        snprintf(path, sizeof path, "%s", field);
        simt_call_utf8_repair(path);
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
    int rc = dump_json(body, status, "unmatched", resp, 0);
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

/* The one place the figure policy is decided: "figures" of a model
 * endpoint's body, taken out before the handler sees the body. */
static int figures_from_body(struct simt_call *call)
{
    json_t *value = json_object_get(call->body, "figures");
    if (value == NULL)
        return 0;
    static const char *const choices[] = {"measured", "datasheet", NULL};
    int index = 0;
    int rc = simt_read_enum(call, call->body, "", "figures", 1, choices, 0, &index);
    if (rc != 0)
        return rc;
    call->policy = index == 1 ? SIMT_POLICY_DATASHEET : SIMT_POLICY_PREFER_MEASURED;
    json_object_del(call->body, "figures");
    return 0;
}

/* Runs one matched endpoint on an already parsed body (borrowed; may be
 * modified: "figures" is taken out): the figure policy, the body's keys
 * against the descriptor, the handler, the assumptions. Returns the answer
 * or NULL with call->failed set; the caller releases the call. */
static json_t *run_endpoint(struct simt_call *call, const struct simt_api_endpoint *endpoint)
{
    call->endpoint = endpoint;
    int model = (endpoint->flags & SIMT_API_MODEL) != 0;
    if (model && call->body != NULL && figures_from_body(call) != 0)
        return NULL;
    if (call->body != NULL &&
        simt_read_check_keys(call, call->body, "", endpoint->fields, endpoint->field_count) != 0)
        return NULL;
    json_t *answer = endpoint->handler(call);
    if (answer == NULL) {
        if (!call->failed)
            simt_call_fail(call, 500, "internal", NULL, "out of memory");
        return NULL;
    }
    /* every model answer names the figures it used ({} when it used none);
     * /v1/compare's answer carries them per GPU, in each result */
    int with_figures = model && strcmp(endpoint->route, "/v1/compare") != 0;
    if (call->written) { /* the handler wrote its members; the rest follows them */
        struct simt_jsonw *w = call->writer;
        if (model) {
            simt_jsonw_key(w, "assumptions");
            simt_jsonw_value(w, call->assumptions);
        }
        if (with_figures && call->has_gpu) {
            json_t *used = simt_call_figures_used(call);
            simt_jsonw_key(w, "figures_used");
            simt_jsonw_value(w, used);
            json_decref(used);
        } else if (with_figures) {
            simt_jsonw_key(w, "figures_used");
            simt_jsonw_object_begin(w);
            simt_jsonw_object_end(w);
        }
        simt_jsonw_object_end(w);
        return answer;
    }
    if (model && json_object_get(answer, "assumptions") == NULL)
        json_object_set(answer, "assumptions", call->assumptions);
    json_t *used = NULL;
    if (with_figures)
        used = call->has_gpu ? simt_call_figures_used(call) : json_object();
    if (used != NULL)
        json_object_set_new(answer, "figures_used", used);
    return answer;
}

static json_t *call_error_body(const struct simt_call *call)
{
    return error_body(call->error.code, call->error.message, call->error.field);
}

/* The route for method and path: *endpoint and *param (the {id}) when one
 * matches; else *known, a route of the path under another method, or NULL. */
static void route(const char *method, const char *path, const struct simt_api_endpoint **endpoint,
                  const char **param, const struct simt_api_endpoint **known)
{
    *endpoint = NULL;
    *known = NULL;
    for (size_t i = 0; i < simt_api_endpoint_count(); i++) {
        const struct simt_api_endpoint *candidate = simt_api_endpoint_at(i);
        const char *value = NULL;
        if (!route_matches(candidate->route, path, &value))
            continue;
        *known = candidate;
        if (strcmp(candidate->method, method) == 0 ||
            (strcmp(method, "HEAD") == 0 && strcmp(candidate->method, "GET") == 0)) {
            *endpoint = candidate;
            *param = value;
            return;
        }
    }
}

/* The pipeline; `tree`: no writer offered, jansson's dump (the old path). */
static int handle(const struct simt_hwdb *db, const struct simt_api_request *req,
                  struct simt_api_response *resp, int tree)
{
    memset(resp, 0, sizeof *resp);
    const struct simt_api_endpoint *endpoint = NULL, *known = NULL;
    const char *param = NULL;
    static const char *const allow_get = "GET", *const allow_post = "POST";
    route(req->method, req->path, &endpoint, &param, &known);
    if (endpoint == NULL && known != NULL) {
        char message[300], method[40], path[200];
        snprintf(message, sizeof message, "%s is not allowed on %s; use %s",
                 printable(method, sizeof method, req->method), printable(path, sizeof path, req->path),
                 known->method);
        int rc = simt_api_error_response(405, "method_not_allowed", message, NULL, resp);
        resp->allow = strcmp(known->method, "GET") == 0 ? allow_get : allow_post;
        resp->route = known->route;
        return rc;
    }
    if (endpoint == NULL) {
        char message[300], path[200];
        snprintf(message, sizeof message, "no such endpoint: %s (GET /openapi.json lists them)",
                 printable(path, sizeof path, req->path));
        return simt_api_error_response(404, "not_found", message, NULL, resp);
    }

    json_t *body = NULL;
    if (strcmp(endpoint->method, "POST") == 0) {
        if (!content_type_is_json(req->content_type)) {
            char message[300], type[120];
            snprintf(message, sizeof message,
                     "Content-Type must be application/json, not %s (with curl: --json BODY, "
                     "or -H 'Content-Type: application/json')",
                     printable(type, sizeof type, req->content_type));
            int rc = simt_api_error_response(415, "unsupported_media_type", message, NULL, resp);
            resp->route = endpoint->route;
            return rc;
        }
        if (req->body != NULL && json_depth_exceeds(req->body, req->body_len, MAX_JSON_DEPTH)) {
            char message[120];
            snprintf(message, sizeof message, "the body nests arrays and objects deeper than %d levels",
                     MAX_JSON_DEPTH);
            int rc = simt_api_error_response(400, "bad_json", message, NULL, resp);
            resp->route = endpoint->route;
            return rc;
        }
        json_error_t jerr;
        body = json_loadb(req->body != NULL ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES, &jerr);
        if (body == NULL) {
            char message[300];
            if (req->body_len == 0)
                snprintf(message, sizeof message, "the request body is empty; send a JSON object");
            else
                snprintf(message, sizeof message, "malformed JSON at line %d, column %d: %s", jerr.line,
                         jerr.column, jerr.text);
            int rc = simt_api_error_response(400, "bad_json", message, NULL, resp);
            resp->route = endpoint->route;
            return rc;
        }
        if (!json_is_object(body)) {
            json_decref(body);
            int rc = simt_api_error_response(400, "bad_json", "the request body must be a JSON object", NULL,
                                             resp);
            resp->route = endpoint->route;
            return rc;
        }
    }

    struct simt_call call;
    simt_call_init(&call, db);
    call.path_param = param;
    call.body = body;
    struct simt_jsonw writer;
    simt_jsonw_init(&writer, 0);
    call.writer = tree ? NULL : &writer;
    json_t *answer = run_endpoint(&call, endpoint);
    int rc;
    if (answer != NULL && call.written) {
        char *text = simt_jsonw_take(&writer, &resp->body_len);
        rc = text != NULL ? SIMT_OK : SIMT_ENOMEM;
        resp->status = 200;
        resp->body = text;
        resp->content_type = JSON_CONTENT_TYPE;
        resp->route = endpoint->route;
    } else if (answer != NULL) {
        rc = dump_json(answer, 200, endpoint->route, resp, tree);
        json_decref(answer);
    } else {
        json_t *err = call_error_body(&call);
        rc = err != NULL ? dump_json(err, call.error.status, endpoint->route, resp, tree) : SIMT_ENOMEM;
        json_decref(err);
    }
    simt_jsonw_release(&writer);
    simt_call_release(&call);
    json_decref(body);
    return rc;
}

int simt_api_handle(const struct simt_hwdb *db, const struct simt_api_request *req,
                    struct simt_api_response *resp)
{
    return handle(db, req, resp, 0);
}

int simt_api_handle_tree(const struct simt_hwdb *db, const struct simt_api_request *req,
                         struct simt_api_response *resp)
{
    return handle(db, req, resp, 1);
}

json_t *simt_api_call_route(struct simt_call *call, const char *route, json_t *body, int *status)
{
    const struct simt_api_endpoint *endpoint = simt_api_endpoint_find("POST", route);
    struct simt_call sub;
    simt_call_init(&sub, call->db);
    sub.policy = call->policy;
    json_t *answer = NULL;
    if (endpoint == NULL) {
        simt_call_fail(&sub, 404, "not_found", NULL, "no such POST endpoint: %.200s", route);
    } else {
        json_t *copy = json_deep_copy(body);
        sub.body = copy;
        answer = copy != NULL ? run_endpoint(&sub, endpoint) : NULL;
        json_decref(copy);
    }
    if (answer != NULL) {
        *status = 200;
    } else {
        *status = sub.failed ? sub.error.status : 500;
        answer = sub.failed ? call_error_body(&sub) : NULL;
    }
    simt_call_release(&sub);
    return answer;
}

size_t simt_api_route_count(void)
{
    return simt_api_endpoint_count();
}

int simt_api_route_at(size_t i, const char **method, const char **pattern)
{
    const struct simt_api_endpoint *endpoint = simt_api_endpoint_at(i);
    if (endpoint == NULL)
        return SIMT_ENOENT;
    *method = endpoint->method;
    *pattern = endpoint->route;
    return SIMT_OK;
}
