/* h_compare.c - POST /v1/compare: one question (any model endpoint) asked of
 * several GPUs, each answered in-process by that endpoint's own handler. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"

#define MAX_COMPARE_GPUS 32

static const char *const compare_keys[] = {"gpus", "question", "body", NULL};

/* The endpoints a comparison may ask. */
static const char *const questions[] = {"/v1/occupancy",
                                        "/v1/occupancy/sweep",
                                        "/v1/launch/suggest",
                                        "/v1/roofline",
                                        "/v1/memory/coalescing",
                                        "/v1/memory/banks",
                                        "/v1/memory/constant",
                                        "/v1/latency-hiding",
                                        "/v1/divergence",
                                        "/v1/kernel",
                                        "/v1/gemm",
                                        "/v1/collective",
                                        NULL};

json_t *h_compare(struct simt_call *call)
{
    if (simt_check_keys(call, call->body, "", compare_keys) != 0)
        return NULL;
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
    int index = 0;
    if (simt_get_enum(call, call->body, "", "question", 1, questions, 0, &index) != 0)
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
        json_t *answer = simt_call_route(call, questions[index], sub, &status);
        json_decref(sub);
        if (answer == NULL) {
            json_decref(results);
            return NULL;
        }
        if (status != 200) {
            /* one GPU's refusal does not sink the comparison */
            json_t *item = json_object();
            json_object_set(item, "gpu", g);
            simt_set_int(item, "status", status);
            json_object_set(item, "error", json_object_get(answer, "error"));
            json_decref(answer);
            answer = item;
        } else if (json_object_get(answer, "gpu") == NULL) {
            json_object_set(answer, "gpu", g);
        }
        json_array_append_new(results, answer);
    }
    json_t *answer = json_object();
    json_object_set_new(answer, "question", json_string(questions[index]));
    json_object_set_new(answer, "results", results);
    return answer;
}
