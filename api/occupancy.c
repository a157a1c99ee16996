/* occupancy.c - POST /v1/occupancy, /v1/occupancy/sweep and
 * /v1/launch/suggest: read the kernel's attributes strictly, run the
 * occupancy model, answer in the contract's shape. */
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_json.h"
#include "cost.h"
#include "occupancy_json.h"
#include "read.h"
#include "routes.h"
#include "resolve.h"

#define MAX_BYTES SIMT_OCCUPANCY_MAX_BYTES
#define MAX_SWEEP_POINTS 4096

/* The occupancy request's rows for a struct T with the request at P; REQ:
 * how block_size and registers_per_thread are required. */
#define OCC_ROWS(T, P, REQ)                                                                                  \
    SIMT_OCCUPANCY_ROW_BLOCK_SIZE(REQ, T, P), SIMT_OCCUPANCY_ROW_REGISTERS(REQ, T, P),                       \
        SIMT_OCCUPANCY_ROW_STATIC_SHARED(0, T, P), SIMT_OCCUPANCY_ROW_DYNAMIC_SHARED(0, T, P),               \
        SIMT_OCCUPANCY_ROW_MAX_DYNAMIC_SHARED(0, T, P), SIMT_OCCUPANCY_ROW_CARVEOUT(0, T, P),                \
        SIMT_OCCUPANCY_ROW_BARRIERS(0, T, P),                                                                \
        SIMT_ROW_INT("grid_size", 0, 1, MAX_BYTES, 0, T, P grid_size,                                        \
                     "Blocks in the grid; adds waves to the answer."),                                       \
        SIMT_ROW_INT("sgprs_per_wave", 0, 0, 1 << 16, 0, T, P sgprs_per_wave,                                \
                     "AMD: scalar registers per wave; 0: not limiting.")

static const struct simt_api_field occupancy_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    OCC_ROWS(struct simt_occupancy_request, , SIMT_API_REQUIRED),
    SIMT_CLUSTER_ROWS(struct simt_occupancy_request, ),
};

static const struct {
    unsigned bit;
    const char *name;
} limiter_names[] = {
    {SIMT_LIMIT_WARPS, "warps"},   {SIMT_LIMIT_REGISTERS, "registers"}, {SIMT_LIMIT_SHARED, "shared_memory"},
    {SIMT_LIMIT_BLOCKS, "blocks"}, {SIMT_LIMIT_BARRIERS, "barriers"},
};

/* The answer's integer fields that come straight from the result, in the
 * answer's order, for both the one-point answer and the sweep's columns. */
struct result_field {
    const char *name;
    size_t offset; /* in struct simt_occupancy_result */
    int wide;      /* int64_t, else int */
};
#define R_INT(NAME, MEMBER)                                                                                  \
    {                                                                                                        \
        NAME, offsetof(struct simt_occupancy_result, MEMBER), 0                                              \
    }
#define R_WIDE(NAME, MEMBER)                                                                                 \
    {                                                                                                        \
        NAME, offsetof(struct simt_occupancy_result, MEMBER), 1                                              \
    }
static const struct result_field count_fields[] = {
    R_INT("active_blocks_per_sm", active_blocks_per_sm),
    R_INT("active_warps_per_sm", active_warps_per_sm),
    R_INT("max_warps_per_sm", max_warps_per_sm),
};
static const struct result_field limit_fields[] = {
    /* SIMT_OCCUPANCY_NO_LIMIT (the resource is not used) is null */
    R_INT("warps", limit_warps),   R_INT("registers", limit_registers), R_INT("shared_memory", limit_shared),
    R_INT("blocks", limit_blocks), R_INT("barriers", limit_barriers),
};
static const struct result_field allocated_fields[] = {
    R_WIDE("registers_per_block", registers_per_block),
    R_WIDE("shared_bytes_per_block", shared_bytes_per_block),
    R_WIDE("shared_carveout_bytes", shared_carveout_bytes),
    /* AMD only, from here */
    R_INT("vgprs_per_wave", vgprs_per_wave),
    R_INT("sgprs_per_wave", sgprs_per_wave),
    R_WIDE("lds_bytes_per_workgroup", lds_bytes_per_workgroup),
};
#define ALLOCATED_COMMON 3
#undef R_INT
#undef R_WIDE

