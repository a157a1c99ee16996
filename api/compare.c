/* compare.c - POST /v1/compare: one question (any model endpoint) asked of
 * several GPUs, each answered in-process by that endpoint's own handler. */
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "read.h"
#include "routes.h"
#include "rows.h"

#define MAX_COMPARE_GPUS 32
#define MAX_QUESTIONS 64

static const struct simt_api_field fields[] = {
    SIMT_ROW_SHAPE("gpus", SIMT_API_ARRAY, SIMT_API_REQUIRED, "The GPUs: ids or what-if objects, 1 to 32."),
    SIMT_ROW_SHAPE("question", SIMT_API_STRING, SIMT_API_REQUIRED,
                   "The endpoint to ask, e.g. /v1/gemm: any endpoint marked comparable."),
    SIMT_ROW_SHAPE("body", SIMT_API_OBJECT, SIMT_API_REQUIRED, "That endpoint's body without gpu."),
};

/* The endpoints a comparison may ask, from the endpoint table; NULL-ended. */
static void comparable_routes(const char **questions, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < simt_api_endpoint_count() && n + 1 < size; i++) {
        const struct simt_api_endpoint *endpoint = simt_api_endpoint_at(i);
        if (endpoint->flags & SIMT_API_COMPARABLE)
            questions[n++] = endpoint->route;
    }
    questions[n] = NULL;
}

/* A JSON number's value, or dflt when absent or not a number. */
static double number_or(json_t *obj, const char *key, double dflt)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* The points one GPU's answer to the question holds: a sweep's, estimated
 * from its range (or the widest default range when it leaves it out, capped
 * at the sweep's own limit), else one. */
static double points_per_gpu(json_t *body)
{
    const char *question = json_string_value(json_object_get(body, "question"));
    json_t *sub = json_object_get(body, "body");
    if (question == NULL || strcmp(question, "/v1/occupancy/sweep") != 0 || !json_is_object(sub))
        return 1;
    const char *vary = json_string_value(json_object_get(sub, "vary"));
    double from = 1, to = 255, step = 1; /* registers_per_thread */
    if (vary != NULL && strcmp(vary, "block_size") == 0) {
        from = 32;
        to = 1024;
        step = 32;
    } else if (vary != NULL && strcmp(vary, "dynamic_shared_bytes") == 0) {
        from = 0;
        to = 232448;
        step = 1024;
    }
    from = number_or(sub, "from", from);
    to = number_or(sub, "to", to);
    step = number_or(sub, "step", step);
    if (!(step >= 1) || !(to >= from))
        return 1; /* the sweep refuses it itself */
    double points = (to - from) / step + 1;
    return points < 4096 ? points : 4096;
}

/* Refuses (422 too_costly) a comparison whose GPUs x points exceed the
 * budget, before any work. Returns 0 when it may go on. */
static int check_cost(struct simt_call *call, size_t gpu_count)
{
    double per_gpu = points_per_gpu(call->body);
    double points = per_gpu * (double)gpu_count;
    unsigned budget = simt_api_max_cost();
    if (points <= budget)
        return 0;
    double fit = (double)budget / per_gpu;
    return simt_call_fail(call, 413, "too_large", "gpus",
                          "this comparison asks for %.0f points (%zu GPUs x %.0f, about %.0f MB of answer); "
                          "one request may ask for %u (simtd --max-request-cost): send at most %.0f GPUs "
                          "per request, or narrow the sweep (raise step, or narrow from..to)",
                          points, gpu_count, per_gpu, points * SIMT_API_BYTES_PER_POINT / 1e6, budget,
                          fit >= 1 ? fit : 1);
}

/* The kinds of source a result's figures came from, as "measured, derived"
 * (in the contract's order of sources); "" when none. */
static void source_kinds(json_t *result, char *buf, size_t size)
{
    static const char *const kinds[] = {"override", "measured", "scaled_measured", "datasheet", "derived"};
    json_t *used = json_object_get(result, "figures_used");
    buf[0] = '\0';
    size_t at = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *name;
        json_t *figure;
        json_object_foreach(used, name, figure)
        {
            const char *source = json_string_value(json_object_get(figure, "source"));
            if (source == NULL || strcmp(source, kinds[k]) != 0)
                continue;
            int n = snprintf(buf + at, size - at, "%s%s", at > 0 ? ", " : "", kinds[k]);
            if (n > 0 && (size_t)n < size - at)
                at += (size_t)n;
            break;
        }
    }
}

/* The contract: a comparison says when the GPUs' figures come from
 * different kinds of source (one measured, another datasheet x fraction). */
