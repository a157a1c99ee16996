/* resolve.h - the GPU a request names, resolved into the call: a database
 * id, or a what-if object {"base": id, <field>: value, ...} whose numeric
 * overrides hwdb/whatif.c applies; the call's figure policy applied too.
 * Not installed.
 *
 * Ownership: the resolved GPU lives in call->gpu and is released with the
 * call (call.h); the pointer returned is the call's, valid until then. */
#ifndef SIMT_API_RESOLVE_H
#define SIMT_API_RESOLVE_H

#include <jansson.h>

#include "call.h"

/* Resolves obj[key] into call->gpu and returns it, or NULL after recording
 * the error: unknown id -> 404 unknown_gpu; unknown override -> 400
 * unknown_field; bad value or broken relation -> 400 invalid_argument.
 * A call holds one GPU: resolving another replaces it. */
const struct simt_resolved_gpu *simt_resolve_gpu(struct simt_call *call, json_t *obj, const char *path,
                                                 const char *key);

#endif