static int64_t field_value(const struct simt_occupancy_result *r, const struct result_field *f)
{
    const char *base = (const char *)r + f->offset;
    if (f->wide) {
        int64_t value;
        memcpy(&value, base, sizeof value);
        return value;
    }
    int value;
    memcpy(&value, base, sizeof value);
    return value;
}

static size_t allocated_count(const struct simt_gpu_spec *gpu)
{
    return gpu->vendor == SIMT_VENDOR_AMD ? SIMT_COUNT_OF(allocated_fields) : ALLOCATED_COMMON;
}

/* AMD's own terms, after "allocated": two of them are the GPU's. */
static const char *const amd_tail[] = {"wavefront_size", "waves_per_simd", "waves_per_cu",
                                       "max_waves_per_cu"};

static int64_t amd_tail_value(const struct simt_gpu_spec *gpu, const struct simt_occupancy_result *r,
                              size_t i)
{
    switch (i) {
    case 0:
        return gpu->warp_size;
    case 1:
        return r->waves_per_simd;
    case 2:
        return r->waves_per_cu;
    default:
        return (int64_t)gpu->simds_per_cu * gpu->max_waves_per_simd;
    }
}

static void write_limit(struct simt_jsonw *w, int64_t blocks)
{
    if (blocks == SIMT_OCCUPANCY_NO_LIMIT)
        simt_jsonw_null(w);
    else
        simt_jsonw_int(w, blocks);
}

void simt_api_occupancy_write(struct simt_jsonw *w, const struct simt_gpu_spec *gpu,
                              const struct simt_occupancy_result *r)
{
    for (size_t i = 0; i < SIMT_COUNT_OF(count_fields); i++)
        simt_jsonw_key_int(w, count_fields[i].name, field_value(r, &count_fields[i]));
    simt_jsonw_key_real(w, "occupancy", r->occupancy);
    simt_jsonw_key(w, "limiters");
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < SIMT_COUNT_OF(limiter_names); i++)
        if (r->limiters & limiter_names[i].bit)
            simt_jsonw_string(w, limiter_names[i].name);
    simt_jsonw_array_end(w);
    simt_jsonw_key(w, "limits");
    simt_jsonw_object_begin(w);
    for (size_t i = 0; i < SIMT_COUNT_OF(limit_fields); i++) {
        simt_jsonw_key(w, limit_fields[i].name);
        write_limit(w, field_value(r, &limit_fields[i]));
    }
    simt_jsonw_object_end(w);
    simt_jsonw_key(w, "allocated");
    simt_jsonw_object_begin(w);
    for (size_t i = 0; i < allocated_count(gpu); i++)
        simt_jsonw_key_int(w, allocated_fields[i].name, field_value(r, &allocated_fields[i]));
    simt_jsonw_object_end(w);
    if (gpu->vendor == SIMT_VENDOR_AMD)
        for (size_t i = 0; i < SIMT_COUNT_OF(amd_tail); i++)
            simt_jsonw_key_int(w, amd_tail[i], amd_tail_value(gpu, r, i));
}

void simt_api_occupancy_fill(json_t *answer, const struct simt_gpu_spec *gpu,
                             const struct simt_occupancy_result *r)
{
    /* written once (above) and read back: one description of the answer */
    struct simt_jsonw w;
    simt_jsonw_init(&w, 512);
    simt_jsonw_object_begin(&w);
    simt_api_occupancy_write(&w, gpu, r);
    simt_jsonw_object_end(&w);
    size_t len = 0;
    char *text = simt_jsonw_take(&w, &len);
    json_t *fields = text != NULL ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    if (fields != NULL)
        json_object_update(answer, fields);
    json_decref(fields);
}

