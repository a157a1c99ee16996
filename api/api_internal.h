/* api_internal.h - the handler framework shared by every endpoint file
 * (h_*.c): the per-request call state, strict field readers that produce the
 * contract's error bodies, GPU resolution with what-if overrides, and
 * assumptions. Not installed; only api/ and in-process tests include it.
 *
 * Conventions: a handler is `json_t *h_name(struct simt_call *call)`. It
 * returns a new reference to its answer object, or NULL after recording an
 * error with simt_call_fail (or one of the readers, which do so themselves).
 * Readers return 0 on success and -1 after recording the error; a handler
 * just returns NULL on -1. JSON paths in `field` use dots and [i]:
 * "per_thread.accesses[2].lane_stride_elements". */
#ifndef SIMT_API_INTERNAL_H
#define SIMT_API_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "api.h"
#include "gpu.h"
#include "hwdb.h"
#include "occupancy.h"

#define SIMT_MAX_SWEEP_POINTS 4096
#define SIMT_MAX_LANE_ADDRESSES 32
#define SIMT_MAX_JSON_DEPTH 32 /* deeper request bodies are a 400 */

enum simt_figures {
    SIMT_FIGURES_MEASURED = 0, /* default: measured where the GPU has them */
    SIMT_FIGURES_DATASHEET     /* "figures": "datasheet": measured_* zeroed */
};

struct simt_call {
    const struct simt_hwdb *db;
    json_t *body;           /* the request object (POST); NULL for GET; borrowed */
    const char *path_param; /* the {id} of /v1/gpus/{id}, else NULL */
    enum simt_figures figures;
    json_t *assumptions; /* array the handler appends to; owned by the call */
    /* the error, once recorded */
    int failed;
    int status;
    char code[32];
    char field[160];
    char message[512];
};

/* A GPU a request names: the database record, the numbers with the
 * request's overrides applied, and what the answer's "gpu" says. */
struct simt_resolved_gpu {
    const struct simt_hwdb_gpu *record;
    struct simt_gpu_spec spec;
    json_t *overridden; /* array of overridden keys, or NULL; owned: pass to simt_answer_new */
};

/* Replaces, in place, every byte of text that is not part of well-formed
 * UTF-8 with '?', so that any text can become a JSON string. */
void simt_utf8_repair(char *text);

/* Records an error (the first one wins); returns -1 so readers can `return`. */
int simt_call_fail(struct simt_call *call, int status, const char *code, const char *field, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
/* Same, with the model's diag: SIMT_EUNSAT -> 422 unsatisfiable, else 400
 * invalid_argument; field = prefix + diag->field, except that a GPU record
 * field the model found missing or wrong is named "gpu.<field>". */
int simt_call_fail_diag(struct simt_call *call, int rc, const char *prefix, const struct simt_diag *diag);

/* Appends one assumption string. */
void simt_call_assume(struct simt_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Refuses (400 unknown_field) any key of obj not in the NULL-terminated
 * list. path is the object's JSON path ("" for the body). */
int simt_check_keys(struct simt_call *call, json_t *obj, const char *path, const char *const *allowed);

/* Builds "prefix.key" (or "key" when prefix is empty) into buf. */
const char *simt_field_path(char *buf, size_t size, const char *prefix, const char *key);

/* Readers. `required` 1: absent -> 400 missing_field; 0: absent -> *out =
 * dflt. Wrong type -> 400 invalid_argument; outside [min, max] -> 400
 * invalid_argument naming the range. Integers accept integral JSON reals. */
int simt_get_int64(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                   int64_t min, int64_t max, int64_t dflt, int64_t *out);
int simt_get_int(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                 int min, int max, int dflt, int *out);
int simt_get_double(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                    double min, double max, double dflt, double *out);
int simt_get_bool(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                  int dflt, int *out);
/* String restricted to a NULL-terminated list of choices; *index receives
 * the position of the match (dflt_index when absent and not required). */
int simt_get_enum(struct simt_call *call, json_t *obj, const char *path, const char *key, int required,
                  const char *const *choices, int dflt_index, int *index);

/* Resolves obj[key] ("gpu": an id, or {"base": id, <field>: value, ...}).
 * Unknown id -> 404 unknown_gpu; unknown override -> 400 unknown_field;
 * bad value -> 400 invalid_argument. Applies call->figures. */
int simt_resolve_gpu(struct simt_call *call, json_t *obj, const char *path, const char *key,
                     struct simt_resolved_gpu *out);

/* The end of most handlers: with a model's failing rc, records the error
 * (simt_call_fail_diag), releases gpu->overridden and returns NULL; with
 * SIMT_OK, returns simt_answer_new(gpu). */
json_t *simt_answer_from(struct simt_call *call, int rc, const struct simt_diag *diag,
                         struct simt_resolved_gpu *gpu);

/* A new answer object {"gpu": id[, "overridden": [...]]}; steals
 * gpu->overridden. Assumptions are added by the framework after the
 * handler returns. NULL on allocation failure. */
json_t *simt_answer_new(struct simt_resolved_gpu *gpu);

/* Sets obj[key] to a JSON real (null when not finite; answers are printed
 * with 12 significant digits) or integer. */
void simt_set_real(json_t *obj, const char *key, double value);
void simt_set_int(json_t *obj, const char *key, int64_t value);

/* Runs another POST route in-process on `body` (borrowed) for the same
 * database and figures; returns the answer (new reference) and sets *status
 * to 200, or returns the error body and sets *status to the error status.
 * NULL only on allocation failure. Used by /v1/compare. */
json_t *simt_call_route(struct simt_call *call, const char *path, json_t *body, int *status);

/* The route table (routes.c). */
typedef json_t *(*simt_handler)(struct simt_call *call);

#define SIMT_ROUTE_MODEL (1u << 0) /* answer carries "assumptions"; body may carry "figures" */

struct simt_route {
    const char *method;
    const char *pattern; /* exact path, or ending in "{id}" */
    simt_handler handler;
    unsigned flags;
};

extern const struct simt_route simt_route_table[];
extern const size_t simt_route_count;

/* Handlers, one line each; every endpoint file adds its own here. */
json_t *h_healthz(struct simt_call *call);
json_t *h_openapi(struct simt_call *call);
json_t *h_gpus_list(struct simt_call *call);
json_t *h_gpus_get(struct simt_call *call);
json_t *h_occupancy(struct simt_call *call);
json_t *h_occupancy_sweep(struct simt_call *call);
json_t *h_launch_suggest(struct simt_call *call);
json_t *h_gemm(struct simt_call *call);
json_t *h_collective(struct simt_call *call);
json_t *h_roofline(struct simt_call *call);
json_t *h_memory_coalescing(struct simt_call *call);
json_t *h_memory_banks(struct simt_call *call);
json_t *h_memory_constant(struct simt_call *call);
json_t *h_latency_hiding(struct simt_call *call);
json_t *h_divergence(struct simt_call *call);
json_t *h_kernel(struct simt_call *call);
json_t *h_compare(struct simt_call *call);

/* The occupancy answer for one configuration (shared by sweep and /v1/kernel):
 * fills `answer` with the occupancy fields. `gpu` has been resolved. */
void simt_occupancy_fill(json_t *answer, const struct simt_gpu_spec *gpu,
                         const struct simt_occ_result *result);

#endif
