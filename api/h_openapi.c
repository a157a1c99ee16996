/* h_openapi.c - GET /openapi.json: the OpenAPI 3 description of every
 * endpoint of API.md (api/openapi.json, embedded into the library at build
 * time so the daemon needs no file at run time). tests/unit/test_openapi.c
 * checks that every route of the table appears in it with its method. */
#include "api_internal.h"

extern const unsigned char simt_openapi_json[];
extern const size_t simt_openapi_json_len;

json_t *h_openapi(struct simt_call *call)
{
    json_error_t error;
    json_t *doc =
        json_loadb((const char *)simt_openapi_json, simt_openapi_json_len, JSON_REJECT_DUPLICATES, &error);
    if (doc == NULL)
        simt_call_fail(call, 500, "internal", NULL,
                       "the embedded OpenAPI document is malformed: %s (line %d)", error.text, error.line);
    return doc;
}