static void occupancy_assumptions(struct simt_call *call, const struct simt_gpu_spec *gpu,
                                  const struct simt_occupancy_request *req,
                                  const struct simt_occupancy_result *r)
{
    if (r->assumed & SIMT_OCCUPANCY_ASSUMED_MAX_DYNAMIC)
        simt_call_assume(call,
                         "max_dynamic_shared_bytes: the kernel is taken to have opted in to the most the GPU "
                         "allows (%lld bytes = per-block opt-in limit minus static shared memory)",
                         (long long)(gpu->shared_bytes_per_block_optin - req->static_shared_bytes));
    if (r->assumed & SIMT_OCCUPANCY_ASSUMED_CARVEOUT)
        simt_call_assume(call,
                         "carveout_percent: the driver's default preference, giving a %lld-byte carveout",
                         (long long)r->shared_carveout_bytes);
    if (gpu->vendor == SIMT_VENDOR_AMD) {
        simt_call_assume(call,
                         "AMD: registers_per_thread counts VGPRs per lane; workgroups per CU are reported as "
                         "active_blocks_per_sm");
        if (r->assumed & SIMT_OCCUPANCY_ASSUMED_SGPRS)
            simt_call_assume(call, "sgprs_per_wave not given: scalar registers taken as not limiting");
    }
}

static json_t *answer_occupancy(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_occupancy_request req;
    simt_occupancy_request_init(&req);
    if (simt_read_fields(call, call->body, "", occupancy_fields, SIMT_COUNT_OF(occupancy_fields), 0, NULL,
                         &req) != 0 ||
        simt_api_cluster_read(call, call->body, &req) != 0)
        return NULL;
    struct simt_occupancy_result result;
    struct simt_cluster_result clusters;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    memset(&clusters, 0, sizeof clusters);
    int rc = simt_occupancy_compute(&gpu->spec, &req, &result, &diag);
    if (rc == SIMT_OK && simt_api_cluster_compute(call, gpu, &req, &result, &clusters) != 0)
        return NULL;
    if (rc != SIMT_OK) {
        simt_call_fail_diag(call, rc, "", &diag);
        return NULL;
    }
    /* written as text: an optional member goes in its place below */
    struct simt_jsonw *w = simt_call_write_begin(call);
    if (w == NULL)
        return NULL;
    simt_api_occupancy_write(w, &gpu->spec, &result);
    if (req.grid_size > 0)
        simt_jsonw_key_real(w, "waves", result.waves);
    if (req.cluster_dims[0] > 0) /* an optional member: after waves, as the tree had it */
        simt_jsonw_key_int(w, "active_clusters_per_gpu", clusters.active_clusters_per_gpu);
    occupancy_assumptions(call, &gpu->spec, &req, &result);
    simt_api_cluster_assume(call, gpu, &req);
    return simt_call_write_end(call);
}

/* --- sweep --- */

/* A sweep's body: the occupancy request, what varies, and over what. */
struct sweep_request {
    struct simt_occupancy_request occ;
    int vary;   /* index into varies */
    int format; /* index into formats */
    int64_t from, to, step;
};

static const char *const varies[] = {"block_size", "registers_per_thread", "dynamic_shared_bytes", NULL};
static const char *const formats[] = {"points", "columns", NULL};

