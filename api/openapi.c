/* openapi.c - GET /openapi.json: the OpenAPI 3 description of every
 * endpoint of API.md (api/openapi.json, embedded into the library at build
 * time so the daemon needs no file at run time). tests/unit/test_openapi.c
 * checks that every route of the table appears in it with its method. */
#include "call.h"
#include "routes.h"

extern const unsigned char simt_openapi_json[];
extern const size_t simt_openapi_json_len;

static json_t *answer_openapi(struct simt_call *call)
{
    json_error_t error;
    json_t *doc =
        json_loadb((const char *)simt_openapi_json, simt_openapi_json_len, JSON_REJECT_DUPLICATES, &error);
    if (doc == NULL)
        simt_call_fail(call, 500, "internal", NULL,
                       "the embedded OpenAPI document is malformed: %s (line %d)", error.text, error.line);
    return doc;
}

const struct simt_api_endpoint simt_api_openapi_document = {
    .method = "GET",
    .route = "/openapi.json",
    .handler = answer_openapi,
    .doc = "The OpenAPI 3 description of every endpoint.",
};
