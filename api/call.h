/* call.h - one request's state and how it ends: what the pipeline (api.c)
 * decided (figure policy), what the handler resolved (the GPU), what it
 * assumed, and the error once one is recorded; plus the answer helpers every
 * handler shares. Not installed; only api/ includes it.
 *
 * Ownership: a struct simt_call belongs to the function that runs the route
 * (simt_api_handle, or simt_api_call_route for /v1/compare's sub-requests),
 * which initialises it and releases it with simt_call_release after the
 * handler returns. Everything a handler resolves through the call (the GPU
 * and its overrides json, the figure set, the assumptions) lives in the call
 * and is released there, so a handler has no cleanup path: on failure it
 * records the error and returns NULL.
 *
 * Errors: a handler is `json_t *handler(struct simt_call *call)` and returns
 * a new reference to its answer, or NULL after recording an error in the
 * call. Functions that can fail return 0 or a negative SIMT_E* code
 * (SIMT_EINVAL for a 400, SIMT_ENOENT 404, SIMT_EUNSAT 422, SIMT_ENOMEM 500)
 * with the contract's error (status, code, field, message) recorded in
 * call->error; the first error recorded wins. */
#ifndef SIMT_API_CALL_H
#define SIMT_API_CALL_H

#include <jansson.h>
#include <stdint.h>

#include "api.h"
#include "endpoint.h"
#include "figures.h"
#include "gpu.h"
#include "hwdb.h"
#include "jsonw.h"

/* The GPU a request names: the database record, its numbers with the
 * request's overrides (and the call's figure policy) applied, the figure
 * set for that policy, and the names the request overrode. */
struct simt_resolved_gpu {
    const struct simt_hwdb_gpu *record;
    struct simt_gpu_spec spec;
    struct simt_figure_set figures;
    struct simt_figure_overrides marks; /* which figures the what-if touched */
    json_t *overridden;                 /* array of overridden names, or NULL; owned by the call */
};

/* The contract's error body, recorded once. */
struct simt_call_error {
    int status;
    char code[32];
    char field[160]; /* JSON path: "per_thread.accesses[2].lane_stride_elements" */
    char message[512];
};

struct simt_call {
    const struct simt_hwdb *db;
    const struct simt_api_endpoint *endpoint;
    json_t *body;           /* the request object (POST); NULL for GET; borrowed */
    const char *path_param; /* the {id} of /v1/gpus/{id}, else NULL */
    /* The figure policy: decided once, by the pipeline, from "figures". */
    enum simt_figure_policy policy;
    json_t *assumptions; /* array; owned */
    /* The figures the model used (simt_call_assume_figures adds them); the
     * pipeline answers them as "figures_used" from the call's GPU's set. */
    simt_figure_mask figures_used;
    int has_gpu;
    struct simt_resolved_gpu gpu; /* owned; valid when has_gpu */
    int failed;
    struct simt_call_error error;
    /* Where a handler may write its answer as text instead of returning a
     * tree (jsonw.h): offered by simt_api_handle, NULL for /v1/compare's
     * sub-requests and the tree path (simt_api_handle_tree). A handler that
     * uses it writes with simt_call_write_answer and the answer's members,
     * leaving the object open, and returns simt_call_written(call); the
     * pipeline adds "assumptions" and "figures_used" and closes it. Borrowed. */
    struct simt_jsonw *writer;
    int written;
    struct simt_jsonw *own_writer; /* malloc'd by simt_call_write_begin when none was offered */
};

/* Starts a call on db (borrowed) with the default figure policy. */
void simt_call_init(struct simt_call *call, const struct simt_hwdb *db);
/* Releases what the call owns (the GPU's overrides, the assumptions). */
void simt_call_release(struct simt_call *call);

/* Replaces, in place, every byte of text that is not part of well-formed
 * UTF-8 with '?', so that any text can become a JSON string. */
void simt_call_utf8_repair(char *text);

/* Records an error (the first one wins); returns the SIMT_E* code of the
 * status, so readers can `return simt_call_fail(...)`. */
int simt_call_fail(struct simt_call *call, int status, const char *code, const char *field, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
/* Same, with the model's diag: SIMT_EUNSAT -> 422 unsatisfiable, else 400
 * invalid_argument; field = prefix + diag->field, except that a GPU record
 * field the model found missing or wrong is named "gpu.<field>". */
int simt_call_fail_diag(struct simt_call *call, int rc, const char *prefix, const struct simt_diag *diag);

/* Appends one assumption string. */
void simt_call_assume(struct simt_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records the figures in `used` as the model's (the answer's
 * "figures_used") and writes one assumption line per figure. `figures` is
 * the set the model computed with (call->gpu.figures, or one a model built
 * itself from the call's GPU and policy: then the same values); the lines
 * and figures_used describe the call's GPU's set, which knows the what-if. */
void simt_call_assume_figures(struct simt_call *call, const struct simt_figure_set *figures,
                              simt_figure_mask used);

/* The "figures_used" object of the call (see the API's "Figures: where
 * every number comes from"): each figure in call->figures_used with its
 * value and source, and for a derived one the datasheet figure, the
 * fraction and where the fraction came from. NULL without a GPU. */
json_t *simt_call_figures_used(const struct simt_call *call);

/* A new answer object {"gpu": id[, "overridden": [...]]} for the call's
 * GPU, or {} when the call resolved none. NULL on allocation failure. */
json_t *simt_call_answer(struct simt_call *call);
/* The end of most handlers: with a model's failing rc, records the error
 * (simt_call_fail_diag) and returns NULL; with SIMT_OK, simt_call_answer. */
json_t *simt_call_answer_from(struct simt_call *call, int rc, const struct simt_diag *diag);

/* The start of an answer written as text: "{" then "gpu" and "overridden"
 * when the call resolved a GPU (simt_call_answer's members). Writes into
 * call->writer when the pipeline offers one, else into a writer of the
 * call's own (released with the call). Returns the writer for the
 * handler's members; NULL on allocation failure (error recorded). */
struct simt_jsonw *simt_call_write_begin(struct simt_call *call);
/* The end of a handler that wrote its answer: with the pipeline's writer,
 * marks the call written and returns a value that stands for the text
 * (jansson's null, not owned); with the call's own writer (no writer
 * offered: /v1/compare, the tree path), closes the object and returns it
 * parsed as a new tree, the same values. NULL after recording an error. */
json_t *simt_call_write_end(struct simt_call *call);

/* simt_api_handle with every answer built as a jansson tree and dumped by
 * jansson (no writer offered, json_dumps): the path answers took before the
 * writer, kept for tests that compare the two byte for byte. */
int simt_api_handle_tree(const struct simt_hwdb *db, const struct simt_api_request *req,
                         struct simt_api_response *resp) SIMT_WARN_UNUSED;

/* Sets obj[key] to a JSON real (null when not finite; answers are printed
 * with 12 significant digits) or integer. */
void simt_call_set_real(json_t *obj, const char *key, double value);
void simt_call_set_int(json_t *obj, const char *key, int64_t value);

/* Runs another POST route in-process on `body` (borrowed) for the same
 * database and figure policy; returns the answer (new reference) and sets
 * *status to 200, or returns the error body and sets *status to the error
 * status. NULL only on allocation failure. /v1/compare's only re-dispatch. */
json_t *simt_api_call_route(struct simt_call *call, const char *route, json_t *body, int *status);

#endif