#define S struct sweep_request
static const struct simt_api_field sweep_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    OCC_ROWS(S, occ., SIMT_API_REQUIRED_IN_FORM), /* the varied one is left out */
    SIMT_CLUSTER_ROWS(S, occ.),
    SIMT_ROW_CHOICE("vary", SIMT_API_REQUIRED | SIMT_API_GROUP(2), varies, 0, S, vary,
                    "The field to vary (and leave out of the body)."),
    SIMT_ROW_CHOICE("format", SIMT_API_GROUP(2), formats, 0, S, format,
                    "points: one object per value; columns: one list per field, for plots and data frames."),
    SIMT_ROW_INT("from", SIMT_API_KEEP | SIMT_API_GROUP(1), 0, MAX_BYTES, 0, S, from,
                 "First value; default: the smallest that makes sense."),
    SIMT_ROW_INT("to", SIMT_API_KEEP | SIMT_API_GROUP(1), 0, MAX_BYTES, 0, S, to,
                 "Last value; default: the GPU's limit."),
    SIMT_ROW_INT("step", SIMT_API_KEEP | SIMT_API_GROUP(1), 1, MAX_BYTES, 1, S, step,
                 "Step; default: a warp, a register, 1 KiB."),
};
#undef S

/* The sweep's range when the body leaves it out: the GPU's limits. */
static void default_range(const struct simt_gpu_spec *spec, struct sweep_request *sweep)
{
    sweep->from = 0;
    sweep->step = 1;
    if (sweep->vary == 0) {
        sweep->from = spec->warp_size;
        sweep->to = spec->max_threads_per_block;
        sweep->step = spec->warp_size;
    } else if (sweep->vary == 1) {
        sweep->from = 1;
        sweep->to =
            spec->vendor == SIMT_VENDOR_AMD ? spec->max_vgprs_per_wave : spec->max_registers_per_thread;
    } else {
        sweep->to = spec->shared_bytes_per_block_optin - sweep->occ.static_shared_bytes;
        if (sweep->to < 0)
            sweep->to = 0;
        sweep->step = 1024;
    }
}

/* Reads the sweep's body: vary first, then the request without the varied
 * field, then the range. */
static int read_sweep(struct simt_call *call, const struct simt_gpu_spec *spec, struct sweep_request *sweep)
{
    const size_t count = SIMT_COUNT_OF(sweep_fields);
    simt_occupancy_request_init(&sweep->occ);
    int rc = simt_read_fields(call, call->body, "", sweep_fields, count, 2, NULL, sweep);
    if (rc != 0)
        return rc;
    const char *varied = varies[sweep->vary];
    if (json_object_get(call->body, varied) != NULL)
        return simt_call_fail(call, 400, "invalid_argument", varied,
                              "%s is what this sweep varies: leave it out and use from, to and step", varied);
    rc = simt_read_fields(call, call->body, "", sweep_fields, count, 0,
                          simt_read_field_named(sweep_fields, count, varied), sweep);
    if (rc != 0)
        return rc;
    default_range(spec, sweep);
    rc = simt_read_fields(call, call->body, "", sweep_fields, count, 1, NULL, sweep);
    if (rc != 0)
        return rc;
    if (sweep->to < sweep->from)
        return simt_call_fail(call, 400, "invalid_argument", "to",
                              "to (%lld) must not be less than from (%lld)", (long long)sweep->to,
                              (long long)sweep->from);
    if ((sweep->to - sweep->from) / sweep->step + 1 > MAX_SWEEP_POINTS)
        return simt_call_fail(call, 400, "invalid_argument", "step",
                              "the sweep would have %lld points; at most %d: raise step or narrow from..to",
                              (long long)((sweep->to - sweep->from) / sweep->step + 1), MAX_SWEEP_POINTS);
    int64_t points = (sweep->to - sweep->from) / sweep->step + 1;
    if (points > (int64_t)simt_api_max_cost())
        return simt_call_fail(call, 413, "too_large", "step",
                              "the sweep would have %lld points; one request may ask for %u "
                              "(simtd --max-request-cost): raise step or narrow from..to",
                              (long long)points, simt_api_max_cost());
    return 0;
}

/* One point of a sweep: the configuration's result and whether it can
 * launch (the model's rc: 0 or SIMT_EUNSAT). */