static void assume_sources(struct simt_call *call, json_t *results)
{
    char first[96] = "", kinds[96], text[400] = "";
    int differ = 0;
    size_t at = 0, answered = 0;
    for (size_t i = 0; i < json_array_size(results); i++) {
        json_t *result = json_array_get(results, i);
        if (json_object_get(result, "figures_used") == NULL)
            continue;
        source_kinds(result, kinds, sizeof kinds);
        if (answered++ == 0)
            snprintf(first, sizeof first, "%s", kinds);
        else if (strcmp(first, kinds) != 0)
            differ = 1;
        const char *gpu = json_string_value(json_object_get(result, "gpu"));
        int n = snprintf(text + at, sizeof text - at, "%s%s: %s", at > 0 ? "; " : "", gpu != NULL ? gpu : "?",
                         kinds[0] != '\0' ? kinds : "none");
        if (n > 0 && (size_t)n < sizeof text - at)
            at += (size_t)n;
    }
    if (differ)
        simt_call_assume(call,
                         "figures: the GPUs' figures come from different kinds of source (%s); see each "
                         "result's figures_used",
                         text);
}

static json_t *answer_compare(struct simt_call *call)
{
    json_t *gpus = json_object_get(call->body, "gpus");
    if (gpus == NULL) {
        simt_call_fail(call, 400, "missing_field", "gpus",
                       "gpus is required: a list of GPU ids or what-if objects");
        return NULL;
    }
    if (!json_is_array(gpus) || json_array_size(gpus) < 1 || json_array_size(gpus) > MAX_COMPARE_GPUS) {
        simt_call_fail(call, 400, "invalid_argument", "gpus", "gpus must be a list of 1 to %d GPUs",
                       MAX_COMPARE_GPUS);
        return NULL;
    }
    if (check_cost(call, json_array_size(gpus)) != 0)
        return NULL;
    const char *questions[MAX_QUESTIONS];
    comparable_routes(questions, MAX_QUESTIONS);
    int index = 0;
    if (simt_read_enum(call, call->body, "", "question", 1, questions, 0, &index) != 0)
        return NULL;
    json_t *body = json_object_get(call->body, "body");
    if (body == NULL) {
        simt_call_fail(call, 400, "missing_field", "body",
                       "body is required: the question's body without gpu");
        return NULL;
    }
    if (!json_is_object(body)) {
        simt_call_fail(call, 400, "invalid_argument", "body", "body must be an object");
        return NULL;
    }
    if (json_object_get(body, "gpu") != NULL) {
        simt_call_fail(call, 400, "invalid_argument", "body.gpu", "leave gpu out of body: gpus names them");
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(gpus); i++) {
        json_t *g = json_array_get(gpus, i);
        if (!json_is_string(g) && !json_is_object(g)) {
            char field[32];
            snprintf(field, sizeof field, "gpus[%zu]", i);
            simt_call_fail(call, 400, "invalid_argument", field, "%s must be a GPU id or a what-if object",
                           field);
            return NULL;
        }
    }
    json_t *results = json_array();
    for (size_t i = 0; i < json_array_size(gpus); i++) {
        json_t *g = json_array_get(gpus, i);
        json_t *sub = json_deep_copy(body);
        if (sub == NULL) {
            json_decref(results);
            return NULL;
        }
        json_object_set(sub, "gpu", g);
        int status = 0;
        json_t *answer = simt_api_call_route(call, questions[index], sub, &status);
        json_decref(sub);
        if (answer == NULL) {
            json_decref(results);
            return NULL;
        }
        if (status != 200) {
            /* one GPU's refusal does not sink the comparison */
            json_t *item = json_object();
            json_object_set(item, "gpu", g);
            simt_call_set_int(item, "status", status);
            json_object_set(item, "error", json_object_get(answer, "error"));
            json_decref(answer);
            answer = item;
        } else if (json_object_get(answer, "gpu") == NULL) {
            json_object_set(answer, "gpu", g);
        }
        json_array_append_new(results, answer);
    }
    assume_sources(call, results);
    json_t *answer = json_object();
    json_object_set_new(answer, "question", json_string(questions[index]));
    json_object_set_new(answer, "results", results);
    return answer;
}

const struct simt_api_endpoint simt_api_compare_endpoint = {
    .method = "POST",
    .route = "/v1/compare",
    .flags = SIMT_API_MODEL,
    .handler = answer_compare,
    .fields = fields,
    .field_count = SIMT_COUNT_OF(fields),
    .doc = "One question (a comparable endpoint) asked of several GPUs.",
};