struct sweep_point {
    int64_t value;
    int rc;
    struct simt_occupancy_result r;
    int64_t active_clusters_per_gpu; /* with cluster_size; 0 where the point cannot launch */
};

/* The sweep's request for one value of the varied field. */
static struct simt_occupancy_request point_request(const struct sweep_request *sweep, int64_t value)
{
    struct simt_occupancy_request point = sweep->occ;
    if (sweep->vary == 0)
        point.block_size = (int)value;
    else if (sweep->vary == 1)
        point.registers_per_thread = (int)value;
    else
        point.dynamic_shared_bytes = value;
    return point;
}

/* Why a point cannot launch: the model's message, computed again (pure). */
static void write_reason(struct simt_jsonw *w, const struct simt_gpu_spec *spec,
                         const struct sweep_request *sweep, const struct sweep_point *p)
{
    struct simt_occupancy_request req = point_request(sweep, p->value);
    struct simt_occupancy_result r;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    if (simt_occupancy_compute(spec, &req, &r, &diag) != SIMT_OK)
        simt_jsonw_string(w, diag.message);
    else
        simt_jsonw_null(w); /* cannot happen: the model is pure */
}

/* Do two launchable points answer alike but for their value? Their
 * results were zeroed before the model filled them (sweep_compute), so
 * equal bytes are equal fields, reals bit for bit. */
static int same_answer(const struct sweep_point *a, const struct sweep_point *b)
{
    return a->rc == 0 && b->rc == 0 && a->active_clusters_per_gpu == b->active_clusters_per_gpu &&
           memcmp(&a->r, &b->r, sizeof a->r) == 0;
}

/* One object per point. Occupancy moves in steps (warps, register and
 * shared memory granules), so neighbouring points often answer alike: such
 * a point copies the text after "value" of the last point written in full
 * instead of writing it again (the same bytes). */
static void write_points(struct simt_jsonw *w, const struct simt_gpu_spec *spec,
                         const struct sweep_request *sweep, const struct sweep_point *points, size_t count)
{
    simt_jsonw_key(w, "points");
    simt_jsonw_array_begin(w);
    const struct sweep_point *written = NULL; /* the last launchable point written in full */
    size_t written_from = 0, written_len = 0;
    for (size_t i = 0; i < count; i++) {
        const struct sweep_point *p = &points[i];
        simt_jsonw_object_begin(w);
        simt_jsonw_key_int(w, "value", p->value);
        if (written != NULL && same_answer(written, p)) {
            simt_jsonw_repeat(w, written_from, written_len);
            simt_jsonw_object_end(w);
            continue;
        }
        size_t from = simt_jsonw_length(w);
        simt_jsonw_key(w, "launchable");
        simt_jsonw_bool(w, p->rc == 0);
        simt_api_occupancy_write(w, spec, &p->r);
        if (p->rc == 0 && sweep->occ.grid_size > 0)
            simt_jsonw_key_real(w, "waves", p->r.waves);
        if (sweep->occ.cluster_dims[0] > 0)
            simt_jsonw_key_int(w, "active_clusters_per_gpu", p->active_clusters_per_gpu);
        if (p->rc != 0) {
            simt_jsonw_key(w, "reason");
            write_reason(w, spec, sweep, p);
        } else {
            written = p;
            written_from = from;
            written_len = simt_jsonw_length(w) - from;
        }
        simt_jsonw_object_end(w);
    }
    simt_jsonw_array_end(w);
}

/* A column of one integer field of every point's result; with `limits`,
 * SIMT_OCCUPANCY_NO_LIMIT is null. */
static void write_int_column(struct simt_jsonw *w, const struct result_field *f,
                             const struct sweep_point *points, size_t count, int limits)
{
    simt_jsonw_key(w, f->name);
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < count; i++) {
        if (limits)
            write_limit(w, field_value(&points[i].r, f));
        else
            simt_jsonw_int(w, field_value(&points[i].r, f));
    }
    simt_jsonw_array_end(w);
}

/* The columns that hold no plain integer of the result: the first
 * limiter (null when none) and every point's list of them. */
static void write_limiter_columns(struct simt_jsonw *w, const struct sweep_point *points, size_t count)
{
    simt_jsonw_key(w, "limiter");
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < count; i++) {
        const char *first = NULL;
        for (size_t k = 0; k < SIMT_COUNT_OF(limiter_names) && first == NULL; k++)
            if (points[i].r.limiters & limiter_names[k].bit)
                first = limiter_names[k].name;
        if (first != NULL)
            simt_jsonw_string(w, first);
        else
            simt_jsonw_null(w);
    }
    simt_jsonw_array_end(w);
    simt_jsonw_key(w, "limiters");
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < count; i++) {
        simt_jsonw_array_begin(w);
        for (size_t k = 0; k < SIMT_COUNT_OF(limiter_names); k++)
            if (points[i].r.limiters & limiter_names[k].bit)
                simt_jsonw_string(w, limiter_names[k].name);
        simt_jsonw_array_end(w);
    }
    simt_jsonw_array_end(w);
}

/* The sweep as columns: {"value": [...], "launchable": [...], then every
 * field of a point's answer as a list in the same order ("limits" and
 * "allocated" as objects of lists), "limiter" (the first of "limiters"),
 * "waves" (null where a point cannot launch) with grid_size, "reason"
 * (null where a point can) when some point cannot launch}. */
static void write_columns(struct simt_jsonw *w, const struct simt_gpu_spec *spec,
                          const struct sweep_request *sweep, const struct sweep_point *points, size_t count)
{
    int unlaunchable = 0;
    simt_jsonw_key(w, "columns");
    simt_jsonw_object_begin(w);
    simt_jsonw_key(w, "value");
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < count; i++)
        simt_jsonw_int(w, points[i].value);
    simt_jsonw_array_end(w);
    simt_jsonw_key(w, "launchable");
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < count; i++) {
        simt_jsonw_bool(w, points[i].rc == 0);
        unlaunchable |= points[i].rc != 0;
    }
    simt_jsonw_array_end(w);
    for (size_t f = 0; f < SIMT_COUNT_OF(count_fields); f++)
        write_int_column(w, &count_fields[f], points, count, 0);
    simt_jsonw_key(w, "occupancy");
    simt_jsonw_array_begin(w);
    for (size_t i = 0; i < count; i++)
        simt_jsonw_real(w, points[i].r.occupancy);
    simt_jsonw_array_end(w);
    write_limiter_columns(w, points, count);
    simt_jsonw_key(w, "limits");
    simt_jsonw_object_begin(w);
    for (size_t f = 0; f < SIMT_COUNT_OF(limit_fields); f++)
        write_int_column(w, &limit_fields[f], points, count, 1);
    simt_jsonw_object_end(w);
    simt_jsonw_key(w, "allocated");
    simt_jsonw_object_begin(w);
    for (size_t f = 0; f < allocated_count(spec); f++)
        write_int_column(w, &allocated_fields[f], points, count, 0);
    simt_jsonw_object_end(w);
    for (size_t f = 0; spec->vendor == SIMT_VENDOR_AMD && f < SIMT_COUNT_OF(amd_tail); f++) {
        simt_jsonw_key(w, amd_tail[f]);
        simt_jsonw_array_begin(w);
        for (size_t i = 0; i < count; i++)
            simt_jsonw_int(w, amd_tail_value(spec, &points[i].r, f));
        simt_jsonw_array_end(w);
    }
    if (sweep->occ.grid_size > 0) {
        simt_jsonw_key(w, "waves");
        simt_jsonw_array_begin(w);
        for (size_t i = 0; i < count; i++)
            simt_jsonw_real(w, points[i].rc == 0 ? points[i].r.waves : (double)NAN);
        simt_jsonw_array_end(w);
    }
    if (sweep->occ.cluster_dims[0] > 0) {
        simt_jsonw_key(w, "active_clusters_per_gpu");
        simt_jsonw_array_begin(w);
        for (size_t i = 0; i < count; i++)
            simt_jsonw_int(w, points[i].active_clusters_per_gpu);
        simt_jsonw_array_end(w);
    }
    if (unlaunchable) {
        simt_jsonw_key(w, "reason");
        simt_jsonw_array_begin(w);
        for (size_t i = 0; i < count; i++) {
            if (points[i].rc != 0)
                write_reason(w, spec, sweep, &points[i]);
            else
                simt_jsonw_null(w);
        }
        simt_jsonw_array_end(w);
    }
    simt_jsonw_object_end(w);
}

/* Computes every point into a new array (*count points); NULL after
 * recording an error. */
static struct sweep_point *sweep_compute(struct simt_call *call, const struct simt_resolved_gpu *gpu,
                                         const struct sweep_request *sweep, size_t *count)
{
    const struct simt_gpu_spec *spec = &gpu->spec;
    int64_t from = sweep->from;
    if (sweep->vary == 0 && from == 0)
        from = sweep->step; /* a block of 0 threads is no configuration */
    *count = from <= sweep->to ? (size_t)((sweep->to - from) / sweep->step + 1) : 0;
    struct sweep_point *points = malloc((*count > 0 ? *count : 1) * sizeof *points);
    if (points == NULL) {
        simt_call_fail(call, 500, "internal", NULL, "out of memory");
        return NULL;
    }
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    for (size_t i = 0; i < *count; i++) {
        struct sweep_point *p = &points[i];
        p->value = from + (int64_t)i * sweep->step;
        struct simt_occupancy_request req = point_request(sweep, p->value);
        memset(&p->r, 0, sizeof p->r);
        p->rc = simt_occupancy_compute(spec, &req, &p->r, &diag);
        if (p->rc != 0 && p->rc != SIMT_EUNSAT) {
            simt_call_fail_diag(call, p->rc, "", &diag);
            free(points);
            return NULL;
        }
        if (p->rc != 0)
            memset(&diag, 0, sizeof diag);
        struct simt_cluster_result clusters;
        memset(&clusters, 0, sizeof clusters);
        if (p->rc == 0 && simt_api_cluster_compute(call, gpu, &req, &p->r, &clusters) != 0) {
            free(points);
            return NULL;
        }
        p->active_clusters_per_gpu = clusters.active_clusters_per_gpu;
    }
    return points;
}

static json_t *answer_sweep(struct simt_call *call)
{
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct sweep_request sweep;
    memset(&sweep, 0, sizeof sweep);
    if (read_sweep(call, &gpu->spec, &sweep) != 0 || simt_api_cluster_read(call, call->body, &sweep.occ) != 0)
        return NULL;
    struct simt_occupancy_result one_block = {.active_blocks_per_sm = 1};
    struct simt_cluster_result clusters;
    if (simt_api_cluster_compute(call, gpu, &sweep.occ, &one_block, &clusters) != 0)
        return NULL; /* the cluster's checks do not depend on the varied field */
    const struct simt_gpu_spec *spec = &gpu->spec;
    size_t count = 0;
    struct sweep_point *points = sweep_compute(call, gpu, &sweep, &count);
    if (points == NULL)
        return NULL;
    struct simt_jsonw *w = simt_call_write_begin(call);
    if (w == NULL) {
        free(points);
        return NULL;
    }
    /* about 350 bytes a point as points, 100 as columns (a reason adds 200) */
    simt_jsonw_reserve(w, 512 + count * (sweep.format == 0 ? 400 : 128));
    simt_jsonw_key_string(w, "vary", varies[sweep.vary]);
    if (sweep.format == 0)
        write_points(w, spec, &sweep, points, count);
    else
        write_columns(w, spec, &sweep, points, count);
    struct simt_occupancy_result summary;
    memset(&summary, 0, sizeof summary);
    for (size_t i = 0; i < count; i++)
        summary.assumed |= points[i].r.assumed;
    occupancy_assumptions(call, spec, &sweep.occ, &summary);
    simt_api_cluster_assume(call, gpu, &sweep.occ);
    free(points);
    return simt_call_write_end(call);
}

/* --- suggest --- */

#define G struct simt_suggest_request
static const struct simt_api_field suggest_fields[] = {
    SIMT_ROW_GPU(SIMT_API_REQUIRED),
    SIMT_OCCUPANCY_ROW_REGISTERS(SIMT_API_REQUIRED, G, ),
    SIMT_OCCUPANCY_ROW_STATIC_SHARED(0, G, ),
    SIMT_OCCUPANCY_ROW_DYNAMIC_SHARED(0, G, ),
    SIMT_ROW_INT("dynamic_shared_bytes_per_thread", 0, 0, (int64_t)1 << 30, 0, G,
                 dynamic_shared_bytes_per_thread, "Dynamic shared memory per thread (instead of per block)."),
    SIMT_ROW_INT("max_block_size", 0, 0, 1 << 20, 0, G, max_block_size,
                 "Largest block to consider; 0: the GPU's limit."),
    SIMT_OCCUPANCY_ROW_CARVEOUT(0, G, ),
    SIMT_OCCUPANCY_ROW_BARRIERS(0, G, ),
};
#undef G

static json_t *answer_suggest(struct simt_call *call)
{
    if (json_object_get(call->body, "dynamic_shared_bytes") != NULL &&
        json_object_get(call->body, "dynamic_shared_bytes_per_thread") != NULL) {
        simt_call_fail(call, 400, "invalid_argument", "dynamic_shared_bytes_per_thread",
                       "give dynamic_shared_bytes (per block) or dynamic_shared_bytes_per_thread, not both");
        return NULL;
    }
    const struct simt_resolved_gpu *gpu = simt_resolve_gpu(call, call->body, "", "gpu");
    if (gpu == NULL)
        return NULL;
    struct simt_suggest_request req;
    simt_suggest_request_init(&req);
    if (simt_read_fields(call, call->body, "", suggest_fields, SIMT_COUNT_OF(suggest_fields), 0, NULL,
                         &req) != 0)
        return NULL;
    struct simt_suggest_result result;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_occupancy_suggest(&gpu->spec, &req, &result, &diag);
    json_t *answer = simt_call_answer_from(call, rc, &diag);
    if (answer == NULL)
        return NULL;
    simt_call_set_int(answer, "block_size", result.block_size);
    simt_call_set_int(answer, "min_grid_size", result.min_grid_size);
    simt_call_set_real(answer, "occupancy", result.occupancy);
    simt_call_set_int(answer, "active_blocks_per_sm", result.active_blocks_per_sm);
    if (req.max_block_size == 0)
        simt_call_assume(call, "max_block_size: the GPU's limit, %d threads",
                         gpu->spec.max_threads_per_block);
    return answer;
}

const struct simt_api_endpoint simt_api_occupancy_endpoint = SIMT_MODEL_ENDPOINT(
    "/v1/occupancy", answer_occupancy, occupancy_fields,
    "One kernel configuration: active blocks and warps per SM, occupancy and what limits it.");

const struct simt_api_endpoint simt_api_occupancy_sweep =
    SIMT_MODEL_ENDPOINT("/v1/occupancy/sweep", answer_sweep, sweep_fields,
                        "The occupancy of one configuration with one field varied over a range.");

const struct simt_api_endpoint simt_api_occupancy_suggest =
    SIMT_MODEL_ENDPOINT("/v1/launch/suggest", answer_suggest, suggest_fields,
                        "The block size of the highest occupancy for a kernel's attributes "
                        "(cudaOccupancyMaxPotentialBlockSize).");
